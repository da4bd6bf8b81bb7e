//! A `[V, d]` table with one row per vocabulary entry: the token embedding E, and the output
//! matrix W_vocab when it is not tied to E. A model Glimpse trains or reads from safetensors
//! holds it in f32; one read from a quantized GGUF keeps it in the file's blocks (SmolLM2's
//! 49,152 × 576 table is 30 MB as Q8_0 and 113 MB in f32), expanding a row when a token is
//! looked up (to exactly the values an f32 copy would hold) and computing the logits from the
//! blocks. A table kept in blocks is frozen: nothing trains it.

use super::import::QuantizedTensor;
use super::layers::{self, linear_view};
use super::parallel;
use ndarray::{s, Array1, Array2, ArrayView1, ArrayView2, ArrayViewMut1};
use std::borrow::Cow;
use std::ops::Range;

#[derive(Debug, Clone, PartialEq)]
pub enum VocabTable {
    F32(Array2<f32>),
    Blocks(QuantizedTensor),
}

/// Rows expanded at a time for a product with more than one input row (≈ 1 MB at d = 576).
const BAND: usize = 448;

impl VocabTable {
    pub fn rows(&self) -> usize {
        match self {
            VocabTable::F32(t) => t.nrows(),
            VocabTable::Blocks(q) => q.rows(),
        }
    }

    pub fn cols(&self) -> usize {
        match self {
            VocabTable::F32(t) => t.ncols(),
            VocabTable::Blocks(q) => q.cols(),
        }
    }

    /// `(rows, cols)`, as `Array2::dim`.
    pub fn dim(&self) -> (usize, usize) {
        (self.rows(), self.cols())
    }

    /// Scalars held (parameters).
    pub fn len(&self) -> usize {
        self.rows() * self.cols()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the table takes in memory.
    pub fn memory_bytes(&self) -> usize {
        match self {
            VocabTable::F32(t) => t.len() * 4,
            VocabTable::Blocks(q) => q.memory_bytes(),
        }
    }

    /// The table in f32, when that is how it is held (trained models).
    pub fn as_f32(&self) -> Option<&Array2<f32>> {
        match self {
            VocabTable::F32(t) => Some(t),
            VocabTable::Blocks(_) => None,
        }
    }

    pub fn as_f32_mut(&mut self) -> Option<&mut Array2<f32>> {
        match self {
            VocabTable::F32(t) => Some(t),
            VocabTable::Blocks(_) => None,
        }
    }

    /// The whole table in f32: borrowed when held so, expanded otherwise (the GPU upload, a
    /// checkpoint written to disk).
    pub fn to_f32(&self) -> Cow<'_, Array2<f32>> {
        match self {
            VocabTable::F32(t) => Cow::Borrowed(t),
            VocabTable::Blocks(q) => Cow::Owned(
                Array2::from_shape_vec((q.rows(), q.cols()), q.dequantize())
                    .unwrap_or_else(|_| Array2::zeros((0, q.cols()))),
            ),
        }
    }

    /// Row `r` into `out` (`cols` long). An id past the table leaves `out` as it was; callers
    /// check ids against the vocabulary first.
    pub fn row_into(&self, r: usize, mut out: ArrayViewMut1<f32>) {
        match self {
            VocabTable::F32(t) => {
                if r < t.nrows() {
                    out.assign(&t.row(r));
                }
            }
            VocabTable::Blocks(q) => match out.as_slice_mut() {
                Some(o) => {
                    let _ = q.dequantize_row(r, o);
                }
                None => {
                    let mut row = vec![0.0; q.cols()];
                    if q.dequantize_row(r, &mut row).is_ok() {
                        out.assign(&ArrayView1::from(&row));
                    }
                }
            },
        }
    }

    /// Row `r` as a new array (zeros past the table).
    pub fn row(&self, r: usize) -> Array1<f32> {
        let mut out = Array1::zeros(self.cols());
        self.row_into(r, out.view_mut());
        out
    }

    /// `x · W[rows]ᵀ + b`: the logits of the vocabulary entries `rows` (b is their bias).
    pub fn linear(
        &self,
        x: ArrayView2<f32>,
        rows: Range<usize>,
        b: ArrayView1<f32>,
    ) -> Array2<f32> {
        match self {
            VocabTable::F32(t) => linear_view(x, t.slice(s![rows, ..]), b),
            VocabTable::Blocks(q) => blocks_linear(q, x, rows, b),
        }
    }
}

