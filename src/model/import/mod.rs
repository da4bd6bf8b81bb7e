//! Real checkpoints' file formats, read into neutral pieces that an architecture mapping turns
//! into a `Model`: a `TensorSet` (named tensors, PyTorch shapes, f32 or compact GGUF blocks),
//! an `Architecture` (typed config.json), and for GGUF files a `LlamaConfig` and the tokenizer
//! data from the metadata. Everything works on bytes (the browser hands over dropped files);
//! `read_path`-style helpers read from disk natively.
//!
//! - `safetensors_file`: model.safetensors and sharded model.safetensors.index.json
//! - `gguf`: llama.cpp's GGUF (header, metadata, tensors); `gguf_model`: its config and
//!   tokenizer; `gguf_writer`: writes GGUF for tests, fuzz seeds and fixtures
//! - `hf_config`: config.json for bert, gpt2, llama, mistral, qwen2
//! - `tensors`, `quant`: the neutral tensors and the Q8_0/Q4_0/Q4_1 blocks
//! - `detect`, `limits`, `error`: format sniffing, caps and progress, errors

pub mod conversion;
pub mod detect;
pub mod error;
pub mod files;
pub mod gguf;
pub mod gguf_model;
pub mod gguf_writer;
pub mod hf_config;
pub mod limits;
pub mod map;
pub mod open;
pub mod quant;
pub mod safetensors_file;
pub mod tensors;

pub use conversion::{Conversion, Stage};
pub use detect::{detect, FileKind};
pub use error::ImportError;
pub use files::CheckpointFiles;
pub use gguf::{read_gguf, GgmlType, Gguf, MetaArray, MetaValue};
pub use gguf_model::GgufTokenizerData;
pub use hf_config::{
    Activation, Architecture, BertConfig, Gpt2Config, LlamaConfig, Rope, RopeScaling, SpecialTokens,
};
pub use limits::{Limits, Progress};
pub use quant::{QuantKind, QuantizedTensor};
pub use safetensors_file::{parse_index, read_safetensors, ShardIndex};
pub use tensors::{RawTensor, StoredAs, TensorData, TensorSet};
