//! The header of a GGUF file: magic, version, metadata and the tensor table, each entry
//! checked (rank, dimensions, type, alignment) and the tensors' places in the data section
//! checked against the file's length and each other.

use super::cursor::Cursor;
use super::{GgmlType, Gguf, GgufTensorInfo, MetaValue};
use super::{DEFAULT_ALIGNMENT, MAGIC, MAX_DIMS, MAX_TENSOR_NAME};
use crate::model::import::detect::{expect_kind, FileKind};
use crate::model::import::error::{ImportError, Result};
use crate::model::import::limits::Limits;
use crate::model::import::tensors::numel;
use std::collections::BTreeMap;

impl Gguf {
    /// Parses the header of a GGUF file with the default limits.
    pub fn parse(bytes: &[u8]) -> Result<Gguf> {
        Self::parse_with(bytes, "model.gguf", &Limits::default())
    }

    /// Parses header, metadata and tensor table, and checks every tensor's place in the data
    /// section: aligned, inside the file, not overlapping another. Tensors of types Glimpse
    /// does not read are listed (so their metadata can still be shown) and refused by
    /// `read_tensors`.
    pub fn parse_with(bytes: &[u8], file: &str, limits: &Limits) -> Result<Gguf> {
        expect_kind(file, bytes, FileKind::Gguf)?;
        let len = bytes.len() as u64;
        if len > limits.max_file_bytes {
            return Err(ImportError::TooLarge {
                file: file.into(),
                what: "the file size in bytes".into(),
                found: len,
                limit: limits.max_file_bytes,
            });
        }
        let mut c = Cursor {
            bytes,
            pos: 0,
            file,
        };
        if c.take(4, "the magic number")? != MAGIC {
            return Err(c.err("it does not start with `GGUF`".into()));
        }
        let version = c.u32("the version")?;
        let unreadable = match version {
            2 | 3 => None,
            1 => Some(
                "it is GGUF version 1 (2023), which used 32-bit counts; convert it again with a \
                 current llama.cpp"
                    .to_string(),
            ),
            v if v.swap_bytes() <= 3 => {
                Some("it is a big-endian GGUF file; Glimpse reads little-endian ones".into())
            }
            v => Some(format!(
                "it has version {v}; Glimpse reads versions 2 and 3"
            )),
        };
        if let Some(reason) = unreadable {
            return Err(c.err(reason));
        }
        // The smallest table entry: 8-byte name length, n_dims, type, offset.
        let n_tensors = c.count(24, "the tensor count")?;
        if n_tensors > limits.max_tensors {
            return Err(ImportError::TooLarge {
                file: file.into(),
                what: "the number of tensors".into(),
                found: n_tensors as u64,
                limit: limits.max_tensors as u64,
            });
        }
        // The smallest key/value: 8-byte key length, value type, one byte of value.
        let n_kv = c.count(13, "the metadata count")?;
        let mut metadata = BTreeMap::new();
        for _ in 0..n_kv {
            let key = c.string("a metadata key")?;
            let ty = c.u32(&format!("the type of `{key}`"))?;
            let value = c.value(ty, &key, 0)?;
            if metadata.insert(key.clone(), value).is_some() {
                return Err(c.err(format!("metadata key `{key}` appears twice")));
            }
        }
        let alignment = match metadata.get("general.alignment") {
            None => DEFAULT_ALIGNMENT,
            Some(MetaValue::U32(a)) if a.is_power_of_two() => u64::from(*a),
            Some(v) => {
                return Err(c.err(format!(
                    "general.alignment must be a uint32 power of two, found {v:?}"
                )));
            }
        };

        let mut tensors = Vec::with_capacity(n_tensors);
        let mut names = std::collections::BTreeSet::new();
        for _ in 0..n_tensors {
            let name = c.string("a tensor name")?;
            if name.len() as u64 > MAX_TENSOR_NAME {
                return Err(c.err(format!(
                    "a tensor name is {} bytes long, more than {MAX_TENSOR_NAME}",
                    name.len()
                )));
            }
            if !names.insert(name.clone()) {
                return Err(ImportError::DuplicateTensor {
                    file: file.into(),
                    tensor: name,
                });
            }
            let n_dims = c.u32(&format!("the rank of `{name}`"))?;
            if n_dims > MAX_DIMS || n_dims as usize > limits.max_rank {
                return Err(c.err(format!(
                    "tensor `{name}` has {n_dims} dimensions, more than {MAX_DIMS}"
                )));
            }
            let mut dims = Vec::with_capacity(n_dims as usize);
            for _ in 0..n_dims {
                dims.push(c.u64(&format!("the dimensions of `{name}`"))?);
            }
            let ggml_type = GgmlType(c.u32(&format!("the type of `{name}`"))?);
            let offset = c.u64(&format!("the offset of `{name}`"))?;
            tensors.push(tensor_info(&c, name, &dims, ggml_type, offset, alignment)?);
        }
        let data_offset = (c.pos as u64)
            .checked_next_multiple_of(alignment)
            .ok_or_else(|| c.err("the data section's offset overflows".into()))?;
        let gguf = Gguf {
            file: file.into(),
            version,
            metadata,
            tensors,
            alignment,
            data_offset,
            file_len: len,
        };
        gguf.check_layout(&c)?;
        Ok(gguf)
    }