/// `x · W[rows]ᵀ + b` from the blocks. One input row (a decoding step) is dotted with each
/// table row straight from its blocks, reading 30 MB instead of 113; several expand a band of
/// rows at a time and multiply it with the matrix product `linear_view` uses, so their logits
/// equal those of the expanded table exactly.
fn blocks_linear(
    q: &QuantizedTensor,
    x: ArrayView2<f32>,
    rows: Range<usize>,
    b: ArrayView1<f32>,
) -> Array2<f32> {
    let n = x.nrows();
    let d = q.cols();
    let mut y = Array2::zeros((n, rows.len()));
    let work = n * rows.len() * d;
    parallel::for_column_blocks(y.view_mut(), work, &|first, mut block| {
        let start = rows.start + first;
        if n == 1 {
            let x0 = x.row(0).to_vec();
            for (c, y) in block.iter_mut().enumerate() {
                *y = q.dot_row(start + c, &x0).unwrap_or(0.0) + b[first + c];
            }
            return;
        }
        let mut band = Array2::<f32>::zeros((BAND.min(block.ncols()), d));
        let mut done = 0;
        while done < block.ncols() {
            let take = BAND.min(block.ncols() - done);
            let mut w = band.slice_mut(s![..take, ..]);
            for (i, row) in w.rows_mut().into_iter().enumerate() {
                if let Some(o) = row.into_slice() {
                    let _ = q.dequantize_row(start + done + i, o);
                }
            }
            let mut out = block.slice_mut(s![.., done..done + take]);
            layers::x_wt_into(x, w.view(), out.view_mut());
            let bias = b.slice(s![first + done..first + done + take]);
            out += &bias;
            done += take;
        }
    });
    y
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::import::QuantKind;
    use half::f16;

    /// A Q8_0 table of `rows × 64` with varied scales and values.
    fn q8_table(rows: usize) -> QuantizedTensor {
        let mut blocks = Vec::new();
        for r in 0..rows {
            for blk in 0..2 {
                let scale = 0.01 + 0.003 * ((r * 2 + blk) % 7) as f32;
                blocks.extend_from_slice(&f16::from_f32(scale).to_le_bytes());
                for i in 0..32 {
                    blocks.push(((r * 31 + blk * 17 + i * 13) % 255) as u8);
                }
            }
        }
        QuantizedTensor::new("t", QuantKind::Q8_0, rows, 64, blocks).unwrap()
    }

    #[test]
    fn a_table_in_blocks_looks_up_and_multiplies_like_its_f32_copy() {
        let q = q8_table(1000);
        let blocks = VocabTable::Blocks(q.clone());
        let f32s = VocabTable::F32(blocks.to_f32().into_owned());
        assert_eq!(blocks.dim(), (1000, 64));
        assert_eq!(blocks.row(737), f32s.row(737));
        assert_eq!(blocks.memory_bytes(), 1000 * 2 * 34);
        let bias = Array1::from_shape_fn(1000, |i| i as f32 * 1e-3);
        for n in [1, 5] {
            let x = Array2::from_shape_fn((n, 64), |(t, i)| ((t * 64 + i) as f32 * 0.37).sin());
            for rows in [0..1000, 123..611] {
                let b = bias.slice(s![rows.clone()]);
                let want = f32s.linear(x.view(), rows.clone(), b);
                let got = blocks.linear(x.view(), rows.clone(), b);
                if n > 1 {
                    // Same expanded values, same products: equal to the last bit.
                    assert_eq!(got, want, "{n} rows, vocabulary {rows:?}");
                } else {
                    // Straight from the blocks, the scale outside the sum: rounding apart.
                    let worst = (&got - &want).iter().fold(0.0f32, |m, v| m.max(v.abs()));
                    assert!(worst < 1e-5, "{n} row, vocabulary {rows:?}: {worst}");
                }
                // And against the textbook sum, independently of either product.
                let (t, v) = (n - 1, rows.end - 1);
                let direct: f32 =
                    (0..64).map(|i| x[[t, i]] * f32s.row(v)[i]).sum::<f32>() + bias[v];
                assert!((got[[t, v - rows.start]] - direct).abs() < 1e-4);
            }
        }
    }

    #[test]
    fn a_row_past_the_table_is_left_alone() {
        let t = VocabTable::Blocks(q8_table(3));
        let mut out = Array1::from_elem(64, 7.0);
        t.row_into(3, out.view_mut());
        assert!(out.iter().all(|&v| v == 7.0));
        assert!(t.as_f32().is_none());
    }
}
