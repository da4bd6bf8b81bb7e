//! The models Glimpse ships: models trained by Glimpse's own training code (weights embedded
//! from assets/models, each with the recipe that regenerates it), and seeded random
//! initialisations of realistic configurations, kept to contrast noise with learned patterns.

use super::checkpoint::TOKENIZER_SUFFIX;
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
    /// Trained weights (as opposed to a random initialisation).
    pub trained: bool,
}

pub const BUILTINS: &[BuiltinInfo] = &[
    BuiltinInfo {
        name: "translate",
        family: Family::EncoderDecoder,
        description: "trained encoder–decoder on a toy French→English grammar: adjectives move before the noun and their order flips, so cross-attention is not diagonal",
        example_source: "la zone économique européenne",
        example_target: "the european economic area",
        trained: true,
    },
    BuiltinInfo {
        name: "reverse",
        family: Family::EncoderDecoder,
        description: "trained encoder–decoder that writes its input backwards: cross-attention is the anti-diagonal",
        example_source: "abcdefgh",
        example_target: "hgfedcba",
        trained: true,
    },
    BuiltinInfo {
        name: "reverse-nomask",
        family: Family::EncoderDecoder,
        description: "the reverse task trained WITHOUT the decoder's causal mask: it learns to copy the next token from the visible future, so teacher-forced loss is ~0 yet generation fails (see the Masking tab)",
        example_source: "abcdefgh",
        example_target: "hgfedcba",
        trained: true,
    },
    BuiltinInfo {
        name: "extrap-sinusoidal",
        family: Family::EncoderDecoder,
        description: "the reverse task with sinusoidal positions, trained on 3–8 letters and able to take up to 18: how far does it extrapolate? (Positions tab)",
        example_source: "abcdefghij",
        example_target: "jihgfedcba",
        trained: true,
    },
    BuiltinInfo {
        name: "extrap-learned",
        family: Family::EncoderDecoder,
        description: "the reverse task with a learned position table, trained on 3–8 letters and able to take up to 18: how far does it extrapolate? (Positions tab)",
        example_source: "abcdefghij",
        example_target: "jihgfedcba",
        trained: true,
    },
    BuiltinInfo {
        name: "extrap-rope",
        family: Family::EncoderDecoder,
        description: "the reverse task with RoPE, trained on 3–8 letters and able to take up to 18: how far does it extrapolate? (Positions tab)",
        example_source: "abcdefghij",
        example_target: "jihgfedcba",
        trained: true,
    },
    BuiltinInfo {
        name: "extrap-alibi",
        family: Family::EncoderDecoder,
        description: "the reverse task with ALiBi biases, trained on 3–8 letters and able to take up to 18: how far does it extrapolate? (Positions tab)",
        example_source: "abcdefghij",
        example_target: "jihgfedcba",
        trained: true,
    },
    BuiltinInfo {
        name: "extrap-relative",
        family: Family::EncoderDecoder,
        description: "the reverse task with learned relative-position biases (clipped at distance 8), trained on 3–8 letters and able to take up to 18: how far does it extrapolate? (Positions tab)",
        example_source: "abcdefghij",
        example_target: "jihgfedcba",
        trained: true,
    },
    BuiltinInfo {
        name: "copy",
        family: Family::EncoderDecoder,
        description: "trained encoder–decoder that copies its input: cross-attention is the diagonal",
        example_source: "jabbed",
        example_target: "jabbed",
        trained: true,
    },
    BuiltinInfo {
        name: "sort",
        family: Family::EncoderDecoder,
        description: "trained encoder–decoder that sorts letters: each output step looks up the next-smallest letter",
        example_source: "hbdgaec",
        example_target: "abcdegh",
        trained: true,
    },
    BuiltinInfo {
        name: "repeat",
        family: Family::Decoder,
        description: "trained decoder-only model on repeated random sequences: a previous-token head in layer 0 and an induction head in layer 1",
        example_source: "glimpsehowglimpsehow",
        example_target: "",
        trained: true,
    },
    BuiltinInfo {
        name: "sotu-lm",
        family: Family::Decoder,
        description: "an English language model trained by Glimpse on the State of the Union addresses (1790–2007): 4 layers, 4 heads, d=192, RoPE, byte-level BPE of 4,096 pieces; held-out perplexity 56.8",
        example_source: "The Congress of the United States",
        example_target: "",
        trained: true,
    },
    BuiltinInfo {
        name: "sotu-mlm",
        family: Family::Encoder,
        description: "a masked-language encoder (BERT's task) trained by Glimpse on the State of the Union addresses from sotu-lm's weights: type <mask> for a word and it fills the blank from both sides; on held-out speeches it ranks the hidden token first 41 % of the time",
        example_source: "The <mask> of the Union is strong.",
        example_target: "",
        trained: true,
    },
    BuiltinInfo {
        name: "lm",
        family: Family::Decoder,
        description: "trained character-level language model on a short text written for Glimpse: each head looks back over earlier letters to guess the next",
        example_source: "the cat sat on the mat by the river",
        example_target: "",
        trained: true,
    },
    BuiltinInfo {
        name: "demo-decoder",
        family: Family::Decoder,
        description: "character-level decoder-only (GPT-like): 2 layers, 4 heads sharing 2 key/value heads (GQA), RoPE, pre-norm; random weights",
        example_source: "the cat sat on the mat",
        example_target: "",
        trained: false,
    },
    BuiltinInfo {
        name: "demo-encoder",
        family: Family::Encoder,
        description: "character-level encoder-only (BERT-like): 2 layers, 4 heads, sinusoidal positions, post-norm; random weights",
        example_source: "attention is all you need",
        example_target: "",
        trained: false,
    },
    BuiltinInfo {
        name: "demo-translate",
        family: Family::EncoderDecoder,
        description: "word-level encoder–decoder (the original transformer): 2+2 layers, 4 heads, learned positions, post-norm, cross-attention; random weights",
        example_source: "la zone économique européenne",
        example_target: "the european economic area",
        trained: false,
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
        causal: true,
        tokenizer: tokens,
        extensions: Default::default(),
    }
}

