//! The backward pass, written by hand for every operation of the model. It reads the
//! forward `Trace` (which already holds every intermediate) and walks it in reverse,
//! accumulating gradients into a `Weights`-shaped structure.

use super::loss::cross_entropy;
use crate::model::attention::{merge_heads, score_divisor, split_heads, AttentionTrace};
use crate::model::config::{Activation, ModelConfig, NormPlacement, Positional};
use crate::model::layers::{FfnTrace, FfnWeights, LayerNormWeights, NormTrace};
use crate::model::position::{relative_index, rope_unrotate_in_place};
use crate::model::softmax::softmax_backward;
use crate::model::trace::{StackTrace, SublayerTrace};
use crate::model::weights::{AttentionWeights, Projection, ScoreWeights, StackWeights, Weights};
use crate::model::{Dropout, ForwardOptions, Model, ModelInput, Result};
use ndarray::{Array1, Array2, Array3, ArrayView2, Axis};

/// One training example: model input, the label of every output row, and which rows count.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    pub input: ModelInput,
    pub labels: Vec<u32>,
    pub loss_mask: Vec<bool>,
}

/// Forward, loss and backward for one example. Gradients of the *summed* token losses are
/// added into `grads`; returns (summed loss, number of counted tokens, the forward trace's
/// logits).
pub fn example_gradients(
    model: &Model,
    ex: &Example,
    smoothing: f32,
    dropout: Option<Dropout>,
    grads: &mut Weights,
) -> Result<(f32, usize, Array2<f32>)> {
    let x = &model.config.extensions;
    if !x.is_textbook() {
        // The backward pass is written for the textbook block the course teaches.
        return Err(crate::model::ModelError::Input(format!(
            "training covers the textbook block; this model has {}",
            x.summary()
        )));
    }
    let frozen = |name: &str| {
        crate::model::ModelError::Input(format!(
            "`{name}` is kept in a quantized file's blocks and cannot be trained"
        ))
    };
    let w = &model.weights;
    let w_out = w
        .output_matrix()
        .as_f32()
        .ok_or_else(|| frozen("W_vocab"))?;
    if w.tok_embed.as_f32().is_none() {
        return Err(frozen("tok_embed"));
    }
    let opts = ForwardOptions {
        dropout,
        ..ForwardOptions::default()
    };
    let trace = model.forward(&ex.input, &opts)?;
    let (loss, count, dlogits) =
        cross_entropy(trace.logits.view(), &ex.labels, &ex.loss_mask, smoothing);
    let cfg = &model.config;
    let (last, last_w, last_g) = match (&trace.decoder, &w.decoder) {
        (Some(t), Some(sw)) => (t, sw, grads.decoder.as_mut()),
        _ => match (&trace.encoder, &w.encoder) {
            (Some(t), Some(sw)) => (t, sw, grads.encoder.as_mut()),
            _ => return Ok((loss, count, trace.logits)),
        },
    };
    // logits = y W_outᵀ + b
    let y = &last.output;
    let d_out_matrix = dlogits.t().dot(y);
    let g_out = match grads.lm_head.as_mut() {
        Some(h) => h.as_f32_mut(),
        None => grads.tok_embed.as_f32_mut(),
    };
    *g_out.ok_or_else(|| frozen("W_vocab"))? += &d_out_matrix;
    if let Some(b) = grads.lm_bias.as_mut() {
        *b += &dlogits.sum_axis(Axis(0));
    }
    let dy = dlogits.dot(w_out);

    let Some(last_g) = last_g else {
        return Ok((loss, count, trace.logits));
    };
    let mut d_memory = trace
        .encoder
        .as_ref()
        .map(|e| Array2::zeros(e.output.raw_dim()));
    let memory = trace.encoder.as_ref().map(|e| e.output.view());
    let d_x0 = stack_backward(cfg, last_w, last_g, last, dy, memory, d_memory.as_mut());
    embed_backward(cfg, grads, last, &d_x0);
    if let (Some(dm), Some(enc_t), Some(enc_w), true) = (
        d_memory,
        &trace.encoder,
        &w.encoder,
        trace.decoder.is_some(),
    ) {
        if let Some(enc_g) = grads.encoder.as_mut() {
            let d_x0 = stack_backward(cfg, enc_w, enc_g, enc_t, dm, None, None);
            embed_backward(cfg, grads, enc_t, &d_x0);
        }
    }
    Ok((loss, count, trace.logits))
}

