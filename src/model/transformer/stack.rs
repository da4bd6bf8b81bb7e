//! The block template every family shares, and a stack of blocks run over the embedding:
//! self-attention, cross-attention (decoders of encoder–decoder models) and the FFN, each a
//! sub-layer with its norm, dropout and residual connection.

use super::{plan::cross_attention_mask, HeadId, LayerCache, Model, StackPlan};
use super::{Embedded, ForwardOptions, Intervention};
use crate::model::attention::{self, AttentionCall, AttentionShape, KvSource};
use crate::model::config::{NormPlacement, Positional};
use crate::model::dropout::{Dropout, Site, Slot, StackId};
use crate::model::error::{ModelError, Result};
use crate::model::layers::{ffn, norm, LayerNormWeights, NormTrace};
use crate::model::position::Rope;
use crate::model::trace::{AttentionKind, BlockTrace, StackTrace, SublayerTrace};
use crate::model::weights::{BlockWeights, StackWeights};
use ndarray::{Array2, ArrayView2};

/// The run of a stack over a whole planned input (no cache).
pub(in crate::model) fn planned_run<'a>(
    plan: &'a StackPlan,
    memory: Option<(ArrayView2<'a, f32>, &'a [String], &'a [bool])>,
    opts: &ForwardOptions,
    id: StackId,
    keep_blocks: bool,
) -> StackRun<'a> {
    StackRun {
        ids: &plan.ids,
        types: &plan.types,
        positions: plan.positions.clone(),
        key_positions: plan.positions.clone(),
        key_tokens: plan.tokens.clone(),
        self_allowed: plan.allowed.clone(),
        memory,
        cross_allowed: plan.cross_allowed.clone(),
        caches: None,
        temperature: opts.temperature,
        dropout: opts.dropout.map(|d| (d, id)),
        keep_blocks,
        stack: id,
        heads_off: opts.heads_off.clone(),
        interventions: opts.interventions.clone(),
    }
}

/// Everything one stack run needs besides its weights.
pub(in crate::model) struct StackRun<'a> {
    pub(super) ids: &'a [u32],
    pub(super) types: &'a [u32],
    /// Positions of the rows being computed.
    pub(super) positions: Vec<usize>,
    /// Positions and labels of the self-attention keys (equal to the rows without a cache).
    pub(super) key_positions: Vec<usize>,
    pub(super) key_tokens: Vec<String>,
    pub(super) self_allowed: Array2<bool>,
    pub(super) memory: Option<(ArrayView2<'a, f32>, &'a [String], &'a [bool])>,
    /// A user's cross-attention mask `[T, T_src]` (before padding); `None`: every key.
    pub(super) cross_allowed: Option<Array2<bool>>,
    pub(super) caches: Option<&'a mut [LayerCache]>,
    pub(super) temperature: f32,
    /// Dropout and the stack it draws its sites from.
    pub(super) dropout: Option<(Dropout, StackId)>,
    /// Keep each block's trace (`false`: only the stack's output survives, and each block's
    /// intermediates are freed as soon as the next block starts).
    pub(super) keep_blocks: bool,
    /// Which stack this is: the kind of its self-attention.
    pub(super) stack: StackId,
    /// Heads switched off, in any stack (each block picks its own).
    pub(super) heads_off: Vec<HeadId>,
    /// Activations replaced, in any stack (each block picks its own).
    pub(super) interventions: Vec<Intervention>,
}

impl StackRun<'_> {
    /// The heads of `kind` switched off in layer `layer`.
    fn off(&self, kind: AttentionKind, layer: usize) -> Vec<usize> {
        self.heads_off
            .iter()
            .filter(|h| h.kind == kind && h.layer == layer)
            .map(|h| h.head)
            .collect()
    }

    /// The heads of `kind` in layer `layer` whose output is replaced, with their values.
    fn replaced(&self, kind: AttentionKind, layer: usize) -> Vec<(usize, Array2<f32>)> {
        self.interventions
            .iter()
            .filter_map(|i| match i {
                Intervention::Head { head, value } if head.kind == kind && head.layer == layer => {
                    Some((head.head, value.clone()))
                }
                _ => None,
            })
            .collect()
    }

    /// Block `layer`'s input with the residual rows replaced there.
    fn patched_input(&self, layer: usize, mut x: Array2<f32>) -> Array2<f32> {
        for i in &self.interventions {
            if let Intervention::Residual {
                kind,
                layer: l,
                position,
                value,
            } = i
            {
                let fits = *position < x.nrows() && value.len() == x.ncols();
                if *kind == self.self_kind() && *l == layer && fits {
                    x.row_mut(*position)
                        .assign(&ndarray::ArrayView1::from(value.as_slice()));
                }
            }
        }
        x
    }

    fn self_kind(&self) -> AttentionKind {
        match self.stack {
            StackId::Encoder => AttentionKind::EncoderSelf,
            StackId::Decoder => AttentionKind::DecoderSelf,
        }
    }
}

