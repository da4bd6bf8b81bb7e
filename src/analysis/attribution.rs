//! Direct logit attribution: how much each component wrote of `logit(A) − logit(B)` (or of
//! `logit(A)`) at one position, straight through the final norm with its scale frozen at the
//! real run (TransformerLens's convention). In a pre-norm stack the last block's output is a
//! sum, `resid[L] = embed + Σ_l (attention_l + mlp_l)`, and attention is a sum over heads, so
//!
//!   share(c) = (γ ⊙ centre(c) / σ) · (u_A − u_B)
//!
//! with σ the final norm's scale for the whole `resid[L]` (LayerNorm: its standard deviation,
//! and `centre` subtracts c's mean; RMSNorm: its root mean square, no centring). Every bias,
//! the norm's β and the output bias are rows of their own, so the shares add up to the logit
//! difference.

use super::{needs_output_layer, read_stack, residual_stream, AnalysisError, Result};
use crate::model::attention::AttentionTrace;
use crate::model::config::NormKind;
use crate::model::weights::AttentionWeights;
use crate::model::{Model, NormPlacement, Trace};
use ndarray::{s, Array1, ArrayView1};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize)]
pub struct Attribution {
    pub tokens: Vec<String>,
    pub target: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contrast: Option<u32>,
    pub position: usize,
    /// Each self-attention head's share, per block.
    pub heads: Vec<Vec<f64>>,
    /// Each cross-attention head's share, per block (encoder–decoder models).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cross_heads: Option<Vec<Vec<f64>>>,
    /// Each MLP's share (its output without its bias), per block.
    pub mlp: Vec<f64>,
    /// The embedding's share (token plus absolute position).
    pub embed: f64,
    /// Each non-zero bias, by name.
    pub biases: BTreeMap<String, f64>,
    /// All shares added up.
    pub sum: f64,
    /// `logit(A) − logit(B)` (or `logit(A)`) as the model computed it.
    pub logit_diff: f64,
}

