//! `y = x Wᵀ`, the product behind every linear layer of a transformer, with `W` stored
//! `[out, in]` as checkpoints store it.
//!
//! A textbook SIMD product (GotoBLAS, BLIS) copies both operands into panels before its
//! register-blocked kernel runs. For `x Wᵀ` that means copying every weight across the
//! direction it is stored in, on every call; with a few dozen tokens that copy is a large
//! share of the time. Here the roles are turned: the kernel computes a tile of
//! `yᵀ = W xᵀ`, broadcasting weights straight from `W`'s rows (each read in the order it is
//! stored), and only `x` (the tokens, far fewer numbers than the weights) is copied into
//! panels of `NR` tokens side by side.
//!
//! Every cell `y[t][j] = Σ_k x[t][k] · W[j][k]` is summed over `k` in increasing order
//! whatever tile or thread computes it, so results never depend on how the work is split.
//!
//! Kernels: AVX2 with FMA natively (chosen at run time), `simd128` in the browser. Where
//! neither applies [`x_wt`] returns `false` and the caller multiplies another way.

/// A row-major matrix in a slice: row `r` starts at `r · stride`.
#[derive(Clone, Copy, Debug)]
pub struct Matrix<'a> {
    pub data: &'a [f32],
    pub rows: usize,
    pub cols: usize,
    pub stride: usize,
}

impl Matrix<'_> {
    /// Whether every row lies inside `data`.
    fn fits(&self) -> bool {
        if self.rows == 0 || self.cols == 0 {
            return true;
        }
        (self.cols <= self.stride || self.rows == 1)
            && (self.rows - 1)
                .checked_mul(self.stride)
                .and_then(|s| s.checked_add(self.cols))
                .is_some_and(|end| end <= self.data.len())
    }
}

/// `y = x Wᵀ`: `y[t][j] = Σ_k x[t][k] · w[j][k]`, overwriting `y`; `x` and `y` are given
/// row by row (`T` rows of `K`, `T` rows of `N`), `w` is `N × K`.
///
/// Returns `false`, leaving `y` as it was, where this machine has no kernel or the shapes do
/// not agree.
pub fn x_wt(x: &[&[f32]], w: Matrix, y: &mut [&mut [f32]]) -> bool {
    let shapes_agree = w.fits()
        && x.len() == y.len()
        && x.iter().all(|r| r.len() == w.cols)
        && y.iter().all(|r| r.len() == w.rows);
    if !shapes_agree || !has_kernel() {
        return false;
    }
    if x.is_empty() || w.rows == 0 {
        return true;
    }
    if w.cols == 0 {
        y.iter_mut().for_each(|r| r.fill(0.0));
        return true;
    }
    drive(x, w, y);
    true
}

/// Whether [`x_wt`] multiplies on this machine.
pub fn has_kernel() -> bool {
    kernel::available()
}

/// Depth of a block of `k` and rows of `W` in a block: a block of `W` (`MC × KC`) stays in L2
/// while every panel of tokens passes it. Measured on a Zen 4 core (MiniLM's and SmolLM2's
/// shapes, `cargo run --release --example speed`): a whole layer's depth in one block (no
/// partial sums written back between blocks) runs at 125 – 130 GFLOP/s, blocks of 256 at
/// 120 – 125 and of 128 at 114 – 119; `MC` from 48 to 192 makes no difference.
const KC: usize = 2048;
const MC: usize = 96;

/// Packs `x` into panels of `NR` tokens: panel `p` holds, for each `k`, the `NR` values
/// `x[p·NR + t][k]` side by side (zeros past the last token).
fn pack_tokens(x: &[&[f32]], depth: usize, nr: usize) -> Vec<f32> {
    let mut packed = vec![0.0f32; x.len().div_ceil(nr) * depth * nr];
    for (t, row) in x.iter().enumerate() {
        let (p, lane) = (t / nr, t % nr);
        let panel = &mut packed[p * depth * nr..(p + 1) * depth * nr];
        for (k, &v) in row.iter().enumerate() {
            panel[k * nr + lane] = v;
        }
    }
    packed
}

fn drive(x: &[&[f32]], w: Matrix, y: &mut [&mut [f32]]) {
    let (nr, mr) = (kernel::NR, kernel::MR);
    let depth = w.cols;
    let packed = pack_tokens(x, depth, nr);
    let panels = x.len().div_ceil(nr);
    let mut tiles = [[0.0f32; kernel::NR]; kernel::MR];
    for k0 in (0..depth).step_by(KC) {
        let kc = KC.min(depth - k0);
        for j0 in (0..w.rows).step_by(MC) {
            let j_end = (j0 + MC).min(w.rows);
            for p in 0..panels {
                let panel = &packed[p * depth * nr + k0 * nr..p * depth * nr + (k0 + kc) * nr];
                let t0 = p * nr;
                let tokens = nr.min(x.len() - t0);
                for j in (j0..j_end).step_by(mr) {
                    let m = mr.min(j_end - j);
                    // The `m` weight rows from `j`, columns `k0..k0 + kc` (in bounds: `fits`).
                    let rows = &w.data[j * w.stride + k0..(j + m - 1) * w.stride + k0 + kc];
                    tile(rows, w.stride, m, panel, kc, &mut tiles);
                    for (t, out) in y[t0..t0 + tokens].iter_mut().enumerate() {
                        for (i, cell) in out[j..j + m].iter_mut().enumerate() {
                            let v = tiles[i][t];
                            *cell = if k0 == 0 { v } else { *cell + v };
                        }
                    }
                }
            }
        }
    }
}

