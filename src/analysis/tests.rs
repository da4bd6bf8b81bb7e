use super::*;
use crate::model::{builtin, AttentionKind, ForwardOptions, Intervention, Model};

fn traced(model: &Model, source: &str, target: &str) -> Trace {
    let prepared = model.prepare(source, target);
    model
        .forward(&prepared.input, &ForwardOptions::default())
        .unwrap()
}

/// The shares add up to the logit difference on every built-in family that has an output
/// layer and a pre-norm stack (an encoder, a decoder, an encoder–decoder with cross-attention).
#[test]
fn attribution_adds_up_to_the_logit_difference_in_every_family() {
    let mut families = std::collections::BTreeSet::new();
    for info in builtin::BUILTINS {
        let model = builtin::load(info.name).unwrap();
        if model.config.norm == crate::model::NormPlacement::Post || !model.has_output_layer() {
            continue;
        }
        let trace = traced(&model, "the cat sat", "<bos> the cat");
        let logits = &trace.logits;
        let (a, b) = (4u32, 5u32.min(logits.ncols() as u32 - 1));
        let got = attribution::attribute(&model, &trace, a, Some(b), None).unwrap();
        let scale = 1.0 + got.logit_diff.abs();
        assert!(
            (got.sum - got.logit_diff).abs() < 1e-4 * scale,
            "{}: shares {} against {}",
            info.name,
            got.sum,
            got.logit_diff
        );
        assert_eq!(
            got.heads.len(),
            model.read_stack_weights().unwrap().blocks.len()
        );
        if model.config.family.has_encoder() && model.config.family.has_decoder() {
            assert!(
                got.cross_heads.is_some(),
                "{}: cross-attention heads",
                info.name
            );
        }
        families.insert(format!("{:?}", model.config.family));
    }
    assert!(families.len() >= 2, "families covered: {families:?}");
}

/// The lens at the last layer is the model's own output.
#[test]
fn the_last_layer_of_the_lens_is_the_models_output() {
    let model = builtin::load("lm").unwrap();
    let trace = traced(&model, "", "<bos> the cat sat on");
    let lens = lens::logit_lens(&model, &trace, 3, Some(4)).unwrap();
    let last = lens.layers.last().unwrap();
    assert_eq!(lens.layers.len(), model.config.n_layers + 1);
    for (p, row) in trace.logits.rows().into_iter().enumerate() {
        let p_model = crate::model::softmax::softmax(&row.to_vec());
        let best = crate::util::argmax(p_model.iter().copied()).unwrap().0;
        assert_eq!(last.top[p][0].id as usize, best);
        assert!((last.top[p][0].p - p_model[best]).abs() < 1e-6);
        assert!((last.target_p.as_ref().unwrap()[p] - p_model[4]).abs() < 1e-6);
    }
}

/// With every head attending only to itself, each Â is the identity and so is R; rows of any
/// rollout sum to 1.
#[test]
fn rollout_of_self_attention_is_the_identity_and_rows_sum_to_one() {
    let model = builtin::load("repeat").unwrap();
    let mut trace = traced(&model, "", "<bos> a b c a b");
    let r = rollout::rollout(&trace).unwrap();
    for row in r.rollout.rows() {
        assert!((row.sum() - 1.0).abs() < 1e-9);
    }
    let stack = trace.decoder.as_mut().unwrap();
    for b in &mut stack.blocks {
        let w = &mut b.self_attn.inner.weights;
        w.fill(0.0);
        for h in 0..w.shape()[0] {
            for i in 0..w.shape()[1] {
                w[[h, i, i]] = 1.0;
            }
        }
    }
    let r = rollout::rollout(&trace).unwrap();
    assert_eq!(r.rollout, ndarray::Array2::<f64>::eye(r.tokens.len()));
}

