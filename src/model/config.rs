//! `ModelConfig`: the architecture of a model, read from and written to its JSON file.
//! See docs/FORMAT.md for every field.

use super::error::{ModelError, Result};
use super::tokenizer::TokenizerSpec;
use serde::{Deserialize, Serialize};

/// Which stacks a model has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// Bidirectional self-attention over the input (BERT-like).
    Encoder,
    /// Causal self-attention (GPT-like).
    Decoder,
    /// Encoder stack + decoder stack with cross-attention (the original transformer).
    EncoderDecoder,
}

impl Family {
    pub fn has_encoder(self) -> bool {
        matches!(self, Family::Encoder | Family::EncoderDecoder)
    }
    pub fn has_decoder(self) -> bool {
        matches!(self, Family::Decoder | Family::EncoderDecoder)
    }
    pub fn label(self) -> &'static str {
        match self {
            Family::Encoder => "encoder-only",
            Family::Decoder => "decoder-only",
            Family::EncoderDecoder => "encoder–decoder",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Activation {
    Relu,
    /// Exact GELU, `z·Φ(z)` (BERT's "gelu").
    Gelu,
    /// GELU's tanh approximation (GPT-2's "gelu_new").
    GeluTanh,
    /// SiLU (swish), `z·σ(z)`: the gate of Llama's SwiGLU.
    Silu,
}

/// Which normalisation a block uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NormKind {
    /// `(x − μ)/√(σ² + ε)·γ + β`.
    #[default]
    LayerNorm,
    /// `x/√(mean(x²) + ε)·γ`: no centring, no β (Llama).
    RmsNorm,
}

/// Which dimensions RoPE turns together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RopePairing {
    /// Adjacent pairs (2i, 2i+1): the RoFormer paper, Meta's and GGUF's layout.
    #[default]
    Interleaved,
    /// Dimension p with p + d_head/2 ("rotate half"): Hugging Face's Llama layout.
    Half,
}

/// Llama-3-style stretching of RoPE's slow frequencies for long contexts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RopeScaling {
    /// Every frequency divided by `factor`.
    Linear { factor: f32 },
    /// Wavelengths longer than `original_max / low_freq_factor` are divided by `factor`, those
    /// shorter than `original_max / high_freq_factor` kept, the ones between blended.
    Llama3 {
        factor: f32,
        low_freq_factor: f32,
        high_freq_factor: f32,
        original_max: f32,
    },
}

/// What the model computes after its last block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputHead {
    /// Next-token logits `h·W_vocabᵀ + b` (tied to the embedding or not).
    #[default]
    Lm,
    /// BERT's masked-LM head: `LN(act(h·Wᵀ + b))·W_embᵀ + bias`.
    MaskedLm,
    /// None: the encoder's outputs are the result (a sentence encoder).
    None,
}

/// What real checkpoints add to the textbook block. Every default is the textbook's, so a
/// Glimpse model file that does not mention these reads exactly as before.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Extensions {
    #[serde(skip_serializing_if = "is_default")]
    pub norm_kind: NormKind,
    /// A LayerNorm over the embedding sum before the first block (BERT).
    #[serde(skip_serializing_if = "is_default")]
    pub embed_norm: bool,
    /// Number of token types (segments) with their own embedding row (BERT: 2); 0 = none.
    #[serde(skip_serializing_if = "is_default")]
    pub token_types: usize,
    /// Gated feed-forward: `W₂(act(W_g x) ⊙ W₁ x)` (SwiGLU with SiLU).
    #[serde(skip_serializing_if = "is_default")]
    pub gated_ffn: bool,
    /// Head width when it is not `d_model / n_heads`.
    #[serde(skip_serializing_if = "is_default")]
    pub head_dim: Option<usize>,
    #[serde(skip_serializing_if = "is_default")]
    pub rope_pairing: RopePairing,
    #[serde(skip_serializing_if = "is_default")]
    pub rope_scaling: Option<RopeScaling>,
    #[serde(skip_serializing_if = "is_default")]
    pub output: OutputHead,
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

impl Extensions {
    /// The textbook block of the course notes (what training and the GPU path implement).
    pub fn is_textbook(&self) -> bool {
        *self == Extensions::default()
    }

