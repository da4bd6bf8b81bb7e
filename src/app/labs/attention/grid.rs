//! Every head of every layer at once: a layers × heads grid of thumbnails plus the mean over
//! heads, each captioned with the pattern it shows; click one to open it. Below, the summary
//! of every head in numbers.

use super::Selection;
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::{matrix_key, matrix_texture, scale_key, MASKED_COLOR};
use crate::app::words::Words;
use crate::model::heads::HeadStats;
use crate::model::{AttentionKind, Trace};
use crate::t;
use egui::{Color32, Pos2, Rect, Sense, Stroke, Ui, Vec2};
use ndarray::{Array2, ArrayView2, Axis};
use std::sync::Arc;

/// One thumbnail: the matrix as a texture in a square of side `side`. Returns its response.
fn thumbnail(
    ui: &mut Ui,
    id: egui::Id,
    w: ArrayView2<f32>,
    mask: ArrayView2<bool>,
    side: f32,
    selected: bool,
) -> egui::Response {
    let scale = ColorScale::Sequential { min: 0.0, max: 1.0 };
    // Colours are computed only when the weights changed (a new input); otherwise the
    // cached texture is reused.
    let colors = || -> Vec<Vec<Color32>> {
        w.outer_iter()
            .zip(mask.outer_iter())
            .map(|(r, m)| {
                r.iter()
                    .zip(m)
                    .map(|(&v, &ok)| if ok { scale.color(v) } else { MASKED_COLOR })
                    .collect()
            })
            .collect()
    };
    let (rect, response) = ui.allocate_exact_size(Vec2::splat(side), Sense::click());
    // A 270-head grid scrolls: a thumbnail out of sight keeps its place but is not drawn
    // (no texture lookup, no shapes), so a frame costs what is on screen.
    if !ui.is_rect_visible(rect) {
        return response;
    }
    let key = matrix_key(w, Some(mask), scale_key(scale));
    let texture = matrix_texture(ui, id, key, colors, |r, c| !mask[[r, c]]);
    ui.painter().image(
        texture.id(),
        rect,
        Rect::from_min_max(Pos2::ZERO, Pos2::new(1.0, 1.0)),
        Color32::WHITE,
    );
    let stroke = if selected {
        Stroke::new(3.0, Color32::from_rgb(255, 140, 0))
    } else if response.hovered() {
        Stroke::new(2.0, Color32::WHITE)
    } else {
        Stroke::new(1.0, Color32::from_gray(70))
    };
    ui.painter()
        .rect_stroke(rect, 0.0, stroke, egui::StrokeKind::Outside);
    response
}