/// A stack part-way through its blocks: the embedding, the blocks run so far and the stream
/// they leave (`model::sliced` runs a stack this way, a block at a time).
pub(in crate::model) struct StackSoFar {
    tokens: Vec<String>,
    embed: Array2<f32>,
    embed_dropout: Option<Array2<f32>>,
    positional: Option<Array2<f32>>,
    token_types: Option<Array2<f32>>,
    embed_norm: Option<NormTrace>,
    /// The residual stream after the blocks so far (the next block's input).
    x: Array2<f32>,
    /// Their traces, when the run keeps them.
    blocks: Vec<BlockTrace>,
    /// How many blocks have run.
    pub done: usize,
}

impl StackRun<'_> {
    fn site(&self, layer: usize, slot: Slot) -> Option<(Dropout, Site)> {
        self.dropout
            .filter(|(d, _)| d.active())
            .map(|(d, stack)| (d, Site { stack, layer, slot }))
    }
}

impl Model {
    pub(crate) fn attention_shape(&self, cross: bool) -> AttentionShape {
        let c = &self.config;
        AttentionShape {
            n_heads: c.n_heads,
            n_kv_heads: c.n_kv_heads,
            d_head: c.d_head(),
            scoring: c.scoring,
            positional: if cross {
                Positional::None
            } else {
                c.positional
            },
            rope: match (c.positional, cross) {
                (Positional::Rope { base }, false) => Some(Rope {
                    base,
                    pairing: c.extensions.rope_pairing,
                    scaling: c.extensions.rope_scaling,
                }),
                _ => None,
            },
        }
    }

    /// `x + drop(f(LN(x)))` (pre-norm) or `LN(x + drop(f(x)))` (post-norm).
    pub(super) fn sublayer<T>(
        &self,
        x: &Array2<f32>,
        ln: &LayerNormWeights,
        dropout: Option<(Dropout, Site)>,
        f: impl FnOnce(ArrayView2<f32>) -> Result<(T, Array2<f32>)>,
    ) -> Result<SublayerTrace<T>> {
        let (kind, eps) = (self.config.extensions.norm_kind, self.config.ln_eps);
        let drop = |mut out: Array2<f32>| {
            let mask = dropout.map(|(d, site)| d.mask(site, out.raw_dim()));
            if let Some(m) = &mask {
                out *= m;
            }
            (out, mask)
        };
        match self.config.norm {
            NormPlacement::Pre => {
                let norm = norm(kind, x.view(), ln, eps);
                let (inner, out) = f(norm.output.view())?;
                let (out, dropout) = drop(out);
                Ok(SublayerTrace {
                    norm,
                    inner,
                    residual: x + &out,
                    dropout,
                })
            }
            NormPlacement::Post => {
                let (inner, out) = f(x.view())?;
                let (out, dropout) = drop(out);
                let norm = norm(kind, (x + &out).view(), ln, eps);
                let residual = norm.output.clone();
                Ok(SublayerTrace {
                    norm,
                    inner,
                    residual,
                    dropout,
                })
            }
        }
    }