    /// What differs from the textbook block, in words ("RMSNorm, gated FFN, …").
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if self.norm_kind == NormKind::RmsNorm {
            parts.push("RMSNorm".to_string());
        }
        if self.embed_norm {
            parts.push("embedding LayerNorm".into());
        }
        if self.token_types > 0 {
            parts.push(format!("{} token types", self.token_types));
        }
        if self.gated_ffn {
            parts.push("gated FFN".into());
        }
        if let Some(h) = self.head_dim {
            parts.push(format!("head_dim {h}"));
        }
        if self.rope_pairing == RopePairing::Half {
            parts.push("rotate-half RoPE".into());
        }
        if self.rope_scaling.is_some() {
            parts.push("RoPE scaling".into());
        }
        match self.output {
            OutputHead::Lm => {}
            OutputHead::MaskedLm => parts.push("masked-LM head".into()),
            OutputHead::None => parts.push("no output head".into()),
        }
        if parts.is_empty() {
            "textbook block".into()
        } else {
            parts.join(", ")
        }
    }
}

/// Where LayerNorm sits in a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NormPlacement {
    /// `x + f(LN(x))`, with a final LayerNorm after the stack (modern).
    Pre,
    /// `LN(x + f(x))` (the original transformer).
    Post,
}

fn default_base() -> f32 {
    10000.0
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Positional {
    None,
    Sinusoidal {
        #[serde(default = "default_base")]
        base: f32,
    },
    Learned,
    Rope {
        #[serde(default = "default_base")]
        base: f32,
    },
    Alibi,
    Relative {
        max_distance: usize,
    },
}

impl Positional {
    pub fn label(&self) -> &'static str {
        match self {
            Positional::None => "none",
            Positional::Sinusoidal { .. } => "sinusoidal",
            Positional::Learned => "learned",
            Positional::Rope { .. } => "RoPE",
            Positional::Alibi => "ALiBi",
            Positional::Relative { .. } => "relative bias",
        }
    }
}

/// How a query and a key become a score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scoring {
    /// `q·k / √d_k`
    ScaledDot,
    /// `vᵀ tanh(W q + U k)` (Bahdanau)
    Additive,
    /// `qᵀ W k` (Luong "general")
    Bilinear,
}

fn default_eps() -> f32 {
    1e-5
}

/// Limits that keep a config from asking for absurd allocations.
pub const MAX_D_MODEL: usize = 4096;
pub const MAX_LAYERS: usize = 48;
pub const MAX_LEN: usize = 8192;
pub const MAX_VOCAB: usize = 200_000;
pub const MAX_D_FF: usize = 16384;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelConfig {
    pub format: String,
    pub version: u32,
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub family: Family,
    pub d_model: usize,
    pub n_heads: usize,
    pub n_kv_heads: usize,
    pub n_layers: usize,
    pub d_ff: usize,
    pub max_len: usize,
    pub activation: Activation,
    pub norm: NormPlacement,
    #[serde(default = "default_eps")]
    pub ln_eps: f32,
    pub positional: Positional,
    pub scoring: Scoring,
    pub tie_embeddings: bool,
    /// Decoder self-attention is causal (the default). `false` marks a decoder trained
    /// without the mask: it sees the future, which the masking lab shows going wrong.
    #[serde(default = "causal_default", skip_serializing_if = "is_causal")]
    pub causal: bool,
    pub tokenizer: TokenizerSpec,
    /// RMSNorm, gated FFN, rotate-half RoPE and the rest of what real checkpoints use.
    #[serde(default, skip_serializing_if = "Extensions::is_textbook")]
    pub extensions: Extensions,
}

fn causal_default() -> bool {
    true
}

fn is_causal(causal: &bool) -> bool {
    *causal
}

pub const FORMAT_NAME: &str = "glimpse-model";
pub const FORMAT_VERSION: u32 = 1;

impl ModelConfig {
    /// Floats the KV cache holds per token: a key and a value of d_head for every key/value
    /// head of every layer, 2 · n_layers · n_kv_heads · d_head (sharing heads shrinks it).
    pub fn kv_cache_floats_per_token(&self) -> usize {
        2 * self.n_layers * self.n_kv_heads * self.d_head()
    }

    pub fn d_head(&self) -> usize {
        self.extensions
            .head_dim
            .unwrap_or(self.d_model / self.n_heads.max(1))
    }

    pub fn vocab_size(&self) -> usize {
        self.tokenizer.tokens.len()
    }

