//! A weight matrix `[rows, cols]` of a linear map `y = x Wᵀ + b`: a projection (W_Q, W_K,
//! W_V, W_O), a feed-forward layer, the token embedding E or the output matrix W_vocab. A
//! model Glimpse trains or reads from safetensors holds it in f32. One read from a quantized
//! GGUF keeps it in the file's blocks (SmolLM2's 135 M weights: 83 MB as Q4_1 and Q8_0
//! blocks, 540 MB in f32). A row is expanded when it is read, to exactly the values an f32
//! copy would hold; one input row is multiplied straight from the blocks; several expand a
//! band of rows at a time, so the trace of a prompt equals the dequantized model's. A matrix
//! kept in blocks is frozen: training expands it first.

use super::import::{ImportError, QuantizedTensor};
use super::layers::{self, linear_view};
use super::parallel;
use ndarray::{concatenate, s, Array1, Array2, ArrayView1, ArrayView2, ArrayViewMut1, Axis};
use std::borrow::Cow;
use std::ops::Range;

#[derive(Debug, Clone, PartialEq)]
pub enum WeightMatrix {
    F32(Array2<f32>),
    Blocks(QuantizedTensor),
}

/// Rows expanded at a time for a product with more than one input row (≈ 1 MB at d = 576).
const BAND: usize = 448;

/// A product with at most this many input rows is computed from the blocks row by row;
/// with more, expanding a band and using the f32 matrix product is faster.
const FROM_BLOCKS_UP_TO: usize = 1;

impl WeightMatrix {
    pub fn rows(&self) -> usize {
        match self {
            WeightMatrix::F32(t) => t.nrows(),
            WeightMatrix::Blocks(q) => q.rows(),
        }
    }

    pub fn cols(&self) -> usize {
        match self {
            WeightMatrix::F32(t) => t.ncols(),
            WeightMatrix::Blocks(q) => q.cols(),
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
            WeightMatrix::F32(t) => t.len() * 4,
            WeightMatrix::Blocks(q) => q.memory_bytes(),
        }
    }

    /// Whether the matrix is held in a quantized file's blocks.
    pub fn is_quantized(&self) -> bool {
        matches!(self, WeightMatrix::Blocks(_))
    }

    /// The matrix in f32, when that is how it is held (trained models).
    pub fn as_f32(&self) -> Option<&Array2<f32>> {
        match self {
            WeightMatrix::F32(t) => Some(t),
            WeightMatrix::Blocks(_) => None,
        }
    }

    pub fn as_f32_mut(&mut self) -> Option<&mut Array2<f32>> {
        match self {
            WeightMatrix::F32(t) => Some(t),
            WeightMatrix::Blocks(_) => None,
        }
    }

    /// The matrix in f32 to change it (training): one kept in blocks is expanded first.
    pub fn f32_mut(&mut self) -> &mut Array2<f32> {
        if let WeightMatrix::Blocks(_) = self {
            *self = WeightMatrix::F32(self.to_f32().into_owned());
        }
        match self {
            WeightMatrix::F32(t) => t,
            WeightMatrix::Blocks(_) => unreachable!("expanded just above"),
        }
    }