/// Trained built-ins too large to fetch at start-up (2.8 MB each): fetched when first chosen.
pub const ON_DEMAND: [&str; 2] = ["sotu-lm", "sotu-mlm"];

/// A sub-word built-in's third file, `STEM.tokenizer.json` beside its config and weights.
fn has_tokenizer_file(name: &str) -> bool {
    ON_DEMAND.contains(&name)
}

/// A trained built-in's files.
pub struct TrainedFiles {
    pub config: String,
    pub weights: Vec<u8>,
    /// A sub-word model's `tokenizer.json`.
    pub tokenizer: Option<Vec<u8>>,
}

/// The URLs of a trained built-in's files, relative to the app: config, weights, and the
/// tokenizer of a sub-word model.
pub fn file_urls(name: &str) -> (String, String, Option<String>) {
    (
        format!("models/{name}.json"),
        format!("models/{name}.safetensors"),
        has_tokenizer_file(name).then(|| format!("models/{name}{TOKENIZER_SUFFIX}")),
    )
}

/// Weights trained by `glimpse train`, compiled in.
#[cfg(not(target_arch = "wasm32"))]
macro_rules! trained {
    ($name:literal) => {
        TrainedFiles {
            config: include_str!(concat!("../../assets/models/", $name, ".json")).to_string(),
            weights: include_bytes!(concat!("../../assets/models/", $name, ".safetensors"))
                .to_vec(),
            tokenizer: None,
        }
    };
    ($name:literal, tokenizer) => {
        TrainedFiles {
            tokenizer: Some(
                include_bytes!(concat!("../../assets/models/", $name, ".tokenizer.json")).to_vec(),
            ),
            ..trained!($name)
        }
    };
}

