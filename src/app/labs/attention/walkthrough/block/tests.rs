use super::*;
use crate::app::labs::attention::walkthrough::test_models::{max_diff as gap, real, shipped};
use crate::model::trace::SublayerTrace;
use crate::model::ForwardOptions;
use ndarray::Axis;

fn step<'a>(steps: &'a [Step], title: &str) -> &'a Step {
    steps
        .iter()
        .find(|s| s.title == title)
        .unwrap_or_else(|| panic!("no step {title}"))
}

fn matrix<'a>(steps: &'a [Step], title: &str, panel: &str) -> ArrayView2<'a, f32> {
    step(steps, title)
        .panels
        .iter()
        .find(|p| p.name == panel)
        .unwrap_or_else(|| panic!("no panel {panel} in {title}"))
        .matrix
        .view()
}

/// A normalisation step's statistics and result are the trace's.
fn assert_norm(steps: &[Step], title: &str, norm: &crate::model::layers::NormTrace, ctx: &str) {
    let stats = matrix(steps, title, "statistics");
    let last = stats.ncols() - 1;
    if stats.ncols() == 2 {
        let mean = norm.mean.view().insert_axis(Axis(1));
        assert!(
            gap(stats.slice(ndarray::s![.., 0..1]), mean) < 1e-4,
            "μ {title} {ctx}"
        );
    }
    let var = norm.var.view().insert_axis(Axis(1));
    assert!(
        gap(stats.slice(ndarray::s![.., last..]), var) < 1e-3,
        "σ² {title} {ctx}"
    );
    assert!(
        gap(matrix(steps, title, "y"), norm.output.view()) < 1e-4,
        "y {title} {ctx}"
    );
}

/// Every step after W_O, recomputed with plain loops, lands on the forward pass's trace:
/// both residual adds, both norms, the FFN's hidden layer and output, the final norm, the
/// shown logits and their softmax over the whole vocabulary; a tied output matrix is the
/// embedding's own rows.
fn assert_after_attention_equals_trace(model: &Model, trace: &Trace) {
    let pre = model.config.norm == NormPlacement::Pre;
    for kind in trace.attention_kinds() {
        for layer in 0..trace.layers(kind) {
            let sel = Selection {
                kind,
                layer,
                head: 0,
                query: 0,
            };
            let ctx = format!("{} {kind:?} layer {layer}", model.config.name);
            let attn_out = &trace.attention(kind, layer).unwrap().out;
            let steps = after_attention(model, trace, &sel, attn_out).unwrap();
            let stack = if kind == AttentionKind::EncoderSelf {
                trace.encoder.as_ref().unwrap()
            } else {
                trace.decoder.as_ref().unwrap()
            };
            let b = &stack.blocks[layer];
            let sub: &SublayerTrace<_> = if kind == AttentionKind::Cross {
                b.cross_attn.as_ref().unwrap()
            } else {
                &b.self_attn
            };
            if pre {
                let sum = matrix(&steps, "x + attn", "x + attn");
                assert!(gap(sum, sub.residual.view()) < 1e-4, "x + attn {ctx}");
                assert_norm(&steps, "norm₂", &b.ffn.norm, &ctx);
                let out = matrix(&steps, "x + FFN", "x + FFN");
                assert!(gap(out, b.output().view()) < 1e-4, "x + FFN {ctx}");
            } else {
                assert_norm(&steps, "norm₁", &sub.norm, &ctx);
                assert_norm(&steps, "norm₂", &b.ffn.norm, &ctx);
                assert!(gap(matrix(&steps, "norm₂", "y"), b.output().view()) < 1e-4);
            }
            let ffn = &b.ffn.inner;
            assert!(
                gap(matrix(&steps, "FFN", "hidden h"), ffn.hidden.view()) < 1e-4,
                "h {ctx}"
            );
            // The last layers' FFN outputs reach thousands (SmolLM2's layer 29: 5,385), where
            // one f32 step is 5e-4: there the bound is a millionth of the largest value.
            let largest = ffn.output.iter().fold(0f32, |m, v| m.max(v.abs()));
            assert!(
                gap(matrix(&steps, "FFN", "FFN(x)"), ffn.output.view())
                    < 1e-4f32.max(1e-6 * largest),
                "FFN {ctx}"
            );
            if let Some(n) = &stack.final_norm {
                assert_norm(&steps, "final norm", n, &ctx);
            }
            let to_vocab = kind != AttentionKind::EncoderSelf || !model.config.family.has_decoder();
            if !to_vocab || trace.logits.ncols() == 0 {
                let last = steps.last().unwrap();
                assert!(["memory", "output"].contains(&last.title), "{ctx}");
                assert!(gap(last.panels[0].matrix.view(), stack.output.view()) < 1e-4);
                continue;
            }
            let words = shown_words(trace.logits.view());
            assert!(
                words.len() >= SHOWN_WORDS.min(trace.logits.ncols()),
                "{ctx}"
            );
            let logits = matrix(&steps, "logits", "logits");
            let p = matrix(&steps, "softmax (vocab)", "p");
            for t in 0..trace.logits.nrows() {
                let full = crate::model::softmax::softmax(&trace.logits.row(t).to_vec());
                for (c, &w) in words.iter().enumerate() {
                    let want = trace.logits[[t, w]];
                    assert!(
                        (logits[[t, c]] - want).abs() < 1e-3 * (1.0 + want.abs()),
                        "logit {ctx}"
                    );
                    // The model sums a row's exponentials in f32 (49,152 terms for
                    // SmolLM2), this step in f64: they agree to 10⁻⁴ relative.
                    assert!(
                        (p[[t, c]] - full[w]).abs() <= 1e-4 * full[w] + 1e-7,
                        "p {ctx}"
                    );
                }
                // Each row's winner is shown.
                let best = crate::util::argmax(trace.logits.row(t).iter().copied())
                    .unwrap()
                    .0;
                assert!(words.contains(&best), "{ctx}");
            }
            if model.weights.lm_head.is_none() {
                let e = step(&steps, "logits")
                    .panels
                    .iter()
                    .find(|p| p.name.starts_with("W_vocab = E"))
                    .expect("a tied model shows the embedding rows");
                for (c, &w) in words.iter().enumerate() {
                    assert_eq!(e.matrix.row(c), model.weights.tok_embed.row(w), "{ctx}");
                }
            }
        }
    }
}

