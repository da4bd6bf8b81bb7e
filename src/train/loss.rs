//! Cross-entropy with optional label smoothing, and its gradient with respect to the logits.

use crate::model::softmax::log_sum_exp;
use ndarray::{Array2, ArrayView2, Axis};

/// Sum of token losses over positions with `mask` 1, the number of such positions, and
/// `d(sum)/d(logits)`. Target distribution: `(1−ε)·onehot(y) + ε/V`.
pub fn cross_entropy(
    logits: ArrayView2<f32>,
    labels: &[u32],
    mask: &[bool],
    smoothing: f32,
) -> (f32, usize, Array2<f32>) {
    let vocab = logits.ncols();
    let mut grad = Array2::zeros(logits.raw_dim());
    let mut total = 0.0f64;
    let mut count = 0;
    for (t, (row, mut g)) in logits
        .axis_iter(Axis(0))
        .zip(grad.axis_iter_mut(Axis(0)))
        .enumerate()
    {
        if !mask.get(t).copied().unwrap_or(false) {
            continue;
        }
        let Some(&label) = labels.get(t) else {
            continue;
        };
        let log_sum = log_sum_exp(row.iter().map(|&x| x as f64));
        let uniform = smoothing as f64 / vocab as f64;
        let mut loss = 0.0f64;
        for (v, (&x, g)) in row.iter().zip(g.iter_mut()).enumerate() {
            let log_p = x as f64 - log_sum;
            let target = uniform
                + if v == label as usize {
                    1.0 - smoothing as f64
                } else {
                    0.0
                };
            loss -= target * log_p;
            *g = (log_p.exp() - target) as f32;
        }
        total += loss;
        count += 1;
    }
    (total as f32, count, grad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn uniform_logits_cost_log_vocab() {
        let (l, n, g) = cross_entropy(array![[0.0f32, 0.0, 0.0, 0.0]].view(), &[2], &[true], 0.0);
        assert_eq!(n, 1);
        assert!((l - 4f32.ln()).abs() < 1e-6);
        assert_eq!(g.row(0).to_vec(), vec![0.25, 0.25, -0.75, 0.25]);
    }

    #[test]
    fn masked_positions_cost_nothing() {
        let (l, n, g) = cross_entropy(
            array![[5.0f32, 0.0], [0.0, 5.0]].view(),
            &[1, 1],
            &[false, true],
            0.0,
        );
        assert_eq!(n, 1);
        assert!(l < 0.01);
        assert_eq!(g.row(0).to_vec(), vec![0.0, 0.0]);
    }

    #[test]
    fn gradient_matches_finite_differences_with_smoothing() {
        let logits = array![[0.3f32, -1.0, 2.0], [1.0, 0.5, -0.5]];
        let (_, _, g) = cross_entropy(logits.view(), &[0, 2], &[true, true], 0.1);
        let eps = 1e-3;
        for r in 0..2 {
            for c in 0..3 {
                let mut hi = logits.clone();
                hi[[r, c]] += eps;
                let mut lo = logits.clone();
                lo[[r, c]] -= eps;
                let f = |x: &Array2<f32>| cross_entropy(x.view(), &[0, 2], &[true, true], 0.1).0;
                let fd = (f(&hi) - f(&lo)) / (2.0 * eps);
                assert!(
                    (fd - g[[r, c]]).abs() < 1e-3,
                    "{r},{c}: {fd} vs {}",
                    g[[r, c]]
                );
            }
        }
    }
}