/// Patching the whole of block 0's input with the clean run's rows is the clean run (score
/// exactly 1); patching a head with the corrupted run's own output changes nothing (0).
#[test]
fn patching_the_clean_runs_own_values_restores_it_exactly() {
    let model = builtin::load("lm").unwrap();
    let clean = model.prepare("", "<bos> the cat sat on the").input.target;
    let corrupt = model.prepare("", "<bos> the dog sat on the").input.target;
    let differ = (0..clean.len()).find(|&i| clean[i] != corrupt[i]).unwrap();
    let (a, b) = (clean[differ], corrupt[differ]);
    let sweep = patching::Sweep::new(&model, clean.clone(), corrupt.clone(), a, b).unwrap();
    let input = model.input_from_ids(clean.clone(), Vec::new());
    let clean_trace = model.forward(&input, &ForwardOptions::default()).unwrap();
    let x0 = clean_trace.decoder.as_ref().unwrap().blocks[0]
        .input
        .clone();
    let corrupt_input = model.input_from_ids(corrupt.clone(), Vec::new());
    let whole = crate::model::transformer::Variant {
        start: 0,
        x: x0.clone(),
        head: None,
    };
    let mut resumed = model
        .resume_variants(&corrupt_input, 0, &[], vec![whole])
        .unwrap();
    while resumed.next_part(&model, &[]).unwrap() {}
    let ld = model
        .read_out_difference(resumed.last_rows().unwrap(), a, b)
        .unwrap()[0];
    let r = &sweep.result;
    // Resumed from block 0, the output layer reads two columns of one row instead of every
    // row: the clean run's LD but for the order of a few sums. (The score itself divides by
    // LD_clean − LD_corrupt, only 0.002 on this tiny model, so it is no measure of rounding.)
    assert!(
        (ld - r.ld_clean).abs() < 1e-5,
        "{ld} against {}",
        r.ld_clean
    );
    // The same through the one forward pass's interventions, every row of block 0 replaced.
    let opts = ForwardOptions {
        interventions: (0..clean.len())
            .map(|p| Intervention::Residual {
                kind: AttentionKind::DecoderSelf,
                layer: 0,
                position: p,
                value: x0.row(p).to_vec(),
            })
            .collect(),
        ..ForwardOptions::default()
    };
    let patched = model.forward(&corrupt_input, &opts).unwrap();
    assert_eq!(patched.logits, clean_trace.logits);
    let all = sweep.run_all(&model).unwrap();
    assert!(all.resid.iter().flatten().all(|s| s.is_finite()));
    assert!(all.heads.iter().flatten().all(|s| s.is_finite()));
    // Positions before the changed token carry the same values in both runs: patching them
    // restores nothing (up to rounding: a resumed pass's output layer reads the last row
    // alone, the whole pass every row, and the products sum in another order).
    for block in &all.resid {
        assert!(block[..differ].iter().all(|&s| s.abs() < 1e-3), "{block:?}");
    }
}

/// A head's ablation effect, run as copies resumed at its block, is the change a whole pass
/// with that head switched off (`heads_off`, the Heads off lab's computation) makes.
#[test]
fn ablation_effects_are_the_heads_off_passes() {
    let model = builtin::load("lm").unwrap();
    let trace = traced(&model, "", "<bos> the cat sat on the");
    let (a, b) = (5u32, 6u32);
    let mut ablation = ablation::Ablation::new(&model, &trace, a, b).unwrap();
    while ablation.step(&model).unwrap() {}
    assert!(ablation.is_done());
    let input = model.prepare("", "<bos> the cat sat on the").input;
    let last = trace.logits.nrows() - 1;
    for (layer, row) in ablation.effects.iter().enumerate() {
        for (head, effect) in row.iter().enumerate() {
            let opts = ForwardOptions {
                heads_off: vec![crate::model::HeadId {
                    kind: AttentionKind::DecoderSelf,
                    layer,
                    head,
                }],
                ..ForwardOptions::default()
            };
            let off = model.forward(&input, &opts).unwrap().logits;
            let ld = f64::from(off[[last, a as usize]]) - f64::from(off[[last, b as usize]]);
            assert!(
                (effect - (ld - ablation.ld)).abs() < 1e-4,
                "{layer}.{head}: {effect} against {}",
                ld - ablation.ld
            );
        }
    }
}

