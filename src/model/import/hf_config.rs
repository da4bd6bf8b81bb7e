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

use super::error::{ImportError, Result};
use serde_json::{Map, Value};

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
pub struct BertConfig {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    /// hidden_size / num_attention_heads.
    pub head_dim: usize,
    pub intermediate_size: usize,
    pub hidden_act: Activation,
    pub max_position_embeddings: usize,
    pub type_vocab_size: usize,
    pub layer_norm_eps: f32,
    /// MLM decoder tied to the word embeddings (the usual case).
    pub tie_word_embeddings: bool,
    pub special: SpecialTokens,
    /// e.g. `["BertForMaskedLM"]`: tells whether an MLM head is expected.
    pub architectures: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Gpt2Config {
    pub vocab_size: usize,
    pub n_positions: usize,
    pub n_embd: usize,
    pub n_layer: usize,
    pub n_head: usize,
    pub head_dim: usize,
    /// `n_inner`, 4·n_embd when null.
    pub n_inner: usize,
    pub activation_function: Activation,
    pub layer_norm_epsilon: f32,
    /// Divide scores by √head_dim.
    pub scale_attn_weights: bool,
    /// Also divide layer i's scores by i + 1.
    pub scale_attn_by_inverse_layer_idx: bool,
    /// Changes only rounding (upcasts to f32, which Glimpse always uses).
    pub reorder_and_upcast_attn: bool,
    pub tie_word_embeddings: bool,
    pub special: SpecialTokens,
    pub architectures: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LlamaFlavor {
    Llama,
    Mistral,
    Qwen2,
}

#[derive(Debug, Clone, PartialEq)]
pub enum RopeScaling {
    None,
    /// Every inverse frequency divided by `factor`.
    Linear {
        factor: f32,
    },
    /// Llama 3.1: low frequencies divided by `factor`, high ones kept, a smooth ramp between.
    Llama3 {
        factor: f32,
        low_freq_factor: f32,
        high_freq_factor: f32,
        original_max_position_embeddings: usize,
    },
    /// GGUF stores Llama 3 scaling precomputed: inverse frequency i is divided by element i
    /// of this tensor (`rope_freqs.weight`, head_dim/2 values).
    GgufFreqFactors {
        tensor: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Rope {
    pub theta: f32,
    pub scaling: RopeScaling,
}

impl Rope {
    /// The inverse frequencies of a head of `head_dim`, as Hugging Face computes them in f32:
    /// θ^(−2i/head_dim) for i < head_dim/2, then the scaling. `freq_factors` is the tensor of
    /// `RopeScaling::GgufFreqFactors` (ignored otherwise).
    pub fn inv_freq(&self, head_dim: usize, freq_factors: Option<&[f32]>) -> Result<Vec<f32>> {
        let base: Vec<f32> = (0..head_dim / 2)
            .map(|i| 1.0 / self.theta.powf((2 * i) as f32 / head_dim as f32))
            .collect();
        Ok(match &self.scaling {
            RopeScaling::None => base,
            RopeScaling::Linear { factor } => base.iter().map(|f| f / factor).collect(),
            RopeScaling::Llama3 {
                factor,
                low_freq_factor: lo,
                high_freq_factor: hi,
                original_max_position_embeddings: o,
            } => {
                let o = *o as f32;
                let (low_wavelen, high_wavelen) = (o / lo, o / hi);
                base.iter()
                    .map(|&f| {
                        let wavelen = 2.0 * std::f32::consts::PI / f;
                        if wavelen > low_wavelen {
                            f / factor
                        } else if wavelen < high_wavelen {
                            f
                        } else {
                            let s = (o / wavelen - lo) / (hi - lo);
                            (1.0 - s) * f / factor + s * f
                        }
                    })
                    .collect()
            }
            RopeScaling::GgufFreqFactors { tensor } => {
                let factors = freq_factors
                    .filter(|f| f.len() == base.len())
                    .ok_or_else(|| {
                        ImportError::Usage(format!(
                            "RoPE needs the {} values of `{tensor}`",
                            base.len()
                        ))
                    })?;
                base.iter().zip(factors).map(|(f, d)| f / d).collect()
            }
        })
    }
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

/// Typed reads of config keys, each error naming the key.
struct Keys<'a>(&'a Map<String, Value>);

impl Keys<'_> {
    /// The value, treating JSON null as absent.
    fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key).filter(|v| !v.is_null())
    }

    fn present(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    fn size(&self, key: &str, default: usize, max: usize) -> Result<usize> {
        let v = match self.get(key) {
            None => default,
            Some(v) => v
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| bad(format!("`{key}` should be a whole number, found {v}")))?,
        };
        if v == 0 || v > max {
            return Err(bad(format!(
                "`{key}` is {v}; it must be between 1 and {max}"
            )));
        }
        Ok(v)
    }

    /// A size under any of `keys` (aliases, first wins), which must agree when several are given.
    fn size_alias(&self, keys: &[&str], default: usize, max: usize) -> Result<usize> {
        let mut found: Option<(usize, &str)> = None;
        for &key in keys {
            if self.present(key) {
                let v = self.size(key, default, max)?;
                match found {
                    Some((w, first)) if w != v => {
                        return Err(bad(format!(
                            "`{first}` is {w} but its alias `{key}` is {v}"
                        )));
                    }
                    _ => found = Some((v, key)),
                }
            }
        }
        match found {
            Some((v, _)) => Ok(v),
            None => self.size(keys.first().copied().unwrap_or(""), default, max),
        }
    }

    fn float(&self, key: &str, default: f64) -> Result<f64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .as_f64()
                .filter(|x| x.is_finite())
                .ok_or_else(|| bad(format!("`{key}` should be a number, found {v}"))),
        }
    }

    /// A small positive epsilon.
    fn eps(&self, key: &str, default: f64) -> Result<f32> {
        let e = self.float(key, default)?;
        if !(e > 0.0 && e < 1.0) {
            return Err(bad(format!("`{key}` is {e}; it must be between 0 and 1")));
        }
        Ok(e as f32)
    }

    fn boolean(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(bad(format!("`{key}` should be true or false, found {v}"))),
        }
    }

    fn string(&self, key: &str, default: &str) -> Result<String> {
        match self.get(key) {
            None => Ok(default.into()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(v) => Err(bad(format!("`{key}` should be a string, found {v}"))),
        }
    }

    fn activation(&self, key: &str, default: &str) -> Result<Activation> {
        let name = self.string(key, default)?;
        Activation::parse(&name).ok_or_else(|| {
            bad(format!(
                "`{key}` is \"{name}\"; Glimpse knows gelu, gelu_new, gelu_pytorch_tanh, relu, silu and swish"
            ))
        })
    }

    /// A token id: absent is `default`, null or negative (old Llama conversions wrote a pad
    /// id of -1) is none.
    fn token(&self, key: &str, default: Option<u32>) -> Result<Option<u32>> {
        match self.0.get(key) {
            None => Ok(default),
            Some(Value::Null) => Ok(None),
            Some(v) => one_token(key, v),
        }
    }

    /// `eos_token_id`: an id or a list of ids.
    fn tokens(&self, key: &str, default: Option<u32>) -> Result<Vec<u32>> {
        match self.0.get(key) {
            None => Ok(default.into_iter().collect()),
            Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => {
                if items.len() > 1024 {
                    return Err(bad(format!("`{key}` lists {} ids", items.len())));
                }
                let mut out = Vec::new();
                for v in items {
                    out.extend(one_token(key, v)?);
                }
                Ok(out)
            }
            Some(v) => Ok(one_token(key, v)?.into_iter().collect()),
        }
    }

    fn string_list(&self, key: &str) -> Vec<String> {
        match self.get(key) {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .take(64)
                .collect(),
            _ => Vec::new(),
        }
    }
}

