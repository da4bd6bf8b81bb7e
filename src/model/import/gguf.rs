//! GGUF files (llama.cpp's format, versions 2 and 3) from bytes: header, typed metadata,
//! tensor table, alignment, and tensor data as F32, F16, BF16 (to f32) or Q8_0, Q4_0, Q4_1
//! (kept as compact blocks). REAL_MODELS.md §7 describes the layout.
//!
//! Every count and length in the file is checked against the bytes that remain before
//! anything is allocated from it, and every product of dimensions is checked for overflow, so
//! a hostile file gives an `ImportError`, never a panic or an out-of-memory abort.
//!
//! - [`values`]: the typed metadata values;
//! - [`ggml_type`]: ggml's tensor types and the ones Glimpse reads;
//! - [`cursor`]: bounds-checked reads of untrusted bytes;
//! - [`header`]: the header, metadata and tensor table, checked against the file;
//! - [`tensor_data`]: the tensors copied out of the data section;
//! - [`metadata`]: typed accessors for metadata keys.

mod cursor;
mod ggml_type;
mod header;
mod metadata;
mod tensor_data;
mod values;

pub use ggml_type::GgmlType;
pub use values::{MetaArray, MetaValue};

use super::error::Result;
use super::limits::{Limits, Progress};
use super::tensors::TensorSet;
use std::collections::BTreeMap;

pub const MAGIC: &[u8; 4] = b"GGUF";
pub const DEFAULT_ALIGNMENT: u64 = 32;
/// ggml's GGML_MAX_DIMS.
const MAX_DIMS: u32 = 4;
/// Arrays of arrays are legal; nobody nests them deeply.
const MAX_NESTING: usize = 4;
/// ggml caps names at 63 bytes; a little slack for other writers.
const MAX_TENSOR_NAME: u64 = 256;

/// One entry of the tensor table.
#[derive(Debug, Clone, PartialEq)]
pub struct GgufTensorInfo {
    pub name: String,
    /// PyTorch order (GGUF's dims reversed): `[rows, cols]` for a matrix.
    pub shape: Vec<usize>,
    pub ggml_type: GgmlType,
    /// Bytes from the start of the data section.
    pub offset: u64,
    /// Bytes of data, when the type is one Glimpse reads.
    pub size: Option<u64>,
}

/// A GGUF file's tensors being copied out, a few at a time (`Gguf::read_some`).
pub struct TensorReading {
    /// The tensors copied so far.
    pub set: TensorSet,
    /// Indices into the tensor table, last in the file first (see `Gguf::read_some`).
    order: Vec<usize>,
    next: usize,
    /// Where in the file the tensors copied so far start: no later byte is needed again.
    needed_up_to: usize,
    progress: Progress,
}

impl TensorReading {
    /// How many bytes from the start of the file are still to be read: a caller that owns the
    /// file may cut it there and give the rest back.
    pub fn needed_up_to(&self) -> usize {
        self.needed_up_to
    }
}

/// A parsed GGUF header: metadata and tensor table, checked against the file's length.
#[derive(Debug, Clone, PartialEq)]
pub struct Gguf {
    pub file: String,
    pub version: u32,
    pub metadata: BTreeMap<String, MetaValue>,
    pub tensors: Vec<GgufTensorInfo>,
    pub alignment: u64,
    /// Where the data section starts in the file.
    pub data_offset: u64,
    file_len: u64,
}

/// Parses a GGUF file and reads all its tensors.
pub fn read_gguf(bytes: &[u8], progress: &mut dyn FnMut(Progress)) -> Result<(Gguf, TensorSet)> {
    let limits = Limits::default();
    let gguf = Gguf::parse_with(bytes, "model.gguf", &limits)?;
    let set = gguf.read_tensors(bytes, &limits, progress)?;
    Ok((gguf, set))
}

/// Reads a `.gguf` file from disk.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_gguf_path(
    path: &std::path::Path,
    limits: &Limits,
    progress: &mut dyn FnMut(Progress),
) -> Result<(Gguf, TensorSet)> {
    let bytes = super::safetensors_file::read_file(path, limits)?;
    let gguf = Gguf::parse_with(&bytes, &path.display().to_string(), limits)?;
    let set = gguf.read_tensors(&bytes, limits, progress)?;
    Ok((gguf, set))
}

#[cfg(test)]
pub(crate) mod tests;
