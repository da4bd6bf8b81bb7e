use super::*;

/// A deterministic stream of bytes (xorshift).
fn bytes(n: usize, seed: u32) -> Vec<u8> {
    let mut s = seed.max(1);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s >> 24) as u8
        })
        .collect()
}

/// `rows × cols` values of `kind` with varied, finite scales (and minima).
fn matrix(kind: QuantKind, rows: usize, cols: usize, seed: u32) -> Vec<u8> {
    let blocks = rows * cols / BLOCK;
    let mut out = bytes(blocks * kind.block_bytes(), seed);
    for (b, block) in out.chunks_exact_mut(kind.block_bytes()).enumerate() {
        let d = half::f16::from_f32(0.002 + 0.0007 * (b % 13) as f32);
        block[..2].copy_from_slice(&d.to_le_bytes());
        if kind == QuantKind::Q4_1 {
            let m = half::f16::from_f32(-0.01 * (b % 5) as f32);
            block[2..4].copy_from_slice(&m.to_le_bytes());
        }
    }
    out
}

fn dequantized(kind: QuantKind, w: &[u8]) -> Vec<f32> {
    let mut out = vec![0.0; w.len() / kind.block_bytes() * BLOCK];
    for (block, o) in w
        .chunks_exact(kind.block_bytes())
        .zip(out.chunks_exact_mut(BLOCK))
    {
        kind.dequantize_block(block, o);
    }
    out
}

const KINDS: [QuantKind; 3] = [QuantKind::Q8_0, QuantKind::Q4_0, QuantKind::Q4_1];

#[test]
fn half_precision_matches_the_half_crate_for_every_bit_pattern() {
    for bits in 0..=u16::MAX {
        let want = half::f16::from_bits(bits).to_f32();
        let got = f16_to_f32(bits);
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{bits:#06x}: {got} against {want}"
        );
    }
}

#[test]
fn blocks_expand_by_their_formulas() {
    // Q4_1: byte j holds value j low and j + 16 high; x = d·n + m.
    let mut block = half::f16::from_f32(2.0).to_le_bytes().to_vec();
    block.extend(half::f16::from_f32(-1.5).to_le_bytes());
    block.extend((0..16u8).map(|j| (j % 4) << 4 | (15 - j)));
    let mut v = [0.0; BLOCK];
    QuantKind::Q4_1.dequantize_block(&block, &mut v);
    assert_eq!(v[0], 2.0 * 15.0 - 1.5);
    assert_eq!(v[17], 2.0 * 1.0 - 1.5);
    // Q4_0 centres the nibble on 8; Q8_0 is a signed byte.
    let mut block = half::f16::from_f32(0.25).to_le_bytes().to_vec();
    block.extend([0x0fu8; 16]);
    QuantKind::Q4_0.dequantize_block(&block, &mut v);
    assert_eq!((v[0], v[16]), (0.25 * 7.0, 0.25 * -8.0));
    let mut block = half::f16::from_f32(0.5).to_le_bytes().to_vec();
    block.extend([0x80u8; 32]);
    QuantKind::Q8_0.dequantize_block(&block, &mut v);
    assert_eq!(v[31], 0.5 * -128.0);
}

/// The product straight from the blocks against the f64 product of the dequantized rows, on
/// ragged shapes, for every kind; and the portable loop against whichever kernel ran.
#[test]
fn products_from_blocks_match_the_f64_product_of_the_expanded_rows() {
    for kind in KINDS {
        for (rows, cols) in [(1, 32), (3, 64), (7, 96), (37, 576), (5, 1536), (64, 32)] {
            let w = matrix(kind, rows, cols, (rows * 31 + cols) as u32);
            let x: Vec<f32> = (0..cols)
                .map(|i| ((i * 7 + rows) as f32 * 0.37).sin())
                .collect();
            let acts = Activations::new(&x);
            let mut y = vec![f32::NAN; rows];
            assert!(w_x(kind, &w, &acts, &mut y));
            let full = dequantized(kind, &w);
            let row_bytes = cols / BLOCK * kind.block_bytes();
            for (j, &got) in y.iter().enumerate() {
                let row = &full[j * cols..(j + 1) * cols];
                let want: f64 = row.iter().zip(&x).map(|(&a, &b)| a as f64 * b as f64).sum();
                let tol = error_bound(row, &x);
                assert!(
                    (got as f64 - want).abs() <= tol,
                    "{} {rows}×{cols} row {j}: {got} against {want} (±{tol:e})",
                    kind.name()
                );
                let portable =
                    dot_row_portable(kind, &w[j * row_bytes..(j + 1) * row_bytes], &acts);
                assert!(
                    (portable as f64 - want).abs() <= tol,
                    "portable {}",
                    kind.name()
                );
            }
        }
    }
}

