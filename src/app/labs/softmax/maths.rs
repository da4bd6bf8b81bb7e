//! The numbers of the softmax lab, as pure functions: typed scores and matrices read from
//! text, every step of softmax(e) with its entropy and Jacobian, and every step of
//! softmax(QKᵀ/√d_k)·V for small typed Q, K and V. The softmax itself is the model's
//! (`model::softmax`), so what the lab explains is what the model computes.

use crate::model::softmax::{entropy_bits, softmax_with_temperature};
use crate::t;
use ndarray::Array2;

/// Most scores the lab shows in one row (more would not be readable).
pub const MAX_SCORES: usize = 12;
/// Most rows or columns of a typed matrix.
pub const MAX_DIM: usize = 8;
/// Typed numbers beyond this size are refused: they say nothing more than ±1e6 does.
const MAX_ABS: f32 = 1e6;

/// One number as a student may type it: `2`, `-1.5`, `−3` (a typographic minus), `1e-3`.
fn number(word: &str) -> Result<f32, String> {
    let plain = word.replace('−', "-");
    match plain.parse::<f32>() {
        Ok(x) if x.is_finite() && x.abs() <= MAX_ABS => Ok(x),
        Ok(x) if !x.is_finite() => Err(t!("softmax-error-not-finite", word = word)),
        Ok(_) => Err(t!("softmax-error-too-large", word = word)),
        Err(_) => Err(t!("softmax-error-not-number", word = word)),
    }
}

/// A row of numbers separated by commas or spaces, with optional brackets: `[0, 2, 1]`.
pub fn parse_vector(text: &str) -> Result<Vec<f32>, String> {
    let inner = text.trim().trim_start_matches('[').trim_end_matches(']');
    let values = inner
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .map(number)
        .collect::<Result<Vec<f32>, String>>()?;
    match values.len() {
        0 => Err(t!("softmax-error-no-number")),
        n if n > MAX_SCORES => Err(t!("softmax-error-too-many", count = n, max = MAX_SCORES)),
        _ => Ok(values),
    }
}

/// A matrix typed row by row: rows separated by `;` or new lines, numbers by commas or
/// spaces. Every row must have the same length.
pub fn parse_matrix(text: &str) -> Result<Array2<f32>, String> {
    let rows: Vec<Vec<f32>> = text
        .split([';', '\n'])
        .filter(|r| !r.trim().is_empty())
        .map(parse_vector)
        .collect::<Result<_, _>>()?;
    let Some(width) = rows.first().map(Vec::len) else {
        return Err(t!("softmax-error-no-row"));
    };
    if rows.len() > MAX_DIM || width > MAX_DIM {
        return Err(t!(
            "softmax-error-too-big",
            rows = rows.len(),
            cols = width,
            max = MAX_DIM
        ));
    }
    if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != width) {
        return Err(t!(
            "softmax-error-ragged",
            row = i + 1,
            count = r.len(),
            width = width
        ));
    }
    let n = rows.len();
    Array2::from_shape_vec((n, width), rows.concat()).map_err(|e| e.to_string())
}

/// Every step of α = softmax(e).
#[derive(Debug, Clone)]
pub struct SoftmaxSteps {
    pub scores: Vec<f32>,
    /// eᵢ − max e: the shift that keeps every exponential ≤ 1 (it cancels in the ratio).
    pub shifted: Vec<f32>,
    /// exp(eᵢ − max e).
    pub exps: Vec<f64>,
    /// Σⱼ exp(eⱼ − max e).
    pub sum: f64,
    /// αᵢ = exp(eᵢ − max e) / Σⱼ exp(eⱼ − max e).
    pub weights: Vec<f32>,
    /// H(α) = −Σ αᵢ log₂ αᵢ, in bits.
    pub entropy_bits: f32,
    /// log₂ n: the entropy of the uniform distribution over n scores.
    pub max_entropy_bits: f32,
    /// ∂αᵢ/∂eⱼ = αᵢ(δᵢⱼ − αⱼ).
    pub jacobian: Array2<f32>,
}

