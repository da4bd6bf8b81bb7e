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
//! Kernels: AVX-512 or AVX2 with FMA natively (the widest the CPU has, chosen at run time),
//! `simd128` in the browser. Where none applies [`x_wt`] returns `false` and the caller
//! multiplies another way.

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

/// A register-blocked kernel: `tile[i·NR + t] = Σ_k w[i][k] · panel[k][t]` for the first `m`
/// weight rows, `MR` rows and `NR` tokens at most.
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    name: &'static str,
    mr: usize,
    nr: usize,
    /// Safety: the CPU has the kernel's instructions; `1 ≤ m ≤ mr`; `w` holds
    /// `(m − 1)·stride + kc` values, `panel` `kc·nr`, `tile` `mr·nr`.
    run: unsafe fn(
        m: usize,
        w: *const f32,
        stride: usize,
        panel: *const f32,
        kc: usize,
        tile: *mut f32,
    ),
}

impl Kernel {
    /// "avx512", "avx2" or "simd128": the instructions it is written in.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// The most values a tile of any kernel holds (`MR · NR`).
const MAX_TILE: usize = 16 * 32;

/// Every kernel this machine runs, widest first.
pub fn kernels() -> Vec<Kernel> {
    arch::kernels()
}

/// The kernel [`x_wt`] uses: the widest this machine runs, chosen once. `GLIMPSE_KERNEL=avx2`
/// picks a narrower one natively, so the two can be timed on one machine.
pub fn kernel() -> Option<Kernel> {
    static CHOSEN: std::sync::OnceLock<Option<Kernel>> = std::sync::OnceLock::new();
    *CHOSEN.get_or_init(|| {
        let all = kernels();
        let wanted = std::env::var("GLIMPSE_KERNEL").ok();
        let named = wanted.and_then(|name| all.iter().find(|k| k.name == name).copied());
        named.or_else(|| all.first().copied())
    })
}

/// `y = x Wᵀ`: `y[t][j] = Σ_k x[t][k] · w[j][k]`, overwriting `y`; `x` and `y` are given
/// row by row (`T` rows of `K`, `T` rows of `N`), `w` is `N × K`.
///
/// Returns `false`, leaving `y` as it was, where this machine has no kernel or the shapes do
/// not agree.
pub fn x_wt(x: &[&[f32]], w: Matrix, y: &mut [&mut [f32]]) -> bool {
    match kernel() {
        Some(kernel) => x_wt_with(kernel, x, w, y),
        None => false,
    }
}

/// [`x_wt`] through a given kernel of [`kernels`]. Every kernel sums each cell over `k` in
/// increasing order with fused multiply-adds where it has them, so the x86 kernels give the
/// same bits.
pub fn x_wt_with(kernel: Kernel, x: &[&[f32]], w: Matrix, y: &mut [&mut [f32]]) -> bool {
    if !w.fits() {
        return false;
    }
    if let Some(done) = refused_or_trivial(x, (w.rows, w.cols), y) {
        return done;
    }
    drive(kernel, x, w, y);
    true
}

/// `Some(false)` where `x` (rows of `cols`) and `y` (rows of `rows`) do not agree, `Some(true)`
/// once a product with nothing to sum is written (no tokens, no rows, or zeros for `cols = 0`),
/// `None` where the kernel has work to do.
fn refused_or_trivial(
    x: &[&[f32]],
    (rows, cols): (usize, usize),
    y: &mut [&mut [f32]],
) -> Option<bool> {
    let shapes_agree = x.len() == y.len()
        && x.iter().all(|r| r.len() == cols)
        && y.iter().all(|r| r.len() == rows);
    if !shapes_agree {
        return Some(false);
    }
    if x.is_empty() || rows == 0 {
        return Some(true);
    }
    if cols == 0 {
        y.iter_mut().for_each(|r| r.fill(0.0));
        return Some(true);
    }
    None
}

/// Whether [`x_wt`] multiplies on this machine.
pub fn has_kernel() -> bool {
    kernel().is_some()
}

/// [`x_wt`] for a `W` of `rows × cols` that is not stored in f32 (weights kept in quantized
/// blocks): `expand(first, band)` writes rows `first..` of `W` into `band`, `cols` values a
/// row, and the product runs on each band of at most `band_rows` rows in turn. The tokens are
/// packed once for every band; the cells are the bits [`x_wt`] gives on the expanded matrix.
///
/// Returns `false`, leaving `y` as it was and calling `expand` never, where this machine has no
/// kernel or the shapes do not agree.
pub fn x_wt_expanded(
    x: &[&[f32]],
    (rows, cols): (usize, usize),
    band_rows: usize,
    expand: &mut dyn FnMut(usize, &mut [f32]),
    y: &mut [&mut [f32]],
) -> bool {
    let Some(kernel) = kernel() else {
        return false;
    };
    if let Some(done) = refused_or_trivial(x, (rows, cols), y) {
        return done;
    }
    let packed = pack_tokens(x, cols, kernel.nr);
    let band_rows = band_rows.clamp(1, rows);
    let mut band = vec![0.0f32; band_rows * cols];
    for first in (0..rows).step_by(band_rows) {
        let take = band_rows.min(rows - first);
        let w = &mut band[..take * cols];
        expand(first, w);
        let w = matrix_of(w, take, cols);
        drive_packed(kernel, &packed, x.len(), w, y, first);
    }
    true
}

fn matrix_of(data: &[f32], rows: usize, cols: usize) -> Matrix<'_> {
    Matrix {
        data,
        rows,
        cols,
        stride: cols,
    }
}

