//! The non-attention layers: linear maps, LayerNorm, the position-wise FFN.

use super::config::Activation;
use crate::util::nested;
use ndarray::{Array1, Array2, ArrayView2, Axis};
use serde::Serialize;

/// `y = x Wᵀ + b` with `W` stored `[out, in]`.
pub fn linear(x: ArrayView2<f32>, w: &Array2<f32>, b: &Array1<f32>) -> Array2<f32> {
    let mut y = x.dot(&w.t());
    y += b;
    y
}

#[derive(Debug, Clone, PartialEq)]
pub struct LayerNormWeights {
    pub gamma: Array1<f32>,
    pub beta: Array1<f32>,
}

/// LayerNorm of every row, with the statistics a student can inspect.
#[derive(Debug, Clone, Serialize)]
pub struct NormTrace {
    /// Mean of each input row.
    #[serde(serialize_with = "nested::ser")]
    pub mean: Array1<f32>,
    /// Biased variance of each input row.
    #[serde(serialize_with = "nested::ser")]
    pub var: Array1<f32>,
    #[serde(serialize_with = "nested::ser")]
    pub output: Array2<f32>,
}

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

#[derive(Debug, Clone, PartialEq)]
pub struct FfnWeights {
    pub w1: Array2<f32>,
    pub b1: Array1<f32>,
    pub w2: Array2<f32>,
    pub b2: Array1<f32>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FfnTrace {
    /// `x W₁ᵀ + b₁`, before the non-linearity.
    #[serde(serialize_with = "nested::ser")]
    pub pre_activation: Array2<f32>,
    /// After the non-linearity.
    #[serde(serialize_with = "nested::ser")]
    pub hidden: Array2<f32>,
    #[serde(serialize_with = "nested::ser")]
    pub output: Array2<f32>,
}

/// Exact GELU: `z · Φ(z) = z · ½(1 + erf(z/√2))`.
pub fn gelu(z: f32) -> f32 {
    let z = z as f64;
    (z * 0.5 * (1.0 + libm::erf(z / std::f64::consts::SQRT_2))) as f32
}

pub fn activate(z: f32, act: Activation) -> f32 {
    match act {
        Activation::Relu => z.max(0.0),
        Activation::Gelu => gelu(z),
    }
}

pub fn ffn(x: ArrayView2<f32>, w: &FfnWeights, act: Activation) -> FfnTrace {
    let pre_activation = linear(x, &w.w1, &w.b1);
    let hidden = pre_activation.mapv(|z| activate(z, act));
    let output = linear(hidden.view(), &w.w2, &w.b2);
    FfnTrace {
        pre_activation,
        hidden,
        output,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

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
    fn linear_uses_out_in_layout() {
        let w = array![[1.0f32, 0.0], [1.0, 1.0], [0.0, 2.0]]; // 3 outputs from 2 inputs
        let y = linear(array![[1.0f32, 2.0]].view(), &w, &array![0.0, 0.0, 1.0]);
        assert_eq!(y.row(0).to_vec(), vec![1.0, 3.0, 5.0]);
    }
}
