//! The transformer: one block template, three families, a traced forward pass, and
//! incremental decoding with a key/value cache.
//!
//! - [`input`]: text and token ids into checked model input;
//! - [`plan`]: what a pass settles before any arithmetic (ids, positions, masks);
//! - [`embed`]: the embedding layer, the first block's input;
//! - [`stack`]: the block template (attention, cross-attention, FFN) and a stack of blocks;
//! - [`forward`]: the whole-input pass and the output head;
//! - [`decode`]: incremental decoding with a key/value cache;
//! - [`resume`]: variants of a decoder-only run resumed part-way, side by side (patching).

mod decode;
mod embed;
mod forward;
mod input;
mod plan;
mod read_out;
mod resume;
mod stack;

pub use decode::{DecodeState, LayerCache, StepOutput};
pub(crate) use embed::Embedded;
// The GPU path settles the same masks (`gpu/forward.rs`).
#[cfg(feature = "webgpu")]
pub(crate) use plan::cross_attention_mask;
pub(crate) use plan::{ForwardPlan, StackPlan};
pub use resume::{BlockKv, Resumption, Variant};
pub(super) use stack::{planned_run, StackSoFar};

use super::attention::MaskChoice;
use super::config::ModelConfig;
use super::dropout::Dropout;
use super::error::{ModelError, Result};
use super::tokenizer::Tokenizer;
use super::trace::AttentionKind;
use super::weights::{init_tensors, parameter_count, Weights};
use ndarray::Array2;

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
}