    /// Query heads that share one key/value head.
    pub fn group_size(&self) -> usize {
        self.n_heads / self.n_kv_heads.max(1)
    }

    pub fn from_json(text: &str) -> Result<Self> {
        let cfg: ModelConfig =
            serde_json::from_str(text).map_err(|e| ModelError::ConfigJson(e.to_string()))?;
        cfg.validate()?;
        Ok(cfg)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Every rule a config must satisfy before any weight is allocated.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(ModelError::Config(m));
        if self.format != FORMAT_NAME {
            return bad(format!(
                "`format` is {:?}, expected {FORMAT_NAME:?}",
                self.format
            ));
        }
        if self.version != FORMAT_VERSION {
            return bad(format!(
                "format version {} is not supported (this Glimpse reads version {FORMAT_VERSION})",
                self.version
            ));
        }
        let ranged = [
            ("d_model", self.d_model, MAX_D_MODEL),
            ("n_heads", self.n_heads, MAX_D_MODEL),
            ("n_kv_heads", self.n_kv_heads, MAX_D_MODEL),
            ("n_layers", self.n_layers, MAX_LAYERS),
            ("d_ff", self.d_ff, MAX_D_FF),
            ("max_len", self.max_len, MAX_LEN),
        ];
        for (name, value, max) in ranged {
            if value == 0 || value > max {
                return bad(format!(
                    "`{name}` is {value}; it must be between 1 and {max}"
                ));
            }
        }
        if let Some(h) = self.extensions.head_dim {
            if h == 0 || h > MAX_D_MODEL {
                return bad(format!(
                    "`head_dim` is {h}; it must be between 1 and {MAX_D_MODEL}"
                ));
            }
        } else if !self.d_model.is_multiple_of(self.n_heads) {
            return bad(format!(
                "d_model {} is not divisible by n_heads {}",
                self.d_model, self.n_heads
            ));
        }
        if !self.n_heads.is_multiple_of(self.n_kv_heads) {
            return bad(format!(
                "n_heads {} is not divisible by n_kv_heads {}",
                self.n_heads, self.n_kv_heads
            ));
        }
        if !(self.ln_eps > 0.0 && self.ln_eps.is_finite()) {
            return bad(format!(
                "ln_eps must be a positive number, got {}",
                self.ln_eps
            ));
        }
        match self.positional {
            Positional::Sinusoidal { base } | Positional::Rope { base }
                if !(base > 1.0 && base.is_finite()) =>
            {
                return bad(format!("positional base must be > 1, got {base}"));
            }
            Positional::Sinusoidal { .. } if !self.d_model.is_multiple_of(2) => {
                return bad("sinusoidal encodings need an even d_model".into());
            }
            Positional::Rope { .. } if !self.d_head().is_multiple_of(2) => {
                return bad(format!(
                    "RoPE rotates pairs of dimensions, so d_head ({}) must be even",
                    self.d_head()
                ));
            }
            Positional::Relative { max_distance }
                if max_distance == 0 || max_distance > MAX_LEN =>
            {
                return bad(format!(
                    "relative max_distance must be between 1 and {MAX_LEN}, got {max_distance}"
                ));
            }
            _ => {}
        }
        self.validate_extensions()?;
        self.tokenizer.validate()?;
        if self.vocab_size() > MAX_VOCAB {
            return bad(format!(
                "vocabulary has {} tokens, more than {MAX_VOCAB}",
                self.vocab_size()
            ));
        }
        Ok(())
    }

