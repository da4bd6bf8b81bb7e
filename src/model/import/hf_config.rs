//! Hugging Face `config.json` as typed, validated configs (REAL_MODELS.md §1), one per
//! architecture family Glimpse runs.
//!
//! Supported `model_type`s, and why:
//! - `bert`: BERT encoders (BertModel, BertForMaskedLM), absolute positions only.
//! - `gpt2`: GPT-2 (Conv1D weights, fused QKV), `n_*` keys or their `hidden_size`-style aliases.
//! - `llama`: Llama 1/2/3 and look-alikes saved as `llama` (SmolLM, TinyLlama), with RoPE
//!   `default`, `linear` or `llama3` scaling.
//! - `mistral`: the Llama block exactly (same tensor names, no biases, same RoPE), plus an
//!   optional sliding window, reported in `LlamaConfig::sliding_window`: attention is identical
//!   to Llama's while the input is no longer than the window.
//! - `qwen2`: the Llama block with biases on q, k and v (never on o); represented as
//!   `attention_bias = true`, `o_proj_bias = false`. Configs with `use_sliding_window: true`
//!   are refused (Qwen2 windows only some layers).
//!
//! Anything else (GPT-Neo, RoBERTa, Phi, Gemma, …) is refused with the list above: each has
//! some rule of its own (no 1/√d scaling, offset positions, partial rotary, …) that the Llama
//! or BERT block would silently get wrong.
//!
//! Each family's config and its parser live in [`bert`], [`gpt2`] and [`llama`] (RoPE's base
//! and scaling in [`rope`]); [`keys`] reads typed, checked values out of the JSON.

mod bert;
mod gpt2;
mod keys;
mod llama;
mod rope;

pub use bert::BertConfig;
pub use gpt2::Gpt2Config;
pub use llama::{LlamaConfig, LlamaFlavor};
pub use rope::{Rope, RopeScaling};

use super::error::{ImportError, Result};
use bert::bert;
use gpt2::gpt2;
use keys::Keys;
use llama::llama;
use serde_json::Value;

pub const SUPPORTED_MODEL_TYPES: [&str; 5] = ["bert", "gpt2", "llama", "mistral", "qwen2"];
const FILE: &str = "config.json";
/// Real config files are a few kilobytes (a large `id2label` makes a few hundred).
const MAX_CONFIG_BYTES: usize = 16 << 20;

/// Caps that no model Glimpse can run comes near; an absurd config fails here, cleanly,
/// instead of asking for terabytes later.
pub mod caps {
    pub const VOCAB: usize = 1 << 21;
    pub const HIDDEN: usize = 1 << 16;
    pub const LAYERS: usize = 512;
    pub const HEADS: usize = 1024;
    pub const HEAD_DIM: usize = 1024;
    pub const INTERMEDIATE: usize = 1 << 20;
    pub const POSITIONS: usize = 1 << 24;
    pub const TYPE_VOCAB: usize = 1024;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activation {
    /// `gelu`: exact, ½x(1 + erf(x/√2)).
    Gelu,
    /// `gelu_new` and `gelu_pytorch_tanh`: the same tanh approximation,
    /// ½x(1 + tanh(√(2/π)(x + 0.044715x³))).
    GeluTanh,
    Relu,
    /// `silu` and `swish`: x·σ(x).
    Silu,
}

impl Activation {
    pub fn parse(name: &str) -> Option<Activation> {
        Some(match name {
            "gelu" => Activation::Gelu,
            "gelu_new" | "gelu_pytorch_tanh" => Activation::GeluTanh,
            "relu" => Activation::Relu,
            "silu" | "swish" => Activation::Silu,
            _ => return None,
        })
    }
}

/// Special token ids from config.json (the tokenizer files may say more). Ids are kept as
/// written even when they lie outside the vocabulary: transformers writes GPT-2's 50256 into
/// every GPT-2 config, tiny random ones included. `in_vocab` drops those.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SpecialTokens {
    pub bos: Option<u32>,
    /// One or several (Llama 3.1 lists three).
    pub eos: Vec<u32>,
    pub pad: Option<u32>,
    pub unk: Option<u32>,
    pub cls: Option<u32>,
    pub sep: Option<u32>,
    pub mask: Option<u32>,
}

