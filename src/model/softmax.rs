//! The softmax and what is measured of it: the one place in Glimpse that turns scores into
//! probabilities. The model, the decoders, the loss, the labs and the walkthrough all call
//! these functions, so the number a lab explains is the number the model computed.
//!
//! softmax(x)ᵢ = exp(xᵢ − m) / Σⱼ exp(xⱼ − m), with m = maxⱼ xⱼ subtracted first so no
//! exponential overflows (the result is the same for any m).

use ndarray::{Array1, Array2, ArrayView1, ArrayView2, ArrayViewMut2, Axis};

/// softmax over the entries `allowed(j)` lets through, written into `out`. Entries not allowed
/// get exactly 0; when none is allowed the row is all 0 (a query that sees no key receives
/// nothing), never NaN.
pub fn softmax_where(logits: ArrayView1<f32>, allowed: impl Fn(usize) -> bool, out: &mut [f32]) {
    let logits: Vec<f32> = logits.iter().copied().collect();
    let allowed: Vec<bool> = (0..logits.len()).map(allowed).collect();
    softmax_row(&logits, &allowed, out);
}

/// The one softmax row, `exp(xⱼ − m) / Σ exp(xₖ − m)` over allowed entries and 0 elsewhere:
/// `glimpse-kernels`' straight loops over slices (the exponential in `approx::exp`, the sum
/// in eight lanes), which become SIMD code: attention's softmax is T² of these per head.
use glimpse_kernels::rows::softmax_row;

/// softmax of a whole vector.
pub fn softmax(logits: &[f32]) -> Vec<f32> {
    let mut out = vec![0.0; logits.len()];
    softmax_where(ArrayView1::from(logits), |_| true, &mut out);
    out
}

/// Row-wise softmax over allowed entries only (`allowed[i][j]`): the attention weights
/// A = softmax(L) with the mask applied. Disallowed entries are exactly 0; a row with no
/// allowed entry is all 0.
pub fn masked_softmax(logits: ArrayView2<f32>, allowed: ArrayView2<bool>) -> Array2<f32> {
    let mut out = Array2::zeros(logits.raw_dim());
    masked_softmax_into(logits, allowed, out.view_mut());
    out
}

/// [`masked_softmax`] written into `out` (the same shape as `logits`).
pub fn masked_softmax_into(
    logits: ArrayView2<f32>,
    allowed: ArrayView2<bool>,
    mut out: ArrayViewMut2<f32>,
) {
    for ((l, a), mut o) in logits
        .rows()
        .into_iter()
        .zip(allowed.rows())
        .zip(out.rows_mut())
    {
        match (o.as_slice_mut(), l.as_slice(), a.as_slice()) {
            (Some(o), Some(l), Some(a)) => softmax_row(l, a, o),
            (Some(o), _, _) => softmax_where(l, |j| a[j], o),
            _ => {}
        }
    }
}

/// Backward of a row-wise softmax: given A = softmax(L) and ∂ℓ/∂A, returns, row by row,
/// ∂ℓ/∂L = A ⊙ (∂ℓ/∂A − Σⱼ Aⱼ ∂ℓ/∂Aⱼ). Masked cells have A = 0 and receive nothing.
/// (The Jacobian of one row is ∂Aᵢ/∂Lⱼ = Aᵢ(δᵢⱼ − Aⱼ).)
pub fn softmax_backward(a: ArrayView2<f32>, d_a: ArrayView2<f32>) -> Array2<f32> {
    let row_dot = (&d_a * &a).sum_axis(Axis(1));
    &a * &(&d_a - &row_dot.insert_axis(Axis(1)))
}

/// log Σⱼ exp(xⱼ), in f64 so the log-probabilities of a confident model are not rounded away.
/// −∞ when every entry is −∞ (or there are none).
pub fn log_sum_exp(logits: impl IntoIterator<Item = f64> + Clone) -> f64 {
    let max = logits.clone().into_iter().fold(f64::NEG_INFINITY, f64::max);
    if !max.is_finite() {
        return max;
    }
    max + logits
        .into_iter()
        .map(|x| (x - max).exp())
        .sum::<f64>()
        .ln()
}

/// `log softmax(logits / τ)`, computed stably in f64 (τ below 1e-6 is taken as 1e-6).
pub fn log_softmax(logits: &[f32], temperature: f32) -> Vec<f32> {
    let t = temperature.max(1e-6) as f64;
    let scaled = logits.iter().map(|&x| x as f64 / t);
    let log_z = log_sum_exp(scaled.clone());
    if !log_z.is_finite() {
        return vec![f32::NEG_INFINITY; logits.len()];
    }
    scaled.map(|x| (x - log_z) as f32).collect()
}

