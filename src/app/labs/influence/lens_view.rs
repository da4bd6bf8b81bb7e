//! Layer by layer: the logit lens as a grid of depths × positions, each cell the token the
//! model would predict if it stopped there, shaded by its probability, and the answer's
//! probability through depth at one position as a line. A depth is read a frame at a time.

use super::{answer, warn, Clean, InfluenceLab, Shared};
use crate::analysis::lens::{lens_layer, LensLayer};
use crate::analysis::residual_stream;
use crate::app::export;
use crate::app::models::running::within;
use crate::app::widgets::colormap::{legend, ColorScale};
use crate::app::widgets::plot_words::PlotWords;
use crate::t;
use egui::{Align2, FontId, Rect, Sense, Stroke, Ui, Vec2};
use egui_plot::{Plot, PlotPoints, Points};

/// Tokens listed per cell on hover.
const TOP_K: usize = 5;
/// The lens's probabilities: 0 to 1.
const SCALE: ColorScale = ColorScale::Sequential { min: 0.0, max: 1.0 };

/// What the lens was read for: the model, the ids, the answer token.
type Key = (String, Vec<u32>, u32);

#[derive(Default)]
pub struct LensState {
    key: Option<Key>,
    layers: Vec<LensLayer>,
}

impl LensState {
    /// Reads the next depths within the frame's budget; true once every depth is read.
    fn advance(&mut self, clean: &Clean, target: u32) -> bool {
        let key = (clean.name.clone(), clean.ids.clone(), target);
        if self.key.as_ref() != Some(&key) {
            self.key = Some(key);
            self.layers.clear();
        }
        let Some(stack) = crate::analysis::read_stack(&clean.trace) else {
            return true;
        };
        let resid = residual_stream(stack);
        let budget =
            web_time::Duration::from_millis(if cfg!(target_arch = "wasm32") { 10 } else { 30 });
        within(budget, || {
            let l = self.layers.len();
            if let Some(r) = resid.get(l) {
                let read = lens_layer(&clean.model, l, r, TOP_K, Some(target));
                self.layers.push(read);
            }
            self.layers.len() < resid.len()
        });
        self.layers.len() == resid.len()
    }
}

