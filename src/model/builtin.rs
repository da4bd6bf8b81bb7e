//! The models Glimpse ships. Until trained weights land these are seeded random
//! initialisations of small, realistic configurations.

use super::config::{
    Activation, Family, ModelConfig, NormPlacement, Positional, Scoring, FORMAT_NAME,
    FORMAT_VERSION,
};
use super::error::{ModelError, Result};
use super::tokenizer::{TokenizerKind, TokenizerSpec};
use super::transformer::Model;
use serde::Serialize;

/// A built-in model as listed by `glimpse models` and the app's picker.
#[derive(Debug, Clone, Serialize)]
pub struct BuiltinInfo {
    pub name: &'static str,
    pub family: Family,
    pub description: &'static str,
    /// A sentence to show when the model is first opened.
    pub example_source: &'static str,
    pub example_target: &'static str,
}

pub const BUILTINS: &[BuiltinInfo] = &[
    BuiltinInfo {
        name: "demo-decoder",
        family: Family::Decoder,
        description: "character-level decoder-only (GPT-like): 2 layers, 4 heads sharing 2 key/value heads (GQA), RoPE, pre-norm; random weights",
        example_source: "the cat sat on the mat",
        example_target: "",
    },
    BuiltinInfo {
        name: "demo-encoder",
        family: Family::Encoder,
        description: "character-level encoder-only (BERT-like): 2 layers, 4 heads, sinusoidal positions, post-norm; random weights",
        example_source: "attention is all you need",
        example_target: "",
    },
    BuiltinInfo {
        name: "demo-translate",
        family: Family::EncoderDecoder,
        description: "word-level encoder–decoder (the original transformer): 2+2 layers, 4 heads, learned positions, post-norm, cross-attention; random weights",
        example_source: "la zone économique européenne",
        example_target: "the european economic area",
    },
];

const CHARS: &str = "abcdefghijklmnopqrstuvwxyz .,!?'-0123456789";
const WORDS: &[&str] = &[
    "la",
    "le",
    "les",
    "zone",
    "économique",
    "européenne",
    "je",
    "suis",
    "étudiant",
    "chat",
    "noir",
    "petit",
    "grand",
    "the",
    "a",
    "european",
    "economic",
    "area",
    "i",
    "am",
    "student",
    "cat",
    "black",
    "small",
    "big",
    "is",
    ".",
    ",",
];

fn config(
    name: &str,
    family: Family,
    positional: Positional,
    norm: NormPlacement,
    kv: usize,
    tokens: TokenizerSpec,
) -> ModelConfig {
    ModelConfig {
        format: FORMAT_NAME.into(),
        version: FORMAT_VERSION,
        name: name.into(),
        description: BUILTINS
            .iter()
            .find(|b| b.name == name)
            .map(|b| b.description.to_string())
            .unwrap_or_default(),
        family,
        d_model: 32,
        n_heads: 4,
        n_kv_heads: kv,
        n_layers: 2,
        d_ff: 64,
        max_len: 64,
        activation: Activation::Gelu,
        norm,
        ln_eps: 1e-5,
        positional,
        scoring: Scoring::ScaledDot,
        tie_embeddings: false,
        tokenizer: tokens,
    }
}

/// Load a built-in model by name.
pub fn load(name: &str) -> Result<Model> {
    let chars = || TokenizerSpec::with_symbols(TokenizerKind::Char, CHARS.chars());
    let (cfg, seed) = match name {
        "demo-decoder" => (
            config(
                name,
                Family::Decoder,
                Positional::Rope { base: 10000.0 },
                NormPlacement::Pre,
                2,
                chars(),
            ),
            11,
        ),
        "demo-encoder" => (
            config(
                name,
                Family::Encoder,
                Positional::Sinusoidal { base: 10000.0 },
                NormPlacement::Post,
                4,
                chars(),
            ),
            12,
        ),
        "demo-translate" => (
            config(
                name,
                Family::EncoderDecoder,
                Positional::Learned,
                NormPlacement::Post,
                4,
                TokenizerSpec::with_symbols(TokenizerKind::Word, WORDS.iter().copied()),
            ),
            13,
        ),
        _ => return Err(ModelError::UnknownModel(name.to_string())),
    };
    Model::random(cfg, seed)
}

pub fn info(name: &str) -> Option<&'static BuiltinInfo> {
    BUILTINS.iter().find(|b| b.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_loads_and_runs_its_example() {
        for b in BUILTINS {
            let m = load(b.name).unwrap();
            assert_eq!(m.config.family, b.family);
            let p = m.prepare(b.example_source, b.example_target);
            assert_eq!(p.unknown, 0, "{}: example has unknown tokens", b.name);
            let t = m.forward(&p.input, &Default::default()).unwrap();
            assert!(t.logits.iter().all(|x| x.is_finite()));
        }
        assert!(matches!(load("nope"), Err(ModelError::UnknownModel(_))));
    }
}
