//! GGUF files (llama.cpp's format, versions 2 and 3) from bytes: header, typed metadata,
//! tensor table, alignment, and tensor data as F32, F16, BF16 (to f32) or Q8_0, Q4_0, Q4_1
//! (kept as compact blocks). REAL_MODELS.md §7 describes the layout.
//!
//! Every count and length in the file is checked against the bytes that remain before
//! anything is allocated from it, and every product of dimensions is checked for overflow, so
//! a hostile file gives an `ImportError`, never a panic or an out-of-memory abort.

use super::detect::{expect_kind, FileKind};
use super::error::{ImportError, Result};
use super::limits::{Limits, Progress};
use super::quant::{QuantKind, QuantizedTensor, BLOCK};
use super::tensors::{numel, RawTensor, StoredAs, TensorSet};
use half::{bf16, f16};
use std::collections::BTreeMap;

pub const MAGIC: &[u8; 4] = b"GGUF";
pub const DEFAULT_ALIGNMENT: u64 = 32;
/// ggml's GGML_MAX_DIMS.
const MAX_DIMS: u32 = 4;
/// Arrays of arrays are legal; nobody nests them deeply.
const MAX_NESTING: usize = 4;
/// ggml caps names at 63 bytes; a little slack for other writers.
const MAX_TENSOR_NAME: u64 = 256;

/// A metadata value. Strings are UTF-8 (checked).
#[derive(Debug, Clone, PartialEq)]
pub enum MetaValue {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    U64(u64),
    I64(i64),
    F32(f32),
    F64(f64),
    Bool(bool),
    Str(String),
    Array(MetaArray),
}

/// A metadata array: one element type, stored compactly.
#[derive(Debug, Clone, PartialEq)]
pub enum MetaArray {
    U8(Vec<u8>),
    I8(Vec<i8>),
    U16(Vec<u16>),
    I16(Vec<i16>),
    U32(Vec<u32>),
    I32(Vec<i32>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    Str(Vec<String>),
    Array(Vec<MetaArray>),
}

impl MetaValue {
    /// The value as an integer, whatever its integer type.
    pub fn as_i128(&self) -> Option<i128> {
        Some(match *self {
            MetaValue::U8(v) => v.into(),
            MetaValue::I8(v) => v.into(),
            MetaValue::U16(v) => v.into(),
            MetaValue::I16(v) => v.into(),
            MetaValue::U32(v) => v.into(),
            MetaValue::I32(v) => v.into(),
            MetaValue::U64(v) => v.into(),
            MetaValue::I64(v) => v.into(),
            _ => return None,
        })
    }

    /// The value as f64: floats and integers.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            MetaValue::F32(v) => Some(v.into()),
            MetaValue::F64(v) => Some(v),
            _ => self.as_i128().map(|v| v as f64),
        }
    }

    /// The GGUF name of the value's type, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            MetaValue::U8(_) => "uint8",
            MetaValue::I8(_) => "int8",
            MetaValue::U16(_) => "uint16",
            MetaValue::I16(_) => "int16",
            MetaValue::U32(_) => "uint32",
            MetaValue::I32(_) => "int32",
            MetaValue::U64(_) => "uint64",
            MetaValue::I64(_) => "int64",
            MetaValue::F32(_) => "float32",
            MetaValue::F64(_) => "float64",
            MetaValue::Bool(_) => "bool",
            MetaValue::Str(_) => "string",
            MetaValue::Array(_) => "array",
        }
    }
}

