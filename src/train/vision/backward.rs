//! The ViT's backward pass, by hand: the forward trace walked in reverse, each operation's
//! gradient beside its formula. The loss is the cross-entropy of the class token's logits.
//!
//! Notation: dX is ∂loss/∂X. For y = x W + b: dW += xᵀ dy, db += Σ_rows dy, dx = dy Wᵀ.

use super::vit::{gelu_grad, BlockTrace, NormCache, Vit, VitTrace};
use super::weights::{BlockWeights, NormWeights, VitWeights};
use ndarray::linalg::general_mat_mul;
use ndarray::{s, Array1, Array2, ArrayView2, Axis};

/// Gradients have the weights' shapes, so they reuse the struct.
pub type Gradients = VitWeights;

/// Cross-entropy −log softmax(logits)[label], computed as logsumexp(logits) − logits[label].
pub fn cross_entropy(logits: &Array1<f32>, label: usize) -> Option<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let lse = max + logits.iter().map(|&l| (l - max).exp()).sum::<f32>().ln();
    logits.get(label).map(|&l| lse - l)
}

/// Adds `scale` · ∂loss/∂θ for one image into `grads` and returns the (unscaled) loss.
/// `trace` must come from `model.forward`; `scale` is 1/batch for a mean over a batch.
pub fn gradients(
    model: &Vit,
    trace: &VitTrace,
    label: usize,
    scale: f32,
    grads: &mut Gradients,
) -> Result<f32, String> {
    let w = &model.weights;
    let loss = cross_entropy(&trace.logits, label).ok_or_else(|| {
        format!(
            "label {label} is out of range (the model has {} classes)",
            trace.logits.len()
        )
    })?;
    check_shapes(model, trace, grads)?;

    // loss = −log p_y  ⇒  dlogits = p − onehot(y)
    let mut dlogits = &trace.probs * scale;
    dlogits[label] -= scale;

    // logits = c W_H + b_H, c the class token's normed vector
    outer_add(&mut grads.head_w, &trace.class_vector, &dlogits);
    grads.head_b += &dlogits;
    let dc = w.head_w.dot(&dlogits);

    // c = LN_f(x_L[0]); the other rows of x_L reach the loss only through attention before.
    let dc = dc.insert_axis(Axis(0));
    let dcls = norm_backward(
        dc.view(),
        &trace.final_norm,
        &w.final_norm,
        &mut grads.final_norm,
    );
    let mut dx = Array2::zeros(trace.embeddings.raw_dim());
    dx.row_mut(0).assign(&dcls.row(0));

    for ((b, bt), g) in w
        .blocks
        .iter()
        .zip(&trace.blocks)
        .zip(&mut grads.blocks)
        .rev()
    {
        dx = block_backward(model, b, bt, g, dx);
    }

    // x₀ = [cls; patches W_E + b_E] + positions
    grads.positions += &dx;
    grads.class_token += &dx.row(0);
    let dpatch = dx.slice(s![1.., ..]);
    general_mat_mul(1.0, &trace.patches.t(), &dpatch, 1.0, &mut grads.patch_w);
    grads.patch_b += &dpatch.sum_axis(Axis(0));
    Ok(loss)
}

/// Refuses a trace or a gradient buffer that does not fit `model` (ndarray would panic).
fn check_shapes(model: &Vit, trace: &VitTrace, grads: &Gradients) -> Result<(), String> {
    let c = model.config();
    let (t, d) = (c.tokens(), c.d_model);
    let trace_fits = trace.patches.dim() == (c.patches(), c.patch_len())
        && trace.embeddings.dim() == (t, d)
        && trace.class_vector.len() == d
        && trace.logits.len() == c.classes
        && trace.probs.len() == c.classes
        && trace.blocks.len() == c.layers
        && trace
            .blocks
            .iter()
            .all(|b| b.attention.dim() == (c.heads, t, t) && b.output.dim() == (t, d));
    if !trace_fits {
        return Err("the trace does not come from a model of this shape".into());
    }
    let want = model.weights().tensors();
    let got = grads.tensors();
    let grads_fit = want.len() == got.len()
        && want
            .iter()
            .zip(&got)
            .all(|(w, g)| w.1.shape() == g.1.shape());
    if !grads_fit {
        return Err("the gradient buffer does not have the model's shapes".into());
    }
    Ok(())
}

