//! Errors of the import layer: every way a checkpoint file, a shard index or a config can be
//! wrong, worded for a teacher who dropped a file onto the app (which file, which tensor, what
//! was expected and what was found).

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum ImportError {
    #[error("could not read `{path}`: {reason}")]
    Io { path: String, reason: String },

    #[error("`{file}` is not a valid {format} file: {reason}")]
    Malformed {
        file: String,
        format: &'static str,
        reason: String,
    },

    #[error("`{file}`: {what} is {found}, more than the limit of {limit}")]
    TooLarge {
        file: String,
        what: String,
        found: u64,
        limit: u64,
    },

    #[error("`{file}` cannot be opened: {reason}")]
    UnsupportedFormat { file: String, reason: String },

    #[error(
        "`{file}`: tensor `{tensor}` is stored as {dtype}, which Glimpse does not read \
         (it reads {supported})"
    )]
    UnsupportedDtype {
        file: String,
        tensor: String,
        dtype: String,
        supported: &'static str,
    },

    #[error(
        "`{file}`: tensor `{tensor}` holds {value} at element {index}; weights must be finite numbers"
    )]
    NonFinite {
        file: String,
        tensor: String,
        index: usize,
        value: String,
    },

    #[error("`{file}`: tensor `{tensor}` appears twice")]
    DuplicateTensor { file: String, tensor: String },

    #[error("tensor `{tensor}` is missing from {origin}")]
    MissingTensor { origin: String, tensor: String },

    #[error("tensor `{tensor}` in {origin} has shape {found:?}, the config needs {expected:?}")]
    ShapeMismatch {
        origin: String,
        tensor: String,
        expected: Vec<usize>,
        found: Vec<usize>,
    },

    #[error("the shard index `{file}` is unusable: {reason}")]
    ShardIndex { file: String, reason: String },

    #[error("`{file}`: {reason}")]
    Config { file: String, reason: String },

    #[error("`{file}`: model_type `{found}` is not supported; Glimpse opens {supported}")]
    UnsupportedModelType {
        file: String,
        found: String,
        supported: String,
    },

    #[error("`{file}`: metadata key `{key}` {reason}")]
    Metadata {
        file: String,
        key: String,
        reason: String,
    },

    #[error("{0}")]
    Usage(String),
}

pub type Result<T> = std::result::Result<T, ImportError>;