/// softmax(scores / τ) as a lab shows it to a student who may type anything, in f64.
///
/// As τ → 0 it becomes exactly one-hot at the argmax (shared equally between tied maxima):
/// τ ≤ 0 is treated as that limit. +∞ scores share everything between them. NaN anywhere, or
/// no score above −∞, gives NaN weights: there is no distribution to show.
pub fn softmax_with_temperature(scores: &[f32], temperature: f32) -> Vec<f32> {
    let n = scores.len();
    if n == 0 {
        return Vec::new();
    }
    let max = scores.iter().fold(f32::NEG_INFINITY, |m, &s| m.max(s));
    if temperature.is_nan() || scores.iter().any(|s| s.is_nan()) || max == f32::NEG_INFINITY {
        return vec![f32::NAN; n];
    }
    if max == f32::INFINITY {
        let k = scores.iter().filter(|&&s| s == f32::INFINITY).count() as f32;
        return scores
            .iter()
            .map(|&s| if s == f32::INFINITY { 1.0 / k } else { 0.0 })
            .collect();
    }
    // Clamped so the division never makes 0/0 (τ = 0) or x/∞ of an infinite difference.
    let tau = (temperature as f64).clamp(f64::MIN_POSITIVE, f64::MAX);
    let e: Vec<f64> = scores
        .iter()
        .map(|&s| ((s as f64 - max as f64) / tau).exp())
        .collect();
    // At least 1: the largest score contributes exp(0).
    let sum: f64 = e.iter().sum();
    e.iter().map(|x| (x / sum) as f32).collect()
}

/// Shannon entropy H(p) = −Σ pᵢ log₂ pᵢ in bits, with 0·log 0 = 0: 0 for one-hot, log₂ n for
/// uniform over n. NaN in, NaN out.
pub fn entropy_bits(p: &[f32]) -> f32 {
    if p.iter().any(|x| x.is_nan()) {
        return f32::NAN;
    }
    let sum: f64 = p
        .iter()
        .filter(|&&x| x > 0.0)
        .map(|&x| {
            let x = x as f64;
            x * x.log2()
        })
        .sum();
    // 0.0 − sum, not −sum, so a one-hot distribution prints as 0.000 rather than −0.000.
    (0.0 - sum) as f32
}