/// One block in reverse; takes dx at its output, returns dx at its input.
fn block_backward(
    model: &Vit,
    b: &BlockWeights,
    t: &BlockTrace,
    g: &mut BlockWeights,
    mut dx: Array2<f32>,
) -> Array2<f32> {
    // x_out = x_mid + GELU(h₂ W₁ + b₁) W₂ + b₂,  h₂ = LN₂(x_mid)
    let da = linear_backward(t.act.view(), dx.view(), &b.w_2, &mut g.w_2, &mut g.b_2);
    // a = GELU(u)  ⇒  du = da ⊙ GELU′(u)
    let du = da * &t.pre.mapv(gelu_grad);
    let dh2 = linear_backward(t.h2.view(), du.view(), &b.w_1, &mut g.w_1, &mut g.b_1);
    dx += &norm_backward(dh2.view(), &t.norm2, &b.norm2, &mut g.norm2);

    // x_mid = x_in + z W_O + b_O,  z = heads side by side
    let dz = linear_backward(t.z.view(), dx.view(), &b.w_o, &mut g.w_o, &mut g.b_o);
    let (dq, dk, dv) = attention_backward(model, t, &dz);
    let mut dh1 = linear_backward(t.h1.view(), dq.view(), &b.w_q, &mut g.w_q, &mut g.b_q);
    dh1 += &linear_backward(t.h1.view(), dk.view(), &b.w_k, &mut g.w_k, &mut g.b_k);
    dh1 += &linear_backward(t.h1.view(), dv.view(), &b.w_v, &mut g.w_v, &mut g.b_v);
    dx += &norm_backward(dh1.view(), &t.norm1, &b.norm1, &mut g.norm1);
    dx
}

/// Per head, z = A v with A = softmax(S), S = q kᵀ/√d_k:
/// dA = dz vᵀ, dv = Aᵀ dz, dS = A ⊙ (dA − Σ_j dA⊙A) (row-wise), dq = dS k/√d_k, dk = dSᵀ q/√d_k.
fn attention_backward(
    model: &Vit,
    t: &BlockTrace,
    dz: &Array2<f32>,
) -> (Array2<f32>, Array2<f32>, Array2<f32>) {
    let (dk_width, heads) = (model.config.d_head(), model.config.heads);
    let scale = 1.0 / (dk_width as f32).sqrt();
    let mut dq = Array2::zeros(t.q.raw_dim());
    let mut dk = Array2::zeros(t.k.raw_dim());
    let mut dv = Array2::zeros(t.v.raw_dim());
    for h in 0..heads {
        let cols = s![.., h * dk_width..(h + 1) * dk_width];
        let a = t.attention.index_axis(Axis(0), h);
        let dzh = dz.slice(cols);
        let da = dzh.dot(&t.v.slice(cols).t());
        dv.slice_mut(cols).assign(&a.t().dot(&dzh));
        // softmax backward, one row at a time: dS = A ⊙ (dA − ⟨dA, A⟩)
        let dot = (&da * &a).sum_axis(Axis(1)).insert_axis(Axis(1));
        let ds = &a * &(da - &dot) * scale;
        dq.slice_mut(cols).assign(&ds.dot(&t.k.slice(cols)));
        dk.slice_mut(cols).assign(&ds.t().dot(&t.q.slice(cols)));
    }
    (dq, dk, dv)
}

/// y = x W + b: accumulates dW = xᵀ dy and db = Σ_rows dy, returns dx = dy Wᵀ.
fn linear_backward(
    x: ArrayView2<f32>,
    dy: ArrayView2<f32>,
    w: &Array2<f32>,
    gw: &mut Array2<f32>,
    gb: &mut Array1<f32>,
) -> Array2<f32> {
    general_mat_mul(1.0, &x.t(), &dy, 1.0, gw);
    *gb += &dy.sum_axis(Axis(0));
    dy.dot(&w.t())
}

/// y = γ ⊙ x̂ + β, x̂ = (x − μ)/σ:  dγ += Σ dy⊙x̂, dβ += Σ dy, and with g = dy⊙γ,
/// dx = (1/σ)(g − mean(g) − x̂ · mean(g⊙x̂)) for each row.
fn norm_backward(
    dy: ArrayView2<f32>,
    cache: &NormCache,
    w: &NormWeights,
    g: &mut NormWeights,
) -> Array2<f32> {
    g.gain += &(&dy * &cache.xhat).sum_axis(Axis(0));
    g.bias += &dy.sum_axis(Axis(0));
    let mut dx = &dy * &w.gain;
    let d = dx.ncols() as f32;
    for ((mut row, xhat), &inv_std) in dx
        .rows_mut()
        .into_iter()
        .zip(cache.xhat.rows())
        .zip(&cache.inv_std)
    {
        let mean_g = row.sum() / d;
        let mean_gx = row.dot(&xhat) / d;
        row.zip_mut_with(&xhat, |gi, &xi| {
            *gi = inv_std * (*gi - mean_g - xi * mean_gx)
        });
    }
    dx
}

