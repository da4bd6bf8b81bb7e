//! Row-wise element work of the forward pass: the softmax of a row of attention scores and
//! the FFN's activations, written as straight loops over slices so they become SIMD code.

use crate::approx;
use crate::wide::wide;

/// The softmax of one row over its allowed entries: `exp(xⱼ − m) / Σₖ exp(xₖ − m)` with
/// `m = max xₖ`, both over allowed entries; 0 at entries not allowed, and all 0 when none is
/// (a query that sees no key receives nothing), never NaN.
pub fn softmax_row(logits: &[f32], allowed: &[bool], out: &mut [f32]) {
    wide(|| {
        let max = lanes_max(logits, allowed);
        if max == f32::NEG_INFINITY {
            out.fill(0.0);
            return;
        }
        for ((o, &x), &ok) in out.iter_mut().zip(logits).zip(allowed) {
            let e = approx::exp(x - max);
            *o = if ok { e } else { 0.0 };
        }
        let sum = lanes_sum(out);
        for o in out.iter_mut() {
            *o /= sum;
        }
    })
}

/// `log Σⱼ exp(xⱼ) = m + ln Σⱼ exp(xⱼ − m)` with `m = max xⱼ`: a next-token loss's normaliser
/// over a whole vocabulary. The terms in f32 (eight lanes), each run of 1024 summed in f64, so
/// a 49,152-entry row is within about 10⁻⁶ of the f64 formula. −∞ for an empty row or one of
/// −∞; a row holding +∞ or NaN gives +∞ or NaN.
pub fn log_sum_exp_row(xs: &[f32]) -> f64 {
    wide(|| {
        // NaN is skipped here and caught by the sum below.
        let max = lanes_max_all(xs);
        if !max.is_finite() {
            return max as f64;
        }
        let mut sum = 0.0f64;
        for run in xs.chunks(1024) {
            let mut lanes = [0.0f32; 8];
            let mut chunks = run.chunks_exact(8);
            for c in &mut chunks {
                for (l, &x) in lanes.iter_mut().zip(c) {
                    *l += approx::exp(x - max);
                }
            }
            let tail: f32 = chunks
                .remainder()
                .iter()
                .map(|&x| approx::exp(x - max))
                .sum();
            sum += (lanes.iter().sum::<f32>() + tail) as f64;
        }
        max as f64 + sum.ln()
    })
}

/// max xᵢ of a row (a vocabulary's logits: the greedy next token), NaN skipped; −∞ for an
/// empty row or one of NaN alone.
pub fn max_row(xs: &[f32]) -> f32 {
    wide(|| lanes_max_all(xs))
}

/// max xᵢ in eight interleaved partial maxima (`f32::max` skips NaN).
#[inline(always)]
fn lanes_max_all(xs: &[f32]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; 8];
    let mut chunks = xs.chunks_exact(8);
    for c in &mut chunks {
        for (l, &x) in lanes.iter_mut().zip(c) {
            *l = l.max(x);
        }
    }
    chunks
        .remainder()
        .iter()
        .chain(&lanes)
        .fold(f32::NEG_INFINITY, |m, &x| m.max(x))
}

/// max xᵢ over allowed entries, in eight interleaved partial maxima (−∞ when none).
#[inline(always)]
fn lanes_max(xs: &[f32], allowed: &[bool]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; 8];
    for (c, a) in xs.chunks_exact(8).zip(allowed.chunks_exact(8)) {
        for ((l, &x), &ok) in lanes.iter_mut().zip(c).zip(a) {
            let x = if ok { x } else { f32::NEG_INFINITY };
            *l = if x > *l { x } else { *l };
        }
    }
    let done = xs.len() / 8 * 8;
    let tail = xs[done..]
        .iter()
        .zip(&allowed[done.min(allowed.len())..])
        .filter(|&(_, &ok)| ok)
        .fold(f32::NEG_INFINITY, |m, (&x, _)| m.max(x));
    lanes.iter().fold(tail, |m, &l| m.max(l))
}

/// Σ xᵢ in eight interleaved partial sums (a vector register's worth), added at the end.
#[inline(always)]
fn lanes_sum(xs: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let mut chunks = xs.chunks_exact(8);
    for c in &mut chunks {
        for (l, &x) in lanes.iter_mut().zip(c) {
            *l += x;
        }
    }
    let tail: f32 = chunks.remainder().iter().sum();
    lanes.iter().sum::<f32>() + tail
}

/// GELU, exact form: `z · Φ(z)` with `Φ(z) = ½ erfc(−z/√2)`, from the complement for `z ≥ 0`.
#[inline(always)]
pub fn gelu(z: f32) -> f32 {
    let half_erfc = 0.5 * approx::erfc_nonnegative(z.abs() * std::f32::consts::FRAC_1_SQRT_2);
    let phi = if z < 0.0 { half_erfc } else { 1.0 - half_erfc };
    z * phi
}

/// GELU's tanh approximation: `½z(1 + tanh(√(2/π)(z + 0.044715z³)))` (GPT-2's `gelu_new`),
/// in f64 as transformers computes it in its reference.
#[inline(always)]
pub fn gelu_tanh(z: f32) -> f32 {
    let z = z as f64;
    let inner = (2.0 / std::f64::consts::PI).sqrt() * (z + 0.044_715 * z * z * z);
    (0.5 * z * (1.0 + inner.tanh())) as f32
}

