//! The neutral tensor set every reader produces: named tensors with PyTorch/HF row-major shapes
//! (`[out, in]` for a Linear) whatever the file format, as f32 or as compact GGUF blocks. The
//! architecture mappings take tensors out of it by name and shape; whatever is left over is
//! reported as unused.

use super::error::{ImportError, Result};
use super::quant::QuantizedTensor;
use crate::model::weight_matrix::WeightMatrix;
use ndarray::{Array1, Array2, ArrayD, IxDyn};
use std::collections::BTreeMap;

/// Base-model prefixes Hugging Face adds in front of a task head's weights (`bert.` in
/// `BertForMaskedLM`, `transformer.` in `GPT2LMHeadModel`, `model.` in `LlamaForCausalLM`).
pub const BASE_PREFIXES: [&str; 3] = ["bert.", "transformer.", "model."];

/// How a tensor was stored in its file (what `glimpse inspect` reports); the values are held
/// as f32 except for the GGUF block formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoredAs {
    F32,
    F16,
    BF16,
    Q8_0,
    Q4_0,
    Q4_1,
}

impl StoredAs {
    /// Blocks with a scale (GGUF's Q8_0, Q4_0, Q4_1).
    pub const fn is_quantized(self) -> bool {
        matches!(self, StoredAs::Q8_0 | StoredAs::Q4_0 | StoredAs::Q4_1)
    }

    pub const fn name(self) -> &'static str {
        match self {
            StoredAs::F32 => "F32",
            StoredAs::F16 => "F16",
            StoredAs::BF16 => "BF16",
            StoredAs::Q8_0 => "Q8_0",
            StoredAs::Q4_0 => "Q4_0",
            StoredAs::Q4_1 => "Q4_1",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum TensorData {
    F32(Vec<f32>),
    /// Rows are the last dimension of `shape`; every other dimension counts rows.
    Quantized(QuantizedTensor),
}

#[derive(Debug, Clone, PartialEq)]
pub struct RawTensor {
    /// PyTorch order: the last dimension varies fastest.
    pub shape: Vec<usize>,
    pub data: TensorData,
    pub stored_as: StoredAs,
}

impl RawTensor {
    /// An f32 tensor; `data` must hold exactly the shape's number of values.
    pub fn f32(shape: Vec<usize>, data: Vec<f32>, stored_as: StoredAs) -> Result<Self> {
        let n = numel(&shape)
            .ok_or_else(|| ImportError::Usage(format!("shape {shape:?} overflows")))?;
        if n != data.len() {
            return Err(ImportError::Usage(format!(
                "shape {shape:?} needs {n} values, got {}",
                data.len()
            )));
        }
        Ok(Self {
            shape,
            data: TensorData::F32(data),
            stored_as,
        })
    }

    /// A quantized tensor; its rows and columns must agree with `shape`.
    pub fn quantized(shape: Vec<usize>, q: QuantizedTensor, stored_as: StoredAs) -> Result<Self> {
        let cols = shape.last().copied().unwrap_or(1);
        let rows = shape.split_last().map_or(Some(1), |(_, lead)| numel(lead));
        if rows != Some(q.rows()) || cols != q.cols() {
            return Err(ImportError::Usage(format!(
                "shape {shape:?} does not match {} rows of {} quantized values",
                q.rows(),
                q.cols()
            )));
        }
        Ok(Self {
            shape,
            data: TensorData::Quantized(q),
            stored_as,
        })
    }

    pub fn numel(&self) -> usize {
        match &self.data {
            TensorData::F32(v) => v.len(),
            TensorData::Quantized(q) => q.rows() * q.cols(),
        }
    }

    /// Bytes the values take in memory now.
    pub fn memory_bytes(&self) -> usize {
        match &self.data {
            TensorData::F32(v) => v.len() * 4,
            TensorData::Quantized(q) => q.memory_bytes(),
        }
    }

    pub fn is_quantized(&self) -> bool {
        matches!(self.data, TensorData::Quantized(_))
    }

    /// The first NaN or infinity and its flat index (quantized blocks are finite by
    /// construction: their scales were checked, so their expansion needs no second look).
    pub fn first_non_finite(&self) -> Option<(usize, f32)> {
        match &self.data {
            TensorData::F32(v) if !self.stored_as.is_quantized() => {
                v.iter().copied().enumerate().find(|(_, x)| !x.is_finite())
            }
            _ => None,
        }
    }

    /// All values as f32, dequantizing if needed.
    pub fn into_f32(self) -> Vec<f32> {
        match self.data {
            TensorData::F32(v) => v,
            TensorData::Quantized(q) => q.dequantize(),
        }
    }

    /// Undoes llama.cpp's reordering of a Llama `attn_q`/`attn_k` tensor (weight or bias), so
    /// that RoPE pairs dimension p with p + head_dim/2 as in Hugging Face's weights.
    ///
    /// The GGUF converter stores head rows in Meta's interleaved order: GGUF row 2i + j of a
    /// head is HF row j·head_dim/2 + i. `heads` is the number of heads in this tensor
    /// (query heads for `attn_q`, key/value heads for `attn_k`). Whole rows move, so a
    /// quantized tensor stays quantized.
    pub fn unpermute_gguf_rope(&self, heads: usize) -> Result<RawTensor> {
        let rows = self.shape.first().copied().unwrap_or(1);
        if heads == 0 || rows % heads != 0 || !(rows / heads).is_multiple_of(2) {
            return Err(ImportError::Usage(format!(
                "{rows} rows do not split into {heads} heads of an even size"
            )));
        }
        let hd = rows / heads;
        let order: Vec<usize> = (0..rows)
            .map(|r| {
                let (h, k) = (r / hd, r % hd);
                let (j, i) = (k / (hd / 2), k % (hd / 2));
                h * hd + 2 * i + j
            })
            .collect();
        let data = match &self.data {
            TensorData::F32(v) => {
                let width = v.len() / rows.max(1);
                let mut out = Vec::with_capacity(v.len());
                for &r in &order {
                    out.extend_from_slice(v.get(r * width..(r + 1) * width).unwrap_or(&[]));
                }
                TensorData::F32(out)
            }
            TensorData::Quantized(q) => {
                // A 1-D quantized tensor is one row: there is nothing to reorder by row.
                if q.rows() != rows {
                    return Err(ImportError::Usage(
                        "only whole quantized rows can be reordered".into(),
                    ));
                }
                TensorData::Quantized(q.permute_rows(&order)?)
            }
        };
        Ok(RawTensor {
            shape: self.shape.clone(),
            data,
            stored_as: self.stored_as,
        })
    }
}

/// The number of values of a shape, or None on overflow.
pub fn numel(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d))
}