fn one_token(key: &str, v: &Value) -> Result<Option<u32>> {
    if v.as_i64().is_some_and(|i| i < 0) {
        return Ok(None);
    }
    v.as_u64()
        .and_then(|i| u32::try_from(i).ok())
        .map(Some)
        .ok_or_else(|| bad(format!("`{key}` should be a token id, found {v}")))
}

fn heads_divide(hidden: usize, heads: usize, hidden_key: &str, heads_key: &str) -> Result<usize> {
    if !hidden.is_multiple_of(heads) {
        return Err(bad(format!(
            "`{hidden_key}` ({hidden}) is not a multiple of `{heads_key}` ({heads})"
        )));
    }
    Ok(hidden / heads)
}

fn bert(c: &Keys) -> Result<BertConfig> {
    let vocab_size = c.size("vocab_size", 30522, caps::VOCAB)?;
    let hidden_size = c.size("hidden_size", 768, caps::HIDDEN)?;
    let num_attention_heads = c.size("num_attention_heads", 12, caps::HEADS)?;
    let head_dim = heads_divide(
        hidden_size,
        num_attention_heads,
        "hidden_size",
        "num_attention_heads",
    )?;
    let position = c.string("position_embedding_type", "absolute")?;
    if position != "absolute" {
        return Err(bad(format!(
            "`position_embedding_type` is \"{position}\"; Glimpse runs BERT with absolute positions only"
        )));
    }
    if c.boolean("is_decoder", false)? || c.boolean("add_cross_attention", false)? {
        return Err(bad(
            "BERT used as a decoder (is_decoder / add_cross_attention) is not supported".into(),
        ));
    }
    Ok(BertConfig {
        vocab_size,
        hidden_size,
        num_hidden_layers: c.size("num_hidden_layers", 12, caps::LAYERS)?,
        num_attention_heads,
        head_dim,
        intermediate_size: c.size("intermediate_size", 3072, caps::INTERMEDIATE)?,
        hidden_act: c.activation("hidden_act", "gelu")?,
        max_position_embeddings: c.size("max_position_embeddings", 512, caps::POSITIONS)?,
        type_vocab_size: c.size("type_vocab_size", 2, caps::TYPE_VOCAB)?,
        layer_norm_eps: c.eps("layer_norm_eps", 1e-12)?,
        tie_word_embeddings: c.boolean("tie_word_embeddings", true)?,
        special: SpecialTokens {
            bos: c.token("bos_token_id", None)?,
            eos: c.tokens("eos_token_id", None)?,
            pad: c.token("pad_token_id", Some(0))?,
            unk: c.token("unk_token_id", None)?,
            cls: c.token("cls_token_id", None)?,
            sep: c.token("sep_token_id", None)?,
            mask: c.token("mask_token_id", None)?,
        },
        architectures: c.string_list("architectures"),
    })
}

