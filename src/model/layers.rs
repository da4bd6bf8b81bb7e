//! The non-attention layers: linear maps, LayerNorm and RMSNorm, the position-wise FFN (plain
//! or gated) and its activations.

use super::config::{Activation, NormKind};
use super::parallel;
use super::weight_matrix::WeightMatrix;
use crate::util::nested;
use glimpse_kernels::rows;
use ndarray::linalg::general_mat_mul;
use ndarray::{s, Array1, Array2, ArrayView1, ArrayView2, ArrayViewMut2, Axis};
use serde::Serialize;

/// `y = x Wᵀ + b` with `W` stored `[out, in]`.
///
/// The output columns are split across threads: each multiplies `x` by its own rows of `W`
/// ([`x_wt_into`]). A single row (a decoding step) is a matrix–vector product instead: each
/// `y_j` is the dot product of `x` with the contiguous row `W_j`, which reads `W` once.
pub fn linear(x: ArrayView2<f32>, w: &Array2<f32>, b: &Array1<f32>) -> Array2<f32> {
    linear_view(x, w.view(), b.view())
}

/// [`linear`] over views: a band of a weight matrix's rows (the output layer in slices).
pub fn linear_view(x: ArrayView2<f32>, w: ArrayView2<f32>, b: ArrayView1<f32>) -> Array2<f32> {
    let (rows, out) = (x.nrows(), w.nrows());
    let mut y = Array2::zeros((rows, out));
    let work = rows * out * w.ncols();
    parallel::for_column_blocks(y.view_mut(), work, &|first, mut block| {
        let cols = first..first + block.ncols();
        let w = w.slice(s![cols.clone(), ..]);
        if rows == 1 {
            let row = x.row(0);
            for ((y, w), b) in block.iter_mut().zip(w.rows()).zip(&b.slice(s![cols])) {
                *y = w.dot(&row) + b;
            }
        } else {
            x_wt_into(x, w, block.view_mut());
            block += &b.slice(s![cols]);
        }
    });
    y
}

/// `y = x Wᵀ`, overwriting `y`: `glimpse-kernels`' product, which reads `W` in place where
/// a general product first copies it into panels; ndarray's product where there is no such
/// kernel or `W`'s rows are not laid out one after another.
pub fn x_wt_into(x: ArrayView2<f32>, w: ArrayView2<f32>, mut y: ArrayViewMut2<f32>) {
    let done = match (w.as_slice(), rows_as_slices(&x)) {
        (Some(data), Some(rows)) => {
            let w_rows = glimpse_kernels::Matrix {
                data,
                rows: w.nrows(),
                cols: w.ncols(),
                stride: w.ncols(),
            };
            let mut out = rows_as_mut_slices(&mut y);
            out.len() == rows.len() && glimpse_kernels::x_wt(&rows, w_rows, &mut out)
        }
        _ => false,
    };
    if !done {
        general_mat_mul(1.0, &x, &w.t(), 0.0, &mut y);
    }
}

/// Each row of `x` as a slice, where every row is contiguous.
pub(crate) fn rows_as_slices<'v>(x: &'v ArrayView2<f32>) -> Option<Vec<&'v [f32]>> {
    x.rows().into_iter().map(|r| r.to_slice()).collect()
}

/// The rows of `y` that are contiguous, as slices (all of them for a row-major view).
pub(crate) fn rows_as_mut_slices<'v>(y: &'v mut ArrayViewMut2<f32>) -> Vec<&'v mut [f32]> {
    y.rows_mut()
        .into_iter()
        .filter_map(|r| r.into_slice())
        .collect()
}

#[derive(Debug, Clone, PartialEq)]
pub struct LayerNormWeights {
    pub gamma: Array1<f32>,
    pub beta: Array1<f32>,
}

/// A normalisation of every row, with the statistics a student can inspect.
#[derive(Debug, Clone, Serialize)]
pub struct NormTrace {
    /// Mean of each input row (LayerNorm); 0 for RMSNorm, which does not centre.
    #[serde(serialize_with = "nested::ser")]
    pub mean: Array1<f32>,
    /// Biased variance of each input row (LayerNorm); the mean square mean(x²) for RMSNorm.
    #[serde(serialize_with = "nested::ser")]
    pub var: Array1<f32>,
    #[serde(serialize_with = "nested::ser")]
    pub output: Array2<f32>,
}