fn embed_backward(cfg: &ModelConfig, grads: &mut Weights, stack: &StackTrace, d_x0: &Array2<f32>) {
    let dropped;
    let d_x0 = match &stack.embed_dropout {
        Some(m) => {
            dropped = d_x0 * m;
            &dropped
        }
        None => d_x0,
    };
    for (t, (&id, row)) in stack.ids.iter().zip(d_x0.rows()).enumerate() {
        // `example_gradients` refused a frozen table before getting here.
        if let Some(table) = grads.tok_embed.as_f32_mut() {
            let mut e = table.row_mut(id as usize);
            e += &row;
        }
        if let (Positional::Learned, Some(p)) = (cfg.positional, grads.pos_embed.as_mut()) {
            let mut p = p.row_mut(t);
            p += &row;
        }
    }
}

/// Back through a stack; returns the gradient at its input (the embeddings).
fn stack_backward(
    cfg: &ModelConfig,
    w: &StackWeights,
    g: &mut StackWeights,
    t: &StackTrace,
    dy: Array2<f32>,
    memory: Option<ArrayView2<f32>>,
    mut d_memory: Option<&mut Array2<f32>>,
) -> Array2<f32> {
    let mut dx = dy;
    if let (Some(ln), Some(gl), Some(nt)) = (&w.ln_f, g.ln_f.as_mut(), &t.final_norm) {
        let input = t.blocks.last().map_or(&t.embed, |b| b.output());
        dx = layer_norm_backward(input.view(), nt, ln, gl, cfg.ln_eps, &dx);
    }
    let positions: Vec<usize> = (0..t.ids.len()).collect();
    for ((bw, bg), bt) in w
        .blocks
        .iter()
        .zip(g.blocks.iter_mut())
        .zip(&t.blocks)
        .rev()
    {
        // FFN
        let before_ffn = bt
            .cross_attn
            .as_ref()
            .map_or(&bt.self_attn.residual, |c| &c.residual);
        dx = sublayer_backward(
            cfg,
            before_ffn,
            &bt.ffn,
            &bt.ffn.inner.output,
            &bw.ln_ffn,
            &mut bg.ln_ffn,
            dx,
            |x, d| ffn_backward(&bw.ffn, &mut bg.ffn, &bt.ffn.inner, x, d, cfg.activation),
        );
        // Cross-attention
        if let (Some((ln, aw)), Some((lg, ag)), Some(ct), Some(mem)) =
            (&bw.cross, bg.cross.as_mut(), &bt.cross_attn, memory)
        {
            let dm = &mut d_memory;
            dx = sublayer_backward(
                cfg,
                &bt.self_attn.residual,
                ct,
                &ct.inner.out,
                ln,
                lg,
                dx,
                |x, d| {
                    let (dx, dmem) = attention_backward(
                        cfg,
                        aw,
                        ag,
                        &ct.inner,
                        x,
                        Some(mem),
                        d,
                        &positions,
                        true,
                    );
                    if let (Some(acc), Some(dmem)) = (dm.as_deref_mut(), dmem) {
                        *acc += &dmem;
                    }
                    dx
                },
            );
        }
        // Self-attention
        dx = sublayer_backward(
            cfg,
            &bt.input,
            &bt.self_attn,
            &bt.self_attn.inner.out,
            &bw.ln_attn,
            &mut bg.ln_attn,
            dx,
            |x, d| {
                attention_backward(
                    cfg,
                    &bw.self_attn,
                    &mut bg.self_attn,
                    &bt.self_attn.inner,
                    x,
                    None,
                    d,
                    &positions,
                    false,
                )
                .0
            },
        );
    }
    dx
}