    /// The whole table in f32: borrowed when held so, expanded otherwise (the GPU upload, a
    /// checkpoint written to disk).
    pub fn to_f32(&self) -> Cow<'_, Array2<f32>> {
        match self {
            WeightMatrix::F32(t) => Cow::Borrowed(t),
            WeightMatrix::Blocks(q) => Cow::Owned(
                Array2::from_shape_vec((q.rows(), q.cols()), q.dequantize())
                    .unwrap_or_else(|_| Array2::zeros((0, q.cols()))),
            ),
        }
    }

    /// Row `r` into `out` (`cols` long). An id past the table leaves `out` as it was; callers
    /// check ids against the vocabulary first.
    pub fn row_into(&self, r: usize, mut out: ArrayViewMut1<f32>) {
        match self {
            WeightMatrix::F32(t) => {
                if r < t.nrows() {
                    out.assign(&t.row(r));
                }
            }
            WeightMatrix::Blocks(q) => match out.as_slice_mut() {
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

    /// `x Wᵀ + b` over every row of `W`: a linear layer.
    pub fn linear_all(&self, x: ArrayView2<f32>, b: &Array1<f32>) -> Array2<f32> {
        self.linear(x, 0..self.rows(), b.view())
    }

    /// `x · W[rows]ᵀ + b`: the outputs `rows` (the logits of those vocabulary entries; b is
    /// their bias).
    pub fn linear(
        &self,
        x: ArrayView2<f32>,
        rows: Range<usize>,
        b: ArrayView1<f32>,
    ) -> Array2<f32> {
        match self {
            WeightMatrix::F32(t) => linear_view(x, t.slice(s![rows, ..]), b),
            WeightMatrix::Blocks(q) => blocks_linear(q, x, rows, b),
        }
    }
}

/// Rows of `parts` one after another (Q, K and V fused into one projection). Blocks of one
/// kind stay blocks; otherwise every part is expanded to f32.
pub fn stack_rows(parts: &[WeightMatrix]) -> Result<WeightMatrix, ImportError> {
    let blocks: Option<Vec<&QuantizedTensor>> = parts
        .iter()
        .map(|p| match p {
            WeightMatrix::Blocks(q) => Some(q),
            WeightMatrix::F32(_) => None,
        })
        .collect();
    if let Some(qs) = blocks {
        if let Some(stacked) = QuantizedTensor::stack_rows(&qs) {
            return stacked.map(WeightMatrix::Blocks);
        }
    }
    let expanded: Vec<Cow<Array2<f32>>> = parts.iter().map(WeightMatrix::to_f32).collect();
    let views: Vec<_> = expanded.iter().map(|a| a.view()).collect();
    concatenate(Axis(0), &views)
        .map(WeightMatrix::F32)
        .map_err(|e| ImportError::Usage(format!("stacking rows: {e}")))
}

/// `x · W[rows]ᵀ + b` from the blocks. One input row (a decoding step) is multiplied with
/// each row straight from its blocks, reading a quarter or an eighth of the f32 bytes;
/// several expand a band of rows at a time and multiply it with the matrix product
/// `linear_view` uses, so their outputs equal those of the expanded matrix exactly.
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
        if n <= FROM_BLOCKS_UP_TO {
            let cols = block.ncols();
            for (xt, mut yt) in x.rows().into_iter().zip(block.rows_mut()) {
                let xt = xt.to_vec();
                let mut out = vec![0.0; cols];
                if q.rows_times(start..start + cols, &xt, &mut out).is_ok() {
                    for ((y, o), b) in yt.iter_mut().zip(out).zip(b.slice(s![first..])) {
                        *y = o + b;
                    }
                }
            }
            return;
        }
        if expanded_product(q, x, start, block.view_mut()) {
            block += &b.slice(s![first..first + block.ncols()]);
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

/// `y = x · W[start..]ᵀ` through the product's kernel, each band of rows expanded from the
/// blocks just before it is used and the tokens packed once for all bands. `false` (and `y`
/// untouched) where the machine has no kernel or the rows are not contiguous.
fn expanded_product(
    q: &QuantizedTensor,
    x: ArrayView2<f32>,
    start: usize,
    mut y: ndarray::ArrayViewMut2<f32>,
) -> bool {
    let d = q.cols();
    let Some(rows) = layers::rows_as_slices(&x) else {
        return false;
    };
    let cols = y.ncols();
    let mut out = layers::rows_as_mut_slices(&mut y);
    if out.len() != rows.len() {
        return false;
    }
    let mut expand = |first: usize, band: &mut [f32]| {
        for (i, row) in band.chunks_exact_mut(d).enumerate() {
            let _ = q.dequantize_row(start + first + i, row);
        }
    };
    glimpse_kernels::x_wt_expanded(&rows, (cols, d), BAND, &mut expand, &mut out)
}

#[cfg(test)]
mod tests;