/// The grid's words for one pass's head statistics: 270 heads' names, captions and numbers
/// formatted anew every frame held the page's thread (fluent's number formatting alone was
/// 12 ms a frame in the browser), so they are made once per pass, kind and language.
struct GridWords {
    /// What they were made from: the pass's serial (`Computed::serial`; a trace's address is
    /// no key, the workbench keeps each new trace in the same place), the kind and the language.
    key: (u64, AttentionKind, &'static str),
    layer_titles: Vec<String>,
    head_titles: Vec<String>,
    /// Per layer, per head: (the thumbnail's spoken name, its tooltip, its caption).
    cells: Vec<Vec<(String, String, String)>>,
    /// Per layer: the mean's spoken name and its tooltip.
    means: Vec<(String, String)>,
}

impl GridWords {
    fn new(
        key: (u64, AttentionKind, &'static str),
        stats: &[Vec<HeadStats>],
        layers: usize,
        heads: usize,
    ) -> Self {
        let cells = (0..layers)
            .map(|l| {
                (0..heads)
                    .map(|h| {
                        let stat = stats.get(l).and_then(|s| s.get(h));
                        let name = t!("attention-layer-head", layer = l, head = h);
                        let tip = stat.map_or(String::new(), describe);
                        (
                            t!("attention-grid-thumbnail", layer = l, head = h),
                            format!("{name}\n{tip}"),
                            stat.map_or(String::new(), caption),
                        )
                    })
                    .collect()
            })
            .collect();
        let means = (0..layers)
            .map(|l| {
                (
                    t!("attention-grid-mean-thumbnail", layer = l),
                    t!("attention-grid-mean-hover", layer = l, heads = heads),
                )
            })
            .collect();
        Self {
            key,
            layer_titles: (0..layers)
                .map(|l| t!("attention-grid-layer", layer = l))
                .collect(),
            head_titles: (0..heads)
                .map(|h| t!("attention-grid-head", head = h))
                .collect(),
            cells,
            means,
        }
    }

    /// This frame's words: the ones kept in egui's memory when they were made for the same
    /// pass and kind, in the same language.
    fn of(
        ui: &Ui,
        (pass, kind): (u64, AttentionKind),
        stats: &[Vec<HeadStats>],
        layers: usize,
        heads: usize,
    ) -> Arc<Self> {
        let id = ui.scope_id().with("head_grid_words");
        let key = (pass, kind, crate::i18n::current());
        if let Some(words) = ui
            .data(|d| d.get_temp::<Arc<Self>>(id))
            .filter(|w| w.key == key)
        {
            return words;
        }
        let words = Arc::new(Self::new(key, stats, layers, heads));
        ui.data_mut(|d| d.insert_temp(id, words.clone()));
        words
    }
}

/// Draw the grid of pass `pass` (`Computed::serial`); a click on a head selects it and returns
/// true (the caller opens it).
pub fn show(
    ui: &mut Ui,
    trace: &Trace,
    pass: u64,
    sel: &mut Selection,
    stats: &[Vec<HeadStats>],
) -> bool {
    let kind = sel.kind;
    let layers = trace.layers(kind);
    let Some(first) = trace.attention(kind, 0) else {
        return false;
    };
    let heads = first.weights.len_of(Axis(0));
    ui.label(t!(
        "attention-grid-explain",
        kind = kind.words(),
        layers = layers,
        heads = heads
    ));
    let words = GridWords::of(ui, (pass, kind), stats, layers, heads);
    let side = ((ui.available_width() - 90.0) / (heads + 1) as f32 - 12.0).clamp(40.0, 150.0);
    let mut opened = false;
    egui::Grid::new("head_grid")
        .spacing([12.0, 6.0])
        .show(ui, |ui| {
            ui.label("");
            for title in &words.head_titles {
                ui.strong(title);
            }
            ui.strong(t!("attention-grid-mean"));
            ui.end_row();
            let mean_caption = t!("attention-grid-mean-caption");
            for l in 0..layers {
                let (Some(a), Some(cells), Some((mean_name, mean_tip))) = (
                    trace.attention(kind, l),
                    words.cells.get(l),
                    words.means.get(l),
                ) else {
                    continue;
                };
                ui.strong(&words.layer_titles[l]);
                for (h, (name, tip, caption)) in cells.iter().enumerate() {
                    let w = a.weights.index_axis(Axis(0), h);
                    ui.vertical(|ui| {
                        let id = ui.scope_id().with(("thumb", kind, l, h));
                        let selected = sel.layer == l && sel.head == h;
                        let r = thumbnail(ui, id, w, a.mask.view(), side, selected);
                        r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, name));
                        if r.on_hover_text(tip.as_str()).clicked() {
                            sel.layer = l;
                            sel.head = h;
                            opened = true;
                        }
                        thumbnail_caption(ui, caption, side);
                    });
                }
                let mean: Array2<f32> = a.weights.mean_axis(Axis(0)).unwrap_or_default();
                ui.vertical(|ui| {
                    let id = ui.scope_id().with(("thumb_mean", kind, l));
                    let r = thumbnail(ui, id, mean.view(), a.mask.view(), side, false);
                    r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, mean_name));
                    r.on_hover_text(mean_tip.as_str());
                    thumbnail_caption(ui, &mean_caption, side);
                });
                ui.end_row();
            }
        });
    ui.separator();
    summary_table(ui, stats, sel);
    opened
}

/// A caption under a thumbnail, wrapped to its width in a size a projector's back row reads
/// (egui's "small" style is 9 points).
fn thumbnail_caption(ui: &mut Ui, text: &str, side: f32) {
    ui.set_max_width(side.max(60.0));
    ui.add(egui::Label::new(egui::RichText::new(text).size(12.0)).wrap());
}

/// "previous token 0.93" or "no clear pattern".
pub fn caption(s: &HeadStats) -> String {
    match &s.label {
        Some(p) => format!("{} {:.2}", p.pattern.words(), p.score),
        None => t!("attention-grid-no-pattern"),
    }
}

