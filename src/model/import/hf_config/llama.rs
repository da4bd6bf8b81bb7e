//! Llama and its look-alikes (Mistral, Qwen2): the config, the rules it must meet however
//! it was read, and config.json's keys with Hugging Face's defaults per flavour.

use super::keys::{heads_divide, Keys};
use super::rope::{rope, Rope};
use super::{bad, caps, Activation, SpecialTokens};
use crate::model::import::error::Result;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LlamaFlavor {
    Llama,
    Mistral,
    Qwen2,
}

/// Llama and its look-alikes (see the module comment).
#[derive(Debug, Clone, PartialEq)]
pub struct LlamaConfig {
    pub flavor: LlamaFlavor,
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub intermediate_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    /// Key/value heads (grouped-query attention); query head h reads kv head
    /// h / (num_attention_heads / num_key_value_heads).
    pub num_key_value_heads: usize,
    /// May differ from hidden_size / num_attention_heads when config.json says so.
    pub head_dim: usize,
    pub hidden_act: Activation,
    pub max_position_embeddings: usize,
    pub rms_norm_eps: f32,
    pub rope: Rope,
    /// Biases on q_proj, k_proj and v_proj.
    pub attention_bias: bool,
    /// Bias on o_proj (Llama: same as attention_bias; Qwen2: never).
    pub o_proj_bias: bool,
    /// Biases on gate_proj, up_proj and down_proj.
    pub mlp_bias: bool,
    /// lm_head is embed_tokens.
    pub tie_word_embeddings: bool,
    /// Mistral: each query sees at most this many keys (itself included).
    pub sliding_window: Option<usize>,
    pub special: SpecialTokens,
    pub architectures: Vec<String>,
}

impl LlamaConfig {
    /// The rules every Llama-family config must meet, however it was read (config.json or
    /// GGUF metadata): sizes within `caps`, heads that group evenly, an even head size.
    pub fn check(&self) -> std::result::Result<(), String> {
        for (name, v, max) in [
            ("vocabulary size", self.vocab_size, caps::VOCAB),
            ("hidden size", self.hidden_size, caps::HIDDEN),
            (
                "feed-forward size",
                self.intermediate_size,
                caps::INTERMEDIATE,
            ),
            ("layer count", self.num_hidden_layers, caps::LAYERS),
            ("head count", self.num_attention_heads, caps::HEADS),
            (
                "key/value head count",
                self.num_key_value_heads,
                caps::HEADS,
            ),
            ("head size", self.head_dim, caps::HEAD_DIM),
            (
                "context length",
                self.max_position_embeddings,
                caps::POSITIONS,
            ),
        ] {
            if v == 0 || v > max {
                return Err(format!("the {name} is {v}; it must be between 1 and {max}"));
            }
        }
        if !self
            .num_attention_heads
            .is_multiple_of(self.num_key_value_heads)
        {
            return Err(format!(
                "{} query heads do not share {} key/value heads evenly",
                self.num_attention_heads, self.num_key_value_heads
            ));
        }
        if !self.head_dim.is_multiple_of(2) {
            return Err(format!(
                "the head size is {}; RoPE needs an even size",
                self.head_dim
            ));
        }
        if !(self.rms_norm_eps > 0.0 && self.rms_norm_eps < 1.0) {
            return Err(format!("the RMSNorm epsilon is {}", self.rms_norm_eps));
        }
        if !(self.rope.theta.is_finite() && self.rope.theta > 0.0) {
            return Err(format!("the RoPE base is {}", self.rope.theta));
        }
        Ok(())
    }
}

/// Hugging Face's defaults per flavour (configuration_{llama,mistral,qwen2}.py).
struct LlamaDefaults {
    vocab: usize,
    intermediate: usize,
    kv_heads: Option<usize>,
    positions: usize,
    bos: Option<u32>,
    eos: Option<u32>,
}

