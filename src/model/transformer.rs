//! The transformer: one block template, three families, a traced forward pass, and
//! incremental decoding with a key/value cache.

use super::attention::{
    self, block_keys, causal_mask, full_mask, AttentionCall, AttentionShape, KvCache, KvSource,
    MaskChoice,
};
use super::config::{ModelConfig, NormPlacement, Positional};
use super::dropout::{Dropout, Site, Slot, StackId};
use super::error::{ModelError, Result};
use super::layers::{activate, ffn, layer_norm, linear, norm, LayerNormWeights, NormTrace};
use super::position::{self, Rope};
use super::subword::SubwordTokenizer;
use super::tokenizer::{Tokenizer, BOS, PAD};
use super::trace::{AttentionKind, BlockTrace, StackTrace, SublayerTrace, Trace};
use super::weights::{init_tensors, parameter_count, BlockWeights, StackWeights, Weights};
use ndarray::{Array1, Array2, ArrayView2, Axis};

thread_local! {
    /// Forward passes (whole inputs, and cached decoding steps) run on this thread. The app's
    /// frame tests read it to prove that a frame which changes nothing computes nothing.
    static FORWARD_PASSES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many forward passes and decoding steps (traced or not) have run on the calling thread.
pub fn forward_passes_on_this_thread() -> u64 {
    FORWARD_PASSES.with(std::cell::Cell::get)
}

/// Counts one forward pass on this thread.
pub(super) fn count_forward_pass() {
    FORWARD_PASSES.with(|n| n.set(n.get() + 1));
}

/// Largest model `Model::random` will allocate (parameters).
pub const MAX_RANDOM_PARAMETERS: usize = 64 * 1024 * 1024;

/// Token ids for the stacks: `source` feeds the encoder, `target` the decoder
/// (already starting with `<bos>`). A family ignores the side it does not have.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelInput {
    pub source: Vec<u32>,
    pub target: Vec<u32>,
    /// Token types (segments) of `source`, for models with token-type embeddings (BERT's
    /// sentence A = 0, B = 1). Empty: every token is type 0.
    pub source_types: Vec<u32>,
}

/// Text turned into model input, with what the user should be told about it.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedInput {
    pub input: ModelInput,
    /// Pieces not in the vocabulary (shown as `<unk>`).
    pub unknown: usize,
    /// Tokens cut off because the input was longer than the model's `max_len`.
    pub truncated: usize,
    /// The word of every token of the source and of the target (`model::words`).
    pub source_words: Vec<usize>,
    pub target_words: Vec<usize>,
}

impl PreparedInput {
    /// The token ids and words a stack's queries come from: the source for the encoder's
    /// self-attention, the target for the decoder's self- and cross-attention.
    pub fn sequence(&self, kind: AttentionKind) -> crate::model::heads::Sequence<'_> {
        let (tokens, words) = match kind {
            AttentionKind::EncoderSelf => (&self.input.source, &self.source_words),
            _ => (&self.input.target, &self.target_words),
        };
        crate::model::heads::Sequence { tokens, words }
    }
}

/// Run-time choices that change the computation without changing the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ForwardOptions {
    /// Softmax temperature τ (> 0): scores are divided by `√d_k · τ`.
    pub temperature: f32,
    /// The self-attention mask of the main stack (the decoder if there is one).
    pub self_mask: MaskChoice,
    /// The cross-attention mask (`Default` and `None`: every source token).
    pub cross_mask: MaskChoice,
    /// Block keys that are `<pad>` tokens.
    pub mask_padding: bool,
    /// Training only: dropout on embeddings, attention weights and sub-layer outputs.
    pub dropout: Option<Dropout>,
    /// Heads switched off (ablation): their output is zeroed before the concatenation and
    /// W_O, as if the head were not there.
    pub heads_off: Vec<HeadId>,
    /// Activations replaced inside the pass (activation patching); none by default.
    pub interventions: Vec<Intervention>,
}

/// One activation of a forward pass replaced by a value from elsewhere (another run's).
#[derive(Debug, Clone, PartialEq)]
pub enum Intervention {
    /// Row `position` of the input of block `layer` (`resid[layer]`) of the stack whose
    /// self-attention is `kind`.
    Residual {
        kind: AttentionKind,
        layer: usize,
        position: usize,
        value: Vec<f32>,
    },
    /// A head's output (its slice of W_O's input), `[T, d_head]`, at every position.
    Head { head: HeadId, value: Array2<f32> },
}

