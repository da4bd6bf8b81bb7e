//! Attention rollout (Abnar & Zuidema 2020): how much each output position draws on each
//! input token through every layer, counting the residual path. Per layer,
//! `Â_l = ½·mean_heads(A_l) + ½·I` with its rows renormalised, and `R = Â_{L−1} ⋯ Â_0`.
//! An encoder–decoder model gets one rollout per stack (cross-attention is left out: it mixes
//! two sequences, and rollout assumes one).

use super::{AnalysisError, Result};
use crate::model::trace::StackTrace;
use crate::model::Trace;
use ndarray::{Array2, Axis};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct StackRollout {
    pub stack: &'static str,
    pub tokens: Vec<String>,
    /// `[T, T]`: row i is output position i, column j input token j; rows sum to 1.
    #[serde(serialize_with = "crate::util::nested::ser")]
    pub rollout: Array2<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Rollout {
    /// The stack that feeds the output (the decoder where there is one).
    pub tokens: Vec<String>,
    #[serde(serialize_with = "crate::util::nested::ser")]
    pub rollout: Array2<f64>,
    /// Every stack's rollout, encoder first, when there are two.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stacks: Vec<StackRollout>,
}

/// Rollout of every stack of a traced pass (its blocks kept).
pub fn rollout(trace: &Trace) -> Result<Rollout> {
    let mut stacks: Vec<StackRollout> = [("encoder", &trace.encoder), ("decoder", &trace.decoder)]
        .into_iter()
        .filter_map(|(name, s)| s.as_ref().map(|s| (name, s)))
        .map(|(stack, s)| StackRollout {
            stack,
            tokens: s.tokens.clone(),
            rollout: of_stack(s),
        })
        .collect();
    let read = stacks
        .pop()
        .ok_or_else(|| AnalysisError::Undefined("the trace has no stack".to_string()))?;
    let all = match stacks.pop() {
        Some(encoder) => vec![encoder, read.clone()],
        None => Vec::new(),
    };
    Ok(Rollout {
        tokens: read.tokens,
        rollout: read.rollout,
        stacks: all,
    })
}

/// `R = Â_{L−1} ⋯ Â_0` over one stack's self-attention.
pub fn of_stack(stack: &StackTrace) -> Array2<f64> {
    let t = stack.tokens.len();
    let identity = Array2::<f64>::eye(t);
    let mut r = identity.clone();
    for block in &stack.blocks {
        let a = &block.self_attn.inner.weights;
        let mean = a
            .mapv(f64::from)
            .mean_axis(Axis(0))
            .unwrap_or_else(|| identity.clone());
        let mut a_hat = 0.5 * mean + 0.5 * &identity;
        for mut row in a_hat.rows_mut() {
            let sum = row.sum();
            if sum > 0.0 {
                row /= sum;
            }
        }
        r = a_hat.dot(&r);
    }
    r
}
