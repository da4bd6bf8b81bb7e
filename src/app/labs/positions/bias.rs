//! ALiBi and learned relative biases: the bias matrix of each head, added to the scores,
//! and the attention that results, on the trained models that use them.

use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::model::{position, AttentionKind, ForwardOptions, Model, Positional, Trace};
use egui::Ui;
use ndarray::Axis;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Alibi,
    Relative,
}

pub struct BiasPanel {
    pub scheme: Scheme,
    pub head: usize,
    pub layer: usize,
    pub length: usize,
    pub text: String,
    models: Vec<(Scheme, crate::app::models::store::Slot)>,
}

impl Default for BiasPanel {
    fn default() -> Self {
        Self {
            scheme: Scheme::Alibi,
            head: 0,
            layer: 0,
            length: 10,
            text: "abcdefgh".into(),
            models: Vec::new(),
        }
    }
}

fn model_name(s: Scheme) -> &'static str {
    match s {
        Scheme::Alibi => "extrap-alibi",
        Scheme::Relative => "extrap-relative",
    }
}

/// The `[T, T]` bias of `head` for positions 0‥T−1, from the same functions the model runs.
pub fn bias_matrix(
    model: &Model,
    layer: usize,
    head: usize,
    t: usize,
) -> Option<ndarray::Array2<f32>> {
    let pos: Vec<usize> = (0..t).collect();
    match model.config.positional {
        Positional::Alibi => {
            let slopes = position::alibi_slopes(model.config.n_heads);
            Some(position::alibi_bias(slopes[head], &pos, &pos))
        }
        Positional::Relative { max_distance } => {
            let stack = model.weights.encoder.as_ref()?;
            let table = stack.blocks.get(layer)?.self_attn.rel_bias.as_ref()?;
            Some(position::relative_bias(
                table.row(head),
                max_distance,
                &pos,
                &pos,
            ))
        }
        _ => None,
    }
}

impl BiasPanel {
    fn model(
        &mut self,
        store: &crate::app::models::store::ModelStore,
    ) -> &Result<std::sync::Arc<Model>, String> {
        let s = self.scheme;
        let at = match self.models.iter().position(|(k, _)| *k == s) {
            Some(i) => i,
            None => {
                self.models.push((s, None));
                self.models.len() - 1
            }
        };
        // A model still loading is asked for again until it is there.
        store.keep(&mut self.models[at].1, model_name(s))
    }

    pub fn ui(&mut self, ui: &mut Ui, store: &crate::app::models::store::ModelStore) {
        ui.horizontal_wrapped(|ui| {
            ui.selectable_value(&mut self.scheme, Scheme::Alibi, "ALiBi");
            ui.selectable_value(
                &mut self.scheme,
                Scheme::Relative,
                crate::t!("positions-bias-relative"),
            );
        });
        let (mut head, mut layer, mut length) = (self.head, self.layer, self.length);
        let text = self.text.clone();
        let scheme = self.scheme;
        let model = match self.model(store) {
            Ok(m) => m.clone(),
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e.as_str());
                return;
            }
        };
        let heads = model.config.n_heads;
        match scheme {
            Scheme::Alibi => {
                let slopes = position::alibi_slopes(heads);
                let s: Vec<String> = slopes
                    .iter()
                    .enumerate()
                    .map(|(h, m)| {
                        crate::t!("positions-bias-slope", head = h, slope = format!("{m:.4}"))
                    })
                    .collect();
                crate::app::widgets::math_text::label(
                    ui,
                    &crate::t!(
                        "positions-bias-alibi-about",
                        heads = heads,
                        slopes = s.join(", "),
                    ),
                )
            }
            Scheme::Relative => ui.label(crate::t!("positions-bias-relative-about")),
        };
        ui.horizontal_wrapped(|ui| {
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut head, 0..=heads - 1)
                    .text(crate::t!("positions-slider-head")),
            );
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut layer, 0..=model.config.n_layers - 1)
                    .text(crate::t!("positions-slider-layer")),
            );
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut length, 2..=24).text(crate::t!("positions-bias-positions")),
            );
        });
        (self.head, self.layer, self.length) = (head, layer, length);
        let labels: Vec<String> = (0..length).map(|t| t.to_string()).collect();
        let (query_position, key_position) = (
            crate::t!("positions-bias-query-position"),
            crate::t!("positions-bias-key-position"),
        );
        let (head_axis, offset_axis) = (
            crate::t!("positions-bias-head-axis"),
            crate::t!("positions-bias-offset-axis"),
        );
        let bias_context = crate::t!("positions-bias-context");
        let table_context = crate::t!("positions-bias-table-context");
        let bias = crate::t!("positions-bias-legend");
        crate::app::widgets::fit::columns(ui, 2, 300.0, |c| {
            c[0].strong(crate::t!("positions-bias-matrix-title", head = head));
            if let Some(b) = bias_matrix(&model, layer, head, length) {
                Heatmap {
                    axis_names: (&query_position, &key_position),
                    context: &bias_context,
                    max_cell: 22.0,
                    show_numbers: true,
                    ..Heatmap::new(
                        b.view(),
                        &labels,
                        &labels,
                        ColorScale::diverging_for(b.iter()),
                    )
                }
                .show_with_legend(&mut c[0], 200.0, &bias);
            }
            if let (Scheme::Relative, Some(t)) = (
                scheme,
                model
                    .weights
                    .encoder
                    .as_ref()
                    .and_then(|s| s.blocks.get(layer))
                    .and_then(|b| b.self_attn.rel_bias.as_ref()),
            ) {
                c[1].strong(crate::t!("positions-bias-table-title", layer = layer));
                let rows: Vec<String> = (0..t.nrows())
                    .map(|h| crate::t!("positions-head", head = h))
                    .collect();
                let k = (t.ncols() as i64 - 1) / 2;
                let cols: Vec<String> =
                    (0..t.ncols() as i64).map(|o| (o - k).to_string()).collect();
                Heatmap {
                    axis_names: (&head_axis, &offset_axis),
                    context: &table_context,
                    max_cell: 22.0,
                    ..Heatmap::new(t.view(), &rows, &cols, ColorScale::diverging_for(t.iter()))
                }
                .show_with_legend(&mut c[1], 120.0, &bias);
            }
        });
        ui.separator();
        ui.horizontal_wrapped(|ui| {
            let l = ui.label(crate::t!(
                "positions-bias-run-on",
                model = &model.config.name
            ));
            ui.add(egui::TextEdit::singleline(&mut self.text).desired_width(240.0))
                .labelled_by(l.id);
        });
        let input = model.prepare(&text, "").input;
        match store.forward(model_name(self.scheme), &input, &ForwardOptions::default()) {
            Ok(trace) => added_to_scores(ui, &trace, layer, head),
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
        }
    }
}

