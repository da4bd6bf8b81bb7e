//! safetensors files (Hugging Face's weight format) into a `TensorSet`: F32, F16 and BF16
//! tensors as f32, buffers that are not weights left out, and sharded checkpoints through
//! `model.safetensors.index.json`. Works on bytes, so the browser can hand over dropped files;
//! `read_path` reads a file or a folder from disk natively.
//!
//! The `safetensors` crate validates the layout (header length at most 100 MB and inside the
//! file, valid JSON, known dtypes, element counts without overflow, tensors tiling the data
//! section without gap or overlap up to its last byte). On top of that this reader refuses
//! duplicate names (JSON would silently keep the last), caps the tensor count, the rank and
//! the bytes held after conversion, and checks each of these before converting anything.

use super::detect::{expect_kind, refuse_pickle_name, FileKind};
use super::error::{ImportError, Result};
use super::limits::{Limits, Progress};
use super::tensors::{RawTensor, StoredAs, TensorSet};
use half::{bf16, f16};
use safetensors::{Dtype, SafeTensors};
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use std::collections::{BTreeMap, BTreeSet};

/// The crate's own cap on the JSON header.
const MAX_HEADER_BYTES: u64 = 100_000_000;
pub const INDEX_FILE: &str = "model.safetensors.index.json";
pub const SINGLE_FILE: &str = "model.safetensors";

/// Buffers Hugging Face saves beside the weights that are not parameters: BERT's
/// `embeddings.position_ids` (I64), GPT-2's causal mask `attn.bias` and `attn.masked_bias`,
/// and old Llama checkpoints' `rotary_emb.inv_freq`. Matches whole trailing name parts, so
/// `attn.c_attn.bias` is a weight.
pub fn is_buffer(name: &str) -> bool {
    let mut parts = name.rsplit('.');
    let (last, before) = (parts.next(), parts.next());
    matches!(
        (before, last),
        (Some("embeddings"), Some("position_ids"))
            | (Some("attn"), Some("bias"))
            | (Some("attn"), Some("masked_bias"))
            | (Some("rotary_emb"), Some("inv_freq"))
    )
}

pub struct ReadOptions<'a> {
    /// Names the file in errors.
    pub file: &'a str,
    /// Tensors to leave out (recorded in `TensorSet::skipped`); `is_buffer` by default.
    pub skip: &'a dyn Fn(&str) -> bool,
    pub limits: Limits,
}

impl Default for ReadOptions<'_> {
    fn default() -> Self {
        Self {
            file: SINGLE_FILE,
            skip: &is_buffer,
            limits: Limits::default(),
        }
    }
}

/// Reads one safetensors file with the default options.
pub fn read_safetensors(bytes: &[u8], progress: &mut dyn FnMut(Progress)) -> Result<TensorSet> {
    read_safetensors_with(bytes, &ReadOptions::default(), progress)
}

