//! Writes GGUF files: the test suite's and the fuzzer's source of well-formed (and, edited
//! byte by byte, malformed) inputs, and a way to make small GGUF fixtures without Python.
//! It writes what `gguf.rs` reads: version 3, little-endian, data aligned to
//! `general.alignment` (32 unless a U32 value says otherwise).

use super::gguf::{GgmlType, MetaArray, MetaValue, DEFAULT_ALIGNMENT, MAGIC};
use half::{bf16, f16};

#[derive(Debug, Clone, Default)]
pub struct GgufWriter {
    metadata: Vec<(String, MetaValue)>,
    tensors: Vec<(String, Vec<usize>, GgmlType, Vec<u8>)>,
}

impl GgufWriter {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn meta(&mut self, key: &str, value: MetaValue) -> &mut Self {
        self.metadata.push((key.to_string(), value));
        self
    }

    /// A tensor of `shape` (PyTorch order) stored as `ty` from raw little-endian bytes or
    /// blocks; the writer reverses the shape into GGUF's fastest-first order.
    pub fn tensor_bytes(
        &mut self,
        name: &str,
        shape: &[usize],
        ty: GgmlType,
        data: Vec<u8>,
    ) -> &mut Self {
        self.tensors
            .push((name.to_string(), shape.to_vec(), ty, data));
        self
    }

    pub fn tensor_f32(&mut self, name: &str, shape: &[usize], values: &[f32]) -> &mut Self {
        let data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.tensor_bytes(name, shape, GgmlType::F32, data)
    }

    pub fn tensor_f16(&mut self, name: &str, shape: &[usize], values: &[f32]) -> &mut Self {
        let data = values
            .iter()
            .flat_map(|&v| f16::from_f32(v).to_le_bytes())
            .collect();
        self.tensor_bytes(name, shape, GgmlType::F16, data)
    }

    pub fn tensor_bf16(&mut self, name: &str, shape: &[usize], values: &[f32]) -> &mut Self {
        let data = values
            .iter()
            .flat_map(|&v| bf16::from_f32(v).to_le_bytes())
            .collect();
        self.tensor_bytes(name, shape, GgmlType::BF16, data)
    }

    fn alignment(&self) -> usize {
        self.metadata
            .iter()
            .find_map(|(k, v)| match (k.as_str(), v) {
                ("general.alignment", MetaValue::U32(a)) if a.is_power_of_two() => {
                    Some(*a as usize)
                }
                _ => None,
            })
            .unwrap_or(DEFAULT_ALIGNMENT as usize)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let align = self.alignment();
        let mut out = MAGIC.to_vec();
        out.extend(3u32.to_le_bytes());
        out.extend((self.tensors.len() as u64).to_le_bytes());
        out.extend((self.metadata.len() as u64).to_le_bytes());
        for (key, value) in &self.metadata {
            put_str(&mut out, key);
            put_value(&mut out, value);
        }
        let mut offset = 0usize;
        for (name, shape, ty, data) in &self.tensors {
            put_str(&mut out, name);
            out.extend((shape.len() as u32).to_le_bytes());
            for &d in shape.iter().rev() {
                out.extend((d as u64).to_le_bytes());
            }
            out.extend(ty.0.to_le_bytes());
            out.extend((offset as u64).to_le_bytes());
            offset = (offset + data.len()).next_multiple_of(align);
        }
        for (_, _, _, data) in &self.tensors {
            out.resize(out.len().next_multiple_of(align), 0);
            out.extend(data);
        }
        out
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend((s.len() as u64).to_le_bytes());
    out.extend(s.as_bytes());
}

/// The GGUF value type id of a value.
fn type_id(v: &MetaValue) -> u32 {
    match v {
        MetaValue::U8(_) => 0,
        MetaValue::I8(_) => 1,
        MetaValue::U16(_) => 2,
        MetaValue::I16(_) => 3,
        MetaValue::U32(_) => 4,
        MetaValue::I32(_) => 5,
        MetaValue::F32(_) => 6,
        MetaValue::Bool(_) => 7,
        MetaValue::Str(_) => 8,
        MetaValue::Array(_) => 9,
        MetaValue::U64(_) => 10,
        MetaValue::I64(_) => 11,
        MetaValue::F64(_) => 12,
    }
}

fn array_type_id(a: &MetaArray) -> u32 {
    match a {
        MetaArray::U8(_) => 0,
        MetaArray::I8(_) => 1,
        MetaArray::U16(_) => 2,
        MetaArray::I16(_) => 3,
        MetaArray::U32(_) => 4,
        MetaArray::I32(_) => 5,
        MetaArray::F32(_) => 6,
        MetaArray::Bool(_) => 7,
        MetaArray::Str(_) => 8,
        MetaArray::Array(_) => 9,
        MetaArray::U64(_) => 10,
        MetaArray::I64(_) => 11,
        MetaArray::F64(_) => 12,
    }
}

fn put_value(out: &mut Vec<u8>, v: &MetaValue) {
    out.extend(type_id(v).to_le_bytes());
    put_payload(out, v);
}

fn put_payload(out: &mut Vec<u8>, v: &MetaValue) {
    match v {
        MetaValue::U8(x) => out.extend(x.to_le_bytes()),
        MetaValue::I8(x) => out.extend(x.to_le_bytes()),
        MetaValue::U16(x) => out.extend(x.to_le_bytes()),
        MetaValue::I16(x) => out.extend(x.to_le_bytes()),
        MetaValue::U32(x) => out.extend(x.to_le_bytes()),
        MetaValue::I32(x) => out.extend(x.to_le_bytes()),
        MetaValue::U64(x) => out.extend(x.to_le_bytes()),
        MetaValue::I64(x) => out.extend(x.to_le_bytes()),
        MetaValue::F32(x) => out.extend(x.to_le_bytes()),
        MetaValue::F64(x) => out.extend(x.to_le_bytes()),
        MetaValue::Bool(x) => out.push(u8::from(*x)),
        MetaValue::Str(s) => put_str(out, s),
        MetaValue::Array(a) => put_array(out, a),
    }
}

fn put_array(out: &mut Vec<u8>, a: &MetaArray) {
    out.extend(array_type_id(a).to_le_bytes());
    out.extend((a.len() as u64).to_le_bytes());
    fn each<T>(out: &mut Vec<u8>, v: &[T], f: impl Fn(&T) -> MetaValue) {
        for x in v {
            put_payload(out, &f(x));
        }
    }
    match a {
        MetaArray::U8(v) => out.extend(v),
        MetaArray::I8(v) => each(out, v, |x| MetaValue::I8(*x)),
        MetaArray::U16(v) => each(out, v, |x| MetaValue::U16(*x)),
        MetaArray::I16(v) => each(out, v, |x| MetaValue::I16(*x)),
        MetaArray::U32(v) => each(out, v, |x| MetaValue::U32(*x)),
        MetaArray::I32(v) => each(out, v, |x| MetaValue::I32(*x)),
        MetaArray::U64(v) => each(out, v, |x| MetaValue::U64(*x)),
        MetaArray::I64(v) => each(out, v, |x| MetaValue::I64(*x)),
        MetaArray::F32(v) => each(out, v, |x| MetaValue::F32(*x)),
        MetaArray::F64(v) => each(out, v, |x| MetaValue::F64(*x)),
        MetaArray::Bool(v) => each(out, v, |x| MetaValue::Bool(*x)),
        MetaArray::Str(v) => v.iter().for_each(|s| put_str(out, s)),
        MetaArray::Array(v) => v.iter().for_each(|a| put_array(out, a)),
    }
}
