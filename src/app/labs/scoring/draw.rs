//! Drawing the scoring lab's views: the score table, the temperature plots, the variance plot.

use super::maths::{
    all_finite, Column, ScoreKind, ScoreParams, VarianceCurve, D_K_EXPONENTS, SAMPLES,
};
use super::{key_names, ScoringInput, ScoringLab, TAU_MAX, TAU_MIN};
use crate::app::widgets::math_text;
use crate::app::widgets::math_unicode::unicode;
use crate::app::widgets::plot_words::PlotWords;
use crate::model::softmax::{entropy_bits, softmax_with_temperature};
use crate::t;
use crate::util::argmax;
use egui::{Color32, RichText, Stroke};
use egui_plot::{
    Bar, BarChart, Corner, HLine, Legend, Line, LineStyle, MarkerShape, Plot, PlotPoints, Points,
    VLine,
};

/// Points of the entropy-vs-τ curve.
const ENTROPY_POINTS: usize = 121;
/// The argmax key, in the table and in the bar chart; warm so it stands out on the dark theme.
const HIGHLIGHT: Color32 = Color32::from_rgb(255, 196, 64);
const BAR: Color32 = Color32::from_rgb(90, 140, 220);

impl ScoringLab {
    /// The four scorings side by side; returns the scaled-dot scores for the temperature view.
    pub(super) fn score_table(&mut self, ui: &mut egui::Ui, input: &ScoringInput<'_>) -> Vec<f32> {
        let h = input.keys.ncols();
        if !matches!(&self.params, Some((ph, ps, _)) if *ph == h && *ps == self.param_seed) {
            self.params = Some((h, self.param_seed, ScoreParams::random(h, self.param_seed)));
        }
        let Some((_, _, params)) = &self.params else {
            return Vec::new();
        };
        let columns: Vec<Column> = ScoreKind::ALL
            .iter()
            .map(|&kind| Column::new(kind, input, params))
            .collect();

        ui.label(t!("scoring-table-explain"));
        ui.horizontal_wrapped(|ui| {
            ui.weak(t!("scoring-table-weight"));
            if ui
                .button(t!("scoring-new-params"))
                .on_hover_text(t!("scoring-new-params-hover"))
                .clicked()
            {
                self.param_seed = self.param_seed.wrapping_add(1);
            }
        });
        let names = key_names(input);
        // Four scorings side by side need about 800 points; a narrower view (a tablet, a
        // projector's large text) shows them two by two so no column falls off the edge.
        let per_table = if ui.available_width() < 800.0 { 2 } else { 4 };
        for (t, part) in columns.chunks(per_table).enumerate() {
            scoring_table(ui, t, part, &names);
        }
        columns
            .into_iter()
            .find(|c| c.kind == ScoreKind::ScaledDot)
            .map(|c| c.scores)
            .unwrap_or_default()
    }

