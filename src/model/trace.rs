//! `Trace`: every intermediate of a forward pass, per stack, layer and head, with the tokens
//! each row belongs to. Views and the CLI read these; they never recompute attention.

use super::attention::AttentionTrace;
use super::layers::{FfnTrace, NormTrace};
use crate::util::nested;
use ndarray::{Array2, Array3};
use serde::Serialize;

/// One sub-layer with its residual connection and LayerNorm.
#[derive(Debug, Clone, Serialize)]
pub struct SublayerTrace<T> {
    /// The LayerNorm of this sub-layer (its input rows: `x` pre-norm, `x + f(x)` post-norm).
    pub norm: NormTrace,
    /// What the sub-layer computed.
    pub inner: T,
    /// The residual stream after this sub-layer.
    #[serde(serialize_with = "nested::ser")]
    pub residual: Array2<f32>,
    /// Training only: the dropout multipliers applied to the sub-layer's output.
    #[serde(
        serialize_with = "nested::ser_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub dropout: Option<Array2<f32>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BlockTrace {
    /// The residual stream entering the block.
    #[serde(serialize_with = "nested::ser")]
    pub input: Array2<f32>,
    pub self_attn: SublayerTrace<AttentionTrace>,
    pub cross_attn: Option<SublayerTrace<AttentionTrace>>,
    pub ffn: SublayerTrace<FfnTrace>,
}

impl BlockTrace {
    /// The block's output (the residual stream after the FFN).
    pub fn output(&self) -> &Array2<f32> {
        &self.ffn.residual
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct StackTrace {
    pub tokens: Vec<String>,
    pub ids: Vec<u32>,
    /// Token embeddings plus absolute positional encodings (after dropout, in training):
    /// the first block's input.
    #[serde(serialize_with = "nested::ser")]
    pub embed: Array2<f32>,
    /// Training only: the dropout multipliers applied to the embeddings.
    #[serde(
        serialize_with = "nested::ser_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub embed_dropout: Option<Array2<f32>>,
    /// The absolute positional encodings added, if the scheme has any.
    #[serde(serialize_with = "nested::ser_opt")]
    pub positional: Option<Array2<f32>>,
    /// The token-type (segment) embeddings added, for models that have them (BERT).
    #[serde(
        serialize_with = "nested::ser_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub token_types: Option<Array2<f32>>,
    /// The LayerNorm over the embedding sum (BERT); `embed` is then its output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embed_norm: Option<NormTrace>,
    pub blocks: Vec<BlockTrace>,
    /// The final LayerNorm of a pre-norm stack.
    pub final_norm: Option<NormTrace>,
    /// The stack's output.
    #[serde(serialize_with = "nested::ser")]
    pub output: Array2<f32>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Trace {
    pub model: String,
    pub family: super::config::Family,
    pub encoder: Option<StackTrace>,
    pub decoder: Option<StackTrace>,
    /// `[T, V]` next-token (or per-token) logits of the last stack.
    #[serde(serialize_with = "nested::ser")]
    pub logits: Array2<f32>,
}

/// Which attention of a model a view is looking at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttentionKind {
    EncoderSelf,
    DecoderSelf,
    Cross,
}

impl AttentionKind {
    /// The view that shows a family's model best: cross-attention when there is one (the
    /// alignment), else the one stack's self-attention.
    pub fn most_telling(family: super::config::Family) -> Self {
        match (family.has_encoder(), family.has_decoder()) {
            (true, true) => AttentionKind::Cross,
            (false, true) => AttentionKind::DecoderSelf,
            _ => AttentionKind::EncoderSelf,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            AttentionKind::EncoderSelf => "encoder self-attention",
            AttentionKind::DecoderSelf => "decoder self-attention",
            AttentionKind::Cross => "cross-attention",
        }
    }
}

impl Trace {
    /// The attention kinds this trace has, in reading order.
    pub fn attention_kinds(&self) -> Vec<AttentionKind> {
        let mut kinds = Vec::new();
        if self.encoder.is_some() {
            kinds.push(AttentionKind::EncoderSelf);
        }
        if let Some(d) = &self.decoder {
            kinds.push(AttentionKind::DecoderSelf);
            if d.blocks.first().is_some_and(|b| b.cross_attn.is_some()) {
                kinds.push(AttentionKind::Cross);
            }
        }
        kinds
    }

    pub fn layers(&self, kind: AttentionKind) -> usize {
        match kind {
            AttentionKind::EncoderSelf => self.encoder.as_ref().map_or(0, |s| s.blocks.len()),
            _ => self.decoder.as_ref().map_or(0, |s| s.blocks.len()),
        }
    }

    /// The attention trace of one layer, if it exists.
    pub fn attention(&self, kind: AttentionKind, layer: usize) -> Option<&AttentionTrace> {
        match kind {
            AttentionKind::EncoderSelf => self
                .encoder
                .as_ref()?
                .blocks
                .get(layer)
                .map(|b| &b.self_attn.inner),
            AttentionKind::DecoderSelf => self
                .decoder
                .as_ref()?
                .blocks
                .get(layer)
                .map(|b| &b.self_attn.inner),
            AttentionKind::Cross => self
                .decoder
                .as_ref()?
                .blocks
                .get(layer)?
                .cross_attn
                .as_ref()
                .map(|c| &c.inner),
        }
    }

    /// `[H, T_q, T_k]` weights of one layer.
    pub fn weights(&self, kind: AttentionKind, layer: usize) -> Option<&Array3<f32>> {
        self.attention(kind, layer).map(|a| &a.weights)
    }

    /// The largest |difference| between this trace's output logits and `other`'s (the CPU
    /// and GPU paths compare themselves with it).
    pub fn logit_difference(&self, other: &Trace) -> f32 {
        largest_gap(&self.logits, &other.logits)
    }

    /// The largest |difference| over the output logits and every attention weight.
    pub fn largest_difference(&self, other: &Trace) -> f32 {
        let mut worst = self.logit_difference(other);
        for kind in self.attention_kinds() {
            for layer in 0..self.layers(kind) {
                if let (Some(a), Some(b)) = (self.weights(kind, layer), other.weights(kind, layer))
                {
                    worst = worst.max(largest_gap(a, b));
                }
            }
        }
        worst
    }
}

fn largest_gap<'a>(
    a: impl IntoIterator<Item = &'a f32>,
    b: impl IntoIterator<Item = &'a f32>,
) -> f32 {
    a.into_iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}
