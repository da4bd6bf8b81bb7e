//! The walkthrough after W_O: the rest of the block (residual adds, LayerNorms, the
//! feed-forward layer), then what the stack's output becomes: logits over the vocabulary and
//! their softmax (`output.rs`), with the output matrix shown as the embedding's own rows when it
//! is tied. Each step is recomputed here from the step before it and the weights (the products
//! through the model's own kernels), so a test can hold it against the forward pass's trace.

mod output;

use super::chain::numbered;
use super::inputs::project;
use super::{Panel, Step};
use crate::app::labs::attention::Selection;
use crate::model::config::{Activation, NormKind, NormPlacement};
use crate::model::layers::{activate, LayerNormWeights};
use crate::model::trace::{BlockTrace, StackTrace};
use crate::model::weights::{BlockWeights, StackWeights};
use crate::model::{AttentionKind, Model, Trace};
use crate::t;
use ndarray::{Array2, ArrayView2};
#[cfg(test)]
use output::{shown_words, SHOWN_WORDS};

fn panel(name: &str, matrix: Array2<f32>, rows: &[String], cols: Vec<String>) -> Panel {
    Panel {
        name: name.to_string(),
        matrix,
        rows: rows.to_vec(),
        cols,
        signed: true,
        mask: None,
        query_rows: true,
    }
}

/// `a + b`, entry by entry: a residual connection.
fn add(a: ArrayView2<f32>, b: ArrayView2<f32>) -> Array2<f32> {
    Array2::from_shape_fn(a.dim(), |(i, j)| a[[i, j]] + b[[i, j]])
}

/// One normalisation, every row on its own: its statistics, the normalised rows and the
/// result after γ and β.
pub(super) struct Normed {
    /// `[T, 2]`: μ and σ² of each row (LayerNorm), or `[T, 1]`: mean(x²) (RMSNorm).
    pub stats: Array2<f32>,
    pub normalised: Array2<f32>,
    pub output: Array2<f32>,
}

/// LayerNorm `z = (x − μ)/√(σ² + ε)`, `y = z·γ + β`, σ² the biased variance; or RMSNorm
/// `z = x/√(mean(x²) + ε)`, `y = z·γ`. (z, not x̂: the app's font has no combining hat.)
pub(super) fn normalise(
    x: ArrayView2<f32>,
    w: &LayerNormWeights,
    kind: NormKind,
    eps: f32,
) -> Normed {
    let (t, d) = x.dim();
    let centre = kind == NormKind::LayerNorm;
    let mut stats = Array2::zeros((t, if centre { 2 } else { 1 }));
    let mut normalised = Array2::zeros((t, d));
    for i in 0..t {
        let row = x.row(i);
        let mu = if centre {
            row.iter().sum::<f32>() / d as f32
        } else {
            0.0
        };
        let spread = row.iter().map(|v| (v - mu) * (v - mu)).sum::<f32>() / d as f32;
        if centre {
            stats[[i, 0]] = mu;
            stats[[i, 1]] = spread;
        } else {
            stats[[i, 0]] = spread;
        }
        let inv = 1.0 / (spread + eps).sqrt();
        for j in 0..d {
            normalised[[i, j]] = (row[j] - mu) * inv;
        }
    }
    let output = Array2::from_shape_fn((t, d), |(i, j)| {
        normalised[[i, j]] * w.gamma[j] + if centre { w.beta[j] } else { 0.0 }
    });
    Normed {
        stats,
        normalised,
        output,
    }
}

/// What a step needs to know about the model and where in it the selection is.
struct Place<'a> {
    model: &'a Model,
    stack: &'a StackTrace,
    block: &'a BlockTrace,
    weights: &'a BlockWeights,
    stack_weights: &'a StackWeights,
    tokens: &'a [String],
    sel: &'a Selection,
}

