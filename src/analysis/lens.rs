//! The logit lens: what the model would say if it stopped after block l. For l = 0…L,
//! `p = softmax(W_U · final_norm(resid[l]) + b_U)` at every position; at l = L it is the
//! model's own output. A BERT with its masked-LM head reads each layer through that head.

use super::{needs_output_layer, read_stack, residual_stream, Result};
use crate::model::softmax::log_softmax;
use crate::model::{Model, Trace};
use ndarray::Array2;
use serde::Serialize;

/// One of a position's most likely next tokens at some depth.
#[derive(Debug, Clone, Serialize)]
pub struct Ranked {
    pub token: String,
    pub id: u32,
    pub p: f32,
}

/// One depth of the lens.
#[derive(Debug, Clone, Serialize)]
pub struct LensLayer {
    /// 0 reads the embeddings; L the last block's output.
    pub layer: usize,
    /// The `k` likeliest tokens at each position, likeliest first.
    pub top: Vec<Vec<Ranked>>,
    /// The chosen token's probability at each position.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_p: Option<Vec<f32>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Lens {
    pub tokens: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<u32>,
    pub layers: Vec<LensLayer>,
}

/// The lens over a traced pass (its blocks kept), the `k` likeliest tokens per position and,
/// when given, the probability of `target` everywhere.
pub fn logit_lens(model: &Model, trace: &Trace, k: usize, target: Option<u32>) -> Result<Lens> {
    needs_output_layer(model, "the logit lens")?;
    let stack = read_stack(trace).ok_or_else(|| {
        super::AnalysisError::Undefined("the trace has no stack to read".to_string())
    })?;
    let layers = residual_stream(stack)
        .into_iter()
        .enumerate()
        .map(|(layer, resid)| lens_layer(model, layer, resid, k, target))
        .collect();
    Ok(Lens {
        tokens: stack.tokens.clone(),
        target,
        layers,
    })
}

/// One depth of the lens: `resid` (that is, `resid[layer]`) read through the final norm and
/// the output layer (the app computes a depth a frame).
pub fn lens_layer(
    model: &Model,
    layer: usize,
    resid: &Array2<f32>,
    k: usize,
    target: Option<u32>,
) -> LensLayer {
    let logits = model.read_out(resid.view());
    let mut top = Vec::with_capacity(logits.nrows());
    let mut target_p = Vec::with_capacity(logits.nrows());
    for row in logits.rows() {
        // p = exp(log softmax), the normaliser summed in f64.
        let row = row.to_vec();
        let log_p = log_softmax(&row, 1.0);
        top.push(likeliest(model, &log_p, k));
        if let Some(t) = target {
            target_p.push(log_p.get(t as usize).map_or(0.0, |lp| lp.exp()));
        }
    }
    LensLayer {
        layer,
        top,
        target_p: target.map(|_| target_p),
    }
}

/// The `k` largest probabilities of one row, largest first (ties by lower id).
fn likeliest(model: &Model, log_p: &[f32], k: usize) -> Vec<Ranked> {
    let mut order: Vec<usize> = (0..log_p.len()).collect();
    let k = k.min(order.len());
    if k == 0 {
        return Vec::new();
    }
    let by_p = |a: &usize, b: &usize| log_p[*b].total_cmp(&log_p[*a]).then(a.cmp(b));
    order.select_nth_unstable_by(k - 1, by_p);
    order.truncate(k);
    order.sort_by(by_p);
    order
        .into_iter()
        .map(|i| Ranked {
            token: model.tokenizer.token(i as u32).to_string(),
            id: i as u32,
            p: log_p[i].exp(),
        })
        .collect()
}