/// Named tensors read from one checkpoint (one file, or every shard of one).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TensorSet {
    origin: String,
    tensors: BTreeMap<String, RawTensor>,
    skipped: Vec<String>,
}

impl TensorSet {
    /// `origin` names the file(s) in error messages.
    pub fn new(origin: impl Into<String>) -> Self {
        Self {
            origin: origin.into(),
            ..Self::default()
        }
    }

    pub fn origin(&self) -> &str {
        &self.origin
    }

    pub fn set_origin(&mut self, origin: impl Into<String>) {
        self.origin = origin.into();
    }

    pub fn insert(&mut self, name: String, tensor: RawTensor) -> Result<()> {
        if self.tensors.contains_key(&name) {
            return Err(ImportError::DuplicateTensor {
                file: self.origin.clone(),
                tensor: name,
            });
        }
        self.tensors.insert(name, tensor);
        Ok(())
    }

    /// Records a buffer the reader left out on purpose (masks, position ids, RoPE tables).
    pub fn note_skipped(&mut self, name: impl Into<String>) {
        self.skipped.push(name.into());
    }

    /// Buffers left out by the reader.
    pub fn skipped(&self) -> &[String] {
        &self.skipped
    }

    pub fn len(&self) -> usize {
        self.tensors.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tensors.is_empty()
    }