impl SoftmaxSteps {
    /// The largest |∂αᵢ/∂eⱼ|: how strongly any score can still move any weight.
    pub fn largest_gradient(&self) -> f32 {
        self.jacobian.iter().fold(0.0f32, |m, &x| m.max(x.abs()))
    }
}

/// softmax(e) step by step.
pub fn softmax_steps(scores: &[f32]) -> SoftmaxSteps {
    let max = scores.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x));
    let shifted: Vec<f32> = scores.iter().map(|&x| x - max).collect();
    let exps: Vec<f64> = shifted.iter().map(|&x| (x as f64).exp()).collect();
    let sum = exps.iter().sum();
    let weights = softmax_with_temperature(scores, 1.0);
    SoftmaxSteps {
        scores: scores.to_vec(),
        shifted,
        exps,
        sum,
        entropy_bits: entropy_bits(&weights),
        max_entropy_bits: (scores.len() as f32).log2(),
        jacobian: jacobian(&weights),
        weights,
    }
}

/// The softmax Jacobian J with Jᵢⱼ = ∂αᵢ/∂eⱼ = αᵢ(δᵢⱼ − αⱼ).
pub fn jacobian(alpha: &[f32]) -> Array2<f32> {
    let n = alpha.len();
    Array2::from_shape_fn((n, n), |(i, j)| {
        let delta = if i == j { 1.0 } else { 0.0 };
        alpha[i] * (delta - alpha[j])
    })
}

/// The largest Jacobian entry of softmax(s·e) for each scale s: it falls towards 0 as the
/// scores grow apart, which is why saturated attention stops learning.
pub fn gradient_curve(scores: &[f32], scales: impl Iterator<Item = f32>) -> Vec<[f64; 2]> {
    scales
        .map(|s| {
            let scaled: Vec<f32> = scores.iter().map(|&x| x * s).collect();
            let g = softmax_steps(&scaled).largest_gradient();
            [s as f64, g as f64]
        })
        .collect()
}

/// Every step of softmax(QKᵀ/√d_k)·V.
#[derive(Debug, Clone)]
pub struct AttentionSteps {
    /// S = QKᵀ (queries × keys).
    pub scores: Array2<f32>,
    /// √d_k, the scale.
    pub sqrt_dk: f32,
    /// E = S/√d_k.
    pub scaled: Array2<f32>,
    /// A = softmax of each row of E: row i is what query i gathers.
    pub weights: Array2<f32>,
    /// C = AV: each query's context vector.
    pub context: Array2<f32>,
}

impl AttentionSteps {
    /// Σᵢ Aᵢⱼ: how much attention key j receives from all queries (a column of A, a row of
    /// Aᵀ). Unlike rows, columns need not sum to 1.
    pub fn received(&self) -> Vec<f32> {
        self.weights
            .columns()
            .into_iter()
            .map(|c| c.sum())
            .collect()
    }
}