/// Back through `x → x + f(LN(x))` (pre-norm) or `x → LN(x + f(x))` (post-norm).
/// `f_back(f_input, d_f_output)` returns the gradient at f's input.
#[allow(clippy::too_many_arguments)]
fn sublayer_backward<T>(
    cfg: &ModelConfig,
    x: &Array2<f32>,
    st: &SublayerTrace<T>,
    f_out: &Array2<f32>,
    ln: &LayerNormWeights,
    lg: &mut LayerNormWeights,
    d_r: Array2<f32>,
    f_back: impl FnOnce(ArrayView2<f32>, &Array2<f32>) -> Array2<f32>,
) -> Array2<f32> {
    // Through the dropout on f's output: the same multipliers scale the gradient.
    let undrop = |d: &Array2<f32>| match &st.dropout {
        Some(m) => d * m,
        None => d.clone(),
    };
    match cfg.norm {
        NormPlacement::Pre => {
            let d_f_in = f_back(st.norm.output.view(), &undrop(&d_r));
            let d_ln = layer_norm_backward(x.view(), &st.norm, ln, lg, cfg.ln_eps, &d_f_in);
            d_r + d_ln
        }
        NormPlacement::Post => {
            let s = match &st.dropout {
                Some(m) => x + &(f_out * m),
                None => x + f_out,
            };
            let d_s = layer_norm_backward(s.view(), &st.norm, ln, lg, cfg.ln_eps, &d_r);
            let d_f_in = f_back(x.view(), &undrop(&d_s));
            d_s + d_f_in
        }
    }
}

/// LayerNorm backward; adds dγ, dβ into `g`, returns dx.
fn layer_norm_backward(
    x: ArrayView2<f32>,
    t: &NormTrace,
    w: &LayerNormWeights,
    g: &mut LayerNormWeights,
    eps: f32,
    dy: &Array2<f32>,
) -> Array2<f32> {
    let inv_std = t.var.mapv(|v| 1.0 / (v + eps).sqrt());
    let x_hat = (&x - &t.mean.view().insert_axis(Axis(1))) * inv_std.view().insert_axis(Axis(1));
    g.gamma += &(dy * &x_hat).sum_axis(Axis(0));
    g.beta += &dy.sum_axis(Axis(0));
    let dx_hat = dy * &w.gamma;
    let d = x.ncols() as f32;
    let mean_dx_hat = dx_hat.sum_axis(Axis(1)) / d;
    let mean_dx_hat_x_hat = (&dx_hat * &x_hat).sum_axis(Axis(1)) / d;
    let mut dx = dx_hat
        - &mean_dx_hat.insert_axis(Axis(1))
        - &(x_hat * &mean_dx_hat_x_hat.insert_axis(Axis(1)));
    dx *= &inv_std.insert_axis(Axis(1));
    dx
}