#[test]
fn activations_keep_the_values_and_each_blocks_sum() {
    let x: Vec<f32> = (0..70).map(|i| (i as f32 - 10.0) * 0.5).collect();
    let a = Activations::new(&x);
    assert_eq!(a.len(), 64, "the ragged tail is left out");
    assert_eq!(a.values, &x[..64]);
    assert_eq!(
        a.sums,
        [x[..32].iter().sum::<f32>(), x[32..64].iter().sum::<f32>()]
    );
}

/// Each x86 kernel this CPU can run, not only the widest, against the portable loop.
#[cfg(target_arch = "x86_64")]
#[test]
fn every_x86_kernel_agrees_with_the_portable_loop() {
    use std::arch::is_x86_feature_detected as has;
    let avx2 = has!("f16c") && has!("avx2") && has!("fma");
    let avx512 = has!("f16c") && has!("avx512f");
    // Rows shorter than, as long as, and longer than the AVX-512 kernel's group of 16 blocks
    // whose scales it converts together, with odd and even counts (its two accumulators).
    for (kind, blocks) in KINDS
        .into_iter()
        .flat_map(|k| [1, 7, 16, 18, 37].map(|b| (k, b)))
    {
        let cols = blocks * BLOCK;
        let w = matrix(kind, 1, cols, 11 + blocks as u32);
        let x: Vec<f32> = (0..cols).map(|i| (i as f32 * 0.71).cos()).collect();
        let acts = Activations::new(&x);
        let want = dot_row_portable(kind, &w, &acts);
        let name = format!("{} × {blocks} blocks", kind.name());
        let close = |got: f32| (got - want).abs() < 1e-5 * want.abs().max(1.0);
        if avx2 {
            // SAFETY: the features were detected just above.
            let got = unsafe { kernel::dot_avx2(kind, &w, &acts) };
            assert!(close(got), "AVX2 {name}: {got} against {want}");
        }
        if avx512 {
            // SAFETY: as above.
            let got = unsafe { kernel::dot_avx512(kind, &w, &acts) };
            assert!(close(got), "AVX-512 {name}: {got} against {want}");
        }
    }
}

#[test]
fn lengths_that_disagree_are_refused_untouched() {
    let kind = QuantKind::Q4_1;
    let w = matrix(kind, 2, 64, 3);
    let acts = Activations::new(&[1.0; 64]);
    let mut y = vec![7.0; 3];
    assert!(!w_x(kind, &w, &acts, &mut y), "three rows asked of two");
    assert!(
        !w_x(kind, &w, &Activations::new(&[1.0; 33]), &mut y[..2]),
        "one block of two"
    );
    assert_eq!(y, [7.0; 3]);
    let mut empty: [f32; 0] = [];
    assert!(w_x(kind, &[], &acts, &mut empty));
}

/// The fast expansion gives exactly the values of the block-at-a-time one.
#[test]
fn expanding_runs_of_blocks_matches_block_by_block_to_the_bit() {
    for kind in KINDS {
        let w = matrix(kind, 9, 96, 5);
        let mut fast = vec![f32::NAN; 9 * 96];
        dequantize(kind, &w, &mut fast);
        let want = dequantized(kind, &w);
        assert!(
            fast.iter()
                .zip(&want)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{}",
            kind.name()
        );
    }
}

#[test]
fn only_whole_blocks_with_finite_scales_are_finite() {
    let mut block = half::f16::from_f32(1.0).to_le_bytes().to_vec();
    block.extend(half::f16::INFINITY.to_le_bytes());
    block.extend([0u8; 16]);
    assert!(QuantKind::Q4_0.block_is_finite(&block));
    assert!(!QuantKind::Q4_1.block_is_finite(&block));
    assert!(!QuantKind::Q4_0.block_is_finite(&block[..10]));
}
