use super::*;

/// The product in f64, summed in the same order.
fn reference(x: &[f32], w: &[f32], t: usize, k: usize, n: usize) -> Vec<f64> {
    let mut y = vec![0.0; t * n];
    for r in 0..t {
        for j in 0..n {
            y[r * n + j] = (0..k)
                .map(|i| x[r * k + i] as f64 * w[j * k + i] as f64)
                .sum();
        }
    }
    y
}

fn matrix(data: &[f32], rows: usize, cols: usize, stride: usize) -> Matrix<'_> {
    Matrix {
        data,
        rows,
        cols,
        stride,
    }
}

fn values(len: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2654435761).wrapping_add(1);
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s % 2001) as f32 / 1000.0 - 1.0
        })
        .collect()
}

const SHAPES: [(usize, usize, usize); 8] = [
    (1, 1, 1),
    (3, 5, 7),
    (16, 256, 6),
    (17, 257, 13),
    (40, 600, 101),
    (9, 32, 96),
    (33, 2100, 25),
    (65, 64, 37),
];

/// `x Wᵀ` through `kernel`, with `y` filled with NaN first so a cell left unwritten shows.
fn product(kernel: Kernel, x: &[f32], w: &[f32], (t, k, n): (usize, usize, usize)) -> Vec<f32> {
    let mut y = vec![f32::NAN; t * n];
    let rows: Vec<&[f32]> = x.chunks(k).collect();
    let mut out: Vec<&mut [f32]> = y.chunks_mut(n).collect();
    assert!(x_wt_with(kernel, &rows, matrix(w, n, k, k), &mut out));
    y
}

#[test]
fn every_kernel_on_every_shape_matches_the_f64_product() {
    for kernel in kernels() {
        for &(t, k, n) in &SHAPES {
            let (x, w) = (values(t * k, 1), values(n * k, 2));
            let y = product(kernel, &x, &w, (t, k, n));
            for (got, want) in y.iter().zip(reference(&x, &w, t, k, n)) {
                assert!(
                    (*got as f64 - want).abs() <= 1e-5 * (k as f64).sqrt() * 4.0,
                    "{} {t}×{k}×{n}: {got} vs {want}",
                    kernel.name()
                );
            }
        }
    }
}

/// The x86 kernels differ only in how many lanes and rows they take at once: each cell is the
/// same chain of fused multiply-adds over `k`, so AVX-512 and AVX2 agree to the bit.
#[test]
fn kernels_of_one_machine_give_the_same_bits() {
    let all = kernels();
    for &(t, k, n) in &SHAPES {
        let (x, w) = (values(t * k, 3), values(n * k, 4));
        let first = all
            .first()
            .map(|&kernel| product(kernel, &x, &w, (t, k, n)));
        for &kernel in all.iter().skip(1) {
            let y = product(kernel, &x, &w, (t, k, n));
            let same = first
                .as_ref()
                .is_some_and(|f| f.iter().zip(&y).all(|(a, b)| a.to_bits() == b.to_bits()));
            assert!(same, "{} differs on {t}×{k}×{n}", kernel.name());
        }
    }
}

#[test]
fn the_widest_kernel_is_chosen() {
    if std::env::var("GLIMPSE_KERNEL").is_err() {
        assert_eq!(
            kernel().map(|k| k.name()),
            kernels().first().map(|k| k.name())
        );
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f") {
        assert_eq!(kernels().first().map(|k| k.name()), Some("avx512"));
    }
}

#[test]
fn shapes_that_disagree_are_refused_untouched() {
    let (x, w) = (values(6, 1), values(6, 2));
    let mut y = vec![7.0; 4];
    let rows: Vec<&[f32]> = x.chunks(3).collect();
    let mut out: Vec<&mut [f32]> = y.chunks_mut(2).collect();
    // Row 1 of `w` would end at 4 + 3 = 7, past its 6 numbers.
    assert!(!x_wt(&rows, matrix(&w, 2, 3, 4), &mut out));
    // `y` rows one short of `w`'s rows.
    let (mut a, mut b) = ([0.0f32; 1], [0.0f32; 1]);
    let mut short: Vec<&mut [f32]> = vec![&mut a, &mut b];
    assert!(!x_wt(&rows, matrix(&w, 2, 3, 3), &mut short));
    assert_eq!(y, vec![7.0; 4]);
}

/// Rows made band by band give the bits of the product of the whole matrix, whatever the band:
/// one row, a ragged band, every row at once, more rows than there are.
#[test]
fn expanded_bands_give_the_bits_of_the_whole_matrix() {
    let Some(kernel) = kernel() else { return };
    for &(t, k, n) in &SHAPES {
        let (x, w) = (values(t * k, 5), values(n * k, 6));
        let whole = product(kernel, &x, &w, (t, k, n));
        for band in [1, 7, n, n + 5] {
            let mut y = vec![f32::NAN; t * n];
            let rows: Vec<&[f32]> = x.chunks(k).collect();
            let mut out: Vec<&mut [f32]> = y.chunks_mut(n).collect();
            let mut asked = Vec::new();
            let mut expand = |first: usize, band: &mut [f32]| {
                asked.push(first);
                band.copy_from_slice(&w[first * k..first * k + band.len()]);
            };
            assert!(x_wt_expanded(&rows, (n, k), band, &mut expand, &mut out));
            let bands: Vec<usize> = (0..n).step_by(band.min(n)).collect();
            assert_eq!(asked, bands, "{t}×{k}×{n}, band {band}");
            let same = whole
                .iter()
                .zip(&y)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "{t}×{k}×{n}, band {band}");
        }
    }
}

#[test]
fn expanded_shapes_that_disagree_are_refused_without_expanding() {
    let x = values(6, 1);
    let rows: Vec<&[f32]> = x.chunks(3).collect();
    let mut y = vec![7.0; 4];
    let mut out: Vec<&mut [f32]> = y.chunks_mut(2).collect();
    let mut called = false;
    let mut expand = |_: usize, _: &mut [f32]| called = true;
    // Rows of 3 values against a W of 4 columns; then 3 output columns against rows of 2.
    assert!(!x_wt_expanded(&rows, (2, 4), 8, &mut expand, &mut out));
    assert!(!x_wt_expanded(&rows, (3, 3), 8, &mut expand, &mut out));
    assert!(!called);
    assert_eq!(y, vec![7.0; 4]);
}