/// `tile[i][t] = Σ_k w[i][k] · panel[k][t]` for the first `m` rows of `w` (rows `stride`
/// apart), through the kernel compiled for exactly `m` rows.
fn tile(
    w: &[f32],
    stride: usize,
    m: usize,
    panel: &[f32],
    kc: usize,
    tile: &mut [[f32; kernel::NR]; kernel::MR],
) {
    assert!((1..=kernel::MR).contains(&m) && panel.len() >= kc * kernel::NR);
    assert!(w.len() >= (m - 1) * stride + kc);
    // SAFETY: `x_wt` calls this only where `kernel::available()` (the CPU has the kernel's
    // instructions); the asserts above put every index the kernel reads (rows `i < m` of `kc`
    // weights, `kc` panel rows of NR) inside the slices.
    unsafe {
        let (w, p) = (w.as_ptr(), panel.as_ptr());
        match m {
            1 => kernel::fixed::<1>(w, stride, p, kc, tile),
            2 => kernel::fixed::<2>(w, stride, p, kc, tile),
            3 => kernel::fixed::<3>(w, stride, p, kc, tile),
            4 => kernel::fixed::<4>(w, stride, p, kc, tile),
            5 => kernel::fixed::<5>(w, stride, p, kc, tile),
            _ => kernel::fixed::<6>(w, stride, p, kc, tile),
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod kernel {
    use std::arch::x86_64::*;

    /// Weight rows per tile and tokens per panel: 6 × 2 accumulators of 8 lanes, two panel
    /// loads and a broadcast fill 15 of the 16 AVX2 registers.
    pub const MR: usize = 6;
    pub const NR: usize = 16;

    pub fn available() -> bool {
        is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
    }

    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn fixed<const M: usize>(
        w: *const f32,
        stride: usize,
        panel: *const f32,
        kc: usize,
        tile: &mut [[f32; NR]; MR],
    ) {
        let mut acc = [[_mm256_setzero_ps(); 2]; M];
        for k in 0..kc {
            let b0 = _mm256_loadu_ps(panel.add(k * NR));
            let b1 = _mm256_loadu_ps(panel.add(k * NR + 8));
            for (i, acc) in acc.iter_mut().enumerate() {
                let a = _mm256_set1_ps(*w.add(i * stride + k));
                acc[0] = _mm256_fmadd_ps(a, b0, acc[0]);
                acc[1] = _mm256_fmadd_ps(a, b1, acc[1]);
            }
        }
        for (out, acc) in tile.iter_mut().zip(&acc) {
            _mm256_storeu_ps(out.as_mut_ptr(), acc[0]);
            _mm256_storeu_ps(out.as_mut_ptr().add(8), acc[1]);
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod kernel {
    use core::arch::wasm32::*;

    /// Weight rows per tile and tokens per panel: 4 × 2 accumulators of 4 lanes. Measured in
    /// V8 (node 20, `examples/wasm_speed.mjs`): 53 – 59 GFLOP/s at 4 rows, 50 at 3, 28 – 33 at 5
    /// or 6, where V8 runs out of vector registers and spills accumulators to memory; its
    /// ceiling without fused multiply-adds is 16 flops a cycle, 64 GFLOP/s on this core.
    pub const MR: usize = 4;
    pub const NR: usize = 8;

    pub fn available() -> bool {
        true
    }

    #[inline(always)]
    pub unsafe fn fixed<const M: usize>(
        w: *const f32,
        stride: usize,
        panel: *const f32,
        kc: usize,
        tile: &mut [[f32; NR]; MR],
    ) {
        let mut acc = [[f32x4_splat(0.0); 2]; M];
        for k in 0..kc {
            let b0 = v128_load(panel.add(k * NR) as *const v128);
            let b1 = v128_load(panel.add(k * NR + 4) as *const v128);
            for (i, acc) in acc.iter_mut().enumerate() {
                let a = f32x4_splat(*w.add(i * stride + k));
                acc[0] = f32x4_add(acc[0], f32x4_mul(a, b0));
                acc[1] = f32x4_add(acc[1], f32x4_mul(a, b1));
            }
        }
        for (out, acc) in tile.iter_mut().zip(&acc) {
            v128_store(out.as_mut_ptr() as *mut v128, acc[0]);
            v128_store(out.as_mut_ptr().add(4) as *mut v128, acc[1]);
        }
    }
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
mod kernel {
    pub const MR: usize = 1;
    pub const NR: usize = 1;

    pub fn available() -> bool {
        false
    }

    /// Never called: [`available`] is false.
    pub unsafe fn fixed<const M: usize>(
        _: *const f32,
        _: usize,
        _: *const f32,
        _: usize,
        _: &mut [[f32; NR]; MR],
    ) {
    }
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn every_shape_matches_the_f64_product() {
        if !has_kernel() {
            return;
        }
        for &(t, k, n) in &[
            (1, 1, 1),
            (3, 5, 7),
            (16, 256, 6),
            (17, 257, 13),
            (40, 600, 101),
            (9, 32, 96),
        ] {
            let (x, w) = (values(t * k, 1), values(n * k, 2));
            let mut y = vec![f32::NAN; t * n];
            let rows: Vec<&[f32]> = x.chunks(k).collect();
            let mut out: Vec<&mut [f32]> = y.chunks_mut(n).collect();
            assert!(x_wt(&rows, matrix(&w, n, k, k), &mut out));
            for (got, want) in y.iter().zip(reference(&x, &w, t, k, n)) {
                assert!(
                    (*got as f64 - want).abs() <= 1e-5 * (k as f64).sqrt() * 4.0,
                    "{t}×{k}×{n}: {got} vs {want}"
                );
            }
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
}
