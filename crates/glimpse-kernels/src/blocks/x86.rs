//! The x86 kernels of [`super`]: AVX-512 or AVX2 with F16C, chosen at run time.

use super::{dequantize_portable, dot_row_portable, Activations, Dot, QuantKind, BLOCK};
use std::arch::x86_64::*;

/// How far ahead the weights are asked for: 2 KiB (about 100 blocks of Q4_1) streamed
/// SmolLM2's matrices 1.7× faster than the 512 bytes before (`examples/blocks_speed.rs`).
const PREFETCH_BYTES: usize = 2048;

pub fn dequantize(kind: QuantKind, blocks: &[u8], out: &mut [f32]) {
    if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("f16c") {
        // SAFETY: the CPU has AVX2 and F16C, checked just above.
        unsafe { dequantize_avx2(kind, blocks, out) }
    } else {
        dequantize_portable(kind, blocks, out)
    }
}

/// `d·(q + offset) + m`, multiply and add apart (no fused multiply-add), as the portable
/// code rounds.
#[target_feature(enable = "avx2,f16c")]
unsafe fn dequantize_avx2(kind: QuantKind, blocks: &[u8], out: &mut [f32]) {
    let offset = _mm256_set1_ps(kind.offset());
    for (block, chunk) in blocks
        .chunks_exact(kind.block_bytes())
        .zip(out.chunks_exact_mut(BLOCK))
    {
        let (d, m) = scale_and_min(kind, block);
        let (dv, mv) = (_mm256_set1_ps(d), _mm256_set1_ps(m));
        let eights = ints32(kind, block.as_ptr().add(kind.ints_at()));
        for (i, q) in eights.into_iter().enumerate() {
            let q = _mm256_add_ps(_mm256_cvtepi32_ps(q), offset);
            let v = _mm256_add_ps(_mm256_mul_ps(dv, q), mv);
            _mm256_storeu_ps(chunk.as_mut_ptr().add(8 * i), v);
        }
    }
}

/// The widest kernel this CPU runs, chosen once per product.
pub fn dot() -> Dot {
    let f16c = is_x86_feature_detected!("f16c");
    if f16c && is_x86_feature_detected!("avx512f") {
        // SAFETY (of the call inside): the CPU has AVX-512F and F16C, checked here.
        |k, r, x| unsafe { dot_avx512(k, r, x) }
    } else if f16c && is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        // SAFETY (of the call inside): the CPU has AVX2, FMA and F16C, checked here.
        |k, r, x| unsafe { dot_avx2(k, r, x) }
    } else {
        dot_row_portable
    }
}

/// Asks for the weights a few blocks on: a product of one vector streams the whole matrix
/// once, and waiting for each block's bytes was the largest share of its time.
#[inline(always)]
unsafe fn prefetch_ahead(block: *const u8) {
    // A hint only: an address past the matrix is not read, so no bounds apply.
    _mm_prefetch::<_MM_HINT_T0>(block.wrapping_add(PREFETCH_BYTES) as *const i8);
}

/// d and m of a block through F16C (the two halves are adjacent in a Q4_1 block).
#[inline(always)]
unsafe fn scale_and_min(kind: QuantKind, block: &[u8]) -> (f32, f32) {
    let bits = match kind {
        QuantKind::Q4_1 => u32::from_le_bytes([block[0], block[1], block[2], block[3]]),
        _ => u32::from(u16::from_le_bytes([block[0], block[1]])),
    };
    let both = _mm_cvtph_ps(_mm_cvtsi32_si128(bits as i32));
    (
        _mm_cvtss_f32(both),
        _mm_cvtss_f32(_mm_shuffle_ps(both, both, 1)),
    )
}

/// The block's 32 integers as two vectors of 16 i16, in value order.
#[inline(always)]
unsafe fn ints16(kind: QuantKind, ints: *const u8) -> (__m256i, __m256i) {
    match kind {
        QuantKind::Q8_0 => (
            _mm256_cvtepi8_epi16(_mm_loadu_si128(ints as *const __m128i)),
            _mm256_cvtepi8_epi16(_mm_loadu_si128(ints.add(16) as *const __m128i)),
        ),
        _ => {
            let packed = _mm_loadu_si128(ints as *const __m128i);
            let mask = _mm_set1_epi8(0x0f);
            (
                _mm256_cvtepu8_epi16(_mm_and_si128(packed, mask)),
                _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(packed, 4), mask)),
            )
        }
    }
}

