//! One head as a heatmap: the attention weights, or the softmax's input with masked cells
//! at −∞; beside it, what the head does in numbers.

use super::{Explorer, Selection};
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::{Heatmap, HeatmapOutput};
use crate::model::attention::AttentionTrace;
use egui::Ui;

/// Draw the selected head; returns what the heatmap drew (for the test probe).
pub fn show(
    ui: &mut Ui,
    attn: &AttentionTrace,
    sel: &mut Selection,
    ex: &mut Explorer,
) -> Option<HeatmapOutput> {
    let head = sel.head;
    ui.horizontal_wrapped(|ui| {
        ui.selectable_value(&mut ex.pre_softmax, false, "after softmax (weights)");
        ui.selectable_value(&mut ex.pre_softmax, true, "before softmax (scaled scores)");
        ui.separator();
        ui.checkbox(&mut ex.show_numbers, "numbers in cells");
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut ex.zoom, 1.0..=8.0)
                .logarithmic(true)
                .text("zoom"),
        )
        .on_hover_text("or Ctrl + scroll over the heatmap; scroll bars pan");
    });
    let (values, scale, caption, explain) = if ex.pre_softmax {
        let logits = attn.logits.index_axis(ndarray::Axis(0), head);
        let scale = ColorScale::diverging_for(logits.iter());
        (
            logits,
            scale,
            "score",
            "Softmax input: QKᵀ/√d_k (÷τ) plus any positional bias; hatched cells are masked (−∞). Red is positive, blue negative.",
        )
    } else {
        (
            attn.weights.index_axis(ndarray::Axis(0), head),
            ColorScale::Sequential { min: 0.0, max: 1.0 },
            "weight",
            "Attention weights A = softmax(QKᵀ/√d_k): each row is a query token, each column a key token; rows sum to 1.",
        )
    };
    // A short screen (a projector at 720 pixels in large type) keeps its height for the map:
    // the sentence goes to the hover of a one-line version.
    if ui.available_height() > 420.0 {
        ui.label(explain);
    } else {
        ui.label(format!(
            "{caption}s: rows are queries, columns keys (hover for more)"
        ))
        .on_hover_text(explain);
    }
    let context = sel.describe();
    // Two lines kept under the map for the selected query's numbers.
    let line = ui.text_style_height(&egui::TextStyle::Body) + ui.spacing().item_spacing.y;
    let room = egui::vec2(
        ui.available_width(),
        (ui.available_height() - 2.0 * line).max(120.0),
    );
    let out = ui
        .allocate_ui(room, |ui| {
            Heatmap {
                allowed: Some(attn.mask.view()),
                show_numbers: ex.show_numbers,
                max_cell: 56.0,
                axis_names: ("query", "key"),
                context: &context,
                zoom: ex.zoom,
                highlight_row: Some(sel.query),
                ..Heatmap::new(values, &attn.query_tokens, &attn.key_tokens, scale)
            }
            .show_with_legend(ui, 240.0, caption)
        })
        .inner;
    query_readout(ui, values, attn, sel.query, caption);
    if out.zoom_delta != 1.0 {
        ex.zoom = (ex.zoom * out.zoom_delta).clamp(1.0, 8.0);
    }
    if let Some((r, _)) = out.clicked {
        sel.query = r;
    }
    Some(out)
}

/// The selected query's row in words, its largest values first: the numbers a lesson names,
/// readable at any size (a projector's cells are too small for them). Click a row to choose.
fn query_readout(
    ui: &mut Ui,
    values: ndarray::ArrayView2<f32>,
    attn: &AttentionTrace,
    query: usize,
    caption: &str,
) {
    let Some(row) = (query < values.nrows()).then(|| values.row(query)) else {
        return;
    };
    let mut keys: Vec<usize> = (0..row.len()).filter(|&k| attn.mask[[query, k]]).collect();
    keys.sort_by(|&a, &b| row[b].total_cmp(&row[a]).then(a.cmp(&b)));
    let token = |tokens: &[String], i: usize| tokens.get(i).cloned().unwrap_or_default();
    let best: Vec<String> = keys
        .iter()
        .take(4)
        .map(|&k| format!("{:.2} on {k} “{}”", row[k], token(&attn.key_tokens, k)))
        .collect();
    ui.label(format!(
        "query {query} “{}” (outlined; click a row for another): largest {caption}s {}",
        token(&attn.query_tokens, query),
        best.join(" · ")
    ));
}

/// The weights of one head as a heatmap: query rows, key columns, masked cells hatched,
/// inferno from 0 to 1. Callers adjust size and numbers with struct update syntax.
pub fn weights_heatmap<'a>(attn: &'a AttentionTrace, head: usize, context: &'a str) -> Heatmap<'a> {
    Heatmap {
        allowed: Some(attn.mask.view()),
        axis_names: ("query", "key"),
        context,
        ..Heatmap::new(
            attn.weights.index_axis(ndarray::Axis(0), head),
            &attn.query_tokens,
            &attn.key_tokens,
            ColorScale::Sequential { min: 0.0, max: 1.0 },
        )
    }
}