    /// Every tensor of a known type inside the file, and no two overlapping.
    fn check_layout(&self, c: &Cursor) -> Result<()> {
        let data_len = self.file_len.checked_sub(self.data_offset);
        let mut spans: Vec<(u64, u64, &str)> = Vec::new();
        for t in &self.tensors {
            let Some(size) = t.size else { continue };
            let end = t.offset.checked_add(size);
            match (end, data_len) {
                (Some(end), Some(data_len)) if end <= data_len => {
                    spans.push((t.offset, end, &t.name))
                }
                _ => {
                    return Err(c.err(format!(
                        "tensor `{}` ({size} bytes at offset {}) runs past the end of the file (a truncated download?)",
                        t.name, t.offset
                    )))
                }
            }
        }
        spans.sort();
        for pair in spans.windows(2) {
            match pair {
                [(_, end, a), (start, _, b)] if start < end => {
                    return Err(c.err(format!(
                        "tensors `{a}` and `{b}` overlap in the data section"
                    )))
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Checks one table entry: dimensions, element count, type and offset alignment.
fn tensor_info(
    c: &Cursor,
    name: String,
    dims: &[u64],
    ggml_type: GgmlType,
    offset: u64,
    alignment: u64,
) -> Result<GgufTensorInfo> {
    if !offset.is_multiple_of(alignment) {
        return Err(c.err(format!(
            "tensor `{name}` starts at offset {offset}, not a multiple of the alignment {alignment}"
        )));
    }
    // Dimensions must fit in memory's address space, and so must their product.
    let shape: Option<Vec<usize>> = dims
        .iter()
        .rev()
        .map(|&d| usize::try_from(d).ok())
        .collect();
    let count = dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d));
    let (Some(shape), Some(count)) = (shape, count) else {
        return Err(c.err(format!(
            "tensor `{name}` has impossible dimensions {dims:?}"
        )));
    };
    // Every ggml type takes at least one bit per value, so more values (or a longer side, even
    // of an empty tensor) than the file has bits is a lie whatever the type.
    let bits = (c.bytes.len() as u64).saturating_mul(8);
    if numel(&shape).is_none() || count > bits || dims.iter().any(|&d| d > bits) {
        return Err(c.err(format!(
            "tensor `{name}` claims {count} values, far more than the file can hold"
        )));
    }
    let size = match ggml_type.layout() {
        None => None,
        Some((block, bytes)) => {
            let row = dims.first().copied().unwrap_or(1);
            if row % block != 0 {
                return Err(c.err(format!(
                    "tensor `{name}` is {} but its rows of {row} values do not split into blocks of {block}",
                    ggml_type.name()
                )));
            }
            Some(
                (count / block)
                    .checked_mul(bytes)
                    .ok_or_else(|| c.err(format!("the size of tensor `{name}` overflows")))?,
            )
        }
    };
    Ok(GgufTensorInfo {
        name,
        shape,
        ggml_type,
        offset,
        size,
    })
}