/// m += a ⊗ b (column a times row b).
fn outer_add(m: &mut Array2<f32>, a: &Array1<f32>, b: &Array1<f32>) {
    let (a, b) = (a.view().insert_axis(Axis(1)), b.view().insert_axis(Axis(0)));
    general_mat_mul(1.0, &a, &b, 1.0, m);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::vision::config::VitConfig;
    use crate::train::vision::images::VisionTask;
    use crate::util::rng::Rng;

    /// Summed loss over a few images, accumulated in f64.
    fn total_loss(model: &Vit, batch: &[(Array2<f32>, usize)]) -> f64 {
        batch
            .iter()
            .map(|(image, label)| {
                let t = model.forward(image).unwrap();
                f64::from(cross_entropy(&t.logits, *label).unwrap())
            })
            .sum()
    }

    /// Moves every weight a little off its initial value, so LayerNorm's γ ≠ 1, biases ≠ 0
    /// and positions are not tiny: every path of the gradient is exercised.
    fn jitter(model: &mut Vit, rng: &mut Rng) {
        for (name, mut values, _) in model.weights.tensors_mut() {
            let size = if name.contains("gain") || name.contains("_b") || name.contains("bias") {
                0.3
            } else if name == "positions" || name == "class_token" {
                0.5
            } else {
                0.0
            };
            values.mapv_inplace(|v| v + (rng.normal() * size) as f32);
        }
    }

    /// Central differences (L(θ+ε) − L(θ−ε)) / 2ε against the backward pass, for the largest
    /// entry and three random entries of EVERY tensor. The forward runs in f32, so ε = 1e-2
    /// (rounding in the difference ≈ 1e-6/ε stays far below the tolerance, and the O(ε²) error
    /// is small). Tolerance: |analytic − numeric| ≤ 1e-2 · max(|analytic|, |numeric|) + 2e-4.
    #[test]
    fn backward_matches_finite_differences_for_every_tensor() {
        let mut rng = Rng::new(42);
        for task in VisionTask::ALL {
            let mut model = Vit::new(VitConfig::for_task(task), 3).unwrap();
            jitter(&mut model, &mut rng);
            let batch: Vec<_> = (0..3).map(|_| task.sample(&mut rng)).collect();

            let mut grads = model.weights.zeros_like();
            for (image, label) in &batch {
                let t = model.forward(image).unwrap();
                gradients(&model, &t, *label, 1.0, &mut grads).unwrap();
            }

            let eps = 1e-2f32;
            let (mut checked, mut worst, mut worst_rel) = (0, 0.0f64, 0.0f64);
            let names: Vec<String> = grads.tensors().into_iter().map(|t| t.0).collect();
            for (ti, name) in names.iter().enumerate() {
                let analytic: Vec<f32> = grads.tensors()[ti].1.iter().copied().collect();
                let largest = super::super::vit::argmax(analytic.iter().map(|g| g.abs()));
                let picks = [
                    largest,
                    rng.below(analytic.len()),
                    rng.below(analytic.len()),
                    rng.below(analytic.len()),
                ];
                for &k in &picks {
                    let at = |delta: f32| {
                        let mut m = model.clone();
                        if let Some(v) = m.weights.tensors_mut()[ti].1.iter_mut().nth(k) {
                            *v += delta;
                        }
                        total_loss(&m, &batch)
                    };
                    let numeric = (at(eps) - at(-eps)) / (2.0 * f64::from(eps));
                    let a = f64::from(analytic[k]);
                    let err = (a - numeric).abs();
                    let allowed = 1e-2 * a.abs().max(numeric.abs()) + 2e-4;
                    assert!(
                        err <= allowed,
                        "{task:?} {name}[{k}]: analytic {a:.6}, numeric {numeric:.6}"
                    );
                    worst = worst.max(err / allowed);
                    if a.abs() > 1e-2 {
                        worst_rel = worst_rel.max(err / a.abs());
                    }
                    checked += 1;
                }
                // b_K adds q·b_K to a whole row of scores, which softmax ignores: its gradient
                // is exactly 0 (and the check above confirmed the numeric one is too).
                if !name.ends_with("b_k") {
                    assert!(
                        analytic[largest].abs() > 1e-4,
                        "{task:?} {name}: no gradient"
                    );
                }
            }
            assert_eq!(checked, 4 * names.len());
            println!(
                "{task:?}: {checked} entries checked, worst error {worst:.3} of the allowance, \
                 worst relative error {worst_rel:.1e} where |gradient| > 1e-2"
            );
        }
    }

    #[test]
    fn a_bad_label_or_mismatched_buffers_are_refused() {
        let model = Vit::new(VitConfig::default(), 1).unwrap();
        let t = model.forward(&Array2::zeros((16, 16))).unwrap();
        let mut g = model.weights.zeros_like();
        let err = gradients(&model, &t, 2, 1.0, &mut g).unwrap_err();
        assert!(err.contains("label 2 is out of range"), "{err}");
        let other = Vit::new(
            VitConfig {
                d_model: 16,
                ..VitConfig::default()
            },
            1,
        )
        .unwrap();
        let mut g_other = other.weights().zeros_like();
        let err = gradients(&model, &t, 0, 1.0, &mut g_other).unwrap_err();
        assert!(err.contains("gradient buffer"), "{err}");
        let t_other = other.forward(&Array2::zeros((16, 16))).unwrap();
        let err = gradients(&model, &t_other, 0, 1.0, &mut g).unwrap_err();
        assert!(err.contains("trace"), "{err}");
    }

    #[test]
    fn cross_entropy_closed_form() {
        // logits [0, ln 3]: p = [1/4, 3/4]
        let l = Array1::from(vec![0.0, 3f32.ln()]);
        assert!((cross_entropy(&l, 0).unwrap() - 4f32.ln()).abs() < 1e-6);
        assert!((cross_entropy(&l, 1).unwrap() - (4.0f32 / 3.0).ln()).abs() < 1e-6);
        assert_eq!(cross_entropy(&l, 2), None);
    }
}