/// Depth of a block of `k` and rows of `W` in a block: a block of `W` (`MC × KC`) stays in L2
/// while every panel of tokens passes it. Measured on a Zen 4 core (MiniLM's and SmolLM2's
/// shapes, `cargo run --release --example speed`): a whole layer's depth in one block (no
/// partial sums written back between blocks) runs at 125 – 130 GFLOP/s, blocks of 256 at
/// 120 – 125 and of 128 at 114 – 119; `MC` from 48 to 192 makes no difference.
const KC: usize = 2048;
const MC: usize = 96;

/// Packs `x` into panels of `NR` tokens: panel `p` holds, for each `k`, the `NR` values
/// `x[p·NR + t][k]` side by side (zeros past the last token). Written in the order it is
/// stored, one `k` after another: scattering each token's row across the panel, `NR` values
/// apart, touched a new cache line with every value and took a sixth of a prompt's time.
fn pack_tokens(x: &[&[f32]], depth: usize, nr: usize) -> Vec<f32> {
    let mut packed = vec![0.0f32; x.len().div_ceil(nr) * depth * nr];
    for (panel, tokens) in packed.chunks_exact_mut(depth * nr).zip(x.chunks(nr)) {
        for (k, lanes) in panel.chunks_exact_mut(nr).enumerate() {
            for (lane, row) in lanes.iter_mut().zip(tokens) {
                *lane = row[k];
            }
        }
    }
    packed
}

fn drive(kernel: Kernel, x: &[&[f32]], w: Matrix, y: &mut [&mut [f32]]) {
    let packed = pack_tokens(x, w.cols, kernel.nr);
    drive_packed(kernel, &packed, x.len(), w, y, 0);
}

/// `y[t][first + j] = Σ_k x[t][k] · w[j][k]` for the `n_tokens` packed by [`pack_tokens`].
fn drive_packed(
    kernel: Kernel,
    packed: &[f32],
    n_tokens: usize,
    w: Matrix,
    y: &mut [&mut [f32]],
    first: usize,
) {
    let (nr, mr) = (kernel.nr, kernel.mr);
    let depth = w.cols;
    let panels = n_tokens.div_ceil(nr);
    let mut tile = [0.0f32; MAX_TILE];
    for k0 in (0..depth).step_by(KC) {
        let kc = KC.min(depth - k0);
        for j0 in (0..w.rows).step_by(MC) {
            let j_end = (j0 + MC).min(w.rows);
            for p in 0..panels {
                let panel = &packed[p * depth * nr + k0 * nr..p * depth * nr + (k0 + kc) * nr];
                let t0 = p * nr;
                let tokens = nr.min(n_tokens - t0);
                for j in (j0..j_end).step_by(mr) {
                    let m = mr.min(j_end - j);
                    // The `m` weight rows from `j`, columns `k0..k0 + kc` (in bounds: `fits`).
                    let rows = &w.data[j * w.stride + k0..(j + m - 1) * w.stride + k0 + kc];
                    run_tile(kernel, rows, w.stride, m, panel, kc, &mut tile);
                    for (t, out) in y[t0..t0 + tokens].iter_mut().enumerate() {
                        let cells = &mut out[first + j..first + j + m];
                        for (i, cell) in cells.iter_mut().enumerate() {
                            let v = tile[i * nr + t];
                            *cell = if k0 == 0 { v } else { *cell + v };
                        }
                    }
                }
            }
        }
    }
}

/// `tile[i·NR + t] = Σ_k w[i][k] · panel[k][t]` for the first `m` rows of `w` (rows `stride`
/// apart).
fn run_tile(
    kernel: Kernel,
    w: &[f32],
    stride: usize,
    m: usize,
    panel: &[f32],
    kc: usize,
    tile: &mut [f32; MAX_TILE],
) {
    assert!((1..=kernel.mr).contains(&m) && panel.len() >= kc * kernel.nr);
    assert!(w.len() >= (m - 1) * stride + kc && kernel.mr * kernel.nr <= MAX_TILE);
    // SAFETY: a `Kernel` comes only from `kernels()`, which lists those whose instructions
    // this CPU has; the asserts above put every index the kernel reads (rows `i < m` of `kc`
    // weights, `kc` panel rows of NR) and writes (`mr · nr` tile values) inside the slices.
    unsafe { (kernel.run)(m, w.as_ptr(), stride, panel.as_ptr(), kc, tile.as_mut_ptr()) }
}

#[cfg(target_arch = "x86_64")]
#[path = "x86.rs"]
mod arch;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[path = "wasm.rs"]
mod arch;

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
mod arch {
    /// No kernel here: the caller multiplies another way.
    pub fn kernels() -> Vec<super::Kernel> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests;
