//! Building the walkthrough's chain of steps for one head, from X to the output projection.

use super::inputs::{layer_inputs, layer_weights, matmul_t, project};
use super::{Chain, Panel, Step};
use crate::app::labs::attention::Selection;
use crate::model::attention::AttentionTrace;
use crate::model::config::{NormPlacement, Positional, Scoring};
use crate::model::position::rope_rotate_in_place;
use crate::model::softmax::masked_softmax;
use crate::model::weights::Projection;
use crate::model::{AttentionKind, Model, Trace};
use crate::t;
use ndarray::{s, Array2, Axis};

pub(super) fn numbered(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

/// Build the walkthrough of `sel` from the model's weights and the trace of its forward pass
/// (run with temperature `temperature`).
pub fn build(model: &Model, trace: &Trace, sel: &Selection, temperature: f32) -> Option<Chain> {
    let attn: &AttentionTrace = trace.attention(sel.kind, sel.layer)?;
    let w = layer_weights(model, sel)?;
    let (xq, xkv) = layer_inputs(model, trace, sel)?;
    let cfg = &model.config;
    let (heads, kv_heads, h) = (cfg.n_heads, cfg.n_kv_heads, cfg.d_head());
    let (head, kvh) = (sel.head, sel.head / (heads / kv_heads));
    let qt = attn.query_tokens.clone();
    let kt = attn.key_tokens.clone();
    let (t_q, t_k) = (qt.len(), kt.len());
    let panel = |name: &str,
                 m: Array2<f32>,
                 rows: &[String],
                 cols: Vec<String>,
                 signed: bool,
                 query_rows: bool| Panel {
        name: name.to_string(),
        matrix: m,
        rows: rows.to_vec(),
        cols,
        signed,
        mask: None,
        query_rows,
    };

    // 1. Projections of this head.
    let (mut q, mut k, v) = match &w.projection {
        Projection::Fused { w_qkv, b_qkv } => {
            let (qo, ko, vo) = (
                head * h,
                heads * h + kvh * h,
                (heads + kv_heads) * h + kvh * h,
            );
            (
                project(xq, w_qkv, b_qkv, qo..qo + h),
                project(xkv, w_qkv, b_qkv, ko..ko + h),
                project(xkv, w_qkv, b_qkv, vo..vo + h),
            )
        }
        Projection::Cross {
            w_q,
            b_q,
            w_kv,
            b_kv,
        } => {
            let (ko, vo) = (kvh * h, kv_heads * h + kvh * h);
            (
                project(xq, w_q, b_q, head * h..head * h + h),
                project(xkv, w_kv, b_kv, ko..ko + h),
                project(xkv, w_kv, b_kv, vo..vo + h),
            )
        }
    };
    let rope = match (cfg.positional, sel.kind) {
        (Positional::Rope { base }, AttentionKind::EncoderSelf | AttentionKind::DecoderSelf) => {
            let pos: Vec<usize> = (0..t_q).collect();
            rope_rotate_in_place(q.view_mut(), &pos, base);
            rope_rotate_in_place(k.view_mut(), &pos, base);
            true
        }
        _ => false,
    };
    let dims = numbered("", h);
    let mut steps = vec![Step {
        title: "X",
        formula: format!("X: {t_q} × {}", cfg.d_model),
        explain: if sel.kind == AttentionKind::Cross {
            t!("attention-walk-x-explain-cross")
        } else if cfg.norm == NormPlacement::Pre {
            t!("attention-walk-x-explain-pre")
        } else {
            t!("attention-walk-x-explain-post")
        },
        panels: vec![panel(
            "X",
            xq.to_owned(),
            &qt,
            numbered("", cfg.d_model),
            true,
            true,
        )],
    }];
    steps.push(Step {
        title: "Q K V",
        formula: if rope {
            t!("attention-walk-qkv-formula-rope", width = h)
        } else {
            t!("attention-walk-qkv-formula", width = h)
        },
        explain: t!("attention-walk-qkv-explain", head = head, width = h),
        panels: vec![
            panel("Q", q.clone(), &qt, dims.clone(), true, true),
            panel("K", k.clone(), &kt, dims.clone(), true, false),
            panel("V", v.clone(), &kt, dims.clone(), true, false),
        ],
    });

    // 2. Scores, scaling, mask, softmax.
    let scores = match cfg.scoring {
        Scoring::ScaledDot => matmul_t(q.view(), k.view()),
        // Other scorings have their own formula; show the model's raw scores.
        _ => attn.scores.index_axis(Axis(0), head).to_owned(),
    };
    let (score_title, score_formula, score_explain) = score_step(cfg.scoring);
    steps.push(Step {
        title: score_title,
        formula: format!("{score_formula}: {t_q} × {t_k}"),
        explain: score_explain,
        panels: vec![panel(
            score_formula,
            scores.clone(),
            &qt,
            kt.clone(),
            true,
            true,
        )],
    });
    let divisor = crate::model::attention::score_divisor(cfg.scoring, h, temperature);
    let scaled = scores.mapv(|x| x / divisor);
    let scaled_by_root_dk = cfg.scoring == Scoring::ScaledDot;
    steps.push(Step {
        title: scale_step_title(cfg.scoring),
        formula: match (scaled_by_root_dk, temperature == 1.0) {
            (true, true) => format!("S / √d_k = S / √{h} = S / {divisor:.3}"),
            (true, false) => {
                format!("S / (√d_k · τ) = S / (√{h} · {temperature:.2}) = S / {divisor:.3}")
            }
            (false, _) => format!("S / τ = S / {divisor:.3}"),
        },
        explain: if scaled_by_root_dk {
            t!("attention-walk-scale-explain")
        } else {
            t!("attention-walk-scale-explain-tau")
        },
        panels: vec![panel(
            if scaled_by_root_dk {
                "S / √d_k"
            } else {
                "S / τ"
            },
            scaled.clone(),
            &qt,
            kt.clone(),
            true,
            true,
        )],
    });
    let bias = attn
        .bias
        .as_ref()
        .map(|b| b.index_axis(Axis(0), head).to_owned());
    let mut logits = match &bias {
        Some(b) => &scaled + b,
        None => scaled.clone(),
    };
    logits.zip_mut_with(&attn.mask, |x, &ok| {
        if !ok {
            *x = f32::NEG_INFINITY;
        }
    });
    let mut mask_panels = Vec::new();
    if let Some(b) = bias {
        mask_panels.push(panel(
            &t!("attention-walk-panel-bias"),
            b,
            &qt,
            kt.clone(),
            true,
            true,
        ));
    }
    mask_panels.push(Panel {
        mask: Some(attn.mask.clone()),
        ..panel(
            &t!("attention-walk-panel-mask"),
            logits.clone(),
            &qt,
            kt.clone(),
            true,
            true,
        )
    });
    let masked = attn.mask.iter().filter(|&&ok| !ok).count();
    steps.push(Step {
        title: "+ mask",
        formula: t!(
            "attention-walk-mask-formula",
            scaled = if scaled_by_root_dk {
                "S/√d_k"
            } else {
                "S/τ"
            }
        ),
        explain: t!(
            "attention-walk-mask-explain",
            masked = masked,
            cells = t_q * t_k,
            why = match sel.kind {
                AttentionKind::DecoderSelf => t!("attention-walk-mask-causal"),
                AttentionKind::Cross => t!("attention-walk-mask-cross"),
                AttentionKind::EncoderSelf => t!("attention-walk-mask-encoder"),
            }
        ),
        panels: mask_panels,
    });
    let weights = masked_softmax(logits.view(), attn.mask.view());
    steps.push(Step {
        title: "softmax",
        formula: t!("attention-walk-softmax-formula"),
        explain: t!("attention-walk-softmax-explain"),
        panels: vec![Panel {
            mask: Some(attn.mask.clone()),
            ..panel("A", weights.clone(), &qt, kt.clone(), false, true)
        }],
    });

    // 3. Mixing values, concatenating heads, output projection.
    let head_out = weights.dot(&v);
    steps.push(Step {
        title: "A·V",
        formula: format!("O = A V: {t_q} × {h}"),
        explain: t!("attention-walk-av-explain"),
        panels: vec![
            Panel {
                mask: Some(attn.mask.clone()),
                ..panel("A", weights.clone(), &qt, kt.clone(), false, true)
            },
            panel("V", v.clone(), &kt, dims.clone(), true, false),
            panel("O = AV", head_out.clone(), &qt, dims.clone(), true, true),
        ],
    });
    let mut concat = attn.concat.clone();
    concat
        .slice_mut(s![.., head * h..(head + 1) * h])
        .assign(&head_out);
    let concat_cols: Vec<String> = (0..heads * h)
        .map(|c| format!("h{}·{}", c / h, c % h))
        .collect();
    steps.push(Step {
        title: "concat",
        formula: format!("[O₀ | O₁ | … | O_{}]: {t_q} × {}", heads - 1, heads * h),
        explain: t!("attention-walk-concat-explain", heads = heads, head = head),
        panels: vec![panel(
            "concat",
            concat.clone(),
            &qt,
            concat_cols,
            true,
            true,
        )],
    });
    let out = project(concat.view(), &w.w_o, &w.b_o, 0..cfg.d_model);
    steps.push(Step {
        title: "W_O",
        formula: format!("concat W_Oᵀ + b_O: {t_q} × {}", cfg.d_model),
        explain: t!("attention-walk-wo-explain"),
        panels: vec![panel(
            &t!("attention-walk-panel-output"),
            out.clone(),
            &qt,
            numbered("", cfg.d_model),
            true,
            true,
        )],
    });
    steps.extend(super::block::after_attention(model, trace, sel, &out).unwrap_or_default());
    Some(Chain {
        steps,
        weights,
        values: v,
        head_out,
        key_tokens: kt,
        query_tokens: qt,
    })
}

/// The score step's title, formula and explanation for each way of scoring.
fn score_step(scoring: Scoring) -> (&'static str, &'static str, String) {
    match scoring {
        Scoring::ScaledDot => ("QKᵀ", "S = QKᵀ", t!("attention-walk-score-dot")),
        Scoring::Additive => (
            "vᵀtanh(Wq+Uk)",
            "S = vᵀ tanh(W q + U k)",
            t!("attention-walk-score-additive"),
        ),
        Scoring::Bilinear => ("QWKᵀ", "S = Q W Kᵀ", t!("attention-walk-score-bilinear")),
    }
}

/// The scaling step's title: only scaled dot-product divides by √d_k.
fn scale_step_title(scoring: Scoring) -> &'static str {
    match scoring {
        Scoring::ScaledDot => "÷√d_k",
        Scoring::Additive | Scoring::Bilinear => "÷τ",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::labs::attention::walkthrough::test_models::{max_diff, real, shipped};
    use crate::model::ForwardOptions;

    /// Every step of every head's walkthrough, recomputed from the model's weights, equals
    /// what the model's forward pass recorded.
    fn assert_chain_equals_trace(model: &Model, trace: &Trace, temperature: f32) {
        for kind in trace.attention_kinds() {
            for layer in 0..trace.layers(kind) {
                let attn = trace.attention(kind, layer).unwrap();
                for head in 0..model.config.n_heads {
                    let sel = Selection {
                        kind,
                        layer,
                        head,
                        query: 0,
                    };
                    let c = build(model, trace, &sel, temperature).unwrap();
                    let at = |title: &str, i: usize| {
                        c.steps.iter().find(|s| s.title == title).unwrap().panels[i]
                            .matrix
                            .view()
                    };
                    let ctx = format!("{} {sel:?} τ={temperature}", model.config.name);
                    let hv = |a: &ndarray::Array3<f32>, i| a.index_axis(Axis(0), i).to_owned();
                    let kvh = head / (model.config.n_heads / model.config.n_kv_heads);
                    assert!(
                        max_diff(at("Q K V", 0), hv(&attn.q, head).view()) < 1e-4,
                        "Q {ctx}"
                    );
                    assert!(
                        max_diff(at("Q K V", 1), hv(&attn.k, kvh).view()) < 1e-4,
                        "K {ctx}"
                    );
                    assert!(
                        max_diff(at("Q K V", 2), hv(&attn.v, kvh).view()) < 1e-4,
                        "V {ctx}"
                    );
                    assert!(
                        max_diff(
                            at(score_step(model.config.scoring).0, 0),
                            hv(&attn.scores, head).view()
                        ) < 1e-4,
                        "S {ctx}"
                    );
                    assert!(
                        max_diff(
                            at(scale_step_title(model.config.scoring), 0),
                            hv(&attn.scaled, head).view()
                        ) < 1e-4,
                        "scaled {ctx}"
                    );
                    let masked = c
                        .steps
                        .iter()
                        .find(|s| s.title == "+ mask")
                        .unwrap()
                        .panels
                        .last()
                        .unwrap();
                    assert!(
                        max_diff(masked.matrix.view(), hv(&attn.logits, head).view()) < 1e-4,
                        "logits {ctx}"
                    );
                    assert!(
                        max_diff(at("softmax", 0), hv(&attn.weights, head).view()) < 1e-5,
                        "A {ctx}"
                    );
                    assert!(
                        max_diff(at("A·V", 2), hv(&attn.head_out, head).view()) < 1e-4,
                        "O {ctx}"
                    );
                    assert!(
                        max_diff(at("concat", 0), attn.concat.view()) < 1e-4,
                        "concat {ctx}"
                    );
                    assert!(max_diff(at("W_O", 0), attn.out.view()) < 1e-4, "out {ctx}");
                }
            }
        }
    }

    /// ... for every head of every layer and attention kind of every shipped model.
    #[test]
    fn walkthrough_numbers_equal_the_trace() {
        for temperature in [1.0, 0.5] {
            for (model, trace) in shipped(temperature) {
                assert_chain_equals_trace(&model, &trace, temperature);
            }
        }
    }

    /// The same on real checkpoints: BERT (post-norm, learned positions, token types) and a
    /// Llama (RMSNorm, rotate-half RoPE, grouped-query attention) from its GGUF file.
    #[test]
    fn walkthrough_numbers_equal_the_trace_on_real_models() {
        for (model, trace) in real() {
            assert_chain_equals_trace(&model, &trace, 1.0);
        }
    }

    /// Additive and bilinear scores are divided by τ only: no step may speak of √d_k.
    #[test]
    fn only_scaled_dot_product_divides_by_root_dk() {
        use crate::model::config::tests::small;
        use crate::model::config::Family;
        for scoring in [Scoring::Additive, Scoring::Bilinear] {
            let mut cfg = small(Family::Decoder, Positional::None);
            cfg.scoring = scoring;
            let model = Model::random(cfg, 7).unwrap();
            let prepared = model.prepare("", "abca");
            let trace = model
                .forward(&prepared.input, &ForwardOptions::default())
                .unwrap();
            let sel = Selection {
                kind: AttentionKind::DecoderSelf,
                layer: 0,
                head: 0,
                query: 0,
            };
            let c = build(&model, &trace, &sel, 1.0).unwrap();
            // The attention's steps (the block after W_O has LayerNorm's √(σ² + ε)).
            let w_o = c.steps.iter().position(|s| s.title == "W_O").unwrap();
            for step in &c.steps[..=w_o] {
                assert!(!step.title.contains('√'), "{scoring:?}: {}", step.title);
                assert!(!step.formula.contains('√'), "{scoring:?}: {}", step.formula);
                assert!(
                    !step.explain.contains("dot product"),
                    "{scoring:?}: {}",
                    step.explain
                );
            }
            let scale = c.steps.iter().find(|s| s.title == "÷τ").unwrap();
            let attn = trace.attention(sel.kind, 0).unwrap();
            let scaled = attn.scaled.index_axis(Axis(0), 0);
            assert!(max_diff(scale.panels[0].matrix.view(), scaled) < 1e-5);
        }
    }
}