pub fn read_safetensors_with(
    bytes: &[u8],
    opts: &ReadOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<TensorSet> {
    read_one(bytes, opts, 0, 1, progress)
}

fn read_one(
    bytes: &[u8],
    opts: &ReadOptions,
    file_index: usize,
    file_count: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<TensorSet> {
    let file = opts.file;
    let limits = &opts.limits;
    let malformed = |reason: String| ImportError::Malformed {
        file: file.to_string(),
        format: "safetensors",
        reason,
    };
    let too_large = |what: &str, found: u64, limit: u64| ImportError::TooLarge {
        file: file.to_string(),
        what: what.to_string(),
        found,
        limit,
    };
    expect_kind(file, bytes, FileKind::Safetensors)?;
    let len = bytes.len() as u64;
    if len > limits.max_file_bytes {
        return Err(too_large(
            "the file size in bytes",
            len,
            limits.max_file_bytes,
        ));
    }
    let header = header_bytes(bytes).map_err(malformed)?;

    // Our own pass over the header's keys: duplicates and the count, before the crate builds
    // its tables.
    let count = count_unique_keys(header).map_err(malformed)?;
    if count > limits.max_tensors {
        return Err(too_large(
            "the number of tensors",
            count as u64,
            limits.max_tensors as u64,
        ));
    }
    let st = SafeTensors::deserialize(bytes).map_err(|e| malformed(e.to_string()))?;

    // File order (by offset) makes the progress bar move steadily.
    let mut views = st.tensors();
    views.sort_by_key(|(_, v)| v.data().as_ptr() as usize);

    // Check every tensor before converting any.
    let mut total_out: u64 = 0;
    let mut total_in: u64 = 0;
    for (name, view) in &views {
        if (opts.skip)(name) {
            continue;
        }
        // An empty tensor can claim any side; none may be longer than the file has bits.
        let bits = len.saturating_mul(8);
        if view.shape().iter().any(|&d| d as u64 > bits) {
            return Err(malformed(format!(
                "tensor `{name}` has shape {:?}, longer than the whole file",
                view.shape()
            )));
        }
        if view.shape().len() > limits.max_rank {
            return Err(too_large(
                &format!("the rank of tensor `{name}`"),
                view.shape().len() as u64,
                limits.max_rank as u64,
            ));
        }
        let stored = stored_as(view.dtype()).ok_or_else(|| ImportError::UnsupportedDtype {
            file: file.to_string(),
            tensor: name.clone(),
            dtype: format!("{:?}", view.dtype()),
            supported: "F32, F16 and BF16",
        })?;
        // f32 keeps its size; f16 and bf16 double.
        let grow = if stored == StoredAs::F32 { 1 } else { 2 };
        total_out = total_out.saturating_add((view.data().len() as u64).saturating_mul(grow));
        total_in = total_in.saturating_add(view.data().len() as u64);
    }
    if total_out > limits.max_total_bytes {
        return Err(too_large(
            "the memory the tensors need in bytes",
            total_out,
            limits.max_total_bytes,
        ));
    }

    let mut set = TensorSet::new(file);
    let tensors_total = views.len();
    let mut p = Progress {
        file_index,
        file_count,
        bytes_total: total_in,
        tensors_total,
        ..Progress::default()
    };
    for (name, view) in views {
        if (opts.skip)(&name) {
            set.note_skipped(name);
        } else {
            let stored = stored_as(view.dtype()).unwrap_or(StoredAs::F32);
            let values = to_f32(view.data(), stored);
            let t = RawTensor::f32(view.shape().to_vec(), values, stored)
                .map_err(|e| malformed(format!("tensor `{name}`: {e}")))?;
            p.bytes_done += view.data().len() as u64;
            set.insert(name, t)?;
        }
        p.tensors_done += 1;
        progress(p);
    }
    Ok(set)
}

/// The JSON header: the 8-byte little-endian length, then that many bytes inside the file.
fn header_bytes(bytes: &[u8]) -> std::result::Result<&[u8], String> {
    let (len, rest) = match bytes.split_first_chunk::<8>() {
        Some((len, rest)) => (u64::from_le_bytes(*len), rest),
        None => {
            return Err(format!(
                "it has {} bytes, fewer than the 8 of the header length",
                bytes.len()
            ));
        }
    };
    if len > MAX_HEADER_BYTES {
        return Err(format!(
            "the header length says {len} bytes, more than the format's limit of {MAX_HEADER_BYTES}"
        ));
    }
    usize::try_from(len)
        .ok()
        .and_then(|n| rest.get(..n))
        .ok_or_else(|| {
            format!(
                "the header length says {len} bytes but only {} follow it (a truncated file?)",
                rest.len()
            )
        })
}

/// Number of tensor entries in the header (without `__metadata__`); an error on a name that
/// appears twice or on a header that is not one JSON object.
fn count_unique_keys(header: &[u8]) -> std::result::Result<usize, String> {
    struct Keys;
    impl<'de> Visitor<'de> for Keys {
        type Value = std::result::Result<usize, String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object of tensors")
        }
        fn visit_map<A: MapAccess<'de>>(
            self,
            mut map: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            let mut seen = BTreeSet::new();
            while let Some(key) = map.next_key::<String>()? {
                map.next_value::<IgnoredAny>()?;
                if key != "__metadata__" && !seen.insert(key.clone()) {
                    return Ok(Err(format!("tensor `{key}` appears twice in the header")));
                }
            }
            Ok(Ok(seen.len()))
        }
    }
    let text = std::str::from_utf8(header).map_err(|e| format!("the header is not UTF-8: {e}"))?;
    let mut de = serde_json::Deserializer::from_str(text);
    let counted = de
        .deserialize_map(Keys)
        .map_err(|e| format!("the header is not a JSON object: {e}"))?;
    de.end()
        .map_err(|e| format!("the header has text after its JSON object: {e}"))?;
    counted
}