impl Place<'_> {
    fn norm_name(&self) -> &'static str {
        match self.model.config.extensions.norm_kind {
            NormKind::LayerNorm => "LayerNorm",
            NormKind::RmsNorm => "RMSNorm",
        }
    }

    /// The normalisation step of `x` with weights `w`.
    fn norm_step(
        &self,
        title: &'static str,
        what: &str,
        x: ArrayView2<f32>,
        w: &LayerNormWeights,
    ) -> (Step, Array2<f32>) {
        let cfg = &self.model.config;
        let kind = cfg.extensions.norm_kind;
        let n = normalise(x, w, kind, cfg.ln_eps);
        let d = cfg.d_model;
        let (formula, stats_cols, explain) = match kind {
            NormKind::LayerNorm => (
                format!(
                    "{what}: z = (x − μ) / √(σ² + ε), y = z·γ + β, ε = {:e}",
                    cfg.ln_eps
                ),
                vec!["μ".to_string(), "σ²".to_string()],
                t!("attention-walk-layernorm-explain"),
            ),
            NormKind::RmsNorm => (
                format!(
                    "{what}: z = x / √(mean(x²) + ε), y = z·γ, ε = {:e}",
                    cfg.ln_eps
                ),
                vec!["mean(x²)".to_string()],
                t!("attention-walk-rmsnorm-explain"),
            ),
        };
        let mut gamma_beta = Array2::zeros((2, d));
        gamma_beta.row_mut(0).assign(&w.gamma);
        gamma_beta.row_mut(1).assign(&w.beta);
        let gb_rows = vec!["γ".to_string(), "β".to_string()];
        let output = n.output.clone();
        let step = Step {
            title,
            formula,
            explain,
            panels: vec![
                panel(
                    &t!("attention-walk-panel-statistics"),
                    n.stats,
                    self.tokens,
                    stats_cols,
                ),
                panel("z", n.normalised, self.tokens, numbered("", d)),
                Panel {
                    query_rows: false,
                    ..panel("γ, β", gamma_beta, &gb_rows, numbered("", d))
                },
                panel("y", n.output, self.tokens, numbered("", d)),
            ],
        };
        (step, output)
    }

    /// The feed-forward layer on `x`: its hidden layer and its output.
    fn ffn_step(&self, x: ArrayView2<f32>) -> (Step, Array2<f32>) {
        let cfg = &self.model.config;
        let w = &self.weights.ffn;
        let (d, ff) = (cfg.d_model, w.w1.rows());
        let act = cfg.activation;
        let act_name = match act {
            Activation::Relu => "ReLU",
            Activation::Gelu => "GELU",
            Activation::GeluTanh => "GELU (tanh)",
            Activation::Silu => "SiLU",
        };
        let first = project(x, &w.w1, &w.b1, 0..ff);
        let mut panels = Vec::new();
        let hidden = match &w.gate {
            None => {
                let hidden = first.mapv(|z| activate(z, act));
                panels.push(panel("x W₁ᵀ + b₁", first, self.tokens, numbered("", ff)));
                hidden
            }
            Some((wg, bg)) => {
                let gate = project(x, wg, bg, 0..ff);
                let hidden = Array2::from_shape_fn(first.dim(), |(i, j)| {
                    activate(gate[[i, j]], act) * first[[i, j]]
                });
                panels.push(panel(
                    &t!("attention-walk-panel-gate"),
                    gate,
                    self.tokens,
                    numbered("", ff),
                ));
                panels.push(panel(
                    &t!("attention-walk-panel-up"),
                    first,
                    self.tokens,
                    numbered("", ff),
                ));
                hidden
            }
        };
        let out = project(hidden.view(), &w.w2, &w.b2, 0..d);
        let alive = hidden.iter().filter(|v| **v > 0.0).count() as f32 / hidden.len() as f32;
        panels.push(panel(
            &t!("attention-walk-panel-hidden"),
            hidden,
            self.tokens,
            numbered("", ff),
        ));
        panels.push(panel("FFN(x)", out.clone(), self.tokens, numbered("", d)));
        let formula = match w.gate {
            None => format!("FFN(x) = {act_name}(x W₁ᵀ + b₁) W₂ᵀ + b₂: {d} → d_ff = {ff} → {d}"),
            Some(_) => t!(
                "attention-walk-ffn-formula-gated",
                act = act_name,
                d = d,
                ff = ff
            ),
        };
        let step = Step {
            title: "FFN",
            formula,
            explain: t!(
                "attention-walk-ffn-explain",
                ff = ff,
                ratio = format!("{:.1}", ff as f32 / d as f32),
                positive = format!("{:.0}", alive * 100.0)
            ),
            panels,
        };
        (step, out)
    }

    /// A residual add: the stream before a sub-layer plus what the sub-layer computed.
    fn add_step(
        &self,
        title: &'static str,
        stream: ArrayView2<f32>,
        out: ArrayView2<f32>,
        what: &str,
        explain: String,
    ) -> (Step, Array2<f32>) {
        let sum = add(stream, out);
        let d = numbered("", self.model.config.d_model);
        let step = Step {
            title,
            formula: format!("x + {what}: {} × {}", sum.nrows(), sum.ncols()),
            explain,
            panels: vec![
                panel(
                    &t!("attention-walk-panel-stream"),
                    stream.to_owned(),
                    self.tokens,
                    d.clone(),
                ),
                panel(what, out.to_owned(), self.tokens, d.clone()),
                panel(&format!("x + {what}"), sum.clone(), self.tokens, d),
            ],
        };
        (step, sum)
    }
}