/// The attribution of `target` (against `contrast`) at `position` (default: the last), from a
/// traced pass with its blocks kept.
pub fn attribute(
    model: &Model,
    trace: &Trace,
    target: u32,
    contrast: Option<u32>,
    position: Option<usize>,
) -> Result<Attribution> {
    needs_output_layer(model, "attribution")?;
    let name = &model.config.name;
    if model.config.norm == NormPlacement::Post {
        return Err(AnalysisError::Undefined(format!(
            "{name} is post-norm: each block ends with a LayerNorm, so its residual stream is \
             not a sum of what the heads and MLPs wrote, and direct attribution is not defined"
        )));
    }
    if model.weights.mlm.is_some() {
        return Err(AnalysisError::Undefined(format!(
            "{name}'s masked-LM head is not linear, so direct attribution is not defined"
        )));
    }
    let stack = read_stack(trace)
        .ok_or_else(|| AnalysisError::Undefined("the trace has no stack".to_string()))?;
    let weights = model
        .read_stack_weights()
        .ok_or_else(|| AnalysisError::Undefined("the model has no stack".to_string()))?;
    let t = stack.tokens.len();
    let position = position.unwrap_or(t.saturating_sub(1));
    if position >= t {
        return Err(AnalysisError::Undefined(format!(
            "position {position} is past the input's {t} tokens"
        )));
    }
    let table = model.weights.output_matrix();
    let vocab = table.rows();
    for id in std::iter::once(target).chain(contrast) {
        if id as usize >= vocab {
            return Err(AnalysisError::Undefined(format!(
                "token id {id} is outside the vocabulary of {vocab}"
            )));
        }
    }
    // u = u_A − u_B: the direction in the final norm's output that raises A over B.
    let mut u = table.row(target as usize).mapv(f64::from);
    if let Some(b) = contrast {
        u -= &table.row(b as usize).mapv(f64::from);
    }
    let resid = residual_stream(stack);
    let eps = f64::from(model.config.ln_eps);
    let kind = model.config.extensions.norm_kind;
    let (gamma, beta) = match &weights.ln_f {
        Some(ln) => (ln.gamma.mapv(f64::from), Some(ln.beta.mapv(f64::from))),
        None => (Array1::ones(model.config.d_model), None),
    };
    // σ frozen at the real run: the final norm's own statistic of resid[L] at this position
    // (LayerNorm: the biased variance; RMSNorm: the mean square).
    let sigma = stack
        .final_norm
        .as_ref()
        .map_or(1.0, |n| (f64::from(n.var[position]) + eps).sqrt());
    let centring = weights.ln_f.is_some() && kind == NormKind::LayerNorm;
    let direction = &gamma * &u / sigma;
    // share(c) = (γ ⊙ centre(c) / σ) · u
    let share = |c: ArrayView1<f32>| -> f64 {
        let c = c.mapv(f64::from);
        let c = if centring {
            &c - c.mean().unwrap_or(0.0)
        } else {
            c
        };
        c.dot(&direction)
    };
    let mut biases = BTreeMap::new();
    let mut bias_row = |name: String, b: &Array1<f32>| {
        if b.iter().any(|&v| v != 0.0) {
            biases.insert(name, share(b.view()));
        }
    };
    let mut heads = Vec::new();
    let mut cross_heads = Vec::new();
    let mut mlp = Vec::new();
    let d_head = model.config.d_head();
    for (l, (block, w)) in stack.blocks.iter().zip(&weights.blocks).enumerate() {
        heads.push(head_shares(
            &block.self_attn.inner,
            &w.self_attn,
            position,
            d_head,
            &share,
        ));
        bias_row(format!("blocks.{l}.attn.out_bias"), &w.self_attn.b_o);
        if let (Some(c), Some((_, cw))) = (&block.cross_attn, &w.cross) {
            cross_heads.push(head_shares(&c.inner, cw, position, d_head, &share));
            bias_row(format!("blocks.{l}.cross.out_bias"), &cw.b_o);
        }
        let out = &block.ffn.inner.output.row(position) - &w.ffn.b2;
        mlp.push(share(out.view()));
        bias_row(format!("blocks.{l}.mlp.out_bias"), &w.ffn.b2);
    }
    let embed = share(resid[0].row(position));
    if let Some(beta) = beta.filter(|b| b.iter().any(|&v| v != 0.0)) {
        biases.insert("final_norm.beta".to_string(), beta.dot(&u));
    }
    if let Some(b) = &model.weights.lm_bias {
        let diff =
            f64::from(b[target as usize]) - contrast.map_or(0.0, |c| f64::from(b[c as usize]));
        if diff != 0.0 || b.iter().any(|&v| v != 0.0) {
            biases.insert("unembed.bias".to_string(), diff);
        }
    }
    let sum = embed
        + heads.iter().flatten().sum::<f64>()
        + cross_heads.iter().flatten().sum::<f64>()
        + mlp.iter().sum::<f64>()
        + biases.values().sum::<f64>();
    let logits = trace.logits.row(position);
    let logit_diff = f64::from(logits[target as usize])
        - contrast.map_or(0.0, |c| f64::from(logits[c as usize]));
    Ok(Attribution {
        tokens: stack.tokens.clone(),
        target,
        contrast,
        position,
        heads,
        cross_heads: (!cross_heads.is_empty()).then_some(cross_heads),
        mlp,
        embed,
        biases,
        sum,
        logit_diff,
    })
}

/// Each head's `z_h · W_O[:, h]ᵀ` at `position`, through `share`.
fn head_shares(
    attn: &AttentionTrace,
    w: &AttentionWeights,
    position: usize,
    d_head: usize,
    share: &impl Fn(ArrayView1<f32>) -> f64,
) -> Vec<f64> {
    let w_o = w.w_o.to_f32();
    (0..attn.head_out.shape()[0])
        .map(|h| {
            let z = attn.head_out.slice(s![h, position, ..]);
            let w_o = w_o.slice(s![.., h * d_head..(h + 1) * d_head]);
            share(w_o.dot(&z).view())
        })
        .collect()
}
