//! Weights kept in GGUF's quantized blocks (llama.cpp's Q8_0, Q4_0, Q4_1), and the
//! matrix–vector product `y = W x` read straight from them.
//!
//! A row of `W` is a run of blocks of 32 values, each block a scale `d` (f16), for Q4_1 a
//! minimum `m` (f16), then the integers `q`:
//!
//! | kind | bytes | value |
//! |---|---|---|
//! | Q8_0 | 2 + 32 | `d·q`, `q` a signed byte |
//! | Q4_0 | 2 + 16 | `d·(n − 8)`, `n` a nibble: byte `j` holds value `j` low, `j + 16` high |
//! | Q4_1 | 4 + 16 | `d·n + m` |
//!
//! The product takes the scale out of each block's sum, so the integers are multiplied as
//! they are and the scale once per block:
//!
//! `Σᵢ (d·nᵢ + m)·xᵢ = d·Σᵢ nᵢxᵢ + m·Σᵢ xᵢ`
//!
//! with `Σᵢ xᵢ` per block computed once per input vector ([`Activations`]), not once per row.
//! The activations stay f32, so the result is the dequantized row's dot product up to f32
//! rounding ([`error_bound`]). (Rounding them to 16 bits, as llama.cpp rounds them to 8, moved
//! a lesson's beam score of SmolLM2 in its second decimal: the numbers students read must be
//! the model's.) Kernels: AVX-512 or AVX2 natively (chosen at run time), `simd128` in the
//! browser, and a portable loop elsewhere.

/// Values per block, for every kind here.
pub const BLOCK: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QuantKind {
    /// f16 scale d, 32 × i8 q: x = d·q.
    Q8_0,
    /// f16 scale d, 16 bytes of nibbles: x = d·(n − 8).
    Q4_0,
    /// f16 scale d, f16 minimum m, 16 bytes of nibbles: x = d·n + m.
    Q4_1,
}

impl QuantKind {
    /// Bytes of one block of 32 values.
    pub const fn block_bytes(self) -> usize {
        match self {
            QuantKind::Q8_0 => 2 + BLOCK,
            QuantKind::Q4_0 => 2 + BLOCK / 2,
            QuantKind::Q4_1 => 4 + BLOCK / 2,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            QuantKind::Q8_0 => "Q8_0",
            QuantKind::Q4_0 => "Q4_0",
            QuantKind::Q4_1 => "Q4_1",
        }
    }

    /// Where the integers start in a block.
    const fn ints_at(self) -> usize {
        match self {
            QuantKind::Q4_1 => 4,
            _ => 2,
        }
    }

    /// The block's scale d and minimum m (0 but for Q4_1; Q4_0's −8 is [`Self::offset`]).
    fn scale_and_min(self, block: &[u8]) -> (f32, f32) {
        let half = |i: usize| match (block.get(i), block.get(i + 1)) {
            (Some(&a), Some(&b)) => f16_to_f32(u16::from_le_bytes([a, b])),
            _ => 0.0,
        };
        match self {
            QuantKind::Q4_1 => (half(0), half(2)),
            _ => (half(0), 0.0),
        }
    }

    /// What each integer is shifted by before scaling: −8 for Q4_0's centred nibbles.
    const fn offset(self) -> f32 {
        match self {
            QuantKind::Q4_0 => -8.0,
            _ => 0.0,
        }
    }

    /// The block's integers as f32, in value order (a nibble kind's low nibbles, then high).
    fn ints(self, block: &[u8]) -> [f32; BLOCK] {
        let mut q = [0.0f32; BLOCK];
        let ints = block.get(self.ints_at()..).unwrap_or(&[]);
        match self {
            QuantKind::Q8_0 => {
                for (q, &b) in q.iter_mut().zip(ints) {
                    *q = f32::from(b as i8);
                }
            }
            QuantKind::Q4_0 | QuantKind::Q4_1 => {
                let (lo, hi) = q.split_at_mut(BLOCK / 2);
                for ((l, h), &b) in lo.iter_mut().zip(hi.iter_mut()).zip(ints) {
                    *l = f32::from(b & 0x0f);
                    *h = f32::from(b >> 4);
                }
            }
        }
        q
    }

    /// The block's 32 values into `out`: `d·(q + offset) + m`, two roundings, as llama.cpp's
    /// and gguf-py's reference code. A block shorter than `block_bytes()` reads as zeros.
    pub fn dequantize_block(self, block: &[u8], out: &mut [f32]) {
        let (d, m) = self.scale_and_min(block);
        let ints = self.ints(block);
        for (o, q) in out.iter_mut().zip(ints) {
            *o = d * (q + self.offset()) + m;
        }
    }

    /// Whether a block's scale (and minimum) are finite, so all its values are.
    pub fn block_is_finite(self, block: &[u8]) -> bool {
        let (d, m) = self.scale_and_min(block);
        let whole = block.len() >= self.block_bytes();
        whole && d.is_finite() && m.is_finite()
    }
}