/// The block's 32 integers as four vectors of eight i32, in value order.
#[inline(always)]
unsafe fn ints32(kind: QuantKind, ints: *const u8) -> [__m256i; 4] {
    let (lo, hi) = ints16(kind, ints);
    [
        _mm256_cvtepi16_epi32(_mm256_castsi256_si128(lo)),
        _mm256_cvtepi16_epi32(_mm256_extracti128_si256::<1>(lo)),
        _mm256_cvtepi16_epi32(_mm256_castsi256_si128(hi)),
        _mm256_cvtepi16_epi32(_mm256_extracti128_si256::<1>(hi)),
    ]
}

/// Blocks whose scales [`scales`] converts at once.
const GROUP: usize = 16;

/// The scales d of `count ≤ 16` blocks of `row` from block `first`, as f32, and what
/// those blocks add besides `d·Σᵢ nᵢxᵢ`: `Σ_b (d_b·offset + m_b)·Σx_b` ([`outside`]),
/// in eight lanes. Converting sixteen halves in two instructions, not one block's in
/// each, leaves the vector ports to the integers (a scale's scalar chain per block had
/// been half the kernel's work). The caller has checked that the blocks are there.
#[inline(always)]
unsafe fn scales(
    kind: QuantKind,
    row: *const u8,
    first: usize,
    count: usize,
    sums: &[f32],
) -> ([f32; GROUP], __m256) {
    let (mut d, mut m) = ([0u16; GROUP], [0u16; GROUP]);
    let mut s = [0.0f32; GROUP];
    for i in 0..count.min(GROUP) {
        let block = row.add((first + i) * kind.block_bytes());
        d[i] = std::ptr::read_unaligned(block as *const u16);
        if kind == QuantKind::Q4_1 {
            m[i] = std::ptr::read_unaligned(block.add(2) as *const u16);
        }
        s[i] = sums.get(first + i).copied().unwrap_or(0.0);
    }
    let half = |h: &[u16; GROUP], at: usize| {
        _mm256_cvtph_ps(_mm_loadu_si128(h.as_ptr().add(at) as *const __m128i))
    };
    let offset = _mm256_set1_ps(kind.offset());
    let mut out = [0.0f32; GROUP];
    let mut extra = _mm256_setzero_ps();
    for at in [0, 8] {
        let dv = half(&d, at);
        _mm256_storeu_ps(out.as_mut_ptr().add(at), dv);
        let per_block = _mm256_add_ps(_mm256_mul_ps(dv, offset), half(&m, at));
        let terms = _mm256_mul_ps(per_block, _mm256_loadu_ps(s.as_ptr().add(at)));
        extra = _mm256_add_ps(extra, terms);
    }
    (out, extra)
}

/// Eight lanes summed.
#[inline(always)]
unsafe fn sum8(v: __m256) -> f32 {
    let half = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    let mut lanes = [0.0f32; 4];
    _mm_storeu_ps(lanes.as_mut_ptr(), half);
    lanes.iter().sum()
}

#[target_feature(enable = "avx2,fma,f16c")]
pub(super) unsafe fn dot_avx2(kind: QuantKind, row: &[u8], x: &Activations<'_>) -> f32 {
    dot_grouped::<Eight>(kind, row, x)
}

#[target_feature(enable = "avx512f,avx2,f16c")]
pub(super) unsafe fn dot_avx512(kind: QuantKind, row: &[u8], x: &Activations<'_>) -> f32 {
    dot_grouped::<Sixteen>(kind, row, x)
}