fn gpt2(c: &Keys) -> Result<Gpt2Config> {
    let vocab_size = c.size("vocab_size", 50257, caps::VOCAB)?;
    let n_embd = c.size_alias(&["n_embd", "hidden_size"], 768, caps::HIDDEN)?;
    let n_head = c.size_alias(&["n_head", "num_attention_heads"], 12, caps::HEADS)?;
    let head_dim = heads_divide(n_embd, n_head, "n_embd", "n_head")?;
    let n_inner = match c.get("n_inner") {
        None => n_embd
            .checked_mul(4)
            .filter(|&i| i <= caps::INTERMEDIATE)
            .ok_or_else(|| bad("4 × n_embd is too large".into()))?,
        Some(_) => c.size("n_inner", 0, caps::INTERMEDIATE)?,
    };
    if c.boolean("add_cross_attention", false)? {
        return Err(bad(
            "GPT-2 with cross-attention (add_cross_attention) is not supported".into(),
        ));
    }
    Ok(Gpt2Config {
        vocab_size,
        n_positions: c.size_alias(
            &["n_positions", "max_position_embeddings"],
            1024,
            caps::POSITIONS,
        )?,
        n_embd,
        n_layer: c.size_alias(&["n_layer", "num_hidden_layers"], 12, caps::LAYERS)?,
        n_head,
        head_dim,
        n_inner,
        activation_function: c.activation("activation_function", "gelu_new")?,
        layer_norm_epsilon: c.eps("layer_norm_epsilon", 1e-5)?,
        scale_attn_weights: c.boolean("scale_attn_weights", true)?,
        scale_attn_by_inverse_layer_idx: c.boolean("scale_attn_by_inverse_layer_idx", false)?,
        reorder_and_upcast_attn: c.boolean("reorder_and_upcast_attn", false)?,
        tie_word_embeddings: c.boolean("tie_word_embeddings", true)?,
        special: SpecialTokens {
            bos: c.token("bos_token_id", Some(50256))?,
            eos: c.tokens("eos_token_id", Some(50256))?,
            pad: c.token("pad_token_id", None)?,
            unk: c.token("unk_token_id", None)?,
            ..SpecialTokens::default()
        },
        architectures: c.string_list("architectures"),
    })
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

fn llama(c: &Keys, flavor: LlamaFlavor) -> Result<LlamaConfig> {
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

/// RoPE base and scaling from `rope_theta` + `rope_scaling` (transformers 4) or
/// `rope_parameters` (transformers 5, where theta moved inside; per-layer-type dictionaries
/// are accepted when they only hold `full_attention`).
fn rope(c: &Keys) -> Result<Rope> {
    let params = match c.get("rope_parameters") {
        Some(Value::Object(p)) => {
            let has_own = ["rope_type", "type", "rope_theta", "factor"]
                .iter()
                .any(|k| p.contains_key(*k));
            if has_own {
                Some(p)
            } else {
                match (p.get("full_attention"), p.len()) {
                    (Some(Value::Object(full)), 1) => Some(full),
                    _ => {
                        return Err(bad("`rope_parameters` is per layer type; Glimpse runs \
                                        only full-attention layers"
                            .into()))
                    }
                }
            }
        }
        Some(v) => {
            return Err(bad(format!(
                "`rope_parameters` should be an object, found {v}"
            )));
        }
        None => None,
    };
    let scaling = match (params, c.get("rope_scaling")) {
        (Some(p), _) => Some(p),
        (None, Some(Value::Object(s))) => Some(s),
        (None, Some(v)) => {
            return Err(bad(format!(
                "`rope_scaling` should be an object, found {v}"
            )));
        }
        (None, None) => None,
    };
    let theta = match params
        .and_then(|p| p.get("rope_theta"))
        .filter(|v| !v.is_null())
    {
        Some(v) => v
            .as_f64()
            .ok_or_else(|| bad(format!("`rope_theta` should be a number, found {v}")))?,
        None => c.float("rope_theta", 10000.0)?,
    };
    if !(theta.is_finite() && theta > 0.0 && theta < 1e12) {
        return Err(bad(format!(
            "`rope_theta` is {theta}; it must be a positive number"
        )));
    }
    let Some(s) = scaling else {
        return Ok(Rope {
            theta: theta as f32,
            scaling: RopeScaling::None,
        });
    };
    let s = Keys(s);
    let kind = match (s.get("rope_type"), s.get("type")) {
        (Some(Value::String(t)), _) | (None, Some(Value::String(t))) => t.clone(),
        (None, None) => "default".into(),
        (Some(v), _) | (None, Some(v)) => {
            return Err(bad(format!("`rope_type` should be a string, found {v}")));
        }
    };
    let factor = |key: &str| -> Result<f32> {
        let v = s
            .get(key)
            .ok_or_else(|| bad(format!("RoPE scaling \"{kind}\" needs `{key}`")))?;
        v.as_f64()
            .filter(|x| x.is_finite() && *x > 0.0 && *x < 1e6)
            .map(|x| x as f32)
            .ok_or_else(|| {
                bad(format!(
                    "RoPE `{key}` should be a positive number, found {v}"
                ))
            })
    };
    let scaling = match kind.as_str() {
        "default" => RopeScaling::None,
        "linear" => RopeScaling::Linear {
            factor: factor("factor")?,
        },
        "llama3" => {
            let (low, high) = (factor("low_freq_factor")?, factor("high_freq_factor")?);
            if low >= high {
                return Err(bad(format!(
                    "RoPE `low_freq_factor` ({low}) must be below `high_freq_factor` ({high})"
                )));
            }
            let original = if s.present("original_max_position_embeddings") {
                s.size("original_max_position_embeddings", 0, caps::POSITIONS)?
            } else {
                c.size("original_max_position_embeddings", 0, caps::POSITIONS)
                    .map_err(|_| {
                        bad(
                            "RoPE scaling \"llama3\" needs `original_max_position_embeddings`"
                                .into(),
                        )
                    })?
            };
            RopeScaling::Llama3 {
                factor: factor("factor")?,
                low_freq_factor: low,
                high_freq_factor: high,
                original_max_position_embeddings: original,
            }
        }
        other => {
            return Err(bad(format!(
                "RoPE scaling \"{other}\" is not supported; Glimpse runs default, linear and llama3"
            )));
        }
    };
    Ok(Rope {
        theta: theta as f32,
        scaling,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Architecture> {
        Architecture::from_config_json(text)
    }

    fn llama_of(text: &str) -> LlamaConfig {
        match parse(text).unwrap() {
            Architecture::Llama(c) => c,
            other => panic!("{other:?}"),
        }
    }

    fn err(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    const MINILM: &str = r#"{"_name_or_path":"nreimers/MiniLM-L6-H384-uncased","architectures":["BertModel"],
        "attention_probs_dropout_prob":0.1,"gradient_checkpointing":false,"hidden_act":"gelu",
        "hidden_dropout_prob":0.1,"hidden_size":384,"initializer_range":0.02,"intermediate_size":1536,
        "layer_norm_eps":1e-12,"max_position_embeddings":512,"model_type":"bert","num_attention_heads":12,
        "num_hidden_layers":6,"pad_token_id":0,"position_embedding_type":"absolute",
        "transformers_version":"4.8.2","type_vocab_size":2,"use_cache":true,"vocab_size":30522}"#;

    #[test]
    fn bert_minilm_and_defaults() {
        let Architecture::Bert(c) = parse(MINILM).unwrap() else {
            panic!()
        };
        assert_eq!(
            (
                c.hidden_size,
                c.num_hidden_layers,
                c.num_attention_heads,
                c.head_dim
            ),
            (384, 6, 12, 32)
        );
        assert_eq!(
            (c.intermediate_size, c.vocab_size, c.type_vocab_size),
            (1536, 30522, 2)
        );
        assert_eq!(c.layer_norm_eps, 1e-12);
        assert_eq!(c.hidden_act, Activation::Gelu);
        assert_eq!(c.special.pad, Some(0));
        assert_eq!(c.architectures, ["BertModel"]);
        let Architecture::Bert(d) = parse(r#"{"model_type":"bert"}"#).unwrap() else {
            panic!()
        };
        assert_eq!(
            (
                d.hidden_size,
                d.num_hidden_layers,
                d.intermediate_size,
                d.max_position_embeddings
            ),
            (768, 12, 3072, 512)
        );
        assert!(d.tie_word_embeddings);
        let Architecture::Bert(m) = parse(r#"{"model_type":"bert","cls_token_id":101,"sep_token_id":102,"mask_token_id":103,"pad_token_id":null}"#).unwrap() else { panic!() };
        assert_eq!(
            (m.special.cls, m.special.sep, m.special.mask, m.special.pad),
            (Some(101), Some(102), Some(103), None)
        );
        assert!(
            err(r#"{"model_type":"bert","position_embedding_type":"relative_key"}"#)
                .contains("absolute")
        );
        assert!(err(r#"{"model_type":"bert","is_decoder":true}"#).contains("decoder"));
        assert!(
            err(r#"{"model_type":"bert","hidden_size":100,"num_attention_heads":12}"#)
                .contains("multiple")
        );
        assert!(err(r#"{"model_type":"bert","hidden_act":"quick_gelu"}"#).contains("quick_gelu"));
    }

    #[test]
    fn gpt2_keys_aliases_and_defaults() {
        let original = r#"{"activation_function":"gelu_new","architectures":["GPT2LMHeadModel"],"attn_pdrop":0.1,
            "bos_token_id":50256,"embd_pdrop":0.1,"eos_token_id":50256,"initializer_range":0.02,
            "layer_norm_epsilon":1e-05,"model_type":"gpt2","n_ctx":1024,"n_embd":768,"n_head":12,
            "n_layer":12,"n_positions":1024,"resid_pdrop":0.1,"vocab_size":50257}"#;
        let Architecture::Gpt2(c) = parse(original).unwrap() else {
            panic!()
        };
        assert_eq!(
            (
                c.n_embd,
                c.n_head,
                c.head_dim,
                c.n_layer,
                c.n_inner,
                c.n_positions
            ),
            (768, 12, 64, 12, 3072, 1024)
        );
        assert_eq!(c.activation_function, Activation::GeluTanh);
        assert!(
            c.tie_word_embeddings && c.scale_attn_weights && !c.scale_attn_by_inverse_layer_idx
        );
        assert_eq!(
            (c.special.bos, c.special.eos.as_slice()),
            (Some(50256), &[50256][..])
        );
        let tiny = r#"{"model_type":"gpt2","hidden_size":32,"num_attention_heads":4,"num_hidden_layers":2,
            "max_position_embeddings":16,"vocab_size":99,"n_inner":null,"activation_function":"gelu_pytorch_tanh",
            "scale_attn_by_inverse_layer_idx":true}"#;
        let Architecture::Gpt2(t) = parse(tiny).unwrap() else {
            panic!()
        };
        assert_eq!(
            (t.n_embd, t.n_head, t.n_layer, t.n_positions, t.n_inner),
            (32, 4, 2, 16, 128)
        );
        assert!(t.scale_attn_by_inverse_layer_idx);
        // The default bos/eos 50256 lies outside a tiny vocabulary: kept, and `in_vocab` drops it.
        assert_eq!(t.special.bos, Some(50256));
        assert_eq!(t.special.in_vocab(99), SpecialTokens::default());
        assert!(err(r#"{"model_type":"gpt2","n_embd":64,"hidden_size":32}"#).contains("alias"));
        assert!(err(r#"{"model_type":"gpt2","n_inner":0}"#).contains("n_inner"));
        assert!(err(r#"{"model_type":"gpt2","add_cross_attention":true}"#).contains("cross"));
    }

    const SMOLLM2: &str = r#"{"architectures":["LlamaForCausalLM"],"attention_bias":false,"attention_dropout":0.0,
        "bos_token_id":1,"eos_token_id":2,"head_dim":64,"hidden_act":"silu","hidden_size":576,
        "initializer_range":0.041666666666666664,"intermediate_size":1536,"is_llama_config":true,
        "max_position_embeddings":8192,"mlp_bias":false,"model_type":"llama","num_attention_heads":9,
        "num_hidden_layers":30,"num_key_value_heads":3,"pad_token_id":2,"pretraining_tp":1,
        "rms_norm_eps":1e-05,"rope_interleaved":false,"rope_scaling":null,"rope_theta":100000,
        "tie_word_embeddings":true,"torch_dtype":"bfloat16","transformers_version":"4.42.3",
        "use_cache":true,"vocab_size":49152}"#;

    #[test]
    fn llama_smollm2_and_defaults() {
        let c = llama_of(SMOLLM2);
        assert_eq!(
            (
                c.num_hidden_layers,
                c.num_attention_heads,
                c.num_key_value_heads,
                c.head_dim
            ),
            (30, 9, 3, 64)
        );
        assert_eq!(
            (c.hidden_size, c.intermediate_size, c.vocab_size),
            (576, 1536, 49152)
        );
        assert_eq!(
            c.rope,
            Rope {
                theta: 1e5,
                scaling: RopeScaling::None
            }
        );
        assert_eq!(c.rms_norm_eps, 1e-5);
        assert!(c.tie_word_embeddings && !c.attention_bias && !c.o_proj_bias && !c.mlp_bias);
        assert_eq!(
            (c.special.bos, c.special.eos.clone(), c.special.pad),
            (Some(1), vec![2], Some(2))
        );
        let d = llama_of(r#"{"model_type":"llama"}"#);
        assert_eq!(
            (
                d.vocab_size,
                d.hidden_size,
                d.intermediate_size,
                d.num_hidden_layers
            ),
            (32000, 4096, 11008, 32)
        );
        assert_eq!(
            (d.num_key_value_heads, d.head_dim, d.max_position_embeddings),
            (32, 128, 2048)
        );
        assert_eq!((d.rms_norm_eps, d.rope.theta), (1e-6, 10000.0));
        assert!(!d.tie_word_embeddings);
        assert_eq!(
            (d.special.bos, d.special.eos.clone(), d.special.pad),
            (Some(1), vec![2], None)
        );
        // Explicit head_dim independent of hidden/heads; eos list; pad -1; attention bias on all four.
        let e = llama_of(
            r#"{"model_type":"llama","hidden_size":48,"num_attention_heads":4,"head_dim":16,
            "num_key_value_heads":2,"eos_token_id":[2,7],"pad_token_id":-1,"attention_bias":true,"mlp_bias":true,
            "vocab_size":10}"#,
        );
        assert_eq!(
            (e.head_dim, e.special.eos.clone(), e.special.pad),
            (16, vec![2, 7], None)
        );
        assert!(e.attention_bias && e.o_proj_bias && e.mlp_bias);
    }

    #[test]
    fn llama_impossible_shapes() {
        for (text, needle) in [
            (
                r#"{"model_type":"llama","num_attention_heads":6,"num_key_value_heads":4,"hidden_size":48}"#,
                "num_key_value_heads",
            ),
            (
                r#"{"model_type":"llama","hidden_size":30,"num_attention_heads":4}"#,
                "multiple",
            ),
            (r#"{"model_type":"llama","head_dim":7}"#, "even"),
            (
                r#"{"model_type":"llama","vocab_size":1000000000000}"#,
                "vocab_size",
            ),
            (
                r#"{"model_type":"llama","num_hidden_layers":0}"#,
                "num_hidden_layers",
            ),
            (
                r#"{"model_type":"llama","num_hidden_layers":-3}"#,
                "num_hidden_layers",
            ),
            (
                r#"{"model_type":"llama","hidden_size":64.5}"#,
                "hidden_size",
            ),
            (
                r#"{"model_type":"llama","hidden_size":"64"}"#,
                "hidden_size",
            ),
            (
                r#"{"model_type":"llama","intermediate_size":18446744073709551615}"#,
                "intermediate_size",
            ),
            (r#"{"model_type":"llama","rms_norm_eps":0}"#, "rms_norm_eps"),
            (r#"{"model_type":"llama","rope_theta":-1}"#, "rope_theta"),
            (
                r#"{"model_type":"llama","tie_word_embeddings":"yes"}"#,
                "tie_word_embeddings",
            ),
            (
                r#"{"model_type":"llama","bos_token_id":"<s>"}"#,
                "bos_token_id",
            ),
            (
                r#"{"model_type":"llama","eos_token_id":[1,"x"]}"#,
                "eos_token_id",
            ),
        ] {
            let m = err(text);
            assert!(
                m.contains(needle) && m.contains("config.json"),
                "{text}: {m}"
            );
        }
    }

    #[test]
    fn rope_scaling_v4_and_v5() {
        let llama3 = r#""factor":8.0,"low_freq_factor":1.0,"high_freq_factor":4.0,"original_max_position_embeddings":8192"#;
        let want = RopeScaling::Llama3 {
            factor: 8.0,
            low_freq_factor: 1.0,
            high_freq_factor: 4.0,
            original_max_position_embeddings: 8192,
        };
        let v4 = llama_of(&format!(
            r#"{{"model_type":"llama","rope_theta":500000.0,"rope_scaling":{{"rope_type":"llama3",{llama3}}}}}"#
        ));
        assert_eq!(
            v4.rope,
            Rope {
                theta: 5e5,
                scaling: want.clone()
            }
        );
        let v5 = llama_of(&format!(
            r#"{{"model_type":"llama","rope_parameters":{{"rope_type":"llama3","rope_theta":500000.0,{llama3}}}}}"#
        ));
        assert_eq!(v5.rope, v4.rope);
        let per_layer = llama_of(
            r#"{"model_type":"llama","rope_parameters":{"full_attention":{"rope_type":"default","rope_theta":1000.0}}}"#,
        );
        assert_eq!(
            per_layer.rope,
            Rope {
                theta: 1000.0,
                scaling: RopeScaling::None
            }
        );
        let legacy =
            llama_of(r#"{"model_type":"llama","rope_scaling":{"type":"linear","factor":2.0}}"#);
        assert_eq!(legacy.rope.scaling, RopeScaling::Linear { factor: 2.0 });
        let theta_outside = llama_of(
            r#"{"model_type":"llama","rope_theta":123.0,"rope_parameters":{"rope_type":"default"}}"#,
        );
        assert_eq!(theta_outside.rope.theta, 123.0);
        let original_top = llama_of(
            r#"{"model_type":"llama","original_max_position_embeddings":4096,"rope_scaling":{"rope_type":"llama3","factor":2.0,"low_freq_factor":1.0,"high_freq_factor":2.0}}"#,
        );
        assert!(matches!(
            original_top.rope.scaling,
            RopeScaling::Llama3 {
                original_max_position_embeddings: 4096,
                ..
            }
        ));
        for (scaling, needle) in [
            (r#"{"rope_type":"dynamic","factor":2.0}"#, "dynamic"),
            (r#"{"rope_type":"yarn","factor":2.0}"#, "yarn"),
            (r#"{"rope_type":"linear"}"#, "factor"),
            (r#"{"rope_type":"linear","factor":-1}"#, "factor"),
            (
                r#"{"rope_type":"llama3","factor":8.0,"low_freq_factor":4.0,"high_freq_factor":1.0,"original_max_position_embeddings":8192}"#,
                "low_freq_factor",
            ),
            (
                r#"{"rope_type":"llama3","factor":8.0,"low_freq_factor":1.0,"high_freq_factor":4.0}"#,
                "original_max_position_embeddings",
            ),
            (r#""linear""#, "rope_scaling"),
        ] {
            let m = err(&format!(
                r#"{{"model_type":"llama","rope_scaling":{scaling}}}"#
            ));
            assert!(m.contains(needle), "{scaling}: {m}");
        }
        let m = err(
            r#"{"model_type":"llama","rope_parameters":{"full_attention":{},"sliding_attention":{}}}"#,
        );
        assert!(m.contains("per layer type"), "{m}");
    }

    #[test]
    fn inverse_frequencies() {
        let plain = Rope {
            theta: 10000.0,
            scaling: RopeScaling::None,
        };
        let f = plain.inv_freq(8, None).unwrap();
        assert_eq!(f.len(), 4);
        assert_eq!(f[0], 1.0);
        assert!((f[2] - 0.01).abs() < 1e-9, "{f:?}");
        let lin = Rope {
            scaling: RopeScaling::Linear { factor: 4.0 },
            ..plain.clone()
        };
        assert_eq!(lin.inv_freq(8, None).unwrap()[0], 0.25);
        // Llama 3 with O = 8, lo = 1, hi = 4: wavelengths above 8 scale by 1/F, below 2 stay,
        // between ramp. θ = 10000, head 8: wavelengths 2π, 20π, 200π, 2000π.
        let l3 = Rope {
            scaling: RopeScaling::Llama3 {
                factor: 8.0,
                low_freq_factor: 1.0,
                high_freq_factor: 4.0,
                original_max_position_embeddings: 8,
            },
            ..plain.clone()
        };
        let g = l3.inv_freq(8, None).unwrap();
        assert_eq!(g[1], f[1] / 8.0);
        assert_eq!(g[3], f[3] / 8.0);
        let s = (8.0 / (2.0 * std::f32::consts::PI) - 1.0) / 3.0;
        assert!((g[0] - ((1.0 - s) / 8.0 + s)).abs() < 1e-6, "{g:?}");
        let gg = Rope {
            scaling: RopeScaling::GgufFreqFactors {
                tensor: "rope_freqs.weight".into(),
            },
            ..plain
        };
        assert_eq!(gg.inv_freq(4, Some(&[2.0, 1.0])).unwrap(), [0.5, 0.01]);
        assert!(gg.inv_freq(4, None).is_err());
        assert!(gg.inv_freq(4, Some(&[1.0])).is_err());
    }

    #[test]
    fn mistral_and_qwen2() {
        let m = llama_of(r#"{"model_type":"mistral","attention_bias":true}"#);
        assert_eq!(m.flavor, LlamaFlavor::Mistral);
        assert_eq!(
            (m.num_key_value_heads, m.intermediate_size, m.sliding_window),
            (8, 14336, None)
        );
        assert!(!m.attention_bias);
        let w = llama_of(r#"{"model_type":"mistral","sliding_window":4096}"#);
        assert_eq!(w.sliding_window, Some(4096));
        let q = llama_of(
            r#"{"model_type":"qwen2","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"sliding_window":4096,"use_sliding_window":false,"bos_token_id":151643,"eos_token_id":151645}"#,
        );
        assert!(q.attention_bias && !q.o_proj_bias && !q.mlp_bias);
        assert_eq!(
            (q.vocab_size, q.sliding_window, q.special.eos.clone()),
            (151936, None, vec![151645])
        );
        let d = llama_of(r#"{"model_type":"qwen2"}"#);
        assert_eq!((d.num_key_value_heads, d.special.bos), (32, None));
        assert!(err(r#"{"model_type":"qwen2","use_sliding_window":true}"#)
            .contains("use_sliding_window"));
    }

    #[test]
    fn unknown_and_broken_files() {
        let m = err(r#"{"model_type":"gpt_neo"}"#);
        assert!(
            m.contains("gpt_neo") && m.contains("bert, gpt2, llama, mistral, qwen2"),
            "{m}"
        );
        assert!(matches!(
            parse(r#"{"model_type":"roberta"}"#),
            Err(ImportError::UnsupportedModelType { .. })
        ));
        assert!(err(r#"{"hidden_size":3}"#).contains("no `model_type`"));
        assert!(err(r#"{"model_type":7}"#).contains("not a string"));
        assert!(err("[1]").contains("not a JSON object"));
        assert!(err("{").contains("not valid JSON"));
        assert!(err("").contains("not valid JSON"));
        let huge = format!(
            r#"{{"model_type":"bert","x":"{}"}}"#,
            "a".repeat(MAX_CONFIG_BYTES)
        );
        assert!(err(&huge).contains("bytes"));
        let deep = "[".repeat(100_000);
        assert!(parse(&deep).is_err());
    }
}
