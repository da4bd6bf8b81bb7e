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
mod tests {
    use super::*;
    use safetensors::tensor::TensorView;

    fn serialize(tensors: &[(&str, Dtype, Vec<usize>, Vec<u8>)]) -> Vec<u8> {
        let views: Vec<(String, TensorView)> = tensors
            .iter()
            .map(|(n, d, s, b)| (n.to_string(), TensorView::new(*d, s.clone(), b).unwrap()))
            .collect();
        safetensors::serialize(views, None).unwrap()
    }

    fn f32_bytes(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// A file from a hand-written header (padded with spaces to 8 bytes) and data.
    fn raw(header: &str, data: &[u8]) -> Vec<u8> {
        let mut h = header.as_bytes().to_vec();
        while !h.len().is_multiple_of(8) {
            h.push(b' ');
        }
        let mut out = (h.len() as u64).to_le_bytes().to_vec();
        out.extend(h);
        out.extend(data);
        out
    }

    fn read(bytes: &[u8]) -> Result<TensorSet> {
        read_safetensors(bytes, &mut |_| {})
    }

    fn small() -> Vec<u8> {
        serialize(&[
            (
                "a",
                Dtype::F32,
                vec![2, 2],
                f32_bytes(&[1.0, -2.0, 0.5, 3.0]),
            ),
            (
                "b",
                Dtype::F16,
                vec![3],
                [0x3c00u16, 0x0001, 0x8000]
                    .iter()
                    .flat_map(|x| x.to_le_bytes())
                    .collect(),
            ),
        ])
    }

    #[test]
    fn every_float_dtype_round_trips() {
        let f16_bits: [u16; 6] = [0x3c00, 0xc000, 0x0001, 0x03ff, 0x7bff, 0x8000];
        let f16_want = [
            1.0,
            -2.0,
            2f32.powi(-24),
            1023.0 * 2f32.powi(-24),
            65504.0,
            -0.0,
        ];
        let bf16_bits: [u16; 3] = [0x3f80, 0xc0a0, 0x0001];
        let bf16_want = [1.0, -5.0, f32::from_bits(0x0001_0000)];
        let f32_vals = [0.0, 1.5, -1e-30, 3e38, f32::MIN_POSITIVE / 2.0, 7.0];
        let le = |v: &[u16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let bytes = serialize(&[
            ("h", Dtype::F16, vec![2, 3], le(&f16_bits)),
            ("b", Dtype::BF16, vec![3], le(&bf16_bits)),
            ("f", Dtype::F32, vec![3, 1, 2], f32_bytes(&f32_vals)),
            ("s", Dtype::F32, vec![], f32_bytes(&[4.0])),
        ]);
        let mut set = read(&bytes).unwrap();
        assert_eq!(set.len(), 4);
        assert_eq!(set.get("h").unwrap().stored_as, StoredAs::F16);
        let h = set.take_f32("h", &[2, 3]).unwrap();
        for (got, want) in h.iter().zip(f16_want) {
            assert_eq!(got.to_bits(), want.to_bits(), "{got} vs {want}");
        }
        let b = set.take_vector("b", 3).unwrap();
        for (got, want) in b.iter().zip(bf16_want) {
            assert_eq!(got.to_bits(), want.to_bits());
        }
        let f = set.take_f32("f", &[3, 1, 2]).unwrap();
        assert_eq!(f.iter().copied().collect::<Vec<_>>(), f32_vals);
        assert_eq!(set.take_f32("s", &[]).unwrap().sum(), 4.0);
    }

    #[test]
    fn buffers_are_skipped_and_weights_kept() {
        let bytes = serialize(&[
            (
                "bert.embeddings.position_ids",
                Dtype::I64,
                vec![1, 2],
                vec![0; 16],
            ),
            (
                "h.0.attn.bias",
                Dtype::F32,
                vec![1, 1, 2, 2],
                f32_bytes(&[1.0, 0.0, 1.0, 1.0]),
            ),
            (
                "h.0.attn.masked_bias",
                Dtype::F32,
                vec![],
                f32_bytes(&[-1e4]),
            ),
            (
                "h.0.attn.c_attn.bias",
                Dtype::F32,
                vec![2],
                f32_bytes(&[1.0, 2.0]),
            ),
            (
                "model.layers.0.self_attn.rotary_emb.inv_freq",
                Dtype::F32,
                vec![1],
                f32_bytes(&[1.0]),
            ),
        ]);
        let set = read(&bytes).unwrap();
        assert_eq!(set.names().collect::<Vec<_>>(), ["h.0.attn.c_attn.bias"]);
        assert_eq!(set.skipped().len(), 4);
        assert!(is_buffer("attn.bias") && !is_buffer("c_attn.bias") && !is_buffer("bias"));
        // Without the predicate the I64 buffer is an unsupported dtype, named.
        let opts = ReadOptions {
            skip: &|_| false,
            ..ReadOptions::default()
        };
        let e = read_safetensors_with(&bytes, &opts, &mut |_| {}).unwrap_err();
        assert!(
            matches!(&e, ImportError::UnsupportedDtype { tensor, dtype, .. }
            if tensor == "bert.embeddings.position_ids" && dtype == "I64"),
            "{e}"
        );
    }

    #[test]
    fn other_dtypes_are_refused_by_name() {
        for (dtype, bytes) in [
            (Dtype::F64, 8),
            (Dtype::I32, 4),
            (Dtype::U8, 1),
            (Dtype::F8_E4M3, 1),
        ] {
            let file = serialize(&[("w", dtype, vec![2], vec![0; 2 * bytes])]);
            let e = read(&file).unwrap_err();
            let msg = e.to_string();
            assert!(
                msg.contains("`w`") && msg.contains(&format!("{dtype:?}")),
                "{msg}"
            );
        }
    }

    #[test]
    fn progress_reaches_the_end() {
        let mut seen = Vec::new();
        read_safetensors(&small(), &mut |p| seen.push(p)).unwrap();
        let last = seen.last().unwrap();
        assert_eq!(seen.len(), 2);
        assert_eq!((last.tensors_done, last.tensors_total), (2, 2));
        assert_eq!(last.bytes_done, last.bytes_total);
        assert_eq!(last.fraction(), 1.0);
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = small();
        for cut in 0..bytes.len() {
            assert!(read(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(read(&longer).is_err());
        assert!(read(&bytes).is_ok());
    }

    #[test]
    fn every_flipped_byte_is_handled() {
        let bytes = small();
        for i in 0..bytes.len() {
            for flip in [0x01, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[i] ^= flip;
                let _ = read(&b);
            }
        }
    }

    #[test]
    fn lying_header_lengths() {
        let mut huge = u64::MAX.to_le_bytes().to_vec();
        huge.extend(b"{}");
        let e = read(&huge).unwrap_err();
        assert!(e.to_string().contains("limit"), "{e}");
        let mut past = 1000u64.to_le_bytes().to_vec();
        past.extend(b"{}      ");
        let e = read(&past).unwrap_err();
        assert!(e.to_string().contains("only 8 follow"), "{e}");
        let mut short = small();
        short[0] -= 8; // the header now ends inside its JSON
        assert!(read(&short).is_err());
    }

    #[test]
    fn overlaps_gaps_and_wrong_sizes_are_refused() {
        let data = f32_bytes(&[1.0, 2.0, 3.0, 4.0]);
        for header in [
            // overlap
            r#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}"#,
            // gap
            r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}"#,
            // size does not match the shape
            r#"{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}}"#,
            // end before start
            r#"{"a":{"dtype":"F32","shape":[0],"data_offsets":[16,0]}}"#,
            // offsets past the data
            r#"{"a":{"dtype":"F32","shape":[8],"data_offsets":[0,32]}}"#,
            // data left over after the last tensor
            r#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#,
            // unknown dtype, not an object, trailing text
            r#"{"a":{"dtype":"F17","shape":[4],"data_offsets":[0,16]}}"#,
            r#"[1,2,3]"#,
            r#"{} {}"#,
        ] {
            assert!(read(&raw(header, &data)).is_err(), "{header}");
        }
        let ok = r#"{"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#;
        assert!(read(&raw(ok, &data)).is_ok());
    }

    #[test]
    fn duplicate_names_are_refused() {
        let h = r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#;
        let e = read(&raw(h, &f32_bytes(&[1.0]))).unwrap_err();
        assert!(e.to_string().contains("`a` appears twice"), "{e}");
    }

    #[test]
    fn absurd_sizes_are_refused_before_allocating() {
        // Shapes whose products overflow, or claim far more than the file holds.
        for shape in [
            "[4294967296,4294967296,4294967296]",
            "[18446744073709551615,2]",
            "[1099511627776]",
        ] {
            let h = format!(r#"{{"a":{{"dtype":"F32","shape":{shape},"data_offsets":[0,4]}}}}"#);
            assert!(read(&raw(&h, &[0; 4])).is_err(), "{shape}");
        }
        let empty = r#"{"a":{"dtype":"F32","shape":[0,1099511627776],"data_offsets":[0,0]}}"#;
        assert!(read(&raw(empty, &[]))
            .unwrap_err()
            .to_string()
            .contains("longer than the whole file"));
        let rank9 = r#"{"a":{"dtype":"F32","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,4]}}"#;
        let e = read(&raw(rank9, &[0; 4])).unwrap_err();
        assert!(e.to_string().contains("rank"), "{e}");
        // Counts and bytes over the caller's limits.
        let limits = Limits {
            max_tensors: 1,
            ..Limits::default()
        };
        let opts = ReadOptions {
            limits,
            ..ReadOptions::default()
        };
        let e = read_safetensors_with(&small(), &opts, &mut |_| {}).unwrap_err();
        assert!(e.to_string().contains("number of tensors"), "{e}");
        let limits = Limits {
            max_total_bytes: 20,
            ..Limits::default()
        };
        let opts = ReadOptions {
            limits,
            ..ReadOptions::default()
        };
        let e = read_safetensors_with(&small(), &opts, &mut |_| {}).unwrap_err();
        assert!(e.to_string().contains("memory"), "{e}");
        let limits = Limits {
            max_file_bytes: 10,
            ..Limits::default()
        };
        let opts = ReadOptions {
            limits,
            ..ReadOptions::default()
        };
        assert!(read_safetensors_with(&small(), &opts, &mut |_| {}).is_err());
    }

    #[test]
    fn nan_weights_load_but_are_refused_when_taken() {
        let bytes = serialize(&[("w", Dtype::F32, vec![2], f32_bytes(&[1.0, f32::NAN]))]);
        let mut set = read(&bytes).unwrap();
        let e = set.take_vector("w", 2).unwrap_err();
        assert!(
            e.to_string().contains("`w`") && e.to_string().contains("NaN"),
            "{e}"
        );
        // bf16 infinity is caught the same way.
        let inf = serialize(&[("x", Dtype::BF16, vec![1], 0x7f80u16.to_le_bytes().to_vec())]);
        assert!(read(&inf).unwrap().take("x").is_err());
    }

    #[test]
    fn other_formats_are_named() {
        let e = read(b"PK\x03\x04\0\0\0\0\0\0").unwrap_err();
        assert!(e.to_string().contains("pickle"), "{e}");
        let e = read(b"GGUF\x03\0\0\0\0\0\0\0").unwrap_err();
        assert!(e.to_string().contains("GGUF"), "{e}");
        assert!(read(b"").is_err());
        assert!(read(b"short").is_err());
    }

    fn index_json(map: &[(&str, &str)]) -> String {
        let m: BTreeMap<&str, &str> = map.iter().copied().collect();
        serde_json::json!({"metadata": {"total_size": 1}, "weight_map": m}).to_string()
    }

    #[test]
    fn shard_index_refuses_paths_and_pickles() {
        let l = Limits::default();
        for shard in [
            "../model.safetensors",
            "a/b.safetensors",
            "..\\x.safetensors",
            "/etc/passwd",
            "C:x.safetensors",
            "",
            ".hidden.safetensors",
            "model.json",
        ] {
            let e = parse_index(&index_json(&[("w", shard)]), &l).unwrap_err();
            assert!(matches!(e, ImportError::ShardIndex { .. }), "{shard}: {e}");
        }
        let e = parse_index(
            &index_json(&[("w", "pytorch_model-00001-of-00002.bin")]),
            &l,
        )
        .unwrap_err();
        assert!(e.to_string().contains("pickle"), "{e}");
        assert!(parse_index("{}", &l).is_err());
        assert!(parse_index(r#"{"weight_map":{}}"#, &l).is_err());
        assert!(parse_index(r#"{"weight_map":{"a":3}}"#, &l).is_err());
        assert!(parse_index("not json", &l).is_err());
        let i = parse_index(
            &index_json(&[
                ("a", "s2.safetensors"),
                ("b", "s1.safetensors"),
                ("c", "s2.safetensors"),
            ]),
            &l,
        )
        .unwrap();
        assert_eq!(i.shards(), ["s1.safetensors", "s2.safetensors"]);
    }

    fn shards() -> (String, Vec<(&'static str, Vec<u8>)>) {
        let s1 = serialize(&[
            ("a", Dtype::F32, vec![1], f32_bytes(&[1.0])),
            ("embeddings.position_ids", Dtype::I64, vec![1], vec![0; 8]),
        ]);
        let s2 = serialize(&[("b", Dtype::F16, vec![1], 0x4000u16.to_le_bytes().to_vec())]);
        let idx = index_json(&[
            ("a", "m-1.safetensors"),
            ("embeddings.position_ids", "m-1.safetensors"),
            ("b", "m-2.safetensors"),
        ]);
        (idx, vec![("m-1.safetensors", s1), ("m-2.safetensors", s2)])
    }

    fn load_from<'a>(
        files: &'a [(&'static str, Vec<u8>)],
    ) -> impl FnMut(&str) -> Result<Vec<u8>> + 'a {
        move |name: &str| {
            files
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, b)| b.clone())
                .ok_or_else(|| ImportError::ShardIndex {
                    file: INDEX_FILE.into(),
                    reason: format!("shard `{name}` is missing"),
                })
        }
    }

    #[test]
    fn shards_merge_and_are_checked_against_the_index() {
        let (idx, files) = shards();
        let l = Limits::default();
        let index = parse_index(&idx, &l).unwrap();
        let mut files_seen = Vec::new();
        let mut set = index
            .read_shards(&mut load_from(&files), &l, &mut |p| {
                files_seen.push((p.file_index, p.file_count))
            })
            .unwrap();
        assert_eq!(set.names().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(set.skipped(), ["embeddings.position_ids"]);
        assert_eq!(files_seen.last(), Some(&(1, 2)));
        assert_eq!(set.take_vector("b", 1).unwrap()[0], 2.0);

        // A missing shard.
        let e = index
            .read_shards(&mut load_from(&files[..1]), &l, &mut |_| {})
            .unwrap_err();
        assert!(e.to_string().contains("m-2.safetensors"), "{e}");
        // The index puts a tensor in a shard that does not hold it.
        let wrong = parse_index(&index_swap(), &l).unwrap();
        let e = wrong
            .read_shards(&mut load_from(&files), &l, &mut |_| {})
            .unwrap_err();
        assert!(matches!(e, ImportError::ShardIndex { .. }), "{e}");
        // The same tensor in two shards.
        let twice = vec![
            ("m-1.safetensors", files[0].1.clone()),
            ("m-2.safetensors", files[0].1.clone()),
        ];
        let idx2 = index_json(&[("a", "m-1.safetensors"), ("c", "m-2.safetensors")]);
        let e = parse_index(&idx2, &l)
            .unwrap()
            .read_shards(&mut load_from(&twice), &l, &mut |_| {})
            .unwrap_err();
        assert!(e.to_string().contains("`a`"), "{e}");
    }

    fn index_swap() -> String {
        index_json(&[("a", "m-2.safetensors"), ("b", "m-1.safetensors")])
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn folders_files_and_pickles_on_disk() {
        let dir = std::env::temp_dir().join(format!("glimpse-import-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let l = Limits::default();
        // Sharded folder.
        let sharded = dir.join("sharded");
        std::fs::create_dir_all(&sharded).unwrap();
        let (idx, files) = shards();
        std::fs::write(sharded.join(INDEX_FILE), &idx).unwrap();
        for (n, b) in &files {
            std::fs::write(sharded.join(n), b).unwrap();
        }
        assert_eq!(read_path(&sharded, &l, &mut |_| {}).unwrap().len(), 2);
        assert_eq!(
            read_path(&sharded.join(INDEX_FILE), &l, &mut |_| {})
                .unwrap()
                .len(),
            2
        );
        std::fs::remove_file(sharded.join("m-2.safetensors")).unwrap();
        let e = read_path(&sharded, &l, &mut |_| {}).unwrap_err();
        assert!(
            e.to_string().contains("m-2.safetensors") && e.to_string().contains("missing"),
            "{e}"
        );
        // Single file, by folder and by name.
        let single = dir.join("single");
        std::fs::create_dir_all(&single).unwrap();
        std::fs::write(single.join(SINGLE_FILE), small()).unwrap();
        assert_eq!(read_path(&single, &l, &mut |_| {}).unwrap().len(), 2);
        let set = read_path(&single.join(SINGLE_FILE), &l, &mut |_| {}).unwrap();
        assert!(set.origin().ends_with(SINGLE_FILE));
        let tiny = Limits {
            max_file_bytes: 8,
            ..l
        };
        assert!(matches!(
            read_path(&single, &tiny, &mut |_| {}),
            Err(ImportError::TooLarge { .. })
        ));
        // Pickles, empty folders, missing files.
        let pickle = dir.join("pickle");
        std::fs::create_dir_all(&pickle).unwrap();
        let e = read_path(&pickle, &l, &mut |_| {}).unwrap_err();
        assert!(e.to_string().contains(SINGLE_FILE), "{e}");
        std::fs::write(pickle.join("pytorch_model.bin"), b"PK\x03\x04").unwrap();
        let e = read_path(&pickle, &l, &mut |_| {}).unwrap_err();
        assert!(e.to_string().contains("pickle"), "{e}");
        let e = read_path(&pickle.join("pytorch_model.bin"), &l, &mut |_| {}).unwrap_err();
        assert!(e.to_string().contains("pickle"), "{e}");
        assert!(matches!(
            read_path(&dir.join("nope.safetensors"), &l, &mut |_| {}),
            Err(ImportError::Io { .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// all-MiniLM-L6-v2 (REAL_MODELS.md §6, §8), when another task has fetched it.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn real_minilm_when_present() {
        let Some(home) = std::env::var_os("HOME") else {
            return;
        };
        let path = std::path::Path::new(&home)
            .join(".cache/glimpse/models/all-MiniLM-L6-v2/model.safetensors");
        if !path.is_file() {
            println!("skipped: {} is absent", path.display());
            return;
        }
        let mut set = read_path(&path, &Limits::default(), &mut |_| {}).unwrap();
        set.strip_base_prefixes().unwrap();
        let (d, i, v, layers) = (384, 1536, 30522, 6);
        // 3 embeddings + LN (2) + 16 per layer + pooler (2).
        assert_eq!(
            set.len(),
            3 + 2 + 16 * layers + 2,
            "{:?}",
            set.names().collect::<Vec<_>>()
        );
        set.take_matrix("embeddings.word_embeddings.weight", v, d)
            .unwrap();
        set.take_matrix("embeddings.position_embeddings.weight", 512, d)
            .unwrap();
        set.take_matrix("embeddings.token_type_embeddings.weight", 2, d)
            .unwrap();
        set.take_vector("embeddings.LayerNorm.weight", d).unwrap();
        for l in 0..layers {
            let p = format!("encoder.layer.{l}");
            for m in [
                "attention.self.query",
                "attention.self.key",
                "attention.self.value",
                "attention.output.dense",
            ] {
                set.take_matrix(&format!("{p}.{m}.weight"), d, d).unwrap();
                set.take_vector(&format!("{p}.{m}.bias"), d).unwrap();
            }
            set.take_matrix(&format!("{p}.intermediate.dense.weight"), i, d)
                .unwrap();
            set.take_matrix(&format!("{p}.output.dense.weight"), d, i)
                .unwrap();
        }
        println!(
            "MiniLM: {} tensors left, {} skipped",
            set.len(),
            set.skipped().len()
        );
    }
}
