//! The selected hypothesis through the model: a forward pass on its prefix, and the
//! decoder's self-attention (and, for translation, cross-attention) of one head. The pass
//! goes through the model store, so on a large picked model (SmolLM2) it runs a slice a frame
//! in the browser, with its progress and Cancel where the heatmaps will be.

use super::session::{Search, SourceKind};
use crate::app::labs::attention::head::weights_heatmap;
use crate::app::models::store::{is_unfinished, ModelStore};
use crate::app::widgets::heatmap::Heatmap;
use crate::app::words::Words;
use crate::model::{AttentionKind, ForwardOptions, ModelInput, Trace};
use crate::t;
use egui::Ui;
use std::sync::Arc;

/// One forward pass, kept while the same prefix stays selected.
pub struct TraceCache {
    key: (SourceKind, String, Vec<u32>),
    trace: Result<Arc<Trace>, String>,
}

/// Which head to show, and the last trace.
#[derive(Default)]
pub struct AttentionView {
    pub layer: usize,
    pub head: usize,
    cache: Option<TraceCache>,
}

impl AttentionView {
    /// The trace of `node`'s prefix, computed once per prefix (asked for again while the
    /// store's pass runs, or stays cancelled).
    pub fn trace(
        &mut self,
        store: &ModelStore,
        search: &Search,
        node: usize,
    ) -> Option<&Result<Arc<Trace>, String>> {
        let name = search.settings.model_name()?;
        let prefix = search.prefix(node);
        let key = (
            search.settings.kind,
            search.settings.text().to_string(),
            prefix.clone(),
        );
        let stale = self
            .cache
            .as_ref()
            .is_none_or(|c| c.key != key || c.trace.as_ref().is_err_and(|e| is_unfinished(e)));
        if stale {
            let input = ModelInput {
                source: search.built.encoder.clone(),
                target: prefix,
                ..Default::default()
            };
            let trace = store.forward(name, &input, &ForwardOptions::default());
            self.cache = Some(TraceCache { key, trace });
        }
        self.cache.as_ref().map(|c| &c.trace)
    }

    pub fn show(
        &mut self,
        ui: &mut Ui,
        store: &ModelStore,
        search: &Search,
        selected: Option<usize>,
    ) {
        let Some(model) = search.built.source.model() else {
            ui.label(t!("decoding-attention-table"));
            return;
        };
        let Some(node) = selected.filter(|&i| i < search.beam.nodes.len()) else {
            ui.label(t!("decoding-attention-click"));
            return;
        };
        let (layers, heads) = (model.config.n_layers, model.config.n_heads);
        self.layer = self.layer.min(layers.saturating_sub(1));
        self.head = self.head.min(heads.saturating_sub(1));
        ui.horizontal_wrapped(|ui| {
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.layer, 0..=layers.saturating_sub(1))
                    .text(t!("decoding-layer")),
            );
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.head, 0..=heads.saturating_sub(1))
                    .text(t!("decoding-head")),
            );
        });
        ui.label(t!(
            "decoding-attention-run",
            hypothesis = search.hypothesis(node)
        ));
        let (layer, head) = (self.layer, self.head);
        match self.trace(store, search, node) {
            Some(Ok(trace)) => heatmaps(ui, trace, layer, head),
            Some(Err(e)) => crate::app::models::pass_answer::show(ui, store, e),
            None => {}
        }
    }
}

/// Self- and cross-attention side by side (cross only where the model has an encoder).
fn heatmaps(ui: &mut Ui, trace: &Trace, layer: usize, head: usize) {
    let kinds: Vec<AttentionKind> = [AttentionKind::DecoderSelf, AttentionKind::Cross]
        .into_iter()
        .filter(|&k| trace.attention(k, layer).is_some())
        .collect();
    crate::app::widgets::fit::columns(ui, kinds.len().max(1), 180.0, |cols| {
        for (ui, &kind) in cols.iter_mut().zip(&kinds) {
            let Some(attn) = trace.attention(kind, layer) else {
                continue;
            };
            let context = t!(
                "decoding-attention-context",
                kind = kind.words(),
                layer = layer,
                head = head
            );
            ui.label(&context);
            let size = egui::vec2(ui.available_width(), 420.0);
            ui.allocate_ui(size, |ui| {
                Heatmap {
                    max_cell: 22.0,
                    ..weights_heatmap(attn, head, &context)
                }
                .show(ui);
            });
        }
    });
}
