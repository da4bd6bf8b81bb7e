//! The tensors of a GGUF file copied out of its data section, a few at a time: F32, F16 and
//! BF16 as f32, Q8_0/Q4_0/Q4_1 as compact blocks with checked scales.

use super::ggml_type::SUPPORTED;
use super::{GgmlType, Gguf, GgufTensorInfo, TensorReading};
use crate::model::import::error::{ImportError, Result};
use crate::model::import::limits::{Limits, Progress};
use crate::model::import::quant::{QuantKind, QuantizedTensor};
use crate::model::import::tensors::{numel, RawTensor, StoredAs, TensorSet};
use half::{bf16, f16};

impl Gguf {
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
        // Last in the file first, so that the file can be cut behind each copy (`needed_up_to`).
        let mut order: Vec<usize> = (0..self.tensors.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.tensors[i].offset));
        Ok(TensorReading {
            set: TensorSet::new(self.file.clone()),
            order,
            next: 0,
            needed_up_to: bytes.len(),
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
    /// true once every tensor is in `reading.set`. They are copied last in the file first:
    /// behind each copy the file is not needed again, so an owner of the bytes can cut it
    /// there (`TensorReading::needed_up_to`), and in the browser, where memory taken is never
    /// given back to the page, the copies reuse the file's own memory: SmolLM2's peak was the
    /// file and its copy side by side.
    pub fn read_some(
        &self,
        bytes: &[u8],
        reading: &mut TensorReading,
        bytes_budget: usize,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<bool> {
        let mut copied = 0usize;
        while let Some(t) = reading
            .order
            .get(reading.next)
            .and_then(|&i| self.tensors.get(i))
        {
            if copied > 0 && copied >= bytes_budget {
                return Ok(false);
            }
            let data = self.tensor_bytes(bytes, t)?;
            let start = self.data_offset.saturating_add(t.offset);
            reading.needed_up_to = reading
                .needed_up_to
                .min(usize::try_from(start).unwrap_or(usize::MAX));
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
}
