//! Property tests: the laws attention and positional encodings must obey, on random models
//! and random inputs.

mod common;

use glimpse::model::attention::full_mask;
use glimpse::model::config::{Family, NormPlacement, Positional, Scoring};
use glimpse::model::position;
use glimpse::model::softmax::masked_softmax;
use glimpse::model::tokenizer::BOS;
use glimpse::model::{ForwardOptions, Model, ModelInput};
use ndarray::{Array1, Array2};
use proptest::prelude::*;

use common::{config, VOCAB};

fn positional() -> impl Strategy<Value = Positional> {
    prop_oneof![
        Just(Positional::None),
        Just(Positional::Sinusoidal { base: 10000.0 }),
        Just(Positional::Learned),
        Just(Positional::Rope { base: 10000.0 }),
        Just(Positional::Alibi),
        (1usize..4).prop_map(|k| Positional::Relative { max_distance: k }),
    ]
}

fn norm() -> impl Strategy<Value = NormPlacement> {
    prop_oneof![Just(NormPlacement::Pre), Just(NormPlacement::Post)]
}

fn kv_heads() -> impl Strategy<Value = usize> {
    prop_oneof![Just(1usize), Just(2), Just(4)]
}

fn scoring() -> impl Strategy<Value = Scoring> {
    prop_oneof![
        Just(Scoring::ScaledDot),
        Just(Scoring::Additive),
        Just(Scoring::Bilinear)
    ]
}

/// Ordinary token ids (no specials).
fn ids(max: usize) -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(4u32..(4 + VOCAB.len() as u32), 1..max)
}

