//! GGUF block quantization kept compact in memory: Q8_0, Q4_0 and Q4_1 (llama.cpp's
//! `ggml-quants`, REAL_MODELS.md §7). Each row of a tensor is a run of 32-value blocks that
//! start with an f16 scale; a row is dequantized only when it is read, and products with one
//! input vector are computed from the blocks (`glimpse_kernels::blocks`), so a quantized
//! model costs about a quarter (Q8_0) or an eighth (Q4_*) of its f32 size.

use super::error::{ImportError, Result};
use glimpse_kernels::blocks::{dequantize, w_x, Activations};
pub use glimpse_kernels::blocks::{QuantKind, BLOCK};
use std::ops::Range;

/// A quantized tensor: `rows` rows of `cols` values (cols a multiple of 32), the blocks stored
/// row after row exactly as in the GGUF file.
#[derive(Debug, Clone, PartialEq)]
pub struct QuantizedTensor {
    kind: QuantKind,
    rows: usize,
    cols: usize,
    blocks: Vec<u8>,
}

impl QuantizedTensor {
    /// Checks that `blocks` holds `rows × cols` values of `kind` and that every block's scale
    /// is finite (so every value is). `tensor` names it in errors.
    pub fn new(
        tensor: &str,
        kind: QuantKind,
        rows: usize,
        cols: usize,
        blocks: Vec<u8>,
    ) -> Result<Self> {
        let bad = |reason: String| ImportError::Usage(format!("tensor `{tensor}`: {reason}"));
        if !cols.is_multiple_of(BLOCK) {
            return Err(bad(format!(
                "rows of {cols} values do not split into {} blocks of {BLOCK}",
                kind.name()
            )));
        }
        // rows × cols must fit too: `dequantize` allocates that many values.
        let expected = rows
            .checked_mul(cols)
            .and_then(|_| rows.checked_mul(cols / BLOCK))
            .and_then(|b| b.checked_mul(kind.block_bytes()))
            .ok_or_else(|| bad(format!("{rows} × {cols} values overflow")))?;
        if blocks.len() != expected {
            return Err(bad(format!(
                "{} bytes of {} blocks, {rows} × {cols} values need {expected}",
                blocks.len(),
                kind.name()
            )));
        }
        if let Some(i) = blocks
            .chunks_exact(kind.block_bytes())
            .position(|b| !kind.block_is_finite(b))
        {
            return Err(ImportError::NonFinite {
                file: String::new(),
                tensor: tensor.to_string(),
                index: i * BLOCK,
                value: "a NaN or infinite block scale".into(),
            });
        }
        Ok(Self {
            kind,
            rows,
            cols,
            blocks,
        })
    }

