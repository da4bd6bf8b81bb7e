//! Section 5 of the panel: the attention of the built-in `repeat` model, trained with RoPE,
//! on the student's text (run again only when the text changes).

use super::{RopePanel, MODEL_NAME};
use crate::app::widgets::heatmap::Heatmap;
use crate::app::words::Words;
use crate::model::{ForwardOptions, Model, Positional, Trace};
use egui::Vec2;
use ndarray::Axis;

/// The trace of the `repeat` model for one text.
pub(super) struct TraceCache {
    pub(super) text: String,
    /// The trace and how many characters were unknown / cut off.
    pub(super) result: Result<(Trace, usize, usize), String>,
}

/// The model's trace of `text`, with how many characters were unknown and tokens cut off.
pub(super) fn trace_of(model: &Model, text: &str) -> Result<(Trace, usize, usize), String> {
    let prepared = model.prepare(text, "");
    model
        .forward(&prepared.input, &ForwardOptions::default())
        .map(|t| (t, prepared.unknown, prepared.truncated))
        .map_err(|e| e.to_string())
}

impl RopePanel {
    pub(super) fn model_section(
        &mut self,
        ui: &mut egui::Ui,
        store: &crate::app::models::store::ModelStore,
    ) {
        ui.strong(crate::t!("positions-rope-model-title"));
        let model = store.keep(&mut self.model, MODEL_NAME);
        let model = match model {
            Ok(m) => m,
            Err(e) => {
                ui.colored_label(
                    ui.visuals().error_fg_color,
                    crate::t!(
                        "positions-rope-model-error",
                        model = MODEL_NAME,
                        error = e.as_str()
                    ),
                );
                return;
            }
        };
        let cfg = &model.config;
        let head_width = cfg.d_model / cfg.n_heads.max(1);
        let base_note = match cfg.positional {
            Positional::Rope { base } => {
                crate::t!("positions-rope-model-rope", base = format!("{base}"))
            }
            ref other => crate::t!("positions-rope-model-other", scheme = other.words()),
        };
        ui.label(crate::t!(
            "positions-rope-model-about",
            model = MODEL_NAME,
            layers = cfg.n_layers,
            heads = cfg.n_heads,
            positions = base_note,
            width = head_width,
            pairs = head_width / 2,
        ));
        let (n_layers, n_heads) = (cfg.n_layers.max(1), cfg.n_heads.max(1));
        ui.horizontal_wrapped(|ui| {
            let l = ui.label(crate::t!("positions-rope-text"));
            ui.add(egui::TextEdit::singleline(&mut self.text).desired_width(280.0))
                .labelled_by(l.id);
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.layer, 0..=n_layers - 1)
                    .text(crate::t!("positions-slider-layer")),
            );
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.head, 0..=n_heads - 1)
                    .text(crate::t!("positions-slider-head")),
            );
        });
        self.layer = self.layer.min(n_layers - 1);
        self.head = self.head.min(n_heads - 1);
        if self.trace.as_ref().is_none_or(|t| t.text != self.text) {
            self.trace = Some(TraceCache {
                text: self.text.clone(),
                result: trace_of(model, &self.text),
            });
        }
        let Some(cache) = &self.trace else { return };
        let (trace, unknown, truncated) = match &cache.result {
            Ok(r) => r,
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
                return;
            }
        };
        if *unknown > 0 {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                crate::t!("positions-rope-unknown", count = *unknown),
            );
        }
        if *truncated > 0 {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                crate::t!(
                    "positions-rope-truncated",
                    count = *truncated,
                    limit = cfg.max_len
                ),
            );
        }
        let kind = crate::model::AttentionKind::DecoderSelf;
        let Some(a) = trace.attention(kind, self.layer) else {
            ui.label(crate::t!("positions-rope-no-layer"));
            return;
        };
        let head = self.head.min(a.weights.len_of(Axis(0)).saturating_sub(1));
        let context = crate::t!(
            "positions-rope-model-context",
            model = MODEL_NAME,
            layer = self.layer,
            head = head
        );
        ui.label(crate::t!(
            "positions-rope-model-weights",
            layer = self.layer,
            head = head
        ));
        let t = a.query_tokens.len().max(1) as f32;
        let height = (t * 22.0 + 70.0).clamp(200.0, 620.0);
        ui.allocate_ui(Vec2::new(ui.available_width().min(760.0), height), |ui| {
            Heatmap {
                max_cell: 22.0,
                ..crate::app::labs::attention::head::weights_heatmap(a, head, &context)
            }
            .show_with_legend(
                ui,
                (height - 60.0).min(240.0),
                &crate::t!("positions-rope-weight"),
            );
        });
    }
}