fn stored_as(dtype: Dtype) -> Option<StoredAs> {
    match dtype {
        Dtype::F32 => Some(StoredAs::F32),
        Dtype::F16 => Some(StoredAs::F16),
        Dtype::BF16 => Some(StoredAs::BF16),
        _ => None,
    }
}

/// Little-endian values to f32: f16 exactly (subnormals included), bf16 as its bits << 16.
fn to_f32(data: &[u8], stored: StoredAs) -> Vec<f32> {
    match stored {
        StoredAs::F16 => data
            .as_chunks::<2>()
            .0
            .iter()
            .map(|b| f16::from_le_bytes(*b).to_f32())
            .collect(),
        StoredAs::BF16 => data
            .as_chunks::<2>()
            .0
            .iter()
            .map(|b| bf16::from_le_bytes(*b).to_f32())
            .collect(),
        _ => data
            .as_chunks::<4>()
            .0
            .iter()
            .map(|b| f32::from_le_bytes(*b))
            .collect(),
    }
}

/// `model.safetensors.index.json`: which shard holds which tensor.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardIndex {
    /// Tensor name → shard file name.
    pub weight_map: BTreeMap<String, String>,
    shards: Vec<String>,
}

/// Parses a shard index. Shard names must be bare file names in the same folder (no `/`,
/// `\`, `..`), end in `.safetensors`, and be few enough to be real.
pub fn parse_index(json: &str, limits: &Limits) -> Result<ShardIndex> {
    let bad = |reason: String| ImportError::ShardIndex {
        file: INDEX_FILE.into(),
        reason,
    };
    #[derive(serde::Deserialize)]
    struct Index {
        weight_map: BTreeMap<String, String>,
    }
    let index: Index =
        serde_json::from_str(json).map_err(|e| bad(format!("it is not valid JSON: {e}")))?;
    if index.weight_map.len() > limits.max_tensors.saturating_mul(8) {
        return Err(bad(format!(
            "it lists {} tensors, more than any model Glimpse can open",
            index.weight_map.len()
        )));
    }
    let shards: BTreeSet<&String> = index.weight_map.values().collect();
    for shard in &shards {
        let bare = !shard.is_empty()
            && !shard.contains(['/', '\\', '\0', ':'])
            && !shard.contains("..")
            && !shard.starts_with('.');
        if !bare {
            return Err(bad(format!(
                "shard `{shard}` is not a plain file name in the model's folder"
            )));
        }
        refuse_pickle_name(shard)?;
        if !shard.ends_with(".safetensors") {
            return Err(bad(format!("shard `{shard}` is not a .safetensors file")));
        }
    }
    if shards.is_empty() {
        return Err(bad("its weight_map is empty".into()));
    }
    let shards = shards.into_iter().cloned().collect();
    Ok(ShardIndex {
        weight_map: index.weight_map,
        shards,
    })
}

impl ShardIndex {
    /// The shard files, sorted, each once.
    pub fn shards(&self) -> &[String] {
        &self.shards
    }

    /// Checks a shard's tensors against the index: everything the index puts in `file` is
    /// there (or was skipped as a buffer), and nothing there belongs to another shard.
    pub fn check_shard(&self, file: &str, set: &TensorSet) -> Result<()> {
        let bad = |reason: String| ImportError::ShardIndex {
            file: INDEX_FILE.into(),
            reason,
        };
        for name in set.names() {
            match self.weight_map.get(name) {
                Some(shard) if shard != file => {
                    return Err(bad(format!(
                        "tensor `{name}` is in `{file}` but the index puts it in `{shard}`"
                    )));
                }
                _ => {}
            }
        }
        let skipped: BTreeSet<&str> = set.skipped().iter().map(String::as_str).collect();
        for (name, shard) in &self.weight_map {
            if shard == file && !set.contains(name) && !skipped.contains(name.as_str()) {
                return Err(bad(format!(
                    "it puts tensor `{name}` in `{file}`, which does not hold it"
                )));
            }
        }
        Ok(())
    }

