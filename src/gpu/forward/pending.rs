//! The trace with slots where the arrays will be once read back: what `Encode` records while
//! the kernels are queued, turned into the CPU path's trace types once the values arrive.

use crate::gpu::readback::{Slot, Values};
use crate::model::attention::AttentionTrace;
use crate::model::layers::{FfnTrace, NormTrace};
use crate::model::trace::{BlockTrace, StackTrace, SublayerTrace};
use ndarray::Array2;

pub(super) struct PendingNorm {
    pub(super) mean: Slot,
    pub(super) var: Slot,
    pub(super) output: Slot,
}

pub(super) struct PendingFfn {
    pub(super) pre_activation: Slot,
    /// A gated FFN's up branch `W₁x + b₁`.
    pub(super) up: Option<Slot>,
    pub(super) hidden: Slot,
    pub(super) output: Slot,
}

pub(super) struct PendingAttention {
    pub(super) query_tokens: Vec<String>,
    pub(super) key_tokens: Vec<String>,
    pub(super) mask: Array2<bool>,
    pub(super) q: Slot,
    pub(super) k: Slot,
    pub(super) v: Slot,
    pub(super) scores: Slot,
    pub(super) scaled: Slot,
    pub(super) bias: Option<Slot>,
    pub(super) logits: Slot,
    pub(super) weights: Slot,
    pub(super) head_out: Slot,
    pub(super) concat: Slot,
    pub(super) out: Slot,
}

pub(super) struct PendingSublayer<T> {
    pub(super) norm: PendingNorm,
    pub(super) inner: T,
    pub(super) residual: Slot,
}

pub(super) struct PendingBlock {
    pub(super) input: Slot,
    pub(super) self_attn: PendingSublayer<PendingAttention>,
    pub(super) cross_attn: Option<PendingSublayer<PendingAttention>>,
    pub(super) ffn: PendingSublayer<PendingFfn>,
}

pub(super) struct PendingStack {
    pub(super) tokens: Vec<String>,
    pub(super) ids: Vec<u32>,
    pub(super) embed: Slot,
    pub(super) positional: Option<Array2<f32>>,
    /// Computed on the CPU with the embedding (`Model::embed`).
    pub(super) token_types: Option<Array2<f32>>,
    pub(super) embed_norm: Option<NormTrace>,
    pub(super) blocks: Vec<PendingBlock>,
    pub(super) final_norm: Option<PendingNorm>,
    pub(super) output: Slot,
}

impl PendingNorm {
    pub(super) fn finish(self, v: &Values) -> NormTrace {
        NormTrace {
            mean: v.a1(self.mean),
            var: v.a1(self.var),
            output: v.a2(self.output),
        }
    }
}

impl PendingFfn {
    pub(super) fn finish(self, v: &Values) -> FfnTrace {
        FfnTrace {
            pre_activation: v.a2(self.pre_activation),
            up: self.up.map(|u| v.a2(u)),
            hidden: v.a2(self.hidden),
            output: v.a2(self.output),
        }
    }
}

impl PendingAttention {
    pub(super) fn finish(self, v: &Values) -> AttentionTrace {
        AttentionTrace {
            query_tokens: self.query_tokens,
            key_tokens: self.key_tokens,
            q: v.a3(self.q),
            k: v.a3(self.k),
            v: v.a3(self.v),
            scores: v.a3(self.scores),
            scaled: v.a3(self.scaled),
            bias: self.bias.map(|b| v.a3(b)),
            mask: self.mask,
            logits: v.a3(self.logits),
            weights: v.a3(self.weights),
            dropout: None,
            head_out: v.a3(self.head_out),
            concat: v.a2(self.concat),
            out: v.a2(self.out),
        }
    }
}

impl<T> PendingSublayer<T> {
    pub(super) fn finish<U>(
        self,
        v: &Values,
        inner: impl FnOnce(T, &Values) -> U,
    ) -> SublayerTrace<U> {
        SublayerTrace {
            norm: self.norm.finish(v),
            inner: inner(self.inner, v),
            residual: v.a2(self.residual),
            dropout: None,
        }
    }
}

impl PendingStack {
    pub(super) fn finish(self, v: &Values) -> StackTrace {
        StackTrace {
            tokens: self.tokens,
            ids: self.ids,
            embed: v.a2(self.embed),
            embed_dropout: None,
            positional: self.positional,
            token_types: self.token_types,
            embed_norm: self.embed_norm,
            blocks: self
                .blocks
                .into_iter()
                .map(|b| BlockTrace {
                    input: v.a2(b.input),
                    self_attn: b.self_attn.finish(v, PendingAttention::finish),
                    cross_attn: b.cross_attn.map(|c| c.finish(v, PendingAttention::finish)),
                    ffn: b.ffn.finish(v, PendingFfn::finish),
                })
                .collect(),
            final_norm: self.final_norm.map(|n| n.finish(v)),
            output: v.a2(self.output),
        }
    }
}