/// Scaled scores, the bias, their sum and the weights, side by side.
fn added_to_scores(ui: &mut Ui, trace: &Trace, layer: usize, head: usize) {
    let Some(a) = trace.attention(AttentionKind::EncoderSelf, layer) else {
        return;
    };
    let e = a.scaled.index_axis(Axis(0), head);
    let Some(b) = a.bias.as_ref().map(|b| b.index_axis(Axis(0), head)) else {
        return;
    };
    let sum = &e + &b;
    let w = a.weights.index_axis(Axis(0), head);
    let panels: [(String, ndarray::ArrayView2<f32>, bool); 4] = [
        (crate::t!("positions-bias-scores"), e, true),
        (crate::t!("positions-bias-plus-bias"), b, true),
        (crate::t!("positions-bias-softmax-input"), sum.view(), true),
        (crate::t!("positions-bias-weights"), w, false),
    ];
    let (query, key) = (
        crate::t!("positions-axis-query"),
        crate::t!("positions-axis-key"),
    );
    crate::app::widgets::fit::columns(ui, 4, 180.0, |c| {
        for (col, (name, m, signed)) in c.iter_mut().zip(panels) {
            crate::app::widgets::math_text::strong(col, &name);
            let scale = if signed {
                ColorScale::diverging_for(m.iter())
            } else {
                ColorScale::Sequential { min: 0.0, max: 1.0 }
            };
            Heatmap {
                allowed: Some(a.mask.view()),
                axis_names: (&query, &key),
                context: &name,
                max_cell: 26.0,
                ..Heatmap::new(m, &a.query_tokens, &a.key_tokens, scale)
            }
            .show(col);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bias_shown_is_the_bias_the_model_adds() {
        for name in ["extrap-alibi", "extrap-relative"] {
            let m = crate::model::builtin::load(name).unwrap();
            let t = m
                .forward(&m.prepare("abcdefg", "").input, &ForwardOptions::default())
                .unwrap();
            for layer in 0..m.config.n_layers {
                let a = t.attention(AttentionKind::EncoderSelf, layer).unwrap();
                for head in 0..m.config.n_heads {
                    let shown = bias_matrix(&m, layer, head, 7).unwrap();
                    let used = a.bias.as_ref().unwrap().index_axis(Axis(0), head);
                    assert_eq!(shown, used, "{name} layer {layer} head {head}");
                }
            }
        }
    }

    #[test]
    fn alibi_bias_is_minus_slope_times_distance() {
        let m = crate::model::builtin::load("extrap-alibi").unwrap();
        let b = bias_matrix(&m, 0, 1, 5).unwrap();
        let slope = 2f32.powf(-8.0 * 2.0 / 4.0);
        assert!((b[[4, 1]] + 3.0 * slope).abs() < 1e-6);
        assert_eq!(b[[2, 2]], 0.0);
    }
}