impl MetaArray {
    pub fn len(&self) -> usize {
        match self {
            MetaArray::U8(v) => v.len(),
            MetaArray::I8(v) => v.len(),
            MetaArray::U16(v) => v.len(),
            MetaArray::I16(v) => v.len(),
            MetaArray::U32(v) => v.len(),
            MetaArray::I32(v) => v.len(),
            MetaArray::U64(v) => v.len(),
            MetaArray::I64(v) => v.len(),
            MetaArray::F32(v) => v.len(),
            MetaArray::F64(v) => v.len(),
            MetaArray::Bool(v) => v.len(),
            MetaArray::Str(v) => v.len(),
            MetaArray::Array(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Integer elements widened, or None for a non-integer array.
    pub fn integers(&self) -> Option<Vec<i128>> {
        fn wide<T: Copy + Into<i128>>(v: &[T]) -> Vec<i128> {
            v.iter().map(|&x| x.into()).collect()
        }
        Some(match self {
            MetaArray::U8(v) => wide(v),
            MetaArray::I8(v) => wide(v),
            MetaArray::U16(v) => wide(v),
            MetaArray::I16(v) => wide(v),
            MetaArray::U32(v) => wide(v),
            MetaArray::I32(v) => wide(v),
            MetaArray::U64(v) => wide(v),
            MetaArray::I64(v) => wide(v),
            _ => return None,
        })
    }
}

/// A ggml tensor type (the ids of ggml.h's `ggml_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GgmlType(pub u32);

impl GgmlType {
    pub const F32: GgmlType = GgmlType(0);
    pub const F16: GgmlType = GgmlType(1);
    pub const Q4_0: GgmlType = GgmlType(2);
    pub const Q4_1: GgmlType = GgmlType(3);
    pub const Q8_0: GgmlType = GgmlType(8);
    pub const BF16: GgmlType = GgmlType(30);

    pub fn name(self) -> String {
        let known = match self.0 {
            0 => "F32",
            1 => "F16",
            2 => "Q4_0",
            3 => "Q4_1",
            6 => "Q5_0",
            7 => "Q5_1",
            8 => "Q8_0",
            9 => "Q8_1",
            10 => "Q2_K",
            11 => "Q3_K",
            12 => "Q4_K",
            13 => "Q5_K",
            14 => "Q6_K",
            15 => "Q8_K",
            16 => "IQ2_XXS",
            17 => "IQ2_XS",
            18 => "IQ3_XXS",
            19 => "IQ1_S",
            20 => "IQ4_NL",
            21 => "IQ3_S",
            22 => "IQ2_S",
            23 => "IQ4_XS",
            24 => "I8",
            25 => "I16",
            26 => "I32",
            27 => "I64",
            28 => "F64",
            29 => "IQ1_M",
            30 => "BF16",
            34 => "TQ1_0",
            35 => "TQ2_0",
            39 => "MXFP4",
            other => return format!("type {other}"),
        };
        known.to_string()
    }

    /// (values per block, bytes per block) for the types Glimpse reads.
    fn layout(self) -> Option<(u64, u64)> {
        match self {
            GgmlType::F32 => Some((1, 4)),
            GgmlType::F16 | GgmlType::BF16 => Some((1, 2)),
            _ => self.quant().map(|q| (BLOCK as u64, q.block_bytes() as u64)),
        }
    }

    fn quant(self) -> Option<QuantKind> {
        match self {
            GgmlType::Q8_0 => Some(QuantKind::Q8_0),
            GgmlType::Q4_0 => Some(QuantKind::Q4_0),
            GgmlType::Q4_1 => Some(QuantKind::Q4_1),
            _ => None,
        }
    }

    pub fn is_supported(self) -> bool {
        self.layout().is_some()
    }
}

const SUPPORTED: &str = "F32, F16, BF16, Q8_0, Q4_0 and Q4_1";

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
    next: usize,
    progress: Progress,
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

/// A cursor over untrusted bytes: every read is bounds-checked.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    file: &'a str,
}

impl<'a> Cursor<'a> {
    fn err(&self, reason: String) -> ImportError {
        ImportError::Malformed {
            file: self.file.to_string(),
            format: "GGUF",
            reason,
        }
    }

    fn remaining(&self) -> u64 {
        self.bytes.len().saturating_sub(self.pos) as u64
    }

    fn take(&mut self, n: u64, what: &str) -> Result<&'a [u8]> {
        let slice = usize::try_from(n)
            .ok()
            .and_then(|n| self.bytes.get(self.pos..self.pos.checked_add(n)?));
        match slice {
            Some(s) => {
                self.pos += s.len();
                Ok(s)
            }
            None => Err(self.err(format!(
                "the file ends inside {what} (at byte {}, {n} bytes needed, {} left)",
                self.pos,
                self.remaining()
            ))),
        }
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let s = self.take(N as u64, what)?;
        s.try_into()
            .map_err(|_| self.err(format!("a short read of {what}")))
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// A count of items that each take at least `min_bytes`: refused if the rest of the file
    /// cannot hold that many, so no allocation is ever sized by a lie.
    fn count(&mut self, min_bytes: u64, what: &str) -> Result<usize> {
        let n = self.u64(what)?;
        let fits = n
            .checked_mul(min_bytes)
            .is_some_and(|need| need <= self.remaining());
        match usize::try_from(n) {
            Ok(n) if fits => Ok(n),
            _ => Err(self.err(format!(
                "{what} is {n}, but only {} bytes remain in the file",
                self.remaining()
            ))),
        }
    }

    fn string(&mut self, what: &str) -> Result<String> {
        let len = self.u64(what)?;
        if len > self.remaining() {
            return Err(self.err(format!(
                "{what} says it is {len} bytes long, but only {} bytes remain",
                self.remaining()
            )));
        }
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| self.err(format!("{what} is not UTF-8")))
    }

    fn value(&mut self, ty: u32, key: &str, depth: usize) -> Result<MetaValue> {
        let what = &format!("the value of `{key}`");
        Ok(match ty {
            0 => MetaValue::U8(u8::from_le_bytes(self.array(what)?)),
            1 => MetaValue::I8(i8::from_le_bytes(self.array(what)?)),
            2 => MetaValue::U16(u16::from_le_bytes(self.array(what)?)),
            3 => MetaValue::I16(i16::from_le_bytes(self.array(what)?)),
            4 => MetaValue::U32(u32::from_le_bytes(self.array(what)?)),
            5 => MetaValue::I32(i32::from_le_bytes(self.array(what)?)),
            6 => MetaValue::F32(f32::from_le_bytes(self.array(what)?)),
            7 => MetaValue::Bool(self.boolean(what)?),
            8 => MetaValue::Str(self.string(what)?),
            9 => MetaValue::Array(self.meta_array(key, depth)?),
            10 => MetaValue::U64(u64::from_le_bytes(self.array(what)?)),
            11 => MetaValue::I64(i64::from_le_bytes(self.array(what)?)),
            12 => MetaValue::F64(f64::from_le_bytes(self.array(what)?)),
            other => return Err(self.err(format!("`{key}` has an unknown value type {other}"))),
        })
    }

    fn boolean(&mut self, what: &str) -> Result<bool> {
        match self.array::<1>(what)? {
            [0] => Ok(false),
            [1] => Ok(true),
            [b] => Err(self.err(format!("{what} is a bool stored as {b}, not 0 or 1"))),
        }
    }

    /// `n` fixed-size elements decoded by `f`, after checking they fit in the file.
    fn fixed<T, const N: usize>(
        &mut self,
        n: usize,
        what: &str,
        f: fn([u8; N]) -> T,
    ) -> Result<Vec<T>> {
        let bytes = self.take((n as u64).saturating_mul(N as u64), what)?;
        Ok(bytes.as_chunks::<N>().0.iter().map(|b| f(*b)).collect())
    }

    fn meta_array(&mut self, key: &str, depth: usize) -> Result<MetaArray> {
        if depth >= MAX_NESTING {
            return Err(self.err(format!("`{key}` nests arrays more than {MAX_NESTING} deep")));
        }
        let ty = self.u32(&format!("the element type of `{key}`"))?;
        // The smallest element of each type: strings and arrays carry an 8-byte length.
        let min = match ty {
            0 | 1 | 7 => 1,
            2 | 3 => 2,
            4..=6 => 4,
            8 | 10..=12 => 8,
            9 => 12,
            other => return Err(self.err(format!("`{key}` is an array of unknown type {other}"))),
        };
        let what = format!("the length of array `{key}`");
        let n = self.count(min, &what)?;
        let what = &format!("array `{key}`");
        Ok(match ty {
            0 => MetaArray::U8(self.fixed(n, what, u8::from_le_bytes)?),
            1 => MetaArray::I8(self.fixed(n, what, i8::from_le_bytes)?),
            2 => MetaArray::U16(self.fixed(n, what, u16::from_le_bytes)?),
            3 => MetaArray::I16(self.fixed(n, what, i16::from_le_bytes)?),
            4 => MetaArray::U32(self.fixed(n, what, u32::from_le_bytes)?),
            5 => MetaArray::I32(self.fixed(n, what, i32::from_le_bytes)?),
            6 => MetaArray::F32(self.fixed(n, what, f32::from_le_bytes)?),
            10 => MetaArray::U64(self.fixed(n, what, u64::from_le_bytes)?),
            11 => MetaArray::I64(self.fixed(n, what, i64::from_le_bytes)?),
            12 => MetaArray::F64(self.fixed(n, what, f64::from_le_bytes)?),
            7 => {
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(self.boolean(what)?);
                }
                MetaArray::Bool(v)
            }
            8 => {
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(self.string(what)?);
                }
                MetaArray::Str(v)
            }
            _ => {
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(self.meta_array(key, depth + 1)?);
                }
                MetaArray::Array(v)
            }
        })
    }
}

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

    /// Bytes of tensor data in the file (types Glimpse reads).
    pub fn data_bytes(&self) -> u64 {
        self.tensors.iter().filter_map(|t| t.size).sum()
    }

    pub fn tensor(&self, name: &str) -> Option<&GgufTensorInfo> {
        self.tensors.iter().find(|t| t.name == name)
    }

    /// Copies every tensor out of `bytes` (the same bytes `parse` saw): F32, F16 and BF16 as
    /// f32, Q8_0/Q4_0/Q4_1 as compact blocks with checked scales. Names stay GGUF's
    /// (`blk.N.attn_q.weight`), shapes are in PyTorch order.
    pub fn read_tensors(
        &self,
        bytes: &[u8],
        limits: &Limits,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<TensorSet> {
        let mut reading = self.start_reading(bytes, limits)?;
        while !self.read_some(bytes, &mut reading, usize::MAX, progress)? {}
        Ok(reading.set)
    }

    /// Check the file and the memory its tensors need, before any is copied out.
    pub fn start_reading(&self, bytes: &[u8], limits: &Limits) -> Result<TensorReading> {
        if bytes.len() as u64 != self.file_len {
            return Err(ImportError::Usage(format!(
                "`{}` was parsed from {} bytes but read from {}",
                self.file,
                self.file_len,
                bytes.len()
            )));
        }
        let mut memory: u64 = 0;
        for t in &self.tensors {
            let (Some(size), Some(_)) = (t.size, t.ggml_type.layout()) else {
                return Err(ImportError::UnsupportedDtype {
                    file: self.file.clone(),
                    tensor: t.name.clone(),
                    dtype: t.ggml_type.name(),
                    supported: SUPPORTED,
                });
            };
            let kept = match t.ggml_type {
                GgmlType::F16 | GgmlType::BF16 => size.saturating_mul(2),
                _ => size,
            };
            memory = memory.saturating_add(kept);
        }
        if memory > limits.max_total_bytes {
            return Err(ImportError::TooLarge {
                file: self.file.clone(),
                what: "the memory the tensors need in bytes".into(),
                found: memory,
                limit: limits.max_total_bytes,
            });
        }
        Ok(TensorReading {
            set: TensorSet::new(self.file.clone()),
            next: 0,
            progress: Progress {
                file_index: 0,
                file_count: 1,
                bytes_total: self.data_bytes(),
                tensors_total: self.tensors.len(),
                ..Progress::default()
            },
        })
    }

    /// Copy tensors out until about `bytes_budget` bytes were copied (at least one tensor);
    /// true once every tensor is in `reading.set`.
    pub fn read_some(
        &self,
        bytes: &[u8],
        reading: &mut TensorReading,
        bytes_budget: usize,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<bool> {
        let mut copied = 0usize;
        while let Some(t) = self.tensors.get(reading.next) {
            if copied > 0 && copied >= bytes_budget {
                return Ok(false);
            }
            let data = self.tensor_bytes(bytes, t)?;
            let raw = self.convert(t, data)?;
            reading.set.insert(t.name.clone(), raw)?;
            copied += data.len();
            reading.next += 1;
            reading.progress.bytes_done += data.len() as u64;
            reading.progress.tensors_done += 1;
            progress(reading.progress);
        }
        Ok(true)
    }

    /// Tensors copied so far, of all.
    pub fn tensors_read(&self, reading: &TensorReading) -> (usize, usize) {
        (reading.next, self.tensors.len())
    }

    fn tensor_bytes<'b>(&self, bytes: &'b [u8], t: &GgufTensorInfo) -> Result<&'b [u8]> {
        let start = self.data_offset.checked_add(t.offset);
        let end = start.zip(t.size).and_then(|(s, n)| s.checked_add(n));
        start
            .zip(end)
            .and_then(|(s, e)| Some((usize::try_from(s).ok()?, usize::try_from(e).ok()?)))
            .and_then(|(s, e)| bytes.get(s..e))
            .ok_or_else(|| ImportError::Malformed {
                file: self.file.clone(),
                format: "GGUF",
                reason: format!("tensor `{}` lies outside the file", t.name),
            })
    }

    fn convert(&self, t: &GgufTensorInfo, data: &[u8]) -> Result<RawTensor> {
        let shape = t.shape.clone();
        let wrap = |e: ImportError| match e {
            ImportError::NonFinite {
                tensor,
                index,
                value,
                ..
            } => ImportError::NonFinite {
                file: self.file.clone(),
                tensor,
                index,
                value,
            },
            other => other,
        };
        match t.ggml_type {
            GgmlType::F32 => {
                let v = data
                    .as_chunks::<4>()
                    .0
                    .iter()
                    .map(|b| f32::from_le_bytes(*b))
                    .collect();
                RawTensor::f32(shape, v, StoredAs::F32)
            }
            GgmlType::F16 => {
                let v = data
                    .as_chunks::<2>()
                    .0
                    .iter()
                    .map(|b| f16::from_le_bytes(*b).to_f32())
                    .collect();
                RawTensor::f32(shape, v, StoredAs::F16)
            }
            GgmlType::BF16 => {
                let v = data
                    .as_chunks::<2>()
                    .0
                    .iter()
                    .map(|b| bf16::from_le_bytes(*b).to_f32())
                    .collect();
                RawTensor::f32(shape, v, StoredAs::BF16)
            }
            ty => {
                let kind = ty.quant().ok_or_else(|| ImportError::UnsupportedDtype {
                    file: self.file.clone(),
                    tensor: t.name.clone(),
                    dtype: ty.name(),
                    supported: SUPPORTED,
                })?;
                let cols = shape.last().copied().unwrap_or(1);
                let rows = shape
                    .split_last()
                    .and_then(|(_, lead)| numel(lead))
                    .unwrap_or(1);
                let q =
                    QuantizedTensor::new(&t.name, kind, rows, cols, data.to_vec()).map_err(wrap)?;
                let stored = match kind {
                    QuantKind::Q8_0 => StoredAs::Q8_0,
                    QuantKind::Q4_0 => StoredAs::Q4_0,
                    QuantKind::Q4_1 => StoredAs::Q4_1,
                };
                RawTensor::quantized(shape, q, stored)
            }
        }
    }

    // ---- metadata accessors -------------------------------------------------------------

    fn meta_err(&self, key: &str, reason: String) -> ImportError {
        ImportError::Metadata {
            file: self.file.clone(),
            key: key.to_string(),
            reason,
        }
    }

    fn required(&self, key: &str) -> Result<&MetaValue> {
        self.metadata
            .get(key)
            .ok_or_else(|| self.meta_err(key, "is missing".into()))
    }

    fn wrong(&self, key: &str, wanted: &str, v: &MetaValue) -> ImportError {
        self.meta_err(
            key,
            format!("should be {wanted}, found a {}", v.type_name()),
        )
    }

    pub fn get(&self, key: &str) -> Option<&MetaValue> {
        self.metadata.get(key)
    }

    pub fn get_str(&self, key: &str) -> Result<&str> {
        match self.required(key)? {
            MetaValue::Str(s) => Ok(s),
            v => Err(self.wrong(key, "a string", v)),
        }
    }

    /// Any integer type whose value fits.
    pub fn get_u64(&self, key: &str) -> Result<u64> {
        let v = self.required(key)?;
        let i = v
            .as_i128()
            .ok_or_else(|| self.wrong(key, "an integer", v))?;
        u64::try_from(i).map_err(|_| self.meta_err(key, format!("is {i}, not a count")))
    }

    pub fn get_u32(&self, key: &str) -> Result<u32> {
        let v = self.get_u64(key)?;
        u32::try_from(v).map_err(|_| self.meta_err(key, format!("is {v}, too large")))
    }

    pub fn get_usize(&self, key: &str) -> Result<usize> {
        let v = self.get_u64(key)?;
        usize::try_from(v).map_err(|_| self.meta_err(key, format!("is {v}, too large")))
    }

    /// Floats and integers; NaN and infinities are refused.
    pub fn get_f32(&self, key: &str) -> Result<f32> {
        let v = self.required(key)?;
        let x = v.as_f64().ok_or_else(|| self.wrong(key, "a number", v))? as f32;
        if x.is_finite() {
            Ok(x)
        } else {
            Err(self.meta_err(key, format!("is {x}, not a finite number")))
        }
    }

    pub fn get_bool(&self, key: &str) -> Result<bool> {
        match self.required(key)? {
            MetaValue::Bool(b) => Ok(*b),
            v => Err(self.wrong(key, "a bool", v)),
        }
    }

    pub fn get_array(&self, key: &str) -> Result<&MetaArray> {
        match self.required(key)? {
            MetaValue::Array(a) => Ok(a),
            v => Err(self.wrong(key, "an array", v)),
        }
    }

    pub fn get_str_array(&self, key: &str) -> Result<&[String]> {
        match self.get_array(key)? {
            MetaArray::Str(v) => Ok(v),
            _ => Err(self.meta_err(key, "should be an array of strings".into())),
        }
    }

    /// An integer array of any element type whose values all fit in i32.
    pub fn get_i32_array(&self, key: &str) -> Result<Vec<i32>> {
        self.get_int_array(key)
    }

    /// An integer array of any element type whose values all fit in u32.
    pub fn get_u32_array(&self, key: &str) -> Result<Vec<u32>> {
        self.get_int_array(key)
    }

    /// An integer array of any element type whose values all fit in `T`.
    fn get_int_array<T: TryFrom<i128>>(&self, key: &str) -> Result<Vec<T>> {
        let ints = self
            .get_array(key)?
            .integers()
            .ok_or_else(|| self.meta_err(key, "should be an array of integers".into()))?;
        let kind = std::any::type_name::<T>();
        ints.into_iter()
            .map(|i| {
                T::try_from(i).map_err(|_| self.meta_err(key, format!("holds {i}, outside {kind}")))
            })
            .collect()
    }

    pub fn get_f32_array(&self, key: &str) -> Result<Vec<f32>> {
        match self.get_array(key)? {
            MetaArray::F32(v) => Ok(v.clone()),
            MetaArray::F64(v) => Ok(v.iter().map(|&x| x as f32).collect()),
            _ => Err(self.meta_err(key, "should be an array of floats".into())),
        }
    }

    /// `Ok(None)` when the key is absent, else `f(self, key)`: optional keys with the same
    /// type checks, e.g. `gguf.optional("llama.rope.freq_base", Gguf::get_f32)`.
    pub fn optional<'s, T>(
        &'s self,
        key: &str,
        f: impl Fn(&'s Self, &str) -> Result<T>,
    ) -> Result<Option<T>> {
        if self.metadata.contains_key(key) {
            f(self, key).map(Some)
        } else {
            Ok(None)
        }
    }

    /// `general.architecture` (e.g. "llama").
    pub fn architecture(&self) -> Result<&str> {
        self.get_str("general.architecture")
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
pub(crate) mod tests {
    use super::*;
    use crate::model::import::gguf_writer::GgufWriter;

    fn h(x: f32) -> [u8; 2] {
        f16::from_f32(x).to_le_bytes()
    }

    /// One Q8_0 block of values d·(j − 16), one Q4_0 block d·(j%16 − 8), one Q4_1 block.
    fn q8_block(d: f32) -> Vec<u8> {
        let mut b = h(d).to_vec();
        b.extend((0..32).map(|j| (j as i8 - 16) as u8));
        b
    }

    fn q4_0_block(d: f32) -> Vec<u8> {
        let mut b = h(d).to_vec();
        b.extend((0..16u8).map(|j| j << 4 | j));
        b
    }

    fn q4_1_block(d: f32, m: f32) -> Vec<u8> {
        let mut b = h(d).to_vec();
        b.extend(h(m));
        b.extend((0..16u8).map(|j| (15 - j) << 4 | j));
        b
    }

    fn writer() -> GgufWriter {
        let mut w = GgufWriter::new();
        w.meta("general.architecture", MetaValue::Str("llama".into()))
            .meta("llama.block_count", MetaValue::U32(2))
            .meta("llama.context_length", MetaValue::U64(64))
            .meta("llama.rope.freq_base", MetaValue::F32(1e5))
            .meta("small", MetaValue::U8(7))
            .meta("negative", MetaValue::I32(-3))
            .meta("wide", MetaValue::F64(0.25))
            .meta("flag", MetaValue::Bool(true))
            .meta(
                "tokens",
                MetaValue::Array(MetaArray::Str(vec!["a".into(), "é".into(), "".into()])),
            )
            .meta("types", MetaValue::Array(MetaArray::I32(vec![1, 3, 6])))
            .meta("ids16", MetaValue::Array(MetaArray::U16(vec![5, 65535])))
            .meta("scores", MetaValue::Array(MetaArray::F32(vec![0.5, -1.0])))
            .meta(
                "nested",
                MetaValue::Array(MetaArray::Array(vec![
                    MetaArray::U8(vec![1, 2]),
                    MetaArray::Bool(vec![false]),
                ])),
            )
            .meta("others", MetaValue::Array(MetaArray::I64(vec![-1])))
            .meta("others2", MetaValue::Array(MetaArray::U64(vec![1])))
            .meta("others3", MetaValue::Array(MetaArray::F64(vec![2.0])))
            .meta("others4", MetaValue::Array(MetaArray::I8(vec![-2])))
            .meta("others5", MetaValue::Array(MetaArray::I16(vec![-4])))
            .meta("others6", MetaValue::Array(MetaArray::U32(vec![9])))
            .meta("i8", MetaValue::I8(-1))
            .meta("i16", MetaValue::I16(300))
            .meta("u16", MetaValue::U16(300))
            .meta("i64", MetaValue::I64(1 << 40))
            .meta("u64", MetaValue::U64(u64::MAX));
        w.tensor_f32("norm.weight", &[3], &[1.0, -2.0, 0.5])
            .tensor_f16(
                "h.weight",
                &[2, 3],
                &[1.0, 2.0, 3.0, -0.5, 65504.0, 2f32.powi(-24)],
            )
            .tensor_bf16("b.weight", &[1, 2], &[1.0, -3.0])
            .tensor_bytes(
                "q8.weight",
                &[2, 32],
                GgmlType::Q8_0,
                [q8_block(0.5), q8_block(-1.0)].concat(),
            )
            .tensor_bytes("q40.weight", &[1, 32], GgmlType::Q4_0, q4_0_block(0.25))
            .tensor_bytes(
                "q41.weight",
                &[1, 1, 32],
                GgmlType::Q4_1,
                q4_1_block(2.0, -1.5),
            );
        w
    }

    fn parse(bytes: &[u8]) -> Result<Gguf> {
        Gguf::parse(bytes)
    }

    fn read(bytes: &[u8]) -> Result<(Gguf, TensorSet)> {
        read_gguf(bytes, &mut |_| {})
    }

    #[test]
    fn round_trip_of_every_type_and_value() {
        let bytes = writer().to_bytes();
        let (g, mut set) = read(&bytes).unwrap();
        assert_eq!(g.version, 3);
        assert_eq!(g.alignment, 32);
        assert_eq!(g.data_offset % 32, 0);
        assert_eq!(g.architecture().unwrap(), "llama");
        assert_eq!(g.get_u32("llama.block_count").unwrap(), 2);
        assert_eq!(g.get_u32("small").unwrap(), 7);
        assert_eq!(g.get_u64("llama.context_length").unwrap(), 64);
        assert_eq!(g.get_f32("llama.rope.freq_base").unwrap(), 1e5);
        assert_eq!(g.get_f32("wide").unwrap(), 0.25);
        assert_eq!(g.get_f32("small").unwrap(), 7.0);
        assert!(g.get_bool("flag").unwrap());
        assert_eq!(g.get_str_array("tokens").unwrap(), ["a", "é", ""]);
        assert_eq!(g.get_i32_array("types").unwrap(), [1, 3, 6]);
        assert_eq!(g.get_u32_array("ids16").unwrap(), [5, 65535]);
        assert_eq!(g.get_i32_array("ids16").unwrap(), [5, 65535]);
        assert_eq!(g.get_f32_array("scores").unwrap(), [0.5, -1.0]);
        assert_eq!(g.get_f32_array("others3").unwrap(), [2.0]);
        assert_eq!(g.get_i32_array("others").unwrap(), [-1]);
        assert_eq!(g.get_u32_array("others6").unwrap(), [9]);
        assert_eq!(g.get_u64("i64").unwrap(), 1 << 40);
        assert_eq!(g.get_u64("u64").unwrap(), u64::MAX);
        assert_eq!(g.get_u32("u16").unwrap(), 300);
        assert!(matches!(g.get_array("nested").unwrap(), MetaArray::Array(a) if a.len() == 2));
        assert_eq!(g.optional("absent", Gguf::get_f32).unwrap(), None);
        assert_eq!(g.optional("wide", Gguf::get_f32).unwrap(), Some(0.25));
        // Wrong types and values that do not fit are errors naming the key.
        for (key, e) in [
            ("negative", g.get_u64("negative").unwrap_err()),
            ("u64", g.get_u32("u64").unwrap_err()),
            ("flag", g.get_u32("flag").unwrap_err()),
            ("small", g.get_str("small").unwrap_err()),
            ("tokens", g.get_i32_array("tokens").unwrap_err()),
            ("others2", g.get_str_array("others2").unwrap_err()),
            ("missing", g.get_str("missing").unwrap_err()),
            ("i8", g.get_u32("i8").unwrap_err()),
            ("types", g.get_f32_array("types").unwrap_err()),
            ("flag", g.get_array("flag").unwrap_err()),
        ] {
            assert!(
                matches!(&e, ImportError::Metadata { key: k, .. } if k == key),
                "{key}: {e}"
            );
        }

        // Shapes in PyTorch order; values exact.
        assert_eq!(g.tensor("h.weight").unwrap().shape, [2, 3]);
        assert_eq!(set.len(), 6);
        assert_eq!(
            set.take_vector("norm.weight", 3).unwrap().to_vec(),
            [1.0, -2.0, 0.5]
        );
        let hv = set.take_matrix("h.weight", 2, 3).unwrap();
        assert_eq!(
            hv.iter().copied().collect::<Vec<_>>(),
            [1.0, 2.0, 3.0, -0.5, 65504.0, 2f32.powi(-24)]
        );
        assert_eq!(set.take_matrix("b.weight", 1, 2).unwrap().sum(), -2.0);
        let q8 = set.take("q8.weight").unwrap();
        assert_eq!(
            (q8.stored_as, q8.shape.clone(), q8.memory_bytes()),
            (StoredAs::Q8_0, vec![2, 32], 68)
        );
        let v = q8.into_f32();
        for j in 0..32 {
            assert_eq!(v[j], 0.5 * (j as f32 - 16.0));
            assert_eq!(v[32 + j], -(j as f32 - 16.0));
        }
        let v = set.take_matrix("q40.weight", 1, 32).unwrap();
        for j in 0..16 {
            assert_eq!(v[[0, j]], 0.25 * (j as f32 - 8.0));
            assert_eq!(v[[0, j + 16]], 0.25 * (j as f32 - 8.0));
        }
        let v = set.take_f32("q41.weight", &[1, 1, 32]).unwrap();
        let v: Vec<f32> = v.iter().copied().collect();
        for j in 0..16 {
            assert_eq!(v[j], 2.0 * j as f32 - 1.5);
            assert_eq!(v[j + 16], 2.0 * (15 - j) as f32 - 1.5);
        }
    }

    #[test]
    fn memory_counts_quantized_blocks_as_stored() {
        let (g, set) = read(&writer().to_bytes()).unwrap();
        assert_eq!(set.quantized_bytes(), 68 + 18 + 20);
        assert_eq!(set.memory_bytes(), 68 + 18 + 20 + 4 * (3 + 6 + 2));
        assert_eq!(g.data_bytes(), 68 + 18 + 20 + 12 + 12 + 4);
    }

    #[test]
    fn other_alignments() {
        let mut w = writer();
        w.meta("general.alignment", MetaValue::U32(64));
        let (g, set) = read(&w.to_bytes()).unwrap();
        assert_eq!((g.alignment, g.data_offset % 64), (64, 0));
        assert_eq!(set.len(), 6);
        for bad in [MetaValue::U32(48), MetaValue::U32(0), MetaValue::U64(32)] {
            let mut w = writer();
            w.meta("general.alignment", bad.clone());
            let e = parse(&w.to_bytes()).unwrap_err();
            assert!(e.to_string().contains("alignment"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn every_truncation_is_an_error() {
        let mut w = GgufWriter::new();
        w.meta("k", MetaValue::Array(MetaArray::Str(vec!["xy".into()])))
            .meta("b", MetaValue::Bool(false))
            .tensor_f32("a", &[2], &[1.0, 2.0])
            .tensor_bytes("q", &[32], GgmlType::Q8_0, q8_block(1.0));
        let bytes = w.to_bytes();
        assert!(read(&bytes).is_ok());
        for cut in 0..bytes.len() {
            assert!(read(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn every_flipped_byte_is_handled() {
        let bytes = writer().to_bytes();
        for i in 0..bytes.len() {
            for flip in [0x01, 0x10, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[i] ^= flip;
                if let Ok((_, set)) = read(&b) {
                    for name in set.names() {
                        let _ = set.get(name).map(|t| t.clone().into_f32());
                    }
                }
            }
        }
    }

    /// A header by hand: magic, version, counts.
    fn head(version: u32, tensors: u64, kv: u64) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend(version.to_le_bytes());
        b.extend(tensors.to_le_bytes());
        b.extend(kv.to_le_bytes());
        b
    }

    fn s(out: &mut Vec<u8>, text: &[u8]) {
        out.extend((text.len() as u64).to_le_bytes());
        out.extend(text);
    }

    fn tensor_entry(out: &mut Vec<u8>, name: &str, dims: &[u64], ty: u32, offset: u64) {
        s(out, name.as_bytes());
        out.extend((dims.len() as u32).to_le_bytes());
        for d in dims {
            out.extend(d.to_le_bytes());
        }
        out.extend(ty.to_le_bytes());
        out.extend(offset.to_le_bytes());
    }

    fn padded(mut b: Vec<u8>, data: usize) -> Vec<u8> {
        b.resize(b.len().next_multiple_of(32) + data, 0);
        b
    }

    fn msg(bytes: &[u8]) -> String {
        match read(bytes) {
            Ok(_) => "Ok".into(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn huge_counts_and_lengths_are_refused_before_allocating() {
        assert!(msg(&head(3, u64::MAX, 0)).contains("tensor count"));
        assert!(msg(&head(3, 0, u64::MAX)).contains("metadata count"));
        assert!(msg(&head(3, 1 << 40, 1 << 40)).contains("only"));
        let mut b = head(3, 0, 1);
        s(&mut b, b"key");
        b.extend(9u32.to_le_bytes()); // array
        b.extend(8u32.to_le_bytes()); // of strings
        b.extend(u64::MAX.to_le_bytes());
        assert!(msg(&b).contains("array `key`"), "{}", msg(&b));
        let mut b = head(3, 0, 1);
        s(&mut b, b"key");
        b.extend(8u32.to_le_bytes());
        b.extend((1u64 << 62).to_le_bytes()); // a string of 2^62 bytes
        assert!(msg(&b).contains("bytes long"), "{}", msg(&b));
        let mut b = head(3, 0, 1);
        b.extend(u64::MAX.to_le_bytes()); // key length
        b.extend([0; 16]);
        assert!(msg(&b).contains("metadata key"), "{}", msg(&b));
        // Deeply nested arrays.
        let mut b = head(3, 0, 1);
        s(&mut b, b"deep");
        b.extend(9u32.to_le_bytes());
        for _ in 0..8 {
            b.extend(9u32.to_le_bytes());
            b.extend(1u64.to_le_bytes());
        }
        b.extend([0; 16]);
        assert!(msg(&b).contains("nests"), "{}", msg(&b));
        // A cap below the file's own count.
        let limits = Limits {
            max_tensors: 2,
            ..Limits::default()
        };
        let e = Gguf::parse_with(&writer().to_bytes(), "x.gguf", &limits).unwrap_err();
        assert!(e.to_string().contains("number of tensors"), "{e}");
        let limits = Limits {
            max_total_bytes: 100,
            ..Limits::default()
        };
        let bytes = writer().to_bytes();
        let g = Gguf::parse(&bytes).unwrap();
        assert!(g.read_tensors(&bytes, &limits, &mut |_| {}).is_err());
    }

    #[test]
    fn absurd_dimensions_are_refused() {
        for dims in [
            vec![1u64 << 32, 1 << 32, 1 << 32, 1 << 32],
            vec![u64::MAX],
            vec![1 << 40, 1 << 20],
            vec![1, 1, 1, 1, 1],
            vec![1 << 40, 0],
        ] {
            let mut b = head(3, 1, 0);
            tensor_entry(&mut b, "w", &dims, 0, 0);
            let b = padded(b, 64);
            let m = msg(&b);
            assert!(m.contains("`w`"), "{dims:?}: {m}");
        }
        // Rows that do not split into blocks.
        let mut b = head(3, 1, 0);
        tensor_entry(&mut b, "w", &[33], 8, 0);
        assert!(msg(&padded(b, 64)).contains("blocks of 32"));
    }

    #[test]
    fn lying_offsets_are_refused() {
        // Past the end.
        let mut b = head(3, 1, 0);
        tensor_entry(&mut b, "w", &[4], 0, 32);
        let m = msg(&padded(b, 16));
        assert!(m.contains("past the end"), "{m}");
        // Misaligned.
        let mut b = head(3, 1, 0);
        tensor_entry(&mut b, "w", &[1], 0, 4);
        assert!(msg(&padded(b, 64)).contains("alignment"));
        // Offset near u64::MAX.
        let mut b = head(3, 1, 0);
        tensor_entry(&mut b, "w", &[4], 0, u64::MAX - 31);
        assert!(msg(&padded(b, 64)).contains("`w`"));
        // Overlapping.
        let mut b = head(3, 2, 0);
        tensor_entry(&mut b, "a", &[16], 0, 0);
        tensor_entry(&mut b, "b", &[16], 0, 32);
        let m = msg(&padded(b, 96));
        assert!(m.contains("overlap"), "{m}");
        // The same well-formed pair at 0 and 64 is fine.
        let mut b = head(3, 2, 0);
        tensor_entry(&mut b, "a", &[16], 0, 0);
        tensor_entry(&mut b, "b", &[16], 0, 64);
        assert_eq!(msg(&padded(b, 128)), "Ok");
    }

    #[test]
    fn bad_headers_and_values() {
        assert!(msg(b"GGUF").contains("ends inside"));
        assert!(msg(&head(1, 0, 0)).contains("version 1"));
        assert!(msg(&head(3u32.swap_bytes(), 0, 0)).contains("big-endian"));
        assert!(msg(&head(4, 0, 0)).contains("version 4"));
        assert!(msg(b"GGML\x03\0\0\0").contains("GGUF"));
        assert!(msg(b"").contains("not a valid"));
        assert_eq!(msg(&head(2, 0, 0)), "Ok");
        // Non-UTF-8 key, unknown value type, bool not 0/1, duplicate key, duplicate tensor.
        let mut b = head(3, 0, 1);
        s(&mut b, b"\xff\xfe");
        b.extend(4u32.to_le_bytes());
        b.extend(1u32.to_le_bytes());
        assert!(msg(&b).contains("UTF-8"));
        let mut b = head(3, 0, 1);
        s(&mut b, b"k");
        b.extend(13u32.to_le_bytes());
        b.extend([0; 8]);
        assert!(msg(&b).contains("unknown value type"));
        let mut b = head(3, 0, 1);
        s(&mut b, b"k");
        b.extend(7u32.to_le_bytes());
        b.push(2);
        assert!(msg(&b).contains("bool"));
        let mut b = head(3, 0, 2);
        for _ in 0..2 {
            s(&mut b, b"k");
            b.extend(0u32.to_le_bytes());
            b.push(1);
        }
        assert!(msg(&b).contains("twice"));
        let mut b = head(3, 2, 0);
        tensor_entry(&mut b, "a", &[1], 0, 0);
        tensor_entry(&mut b, "a", &[1], 0, 32);
        assert!(msg(&padded(b, 64)).contains("twice"));
        let mut b = head(3, 1, 0);
        tensor_entry(&mut b, &"n".repeat(300), &[1], 0, 0);
        assert!(msg(&padded(b, 4)).contains("name"));
        // Other formats.
        assert!(msg(b"PK\x03\x04").contains("pickle"));
    }

    #[test]
    fn unsupported_types_parse_but_are_refused_by_name() {
        let mut b = head(3, 1, 0);
        tensor_entry(&mut b, "blk.0.ffn_down.weight", &[256, 2], 12, 0);
        let b = padded(b, 288);
        let g = parse(&b).unwrap();
        assert_eq!(g.tensors[0].ggml_type.name(), "Q4_K");
        assert!(!g.tensors[0].ggml_type.is_supported());
        let e = g
            .read_tensors(&b, &Limits::default(), &mut |_| {})
            .unwrap_err();
        let m = e.to_string();
        assert!(
            m.contains("blk.0.ffn_down.weight") && m.contains("Q4_K") && m.contains("Q8_0"),
            "{m}"
        );
        assert_eq!(GgmlType(99).name(), "type 99");
    }

    #[test]
    fn non_finite_values() {
        let mut w = GgufWriter::new();
        w.tensor_f32("w", &[2], &[1.0, f32::INFINITY]);
        let (_, mut set) = read(&w.to_bytes()).unwrap();
        assert!(set.take("w").unwrap_err().to_string().contains("inf"));
        let mut w = GgufWriter::new();
        w.tensor_bytes(
            "blk.3.attn_k.weight",
            &[32],
            GgmlType::Q8_0,
            q8_block(f32::NAN),
        );
        let e = read(&w.to_bytes()).unwrap_err();
        let m = e.to_string();
        assert!(
            m.contains("blk.3.attn_k.weight") && m.contains("model.gguf"),
            "{m}"
        );
    }

    #[test]
    fn progress_and_parse_mismatch() {
        let bytes = writer().to_bytes();
        let g = parse(&bytes).unwrap();
        let mut last = Progress::default();
        g.read_tensors(&bytes, &Limits::default(), &mut |p| last = p)
            .unwrap();
        assert_eq!((last.tensors_done, last.bytes_done), (6, last.bytes_total));
        assert!(g
            .read_tensors(&bytes[..bytes.len() - 1], &Limits::default(), &mut |_| {})
            .is_err());
    }

    /// SmolLM2-135M-Instruct (REAL_MODELS.md §7), when another task has fetched it.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn real_smollm2_when_present() {
        let Some(path) = crate::util::real_models::smollm2() else {
            return;
        };
        let (g, set) = read_gguf_path(&path, &Limits::default(), &mut |_| {}).unwrap();
        assert_eq!(g.architecture().unwrap(), "llama");
        assert_eq!(g.get_u32("llama.block_count").unwrap(), 30);
        assert_eq!(g.get_u32("llama.embedding_length").unwrap(), 576);
        assert_eq!(g.get_u32("llama.attention.head_count").unwrap(), 9);
        assert_eq!(g.get_u32("llama.attention.head_count_kv").unwrap(), 3);
        assert_eq!(g.get_f32("llama.rope.freq_base").unwrap(), 1e5);
        assert_eq!(
            g.get_str_array("tokenizer.ggml.tokens").unwrap().len(),
            49152
        );
        // 9 per block + embeddings + final norm (output tied).
        assert_eq!(set.len(), 30 * 9 + 2);
        assert_eq!(set.get("token_embd.weight").unwrap().shape, [49152, 576]);
        assert_eq!(set.get("blk.0.attn_q.weight").unwrap().shape, [576, 576]);
        assert_eq!(set.get("blk.0.attn_k.weight").unwrap().shape, [192, 576]);
        assert_eq!(set.get("blk.0.ffn_down.weight").unwrap().shape, [576, 1536]);
        assert_eq!(set.get("blk.0.ffn_gate.weight").unwrap().shape, [1536, 576]);
        assert_eq!(set.get("output_norm.weight").unwrap().shape, [576]);
        println!(
            "SmolLM2: {} tensors, {} bytes in memory, {} quantized",
            set.len(),
            set.memory_bytes(),
            set.quantized_bytes()
        );
    }
}