/// The steps that follow the selected attention's output projection `attn_out`.
pub(super) fn after_attention(
    model: &Model,
    trace: &Trace,
    sel: &Selection,
    attn_out: &Array2<f32>,
) -> Option<Vec<Step>> {
    let encoder = sel.kind == AttentionKind::EncoderSelf;
    let (stack, stack_weights) = if encoder {
        (trace.encoder.as_ref()?, model.weights.encoder.as_ref()?)
    } else {
        (trace.decoder.as_ref()?, model.weights.decoder.as_ref()?)
    };
    let p = Place {
        model,
        stack,
        block: stack.blocks.get(sel.layer)?,
        weights: stack_weights.blocks.get(sel.layer)?,
        stack_weights,
        tokens: &stack.tokens,
        sel,
    };
    let mut steps = p.rest_of_block(attn_out)?;
    steps.extend(p.after_the_stack(trace, encoder));
    Some(steps)
}

impl Place<'_> {
    fn rest_of_block(&self, attn_out: &Array2<f32>) -> Option<Vec<Step>> {
        let pre = self.model.config.norm == NormPlacement::Pre;
        let cross = self.sel.kind == AttentionKind::Cross;
        let b = self.block;
        let mut steps = Vec::new();
        // The stream this sub-layer reads and adds to.
        let stream_in = if cross {
            b.self_attn.residual.view()
        } else {
            b.input.view()
        };
        let add_explain = if pre {
            t!("attention-walk-residual-pre")
        } else {
            t!("attention-walk-residual-post")
        };
        let (add, mut stream) =
            self.add_step("x + attn", stream_in, attn_out.view(), "attn", add_explain);
        steps.push(add);
        if !pre {
            let ln = if cross {
                &self.weights.cross.as_ref()?.0
            } else {
                &self.weights.ln_attn
            };
            let (step, y) = self.norm_step(
                "norm₁",
                &t!(
                    "attention-walk-norm-after-attention",
                    norm = self.norm_name()
                ),
                stream.view(),
                ln,
            );
            steps.push(step);
            stream = y;
        }
        // Self-attention in a decoder with cross-attention: the cross sub-layer comes next.
        if let (false, Some(c)) = (cross, &b.cross_attn) {
            let d = numbered("", self.model.config.d_model);
            steps.push(Step {
                title: "cross-attn",
                formula: format!(
                    "x ← {}: {} × {}",
                    if pre {
                        t!("attention-walk-cross-formula-pre")
                    } else {
                        t!("attention-walk-cross-formula-post")
                    },
                    c.residual.nrows(),
                    c.residual.ncols()
                ),
                explain: t!("attention-walk-cross-explain"),
                panels: vec![
                    panel(
                        &t!("attention-walk-panel-stream"),
                        stream.clone(),
                        self.tokens,
                        d.clone(),
                    ),
                    panel(
                        &t!("attention-walk-panel-cross-output"),
                        c.inner.out.clone(),
                        self.tokens,
                        d.clone(),
                    ),
                    panel(
                        &t!("attention-walk-panel-stream-after"),
                        c.residual.clone(),
                        self.tokens,
                        d,
                    ),
                ],
            });
            stream = c.residual.clone();
        }
        let ffn_in = if pre {
            let (step, y) = self.norm_step(
                "norm₂",
                &t!("attention-walk-norm-before-ffn", norm = self.norm_name()),
                stream.view(),
                &self.weights.ln_ffn,
            );
            steps.push(step);
            y
        } else {
            stream.clone()
        };
        let (step, ffn_out) = self.ffn_step(ffn_in.view());
        steps.push(step);
        let (add, sum) = self.add_step(
            "x + FFN",
            stream.view(),
            ffn_out.view(),
            "FFN",
            t!("attention-walk-residual-ffn"),
        );
        steps.push(add);
        if !pre {
            let (step, _) = self.norm_step(
                "norm₂",
                &t!("attention-walk-norm-after-ffn", norm = self.norm_name()),
                sum.view(),
                &self.weights.ln_ffn,
            );
            steps.push(step);
        }
        Some(steps)
    }

    /// What becomes of the stack's output: the decoder's memory, a sentence encoder's result,
    /// or logits over the vocabulary.
    fn after_the_stack(&self, trace: &Trace, encoder: bool) -> Vec<Step> {
        let cfg = &self.model.config;
        let layers = self.stack.blocks.len();
        let later = match layers - 1 - self.sel.layer {
            0 => t!("attention-walk-later-last"),
            1 => t!("attention-walk-later-one", layer = layers - 1),
            _ => t!(
                "attention-walk-later-many",
                first = self.sel.layer + 1,
                last = layers - 1
            ),
        };
        let mut steps = Vec::new();
        let mut h = self.stack.output.clone();
        let d = numbered("", cfg.d_model);
        if let Some(ln) = &self.stack_weights.ln_f {
            if let Some(x) = self.stack.blocks.last().map(|b| b.output().view()) {
                let (mut step, y) = self.norm_step(
                    "final norm",
                    &t!("attention-walk-norm-final", norm = self.norm_name()),
                    x,
                    ln,
                );
                step.explain = t!(
                    "attention-walk-final-norm-explain",
                    later = &later,
                    norm = self.norm_name(),
                    explain = &step.explain
                );
                h = y;
                steps.push(step);
            }
        }
        let decoder_follows = encoder && cfg.family.has_decoder();
        if decoder_follows || trace.logits.ncols() == 0 {
            let (title, explain) = if decoder_follows {
                (
                    "memory",
                    t!("attention-walk-memory-explain", later = &later),
                )
            } else {
                (
                    "output",
                    t!(
                        "attention-walk-encoder-output-explain",
                        later = &later,
                        model = &cfg.name
                    ),
                )
            };
            steps.push(Step {
                title,
                formula: t!(
                    "attention-walk-stack-output-formula",
                    rows = h.nrows(),
                    cols = h.ncols()
                ),
                explain,
                panels: vec![panel(&t!("attention-walk-panel-output"), h, self.tokens, d)],
            });
            return steps;
        }
        steps.extend(self.output_layer(trace, h, &later));
        steps
    }
}

#[cfg(test)]
mod tests;