pub(super) fn llama(c: &Keys, flavor: LlamaFlavor) -> Result<LlamaConfig> {
    let d = match flavor {
        LlamaFlavor::Llama => LlamaDefaults {
            vocab: 32000,
            intermediate: 11008,
            kv_heads: None,
            positions: 2048,
            bos: Some(1),
            eos: Some(2),
        },
        LlamaFlavor::Mistral => LlamaDefaults {
            vocab: 32000,
            intermediate: 14336,
            kv_heads: Some(8),
            positions: 4096 * 32,
            bos: Some(1),
            eos: Some(2),
        },
        LlamaFlavor::Qwen2 => LlamaDefaults {
            vocab: 151936,
            intermediate: 22016,
            kv_heads: None,
            positions: 32768,
            bos: None,
            eos: None,
        },
    };
    let vocab_size = c.size("vocab_size", d.vocab, caps::VOCAB)?;
    let hidden_size = c.size("hidden_size", 4096, caps::HIDDEN)?;
    let num_attention_heads = c.size("num_attention_heads", 32, caps::HEADS)?;
    let num_key_value_heads = c.size(
        "num_key_value_heads",
        d.kv_heads.unwrap_or(num_attention_heads),
        caps::HEADS,
    )?;
    let head_dim = match c.get("head_dim") {
        Some(_) => c.size("head_dim", 0, caps::HEAD_DIM)?,
        None => heads_divide(
            hidden_size,
            num_attention_heads,
            "hidden_size",
            "num_attention_heads",
        )?,
    };
    if num_attention_heads % num_key_value_heads != 0 {
        return Err(bad(format!(
            "`num_attention_heads` ({num_attention_heads}) is not a multiple of `num_key_value_heads` ({num_key_value_heads})"
        )));
    }
    if head_dim % 2 != 0 || head_dim > caps::HEAD_DIM {
        return Err(bad(format!(
            "the head size is {head_dim}; RoPE needs an even size up to {}",
            caps::HEAD_DIM
        )));
    }
    let max_position_embeddings =
        c.size("max_position_embeddings", d.positions, caps::POSITIONS)?;
    // Mistral never has biases; Qwen2 always has them on q, k, v and never on o.
    let (attention_bias, o_proj_bias, mlp_bias) = match flavor {
        LlamaFlavor::Llama => {
            let a = c.boolean("attention_bias", false)?;
            (a, a, c.boolean("mlp_bias", false)?)
        }
        LlamaFlavor::Mistral => (false, false, false),
        LlamaFlavor::Qwen2 => (true, false, false),
    };
    let sliding_window = match flavor {
        LlamaFlavor::Llama => None,
        LlamaFlavor::Mistral => match c.get("sliding_window") {
            None => None,
            Some(_) => Some(c.size("sliding_window", 0, caps::POSITIONS)?),
        },
        LlamaFlavor::Qwen2 => {
            if c.boolean("use_sliding_window", false)? {
                return Err(bad(
                    "Qwen2 with `use_sliding_window: true` windows only some \
                                layers, which Glimpse does not run"
                        .into(),
                ));
            }
            None
        }
    };
    let config = LlamaConfig {
        flavor,
        vocab_size,
        hidden_size,
        intermediate_size: c.size("intermediate_size", d.intermediate, caps::INTERMEDIATE)?,
        num_hidden_layers: c.size("num_hidden_layers", 32, caps::LAYERS)?,
        num_attention_heads,
        num_key_value_heads,
        head_dim,
        hidden_act: c.activation("hidden_act", "silu")?,
        max_position_embeddings,
        rms_norm_eps: c.eps("rms_norm_eps", 1e-6)?,
        rope: rope(c)?,
        attention_bias,
        o_proj_bias,
        mlp_bias,
        tie_word_embeddings: c.boolean("tie_word_embeddings", false)?,
        sliding_window,
        special: SpecialTokens {
            bos: c.token("bos_token_id", d.bos)?,
            eos: c.tokens("eos_token_id", d.eos)?,
            pad: c.token("pad_token_id", None)?,
            unk: c.token("unk_token_id", None)?,
            ..SpecialTokens::default()
        },
        architectures: c.string_list("architectures"),
    };
    config.check().map_err(bad)?;
    Ok(config)
}