    fn block(
        &self,
        layer: usize,
        b: &BlockWeights,
        x: Array2<f32>,
        run: &StackRun,
        tokens: &[String],
        cache: Option<&mut LayerCache>,
    ) -> Result<BlockTrace> {
        let (self_cache, cross_cache) = match cache {
            Some(c) => (Some(&mut c.self_kv), Some(&mut c.cross_kv)),
            None => (None, None),
        };
        let self_attn = self.sublayer(&x, &b.ln_attn, run.site(layer, Slot::SelfOutput), |h| {
            let t = attention::multi_head(
                &b.self_attn,
                self.attention_shape(false),
                h,
                KvSource::SelfRows,
                AttentionCall {
                    q_pos: &run.positions,
                    k_pos: &run.key_positions,
                    allowed: run.self_allowed.clone(),
                    temperature: run.temperature,
                    query_tokens: tokens.to_vec(),
                    key_tokens: run.key_tokens.clone(),
                    dropout: run.site(layer, Slot::SelfWeights),
                    heads_off: run.off(run.self_kind(), layer),
                    head_values: run.replaced(run.self_kind(), layer),
                },
                self_cache,
            )?;
            let out = t.out.clone();
            Ok((t, out))
        })?;
        let mut stream = self_attn.residual.clone();
        let cross_attn = match (&b.cross, run.memory) {
            (Some((ln, w)), Some((memory, mem_tokens, mem_pad))) => {
                let t = self.sublayer(&stream, ln, run.site(layer, Slot::CrossOutput), |h| {
                    let allowed =
                        cross_attention_mask(run.cross_allowed.as_ref(), h.nrows(), mem_pad);
                    let mem_pos: Vec<usize> = (0..memory.nrows()).collect();
                    let t = attention::multi_head(
                        w,
                        self.attention_shape(true),
                        h,
                        KvSource::Memory(memory),
                        AttentionCall {
                            q_pos: &run.positions,
                            k_pos: &mem_pos,
                            allowed,
                            temperature: run.temperature,
                            query_tokens: tokens.to_vec(),
                            key_tokens: mem_tokens.to_vec(),
                            dropout: run.site(layer, Slot::CrossWeights),
                            heads_off: run.off(AttentionKind::Cross, layer),
                            head_values: run.replaced(AttentionKind::Cross, layer),
                        },
                        cross_cache,
                    )?;
                    let out = t.out.clone();
                    Ok((t, out))
                })?;
                stream = t.residual.clone();
                Some(t)
            }
            _ => None,
        };
        let act = self.config.activation;
        let ffn = self.sublayer(&stream, &b.ln_ffn, run.site(layer, Slot::FfnOutput), |h| {
            let t = ffn(h, &b.ffn, act);
            let out = t.output.clone();
            Ok((t, out))
        })?;
        Ok(BlockTrace {
            input: x,
            self_attn,
            cross_attn,
            ffn,
        })
    }

    pub(super) fn stack(&self, stack: &StackWeights, mut run: StackRun) -> Result<StackTrace> {
        let mut so_far = self.begin_stack(&run);
        let mut caches = run.caches.take();
        for _ in 0..stack.blocks.len() {
            let cache = caches.as_deref_mut().and_then(|c| c.get_mut(so_far.done));
            self.next_block(stack, &mut so_far, &run, cache)?;
        }
        Ok(self.finish_stack(stack, so_far, &run))
    }

    /// The embedding of a stack's input: the first block's input.
    pub(in crate::model) fn begin_stack(&self, run: &StackRun) -> StackSoFar {
        let tokens = self.tokenizer.tokens(run.ids);
        let Embedded {
            x: mut embed,
            positional,
            token_types,
            norm: embed_norm,
        } = self.embed(run.ids, run.types, &run.positions);
        let embed_dropout = run
            .site(0, Slot::Embed)
            .map(|(d, site)| d.mask(site, embed.raw_dim()));
        if let Some(m) = &embed_dropout {
            embed *= m;
        }
        StackSoFar {
            x: embed.clone(),
            tokens,
            embed,
            embed_dropout,
            positional,
            token_types,
            embed_norm,
            blocks: Vec::new(),
            done: 0,
        }
    }

    /// Runs the stack's next block on the stream so far.
    pub(in crate::model) fn next_block(
        &self,
        stack: &StackWeights,
        so_far: &mut StackSoFar,
        run: &StackRun,
        cache: Option<&mut LayerCache>,
    ) -> Result<()> {
        let l = so_far.done;
        let b = stack
            .blocks
            .get(l)
            .ok_or_else(|| ModelError::Input(format!("the stack has no block {l}")))?;
        let x = run.patched_input(l, std::mem::take(&mut so_far.x));
        let t = self.block(l, b, x, run, &so_far.tokens, cache)?;
        if run.keep_blocks {
            so_far.x = t.output().clone();
            so_far.blocks.push(t);
        } else {
            so_far.x = t.ffn.residual;
        }
        so_far.done += 1;
        Ok(())
    }

    /// The final norm after the last block, and the stack's trace.
    pub(in crate::model) fn finish_stack(
        &self,
        stack: &StackWeights,
        so_far: StackSoFar,
        run: &StackRun,
    ) -> StackTrace {
        let final_norm = stack.ln_f.as_ref().map(|ln| {
            norm(
                self.config.extensions.norm_kind,
                so_far.x.view(),
                ln,
                self.config.ln_eps,
            )
        });
        let output = final_norm.as_ref().map_or(so_far.x, |n| n.output.clone());
        StackTrace {
            tokens: so_far.tokens,
            ids: run.ids.to_vec(),
            embed: so_far.embed,
            embed_dropout: so_far.embed_dropout,
            positional: so_far.positional,
            token_types: so_far.token_types,
            embed_norm: so_far.embed_norm,
            blocks: so_far.blocks,
            final_norm,
            output,
        }
    }
}
