//! Incremental decoding: the encoder runs once, then each new token attends to the keys and
//! values cached from the ones before it.

use super::stack::StackRun;
use super::{count_forward_pass, ForwardOptions, Model};
use crate::model::attention::{causal_mask, KvCache};
use crate::model::dropout::StackId;
use crate::model::error::{ModelError, Result};
use crate::model::trace::StackTrace;
use ndarray::{Array1, Array2, Axis};

/// Per-layer caches of an incremental decoder.
#[derive(Debug, Clone, Default)]
pub struct LayerCache {
    pub self_kv: KvCache,
    pub cross_kv: KvCache,
}

/// State of incremental decoding: encoder memory, caches, tokens so far.
#[derive(Debug, Clone)]
pub struct DecodeState {
    memory: Option<Array2<f32>>,
    source_tokens: Vec<String>,
    source_pad: Vec<bool>,
    pub caches: Vec<LayerCache>,
    pub ids: Vec<u32>,
}

impl DecodeState {
    /// Keys and values cached so far (per layer, self-attention).
    pub fn cached_positions(&self) -> usize {
        self.caches.first().map_or(0, |c| c.self_kv.len())
    }
}

/// The output of one decoding step.
#[derive(Debug, Clone)]
pub struct StepOutput {
    pub logits: Array1<f32>,
    /// The decoder stack's trace for the new position only (one query row).
    pub trace: StackTrace,
}

impl Model {
    /// Begin incremental decoding. Encoder–decoder models encode `source` once here.
    pub fn start_decoding(&self, source: &[u32], opts: &ForwardOptions) -> Result<DecodeState> {
        self.check_options(opts)?;
        let family = self.config.family;
        if !family.has_decoder() {
            return Err(ModelError::Input(
                "an encoder-only model has no decoder to generate with".into(),
            ));
        }
        let (memory, source_tokens, source_pad) = if family.has_encoder() {
            let stack = self
                .weights
                .encoder
                .as_ref()
                .ok_or_else(|| ModelError::Input("this model has no encoder".into()))?;
            let plan = self.encoder_plan(source, &[], opts, false)?;
            let e = self.run_planned(stack, &plan, None, opts, StackId::Encoder, false)?;
            (Some(e.output), e.tokens, plan.pads)
        } else {
            (None, vec![], vec![])
        };
        Ok(DecodeState {
            memory,
            source_tokens,
            source_pad,
            caches: vec![LayerCache::default(); self.config.n_layers],
            ids: vec![],
        })
    }

    /// Feed one token; returns the logits for the next one. Keys and values of earlier
    /// positions come from the cache, so each step costs O(t·d) attention work.
    pub fn decode_step(
        &self,
        state: &mut DecodeState,
        token: u32,
        opts: &ForwardOptions,
    ) -> Result<StepOutput> {
        self.step(state, &[token], opts, true)
    }

    /// [`Model::decode_step`] without the step's trace: only the next token's logits (what
    /// generation needs), the new row's intermediates freed layer by layer.
    pub fn decode_next(
        &self,
        state: &mut DecodeState,
        token: u32,
        opts: &ForwardOptions,
    ) -> Result<Array1<f32>> {
        Ok(self.step(state, &[token], opts, false)?.logits)
    }

    /// Feed several tokens in one pass (a prompt), each attending to the cache and to the ones
    /// before it under the causal mask; their keys and values join the cache. The same cache
    /// and logits as feeding them one by one with [`Model::decode_next`], in one batched pass
    /// instead of `n` matrix–vector passes. Returns the logits after the last token.
    pub fn prefill(
        &self,
        state: &mut DecodeState,
        tokens: &[u32],
        opts: &ForwardOptions,
    ) -> Result<Array1<f32>> {
        if tokens.is_empty() {
            return Err(ModelError::Input("nothing to prefill".into()));
        }
        Ok(self.step(state, tokens, opts, false)?.logits)
    }

    /// `tokens` fed at the next positions; the logits after the last of them.
    fn step(
        &self,
        state: &mut DecodeState,
        tokens: &[u32],
        opts: &ForwardOptions,
        keep_blocks: bool,
    ) -> Result<StepOutput> {
        count_forward_pass();
        crate::model::parallel::in_pool(
            self.largest_product(tokens.len()),
            || -> Result<StepOutput> {
                self.check_options(opts)?;
                let stack = self
                    .weights
                    .decoder
                    .as_ref()
                    .ok_or_else(|| ModelError::Input("this model has no decoder".into()))?;
                let vocab = self.config.vocab_size();
                if let Some(&id) = tokens.iter().find(|&&id| id as usize >= vocab) {
                    return Err(ModelError::BadTokenId { id, vocab });
                }
                let t = state.ids.len();
                if t + tokens.len() > self.config.max_len {
                    return Err(ModelError::TooLong {
                        len: t + tokens.len(),
                        max: self.config.max_len,
                    });
                }
                state.ids.extend_from_slice(tokens);
                let positions: Vec<usize> = (t..state.ids.len()).collect();
                let key_positions: Vec<usize> = (0..state.ids.len()).collect();
                let memory = state.memory.as_ref().map(|m| {
                    (
                        m.view(),
                        state.source_tokens.as_slice(),
                        state.source_pad.as_slice(),
                    )
                });
                let trace = self.stack(
                    stack,
                    StackRun {
                        ids: tokens,
                        types: &[],
                        self_allowed: causal_mask(&positions, &key_positions),
                        positions,
                        key_positions,
                        key_tokens: self.tokenizer.tokens(&state.ids),
                        memory,
                        cross_allowed: None,
                        caches: Some(&mut state.caches),
                        temperature: opts.temperature,
                        dropout: None,
                        keep_blocks,
                        stack: StackId::Decoder,
                        heads_off: opts.heads_off.clone(),
                        interventions: opts.interventions.clone(),
                    },
                )?;
                // Only the last row's next token is asked for.
                let last = trace.output.nrows() - 1;
                let logits = self
                    .logits(
                        &trace
                            .output
                            .slice_axis(Axis(0), ndarray::Slice::from(last..))
                            .to_owned(),
                    )
                    .row(0)
                    .to_owned();
                Ok(StepOutput { logits, trace })
            },
        )
    }
}
