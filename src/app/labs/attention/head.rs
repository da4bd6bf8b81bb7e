//! One head as a heatmap: the attention weights, or the softmax's input with masked cells
//! at −∞; beside it, what the head does in numbers.

use super::{Explorer, Selection};
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::{Heatmap, HeatmapOutput};
use crate::model::attention::AttentionTrace;
use crate::t;
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
        ui.selectable_value(
            &mut ex.pre_softmax,
            false,
            t!("attention-head-after-softmax"),
        );
        ui.selectable_value(
            &mut ex.pre_softmax,
            true,
            t!("attention-head-before-softmax"),
        );
        ui.separator();
        ui.checkbox(&mut ex.show_numbers, t!("attention-head-numbers"));
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut ex.zoom, 1.0..=8.0)
                .logarithmic(true)
                .text(t!("attention-head-zoom")),
        )
        .on_hover_text(t!("attention-head-zoom-hover"));
    });
    // The legend's name for one value, the same in the plural, and the map in a sentence.
    let (values, scale, caption, plural, explain) = if ex.pre_softmax {
        let logits = attn.logits.index_axis(ndarray::Axis(0), head);
        let scale = ColorScale::diverging_for(logits.iter());
        (
            logits,
            scale,
            t!("attention-head-score"),
            t!("attention-head-scores"),
            t!("attention-head-explain-scores"),
        )
    } else {
        (
            attn.weights.index_axis(ndarray::Axis(0), head),
            ColorScale::Sequential { min: 0.0, max: 1.0 },
            t!("attention-head-weight"),
            t!("attention-head-weights"),
            t!("attention-head-explain-weights"),
        )
    };
    // A short screen (a projector at 720 pixels in large type) keeps its height for the map:
    // the sentence goes to the hover of a one-line version.
    if ui.available_height() > 420.0 {
        crate::app::widgets::math_text::label(ui, &explain);
    } else {
        ui.label(t!("attention-head-short", what = &plural))
            .on_hover_text(crate::app::widgets::math_unicode::unicode(&explain));
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
                axis_names: axis_names(),
                context: &context,
                zoom: ex.zoom,
                highlight_row: Some(sel.query),
                ..Heatmap::new(values, &attn.query_tokens, &attn.key_tokens, scale)
            }
            .show_with_legend(ui, 240.0, &caption)
        })
        .inner;
    query_readout(ui, values, attn, sel.query, &plural);
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
    plural: &str,
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
        .map(|&k| {
            t!(
                "attention-head-readout-key",
                value = format!("{:.2}", row[k]),
                key = k,
                token = token(&attn.key_tokens, k)
            )
        })
        .collect();
    ui.label(t!(
        "attention-head-readout",
        query = query,
        token = token(&attn.query_tokens, query),
        what = plural,
        best = best.join(" · ")
    ));
}

/// "query" and "key", the names of a head's rows and columns, in the reader's language. A
/// heatmap borrows its names, and other labs build one from [`weights_heatmap`] with only a
/// context of their own: each language's two words are made once (per thread) and kept.
pub fn axis_names() -> (&'static str, &'static str) {
    thread_local! {
        static NAMES: std::cell::RefCell<Vec<(&'static str, (&'static str, &'static str))>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }
    let lang = crate::i18n::current();
    NAMES.with(|names| {
        let mut names = names.borrow_mut();
        if let Some((_, found)) = names.iter().find(|(l, _)| *l == lang) {
            return *found;
        }
        let made: (&'static str, &'static str) = (
            Box::leak(t!("attention-axis-query").into_boxed_str()),
            Box::leak(t!("attention-axis-key").into_boxed_str()),
        );
        names.push((lang, made));
        made
    })
}

/// The weights of one head as a heatmap: query rows, key columns, masked cells hatched,
/// inferno from 0 to 1. Callers adjust size and numbers with struct update syntax.
pub fn weights_heatmap<'a>(attn: &'a AttentionTrace, head: usize, context: &'a str) -> Heatmap<'a> {
    Heatmap {
        allowed: Some(attn.mask.view()),
        axis_names: axis_names(),
        context,
        ..Heatmap::new(
            attn.weights.index_axis(ndarray::Axis(0), head),
            &attn.query_tokens,
            &attn.key_tokens,
            ColorScale::Sequential { min: 0.0, max: 1.0 },
        )
    }
}
