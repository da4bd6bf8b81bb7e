use super::*;
use crate::model::config::tests::small;
use crate::model::config::{Family, NormKind, Positional, RopePairing};
use crate::model::import::QuantKind;
use crate::model::{ForwardOptions, Model};
use glimpse_kernels::blocks::error_bound;
use half::f16;

/// A Q8_0 table of `rows × 64` with varied scales and values.
fn q8_table(rows: usize) -> QuantizedTensor {
    let mut blocks = Vec::new();
    for r in 0..rows {
        for blk in 0..2 {
            let scale = 0.01 + 0.003 * ((r * 2 + blk) % 7) as f32;
            blocks.extend_from_slice(&f16::from_f32(scale).to_le_bytes());
            for i in 0..32 {
                blocks.push(((r * 31 + blk * 17 + i * 13) % 255) as u8);
            }
        }
    }
    QuantizedTensor::new("t", QuantKind::Q8_0, rows, 64, blocks).unwrap()
}

#[test]
fn a_table_in_blocks_looks_up_and_multiplies_like_its_f32_copy() {
    let q = q8_table(1000);
    let blocks = WeightMatrix::Blocks(q.clone());
    let f32s = WeightMatrix::F32(blocks.to_f32().into_owned());
    assert_eq!(blocks.dim(), (1000, 64));
    assert_eq!(blocks.row(737), f32s.row(737));
    assert_eq!(blocks.memory_bytes(), 1000 * 2 * 34);
    let bias = Array1::from_shape_fn(1000, |i| i as f32 * 1e-3);
    for n in [1, 5] {
        let x = Array2::from_shape_fn((n, 64), |(t, i)| ((t * 64 + i) as f32 * 0.37).sin());
        for rows in [0..1000, 123..611] {
            let b = bias.slice(s![rows.clone()]);
            let want = f32s.linear(x.view(), rows.clone(), b);
            let got = blocks.linear(x.view(), rows.clone(), b);
            if n > 1 {
                // Same expanded values, same products: equal to the last bit.
                assert_eq!(got, want, "{n} rows, vocabulary {rows:?}");
            }
            // Against the textbook sum, independently of either product, within the bound
            // the products from blocks are held to.
            let (t, v) = (n - 1, rows.end - 1);
            let (xr, wr) = (x.row(t).to_vec(), f32s.row(v).to_vec());
            let direct: f64 = xr
                .iter()
                .zip(&wr)
                .map(|(&a, &b)| a as f64 * b as f64)
                .sum::<f64>()
                + bias[v] as f64;
            let bound = error_bound(&wr, &xr);
            assert!((got[[t, v - rows.start]] as f64 - direct).abs() <= bound);
        }
    }
}

#[test]
fn a_row_past_the_table_is_left_alone() {
    let t = WeightMatrix::Blocks(q8_table(3));
    let mut out = Array1::from_elem(64, 7.0);
    t.row_into(3, out.view_mut());
    assert!(out.iter().all(|&v| v == 7.0));
    assert!(t.as_f32().is_none());
}