/// One list of the trained built-ins makes their names, natively their compiled-in files and
/// their recipes, so the three cannot disagree.
macro_rules! trained_builtins {
    ($($name:literal $(with $tokenizer:ident)?),* $(,)?) => {
        /// The built-ins trained by `glimpse train` (see each `.recipe.json` for the command).
        /// Natively their files are compiled in; the browser fetches them from `models/` beside
        /// the app, so the first download stays small (`provide` hands the fetched files over).
        pub const TRAINED: [&str; [$($name),*].len()] = [$($name),*];

        /// A trained built-in's files, compiled in.
        #[cfg(not(target_arch = "wasm32"))]
        pub fn trained_files(name: &str) -> Option<TrainedFiles> {
            Some(match name {
                $($name => trained!($name $(, $tokenizer)?),)*
                _ => return None,
            })
        }

        /// The recipe that made a trained built-in (its `.recipe.json`: the command, the
        /// config, the data and the held-out figures), compiled in natively.
        #[cfg(not(target_arch = "wasm32"))]
        pub fn recipe(name: &str) -> Option<&'static str> {
            match name {
                $($name => Some(include_str!(concat!("../../assets/models/", $name, ".recipe.json"))),)*
                _ => None,
            }
        }
    };
}

trained_builtins!(
    "translate",
    "reverse",
    "reverse-nomask",
    "extrap-sinusoidal",
    "extrap-learned",
    "extrap-rope",
    "extrap-alibi",
    "extrap-relative",
    "copy",
    "sort",
    "repeat",
    "lm",
    "sotu-lm" with tokenizer,
    "sotu-mlm" with tokenizer,
);

/// Files of trained built-ins the browser has fetched, by name.
#[cfg(target_arch = "wasm32")]
static FETCHED: std::sync::Mutex<Vec<(String, TrainedFiles)>> = std::sync::Mutex::new(Vec::new());

/// A trained built-in's files, if the browser has fetched them.
#[cfg(target_arch = "wasm32")]
pub fn trained_files(name: &str) -> Option<TrainedFiles> {
    let fetched = FETCHED.lock().ok()?;
    let (_, files) = fetched.iter().find(|(n, _)| n == name)?;
    Some(TrainedFiles {
        config: files.config.clone(),
        weights: files.weights.clone(),
        tokenizer: files.tokenizer.clone(),
    })
}

/// A trained built-in made from its files.
pub fn load_files(f: &TrainedFiles) -> Result<Model> {
    super::checkpoint::load_bytes_with(&f.config, &f.weights, f.tokenizer.as_deref())
}

/// Hand over a trained built-in's files fetched by the browser (natively they are compiled
/// in, and this does nothing). Checked when the model is loaded.
pub fn provide(name: &str, files: TrainedFiles) {
    #[cfg(target_arch = "wasm32")]
    if let Ok(mut fetched) = FETCHED.lock() {
        fetched.retain(|(n, _)| n != name);
        fetched.push((name.to_string(), files));
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (name, files);
}

/// Whether `name` is a trained built-in whose files are not here yet (the browser, before
/// fetching them).
pub fn needs_files(name: &str) -> bool {
    TRAINED.contains(&name) && trained_files(name).is_none()
}

/// Load a built-in model by name.
pub fn load(name: &str) -> Result<Model> {
    if let Some(f) = trained_files(name) {
        return load_files(&f);
    }
    if TRAINED.contains(&name) {
        return Err(ModelError::Input(format!(
            "{name}'s files ({}) have not been fetched yet",
            file_urls(name).1
        )));
    }
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
    fn the_first_builtin_is_trained() {
        assert!(BUILTINS[0].trained);
        assert!(BUILTINS
            .iter()
            .all(|b| b.trained == trained_files(b.name).is_some()));
        assert!(BUILTINS
            .iter()
            .all(|b| b.trained == TRAINED.contains(&b.name)));
    }

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