fn describe(s: &HeadStats) -> String {
    let scores: Vec<String> = s
        .scores
        .iter()
        .map(|p| format!("{} {:.2}", p.pattern.words(), p.score))
        .collect();
    let numbers = t!(
        "attention-grid-numbers",
        entropy = format!("{:.2}", s.entropy_bits),
        max = format!("{:.2}", s.max_entropy_bits),
        distance = format!("{:.2}", s.mean_distance)
    );
    format!("{numbers}\n{}", scores.join(" · "))
}

/// Every head's numbers, one row each. Only the rows in sight are laid out: SmolLM2 has 270.
pub fn summary_table(ui: &mut Ui, stats: &[Vec<HeadStats>], sel: &Selection) {
    ui.strong(t!("attention-table-title"));
    let header = [
        t!("attention-table-layer"),
        t!("attention-table-head"),
        t!("attention-table-entropy"),
        t!("attention-table-max"),
        t!("attention-table-distance"),
        t!("attention-table-pattern"),
        t!("attention-table-scores"),
    ];
    let rows: Vec<(usize, usize, &HeadStats)> = stats
        .iter()
        .enumerate()
        .flat_map(|(l, row)| row.iter().enumerate().map(move |(h, s)| (l, h, s)))
        .collect();
    let row_height = ui.text_style_height(&egui::TextStyle::Body);
    // Both ways: a wide table scrolls inside itself instead of widening the whole view.
    egui::ScrollArea::both()
        .id_salt("head_table")
        .max_height(260.0)
        .show_rows(ui, row_height, rows.len() + 1, |ui, range| {
            egui::Grid::new("head_table_grid")
                .striped(true)
                .spacing([16.0, ui.spacing().item_spacing.y])
                .min_row_height(row_height)
                .show(ui, |ui| {
                    for i in range {
                        // Row 0 is the header.
                        let Some(&(l, h, s)) = i.checked_sub(1).and_then(|i| rows.get(i)) else {
                            for t in &header {
                                ui.strong(t);
                            }
                            ui.end_row();
                            continue;
                        };
                        let here = sel.layer == l && sel.head == h;
                        let mark = |t: String| {
                            if here {
                                egui::RichText::new(t).strong()
                            } else {
                                egui::RichText::new(t)
                            }
                        };
                        ui.label(mark(l.to_string()));
                        ui.label(mark(h.to_string()));
                        ui.label(mark(format!("{:.2}", s.entropy_bits)));
                        ui.label(mark(format!("{:.2}", s.max_entropy_bits)));
                        ui.label(mark(format!("{:.2}", s.mean_distance)));
                        let l = ui.label(mark(caption(s)));
                        if let Some(p) = &s.label {
                            l.on_hover_text(crate::app::words::pattern_explained(p.pattern));
                        }
                        let all: Vec<String> = s
                            .scores
                            .iter()
                            .map(|p| format!("{} {:.2}", p.pattern.words(), p.score))
                            .collect();
                        ui.label(all.join(" · "));
                        ui.end_row();
                    }
                });
        });
}

#[cfg(test)]
mod tests {
    use super::GridWords;
    use crate::model::heads::every_head;
    use crate::model::{builtin, AttentionKind, ForwardOptions};
    use std::sync::Arc;

    const CROSS: AttentionKind = AttentionKind::Cross;

    /// The kept words follow the pass they were made from, not where the trace lives: another
    /// input of the same shape (another pass) gets its own captions, the same pass the kept words.
    #[test]
    fn the_kept_words_are_the_pass_own() {
        let model = builtin::load("reverse").unwrap();
        let stats = |src: &str, tgt: &str| {
            let prepared = model.prepare(src, tgt);
            let trace = model
                .forward(&prepared.input, &ForwardOptions::default())
                .unwrap();
            every_head(&trace, CROSS, prepared.sequence(CROSS))
        };
        let (a, b) = (stats("abcd", "dcba"), stats("bbbb", "aaaa"));
        assert_ne!(a, b);
        let ctx = egui::Context::default();
        let _ = ctx.run_ui(Default::default(), |ui| {
            let (layers, heads) = (a.len(), a[0].len());
            let first = GridWords::of(ui, (1, CROSS), &a, layers, heads);
            let again = GridWords::of(ui, (1, CROSS), &a, layers, heads);
            assert!(Arc::ptr_eq(&first, &again));
            let other = GridWords::of(ui, (2, CROSS), &b, layers, heads);
            let fresh = GridWords::new((2, CROSS, crate::i18n::current()), &b, layers, heads);
            assert_eq!(other.cells, fresh.cells);
            assert_ne!(other.cells, first.cells);
        });
    }
}