impl SpecialTokens {
    /// The same ids without those ≥ `vocab_size`.
    pub fn in_vocab(&self, vocab_size: usize) -> SpecialTokens {
        let ok = |id: &Option<u32>| id.filter(|&i| (i as usize) < vocab_size);
        SpecialTokens {
            bos: ok(&self.bos),
            eos: self
                .eos
                .iter()
                .copied()
                .filter(|&i| (i as usize) < vocab_size)
                .collect(),
            pad: ok(&self.pad),
            unk: ok(&self.unk),
            cls: ok(&self.cls),
            sep: ok(&self.sep),
            mask: ok(&self.mask),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Architecture {
    Bert(BertConfig),
    Gpt2(Gpt2Config),
    Llama(LlamaConfig),
}

impl Architecture {
    /// Parses config.json text: picks the family by `model_type`, fills Hugging Face's
    /// defaults for absent keys, and validates sizes.
    pub fn from_config_json(text: &str) -> Result<Architecture> {
        if text.len() > MAX_CONFIG_BYTES {
            return Err(bad(format!(
                "it is {} bytes, more than the {MAX_CONFIG_BYTES} a config can need",
                text.len()
            )));
        }
        let value: Value =
            serde_json::from_str(text).map_err(|e| bad(format!("it is not valid JSON: {e}")))?;
        let Value::Object(obj) = value else {
            return Err(bad("it is not a JSON object".into()));
        };
        let c = Keys(&obj);
        let model_type = match obj.get("model_type") {
            Some(Value::String(s)) => s.as_str(),
            Some(_) => return Err(bad("`model_type` is not a string".into())),
            None => {
                return Err(bad(format!(
                    "it has no `model_type`; Glimpse opens {}",
                    SUPPORTED_MODEL_TYPES.join(", ")
                )));
            }
        };
        match model_type {
            "bert" => bert(&c).map(Architecture::Bert),
            "gpt2" => gpt2(&c).map(Architecture::Gpt2),
            "llama" => llama(&c, LlamaFlavor::Llama).map(Architecture::Llama),
            "mistral" => llama(&c, LlamaFlavor::Mistral).map(Architecture::Llama),
            "qwen2" => llama(&c, LlamaFlavor::Qwen2).map(Architecture::Llama),
            other => Err(ImportError::UnsupportedModelType {
                file: FILE.into(),
                found: other.into(),
                supported: SUPPORTED_MODEL_TYPES.join(", "),
            }),
        }
    }

    pub fn model_type(&self) -> &'static str {
        match self {
            Architecture::Bert(_) => "bert",
            Architecture::Gpt2(_) => "gpt2",
            Architecture::Llama(l) => match l.flavor {
                LlamaFlavor::Llama => "llama",
                LlamaFlavor::Mistral => "mistral",
                LlamaFlavor::Qwen2 => "qwen2",
            },
        }
    }

    pub fn special_tokens(&self) -> &SpecialTokens {
        match self {
            Architecture::Bert(c) => &c.special,
            Architecture::Gpt2(c) => &c.special,
            Architecture::Llama(c) => &c.special,
        }
    }

    pub fn vocab_size(&self) -> usize {
        match self {
            Architecture::Bert(c) => c.vocab_size,
            Architecture::Gpt2(c) => c.vocab_size,
            Architecture::Llama(c) => c.vocab_size,
        }
    }
}

fn bad(reason: String) -> ImportError {
    ImportError::Config {
        file: FILE.into(),
        reason,
    }
}

#[cfg(test)]
mod tests;