/// softmax(QKᵀ/√d_k)·V, or why the shapes do not fit.
pub fn attention_steps(
    q: &Array2<f32>,
    k: &Array2<f32>,
    v: &Array2<f32>,
) -> Result<AttentionSteps, String> {
    if q.ncols() != k.ncols() {
        return Err(t!(
            "softmax-error-widths",
            query = q.ncols(),
            key = k.ncols()
        ));
    }
    if k.nrows() != v.nrows() {
        return Err(t!(
            "softmax-error-values",
            keys = k.nrows(),
            values = v.nrows()
        ));
    }
    let scores = q.dot(&k.t());
    let sqrt_dk = (q.ncols() as f32).sqrt();
    let scaled = scores.mapv(|x| x / sqrt_dk);
    let mut weights = Array2::zeros(scaled.raw_dim());
    for (row, mut out) in scaled.rows().into_iter().zip(weights.rows_mut()) {
        let a = softmax_with_temperature(&row.to_vec(), 1.0);
        out.assign(&ndarray::ArrayView1::from(a.as_slice()));
    }
    let context = weights.dot(v);
    Ok(AttentionSteps {
        scores,
        sqrt_dk,
        scaled,
        weights,
        context,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn rounded(x: &[f32], places: i32) -> Vec<f32> {
        let p = 10f32.powi(places);
        x.iter().map(|v| (v * p).round() / p).collect()
    }

    #[test]
    fn the_notes_worked_example_0_2_1() {
        // The notes: softmax([0, 2, 1]) ≈ 0.09 / 0.67 / 0.24.
        let s = softmax_steps(&parse_vector("0, 2, 1").unwrap());
        assert_eq!(rounded(&s.weights, 2), vec![0.09, 0.67, 0.24]);
        // Closed form: e^k / (1 + e + e²).
        let z = 1.0 + 1f64.exp() + 2f64.exp();
        for (a, k) in s.weights.iter().zip([0.0f64, 2.0, 1.0]) {
            assert!((*a as f64 - k.exp() / z).abs() < 1e-7);
        }
        assert_eq!(s.shifted, vec![-2.0, 0.0, -1.0]);
        assert!((s.sum - z / 2f64.exp()).abs() < 1e-12);
    }

    #[test]
    fn the_notes_saturation_example() {
        // softmax([2, 1]) ≈ [0.73, 0.27]; softmax([20, 10]) ≈ [0.99995, 0.00005].
        let soft = softmax_steps(&[2.0, 1.0]);
        assert_eq!(rounded(&soft.weights, 2), vec![0.73, 0.27]);
        let hard = softmax_steps(&[20.0, 10.0]);
        assert_eq!(rounded(&hard.weights, 5), vec![0.99995, 0.00005]);
        // The gradient vanishes: α₁α₂ = 0.197 against 4.5e-5.
        assert!((soft.largest_gradient() - 0.19661193).abs() < 1e-6);
        assert!(hard.largest_gradient() < 5e-5);
        assert!(hard.entropy_bits < soft.entropy_bits);
    }

    #[test]
    fn the_jacobian_matches_finite_differences() {
        let e = [0.3f32, -1.2, 2.0, 0.5];
        let j = softmax_steps(&e).jacobian;
        let h = 1e-3f64;
        for jj in 0..e.len() {
            let shifted = |d: f64| -> Vec<f64> {
                let x: Vec<f64> = e
                    .iter()
                    .enumerate()
                    .map(|(k, &v)| v as f64 + if k == jj { d } else { 0.0 })
                    .collect();
                let z: f64 = x.iter().map(|v| v.exp()).sum();
                x.iter().map(|v| v.exp() / z).collect()
            };
            let (up, down) = (shifted(h), shifted(-h));
            for i in 0..e.len() {
                let numeric = (up[i] - down[i]) / (2.0 * h);
                assert!(
                    (j[[i, jj]] as f64 - numeric).abs() < 1e-5,
                    "J[{i},{jj}] = {} but finite differences give {numeric}",
                    j[[i, jj]]
                );
            }
        }
        // Each column sums to 0: nudging one score leaves the weights' total at 1. J is
        // symmetric, so each row sums to 0 as well.
        for col in j.columns() {
            assert!(col.sum().abs() < 1e-6);
        }
        for i in 0..e.len() {
            for jj in 0..e.len() {
                assert!((j[[i, jj]] - j[[jj, i]]).abs() < 1e-7);
            }
        }
        for row in j.rows() {
            assert!(row.sum().abs() < 1e-6);
        }
    }

    #[test]
    fn the_gradient_falls_as_the_scores_grow() {
        let curve = gradient_curve(&[2.0, 1.0], [1.0f32, 2.0, 5.0, 10.0].into_iter());
        assert!(curve.windows(2).all(|w| w[1][1] < w[0][1]), "{curve:?}");
    }

    #[test]
    fn entropy_runs_from_zero_to_log_n() {
        let uniform = softmax_steps(&[1.0, 1.0, 1.0, 1.0]);
        assert!((uniform.entropy_bits - 2.0).abs() < 1e-6);
        assert_eq!(uniform.max_entropy_bits, 2.0);
        let peaked = softmax_steps(&[1000.0, 0.0, 0.0]);
        assert_eq!(peaked.entropy_bits, 0.0);
    }

    #[test]
    fn typed_text_is_read_or_refused_with_a_reason() {
        assert_eq!(parse_vector("[0, 2, 1]").unwrap(), vec![0.0, 2.0, 1.0]);
        assert_eq!(parse_vector("−1 2.5  3e1").unwrap(), vec![-1.0, 2.5, 30.0]);
        assert!(parse_vector("").unwrap_err().contains("at least one"));
        assert!(parse_vector("1, two").unwrap_err().contains("`two`"));
        assert!(parse_vector("1e30").unwrap_err().contains("too large"));
        assert!(parse_vector("NaN")
            .unwrap_err()
            .contains("not a finite number"));
        assert!(parse_vector("inf")
            .unwrap_err()
            .contains("not a finite number"));
        assert!(parse_vector(&"1,".repeat(13))
            .unwrap_err()
            .contains("13 numbers"));
        let m = parse_matrix("1, 0; 0, 1\n1 1").unwrap();
        assert_eq!(m, array![[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]);
        assert!(parse_matrix("1, 2; 3").unwrap_err().contains("row 2"));
        assert!(parse_matrix(" ; ")
            .unwrap_err()
            .contains("at least one row"));
        assert!(parse_matrix(&"1;".repeat(9))
            .unwrap_err()
            .contains("at most"));
    }

    #[test]
    fn attention_by_hand_reproduces_the_worked_example() {
        // q₁ = [1, 1, 1, 1] against k = 0, [1, 1, 1, 1], [1, 1, 0, 0] scores [0, 4, 2]; over
        // √4 = 2 they are the notes' [0, 2, 1], so query 1 gathers 0.09 / 0.67 / 0.24.
        let q = parse_matrix("1 1 1 1; 0 0 1 1; 1 0 0 0").unwrap();
        let k = parse_matrix("0 0 0 0; 1 1 1 1; 1 1 0 0").unwrap();
        let v = parse_matrix("1 0; 0 1; 1 1").unwrap();
        let a = attention_steps(&q, &k, &v).unwrap();
        assert_eq!(a.sqrt_dk, 2.0);
        assert_eq!(a.scores.row(0).to_vec(), vec![0.0, 4.0, 2.0]);
        assert_eq!(a.scaled.row(0).to_vec(), vec![0.0, 2.0, 1.0]);
        assert_eq!(
            rounded(&a.weights.row(0).to_vec(), 2),
            vec![0.09, 0.67, 0.24]
        );
        // c₁ = 0.09·v₁ + 0.67·v₂ + 0.24·v₃, computed independently.
        let w = a.weights.row(0);
        let c = [w[0] + w[2], w[1] + w[2]];
        assert!((a.context[[0, 0]] - c[0]).abs() < 1e-6);
        assert!((a.context[[0, 1]] - c[1]).abs() < 1e-6);
        for row in a.weights.rows() {
            assert!((row.sum() - 1.0).abs() < 1e-6);
        }
        let received: f32 = a.received().iter().sum();
        assert!(
            (received - 3.0).abs() < 1e-5,
            "three queries hand out 3 in all"
        );
    }

    #[test]
    fn mismatched_shapes_are_named() {
        let q = parse_matrix("1 0").unwrap();
        let k = parse_matrix("1 0 0").unwrap();
        let v = parse_matrix("1").unwrap();
        assert!(attention_steps(&q, &k, &v)
            .unwrap_err()
            .contains("same length"));
        let k2 = parse_matrix("1 0; 0 1").unwrap();
        assert!(attention_steps(&q, &k2, &v)
            .unwrap_err()
            .contains("2 keys but 1 values"));
    }
}