    pub(super) fn temperature_view(&mut self, ui: &mut egui::Ui, scaled: &[f32], names: &[String]) {
        ui.strong(t!("scoring-temperature-title"));
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut self.temperature, TAU_MIN..=TAU_MAX)
                .logarithmic(true)
                .text(t!("scoring-temperature-slider")),
        )
        .on_hover_text(t!("scoring-temperature-hover"));
        if !all_finite(scaled) {
            ui.colored_label(ui.visuals().warn_fg_color, t!("scoring-overflow"));
            return;
        }
        let t = scaled.len();
        let tau = self.temperature;
        let p = softmax_with_temperature(scaled, tau);
        let entropy = entropy_bits(&p);
        let max_bits = (t as f32).log2();
        ui.label(t!(
            "scoring-entropy",
            tau = format!("{tau:.2}"),
            entropy = format!("{entropy:.3}"),
            keys = t,
            max = format!("{max_bits:.3}")
        ));
        ui.weak(t!("scoring-temperature-explain"));
        let (weight, uniform) = (t!("scoring-weight"), t!("scoring-uniform"));

        let best = argmax(p.iter().copied()).map(|(i, _)| i);
        let bars: Vec<Bar> = p
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                Bar::new(i as f64, w as f64)
                    .name(&names[i])
                    .width(0.7)
                    .fill(if best == Some(i) { HIGHLIGHT } else { BAR })
            })
            .collect();
        let title = t!("scoring-weights-title");
        ui.label(&title);
        let mut words = PlotWords::new(title, t!("scoring-key")).categories(names);
        let weights: Vec<[f64; 2]> = p
            .iter()
            .enumerate()
            .map(|(i, &w)| [i as f64, w as f64])
            .collect();
        words.record(&weight, &weights);
        words.mark(&uniform, 1.0 / t as f64);
        let plot = Plot::new("scoring_temperature_weights")
            .height(130.0)
            .allow_scroll(false)
            .allow_drag(false)
            .allow_zoom(false)
            .include_y(0.0)
            .include_y(1.0)
            .y_axis_label(&weight)
            .x_axis_formatter(|m, _| crate::app::widgets::category_label(names, m.value))
            .show(ui, |plot| {
                plot.bar_chart(BarChart::new(&weight, bars));
                plot.hline(
                    HLine::new(&uniform, 1.0 / t as f64)
                        .style(LineStyle::dashed_dense())
                        .color(Color32::GRAY),
                );
            });
        words.add(ui, &plot.response);

        let (lo, hi) = ((TAU_MIN as f64).log10(), (TAU_MAX as f64).log10());
        let curve: Vec<[f64; 2]> = (0..ENTROPY_POINTS)
            .map(|i| {
                let x = lo + (hi - lo) * i as f64 / (ENTROPY_POINTS - 1) as f64;
                let h = entropy_bits(&softmax_with_temperature(scaled, 10f64.powf(x) as f32));
                [x, h as f64]
            })
            .collect();
        let now = (tau as f64).log10();
        ui.label(t!("scoring-entropy-plot-caption"));
        let mut words = PlotWords::new(t!("scoring-entropy-plot-title"), "log₁₀ τ");
        words.mark("log₂ T", max_bits as f64);
        words.mark(&t!("scoring-current-log-tau"), now);
        let plot = Plot::new("scoring_entropy")
            .height(150.0)
            .allow_scroll(false)
            .allow_drag(false)
            .allow_zoom(false)
            .include_y(0.0)
            .include_y(max_bits.max(0.1))
            .x_axis_label(t!("scoring-tau-axis"))
            .y_axis_label(t!("scoring-entropy-axis"))
            .x_axis_formatter(|m, _| tick(10f64.powf(m.value)))
            .show(ui, |plot| {
                plot.line(words.line(t!("scoring-entropy-series"), curve).width(2.0));
                plot.hline(
                    HLine::new("log₂ T", max_bits as f64)
                        .style(LineStyle::dashed_dense())
                        .color(Color32::GRAY),
                );
                plot.vline(VLine::new(t!("scoring-current-tau"), now).color(HIGHLIGHT));
                plot.points(
                    Points::new(t!("scoring-entropy-now"), vec![[now, entropy as f64]])
                        .shape(MarkerShape::Circle)
                        .filled(true)
                        .radius(4.0)
                        .color(HIGHLIGHT),
                );
            });
        words.add(ui, &plot.response);
    }

    pub(super) fn scaling_view(&mut self, ui: &mut egui::Ui, head_width: Option<usize>) {
        math_text::strong(ui, &t!("scoring-scaling-title"));
        // The slider moves the exponent; the stored d_k is always a power of two in range.
        let mut e = (self.d_k.max(1) as f64)
            .log2()
            .round()
            .clamp(*D_K_EXPONENTS.start() as f64, *D_K_EXPONENTS.end() as f64)
            as u32;
        ui.horizontal_wrapped(|ui| {
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut e, D_K_EXPONENTS)
                    .text(unicode("d_k"))
                    .custom_formatter(|v, _| format!("{}", 1u64 << (v as u32)))
                    .custom_parser(|s| {
                        s.trim()
                            .parse::<f64>()
                            .ok()
                            .filter(|d| *d > 0.0)
                            .map(|d| d.log2().round())
                    }),
            );
            if ui
                .button(t!("scoring-resample"))
                .on_hover_text(t!("scoring-resample-hover"))
                .clicked()
            {
                self.seed = self.seed.wrapping_add(1);
            }
        });
        self.d_k = 1 << e;
        if self.curve.as_ref().is_none_or(|c| c.seed != self.seed) {
            self.curve = Some(VarianceCurve::new(self.seed));
        }
        if let Some(curve) = self.curve.as_mut().filter(|c| !c.done()) {
            curve.advance(6.0);
            ui.ctx().request_repaint();
        }
        let Some(curve) = &self.curve else { return };
        if let Some(&(d, raw, scaled)) = curve.points.iter().find(|p| p.0 == self.d_k) {
            math_text::monospace(
                ui,
                &format!(
                    "d_k = {d}:  var(q·k) = {raw:.2} (≈ d_k)   var(q·k/√d_k) = {scaled:.3} (≈ 1)"
                ),
            );
        } else {
            ui.weak(t!(
                "scoring-measuring",
                done = curve.points.len(),
                widths = D_K_EXPONENTS.count()
            ));
        }
        math_text::weak(
            ui,
            &t!(
                "scoring-variance-explain",
                samples = SAMPLES,
                seed = self.seed
            ),
        );
        if let Some(h) = head_width {
            math_text::weak(
                ui,
                &t!(
                    "scoring-head-width",
                    width = h,
                    root = format!("{:.2}", (h as f32).sqrt())
                ),
            );
        }

        let log_points = |pick: fn(&(usize, f32, f32)) -> f32| -> Vec<[f64; 2]> {
            curve
                .points
                .iter()
                .filter(|p| pick(p).is_finite() && pick(p) > 0.0)
                .map(|p| [(p.0 as f64).log2(), (pick(p) as f64).log2()])
                .collect()
        };
        let (lo, hi) = (*D_K_EXPONENTS.start() as f64, *D_K_EXPONENTS.end() as f64);
        let mut words = PlotWords::new(t!("scoring-variance-title"), "log₂ d_k");
        let plot = Plot::new("scoring_variance")
            .height(260.0)
            .allow_scroll(false)
            .allow_drag(false)
            .allow_zoom(false)
            .legend(Legend::default().position(Corner::LeftTop))
            .include_y(-1.0)
            .include_y(hi + 0.5)
            .x_axis_label(unicode(&t!("scoring-d-k-axis")))
            .y_axis_label(t!("scoring-variance-axis"))
            .x_axis_formatter(|m, _| pow2_tick(m.value))
            .y_axis_formatter(|m, _| pow2_tick(m.value))
            .show(ui, |plot| {
                plot.line(
                    Line::new(
                        unicode(&t!("scoring-theory-raw")),
                        PlotPoints::from(vec![[lo, lo], [hi, hi]]),
                    )
                    .style(LineStyle::dashed_dense())
                    .color(Color32::GRAY),
                );
                plot.line(
                    Line::new(
                        t!("scoring-theory-scaled"),
                        PlotPoints::from(vec![[lo, 0.0], [hi, 0.0]]),
                    )
                    .style(LineStyle::dashed_dense())
                    .color(Color32::DARK_GRAY),
                );
                let raw = log_points(|p| p.1);
                let scaled = log_points(|p| p.2);
                words.record("log₂ var(q·k)", &raw);
                words.record("log₂ var(q·k/√d_k)", &scaled);
                plot.line(Line::new("var(q·k)", raw).width(2.0).color(BAR));
                plot.line(
                    Line::new(unicode("var(q·k/√d_k)"), scaled)
                        .width(2.0)
                        .color(HIGHLIGHT)
                        .style(LineStyle::dashed_loose()),
                );
                plot.vline(
                    VLine::new(unicode(&t!("scoring-chosen-d-k")), (self.d_k as f64).log2())
                        .color(Color32::GRAY)
                        .style(LineStyle::dashed_loose()),
                );
            });
        words.mark(&t!("scoring-chosen-log-d-k"), (self.d_k as f64).log2());
        words.add(ui, &plot.response);
    }
}