/// A kernel's vector of sums, for the loop both kernels share ([`dot_grouped`]).
trait Lanes: Copy {
    unsafe fn zero() -> Self;
    /// Σᵢ nᵢxᵢ over block `b`'s 32 values, in lanes (`row` holds block `b`).
    unsafe fn ints_times_x(kind: QuantKind, row: &[u8], x: &Activations<'_>, b: usize) -> Self;
    /// `acc + d·s`, fused.
    unsafe fn scaled_add(d: f32, s: Self, acc: Self) -> Self;
    unsafe fn plus(self, other: Self) -> Self;
    unsafe fn total(self) -> f32;
}

/// AVX2: eight lanes.
#[derive(Clone, Copy)]
struct Eight(__m256);

/// AVX-512: sixteen lanes.
#[derive(Clone, Copy)]
struct Sixteen(__m512);

/// One row's dot product: the scales of sixteen blocks at a time ([`scales`]), each block's
/// sums scaled into one of two accumulators, even and odd blocks, so that no block waits on
/// the last. Each kind gets its own loop (`kind` a constant once inlined).
#[inline(always)]
unsafe fn dot_grouped<L: Lanes>(kind: QuantKind, row: &[u8], x: &Activations<'_>) -> f32 {
    if row.len() != x.sums.len() * kind.block_bytes() {
        return dot_row_portable(kind, row, x);
    }
    match kind {
        QuantKind::Q8_0 => dot_grouped_of::<L>(QuantKind::Q8_0, row, x),
        QuantKind::Q4_0 => dot_grouped_of::<L>(QuantKind::Q4_0, row, x),
        QuantKind::Q4_1 => dot_grouped_of::<L>(QuantKind::Q4_1, row, x),
    }
}

#[inline(always)]
unsafe fn dot_grouped_of<L: Lanes>(kind: QuantKind, row: &[u8], x: &Activations<'_>) -> f32 {
    let (mut even, mut odd) = (L::zero(), L::zero());
    let mut rest = _mm256_setzero_ps();
    let blocks = x.sums.len();
    for first in (0..blocks).step_by(GROUP) {
        let count = (blocks - first).min(GROUP);
        let (d, extra) = scales(kind, row.as_ptr(), first, count, &x.sums);
        rest = _mm256_add_ps(rest, extra);
        let mut i = 0;
        while i + 1 < count {
            let (b0, b1) = (first + i, first + i + 1);
            even = L::scaled_add(d[i], L::ints_times_x(kind, row, x, b0), even);
            odd = L::scaled_add(d[i + 1], L::ints_times_x(kind, row, x, b1), odd);
            i += 2;
        }
        if i < count {
            even = L::scaled_add(d[i], L::ints_times_x(kind, row, x, first + i), even);
        }
    }
    even.plus(odd).total() + sum8(rest)
}

impl Lanes for Eight {
    #[inline(always)]
    unsafe fn zero() -> Self {
        Eight(_mm256_setzero_ps())
    }
    #[inline(always)]
    unsafe fn ints_times_x(kind: QuantKind, row: &[u8], x: &Activations<'_>, b: usize) -> Self {
        let block = row.as_ptr().add(b * kind.block_bytes());
        prefetch_ahead(block);
        let q = ints32(kind, block.add(kind.ints_at()));
        let xs = x.values.as_ptr().add(b * BLOCK);
        let mut s = _mm256_mul_ps(_mm256_cvtepi32_ps(q[0]), _mm256_loadu_ps(xs));
        for (i, q) in q.iter().enumerate().skip(1) {
            s = _mm256_fmadd_ps(_mm256_cvtepi32_ps(*q), _mm256_loadu_ps(xs.add(8 * i)), s);
        }
        Eight(s)
    }
    #[inline(always)]
    unsafe fn scaled_add(d: f32, s: Self, acc: Self) -> Self {
        Eight(_mm256_fmadd_ps(_mm256_set1_ps(d), s.0, acc.0))
    }
    #[inline(always)]
    unsafe fn plus(self, other: Self) -> Self {
        Eight(_mm256_add_ps(self.0, other.0))
    }
    #[inline(always)]
    unsafe fn total(self) -> f32 {
        sum8(self.0)
    }
}

impl Lanes for Sixteen {
    #[inline(always)]
    unsafe fn zero() -> Self {
        Sixteen(_mm512_setzero_ps())
    }
    #[inline(always)]
    unsafe fn ints_times_x(kind: QuantKind, row: &[u8], x: &Activations<'_>, b: usize) -> Self {
        let block = row.as_ptr().add(b * kind.block_bytes());
        prefetch_ahead(block);
        let ints = block.add(kind.ints_at());
        // The 32 integers as two vectors of sixteen i32, in value order.
        let (q0, q1) = match kind {
            QuantKind::Q8_0 => (
                _mm512_cvtepi8_epi32(_mm_loadu_si128(ints as *const __m128i)),
                _mm512_cvtepi8_epi32(_mm_loadu_si128(ints.add(16) as *const __m128i)),
            ),
            // Each byte widened whole: its low nibble is value j, the rest value j + 16.
            _ => {
                let bytes = _mm512_cvtepu8_epi32(_mm_loadu_si128(ints as *const __m128i));
                (
                    _mm512_and_si512(bytes, _mm512_set1_epi32(0x0f)),
                    _mm512_srli_epi32::<4>(bytes),
                )
            }
        };
        let xs = x.values.as_ptr().add(b * BLOCK);
        let s = _mm512_mul_ps(_mm512_cvtepi32_ps(q0), _mm512_loadu_ps(xs));
        Sixteen(_mm512_fmadd_ps(
            _mm512_cvtepi32_ps(q1),
            _mm512_loadu_ps(xs.add(16)),
            s,
        ))
    }
    #[inline(always)]
    unsafe fn scaled_add(d: f32, s: Self, acc: Self) -> Self {
        Sixteen(_mm512_fmadd_ps(_mm512_set1_ps(d), s.0, acc.0))
    }
    #[inline(always)]
    unsafe fn plus(self, other: Self) -> Self {
        Sixteen(_mm512_add_ps(self.0, other.0))
    }
    #[inline(always)]
    unsafe fn total(self) -> f32 {
        _mm512_reduce_add_ps(self.0)
    }
}