    pub fn kind(&self) -> QuantKind {
        self.kind
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The raw blocks, row after row.
    pub fn blocks(&self) -> &[u8] {
        &self.blocks
    }

    /// Bytes held in memory.
    pub fn memory_bytes(&self) -> usize {
        self.blocks.len()
    }

    fn row_bytes(&self) -> usize {
        self.cols / BLOCK * self.kind.block_bytes()
    }

    fn row_blocks(&self, r: usize) -> Result<&[u8]> {
        let n = self.row_bytes();
        r.checked_mul(n)
            .and_then(|start| self.blocks.get(start..start.checked_add(n)?))
            .filter(|_| r < self.rows)
            .ok_or_else(|| {
                ImportError::Usage(format!("row {r} of a tensor with {} rows", self.rows))
            })
    }

    /// Row `r` into `out` (exactly `cols` long).
    pub fn dequantize_row(&self, r: usize, out: &mut [f32]) -> Result<()> {
        if out.len() != self.cols {
            return Err(ImportError::Usage(format!(
                "a row of {} values into a buffer of {}",
                self.cols,
                out.len()
            )));
        }
        dequantize(self.kind, self.row_blocks(r)?, out);
        Ok(())
    }

    /// Dot product of row `r` with `x` (exactly `cols` long), without dequantizing the tensor.
    pub fn dot_row(&self, r: usize, x: &[f32]) -> Result<f32> {
        let mut y = [0.0];
        self.rows_times(r..r + 1, x, &mut y)?;
        Ok(y[0])
    }

    /// `y[i] = W[rows.start + i] · x` for the rows `rows`: a matrix–vector product straight
    /// from the compact blocks, `x` exactly `cols` long and `y` as long as `rows`.
    pub fn rows_times(&self, rows: Range<usize>, x: &[f32], y: &mut [f32]) -> Result<()> {
        let n = self.row_bytes();
        let blocks = rows
            .start
            .checked_mul(n)
            .zip(rows.end.checked_mul(n))
            .filter(|_| rows.start <= rows.end && rows.end <= self.rows)
            .and_then(|(a, b)| self.blocks.get(a..b));
        match blocks {
            Some(w) if x.len() == self.cols && w_x(self.kind, w, &Activations::new(x), y) => Ok(()),
            _ => Err(ImportError::Usage(format!(
                "rows {rows:?} of a {} × {} tensor against a vector of {} into {}",
                self.rows,
                self.cols,
                x.len(),
                y.len()
            ))),
        }
    }

    /// The rows of `parts` one after another, when they share a kind and a width (else
    /// `None`): Q, K and V fused into one projection without expanding them.
    pub fn stack_rows(parts: &[&QuantizedTensor]) -> Option<Result<Self>> {
        let first = parts.first()?;
        if parts
            .iter()
            .any(|p| p.kind != first.kind || p.cols != first.cols)
        {
            return None;
        }
        let rows = parts.iter().map(|p| p.rows).sum();
        let blocks = parts
            .iter()
            .flat_map(|p| p.blocks.iter().copied())
            .collect();
        Some(Self::new(
            "stacked rows",
            first.kind,
            rows,
            first.cols,
            blocks,
        ))
    }

    /// The whole tensor as f32, row-major.
    pub fn dequantize(&self) -> Vec<f32> {
        let mut out = vec![0.0f32; self.rows * self.cols];
        dequantize(self.kind, &self.blocks, &mut out);
        out
    }

    /// The same tensor with its rows reordered: row `i` of the result is row `order[i]` here.
    /// Whole rows move, so blocks stay intact (GGUF's RoPE row permutation, see `tensors.rs`).
    pub fn permute_rows(&self, order: &[usize]) -> Result<Self> {
        if order.len() != self.rows {
            return Err(ImportError::Usage(format!(
                "a permutation of {} rows for a tensor of {}",
                order.len(),
                self.rows
            )));
        }
        let mut blocks = Vec::with_capacity(self.blocks.len());
        for &r in order {
            blocks.extend_from_slice(self.row_blocks(r)?);
        }
        Ok(Self {
            kind: self.kind,
            rows: self.rows,
            cols: self.cols,
            blocks,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    fn h(x: f32) -> [u8; 2] {
        f16::from_f32(x).to_le_bytes()
    }

    #[test]
    fn q8_0_is_scale_times_signed_byte() {
        let mut block = h(0.5).to_vec();
        block.extend((0..32).map(|i| (i as i8 - 16) as u8));
        let t = QuantizedTensor::new("t", QuantKind::Q8_0, 1, 32, block).unwrap();
        let v = t.dequantize();
        for (i, x) in v.iter().enumerate() {
            assert_eq!(*x, 0.5 * (i as f32 - 16.0));
        }
        assert_eq!(v[0], -8.0);
        assert_eq!(v[31], 7.5);
    }

    #[test]
    fn q4_0_low_nibbles_first_then_high_centred_on_8() {
        // Byte j holds value j in its low nibble and value j+16 in its high nibble.
        let mut block = h(0.25).to_vec();
        block.extend((0..16u8).map(|j| (15 - j) << 4 | j));
        let t = QuantizedTensor::new("t", QuantKind::Q4_0, 1, 32, block).unwrap();
        let v = t.dequantize();
        for j in 0..16 {
            assert_eq!(v[j], 0.25 * (j as f32 - 8.0), "low {j}");
            assert_eq!(v[j + 16], 0.25 * ((15 - j) as f32 - 8.0), "high {j}");
        }
        assert_eq!(v[0], -2.0);
        assert_eq!(v[16], 1.75);
    }

    #[test]
    fn q4_1_adds_the_block_minimum() {
        let mut block = h(2.0).to_vec();
        block.extend(h(-1.5));
        block.extend((0..16u8).map(|j| (j % 4) << 4 | (15 - j)));
        let t = QuantizedTensor::new("t", QuantKind::Q4_1, 1, 32, block).unwrap();
        let v = t.dequantize();
        for j in 0..16 {
            assert_eq!(v[j], 2.0 * (15 - j) as f32 - 1.5);
            assert_eq!(v[j + 16], 2.0 * (j % 4) as f32 - 1.5);
        }
        assert_eq!(v[0], 28.5);
    }

    #[test]
    fn subnormal_scale_is_exact() {
        // The smallest positive f16 is 2⁻²⁴; its multiples by small integers are exact in f32.
        let mut block = 1u16.to_le_bytes().to_vec();
        block.extend([3u8; 32]);
        let t = QuantizedTensor::new("t", QuantKind::Q8_0, 1, 32, block).unwrap();
        assert!(t.dequantize().iter().all(|&x| x == 3.0 * 2f32.powi(-24)));
    }

    #[test]
    fn rows_dot_products_and_permutations_agree_with_the_whole() {
        let rows = 3;
        let cols = 64;
        let mut blocks = Vec::new();
        for b in 0..rows * cols / BLOCK {
            blocks.extend(h(0.125 * (b as f32 + 1.0)));
            blocks.extend(h(b as f32 - 2.0));
            blocks.extend((0..16u8).map(|j| j.wrapping_mul(37).wrapping_add(b as u8)));
        }
        let t = QuantizedTensor::new("t", QuantKind::Q4_1, rows, cols, blocks).unwrap();
        let all = t.dequantize();
        let x: Vec<f32> = (0..cols).map(|i| (i as f32 * 0.37).sin()).collect();
        let mut row = vec![0.0; cols];
        for r in 0..rows {
            t.dequantize_row(r, &mut row).unwrap();
            assert_eq!(row, all[r * cols..(r + 1) * cols]);
            let dot: f32 = row.iter().zip(&x).map(|(a, b)| a * b).sum();
            assert!((t.dot_row(r, &x).unwrap() - dot).abs() < 1e-3);
        }
        let p = t.permute_rows(&[2, 0, 1]).unwrap();
        let pv = p.dequantize();
        assert_eq!(pv[..cols], all[2 * cols..]);
        assert_eq!(pv[cols..2 * cols], all[..cols]);
    }

    #[test]
    fn misuse_is_an_error_not_a_panic() {
        let t = QuantizedTensor::new("t", QuantKind::Q8_0, 1, 32, vec![0; 34]).unwrap();
        assert!(t.dequantize_row(1, &mut [0.0; 32]).is_err());
        assert!(t.dequantize_row(usize::MAX, &mut [0.0; 32]).is_err());
        assert!(t.dequantize_row(0, &mut [0.0; 31]).is_err());
        assert!(t.dot_row(0, &[0.0; 33]).is_err());
        assert!(t.permute_rows(&[0, 0]).is_err());
        assert!(t.permute_rows(&[5]).is_err());
        assert!(QuantizedTensor::new("t", QuantKind::Q8_0, 1, 33, vec![0; 34]).is_err());
        assert!(QuantizedTensor::new("t", QuantKind::Q8_0, 2, 32, vec![0; 34]).is_err());
        assert!(QuantizedTensor::new("t", QuantKind::Q8_0, usize::MAX, 32, vec![]).is_err());
    }

    #[test]
    fn non_finite_scales_are_refused_with_the_tensor_name() {
        let mut block = h(f32::NAN).to_vec();
        block.extend([0u8; 32]);
        let e =
            QuantizedTensor::new("blk.0.attn_q.weight", QuantKind::Q8_0, 1, 32, block).unwrap_err();
        assert!(e.to_string().contains("blk.0.attn_q.weight"), "{e}");
        let mut block = h(1.0).to_vec();
        block.extend(h(f32::INFINITY));
        block.extend([0u8; 16]);
        assert!(QuantizedTensor::new("m", QuantKind::Q4_1, 1, 32, block).is_err());
    }
}