    /// Names still in the set, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tensors.keys().map(String::as_str)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &RawTensor)> {
        self.tensors.iter().map(|(k, v)| (k.as_str(), v))
    }

    pub fn contains(&self, name: &str) -> bool {
        self.tensors.contains_key(name)
    }

    pub fn get(&self, name: &str) -> Option<&RawTensor> {
        self.tensors.get(name)
    }

    /// Names never taken: after a mapping has taken what it needs, these are the tensors the
    /// model did not use (worth a warning, or an error for a strict loader).
    pub fn unused(&self) -> Vec<String> {
        self.tensors.keys().cloned().collect()
    }

    /// Bytes the values take in memory (quantized blocks count as stored).
    pub fn memory_bytes(&self) -> usize {
        self.tensors.values().map(RawTensor::memory_bytes).sum()
    }

    /// Bytes of quantized blocks kept compact.
    pub fn quantized_bytes(&self) -> usize {
        self.tensors
            .values()
            .filter(|t| t.is_quantized())
            .map(RawTensor::memory_bytes)
            .sum()
    }

    /// Number of values over all tensors.
    pub fn parameter_count(&self) -> usize {
        self.tensors.values().map(RawTensor::numel).sum()
    }

    fn missing(&self, name: &str) -> ImportError {
        ImportError::MissingTensor {
            origin: self.origin.clone(),
            tensor: name.to_string(),
        }
    }

    fn check_finite(&self, name: &str, t: &RawTensor) -> Result<()> {
        match t.first_non_finite() {
            Some((index, value)) => Err(ImportError::NonFinite {
                file: self.origin.clone(),
                tensor: name.to_string(),
                index,
                value: value.to_string(),
            }),
            None => Ok(()),
        }
    }

    /// Removes a tensor and returns it as stored (quantized stays quantized), after checking
    /// that its values are finite.
    pub fn take(&mut self, name: &str) -> Result<RawTensor> {
        let t = self.tensors.get(name).ok_or_else(|| self.missing(name))?;
        self.check_finite(name, t)?;
        self.tensors.remove(name).ok_or_else(|| self.missing(name))
    }

    /// Like `take`, but an absent tensor is `Ok(None)` (optional biases, untied heads).
    pub fn take_optional(&mut self, name: &str) -> Result<Option<RawTensor>> {
        if self.contains(name) {
            self.take(name).map(Some)
        } else {
            Ok(None)
        }
    }

    /// Removes a tensor as f32 (dequantized if needed) after checking its shape and that its
    /// values are finite. On an error the tensor stays in the set.
    pub fn take_f32(&mut self, name: &str, expected: &[usize]) -> Result<ArrayD<f32>> {
        let t = self.tensors.get(name).ok_or_else(|| self.missing(name))?;
        if t.shape != expected {
            return Err(ImportError::ShapeMismatch {
                origin: self.origin.clone(),
                tensor: name.to_string(),
                expected: expected.to_vec(),
                found: t.shape.clone(),
            });
        }
        let t = self.take(name)?;
        let shape = t.shape.clone();
        ArrayD::from_shape_vec(IxDyn(&shape), t.into_f32())
            .map_err(|e| ImportError::Usage(format!("tensor `{name}`: {e}")))
    }

    /// `take_f32` for a matrix of `[rows, cols]`.
    pub fn take_matrix(&mut self, name: &str, rows: usize, cols: usize) -> Result<Array2<f32>> {
        self.take_f32(name, &[rows, cols])?
            .into_dimensionality()
            .map_err(|e| ImportError::Usage(format!("tensor `{name}`: {e}")))
    }

    /// A `[rows, cols]` weight matrix (a linear map, token embeddings, output matrix): a
    /// quantized one stays in its blocks (`model::weight_matrix`), any other is taken as f32.
    pub fn take_table(&mut self, name: &str, rows: usize, cols: usize) -> Result<WeightMatrix> {
        let quantized = match self.tensors.get(name) {
            Some(t) if t.shape == [rows, cols] => t.is_quantized(),
            _ => false,
        };
        if !quantized {
            return Ok(WeightMatrix::F32(self.take_matrix(name, rows, cols)?));
        }
        match self.take(name)?.data {
            TensorData::Quantized(q) => Ok(WeightMatrix::Blocks(q)),
            TensorData::F32(v) => Array2::from_shape_vec((rows, cols), v)
                .map(WeightMatrix::F32)
                .map_err(|e| ImportError::Usage(format!("tensor `{name}`: {e}"))),
        }
    }

    /// `take_f32` for a vector of `n`.
    pub fn take_vector(&mut self, name: &str, n: usize) -> Result<Array1<f32>> {
        self.take_f32(name, &[n])?
            .into_dimensionality()
            .map_err(|e| ImportError::Usage(format!("tensor `{name}`: {e}")))
    }

    /// Renames `from` to `to`; an error if `to` is already taken.
    pub fn rename(&mut self, from: &str, to: &str) -> Result<()> {
        if from == to {
            return Ok(());
        }
        if self.tensors.contains_key(to) {
            return Err(ImportError::DuplicateTensor {
                file: self.origin.clone(),
                tensor: to.to_string(),
            });
        }
        let t = self
            .tensors
            .remove(from)
            .ok_or_else(|| self.missing(from))?;
        self.tensors.insert(to.to_string(), t);
        Ok(())
    }

    /// Drops `prefix` from every name that starts with it; returns how many were renamed.
    /// Two names that become one (`bert.x` and `x`) are an error.
    pub fn strip_prefix(&mut self, prefix: &str) -> Result<usize> {
        let names: Vec<String> = self
            .tensors
            .keys()
            .filter(|n| n.starts_with(prefix))
            .cloned()
            .collect();
        for name in &names {
            let short = name
                .get(prefix.len()..)
                .unwrap_or(name.as_str())
                .to_string();
            self.rename(name, &short)?;
        }
        Ok(names.len())
    }

    /// Strips every prefix of `BASE_PREFIXES` present; returns the ones found, so that a
    /// mapping can look up `embeddings.word_embeddings.weight` whether the file came from
    /// `BertModel` or `BertForMaskedLM`. Heads (`cls.*`, `lm_head.*`) keep their names.
    pub fn strip_base_prefixes(&mut self) -> Result<Vec<&'static str>> {
        let mut found = Vec::new();
        for prefix in BASE_PREFIXES {
            if self.strip_prefix(prefix)? > 0 {
                found.push(prefix);
            }
        }
        Ok(found)
    }

    /// Old BERT checkpoints name LayerNorm parameters `gamma`/`beta`; Hugging Face renames
    /// them to `weight`/`bias` on load, and so does this. Returns how many were renamed.
    pub fn rename_legacy_layer_norm(&mut self) -> Result<usize> {
        let old: Vec<String> = self
            .tensors
            .keys()
            .filter(|n| n.ends_with("LayerNorm.gamma") || n.ends_with("LayerNorm.beta"))
            .cloned()
            .collect();
        for name in &old {
            let new = match name.strip_suffix("gamma") {
                Some(stem) => format!("{stem}weight"),
                None => format!("{}bias", name.strip_suffix("beta").unwrap_or(name)),
            };
            self.rename(name, &new)?;
        }
        Ok(old.len())
    }

    /// Moves every tensor of `other` (another shard) into this set; a name in both is an error.
    pub fn merge(&mut self, other: TensorSet) -> Result<()> {
        for (name, t) in other.tensors {
            if self.tensors.contains_key(&name) {
                return Err(ImportError::DuplicateTensor {
                    file: other.origin.clone(),
                    tensor: name,
                });
            }
            self.tensors.insert(name, t);
        }
        self.skipped.extend(other.skipped);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::import::quant::QuantKind;

    fn f(shape: &[usize], data: Vec<f32>) -> RawTensor {
        RawTensor::f32(shape.to_vec(), data, StoredAs::F32).unwrap()
    }

    fn set() -> TensorSet {
        let mut s = TensorSet::new("model.safetensors");
        s.insert(
            "bert.a".into(),
            f(&[2, 3], (0..6).map(|x| x as f32).collect()),
        )
        .unwrap();
        s.insert("cls.b".into(), f(&[3], vec![1.0, 2.0, 3.0]))
            .unwrap();
        s.insert("bert.LayerNorm.gamma".into(), f(&[1], vec![1.0]))
            .unwrap();
        s
    }

    #[test]
    fn take_checks_shape_and_keeps_the_tensor_on_error() {
        let mut s = set();
        let e = s.take_matrix("bert.a", 3, 2).unwrap_err();
        assert!(
            matches!(&e, ImportError::ShapeMismatch { tensor, found, .. } if tensor == "bert.a" && found == &[2, 3]),
            "{e}"
        );
        assert!(e.to_string().contains("model.safetensors"));
        let a = s.take_matrix("bert.a", 2, 3).unwrap();
        assert_eq!(a[[1, 2]], 5.0);
        assert!(!s.contains("bert.a"));
        let e = s.take_vector("bert.a", 6).unwrap_err();
        assert!(matches!(e, ImportError::MissingTensor { .. }), "{e}");
        assert_eq!(s.take_optional("nope").unwrap(), None);
        assert_eq!(s.unused(), vec!["bert.LayerNorm.gamma", "cls.b"]);
    }

    #[test]
    fn nan_and_infinity_are_named() {
        let mut s = TensorSet::new("w.safetensors");
        s.insert("x".into(), f(&[3], vec![0.0, f32::NAN, 1.0]))
            .unwrap();
        s.insert("y".into(), f(&[2], vec![0.0, f32::NEG_INFINITY]))
            .unwrap();
        let e = s.take_vector("x", 3).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("`x`") && msg.contains("NaN") && msg.contains("element 1"),
            "{msg}"
        );
        assert!(s.take("y").unwrap_err().to_string().contains("-inf"));
        assert!(s.contains("x") && s.contains("y"));
    }

    #[test]
    fn prefixes_and_legacy_names() {
        let mut s = set();
        assert_eq!(s.strip_base_prefixes().unwrap(), vec!["bert."]);
        assert_eq!(s.rename_legacy_layer_norm().unwrap(), 1);
        let names: Vec<&str> = s.names().collect();
        assert_eq!(names, ["LayerNorm.weight", "a", "cls.b"]);
        let mut clash = TensorSet::new("m");
        clash.insert("model.x".into(), f(&[1], vec![0.0])).unwrap();
        clash.insert("x".into(), f(&[1], vec![0.0])).unwrap();
        assert!(matches!(
            clash.strip_base_prefixes(),
            Err(ImportError::DuplicateTensor { .. })
        ));
    }

    #[test]
    fn sizes_and_merging() {
        let mut s = set();
        assert_eq!(s.parameter_count(), 10);
        assert_eq!(s.memory_bytes(), 40);
        let mut q = TensorSet::new("shard 2");
        let blocks = [vec![0u8, 0x3c], vec![1u8; 32]].concat();
        let qt = QuantizedTensor::new("q", QuantKind::Q8_0, 1, 32, blocks).unwrap();
        q.insert(
            "q".into(),
            RawTensor::quantized(vec![32], qt, StoredAs::Q8_0).unwrap(),
        )
        .unwrap();
        s.merge(q.clone()).unwrap();
        assert_eq!(s.quantized_bytes(), 34);
        assert_eq!(s.memory_bytes(), 74);
        assert!(s.merge(q).is_err());
        // f16 1.0 = 0x3c00: every value 1.
        assert_eq!(s.take_vector("q", 32).unwrap().sum(), 32.0);
    }

    #[test]
    fn constructors_check_sizes() {
        assert!(RawTensor::f32(vec![2, 2], vec![0.0; 3], StoredAs::F32).is_err());
        assert!(RawTensor::f32(vec![usize::MAX, 2], vec![], StoredAs::F32).is_err());
        let qt = QuantizedTensor::new("q", QuantKind::Q8_0, 2, 32, vec![0; 68]).unwrap();
        assert!(RawTensor::quantized(vec![2, 32], qt.clone(), StoredAs::Q8_0).is_ok());
        assert!(RawTensor::quantized(vec![1, 64], qt.clone(), StoredAs::Q8_0).is_err());
        assert!(RawTensor::quantized(vec![64], qt, StoredAs::Q8_0).is_err());
    }

    #[test]
    fn gguf_rope_rows_go_back_to_half_split_order() {
        // Two heads of head_dim 4, one column: HF rows per head [a0 a1 b0 b1] (p, p + 2) were
        // stored interleaved [a0 b0 a1 b1].
        let gguf = f(&[8, 1], vec![0., 2., 1., 3., 10., 12., 11., 13.]);
        let hf = gguf.unpermute_gguf_rope(2).unwrap();
        assert_eq!(hf.into_f32(), vec![0., 1., 2., 3., 10., 11., 12., 13.]);
        let bias = f(&[4], vec![0., 2., 1., 3.]);
        assert_eq!(
            bias.unpermute_gguf_rope(1).unwrap().into_f32(),
            vec![0., 1., 2., 3.]
        );
        assert!(gguf.unpermute_gguf_rope(3).is_err());
        assert!(gguf.unpermute_gguf_rope(0).is_err());
        assert!(gguf.unpermute_gguf_rope(8).is_err()); // head_dim 1 is odd
                                                       // Quantized rows move whole: row r of the result is row order[r].
        let mut blocks = Vec::new();
        for r in 0..4u8 {
            blocks.extend([0u8, 0x3c]);
            blocks.extend([r; 32]);
        }
        let qt = QuantizedTensor::new("q", QuantKind::Q8_0, 4, 32, blocks).unwrap();
        let q = RawTensor::quantized(vec![4, 32], qt, StoredAs::Q8_0).unwrap();
        let v = q.unpermute_gguf_rope(1).unwrap().into_f32();
        let firsts: Vec<f32> = v.chunks(32).map(|c| c[0]).collect();
        assert_eq!(firsts, vec![0., 2., 1., 3.]);
    }
}