/// LayerNorm or RMSNorm, as the model's config says.
pub fn norm(kind: NormKind, x: ArrayView2<f32>, w: &LayerNormWeights, eps: f32) -> NormTrace {
    match kind {
        NormKind::LayerNorm => layer_norm(x, w, eps),
        NormKind::RmsNorm => rms_norm(x, w, eps),
    }
}

/// LayerNorm: `(x − μ) / √(σ² + ε) · γ + β` per row, σ² the biased variance.
pub fn layer_norm(x: ArrayView2<f32>, w: &LayerNormWeights, eps: f32) -> NormTrace {
    let d = x.ncols() as f32;
    let mean = x.sum_axis(Axis(1)) / d;
    let centered = &x - &mean.view().insert_axis(Axis(1));
    let var = centered.mapv(|c| c * c).sum_axis(Axis(1)) / d;
    let inv_std = var.mapv(|v| 1.0 / (v + eps).sqrt());
    let mut output = centered * inv_std.view().insert_axis(Axis(1));
    output *= &w.gamma;
    output += &w.beta;
    NormTrace { mean, var, output }
}

/// RMSNorm: `x / √(mean(x²) + ε) · γ` per row: no centring and no β (β stays 0).
pub fn rms_norm(x: ArrayView2<f32>, w: &LayerNormWeights, eps: f32) -> NormTrace {
    let d = x.ncols() as f32;
    let mean_square = x.mapv(|v| v * v).sum_axis(Axis(1)) / d;
    let inv_rms = mean_square.mapv(|m| 1.0 / (m + eps).sqrt());
    let mut output = &x * &inv_rms.view().insert_axis(Axis(1));
    output *= &w.gamma;
    NormTrace {
        mean: Array1::zeros(x.nrows()),
        var: mean_square,
        output,
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct FfnWeights {
    pub w1: WeightMatrix,
    pub b1: Array1<f32>,
    pub w2: WeightMatrix,
    pub b2: Array1<f32>,
    /// Gated FFN only (`[d_ff, d]`, `[d_ff]`): the branch the activation acts on.
    pub gate: Option<(WeightMatrix, Array1<f32>)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FfnTrace {
    /// What the non-linearity acts on: `x W₁ᵀ + b₁`, or in a gated FFN the gate `x W_gᵀ + b_g`.
    #[serde(serialize_with = "nested::ser")]
    pub pre_activation: Array2<f32>,
    /// Gated FFN only: the linear branch `x W₁ᵀ + b₁` ("up") that the gate multiplies.
    #[serde(
        serialize_with = "nested::ser_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub up: Option<Array2<f32>>,
    /// After the non-linearity (times the up branch in a gated FFN): the input of `W₂`.
    #[serde(serialize_with = "nested::ser")]
    pub hidden: Array2<f32>,
    #[serde(serialize_with = "nested::ser")]
    pub output: Array2<f32>,
}

/// Exact GELU `z · Φ(z) = z · ½(1 + erf(z/√2))`, GELU's tanh approximation
/// `½z(1 + tanh(√(2/π)(z + 0.044715z³)))` and SiLU `z · σ(z) = z / (1 + e^(−z))`: the
/// formulas are written out in `glimpse-kernels` (`rows`), whose loops the browser build
/// compiles for speed. GELU's `erfc` there is branch-free (5·10⁻⁷ absolute error, as exact as
/// f32 GELU needs): libm's `erff` took a sixth of a BERT forward pass.
pub use glimpse_kernels::rows::{gelu, gelu_tanh, silu};

#[inline(always)]
pub fn activate(z: f32, act: Activation) -> f32 {
    match act {
        Activation::Relu => z.max(0.0),
        Activation::Gelu => gelu(z),
        Activation::GeluTanh => gelu_tanh(z),
        Activation::Silu => silu(z),
    }
}

/// `act(z) ⊙ up` (`up` = 1 where absent), a row at a time through `glimpse-kernels`' row
/// loops, the columns split across threads: the activation of a large FFN is worth a second
/// core.
fn activate_all(z: &Array2<f32>, up: Option<&Array2<f32>>, act: Activation) -> Array2<f32> {
    let row: fn(&[f32], Option<&[f32]>, &mut [f32]) = match act {
        Activation::Relu => rows::relu_row,
        Activation::Gelu => rows::gelu_row,
        Activation::GeluTanh => rows::gelu_tanh_row,
        Activation::Silu => rows::silu_row,
    };
    let mut out = Array2::zeros(z.raw_dim());
    // An activation costs tens of flops, like a short dot product.
    let work = z.len() * 16;
    parallel::for_column_blocks(out.view_mut(), work, &|first, mut block| {
        let cols = s![.., first..first + block.ncols()];
        let (z, up) = (z.slice(cols), up.map(|u| u.slice(cols)));
        for (r, mut o) in block.rows_mut().into_iter().enumerate() {
            let (zr, ur) = (z.row(r), up.as_ref().map(|u| u.row(r)));
            match (
                o.as_slice_mut(),
                zr.as_slice(),
                ur.as_ref().map(|u| u.as_slice()),
            ) {
                (Some(o), Some(zr), None) => row(zr, None, o),
                (Some(o), Some(zr), Some(Some(ur))) => row(zr, Some(ur), o),
                // Rows not laid out contiguously: one entry at a time.
                _ => {
                    for (j, o) in o.iter_mut().enumerate() {
                        *o = activate(zr[j], act) * ur.as_ref().map_or(1.0, |u| u[j]);
                    }
                }
            }
        }
    });
    out
}

/// `W₂ act(W₁x + b₁) + b₂`, or gated (SwiGLU when act is SiLU): `W₂ (act(W_g x) ⊙ W₁ x) + b₂`.
pub fn ffn(x: ArrayView2<f32>, w: &FfnWeights, act: Activation) -> FfnTrace {
    let first = w.w1.linear_all(x, &w.b1);
    let (pre_activation, up, hidden) = match &w.gate {
        None => {
            let hidden = activate_all(&first, None, act);
            (first, None, hidden)
        }
        Some((w_g, b_g)) => {
            let gate = w_g.linear_all(x, b_g);
            let hidden = activate_all(&gate, Some(&first), act);
            (gate, Some(first), hidden)
        }
    };
    let output = w.w2.linear_all(hidden.view(), &w.b2);
    FfnTrace {
        pre_activation,
        up,
        hidden,
        output,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    /// `x Wᵀ` in f64, the reference for the kernels.
    fn x_wt_f64(x: ArrayView2<f32>, w: ArrayView2<f32>) -> Array2<f64> {
        Array2::from_shape_fn((x.nrows(), w.nrows()), |(t, j)| {
            x.row(t)
                .iter()
                .zip(w.row(j))
                .map(|(&a, &b)| a as f64 * b as f64)
                .sum()
        })
    }

    #[test]
    fn x_wt_matches_the_f64_product_on_ragged_shapes_and_views() {
        let values = |r: usize, c: usize, seed: usize| {
            Array2::from_shape_fn((r, c), |(i, j)| {
                (((i * 31 + j * 17 + seed) % 23) as f32 - 11.0) / 7.0
            })
        };
        // Tokens and outputs that fill no tile exactly; depths below and across a block.
        for &(t, k, n) in &[(1, 3, 5), (7, 33, 9), (17, 384, 23), (40, 2100, 13)] {
            let (x, w) = (values(t, k, 1), values(n, k, 2));
            let want = x_wt_f64(x.view(), w.view());
            let tolerance = 1e-6 * k as f64 * 4.0;
            // The kernel's path, a band of W's rows, and x transposed twice (not row-major).
            let band = w.slice(s![1.., ..]);
            let xt = x.t().to_owned();
            for (x, w, want) in [
                (x.view(), w.view(), want.view()),
                (x.view(), band, want.slice(s![.., 1..])),
                (xt.t(), w.view(), want.view()),
            ] {
                let mut y = Array2::from_elem((x.nrows(), w.nrows()), f32::NAN);
                x_wt_into(x, w, y.view_mut());
                for (got, want) in y.iter().zip(want.iter()) {
                    assert!(
                        (*got as f64 - want).abs() <= tolerance,
                        "{t}×{k}×{n}: {got} vs {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn layer_norm_normalises_each_row() {
        let w = LayerNormWeights {
            gamma: Array1::ones(4),
            beta: Array1::zeros(4),
        };
        let t = layer_norm(
            array![[1.0f32, 2.0, 3.0, 4.0], [0.0, 0.0, 0.0, 8.0]].view(),
            &w,
            1e-5,
        );
        assert_eq!(t.mean.to_vec(), vec![2.5, 2.0]);
        assert!((t.var[0] - 1.25).abs() < 1e-6);
        for row in t.output.rows() {
            assert!(row.sum().abs() < 1e-5);
            let v = row.mapv(|x| x * x).sum() / 4.0;
            assert!((v - 1.0).abs() < 1e-3);
        }
    }

    #[test]
    fn gelu_closed_form_points() {
        assert_eq!(gelu(0.0), 0.0);
        // Φ(1) = 0.841344746...
        assert!((gelu(1.0) - 0.841_344_7).abs() < 1e-6);
        assert!((gelu(-1.0) + 0.158_655_25).abs() < 1e-6);
    }

    #[test]
    fn tanh_gelu_and_silu_closed_form_points() {
        assert_eq!(gelu_tanh(0.0), 0.0);
        // ½(1 + tanh(√(2/π)·1.044715)) = 0.841191990...
        assert!((gelu_tanh(1.0) - 0.841_192).abs() < 1e-6);
        assert!(
            (gelu_tanh(1.0) - gelu(1.0)).abs() > 1e-4,
            "the approximation differs"
        );
        // σ(1) = 0.731058579
        assert!((silu(1.0) - 0.731_058_6).abs() < 1e-6);
        assert!((silu(-2.0) + 2.0 / (1.0 + 2f32.exp())).abs() < 1e-6);
    }

    #[test]
    fn rms_norm_divides_by_the_root_mean_square_without_centring() {
        let w = LayerNormWeights {
            gamma: array![1.0f32, 2.0],
            beta: array![5.0f32, 5.0], // RMSNorm has no β: ignored.
        };
        let t = rms_norm(array![[3.0f32, 4.0]].view(), &w, 0.0);
        // mean(x²) = 12.5, rms = 3.5355
        assert!((t.var[0] - 12.5).abs() < 1e-6);
        let r = 12.5f32.sqrt();
        assert!((t.output[[0, 0]] - 3.0 / r).abs() < 1e-6);
        assert!((t.output[[0, 1]] - 8.0 / r).abs() < 1e-6);
        assert_eq!(t.mean[0], 0.0);
    }

    #[test]
    fn gated_ffn_multiplies_the_activated_gate_by_the_up_branch() {
        let w = FfnWeights {
            w1: WeightMatrix::F32(array![[1.0f32], [2.0]]),
            b1: array![0.0f32, 0.0],
            w2: WeightMatrix::F32(array![[1.0f32, 1.0]]),
            b2: array![0.5f32],
            gate: Some((
                WeightMatrix::F32(array![[1.0f32], [-1.0]]),
                array![0.0f32, 0.0],
            )),
        };
        let t = ffn(array![[2.0f32]].view(), &w, Activation::Silu);
        let expected = silu(2.0) * 2.0 + silu(-2.0) * 4.0 + 0.5;
        assert!((t.output[[0, 0]] - expected).abs() < 1e-6);
        assert_eq!(t.up.unwrap().row(0).to_vec(), vec![2.0, 4.0]);
    }

    #[test]
    fn linear_uses_out_in_layout() {
        let w = array![[1.0f32, 0.0], [1.0, 1.0], [0.0, 2.0]]; // 3 outputs from 2 inputs
        let y = linear(array![[1.0f32, 2.0]].view(), &w, &array![0.0, 0.0, 1.0]);
        assert_eq!(y.row(0).to_vec(), vec![1.0, 3.0, 5.0]);
    }
}