fn max_abs_diff(a: &Array2<f32>, b: &Array2<f32>) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn softmax_rows_sum_to_one_and_masked_entries_are_zero(
        logits in prop::collection::vec(-30.0f32..30.0, 1..64),
        mask_bits in prop::collection::vec(any::<bool>(), 64),
        cols in 1usize..8,
    ) {
        let rows = logits.len().div_ceil(cols);
        let mut l = logits.clone();
        l.resize(rows * cols, 0.0);
        let l = Array2::from_shape_vec((rows, cols), l).unwrap();
        let allowed = Array2::from_shape_fn((rows, cols), |(r, c)| mask_bits[(r * cols + c) % 64]);
        let a = masked_softmax(l.view(), allowed.view());
        for r in 0..rows {
            let any = allowed.row(r).iter().any(|&x| x);
            let sum: f32 = a.row(r).sum();
            if any {
                prop_assert!((sum - 1.0).abs() < 1e-5, "row {} sums to {}", r, sum);
            } else {
                prop_assert_eq!(sum, 0.0);
            }
            for c in 0..cols {
                if !allowed[[r, c]] {
                    prop_assert_eq!(a[[r, c]], 0.0);
                }
                prop_assert!(a[[r, c]] >= 0.0);
            }
        }
    }

    #[test]
    fn model_weights_are_exactly_zero_where_masked_and_rows_sum_to_one(
        pos in positional(), n in norm(), kv in kv_heads(), sc in scoring(),
        src in ids(12), tgt in ids(12), seed in any::<u64>(),
    ) {
        let model = Model::random(config(Family::EncoderDecoder, pos, n, kv, sc), seed).unwrap();
        let mut target = vec![BOS];
        target.extend(tgt);
        let trace = model.forward(&ModelInput { source: src, target, ..Default::default() }, &ForwardOptions::default()).unwrap();
        for kind in trace.attention_kinds() {
            for layer in 0..trace.layers(kind) {
                let a = trace.attention(kind, layer).unwrap();
                for w in a.weights.outer_iter() {
                    for ((r, c), &x) in w.indexed_iter() {
                        if !a.mask[[r, c]] {
                            prop_assert_eq!(x, 0.0);
                        }
                    }
                    for row in w.rows() {
                        prop_assert!((row.sum() - 1.0).abs() < 1e-5);
                    }
                }
            }
        }
        let dec = trace.attention(glimpse::model::AttentionKind::DecoderSelf, 0).unwrap();
        for w in dec.weights.outer_iter() {
            for ((r, c), &x) in w.indexed_iter() {
                if c > r {
                    prop_assert_eq!(x, 0.0, "causal: query {} sees future key {}", r, c);
                }
            }
        }
    }

    #[test]
    fn without_positions_self_attention_is_permutation_equivariant(
        n in norm(), kv in kv_heads(), sc in scoring(),
        src in ids(10), seed in any::<u64>(), shuffle_seed in any::<u64>(),
    ) {
        let model = Model::random(config(Family::Encoder, Positional::None, n, kv, sc), seed).unwrap();
        let mut perm: Vec<usize> = (0..src.len()).collect();
        let mut rng = glimpse::util::rng::Rng::new(shuffle_seed);
        for i in (1..perm.len()).rev() {
            perm.swap(i, rng.below(i + 1));
        }
        let permuted: Vec<u32> = perm.iter().map(|&i| src[i]).collect();
        let run = |ids: Vec<u32>| model.forward(&ModelInput { source: ids, target: vec![], ..Default::default() }, &ForwardOptions::default()).unwrap();
        let a = run(src.clone());
        let b = run(permuted);
        let a_perm = a.logits.select(ndarray::Axis(0), &perm);
        prop_assert!(max_abs_diff(&a_perm, &b.logits) < 1e-4, "f(πX) differs from πf(X)");
    }

    #[test]
    fn with_positions_permutation_changes_the_output(
        src in prop::collection::vec(4u32..14, 3..10), seed in any::<u64>(),
    ) {
        // The contrast to the law above: sinusoidal positions break equivariance.
        prop_assume!(src.windows(2).any(|w| w[0] != w[1]));
        let model = Model::random(config(Family::Encoder, Positional::Sinusoidal { base: 10000.0 }, NormPlacement::Pre, 4, Scoring::ScaledDot), seed).unwrap();
        let mut rev = src.clone();
        rev.reverse();
        let perm: Vec<usize> = (0..src.len()).rev().collect();
        let run = |ids: Vec<u32>| model.forward(&ModelInput { source: ids, target: vec![], ..Default::default() }, &ForwardOptions::default()).unwrap();
        let a = run(src).logits.select(ndarray::Axis(0), &perm);
        prop_assert!(max_abs_diff(&a, &run(rev).logits) > 1e-3);
    }

    #[test]
    fn rope_score_depends_only_on_the_offset(
        q in prop::collection::vec(-2.0f32..2.0, 8), k in prop::collection::vec(-2.0f32..2.0, 8),
        i in 0usize..200, j in 0usize..200, shift in 0usize..500,
    ) {
        let score = |pi: usize, pj: usize| {
            let rq = position::rope_rotate(&Array2::from_shape_vec((1, 8), q.clone()).unwrap(), &[pi], 10000.0);
            let rk = position::rope_rotate(&Array2::from_shape_vec((1, 8), k.clone()).unwrap(), &[pj], 10000.0);
            rq.row(0).dot(&rk.row(0))
        };
        let a = score(i, j);
        let b = score(i + shift, j + shift);
        prop_assert!((a - b).abs() < 1e-3 * (1.0 + a.abs()), "{} vs {}", a, b);
    }

    #[test]
    fn sinusoidal_dot_product_depends_only_on_the_offset(
        t in 0usize..2000, offset in 0usize..100, half_d in 1usize..33,
    ) {
        let d = 2 * half_d;
        let pe = position::sinusoidal(&[0, offset, t, t + offset], d, 10000.0);
        let at_zero = pe.row(0).dot(&pe.row(1));
        let at_t = pe.row(2).dot(&pe.row(3));
        // Closed form: Σ_k cos(ω_k · offset).
        let closed: f64 = (0..half_d).map(|k| (position::sinusoidal_frequency(k, d, 10000.0) * offset as f64).cos()).sum();
        prop_assert!((at_zero as f64 - closed).abs() < 1e-4 * d as f64);
        prop_assert!((at_t - at_zero).abs() < 1e-3 * d as f32, "{} vs {}", at_t, at_zero);
    }

    #[test]
    fn kv_cache_decoding_equals_full_recompute(
        family in prop_oneof![Just(Family::Decoder), Just(Family::EncoderDecoder)],
        pos in positional(), n in norm(), kv in kv_heads(), sc in scoring(),
        src in ids(10), tgt in ids(12), seed in any::<u64>(),
    ) {
        let model = Model::random(config(family, pos, n, kv, sc), seed).unwrap();
        let opts = ForwardOptions::default();
        let mut target = vec![BOS];
        target.extend(tgt);
        let source = if family == Family::EncoderDecoder { src } else { vec![] };
        let full = model.forward(&ModelInput { source: source.clone(), target: target.clone(), ..Default::default() }, &opts).unwrap();
        let mut state = model.start_decoding(&source, &opts).unwrap();
        for (t, &id) in target.iter().enumerate() {
            let step = model.decode_step(&mut state, id, &opts).unwrap();
            let expected: Array1<f32> = full.logits.row(t).to_owned();
            let err = step.logits.iter().zip(&expected).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
            prop_assert!(err < 1e-4, "step {}: cached logits differ by {}", t, err);
        }
        prop_assert_eq!(state.cached_positions(), target.len());
    }

    #[test]
    fn prefilling_a_prompt_in_one_pass_equals_feeding_it_token_by_token(
        family in prop_oneof![Just(Family::Decoder), Just(Family::EncoderDecoder)],
        pos in positional(), n in norm(), kv in kv_heads(), sc in scoring(),
        src in ids(10), tgt in ids(12), split in 1usize..12, seed in any::<u64>(),
    ) {
        let model = Model::random(config(family, pos, n, kv, sc), seed).unwrap();
        let opts = ForwardOptions::default();
        let mut target = vec![BOS];
        target.extend(tgt);
        let split = split.min(target.len() - 1);
        let source = if family == Family::EncoderDecoder { src } else { vec![] };
        let full = model.forward(&ModelInput { source: source.clone(), target: target.clone(), ..Default::default() }, &opts).unwrap();
        let close = |a: &Array1<f32>, t: usize| {
            a.iter().zip(full.logits.row(t)).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max)
        };
        // The first `split` tokens in one pass, then the rest one at a time on its cache.
        let mut state = model.start_decoding(&source, &opts).unwrap();
        let after_prompt = model.prefill(&mut state, &target[..split], &opts).unwrap();
        prop_assert!(close(&after_prompt, split - 1) < 1e-4, "prefill logits differ");
        prop_assert_eq!(state.cached_positions(), split);
        for (t, &id) in target.iter().enumerate().skip(split) {
            let logits = model.decode_next(&mut state, id, &opts).unwrap();
            prop_assert!(close(&logits, t) < 1e-4, "step {} after the prefill differs", t);
        }
    }

    #[test]
    fn padding_does_not_change_real_tokens(
        pos in positional(), n in norm(), src in ids(8), extra in 1usize..6, seed in any::<u64>(),
    ) {
        let model = Model::random(config(Family::Encoder, pos, n, 2, Scoring::ScaledDot), seed).unwrap();
        let opts = ForwardOptions::default();
        let short = model.forward(&ModelInput { source: src.clone(), target: vec![], ..Default::default() }, &opts).unwrap();
        let mut padded = src.clone();
        padded.extend(std::iter::repeat_n(0, extra));
        let long = model.forward(&ModelInput { source: padded, target: vec![], ..Default::default() }, &opts).unwrap();
        let real = long.logits.slice(ndarray::s![..src.len(), ..]).to_owned();
        prop_assert!(max_abs_diff(&real, &short.logits) < 1e-4);
    }
}

