//! Loops compiled for the CPU's wider vectors. The native build targets baseline x86-64
//! (SSE2: four f32 lanes) so it runs on any PC; where the CPU has AVX2 (eight lanes), the
//! softmax and activation rows run a copy compiled for it. Same operations in the same order,
//! no fused multiply-adds, so the same numbers.

/// Runs `f` compiled for AVX2 where this CPU has it (loops `f` inlines get eight lanes).
#[inline(always)]
pub fn wide<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { avx2(f) };
    }
    f()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}