/// SiLU (swish): `z · σ(z) = z / (1 + e^(−z))`.
#[inline(always)]
pub fn silu(z: f32) -> f32 {
    z / (1.0 + approx::exp(-z))
}

/// `out[j] = f(z[j]) · up[j]` (`up` = 1 where absent): one loop, compiled per activation.
#[inline(always)]
fn map_row(z: &[f32], up: Option<&[f32]>, out: &mut [f32], f: impl Fn(f32) -> f32) {
    wide(|| match up {
        Some(up) => {
            for ((o, &z), &u) in out.iter_mut().zip(z).zip(up) {
                *o = f(z) * u;
            }
        }
        None => {
            for (o, &z) in out.iter_mut().zip(z) {
                *o = f(z);
            }
        }
    })
}

/// [`gelu`] of a row, times `up` where given.
pub fn gelu_row(z: &[f32], up: Option<&[f32]>, out: &mut [f32]) {
    map_row(z, up, out, gelu);
}

/// [`gelu_tanh`] of a row, times `up` where given.
pub fn gelu_tanh_row(z: &[f32], up: Option<&[f32]>, out: &mut [f32]) {
    map_row(z, up, out, gelu_tanh);
}

/// [`silu`] of a row, times `up` where given (SwiGLU's gate).
pub fn silu_row(z: &[f32], up: Option<&[f32]>, out: &mut [f32]) {
    map_row(z, up, out, silu);
}

/// `max(z, 0)` of a row, times `up` where given.
pub fn relu_row(z: &[f32], up: Option<&[f32]>, out: &mut [f32]) {
    map_row(z, up, out, |z| z.max(0.0));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softmax_row_matches_the_formula_and_masks() {
        let logits: Vec<f32> = (0..19).map(|i| (i as f32 * 0.7).sin() * 5.0).collect();
        let allowed: Vec<bool> = (0..19).map(|i| i % 3 != 1).collect();
        let mut out = vec![f32::NAN; 19];
        softmax_row(&logits, &allowed, &mut out);
        let z: f64 = (0..19)
            .filter(|&i| allowed[i])
            .map(|i| (logits[i] as f64).exp())
            .sum();
        for i in 0..19 {
            let want = if allowed[i] {
                (logits[i] as f64).exp() / z
            } else {
                0.0
            };
            assert!(
                (out[i] as f64 - want).abs() < 1e-6,
                "{i}: {} vs {want}",
                out[i]
            );
        }
        softmax_row(&logits, &[false; 19], &mut out);
        assert!(out.iter().all(|&p| p == 0.0));
    }

    #[test]
    fn activation_rows_are_the_scalar_functions() {
        let z: Vec<f32> = (0..21).map(|i| i as f32 * 0.5 - 5.0).collect();
        let up: Vec<f32> = (0..21).map(|i| 1.0 + i as f32 * 0.1).collect();
        let mut out = vec![0.0; 21];
        gelu_row(&z, Some(&up), &mut out);
        for j in 0..21 {
            assert_eq!(out[j], gelu(z[j]) * up[j]);
        }
        silu_row(&z, None, &mut out);
        for j in 0..21 {
            assert_eq!(out[j], silu(z[j]));
        }
        relu_row(&z, None, &mut out);
        assert_eq!(out[0], 0.0);
        assert_eq!(out[20], 5.0);
    }

    #[test]
    fn max_row_is_the_largest_entry_on_ragged_rows() {
        for n in [1usize, 7, 8, 9, 17, 1025] {
            let mut xs: Vec<f32> = (0..n).map(|i| ((i * 7919 % 997) as f32).sin()).collect();
            let want = xs.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x));
            assert_eq!(max_row(&xs), want, "n = {n}");
            xs[n - 1] = 9.0;
            assert_eq!(max_row(&xs), 9.0, "n = {n}, the largest last");
            xs.insert(0, f32::NAN);
            assert_eq!(max_row(&xs), 9.0, "n = {n}, NaN skipped");
        }
        assert_eq!(max_row(&[]), f32::NEG_INFINITY);
        assert_eq!(max_row(&[f32::NAN; 3]), f32::NEG_INFINITY);
        assert_eq!(max_row(&[1.0, f32::INFINITY, 2.0]), f32::INFINITY);
    }

    #[test]
    fn log_sum_exp_row_matches_the_f64_formula() {
        let exact = |xs: &[f32]| {
            let m = xs.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x as f64));
            m + xs.iter().map(|&x| (x as f64 - m).exp()).sum::<f64>().ln()
        };
        // A vocabulary-sized row of spread logits, a confident one, short ragged ones.
        for n in [1usize, 7, 9, 1023, 1025, 49_152] {
            let spread: Vec<f32> = (0..n)
                .map(|i| ((i * 7919 % 1000) as f32 - 500.0) / 40.0)
                .collect();
            let mut confident = spread.clone();
            confident[n / 2] = 60.0;
            for xs in [&spread, &confident] {
                let (got, want) = (log_sum_exp_row(xs), exact(xs));
                assert!((got - want).abs() < 2e-6, "n = {n}: {got} vs {want}");
            }
        }
        assert_eq!(log_sum_exp_row(&[]), f64::NEG_INFINITY);
        assert_eq!(log_sum_exp_row(&[f32::NEG_INFINITY; 9]), f64::NEG_INFINITY);
        assert_eq!(log_sum_exp_row(&[0.0, f32::INFINITY]), f64::INFINITY);
        assert!(log_sum_exp_row(&[0.0, f32::NAN, 1.0]).is_nan());
    }
}
