//! The x86-64 kernels: AVX-512 (16 lanes) and AVX2 (8 lanes), both with fused multiply-adds.
//! Each keeps a tile of sums in registers for the whole depth `kc` and, for every `k`,
//! broadcasts one weight per row against the panel's tokens.

use super::Kernel;
use std::arch::x86_64::*;

/// Widest first, as the CPU allows.
pub fn kernels() -> Vec<Kernel> {
    let mut all = Vec::new();
    if is_x86_feature_detected!("avx512f") {
        all.push(AVX512);
    }
    if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        all.push(AVX2);
    }
    all
}

/// 12 weight rows × 32 tokens: 24 accumulators of 16 lanes, two panel loads and a broadcast in
/// 27 of the 32 AVX-512 registers. Measured on an Intel Xeon with AVX-512 (`examples/speed.rs`,
/// MiniLM's and SmolLM2's shapes): 137–164 GFLOP/s against the AVX2 kernel's 95–106; 14 rows
/// × 32 tokens, 8 × 48 and 14 × 16 all came out slower (86–162, 60–131, 74–121).
const AVX512: Kernel = Kernel {
    name: "avx512",
    mr: 12,
    nr: 32,
    run: avx512,
};

/// 6 weight rows × 16 tokens: 6 × 2 accumulators of 8 lanes, two panel loads and a broadcast
/// fill 15 of the 16 AVX2 registers.
const AVX2: Kernel = Kernel {
    name: "avx2",
    mr: 6,
    nr: 16,
    run: avx2,
};

/// Safety: as [`Kernel::run`], and the CPU has AVX-512F.
unsafe fn avx512(m: usize, w: *const f32, stride: usize, p: *const f32, kc: usize, t: *mut f32) {
    match m {
        1 => avx512_rows::<1>(w, stride, p, kc, t),
        2 => avx512_rows::<2>(w, stride, p, kc, t),
        3 => avx512_rows::<3>(w, stride, p, kc, t),
        4 => avx512_rows::<4>(w, stride, p, kc, t),
        5 => avx512_rows::<5>(w, stride, p, kc, t),
        6 => avx512_rows::<6>(w, stride, p, kc, t),
        7 => avx512_rows::<7>(w, stride, p, kc, t),
        8 => avx512_rows::<8>(w, stride, p, kc, t),
        9 => avx512_rows::<9>(w, stride, p, kc, t),
        10 => avx512_rows::<10>(w, stride, p, kc, t),
        11 => avx512_rows::<11>(w, stride, p, kc, t),
        _ => avx512_rows::<12>(w, stride, p, kc, t),
    }
}

/// Safety: as [`Kernel::run`], and the CPU has AVX2 and FMA.
unsafe fn avx2(m: usize, w: *const f32, stride: usize, p: *const f32, kc: usize, t: *mut f32) {
    match m {
        1 => avx2_rows::<1>(w, stride, p, kc, t),
        2 => avx2_rows::<2>(w, stride, p, kc, t),
        3 => avx2_rows::<3>(w, stride, p, kc, t),
        4 => avx2_rows::<4>(w, stride, p, kc, t),
        5 => avx2_rows::<5>(w, stride, p, kc, t),
        _ => avx2_rows::<6>(w, stride, p, kc, t),
    }
}

#[target_feature(enable = "avx512f")]
unsafe fn avx512_rows<const M: usize>(
    w: *const f32,
    stride: usize,
    panel: *const f32,
    kc: usize,
    tile: *mut f32,
) {
    const V: usize = 2;
    const NR: usize = 16 * V;
    let mut acc = [[_mm512_setzero_ps(); V]; M];
    for k in 0..kc {
        let mut b = [_mm512_setzero_ps(); V];
        for (v, b) in b.iter_mut().enumerate() {
            *b = _mm512_loadu_ps(panel.add(k * NR + 16 * v));
        }
        for (i, acc) in acc.iter_mut().enumerate() {
            let a = _mm512_set1_ps(*w.add(i * stride + k));
            for (acc, b) in acc.iter_mut().zip(&b) {
                *acc = _mm512_fmadd_ps(a, *b, *acc);
            }
        }
    }
    for (i, acc) in acc.iter().enumerate() {
        for (v, acc) in acc.iter().enumerate() {
            _mm512_storeu_ps(tile.add(i * NR + 16 * v), *acc);
        }
    }
}

#[target_feature(enable = "avx2,fma")]
unsafe fn avx2_rows<const M: usize>(
    w: *const f32,
    stride: usize,
    panel: *const f32,
    kc: usize,
    tile: *mut f32,
) {
    const NR: usize = 16;
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
    for (i, acc) in acc.iter().enumerate() {
        _mm256_storeu_ps(tile.add(i * NR), acc[0]);
        _mm256_storeu_ps(tile.add(i * NR + 8), acc[1]);
    }
}