/// "“ the” at depths 0–14, “ Paris” at 15–30": the top token through depth at one position.
pub fn runs(layers: &[LensLayer], position: usize) -> String {
    let mut parts: Vec<(String, usize, usize)> = Vec::new();
    for l in layers {
        let Some(top) = l.top.get(position).and_then(|t| t.first()) else {
            continue;
        };
        match parts.last_mut() {
            Some((t, _, end)) if *t == top.token => *end = l.layer,
            _ => parts.push((top.token.clone(), l.layer, l.layer)),
        }
    }
    parts
        .iter()
        .map(|(t, a, b)| match a == b {
            true => t!("influence-lens-run-one", token = t, depth = *a),
            false => t!("influence-lens-run", token = t, from = *a, to = *b),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first depth from which `target` stays the top token at `position` to the end.
pub fn settles_at(layers: &[LensLayer], position: usize, target: u32) -> Option<usize> {
    let is_top = |l: &LensLayer| {
        l.top
            .get(position)
            .and_then(|t| t.first())
            .is_some_and(|r| r.id == target)
    };
    let tail = layers.iter().rev().take_while(|l| is_top(l)).count();
    (tail > 0).then(|| layers[layers.len() - tail].layer)
}

impl InfluenceLab {
    pub(super) fn lens_section(&mut self, ui: &mut Ui, shared: &mut Shared<'_>, clean: &Clean) {
        let rect = ui.max_rect();
        crate::app::widgets::math_text::label(ui, &t!("influence-lens-intro"));
        self.token_boxes(ui, clean, false);
        if !clean.model.has_output_layer() {
            return;
        }
        let position = clean.position(self.position);
        let target = match answer(clean, &self.target, position) {
            Ok(t) => t,
            Err(e) => return warn(ui, e),
        };
        let done = self.lens.advance(clean, target);
        let total = clean
            .trace
            .decoder
            .as_ref()
            .or(clean.trace.encoder.as_ref());
        let total = total.map_or(0, |s| s.blocks.len() + 1);
        if !done {
            ui.ctx().request_repaint();
            ui.add(
                egui::ProgressBar::new(self.lens.layers.len() as f32 / total.max(1) as f32).text(
                    t!(
                        "influence-lens-reading",
                        depth = self.lens.layers.len(),
                        total = total
                    ),
                ),
            );
        }
        let lens = std::mem::take(&mut self.lens.layers);
        let layers = &lens;
        let name = crate::app::labs::decoding::tree::visible(clean.model.tokenizer.token(target));
        ui.horizontal_wrapped(|ui| {
            let json = || {
                serde_json::to_vec_pretty(&serde_json::json!({
                    "model": clean.name, "tokens": clean.tokens, "target": target, "layers": layers,
                }))
                .ok()
            };
            // p(A) by depth (rows) and position (columns).
            let csv = || {
                let p =
                    ndarray::Array2::from_shape_fn((layers.len(), clean.tokens.len()), |(l, j)| {
                        layers[l]
                            .target_p
                            .as_ref()
                            .and_then(|v| v.get(j).copied())
                            .unwrap_or(f32::NAN)
                    });
                let rows: Vec<String> = layers
                    .iter()
                    .map(|l| t!("influence-lens-depth", depth = l.layer))
                    .collect();
                Some(export::matrix_csv(p.view(), &rows, &clean.tokens).into_bytes())
            };
            let (json_label, csv_label) = (
                t!("influence-lens-export-json"),
                t!("influence-lens-export-csv"),
            );
            let files: [export::DataFile<'_>; 2] = [
                (&json_label, "glimpse-lens.json".into(), &json),
                (&csv_label, "glimpse-lens.csv".into(), &csv),
            ];
            export::view_menu(ui, shared.exporter, rect, "glimpse-lens.png", &files);
        });
        if let Some(clicked) = grid(ui, clean, layers, position) {
            let last = clean.tokens.len() - 1;
            self.position = (clicked != last).then_some(clicked);
        }
        // The sentence a screen reader (and a student in a hurry) reads.
        let summary = t!(
            "influence-lens-summary",
            position = position,
            token = &clean.tokens[position],
            runs = runs(layers, position)
        );
        ui.label(summary);
        if done {
            let p_out = layers
                .last()
                .and_then(|l| l.target_p.as_ref()?.get(position).copied())
                .unwrap_or(0.0);
            let p_out = format!("{p_out:.3}");
            let settled = match settles_at(layers, position, target) {
                Some(l) => t!(
                    "influence-lens-settles",
                    token = &name,
                    depth = l,
                    p = p_out
                ),
                None => t!("influence-lens-never-settles", token = &name, p = p_out),
            };
            ui.strong(settled);
            let line: Vec<f32> = layers
                .iter()
                .filter_map(|l| l.target_p.as_ref()?.get(position).copied())
                .collect();
            let top: Vec<&str> = layers
                .iter()
                .filter_map(|l| Some(l.top.get(position)?.first()?.token.as_str()))
                .collect();
            let published = serde_json::json!({
                "position": position, "target": target, "settles_at": settles_at(layers, position, target),
                "target_p": line, "top": top,
            });
            self.note("lens", published);
        }
        target_line(ui, layers, position, &name);
        self.lens.layers = lens;
    }
}

/// The grid of top tokens (depth 0 at the top); the position clicked, if any.
fn grid(ui: &mut Ui, clean: &Clean, layers: &[LensLayer], picked: usize) -> Option<usize> {
    let t = clean.tokens.len();
    let label_w = 64.0;
    let cell = Vec2::new(
        ((ui.available_width() - label_w - 110.0) / t as f32).clamp(38.0, 90.0),
        17.0,
    );
    let rows = layers.len().max(1);
    let size = Vec2::new(label_w + cell.x * t as f32, 20.0 + cell.y * rows as f32);
    let mut clicked = None;
    ui.horizontal_top(|ui| {
        egui::ScrollArea::both()
            .id_salt("lens grid")
            .max_height(560.0)
            .max_width(ui.available_width() - 100.0)
            .show(ui, |ui| {
                let (rect, response) = ui.allocate_exact_size(size, Sense::click());
                let painter = ui.painter_at(rect);
                let font = FontId::proportional(10.5);
                let text_color = ui.visuals().text_color();
                for (j, token) in clean.tokens.iter().enumerate() {
                    let x = rect.left() + label_w + cell.x * (j as f32 + 0.5);
                    let color = if j == picked {
                        ui.visuals().strong_text_color()
                    } else {
                        text_color
                    };
                    painter.text(
                        egui::pos2(x, rect.top() + 9.0),
                        Align2::CENTER_CENTER,
                        clip(token, cell.x),
                        font.clone(),
                        color,
                    );
                }
                for (i, layer) in layers.iter().enumerate() {
                    let y = rect.top() + 20.0 + cell.y * i as f32;
                    painter.text(
                        egui::pos2(rect.left() + 2.0, y + cell.y / 2.0),
                        Align2::LEFT_CENTER,
                        t!("influence-lens-depth", depth = layer.layer),
                        font.clone(),
                        text_color,
                    );
                    for (j, top) in layer.top.iter().enumerate() {
                        let Some(best) = top.first() else { continue };
                        let r = Rect::from_min_size(
                            egui::pos2(rect.left() + label_w + cell.x * j as f32, y),
                            cell,
                        );
                        let fill = SCALE.color(best.p);
                        painter.rect_filled(r.shrink(0.5), 1.0, fill);
                        let ink = crate::app::widgets::colormap::ink_on(fill);
                        painter.text(
                            r.center(),
                            Align2::CENTER_CENTER,
                            clip(&best.token, cell.x),
                            font.clone(),
                            ink,
                        );
                    }
                }
                let outline = Rect::from_min_size(
                    egui::pos2(
                        rect.left() + label_w + cell.x * picked as f32,
                        rect.top() + 18.0,
                    ),
                    Vec2::new(cell.x, cell.y * rows as f32 + 2.0),
                );
                painter.rect_stroke(
                    outline,
                    1.0,
                    Stroke::new(2.0, ui.visuals().strong_text_color()),
                    egui::StrokeKind::Inside,
                );
                if let Some(pos) = response.hover_pos() {
                    let j = ((pos.x - rect.left() - label_w) / cell.x).floor();
                    let i = ((pos.y - rect.top() - 20.0) / cell.y).floor();
                    if j >= 0.0 && i >= 0.0 && (j as usize) < t && (i as usize) < layers.len() {
                        let (i, j) = (i as usize, j as usize);
                        let layer = &layers[i];
                        let mut text = t!(
                            "influence-lens-cell",
                            depth = layer.layer,
                            position = j,
                            token = &clean.tokens[j]
                        );
                        text.push('\n');
                        for r in &layer.top[j] {
                            text += &format!("“{}”  p = {:.3}\n", r.token, r.p);
                        }
                        if let Some(p) = layer.target_p.as_ref().and_then(|v| v.get(j)) {
                            let p = format!("{p:.4}");
                            text += &t!("influence-lens-cell-answer", p = p);
                        }
                        response.clone().on_hover_text_at_pointer(text);
                        if response.clicked() {
                            clicked = Some(j);
                        }
                    }
                }
            });
        legend(ui, SCALE, 160.0, &t!("influence-lens-legend"));
    });
    clicked
}

/// A token cut to fit a cell of `width` points (about 6 points a character).
fn clip(token: &str, width: f32) -> String {
    let shown = crate::app::labs::decoding::tree::visible(token);
    let max = ((width - 4.0) / 6.0).max(3.0) as usize;
    match shown.chars().count() > max {
        true => shown
            .chars()
            .take(max.saturating_sub(1))
            .chain(['…'])
            .collect(),
        false => shown,
    }
}

/// The answer's probability at `position` through depth.
fn target_line(ui: &mut Ui, layers: &[LensLayer], position: usize, name: &str) {
    let points: Vec<[f64; 2]> = layers
        .iter()
        .filter_map(|l| {
            Some([
                l.layer as f64,
                f64::from(*l.target_p.as_ref()?.get(position)?),
            ])
        })
        .collect();
    ui.label(t!(
        "influence-lens-line-label",
        token = name,
        position = position
    ));
    let mut words = PlotWords::new(
        t!(
            "influence-lens-line-title",
            token = name,
            position = position
        ),
        t!("influence-lens-line-x"),
    );
    let plot = Plot::new("lens target line")
        .height(150.0)
        .include_y(0.0)
        .include_y(1.0)
        .x_axis_label(t!("influence-lens-line-axis"))
        .y_axis_label("p")
        .allow_scroll(false)
        .show(ui, |plot| {
            let color = crate::app::widgets::series_color(0);
            plot.points(
                Points::new("p", PlotPoints::from(points.clone()))
                    .radius(2.5)
                    .color(color),
            );
            plot.line(words.line("p", points));
        });
    words.add(ui, &plot.response);
}