#[test]
fn the_steps_after_w_o_equal_the_trace_on_shipped_models() {
    for (model, trace) in shipped(1.0) {
        assert_after_attention_equals_trace(&model, &trace);
    }
}

/// BERT (post-norm, no output layer) and a Llama (RMSNorm, SwiGLU, tied output) read from
/// their real files.
#[test]
fn the_steps_after_w_o_equal_the_trace_on_real_models() {
    for (model, trace) in real() {
        assert_after_attention_equals_trace(&model, &trace);
    }
}

/// A post-norm model's walk has both norms and no final norm; a pre-norm model's has the
/// FFN's norm and the final one, and says when its output matrix is the embedding.
#[test]
fn the_walk_follows_the_models_norm_placement_and_tying() {
    use crate::model::config::tests::small;
    use crate::model::config::{Family, Positional};
    for (norm, tie) in [(NormPlacement::Pre, true), (NormPlacement::Post, false)] {
        let mut cfg = small(Family::Decoder, Positional::None);
        cfg.norm = norm;
        cfg.tie_embeddings = tie;
        let model = Model::random(cfg, 3).unwrap();
        let prepared = model.prepare("", "abca");
        let trace = model
            .forward(&prepared.input, &ForwardOptions::default())
            .unwrap();
        assert_after_attention_equals_trace(&model, &trace);
        let sel = Selection {
            kind: AttentionKind::DecoderSelf,
            layer: 0,
            head: 0,
            query: 0,
        };
        let out = &trace.attention(sel.kind, 0).unwrap().out;
        let steps = after_attention(&model, &trace, &sel, out).unwrap();
        let titles: Vec<&str> = steps.iter().map(|s| s.title).collect();
        let logits = step(&steps, "logits");
        if norm == NormPlacement::Pre {
            assert!(
                titles.contains(&"final norm") && !titles.contains(&"norm₁"),
                "{titles:?}"
            );
            assert!(logits.explain.contains("tied"), "{}", logits.explain);
        } else {
            assert!(
                titles.contains(&"norm₁") && !titles.contains(&"final norm"),
                "{titles:?}"
            );
            assert!(logits.explain.contains("not tied"), "{}", logits.explain);
        }
    }
}