/// Entropy in bits of each row of an attention matrix.
pub fn row_entropy_bits(weights: ArrayView2<f32>) -> Array1<f32> {
    weights.map_axis(Axis(1), |row| match row.as_slice() {
        Some(p) => entropy_bits(p),
        None => entropy_bits(&row.to_vec()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn softmax_of_two_and_one() {
        let a = softmax(&[2.0, 1.0]);
        let e = 1f32.exp();
        assert!((a[0] - e / (e + 1.0)).abs() < 1e-7);
    }

    #[test]
    fn the_course_notes_example() {
        // [0, 2, 1] → 0.09 / 0.67 / 0.24.
        let a = softmax(&[0.0, 2.0, 1.0]);
        let z = 1.0 + 2f32.exp() + 1f32.exp();
        assert!((a[0] - 1.0 / z).abs() < 1e-7 && (a[1] - 2f32.exp() / z).abs() < 1e-7);
        assert_eq!(
            format!("{:.2} {:.2} {:.2}", a[0], a[1], a[2]),
            "0.09 0.67 0.24"
        );
    }

    #[test]
    fn masked_entries_are_exactly_zero_and_empty_rows_are_zero() {
        let logits = array![[1.0f32, 50.0, 3.0], [0.0, 0.0, 0.0]];
        let allowed = array![[true, false, true], [false, false, false]];
        let a = masked_softmax(logits.view(), allowed.view());
        assert_eq!(a[[0, 1]], 0.0);
        assert!((a.row(0).sum() - 1.0).abs() < 1e-6);
        assert_eq!(a.row(1).to_vec(), vec![0.0, 0.0, 0.0]);
        assert!(a.iter().all(|x| x.is_finite()));
    }

    #[test]
    fn softmax_survives_huge_logits() {
        let a = softmax(&[1e30, -1e30, 0.0]);
        assert_eq!(a, vec![1.0, 0.0, 0.0]);
    }

    #[test]
    fn backward_matches_finite_differences() {
        let l = [0.3f32, -1.2, 2.0, 0.5];
        let d_a = array![0.7f32, -0.4, 0.1, 1.3]; // ℓ = Σ d_aᵢ Aᵢ
        let loss = |l: &[f32]| -> f64 {
            softmax(l)
                .iter()
                .zip(&d_a)
                .map(|(a, g)| (*a as f64) * (*g as f64))
                .sum()
        };
        let a = Array1::from(softmax(&l)).insert_axis(Axis(0));
        let grad = softmax_backward(a.view(), d_a.view().insert_axis(Axis(0)));
        let grad = grad.row(0);
        for j in 0..l.len() {
            let (mut up, mut down) = (l, l);
            up[j] += 1e-3;
            down[j] -= 1e-3;
            let numeric = (loss(&up) - loss(&down)) / 2e-3;
            assert!(
                (grad[j] as f64 - numeric).abs() < 1e-3,
                "{j}: {grad} vs {numeric}"
            );
        }
    }

    #[test]
    fn log_softmax_normalises_and_sharpens_with_temperature() {
        let lp = log_softmax(&[2.0, 1.0, 0.0], 1.0);
        let total: f64 = lp.iter().map(|&x| (x as f64).exp()).sum();
        assert!((total - 1.0).abs() < 1e-6);
        let cold = log_softmax(&[2.0, 1.0, 0.0], 0.1);
        assert!(cold[0] > lp[0] && cold[0] > -1e-4);
        assert_eq!(
            log_softmax(&[f32::NEG_INFINITY; 2], 1.0),
            vec![f32::NEG_INFINITY; 2]
        );
    }

    #[test]
    fn log_sum_exp_is_stable() {
        assert!((log_sum_exp([1000.0, 1000.0]) - (1000.0 + 2f64.ln())).abs() < 1e-9);
        assert_eq!(log_sum_exp(std::iter::empty::<f64>()), f64::NEG_INFINITY);
    }

    #[test]
    fn softmax_sums_to_one() {
        for tau in [0.05, 0.5, 1.0, 3.0, 20.0] {
            let p = softmax_with_temperature(&[0.3, 2.0, -1.0, 1.5, 0.0], tau);
            let sum: f32 = p.iter().sum();
            assert!((sum - 1.0).abs() < 1e-6, "τ {tau}: sum {sum}");
        }
    }

    #[test]
    fn softmax_at_tiny_temperature_is_one_hot_at_the_argmax() {
        let s = [0.3, 2.0, -1.0, 1.5];
        assert_eq!(
            softmax_with_temperature(&s, 0.001),
            vec![0.0, 1.0, 0.0, 0.0]
        );
        for tau in [1e-30, 0.0, -1.0] {
            assert_eq!(
                softmax_with_temperature(&s, tau),
                vec![0.0, 1.0, 0.0, 0.0],
                "τ {tau}"
            );
        }
        // Tied maxima share the weight.
        assert_eq!(
            softmax_with_temperature(&[1.0, 3.0, 3.0], 1e-6),
            vec![0.0, 0.5, 0.5]
        );
    }

    #[test]
    fn softmax_at_huge_temperature_is_uniform() {
        let s = [0.3, 2.0, -1.0, 1.5, 0.0];
        let p = softmax_with_temperature(&s, 1000.0);
        let h = entropy_bits(&p);
        assert!((h - 5f32.log2()).abs() < 1e-3, "entropy {h}");
    }

    #[test]
    fn softmax_of_odd_input_never_panics() {
        assert!(softmax_with_temperature(&[], 1.0).is_empty());
        assert_eq!(softmax_with_temperature(&[4.0], 0.05), vec![1.0]);
        assert!(softmax_with_temperature(&[1.0, f32::NAN], 1.0)
            .iter()
            .all(|p| p.is_nan()));
        assert_eq!(
            softmax_with_temperature(&[1.0, f32::NEG_INFINITY, 1.0], 1.0),
            vec![0.5, 0.0, 0.5]
        );
        assert_eq!(
            softmax_with_temperature(&[f32::INFINITY, 1.0], 1.0),
            vec![1.0, 0.0]
        );
        // Scores far apart: no overflow at a small τ.
        assert_eq!(
            softmax_with_temperature(&[-3e38, 3e38], 0.05),
            vec![0.0, 1.0]
        );
    }

    #[test]
    fn entropy_of_uniform_and_one_hot() {
        assert!((entropy_bits(&[0.125; 8]) - 3.0).abs() < 1e-6);
        assert_eq!(entropy_bits(&[0.0, 1.0, 0.0]), 0.0);
        assert!(entropy_bits(&[0.0, 1.0, 0.0]).is_sign_positive());
        assert!(entropy_bits(&[0.5, f32::NAN]).is_nan());
    }

    #[test]
    fn entropy_in_bits() {
        let e = row_entropy_bits(array![[1.0f32, 0.0, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25]].view());
        assert_eq!(e[0], 0.0);
        assert!((e[1] - 2.0).abs() < 1e-6);
        assert!((entropy_bits(&[0.125; 8]) - 3.0).abs() < 1e-6);
        assert!(entropy_bits(&[f32::NAN]).is_nan());
    }
}