/// d/dz of the activation.
fn activation_slope(z: f32, act: Activation) -> f32 {
    match act {
        Activation::Relu => {
            if z > 0.0 {
                1.0
            } else {
                0.0
            }
        }
        Activation::Gelu => {
            let z = z as f64;
            let cdf = 0.5 * (1.0 + libm::erf(z / std::f64::consts::SQRT_2));
            let pdf = (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt();
            (cdf + z * pdf) as f32
        }
        // d/dz ½z(1 + tanh u), u = √(2/π)(z + 0.044715z³):
        // ½(1 + tanh u) + ½z(1 − tanh²u)·√(2/π)(1 + 3·0.044715z²)
        Activation::GeluTanh => {
            let z = z as f64;
            let c = (2.0 / std::f64::consts::PI).sqrt();
            let t = (c * (z + 0.044_715 * z * z * z)).tanh();
            (0.5 * (1.0 + t) + 0.5 * z * (1.0 - t * t) * c * (1.0 + 3.0 * 0.044_715 * z * z)) as f32
        }
        // d/dz zσ(z) = σ(z)(1 + z(1 − σ(z)))
        Activation::Silu => {
            let sigma = 1.0 / (1.0 + (-z).exp());
            sigma * (1.0 + z * (1.0 - sigma))
        }
    }
}

fn ffn_backward(
    w: &FfnWeights,
    g: &mut FfnWeights,
    t: &FfnTrace,
    x: ArrayView2<f32>,
    d_out: &Array2<f32>,
    act: Activation,
) -> Array2<f32> {
    *g.w2.f32_mut() += &d_out.t().dot(&t.hidden);
    g.b2 += &d_out.sum_axis(Axis(0));
    let d_hidden = d_out.dot(&*w.w2.to_f32());
    let dz = &d_hidden * &t.pre_activation.mapv(|z| activation_slope(z, act));
    *g.w1.f32_mut() += &dz.t().dot(&x);
    g.b1 += &dz.sum_axis(Axis(0));
    dz.dot(&*w.w1.to_f32())
}

/// Back through one attention layer. Returns the gradient at its query input and, for
/// cross-attention, at the encoder memory.
#[allow(clippy::too_many_arguments)]
fn attention_backward(
    cfg: &ModelConfig,
    w: &AttentionWeights,
    g: &mut AttentionWeights,
    t: &AttentionTrace,
    x: ArrayView2<f32>,
    memory: Option<ArrayView2<f32>>,
    d_out: &Array2<f32>,
    positions: &[usize],
    cross: bool,
) -> (Array2<f32>, Option<Array2<f32>>) {
    let (heads, kv_heads, h) = (cfg.n_heads, cfg.n_kv_heads, cfg.d_head());
    let group = heads / kv_heads;
    // out = concat W_Oᵀ + b_O
    *g.w_o.f32_mut() += &d_out.t().dot(&t.concat);
    g.b_o += &d_out.sum_axis(Axis(0));
    let d_head_out = split_heads(d_out.dot(&*w.w_o.to_f32()).view(), heads, h);

    let (t_q, t_k) = (t.q.len_of(Axis(1)), t.k.len_of(Axis(1)));
    let mut dq = Array3::<f32>::zeros((heads, t_q, h));
    let mut dk = Array3::<f32>::zeros((kv_heads, t_k, h));
    let mut dv = Array3::<f32>::zeros((kv_heads, t_k, h));
    let divisor = score_divisor(cfg.scoring, h, 1.0);
    for head in 0..heads {
        let kvh = head / group;
        let a = t.weights.index_axis(Axis(0), head);
        let dho = d_head_out.index_axis(Axis(0), head);
        // head_out = (A ⊙ M) V, M the dropout multipliers (all ones without dropout)
        let mut d_a = dho.dot(&t.v.index_axis(Axis(0), kvh).t());
        let mut dv_g = dv.index_axis_mut(Axis(0), kvh);
        match &t.dropout {
            Some(m) => {
                let m = m.index_axis(Axis(0), head);
                dv_g += &(&a * &m).t().dot(&dho);
                d_a *= &m;
            }
            None => dv_g += &a.t().dot(&dho),
        }
        let d_logit = softmax_backward(a.view(), d_a.view());
        if let (Positional::Relative { max_distance }, Some(gr), false) =
            (cfg.positional, g.rel_bias.as_mut(), cross)
        {
            for ((i, j), &d) in d_logit.indexed_iter() {
                gr[[
                    head,
                    relative_index(positions[i], positions[j], max_distance),
                ]] += d;
            }
        }
        let d_s = d_logit / divisor;
        let q = t.q.index_axis(Axis(0), head);
        let k = t.k.index_axis(Axis(0), kvh);
        let (dq_h, dk_h) = score_backward(&w.score, &mut g.score, head, q, k, &d_s);
        dq.index_axis_mut(Axis(0), head).assign(&dq_h);
        let mut dk_g = dk.index_axis_mut(Axis(0), kvh);
        dk_g += &dk_h;
    }
    if let (Positional::Rope { base }, false) = (cfg.positional, cross) {
        for mut head in dq.outer_iter_mut() {
            rope_unrotate_in_place(head.view_mut(), positions, base);
        }
        for mut head in dk.outer_iter_mut() {
            rope_unrotate_in_place(head.view_mut(), positions, base);
        }
    }
    let (dq, dk, dv) = (merge_heads(&dq), merge_heads(&dk), merge_heads(&dv));
    match (&w.projection, &mut g.projection) {
        (
            Projection::Fused { w_qkv, .. },
            Projection::Fused {
                w_qkv: gw,
                b_qkv: gb,
            },
        ) => {
            let d_qkv = ndarray::concatenate(Axis(1), &[dq.view(), dk.view(), dv.view()])
                .unwrap_or_default();
            *gw.f32_mut() += &d_qkv.t().dot(&x);
            *gb += &d_qkv.sum_axis(Axis(0));
            (d_qkv.dot(&*w_qkv.to_f32()), None)
        }
        (
            Projection::Cross { w_q, w_kv, .. },
            Projection::Cross {
                w_q: gwq,
                b_q: gbq,
                w_kv: gwkv,
                b_kv: gbkv,
            },
        ) => {
            *gwq.f32_mut() += &dq.t().dot(&x);
            *gbq += &dq.sum_axis(Axis(0));
            let dx = dq.dot(&*w_q.to_f32());
            let d_kv = ndarray::concatenate(Axis(1), &[dk.view(), dv.view()]).unwrap_or_default();
            let d_memory = memory.map(|m| {
                *gwkv.f32_mut() += &d_kv.t().dot(&m);
                *gbkv += &d_kv.sum_axis(Axis(0));
                d_kv.dot(&*w_kv.to_f32())
            });
            (dx, d_memory)
        }
        _ => (Array2::zeros(x.raw_dim()), None),
    }
}

/// Back through the raw score function of one head: returns (dq, dk) and adds the score
/// parameters' gradients.
fn score_backward(
    w: &ScoreWeights,
    g: &mut ScoreWeights,
    head: usize,
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    d_s: &Array2<f32>,
) -> (Array2<f32>, Array2<f32>) {
    match (w, g) {
        (ScoreWeights::Dot, _) => (d_s.dot(&k), d_s.t().dot(&q)),
        (ScoreWeights::Bilinear { w }, ScoreWeights::Bilinear { w: gw }) => {
            // s = q W kᵀ
            let wh = w.index_axis(Axis(0), head);
            let mut gwh = gw.index_axis_mut(Axis(0), head);
            gwh += &q.t().dot(d_s).dot(&k);
            (d_s.dot(&k).dot(&wh.t()), d_s.t().dot(&q).dot(&wh))
        }
        (
            ScoreWeights::Additive { w, u, v },
            ScoreWeights::Additive {
                w: gw,
                u: gu,
                v: gv,
            },
        ) => {
            // s_ij = Σ_a v_a tanh(wq_ia + uk_ja), wq = q Wᵀ, uk = k Uᵀ
            let (wh, uh, vh) = (
                w.index_axis(Axis(0), head),
                u.index_axis(Axis(0), head),
                v.index_axis(Axis(0), head),
            );
            let wq = q.dot(&wh.t());
            let uk = k.dot(&uh.t());
            let da = vh.len();
            let mut d_wq = Array2::<f32>::zeros(wq.raw_dim());
            let mut d_uk = Array2::<f32>::zeros(uk.raw_dim());
            let mut d_v = Array1::<f32>::zeros(da);
            for ((i, j), &ds) in d_s.indexed_iter() {
                if ds == 0.0 {
                    continue;
                }
                for a in 0..da {
                    let th = (wq[[i, a]] + uk[[j, a]]).tanh();
                    d_v[a] += ds * th;
                    let d_pre = ds * vh[a] * (1.0 - th * th);
                    d_wq[[i, a]] += d_pre;
                    d_uk[[j, a]] += d_pre;
                }
            }
            let mut g_w = gw.index_axis_mut(Axis(0), head);
            g_w += &d_wq.t().dot(&q);
            let mut g_u = gu.index_axis_mut(Axis(0), head);
            g_u += &d_uk.t().dot(&k);
            let mut g_v = gv.index_axis_mut(Axis(0), head);
            g_v += &d_v;
            (d_wq.dot(&wh), d_uk.dot(&uh))
        }
        _ => (Array2::zeros(q.raw_dim()), Array2::zeros(k.raw_dim())),
    }
}
