//! Decoding: where next-token probabilities come from (a model, with or without its key/value
//! cache, or a table a teacher types), beam search recorded as a tree, and sampling.

pub mod beam;
pub mod sample;
pub mod source;
pub mod table;

pub use beam::{BeamConfig, BeamSearch, Node, NodeState};
pub use sample::{sample, SampleConfig, SampleStep};
pub use source::{ModelSource, Source};
pub use table::TableSource;

/// `log_softmax(logits / τ)`, computed stably in f64.
pub fn log_softmax(logits: &[f32], temperature: f32) -> Vec<f32> {
    let t = temperature.max(1e-6) as f64;
    let max = logits
        .iter()
        .map(|&x| x as f64 / t)
        .fold(f64::NEG_INFINITY, f64::max);
    if !max.is_finite() {
        return vec![f32::NEG_INFINITY; logits.len()];
    }
    let sum: f64 = logits.iter().map(|&x| (x as f64 / t - max).exp()).sum();
    let log_z = max + sum.ln();
    logits
        .iter()
        .map(|&x| (x as f64 / t - log_z) as f32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_softmax_normalises_and_sharpens_with_temperature() {
        let lp = log_softmax(&[2.0, 1.0, 0.0], 1.0);
        let total: f64 = lp.iter().map(|&x| (x as f64).exp()).sum();
        assert!((total - 1.0).abs() < 1e-6);
        let cold = log_softmax(&[2.0, 1.0, 0.0], 0.1);
        assert!(cold[0] > lp[0] && cold[0] > -1e-4);
    }
}
