//! Scores computed from attention weights alone: what a head does, as a number.

use ndarray::ArrayView2;

/// Mean attention from each query `i ≥ 1` to the key right before it (`i − 1`).
pub fn previous_token_score(weights: ArrayView2<f32>) -> f32 {
    let t = weights.nrows().min(weights.ncols());
    if t < 2 {
        return 0.0;
    }
    (1..t).map(|i| weights[[i, i - 1]]).sum::<f32>() / (t - 1) as f32
}

/// Induction score of a sequence that repeats with period `period` from position `start`:
/// for every query `i` in the repeat (`i ≥ start + period`), the attention it pays to the key
/// right after the earlier occurrence of its own token, `i − period + 1`. An induction head
/// ("after A came B last time, so look at B") scores near 1.
pub fn induction_score(weights: ArrayView2<f32>, start: usize, period: usize) -> f32 {
    let t = weights.nrows().min(weights.ncols());
    let queries: Vec<usize> = (start + period..t).collect();
    if queries.is_empty() || period == 0 {
        return 0.0;
    }
    queries
        .iter()
        .map(|&i| weights[[i, i + 1 - period]])
        .sum::<f32>()
        / queries.len() as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    #[test]
    fn constructed_heads_get_their_scores() {
        // <bos> a b c a b c: period 3 from position 1.
        let t = 7;
        let prev = Array2::from_shape_fn((t, t), |(i, j)| {
            if i == 0 {
                (j == 0) as u8 as f32
            } else {
                (j + 1 == i) as u8 as f32
            }
        });
        assert_eq!(previous_token_score(prev.view()), 1.0);
        assert!(induction_score(prev.view(), 1, 3) < 0.01);
        let induction = Array2::from_shape_fn((t, t), |(i, j)| {
            if i >= 4 {
                (j == i - 2) as u8 as f32
            } else {
                (j == 0) as u8 as f32
            }
        });
        assert_eq!(induction_score(induction.view(), 1, 3), 1.0);
        let uniform = Array2::from_elem((t, t), 1.0 / t as f32);
        assert!((induction_score(uniform.view(), 1, 3) - 1.0 / t as f32).abs() < 1e-6);
    }
}