    fn validate_extensions(&self) -> Result<()> {
        let bad = |m: String| Err(ModelError::Config(m));
        let x = &self.extensions;
        if x.token_types > MAX_VOCAB {
            return bad(format!(
                "token_types {} is more than {MAX_VOCAB}",
                x.token_types
            ));
        }
        match x.rope_scaling {
            Some(RopeScaling::Linear { factor }) if !(factor >= 1.0 && factor.is_finite()) => {
                return bad(format!("RoPE scaling factor must be ≥ 1, got {factor}"));
            }
            Some(RopeScaling::Llama3 {
                factor,
                low_freq_factor: lo,
                high_freq_factor: hi,
                original_max,
            }) if !(factor >= 1.0
                && factor.is_finite()
                && lo > 0.0
                && hi > lo
                && hi.is_finite()
                && original_max >= 1.0
                && original_max.is_finite()) =>
            {
                return bad(format!(
                    "llama3 RoPE scaling needs factor ≥ 1, 0 < low_freq_factor < \
                     high_freq_factor and original_max_position_embeddings ≥ 1 (got {factor}, \
                     {lo}, {hi}, {original_max})"
                ));
            }
            _ => {}
        }
        if x.output == OutputHead::MaskedLm && self.family != Family::Encoder {
            return bad("a masked-LM head belongs on an encoder-only model".into());
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::tokenizer::TokenizerKind;

    pub fn small(family: Family, positional: Positional) -> ModelConfig {
        ModelConfig {
            format: FORMAT_NAME.into(),
            version: FORMAT_VERSION,
            name: "test".into(),
            description: String::new(),
            family,
            d_model: 8,
            n_heads: 4,
            n_kv_heads: 2,
            n_layers: 2,
            d_ff: 16,
            max_len: 16,
            activation: Activation::Relu,
            norm: NormPlacement::Pre,
            ln_eps: 1e-5,
            positional,
            scoring: Scoring::ScaledDot,
            tie_embeddings: false,
            causal: true,
            tokenizer: TokenizerSpec::with_symbols(TokenizerKind::Char, "abcdefgh".chars()),
            extensions: Extensions::default(),
        }
    }

    #[test]
    fn round_trips_through_json() {
        let c = small(Family::EncoderDecoder, Positional::Rope { base: 500.0 });
        assert_eq!(ModelConfig::from_json(&c.to_json()).unwrap(), c);
    }

    #[test]
    fn extensions_round_trip_and_textbook_files_stay_as_they_were() {
        let c = small(Family::Decoder, Positional::Rope { base: 500.0 });
        assert!(!c.to_json().contains("extensions"));
        let mut c = c;
        c.extensions = Extensions {
            norm_kind: NormKind::RmsNorm,
            gated_ffn: true,
            head_dim: Some(6),
            rope_pairing: RopePairing::Half,
            rope_scaling: Some(RopeScaling::Llama3 {
                factor: 8.0,
                low_freq_factor: 1.0,
                high_freq_factor: 4.0,
                original_max: 64.0,
            }),
            ..Extensions::default()
        };
        assert_eq!(c.d_head(), 6);
        assert_eq!(ModelConfig::from_json(&c.to_json()).unwrap(), c);
        c.extensions.rope_scaling = Some(RopeScaling::Linear { factor: 0.5 });
        assert!(c.validate().unwrap_err().to_string().contains("≥ 1"));
    }

    #[test]
    fn rejects_heads_that_do_not_divide() {
        let mut c = small(Family::Decoder, Positional::None);
        c.n_heads = 3;
        let e = c.validate().unwrap_err().to_string();
        assert!(e.contains("not divisible by n_heads 3"), "{e}");
        let mut c = small(Family::Decoder, Positional::None);
        c.n_kv_heads = 3;
        assert!(c
            .validate()
            .unwrap_err()
            .to_string()
            .contains("n_kv_heads 3"));
    }

    #[test]
    fn rejects_odd_rope_and_zero_sizes_and_huge_sizes() {
        let mut c = small(Family::Decoder, Positional::Rope { base: 10000.0 });
        c.d_model = 12;
        c.n_heads = 4; // d_head 3
        c.n_kv_heads = 4;
        assert!(c
            .validate()
            .unwrap_err()
            .to_string()
            .contains("must be even"));
        let mut c = small(Family::Decoder, Positional::None);
        c.n_layers = 0;
        assert!(c.validate().is_err());
        let mut c = small(Family::Decoder, Positional::None);
        c.max_len = 1 << 40;
        assert!(c.validate().is_err());
    }

    #[test]
    fn rejects_wrong_format_and_bad_json() {
        let mut c = small(Family::Decoder, Positional::None);
        c.format = "something-else".into();
        assert!(c.validate().unwrap_err().to_string().contains("format"));
        let e = ModelConfig::from_json("{ not json").unwrap_err();
        assert!(matches!(e, ModelError::ConfigJson(_)));
        let e = ModelConfig::from_json(r#"{"format":"glimpse-model"}"#).unwrap_err();
        assert!(e.to_string().contains("missing field"), "{e}");
    }
}