/// IEEE half precision to f32, exactly (subnormals, infinities and NaN included).
pub fn f16_to_f32(bits: u16) -> f32 {
    let sign = u32::from(bits >> 15) << 31;
    let exp = u32::from((bits >> 10) & 0x1f);
    let frac = u32::from(bits & 0x3ff);
    let magnitude = match exp {
        // ±0 and subnormals: frac · 2⁻²⁴, exact in f32.
        0 => {
            let v = frac as f32 * f32::from_bits(0x3380_0000);
            return if sign == 0 { v } else { -v };
        }
        0x1f => 0x7f80_0000 | (frac << 13),
        _ => ((exp + 127 - 15) << 23) | (frac << 13),
    };
    f32::from_bits(sign | magnitude)
}

/// A run of blocks of `kind` expanded into `out` (32 values a block), each value exactly as
/// [`QuantKind::dequantize_block`] computes it: the same operations in the same order, eight
/// at a time where the CPU has AVX2. A prompt's product expands bands of rows with it, and
/// one block at a time it had cost as much as the product itself.
pub fn dequantize(kind: QuantKind, blocks: &[u8], out: &mut [f32]) {
    kernel::dequantize(kind, blocks, out)
}

pub(crate) fn dequantize_portable(kind: QuantKind, blocks: &[u8], out: &mut [f32]) {
    for (block, chunk) in blocks
        .chunks_exact(kind.block_bytes())
        .zip(out.chunks_exact_mut(BLOCK))
    {
        kind.dequantize_block(block, chunk);
    }
}

/// An input vector ready for [`w_x`]: its values, and the exact f32 sum `Σᵢ xᵢ` of each block
/// of 32 (what the minimum and Q4_0's centre multiply).
#[derive(Debug, Clone, PartialEq)]
pub struct Activations<'x> {
    values: &'x [f32],
    sums: Vec<f32>,
}

impl<'x> Activations<'x> {
    /// `x` (a multiple of 32 long; a ragged tail is left out, and [`w_x`] refuses it),
    /// borrowed: only the sums are computed.
    pub fn new(x: &'x [f32]) -> Self {
        let values = &x[..x.len() / BLOCK * BLOCK];
        let sums = values.chunks_exact(BLOCK).map(|b| b.iter().sum()).collect();
        Self { values, sums }
    }

    /// Values covered (whole blocks).
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// The tolerance a product from blocks is held to (tested here and in Glimpse's model): how
/// far `w · x` computed by [`w_x`] may be from the exact dot product of the expanded row `w`
/// with `x`: f32 sums, a few ulps of the sum of the terms' sizes.
pub fn error_bound(w: &[f32], x: &[f32]) -> f64 {
    let terms: f64 = w
        .iter()
        .zip(x)
        .map(|(&a, &b)| (f64::from(a) * f64::from(b)).abs())
        .sum();
    4.0 * w.len() as f64 * f64::from(f32::EPSILON) * terms.max(1e-6)
}

/// `y[j] = Σₖ W[j][k]·x[k]` for the `y.len()` rows of `w`, each `x.len()` values in blocks
/// of `kind`, `x` given as [`Activations`]. Returns `false`, leaving `y` as it was, where the
/// lengths disagree.
pub fn w_x(kind: QuantKind, w: &[u8], x: &Activations<'_>, y: &mut [f32]) -> bool {
    let row_bytes = x.sums.len() * kind.block_bytes();
    if y.len().checked_mul(row_bytes) != Some(w.len()) {
        return false;
    }
    if row_bytes == 0 {
        y.fill(0.0);
        return true;
    }
    let dot = kernel::dot();
    for (row, y) in w.chunks_exact(row_bytes).zip(y.iter_mut()) {
        *y = dot(kind, row, x);
    }
    true
}

/// One row's dot product with the activations.
type Dot = fn(QuantKind, &[u8], &Activations<'_>) -> f32;

/// What a block adds besides `d·Σᵢ nᵢxᵢ`: the minimum (Q4_1) or Q4_0's centre, times the
/// block's sum.
#[inline(always)]
fn outside(kind: QuantKind, d: f32, m: f32, sum: f32) -> f32 {
    (d * kind.offset() + m) * sum
}

/// One row's dot product, the portable way: the block's integers as f32 against `x` in eight
/// running lanes, then scale and minimum once per block. (The browser's kernel does not call
/// it; the tests compare every kernel with it.)
#[cfg_attr(
    all(target_arch = "wasm32", target_feature = "simd128"),
    allow(dead_code)
)]
fn dot_row_portable(kind: QuantKind, row: &[u8], x: &Activations<'_>) -> f32 {
    let mut total = 0.0f32;
    for ((block, xs), &sum) in row
        .chunks_exact(kind.block_bytes())
        .zip(x.values.chunks_exact(BLOCK))
        .zip(&x.sums)
    {
        let (d, m) = kind.scale_and_min(block);
        let q = kind.ints(block);
        let mut lanes = [0.0f32; 8];
        for (q, x) in q.chunks_exact(8).zip(xs.chunks_exact(8)) {
            for l in 0..8 {
                lanes[l] += q[l] * x[l];
            }
        }
        let qx: f32 = lanes.iter().sum();
        total += d * qx + outside(kind, d, m, sum);
    }
    total
}