/// Every score of a sweep is that of a whole pass with the patch put in as an intervention,
/// on decoders with each positional scheme, grouped keys and values, post-norm, and a decoder
/// without the causal mask (where a patch's earlier rows change too). The texts differ at
/// position 3: the patches before it change nothing.
#[test]
fn the_sweep_is_whole_passes_with_the_patch_put_in() {
    use crate::model::config::{tests::small, Family, NormPlacement, Positional};
    let mut configs: Vec<_> = [
        Positional::Learned,
        Positional::Rope { base: 100.0 },
        Positional::Alibi,
        Positional::Relative { max_distance: 4 },
    ]
    .into_iter()
    .map(|p| small(Family::Decoder, p))
    .collect();
    let mut post = small(Family::Decoder, Positional::Learned);
    post.norm = NormPlacement::Post;
    let mut open = small(Family::Decoder, Positional::Rope { base: 100.0 });
    open.causal = false;
    configs.extend([post, open]);
    for (seed, config) in configs.into_iter().enumerate() {
        let what = format!("{:?} causal {}", config.positional, config.causal);
        let model = Model::random(config, 3 + seed as u64).unwrap();
        let clean = vec![4, 5, 6, 7, 8, 9, 10];
        let mut corrupt = clean.clone();
        corrupt[3] = 11;
        let (a, b) = (5, 9);
        let got = patching::Sweep::new(&model, clean.clone(), corrupt.clone(), a, b)
            .unwrap()
            .run_all(&model)
            .unwrap();
        let opts = ForwardOptions::default();
        let clean_trace = model
            .forward(&model.input_from_ids(clean, Vec::new()), &opts)
            .unwrap();
        let stack = clean_trace.decoder.as_ref().unwrap();
        let input = model.input_from_ids(corrupt, Vec::new());
        let ld_of = |interventions: Vec<Intervention>| {
            let opts = ForwardOptions {
                interventions,
                ..ForwardOptions::default()
            };
            let logits = model.forward(&input, &opts).unwrap().logits;
            let last = logits.nrows() - 1;
            f64::from(logits[[last, a as usize]]) - f64::from(logits[[last, b as usize]])
        };
        let span = got.ld_clean - got.ld_corrupt;
        // Block 0's input at the changed position is all that differs: the clean run (1).
        assert!((got.resid[0][3] - 1.0).abs() * span.abs() < 1e-5, "{what}");
        let close = |score: f64, ld: f64, patch: String| {
            let want = (ld - got.ld_corrupt) / span;
            assert!(
                (score - want).abs() * span.abs() < 1e-5,
                "{what} {patch}: {score} against {want}"
            );
        };
        for (layer, block) in stack.blocks.iter().enumerate() {
            for (p, &score) in got.resid[layer].iter().enumerate() {
                let value = block.input.row(p).to_vec();
                let kind = AttentionKind::DecoderSelf;
                let patch = Intervention::Residual {
                    kind,
                    layer,
                    position: p,
                    value,
                };
                close(score, ld_of(vec![patch]), format!("resid {layer}.{p}"));
            }
            for (h, &score) in got.heads[layer].iter().enumerate() {
                let head = crate::model::HeadId {
                    kind: AttentionKind::DecoderSelf,
                    layer,
                    head: h,
                };
                let value = block
                    .self_attn
                    .inner
                    .head_out
                    .index_axis(ndarray::Axis(0), h)
                    .to_owned();
                close(
                    score,
                    ld_of(vec![Intervention::Head { head, value }]),
                    format!("head {layer}.{h}"),
                );
            }
        }
    }
}