/// Blocks of `kind` closest to `m`'s values (a test's own quantizer: round to the nearest
/// step, per block of 32).
fn quantize(kind: QuantKind, m: &Array2<f32>) -> QuantizedTensor {
    let mut blocks = Vec::new();
    for row in m.rows() {
        for chunk in row.to_vec().chunks(32) {
            let (lo, hi) = chunk
                .iter()
                .fold((f32::MAX, f32::MIN), |(a, b), &v| (a.min(v), b.max(v)));
            let half = |v: f32| f16::from_f32(v).to_le_bytes();
            match kind {
                QuantKind::Q8_0 => {
                    let d = f16::from_f32(lo.abs().max(hi.abs()) / 127.0)
                        .to_f32()
                        .max(1e-8);
                    blocks.extend(half(d));
                    blocks.extend(
                        chunk
                            .iter()
                            .map(|v| (v / d).round().clamp(-127.0, 127.0) as i8 as u8),
                    );
                }
                QuantKind::Q4_0 | QuantKind::Q4_1 => {
                    let (d, m0, centre) = match kind {
                        QuantKind::Q4_1 => ((hi - lo) / 15.0, lo, 0.0),
                        _ => (lo.abs().max(hi.abs()) / 8.0, 0.0, 8.0),
                    };
                    let d = f16::from_f32(d).to_f32().max(1e-8);
                    let m0 = f16::from_f32(m0).to_f32();
                    blocks.extend(half(d));
                    if kind == QuantKind::Q4_1 {
                        blocks.extend(half(m0));
                    }
                    let n = |v: f32| ((v - m0) / d + centre).round().clamp(0.0, 15.0) as u8;
                    blocks.extend((0..16).map(|j| n(chunk[j]) | n(chunk[j + 16]) << 4));
                }
            }
        }
    }
    QuantizedTensor::new("test", kind, m.nrows(), m.ncols(), blocks).unwrap()
}

const KINDS: [QuantKind; 3] = [QuantKind::Q4_1, QuantKind::Q8_0, QuantKind::Q4_0];

#[test]
fn every_kind_multiplies_like_its_expanded_matrix_on_ragged_shapes() {
    for (i, kind) in KINDS.into_iter().enumerate() {
        for (rows, cols) in [(1, 32), (5, 96), (37, 64), (500, 160)] {
            let f = Array2::from_shape_fn((rows, cols), |(r, c)| {
                ((r * 7 + c * 3 + i) as f32 * 0.173).sin()
            });
            let q = WeightMatrix::Blocks(quantize(kind, &f));
            let e = WeightMatrix::F32(q.to_f32().into_owned());
            let b = Array1::from_shape_fn(rows, |r| r as f32 * 0.01);
            for n in [1, 2, 7] {
                let x =
                    Array2::from_shape_fn((n, cols), |(t, c)| ((t * 5 + c) as f32 * 0.31).cos());
                let (got, want) = (q.linear_all(x.view(), &b), e.linear_all(x.view(), &b));
                // Against the f64 product of the expanded values, independently of both.
                let ew = e.as_f32().unwrap();
                for ((t, j), &g) in got.indexed_iter() {
                    let (xr, wr) = (x.row(t).to_vec(), ew.row(j).to_vec());
                    let exact: f64 = xr
                        .iter()
                        .zip(&wr)
                        .map(|(&a, &b)| a as f64 * b as f64)
                        .sum::<f64>()
                        + b[j] as f64;
                    let bound = error_bound(&wr, &xr);
                    assert!(
                        (g as f64 - exact).abs() <= bound,
                        "{} {rows}×{cols}, {n} rows: {g} vs {exact} (±{bound:e})",
                        kind.name()
                    );
                }
                if n > FROM_BLOCKS_UP_TO {
                    assert_eq!(got, want, "expanded bands give the f32 product to the bit");
                }
            }
        }
    }
}

#[test]
fn stacking_keeps_blocks_of_one_kind_and_expands_a_mix() {
    let a = Array2::from_shape_fn((3, 64), |(r, c)| (r + c) as f32 * 0.01);
    let b = Array2::from_shape_fn((2, 64), |(r, c)| (r * c) as f32 * -0.02);
    let (qa, qb) = (quantize(QuantKind::Q4_1, &a), quantize(QuantKind::Q4_1, &b));
    let same = stack_rows(&[WeightMatrix::Blocks(qa.clone()), WeightMatrix::Blocks(qb)]).unwrap();
    assert!(same.is_quantized());
    assert_eq!(same.dim(), (5, 64));
    let mixed = stack_rows(&[
        WeightMatrix::Blocks(qa.clone()),
        WeightMatrix::F32(b.clone()),
    ])
    .unwrap();
    assert!(!mixed.is_quantized());
    assert_eq!(
        mixed.to_f32().slice(s![..3, ..]),
        same.to_f32().slice(s![..3, ..])
    );
    assert_eq!(mixed.to_f32().slice(s![3.., ..]), b);
    let mut m = WeightMatrix::Blocks(qa);
    let expanded = m.to_f32().into_owned();
    assert_eq!(*m.f32_mut(), expanded);
    assert!(!m.is_quantized());
}