/// One attention head of a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct HeadId {
    pub kind: AttentionKind,
    pub layer: usize,
    pub head: usize,
}

impl Default for ForwardOptions {
    fn default() -> Self {
        Self {
            temperature: 1.0,
            self_mask: MaskChoice::Default,
            cross_mask: MaskChoice::Default,
            mask_padding: true,
            dropout: None,
            heads_off: Vec::new(),
            interventions: Vec::new(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Model {
    pub config: ModelConfig,
    pub tokenizer: Tokenizer,
    pub weights: Weights,
}

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

/// What a forward pass settles before any arithmetic: the checked ids of a stack, their
/// tokens and positions, and its masks. The CPU path and the GPU path (`gpu/`) both start here.
#[derive(Debug, Clone)]
pub(crate) struct StackPlan {
    pub ids: Vec<u32>,
    /// Token types (empty: all 0).
    pub types: Vec<u32>,
    pub tokens: Vec<String>,
    pub positions: Vec<usize>,
    /// The self-attention mask, padding keys blocked.
    pub allowed: Array2<bool>,
    /// Which rows are `<pad>` (and masked as keys) — the encoder's become cross-attention keys.
    pub pads: Vec<bool>,
    /// A user's cross-attention mask `[T, T_src]` (decoder of an encoder–decoder only).
    pub cross_allowed: Option<Array2<bool>>,
}

#[derive(Debug, Clone)]
pub(crate) struct ForwardPlan {
    pub encoder: Option<StackPlan>,
    pub decoder: Option<StackPlan>,
}

/// The cross-attention mask of `t` queries over a memory whose pad keys are `mem_pad`.
pub(crate) fn cross_attention_mask(
    user: Option<&Array2<bool>>,
    t: usize,
    mem_pad: &[bool],
) -> Array2<bool> {
    let mut allowed = user.cloned().unwrap_or_else(|| full_mask(t, mem_pad.len()));
    block_keys(&mut allowed, mem_pad);
    allowed
}

/// The run of a stack over a whole planned input (no cache).
pub(super) fn planned_run<'a>(
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

/// The embedding layer's result and its parts.
pub(crate) struct Embedded {
    /// The first block's input.
    pub x: Array2<f32>,
    pub positional: Option<Array2<f32>>,
    pub token_types: Option<Array2<f32>>,
    pub norm: Option<NormTrace>,
}

/// Everything one stack run needs besides its weights.
pub(super) struct StackRun<'a> {
    ids: &'a [u32],
    types: &'a [u32],
    /// Positions of the rows being computed.
    positions: Vec<usize>,
    /// Positions and labels of the self-attention keys (equal to the rows without a cache).
    key_positions: Vec<usize>,
    key_tokens: Vec<String>,
    self_allowed: Array2<bool>,
    memory: Option<(ArrayView2<'a, f32>, &'a [String], &'a [bool])>,
    /// A user's cross-attention mask `[T, T_src]` (before padding); `None`: every key.
    cross_allowed: Option<Array2<bool>>,
    caches: Option<&'a mut [LayerCache]>,
    temperature: f32,
    /// Dropout and the stack it draws its sites from.
    dropout: Option<(Dropout, StackId)>,
    /// Keep each block's trace (`false`: only the stack's output survives, and each block's
    /// intermediates are freed as soon as the next block starts).
    keep_blocks: bool,
    /// Which stack this is: the kind of its self-attention.
    stack: StackId,
    /// Heads switched off, in any stack (each block picks its own).
    heads_off: Vec<HeadId>,
    /// Activations replaced, in any stack (each block picks its own).
    interventions: Vec<Intervention>,
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
                if *kind == self.self_kind()
                    && *l == layer
                    && *position < x.nrows()
                    && value.len() == x.ncols()
                {
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
pub(super) struct StackSoFar {
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
    pub fn new(config: ModelConfig, weights: Weights) -> Result<Self> {
        config.validate()?;
        let tokenizer = Tokenizer::new(config.tokenizer.clone())?;
        Ok(Self {
            config,
            tokenizer,
            weights,
        })
    }

    /// A model with its own tokenizer (a real checkpoint's); `config.tokenizer` lists how
    /// the tokenizer shows each id.
    pub fn with_tokenizer(
        config: ModelConfig,
        tokenizer: Tokenizer,
        weights: Weights,
    ) -> Result<Self> {
        config.validate()?;
        Ok(Self {
            config,
            tokenizer,
            weights,
        })
    }

    /// A freshly initialised model, deterministic for a seed.
    pub fn random(config: ModelConfig, seed: u64) -> Result<Self> {
        config.validate()?;
        let n = parameter_count(&config);
        if n > MAX_RANDOM_PARAMETERS {
            return Err(ModelError::Config(format!(
                "this config has {n} parameters, more than the {MAX_RANDOM_PARAMETERS} Glimpse will allocate"
            )));
        }
        let weights = Weights::from_tensors(&config, init_tensors(&config, seed))?;
        Self::new(config, weights)
    }

    /// Tokenize text for this model's family, cutting anything past `max_len`.
    /// `source` feeds the encoder; `target` the decoder (after `<bos>`). A decoder-only model
    /// reads `source` when `target` is empty, so one text box serves every family.
    /// A checkpoint's own tokenizer adds the special tokens it was trained with instead
    /// (`[CLS] … [SEP]` with token types for BERT, `<s>` where a Llama adds it, none for GPT-2).
    pub fn prepare(&self, source: &str, target: &str) -> PreparedInput {
        if let Some(t) = self.tokenizer.as_subword() {
            let text = if target.is_empty() { source } else { target };
            return self.prepare_subword(t, text);
        }
        let max = self.config.max_len;
        let mut unknown = 0;
        let mut truncated = 0;
        let mut encode = |text: &str, with_bos: bool| {
            let e = self.tokenizer.encode(text);
            unknown += e.unknown;
            let mut ids = Vec::with_capacity(e.ids.len() + 1);
            if with_bos {
                ids.push(BOS);
            }
            ids.extend(e.ids);
            truncated += ids.len().saturating_sub(max);
            ids.truncate(max);
            ids
        };
        let family = self.config.family;
        let input = match (family.has_encoder(), family.has_decoder()) {
            (true, false) => ModelInput {
                source: encode(source, false),
                target: vec![],
                ..Default::default()
            },
            (false, true) => ModelInput {
                source: vec![],
                target: encode(if target.is_empty() { source } else { target }, true),
                ..Default::default()
            },
            _ => ModelInput {
                source: encode(source, false),
                target: encode(target, true),
                ..Default::default()
            },
        };
        self.prepared(input, unknown, truncated)
    }

    fn prepare_subword(&self, t: &SubwordTokenizer, text: &str) -> PreparedInput {
        let max = self.config.max_len;
        let encoded = t.encode(text, None, true).unwrap_or_default();
        let unk = t.specials().unk;
        let unknown = encoded.ids.iter().filter(|&&i| Some(i) == unk).count();
        let truncated = encoded.ids.len().saturating_sub(max);
        let (mut ids, mut types) = (encoded.ids, encoded.type_ids);
        ids.truncate(max);
        types.truncate(max);
        let input = self.input_from_ids(ids, types);
        self.prepared(input, unknown, truncated)
    }

    fn prepared(&self, input: ModelInput, unknown: usize, truncated: usize) -> PreparedInput {
        PreparedInput {
            source_words: super::words::words_of(&self.tokenizer, &input.source),
            target_words: super::words::words_of(&self.tokenizer, &input.target),
            input,
            unknown,
            truncated,
        }
    }

    /// Token ids (and token types) as the input of this model's one stack: the encoder's
    /// source, or the decoder's target.
    pub fn input_from_ids(&self, ids: Vec<u32>, types: Vec<u32>) -> ModelInput {
        if self.config.family.has_encoder() {
            ModelInput {
                source: ids,
                source_types: types,
                ..Default::default()
            }
        } else {
            ModelInput {
                target: ids,
                ..Default::default()
            }
        }
    }

    fn check_ids(&self, ids: &[u32], side: &str) -> Result<()> {
        if ids.is_empty() {
            return Err(ModelError::Input(format!(
                "the {side} is empty: type at least one token"
            )));
        }
        if ids.len() > self.config.max_len {
            return Err(ModelError::TooLong {
                len: ids.len(),
                max: self.config.max_len,
            });
        }
        let vocab = self.config.vocab_size();
        match ids.iter().find(|&&i| i as usize >= vocab) {
            Some(&id) => Err(ModelError::BadTokenId { id, vocab }),
            None => Ok(()),
        }
    }

    /// Token types are one per token (or none), each with an embedding row.
    fn check_types(&self, types: &[u32], t: usize) -> Result<()> {
        if types.is_empty() {
            return Ok(());
        }
        if types.len() != t {
            return Err(ModelError::Input(format!(
                "{} token types for {t} tokens: give one type per token",
                types.len()
            )));
        }
        let n = self.config.extensions.token_types.max(1);
        match types.iter().find(|&&ty| ty as usize >= n) {
            Some(ty) => Err(ModelError::Input(format!(
                "token type {ty} is outside the model's {n} token types"
            ))),
            None => Ok(()),
        }
    }

    pub(crate) fn check_options(&self, opts: &ForwardOptions) -> Result<()> {
        if !(opts.temperature > 0.0 && opts.temperature.is_finite()) {
            return Err(ModelError::Input(format!(
                "temperature must be a positive number, got {}",
                opts.temperature
            )));
        }
        Ok(())
    }

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

    /// The first block's input for rows at `positions`: token embeddings plus absolute
    /// positional encodings (plus token-type rows, then a LayerNorm, where the model has them).
    pub(crate) fn embed(&self, ids: &[u32], types: &[u32], positions: &[usize]) -> Embedded {
        let d = self.config.d_model;
        let mut x = Array2::zeros((ids.len(), d));
        for (row, &id) in x.rows_mut().into_iter().zip(ids) {
            self.weights.tok_embed.row_into(id as usize, row);
        }
        let positional = match (self.config.positional, &self.weights.pos_embed) {
            (Positional::Sinusoidal { base }, _) => Some(position::sinusoidal(positions, d, base)),
            (Positional::Learned, Some(table)) => Some(table.select(Axis(0), positions)),
            _ => None,
        };
        if let Some(p) = &positional {
            x += p;
        }
        let token_types = self.weights.type_embed.as_ref().map(|table| {
            let rows: Vec<usize> = (0..ids.len())
                .map(|i| types.get(i).map_or(0, |&t| t as usize))
                .collect();
            table.select(Axis(0), &rows)
        });
        if let Some(t) = &token_types {
            x += t;
        }
        let norm = self
            .weights
            .embed_norm
            .as_ref()
            .map(|ln| layer_norm(x.view(), ln, self.config.ln_eps));
        if let Some(n) = &norm {
            x = n.output.clone();
        }
        Embedded {
            x,
            positional,
            token_types,
            norm,
        }
    }

    /// `x + drop(f(LN(x)))` (pre-norm) or `LN(x + drop(f(x)))` (post-norm).
    fn sublayer<T>(
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

    fn stack(&self, stack: &StackWeights, mut run: StackRun) -> Result<StackTrace> {
        let mut so_far = self.begin_stack(&run);
        let mut caches = run.caches.take();
        for _ in 0..stack.blocks.len() {
            let cache = caches.as_deref_mut().and_then(|c| c.get_mut(so_far.done));
            self.next_block(stack, &mut so_far, &run, cache)?;
        }
        Ok(self.finish_stack(stack, so_far, &run))
    }

    /// The embedding of a stack's input: the first block's input.
    pub(super) fn begin_stack(&self, run: &StackRun) -> StackSoFar {
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
    pub(super) fn next_block(
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
    pub(super) fn finish_stack(
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

    fn self_mask(
        &self,
        choice: &MaskChoice,
        causal_default: bool,
        t: usize,
    ) -> Result<Array2<bool>> {
        let pos: Vec<usize> = (0..t).collect();
        Ok(match choice {
            MaskChoice::Default if causal_default => causal_mask(&pos, &pos),
            MaskChoice::Default | MaskChoice::None => full_mask(t, t),
            MaskChoice::Causal => causal_mask(&pos, &pos),
            MaskChoice::Prefix(n) => attention::prefix_mask(t, *n),
            MaskChoice::Custom(m) => {
                if m.dim() != (t, t) {
                    return Err(ModelError::Input(format!(
                        "the custom mask is {}×{} but the input has {t} tokens",
                        m.nrows(),
                        m.ncols()
                    )));
                }
                m.clone()
            }
        })
    }

    /// A user's cross-attention mask over `t` target rows and `s` source keys: causal and
    /// prefix compare target and source positions as if the two were aligned.
    fn cross_mask(&self, choice: &MaskChoice, t: usize, s: usize) -> Result<Array2<bool>> {
        let (q, k): (Vec<usize>, Vec<usize>) = ((0..t).collect(), (0..s).collect());
        Ok(match choice {
            MaskChoice::Default | MaskChoice::None => full_mask(t, s),
            MaskChoice::Causal => causal_mask(&q, &k),
            MaskChoice::Prefix(n) => Array2::from_shape_fn((t, s), |(i, j)| j <= i || j < *n),
            MaskChoice::Custom(m) => {
                if m.dim() != (t, s) {
                    return Err(ModelError::Input(format!(
                        "the custom cross-attention mask is {}×{} but the input is {t}×{s}",
                        m.nrows(),
                        m.ncols()
                    )));
                }
                m.clone()
            }
        })
    }

    /// The output head: `h·W_vocabᵀ + b` (after BERT's `LN(act(h·Wᵀ + b))` transform for a
    /// masked-LM head); `[T, 0]` for a model without a head.
    fn logits(&self, output: &Array2<f32>) -> Array2<f32> {
        match self.logits_input(output) {
            Some(h) => self.logits_columns(h.view(), 0..self.weights.output_matrix().rows()),
            None => Array2::zeros((output.nrows(), 0)),
        }
    }

    /// What the output layer reads: the last stack's output, through BERT's MLM transform
    /// when the model has one. `None`: no output layer (a sentence encoder).
    pub(super) fn logits_input<'a>(
        &self,
        output: &'a Array2<f32>,
    ) -> Option<std::borrow::Cow<'a, Array2<f32>>> {
        use std::borrow::Cow;
        self.weights.lm_bias.as_ref()?;
        Some(match &self.weights.mlm {
            Some(t) => {
                let act = self.config.activation;
                let h = linear(output.view(), &t.w, &t.b).mapv(|z| activate(z, act));
                Cow::Owned(layer_norm(h.view(), &t.norm, self.config.ln_eps).output)
            }
            None => Cow::Borrowed(output),
        })
    }

    /// logits = h·W_vocabᵀ + b for the vocabulary entries `cols` (the whole vocabulary in one
    /// pass, a band of it per slice in `model::sliced`).
    pub(super) fn logits_columns(
        &self,
        h: ArrayView2<f32>,
        cols: std::ops::Range<usize>,
    ) -> Array2<f32> {
        let w = &self.weights;
        let Some(bias) = &w.lm_bias else {
            return Array2::zeros((h.nrows(), 0));
        };
        w.output_matrix()
            .linear(h, cols.clone(), bias.slice(ndarray::s![cols]))
    }

    fn pads(&self, ids: &[u32], opts: &ForwardOptions) -> Vec<bool> {
        // A pad id that doubles as BOS or EOS (SmolLM2 pads with its EOS) marks no padding:
        // those tokens are real input.
        let s = self.tokenizer.specials();
        let pad = s.pad.filter(|&p| s.bos != Some(p) && s.eos != Some(p));
        ids.iter()
            .map(|&i| opts.mask_padding && Some(i) == pad)
            .collect()
    }

    /// The encoder's plan over `source` (the user's mask applies here only in encoder-only
    /// models).
    fn encoder_plan(
        &self,
        source: &[u32],
        types: &[u32],
        opts: &ForwardOptions,
        user_mask: bool,
    ) -> Result<StackPlan> {
        self.check_ids(source, "source")?;
        let t = source.len();
        self.check_types(types, t)?;
        let choice = if user_mask {
            &opts.self_mask
        } else {
            &MaskChoice::Default
        };
        let mut allowed = self.self_mask(choice, false, t)?;
        let pads = self.pads(source, opts);
        block_keys(&mut allowed, &pads);
        Ok(StackPlan {
            ids: source.to_vec(),
            types: types.to_vec(),
            tokens: self.tokenizer.tokens(source),
            positions: (0..t).collect(),
            allowed,
            pads,
            cross_allowed: None,
        })
    }

    /// Checks the input and options and settles every mask, for either path.
    pub(crate) fn plan(&self, input: &ModelInput, opts: &ForwardOptions) -> Result<ForwardPlan> {
        self.check_options(opts)?;
        let family = self.config.family;
        let encoder = if family.has_encoder() {
            Some(self.encoder_plan(
                &input.source,
                &input.source_types,
                opts,
                !family.has_decoder(),
            )?)
        } else {
            None
        };
        let decoder = if family.has_decoder() {
            self.check_ids(&input.target, "target")?;
            let t = input.target.len();
            let mut allowed = self.self_mask(&opts.self_mask, self.config.causal, t)?;
            let pads = self.pads(&input.target, opts);
            block_keys(&mut allowed, &pads);
            let cross_allowed = match (&opts.cross_mask, &encoder) {
                (MaskChoice::Default | MaskChoice::None, _) | (_, None) => None,
                (choice, Some(_)) => Some(self.cross_mask(choice, t, input.source.len())?),
            };
            Some(StackPlan {
                ids: input.target.clone(),
                types: Vec::new(),
                tokens: self.tokenizer.tokens(&input.target),
                positions: (0..t).collect(),
                allowed,
                pads,
                cross_allowed,
            })
        } else {
            None
        };
        Ok(ForwardPlan { encoder, decoder })
    }

    /// A stack over a whole planned input (no cache).
    fn run_planned(
        &self,
        stack: &StackWeights,
        plan: &StackPlan,
        memory: Option<(ArrayView2<f32>, &[String], &[bool])>,
        opts: &ForwardOptions,
        id: StackId,
        keep_blocks: bool,
    ) -> Result<StackTrace> {
        self.stack(stack, planned_run(plan, memory, opts, id, keep_blocks))
    }

    /// The traced forward pass over a whole input.
    pub fn forward(&self, input: &ModelInput, opts: &ForwardOptions) -> Result<Trace> {
        self.forward_keeping(input, opts, true)
    }

    /// The forward pass without its trace: the same logits `[T, V]` (every position) as
    /// [`Model::forward`], the intermediates freed layer by layer instead of kept. For timing
    /// the trace's cost, and for callers that only want the output.
    pub fn forward_logits(&self, input: &ModelInput, opts: &ForwardOptions) -> Result<Array2<f32>> {
        Ok(self.forward_keeping(input, opts, false)?.logits)
    }

    fn forward_keeping(
        &self,
        input: &ModelInput,
        opts: &ForwardOptions,
        keep_blocks: bool,
    ) -> Result<Trace> {
        count_forward_pass();
        let plan = self.plan(input, opts)?;
        let encoder = match (&self.weights.encoder, &plan.encoder) {
            (Some(stack), Some(p)) => {
                Some(self.run_planned(stack, p, None, opts, StackId::Encoder, keep_blocks)?)
            }
            _ => None,
        };
        let decoder = match (&self.weights.decoder, &plan.decoder) {
            (Some(stack), Some(p)) => {
                let memory = encoder
                    .as_ref()
                    .zip(plan.encoder.as_ref())
                    .map(|(e, ep)| (e.output.view(), e.tokens.as_slice(), ep.pads.as_slice()));
                Some(self.run_planned(stack, p, memory, opts, StackId::Decoder, keep_blocks)?)
            }
            _ => None,
        };
        Ok(self.trace_of(encoder, decoder))
    }

    /// The trace of a whole pass, its logits from the last stack's output.
    pub(super) fn trace_of(
        &self,
        encoder: Option<StackTrace>,
        decoder: Option<StackTrace>,
    ) -> Trace {
        let last = decoder.as_ref().or(encoder.as_ref()).map(|s| &s.output);
        let logits = last.map(|o| self.logits(o)).unwrap_or_default();
        self.trace_with(encoder, decoder, logits)
    }

    /// The trace of a whole pass whose logits are already computed.
    pub(super) fn trace_with(
        &self,
        encoder: Option<StackTrace>,
        decoder: Option<StackTrace>,
        logits: Array2<f32>,
    ) -> Trace {
        Trace {
            model: self.config.name.clone(),
            family: self.config.family,
            encoder,
            decoder,
            logits,
        }
    }

    /// Sequences of different lengths padded with `<pad>` to the longest, each run with the
    /// padding mask (unless `opts.mask_padding` is off, to show what goes wrong).
    pub fn forward_batch(
        &self,
        inputs: &[ModelInput],
        opts: &ForwardOptions,
    ) -> Result<Vec<Trace>> {
        let longest_src = inputs.iter().map(|i| i.source.len()).max().unwrap_or(0);
        let longest_tgt = inputs.iter().map(|i| i.target.len()).max().unwrap_or(0);
        inputs
            .iter()
            .map(|i| {
                let mut padded = i.clone();
                let pad = self.tokenizer.specials().pad.unwrap_or(PAD);
                padded.source.resize(longest_src, pad);
                padded.target.resize(longest_tgt, pad);
                self.forward(&padded, opts)
            })
            .collect()
    }

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
    }
}

/// Reading the residual stream out, and resuming a pass part-way (the logit lens and
/// activation patching, `crate::analysis`).
impl Model {
    /// Whether the model predicts tokens (a sentence encoder such as MiniLM has no output layer).
    pub fn has_output_layer(&self) -> bool {
        self.weights.lm_bias.is_some()
    }

    /// The stack whose output the output layer reads (the decoder where there is one).
    pub fn read_stack_weights(&self) -> Option<&StackWeights> {
        self.weights
            .decoder
            .as_ref()
            .or(self.weights.encoder.as_ref())
    }

    /// `W_U · final_norm(resid) + b_U` for rows of that stack's residual stream: what the
    /// model would predict if its stack ended there (`[T, 0]` without an output layer).
    pub fn read_out(&self, resid: ArrayView2<f32>) -> Array2<f32> {
        let ln_f = self.read_stack_weights().and_then(|s| s.ln_f.as_ref());
        let normed = match ln_f {
            Some(ln) => {
                norm(
                    self.config.extensions.norm_kind,
                    resid,
                    ln,
                    self.config.ln_eps,
                )
                .output
            }
            None => resid.to_owned(),
        };
        self.logits(&normed)
    }

    /// A decoder-only model's pass resumed at block `from` on `x` (that block's input rows),
    /// with `opts`' interventions, and the logits at `position` only: patching one block
    /// recomputes neither the blocks before it nor the output layer at the other positions.
    pub fn resume_decoder(
        &self,
        input: &ModelInput,
        opts: &ForwardOptions,
        from: usize,
        x: Array2<f32>,
        position: usize,
    ) -> Result<Array1<f32>> {
        let plan = self.plan(input, opts)?;
        let (None, Some(stack), Some(p)) = (&plan.encoder, &self.weights.decoder, &plan.decoder)
        else {
            return Err(ModelError::Input(format!(
                "{} is not a decoder-only model: a pass resumes part-way only there",
                self.config.name
            )));
        };
        if x.dim() != (p.ids.len(), self.config.d_model) || position >= p.ids.len() {
            return Err(ModelError::Input(format!(
                "a resumed pass needs {} rows of {} and a position among them",
                p.ids.len(),
                self.config.d_model
            )));
        }
        count_forward_pass();
        let run = planned_run(p, None, opts, StackId::Decoder, false);
        let mut so_far = StackSoFar {
            tokens: p.tokens.clone(),
            embed: Array2::zeros((0, 0)),
            embed_dropout: None,
            positional: None,
            token_types: None,
            embed_norm: None,
            x,
            blocks: Vec::new(),
            done: from,
        };
        while so_far.done < stack.blocks.len() {
            self.next_block(stack, &mut so_far, &run, None)?;
        }
        let row = so_far
            .x
            .slice_axis(Axis(0), ndarray::Slice::from(position..position + 1));
        Ok(self.read_out(row).row(0).to_owned())
    }
}
