//! One head's inputs and weights, read from the model and its trace, and the products the
//! walkthrough recomputes from them.

use crate::app::labs::attention::Selection;
use crate::model::config::NormPlacement;
use crate::model::layers::{linear_view, x_wt_into};
use crate::model::trace::BlockTrace;
use crate::model::weights::{AttentionWeights, WeightMatrix};
use crate::model::{AttentionKind, Model, Trace};
use ndarray::{s, Array2, ArrayView2};

/// `x W[rows]ᵀ + b[rows]` over the rows `rows` of a `[out, in]` weight matrix: one head's
/// slice of a projection. The model's own product (its kernels, blocks read as blocks), so the
/// walkthrough's numbers are the forward pass's and a 30-layer model's steps build in a frame.
pub(super) fn project(
    x: ArrayView2<f32>,
    w: &WeightMatrix,
    b: &ndarray::Array1<f32>,
    rows: std::ops::Range<usize>,
) -> Array2<f32> {
    w.linear(x, rows.clone(), b.slice(s![rows]))
}

/// [`project`] with the weights as a plain array view.
pub(super) fn project_view(
    x: ArrayView2<f32>,
    w: ArrayView2<f32>,
    b: &ndarray::Array1<f32>,
    rows: std::ops::Range<usize>,
) -> Array2<f32> {
    linear_view(x, w.slice(s![rows.clone(), ..]), b.slice(s![rows]))
}

/// `A Bᵀ`: every row of `A` against every row of `B` (Q Kᵀ).
pub(super) fn matmul_t(a: ArrayView2<f32>, b: ArrayView2<f32>) -> Array2<f32> {
    let mut y = Array2::zeros((a.nrows(), b.nrows()));
    x_wt_into(a, b, y.view_mut());
    y
}

/// The inputs of the attention layer: the normed (pre-norm) or raw (post-norm) stream.
pub(super) fn layer_inputs<'a>(
    model: &Model,
    trace: &'a Trace,
    sel: &Selection,
) -> Option<(ArrayView2<'a, f32>, ArrayView2<'a, f32>)> {
    let pre = model.config.norm == NormPlacement::Pre;
    let block = |stack: &'a Option<crate::model::trace::StackTrace>| -> Option<&'a BlockTrace> {
        stack.as_ref()?.blocks.get(sel.layer)
    };
    match sel.kind {
        AttentionKind::EncoderSelf | AttentionKind::DecoderSelf => {
            let stack = if sel.kind == AttentionKind::EncoderSelf {
                &trace.encoder
            } else {
                &trace.decoder
            };
            let b = block(stack)?;
            let x = if pre {
                b.self_attn.norm.output.view()
            } else {
                b.input.view()
            };
            Some((x, x))
        }
        AttentionKind::Cross => {
            let b = block(&trace.decoder)?;
            let c = b.cross_attn.as_ref()?;
            let x = if pre {
                c.norm.output.view()
            } else {
                b.self_attn.residual.view()
            };
            Some((x, trace.encoder.as_ref()?.output.view()))
        }
    }
}

pub(super) fn layer_weights<'a>(model: &'a Model, sel: &Selection) -> Option<&'a AttentionWeights> {
    let stack = match sel.kind {
        AttentionKind::EncoderSelf => model.weights.encoder.as_ref()?,
        _ => model.weights.decoder.as_ref()?,
    };
    let b = stack.blocks.get(sel.layer)?;
    match sel.kind {
        AttentionKind::Cross => b.cross.as_ref().map(|(_, w)| w),
        _ => Some(&b.self_attn),
    }
}