#[cfg(target_arch = "x86_64")]
#[path = "blocks/x86.rs"]
mod kernel;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod kernel {
    use super::{outside, Activations, Dot, QuantKind, BLOCK};
    use std::arch::wasm32::*;

    pub fn dot() -> Dot {
        dot_simd128
    }

    pub(super) use super::dequantize_portable as dequantize;

    /// Four f32 vectors of the eight lanes of an integer vector of u16 or i16.
    #[inline(always)]
    fn widen(v: v128, signed: bool) -> [v128; 2] {
        if signed {
            [
                f32x4_convert_i32x4(i32x4_extend_low_i16x8(v)),
                f32x4_convert_i32x4(i32x4_extend_high_i16x8(v)),
            ]
        } else {
            [
                f32x4_convert_i32x4(u32x4_extend_low_u16x8(v)),
                f32x4_convert_i32x4(u32x4_extend_high_u16x8(v)),
            ]
        }
    }

    fn dot_simd128(kind: QuantKind, row: &[u8], x: &Activations<'_>) -> f32 {
        let mut acc = f32x4_splat(0.0);
        let mut rest = 0.0f32;
        for ((block, xs), &sum) in row
            .chunks_exact(kind.block_bytes())
            .zip(x.values.chunks_exact(BLOCK))
            .zip(&x.sums)
        {
            let (d, m) = kind.scale_and_min(block);
            let ints = block.get(kind.ints_at()..).unwrap_or(&[]);
            // The 32 integers as eight vectors of four f32, in value order.
            let halves: [(v128, bool); 4] = match kind {
                QuantKind::Q8_0 => {
                    let (a, c) = (load16(ints), load16(ints.get(16..).unwrap_or(&[])));
                    [
                        (i16x8_extend_low_i8x16(a), true),
                        (i16x8_extend_high_i8x16(a), true),
                        (i16x8_extend_low_i8x16(c), true),
                        (i16x8_extend_high_i8x16(c), true),
                    ]
                }
                _ => {
                    let packed = load16(ints);
                    let lo = v128_and(packed, u8x16_splat(0x0f));
                    let hi = u8x16_shr(packed, 4);
                    [
                        (u16x8_extend_low_u8x16(lo), false),
                        (u16x8_extend_high_u8x16(lo), false),
                        (u16x8_extend_low_u8x16(hi), false),
                        (u16x8_extend_high_u8x16(hi), false),
                    ]
                }
            };
            let mut s = f32x4_splat(0.0);
            for (i, (v, signed)) in halves.into_iter().enumerate() {
                for (j, q) in widen(v, signed).into_iter().enumerate() {
                    let at = 8 * i + 4 * j;
                    let xv = xs.get(at..at + 4).map_or(f32x4_splat(0.0), load_f32x4);
                    s = f32x4_add(s, f32x4_mul(q, xv));
                }
            }
            acc = f32x4_add(acc, f32x4_mul(f32x4_splat(d), s));
            rest += outside(kind, d, m, sum);
        }
        f32x4_extract_lane::<0>(acc)
            + f32x4_extract_lane::<1>(acc)
            + f32x4_extract_lane::<2>(acc)
            + f32x4_extract_lane::<3>(acc)
            + rest
    }

    /// 16 bytes from the start of `bytes` (callers pass whole blocks: at least 16).
    #[inline(always)]
    fn load16(bytes: &[u8]) -> v128 {
        match bytes.get(..16) {
            // SAFETY: 16 bytes are there; wasm's v128.load takes any alignment.
            Some(b) => unsafe { v128_load(b.as_ptr() as *const v128) },
            None => u8x16_splat(0),
        }
    }

    /// Four f32 (the caller passes exactly four).
    #[inline(always)]
    fn load_f32x4(x: &[f32]) -> v128 {
        match x.get(..4) {
            // SAFETY: four f32 are there; wasm's v128.load takes any alignment.
            Some(x) => unsafe { v128_load(x.as_ptr() as *const v128) },
            None => f32x4_splat(0.0),
        }
    }
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
mod kernel {
    pub(super) use super::dequantize_portable as dequantize;
    use super::{dot_row_portable, Dot};

    pub fn dot() -> Dot {
        dot_row_portable
    }
}

#[cfg(test)]
mod tests;