/// A weight as a small bar and its value, so a column of weights reads as a distribution.
fn weight_cell(ui: &mut egui::Ui, w: f32, top: bool) {
    // Not wrapped: the bar and its number belong on one line of the table.
    ui.horizontal(|ui| {
        let (rect, _) = ui.allocate_exact_size(egui::vec2(36.0, 10.0), egui::Sense::hover());
        let painter = ui.painter();
        painter.rect_filled(rect, 1.0, ui.visuals().extreme_bg_color);
        if w.is_finite() {
            let mut fill = rect;
            fill.set_width(rect.width() * w.clamp(0.0, 1.0));
            painter.rect_filled(fill, 1.0, if top { HIGHLIGHT } else { BAR });
        }
        painter.rect_stroke(
            rect,
            1.0,
            Stroke::new(1.0, ui.visuals().weak_text_color()),
            egui::StrokeKind::Inside,
        );
        let text = if w.is_finite() {
            format!("{w:.3}")
        } else {
            "—".to_string()
        };
        ui.label(RichText::new(text).monospace());
    });
}

/// A τ (or d_k, variance) axis tick written as a plain number.
fn tick(x: f64) -> String {
    if x >= 9.95 {
        format!("{x:.0}")
    } else if x >= 0.995 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// Ticks only at whole exponents of a log2 axis, written as 2^e.
fn pow2_tick(e: f64) -> String {
    let whole = e.round();
    if (e - whole).abs() > 1e-6 || !(-20.0..=40.0).contains(&whole) {
        String::new()
    } else if whole >= 0.0 {
        (1u64 << whole as u32).to_string()
    } else {
        tick(2f64.powi(whole as i32))
    }
}

/// One table of scorings: the keys down the side, each scoring's score and weight across.
fn scoring_table(ui: &mut egui::Ui, index: usize, columns: &[Column], names: &[String]) {
    // Both ways: a table still too wide scrolls inside itself instead of widening the view.
    egui::ScrollArea::both()
        .id_salt(("scoring_table", index))
        .max_height(230.0)
        .show(ui, |ui| {
            egui::Grid::new(("scoring_table_grid", index))
                .striped(true)
                .spacing([8.0, 3.0])
                .show(ui, |ui| {
                    ui.strong(t!("scoring-key"));
                    for c in columns {
                        ui.strong(c.kind.label());
                        ui.strong(t!("scoring-weight"));
                    }
                    ui.end_row();
                    for (i, name) in names.iter().enumerate() {
                        ui.label(name);
                        for c in columns {
                            let (s, w) = (&c.scores, &c.weights);
                            let top = c.best == Some(i);
                            let text = if s[i].is_finite() {
                                format!("{:.3}", s[i])
                            } else {
                                "—".to_string()
                            };
                            let mut text = RichText::new(text).monospace();
                            if top {
                                text = text.strong().color(HIGHLIGHT);
                            }
                            ui.label(text);
                            weight_cell(ui, w[i], top);
                        }
                        ui.end_row();
                    }
                });
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axes_label_whole_powers_only() {
        assert_eq!(pow2_tick(6.0), "64");
        assert_eq!(pow2_tick(0.0), "1");
        assert_eq!(pow2_tick(-1.0), "0.50");
        assert_eq!(pow2_tick(2.5), "");
        assert_eq!(tick(10f64.powf(-1.0)), "0.10");
        assert_eq!(tick(10f64.powf(1.0)), "10");
    }
}