    /// Reads every shard through `load` (file name → bytes), one at a time so only one
    /// shard's bytes are in memory at once, and merges them.
    pub fn read_shards(
        &self,
        load: &mut dyn FnMut(&str) -> Result<Vec<u8>>,
        limits: &Limits,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<TensorSet> {
        let mut all = TensorSet::new(format!("the {} shards of {INDEX_FILE}", self.shards.len()));
        let mut total: u64 = 0;
        for (i, shard) in self.shards.iter().enumerate() {
            let bytes = load(shard)?;
            let left = Limits {
                max_total_bytes: limits.max_total_bytes.saturating_sub(total),
                ..*limits
            };
            let opts = ReadOptions {
                file: shard,
                skip: &is_buffer,
                limits: left,
            };
            let set = read_one(&bytes, &opts, i, self.shards.len(), progress)?;
            drop(bytes);
            self.check_shard(shard, &set)?;
            total = total.saturating_add(set.memory_bytes() as u64);
            all.merge(set)?;
        }
        Ok(all)
    }
}

/// Reads a checkpoint from disk: a `.safetensors` file, a shard index, or a folder holding
/// `model.safetensors` or `model.safetensors.index.json`.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_path(
    path: &std::path::Path,
    limits: &Limits,
    progress: &mut dyn FnMut(Progress),
) -> Result<TensorSet> {
    let name = |p: &std::path::Path| p.display().to_string();
    let (file, index) = if path.is_dir() {
        let single = path.join(SINGLE_FILE);
        let index = path.join(INDEX_FILE);
        if single.is_file() {
            (Some(single), None)
        } else if index.is_file() {
            (None, Some(index))
        } else {
            for pickle in ["pytorch_model.bin", "pytorch_model.bin.index.json"] {
                if path.join(pickle).exists() {
                    refuse_pickle_name(&name(&path.join(pickle)))?;
                }
            }
            return Err(ImportError::Io {
                path: name(path),
                reason: format!("the folder has neither `{SINGLE_FILE}` nor `{INDEX_FILE}`"),
            });
        }
    } else {
        refuse_pickle_name(&name(path))?;
        if name(path).ends_with(".json") {
            (None, Some(path.to_path_buf()))
        } else {
            (Some(path.to_path_buf()), None)
        }
    };
    if let Some(file) = file {
        let bytes = read_file(&file, limits)?;
        let file_name = name(&file);
        let opts = ReadOptions {
            file: &file_name,
            skip: &is_buffer,
            limits: *limits,
        };
        return read_safetensors_with(&bytes, &opts, progress);
    }
    let index_path = index.unwrap_or_default();
    let dir = index_path.parent().unwrap_or(std::path::Path::new("."));
    let text = String::from_utf8(read_file(&index_path, limits)?).map_err(|_| {
        ImportError::ShardIndex {
            file: name(&index_path),
            reason: "it is not UTF-8 text".into(),
        }
    })?;
    let index = parse_index(&text, limits)?;
    let mut load = |shard: &str| -> Result<Vec<u8>> {
        let p = dir.join(shard);
        if !p.is_file() {
            return Err(ImportError::ShardIndex {
                file: name(&index_path),
                reason: format!("shard `{shard}` is missing from {}", name(dir)),
            });
        }
        read_file(&p, limits)
    };
    index.read_shards(&mut load, limits, progress)
}

/// A whole file, after checking its size against the limit.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_file(path: &std::path::Path, limits: &Limits) -> Result<Vec<u8>> {
    let io = |e: std::io::Error| ImportError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    };
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > limits.max_file_bytes {
        return Err(ImportError::TooLarge {
            file: path.display().to_string(),
            what: "the file size in bytes".into(),
            found: size,
            limit: limits.max_file_bytes,
        });
    }
    std::fs::read(path).map_err(io)
}

#[cfg(test)]
mod tests;
