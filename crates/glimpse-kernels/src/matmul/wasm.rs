//! The browser's kernel: `simd128`, 4 lanes, a multiply and an add (wasm has no fused
//! multiply-add).

use super::Kernel;
use core::arch::wasm32::*;

pub fn kernels() -> Vec<Kernel> {
    vec![SIMD128]
}

/// 4 weight rows × 8 tokens: 4 × 2 accumulators of 4 lanes. Measured in V8 (node 20,
/// `examples/wasm_speed.mjs`): 53 – 59 GFLOP/s at 4 rows, 50 at 3, 28 – 33 at 5 or 6, where V8
/// runs out of vector registers and spills accumulators to memory; its ceiling without fused
/// multiply-adds is 16 flops a cycle, 64 GFLOP/s on this core.
const SIMD128: Kernel = Kernel {
    name: "simd128",
    mr: 4,
    nr: 8,
    run: simd128,
};

/// Safety: as [`Kernel::run`].
unsafe fn simd128(m: usize, w: *const f32, stride: usize, p: *const f32, kc: usize, t: *mut f32) {
    match m {
        1 => rows::<1>(w, stride, p, kc, t),
        2 => rows::<2>(w, stride, p, kc, t),
        3 => rows::<3>(w, stride, p, kc, t),
        _ => rows::<4>(w, stride, p, kc, t),
    }
}

#[inline(always)]
unsafe fn rows<const M: usize>(
    w: *const f32,
    stride: usize,
    panel: *const f32,
    kc: usize,
    tile: *mut f32,
) {
    const NR: usize = 8;
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
    for (i, acc) in acc.iter().enumerate() {
        v128_store(tile.add(i * NR) as *mut v128, acc[0]);
        v128_store(tile.add(i * NR + 4) as *mut v128, acc[1]);
    }
}