/// A decoder whose every matrix is 32-wide blocks: Llama's pieces at a test's size.
fn blocky_decoder() -> (Model, Model) {
    let mut cfg = small(Family::Decoder, Positional::Rope { base: 1e4 });
    (cfg.d_model, cfg.n_heads, cfg.n_kv_heads, cfg.d_ff) = (64, 4, 2, 96);
    cfg.extensions.norm_kind = NormKind::RmsNorm;
    cfg.extensions.gated_ffn = true;
    cfg.extensions.rope_pairing = RopePairing::Half;
    let expanded = Model::random(cfg.clone(), 11).unwrap();
    let mut w = expanded.weights.clone();
    for (i, m) in w.matrices_mut().into_iter().enumerate() {
        *m = WeightMatrix::Blocks(quantize(KINDS[i % 3], &m.to_f32()));
    }
    let mut plain = w.clone();
    plain.expand_quantized();
    (
        Model::new(cfg.clone(), w).unwrap(),
        Model::new(cfg, plain).unwrap(),
    )
}

#[test]
fn a_model_in_blocks_traces_and_generates_like_its_expanded_copy() {
    let (blocks, plain) = blocky_decoder();
    let opts = ForwardOptions::default();
    // A prompt: bands expanded, the f32 product, the same trace to the bit.
    let input = blocks.input_from_ids(vec![1, 4, 2, 7, 3], vec![]);
    let (a, b) = (
        blocks.forward(&input, &opts).unwrap(),
        plain.forward(&input, &opts).unwrap(),
    );
    assert_eq!(a.logits, b.logits);
    // Decoding a token at a time: products straight from the blocks, rounding apart, and the
    // same greedy choices.
    let (mut sa, mut sb) = (
        blocks.start_decoding(&[], &opts).unwrap(),
        plain.start_decoding(&[], &opts).unwrap(),
    );
    let mut token = 1;
    for _ in 0..8 {
        let la = blocks.decode_next(&mut sa, token, &opts).unwrap();
        let lb = plain.decode_next(&mut sb, token, &opts).unwrap();
        let worst = (&la - &lb).iter().fold(0.0f32, |m, v| m.max(v.abs()));
        assert!(worst < 1e-4, "{worst}");
        let argmax = |l: &Array1<f32>| (0..l.len()).max_by(|&i, &j| l[i].total_cmp(&l[j])).unwrap();
        assert_eq!(argmax(&la), argmax(&lb));
        token = argmax(&la) as u32;
    }
}

#[test]
fn weights_in_blocks_count_save_and_train_as_f32_would() {
    let (blocks, plain) = blocky_decoder();
    let (w, p) = (&blocks.weights, &plain.weights);
    assert_eq!(w.len(), p.len());
    assert!(
        w.memory_bytes() * 3 < p.memory_bytes(),
        "{} of {}",
        w.memory_bytes(),
        p.memory_bytes()
    );
    let names: Vec<String> = w.quantized_matrices().into_iter().map(|(n, _)| n).collect();
    assert!(
        names.contains(&"dec.1.ffn.w_gate".to_string()) && names.contains(&"tok_embed".to_string()),
        "{names:?}"
    );
    // Saved, they are the expanded values; as gradients, f32 zeros.
    assert_eq!(w.to_tensors(), p.to_tensors());
    let g = w.zeros_like();
    assert!(g.quantized_matrices().is_empty());
    assert_eq!(g.len(), p.len());
    crate::model::weights::check_shapes(&blocks.config, w).unwrap();
}