#[test]
fn a_fully_masked_row_gives_zeros_not_nan() {
    let l = Array2::from_elem((2, 3), 1.0f32);
    let mut allowed = full_mask(2, 3);
    allowed.row_mut(1).fill(false);
    let a = masked_softmax(l.view(), allowed.view());
    assert_eq!(a.row(1).to_vec(), vec![0.0; 3]);
    let model = Model::random(
        config(
            Family::Decoder,
            Positional::None,
            NormPlacement::Pre,
            4,
            Scoring::ScaledDot,
        ),
        3,
    )
    .unwrap();
    let mut custom = Array2::from_elem((3, 3), true);
    custom.row_mut(2).fill(false);
    let opts = ForwardOptions {
        self_mask: glimpse::model::MaskChoice::Custom(custom),
        ..Default::default()
    };
    let t = model
        .forward(
            &ModelInput {
                source: vec![],
                target: vec![BOS, 4, 5],
                ..Default::default()
            },
            &opts,
        )
        .unwrap();
    assert!(t.logits.iter().all(|x| x.is_finite()));
    let a = t
        .attention(glimpse::model::AttentionKind::DecoderSelf, 0)
        .unwrap();
    assert!(a
        .weights
        .outer_iter()
        .all(|w| w.row(2).iter().all(|&x| x == 0.0)));
    assert!(a
        .head_out
        .outer_iter()
        .all(|h| h.row(2).iter().all(|&x| x == 0.0)));
}
