//! The contrastive lab's maths: a sentence embedding by mean pooling, cosine similarity, and
//! InfoNCE, the loss that classifies each anchor's positive among the batch's candidates:
//! L_i = −log( exp(s_ii/τ) / Σ_j exp(s_ij/τ) ).

use crate::model::trace::Trace;
use ndarray::{Array2, ArrayView2};

/// The sentence's vector: the mean of the last hidden state over every position
/// (sentence-transformers' mean pooling; MiniLM was trained with it), scaled to length 1.
pub fn sentence_embedding(trace: &Trace) -> Option<Vec<f32>> {
    let stack = trace.encoder.as_ref().or(trace.decoder.as_ref())?;
    let mean = stack.output.mean_axis(ndarray::Axis(0))?;
    Some(unit(mean.to_vec()))
}

/// `v` / |v| (a zero vector stays zero).
pub fn unit(v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    if norm == 0.0 {
        return v;
    }
    v.into_iter().map(|x| (x as f64 / norm) as f32).collect()
}

/// s_ij = cos(zᵢ, zⱼ) = zᵢ·zⱼ for unit vectors: anchors down, candidates across.
pub fn similarities(anchors: &[Vec<f32>], candidates: &[Vec<f32>]) -> Array2<f32> {
    Array2::from_shape_fn((anchors.len(), candidates.len()), |(i, j)| {
        let dot: f64 = anchors[i]
            .iter()
            .zip(&candidates[j])
            .map(|(a, b)| *a as f64 * *b as f64)
            .sum();
        dot as f32
    })
}

/// InfoNCE over a similarity matrix whose anchor i's positive is candidate i (the other
/// candidates are its negatives: the batch's other positives and any hard negatives).
pub struct InfoNce {
    /// p_ij = softmax_j(s_ij / τ): how the "classifier" spreads each anchor over the candidates.
    pub probabilities: Array2<f64>,
    /// L_i = −log p_ii.
    pub losses: Vec<f64>,
    pub mean_loss: f64,
    /// Anchors whose positive has the largest similarity.
    pub right: usize,
}

pub fn info_nce(sim: ArrayView2<'_, f32>, tau: f64) -> InfoNce {
    let (n, m) = sim.dim();
    let mut probabilities = Array2::zeros((n, m));
    let mut losses = Vec::with_capacity(n);
    let mut right = 0;
    for i in 0..n {
        let logits: Vec<f64> = sim.row(i).iter().map(|&s| s as f64 / tau).collect();
        // Subtract the largest logit first: it cancels, and no exponential overflows.
        let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let exps: Vec<f64> = logits.iter().map(|l| (l - max).exp()).collect();
        let sum: f64 = exps.iter().sum();
        for (j, e) in exps.iter().enumerate() {
            probabilities[[i, j]] = e / sum;
        }
        // −log p_ii = log Σ_j exp(l_j) − l_i, computed without leaving the log domain.
        losses.push(max + sum.ln() - logits[i]);
        let best = (0..m).max_by(|&a, &b| logits[a].total_cmp(&logits[b]));
        right += (best == Some(i)) as usize;
    }
    let mean_loss = losses.iter().sum::<f64>() / n.max(1) as f64;
    InfoNce {
        probabilities,
        losses,
        mean_loss,
        right,
    }
}

/// Reads "anchor | positive" lines; blank lines are skipped. Errors name the line.
pub fn parse_pairs(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let Some((a, p)) = line.split_once('|') else {
            return Err(crate::t!("contrastive-error-no-bar", line = i + 1));
        };
        let (a, p) = (a.trim(), p.trim());
        if a.is_empty() || p.is_empty() {
            return Err(crate::t!("contrastive-error-empty-side", line = i + 1));
        }
        pairs.push((
            a.chars().take(MAX_CHARS).collect(),
            p.chars().take(MAX_CHARS).collect(),
        ));
    }
    if pairs.len() < 2 {
        return Err(crate::t!("contrastive-error-too-few"));
    }
    if pairs.len() > MAX_PAIRS {
        return Err(crate::t!(
            "contrastive-error-too-many",
            count = pairs.len(),
            max = MAX_PAIRS
        ));
    }
    Ok(pairs)
}

/// A batch small enough to print every similarity.
pub const MAX_PAIRS: usize = 8;
/// Longest sentence kept (characters): each is one forward pass.
pub const MAX_CHARS: usize = 300;

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn info_nce_by_hand() {
        // The notes' shape: one anchor, its positive and two negatives, τ = 0.5.
        let sim = array![[0.9f32, 0.2, 0.1]];
        let got = info_nce(sim.view(), 0.5);
        let e = |s: f64| (s / 0.5).exp();
        let want = -(e(0.9) / (e(0.9) + e(0.2) + e(0.1))).ln();
        // 1e-6: the similarities are f32 (0.9f32 is 0.89999998), the loss f64.
        assert!((got.losses[0] - want).abs() < 1e-6);
        assert_eq!(got.right, 1);
        assert!((got.probabilities.row(0).sum() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn equal_similarities_give_log_n_and_a_hard_negative_raises_the_loss() {
        let flat = Array2::<f32>::from_elem((3, 3), 0.4);
        let got = info_nce(flat.view(), 0.1);
        assert!((got.mean_loss - 3f64.ln()).abs() < 1e-12);
        let sim = array![[0.8f32, 0.1], [0.2, 0.7]];
        let before = info_nce(sim.view(), 0.1);
        // A hard negative as close to anchor 0 as its positive: anchor 0's loss rises, by
        // log 2 exactly if the rest is negligible (and a little less here).
        let harder = array![[0.8f32, 0.1, 0.8], [0.2, 0.7, 0.3]];
        let after = info_nce(harder.view(), 0.1);
        assert!(after.losses[0] > before.losses[0] + 0.6);
        assert!(after.losses[0] < before.losses[0] + 2f64.ln() + 1e-9);
        assert!(after.losses[1] > before.losses[1]);
    }

    #[test]
    fn temperature_sharpens_and_large_logits_do_not_overflow() {
        let sim = array![[0.9f32, 0.5], [0.3, 0.6]];
        let cold = info_nce(sim.view(), 0.01);
        let warm = info_nce(sim.view(), 1.0);
        assert!(cold.mean_loss < warm.mean_loss);
        assert!(cold.losses.iter().all(|l| l.is_finite()));
        assert!(info_nce(sim.view(), 1e-6).mean_loss.is_finite());
    }

    #[test]
    fn unit_vectors_and_cosines() {
        let a = unit(vec![3.0, 4.0]);
        assert_eq!(a, vec![0.6, 0.8]);
        let s = similarities(std::slice::from_ref(&a), &[unit(vec![4.0, 3.0]), a.clone()]);
        assert!((s[[0, 0]] - 0.96).abs() < 1e-6 && (s[[0, 1]] - 1.0).abs() < 1e-6);
        assert_eq!(unit(vec![0.0, 0.0]), vec![0.0, 0.0]);
    }

    #[test]
    fn pairs_are_read_or_refused_with_a_reason() {
        let ok = parse_pairs("a b | c d\n\n e | f ").unwrap();
        assert_eq!(
            ok,
            vec![("a b".into(), "c d".into()), ("e".into(), "f".into())]
        );
        assert!(parse_pairs("no bar here\nx | y")
            .unwrap_err()
            .contains("line 1"));
        assert!(parse_pairs("a | \nx | y").unwrap_err().contains("line 1"));
        assert!(parse_pairs("a | b").is_err());
        assert!(parse_pairs(&"a | b\n".repeat(9)).is_err());
    }
}
