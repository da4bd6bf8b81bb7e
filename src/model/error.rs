//! Errors of the model layer: every way a config, a checkpoint or an input can be wrong.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum ModelError {
    #[error("invalid model config: {0}")]
    Config(String),
    #[error("could not read the model config JSON: {0}")]
    ConfigJson(String),
    #[error("the weights file is not a valid safetensors file: {0}")]
    Safetensors(String),
    #[error("the weights file is {size} bytes, more than the {limit}-byte limit")]
    TooLarge { size: u64, limit: u64 },
    #[error("tensor `{0}` is missing from the weights file")]
    MissingTensor(String),
    #[error("tensor `{0}` is in the weights file but this model config has no such tensor")]
    UnexpectedTensor(String),
    #[error("tensor `{name}` has shape {found:?}, the config needs {expected:?}")]
    ShapeMismatch {
        name: String,
        expected: Vec<usize>,
        found: Vec<usize>,
    },
    #[error("tensor `{name}` has dtype {found}, Glimpse reads only F32")]
    DType { name: String, found: String },
    #[error("tensor `{0}` contains NaN or infinite values")]
    NonFinite(String),
    #[error("input is empty: type at least one token")]
    EmptyInput,
    #[error("input has {len} tokens but this model accepts at most {max}")]
    TooLong { len: usize, max: usize },
    #[error("token id {id} is outside the vocabulary of {vocab} tokens")]
    BadTokenId { id: u32, vocab: usize },
    #[error("{0}")]
    Input(String),
    #[error("could not read `{path}`: {reason}")]
    Io { path: String, reason: String },
    #[error("no model named `{0}` (try `glimpse models`)")]
    UnknownModel(String),
    /// A real checkpoint (Hugging Face folder, GGUF file) that could not be read or mapped.
    #[error("{0}")]
    Import(String),
}

impl From<super::import::ImportError> for ModelError {
    fn from(e: super::import::ImportError) -> Self {
        ModelError::Import(e.to_string())
    }
}

pub type Result<T> = std::result::Result<T, ModelError>;
