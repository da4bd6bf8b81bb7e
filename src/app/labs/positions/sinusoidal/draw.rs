//! Drawing the sinusoidal lab's views: matrix, band, wavelengths, counter, similarity, rotation.

use super::{
    rotate_by, rotation_block, Derived, SinusoidalPanel, MAX_SHIFT, OFFSET_STARTS, SMALLEST_CELL,
};
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::app::widgets::math_unicode::unicode;
use crate::app::widgets::plot_words::PlotWords;
use crate::model::position::{sinusoidal, sinusoidal_frequency, sinusoidal_wavelength};
use egui::{Color32, RichText};
use egui_plot::{Corner, HLine, Legend, Line, LineStyle, Plot, PlotPoints, Points, VLine};

/// Points per position on the continuous sin/cos curves.
const CURVE_RESOLUTION: usize = 8;
pub(super) const SIN_COLOR: Color32 = Color32::from_rgb(255, 196, 64);
pub(super) const COS_COLOR: Color32 = Color32::from_rgb(90, 170, 255);
const OFFSET_COLORS: [Color32; 3] = [
    Color32::from_rgb(255, 196, 64),
    Color32::from_rgb(90, 170, 255),
    Color32::from_rgb(120, 220, 140),
];

impl SinusoidalPanel {
    pub(super) fn band_view(&mut self, ui: &mut egui::Ui, derived: &Derived) {
        let (d, base) = (self.d, self.base);
        ui.strong(crate::t!("positions-sin-band-title"));
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut self.band, 0..=d / 2 - 1)
                .text(crate::t!("positions-sin-band-k")),
        );
        let k = self.band;
        let omega = sinusoidal_frequency(k, d, base);
        crate::app::widgets::math_text::label(
            ui,
            &crate::t!(
                "positions-sin-band-about",
                band = k,
                dim_sin = 2 * k,
                dim_cos = 2 * k + 1,
                omega = format!("{omega:.4}"),
                wavelength = format!("{:.2}", sinusoidal_wavelength(k, d, base)),
            ),
        );
        ui.weak(crate::t!("positions-sin-band-note"));
        let column = |c: usize| -> Vec<[f64; 2]> {
            derived
                .pe
                .column(c)
                .iter()
                .enumerate()
                .map(|(t, &v)| [t as f64, v as f64])
                .collect()
        };
        let last = (derived.pe.nrows().saturating_sub(1)) as f64;
        let smooth = |f: fn(f64) -> f64| -> PlotPoints {
            let steps = (last as usize * CURVE_RESOLUTION).max(1);
            (0..=steps)
                .map(|i| {
                    let x = last * i as f64 / steps as f64;
                    [x, f(x * omega)]
                })
                .collect()
        };
        let position_t = crate::t!("positions-position-t");
        let mut words = PlotWords::new(
            crate::t!("positions-sin-band-plot", band = k),
            position_t.clone(),
        );
        let plot = Plot::new("sin_curves")
            .height(260.0)
            .allow_scroll(false)
            .include_y(-1.1)
            .include_y(1.1)
            .legend(Legend::default().position(Corner::RightBottom))
            .x_axis_label(position_t)
            .y_axis_label(crate::t!("positions-sin-axis-pe-value"))
            .show(ui, |plot| {
                let name = |f: &str| unicode(&format!("{f}(t·ω_{k})"));
                plot.line(Line::new(name("sin"), smooth(f64::sin)).color(SIN_COLOR));
                plot.line(
                    Line::new(name("cos"), smooth(f64::cos))
                        .color(COS_COLOR)
                        .style(LineStyle::dashed_loose()),
                );
                let (sin, cos) = (column(2 * k), column(2 * k + 1));
                let sin_name = words.record(format!("PE(t, {})", 2 * k), &sin);
                let cos_name = words.record(format!("PE(t, {})", 2 * k + 1), &cos);
                plot.points(
                    Points::new(sin_name, sin)
                        .radius(2.5)
                        .filled(true)
                        .color(SIN_COLOR),
                );
                plot.points(
                    Points::new(cos_name, cos)
                        .radius(2.5)
                        .filled(true)
                        .color(COS_COLOR),
                );
            });
        words.add(ui, &plot.response);
    }

    pub(super) fn wavelength_view(&self, ui: &mut egui::Ui) {
        let (d, base) = (self.d, self.base);
        ui.strong(crate::t!("positions-sin-wavelength-title"));
        crate::app::widgets::math_text::weak(ui, &crate::t!("positions-sin-wavelength-note"));
        let points: Vec<[f64; 2]> = (0..d / 2)
            .map(|k| [k as f64, sinusoidal_wavelength(k, d, base).log10()])
            .collect();
        let tau = std::f64::consts::TAU;
        let band_k = crate::t!("positions-sin-band-k");
        let chosen = crate::t!("positions-sin-chosen-band");
        let mut words = PlotWords::new(crate::t!("positions-sin-wavelength-plot"), band_k.clone());
        words.record(crate::t!("positions-sin-log-wavelength"), &points);
        words.mark("log₁₀ 2π", tau.log10());
        words.mark("log₁₀ 2π·base", (tau * base as f64).log10());
        words.mark("log₁₀ N", (self.n as f64).log10());
        words.mark(&chosen, self.band as f64);
        let plot = Plot::new("sin_wavelengths")
            .height(300.0)
            .allow_scroll(false)
            .legend(Legend::default().position(Corner::LeftTop))
            .include_y(0.0)
            .include_y((tau * base as f64).log10() + 0.3)
            .x_axis_label(band_k)
            .y_axis_label(crate::t!("positions-sin-axis-wavelength"))
            .y_axis_formatter(|m, _| pow10_tick(m.value))
            .show(ui, |plot| {
                plot.hline(
                    HLine::new("2π", tau.log10())
                        .color(Color32::GRAY)
                        .style(LineStyle::dashed_dense()),
                );
                plot.hline(
                    HLine::new("2π·base", (tau * base as f64).log10())
                        .color(Color32::DARK_GRAY)
                        .style(LineStyle::dashed_dense()),
                );
                plot.hline(
                    HLine::new(
                        crate::t!("positions-sin-n-positions"),
                        (self.n as f64).log10(),
                    )
                    .color(COS_COLOR)
                    .style(LineStyle::dashed_loose()),
                );
                plot.line(
                    Line::new(
                        crate::t!("positions-sin-wavelength"),
                        PlotPoints::from(points.clone()),
                    )
                    .width(2.0),
                );
                plot.points(
                    Points::new(crate::t!("positions-sin-bands-series"), points)
                        .radius(2.0)
                        .filled(true)
                        .color(SIN_COLOR),
                );
                plot.vline(VLine::new(chosen, self.band as f64).color(Color32::GRAY));
            });
        words.add(ui, &plot.response);
    }

    pub(super) fn rotation_view(&mut self, ui: &mut egui::Ui) {
        let (d, base) = (self.d, self.base);
        ui.strong(crate::t!("positions-sin-rotation-title"));
        ui.horizontal_wrapped(|ui| {
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.t, 0..=MAX_SHIFT)
                    .text(crate::t!("positions-position-t")),
            );
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.shift, 0..=MAX_SHIFT)
                    .text(crate::t!("positions-sin-shift-k")),
            );
        });
        let (t, k) = (self.t, self.shift);
        let target = sinusoidal(&[t + k], d, base).row(0).to_vec();
        let start = sinusoidal(&[t], d, base).row(0).to_vec();
        let rotated = rotate_by(&start, k, d, base);
        let max_diff = target
            .iter()
            .zip(&rotated)
            .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()));
        crate::app::widgets::fit::columns(ui, 2, 300.0, |cols| {
            let ui = &mut cols[0];
            ui.label(crate::t!(
                "positions-sin-rotation-table",
                target = t + k,
                shift = k,
                t = t
            ));
            egui::ScrollArea::vertical()
                .id_salt("sin_rotation_table")
                .max_height(260.0)
                .show(ui, |ui| {
                    egui::Grid::new("sin_rotation_grid")
                        .striped(true)
                        .spacing([14.0, 3.0])
                        .show(ui, |ui| {
                            ui.strong(crate::t!("positions-sin-band"));
                            ui.strong(format!("PE({}) sin", t + k));
                            ui.strong("cos");
                            ui.strong(format!("R({k})·PE({t}) sin"));
                            ui.strong("cos");
                            ui.end_row();
                            for b in 0..d / 2 {
                                ui.label(b.to_string());
                                for v in [
                                    target[2 * b],
                                    target[2 * b + 1],
                                    rotated[2 * b],
                                    rotated[2 * b + 1],
                                ] {
                                    ui.label(RichText::new(format!("{v:+.5}")).monospace());
                                }
                                ui.end_row();
                            }
                        });
                });
            let ui = &mut cols[1];
            let b = self.band;
            let [[a, s], [ms, c]] = rotation_block(k, b, d, base);
            ui.label(format!(
                "{}\n\
                 sin(tω + θ) = sin(tω)·cos θ + cos(tω)·sin θ\n\
                 cos(tω + θ) = −sin(tω)·sin θ + cos(tω)·cos θ",
                crate::t!("positions-sin-angle-addition"),
            ));
            ui.label(crate::t!(
                "positions-sin-rotation-block-about",
                band = b,
                shift = k,
                omega = format!("{:.4}", sinusoidal_frequency(b, d, base)),
                theta = format!("{:.4}", k as f64 * sinusoidal_frequency(b, d, base)),
            ));
            egui::Grid::new("sin_rotation_block")
                .spacing([10.0, 2.0])
                .show(ui, |ui| {
                    ui.label(crate::t!(
                        "positions-sin-rotation-block",
                        shift = k,
                        band = b
                    ));
                    ui.label(RichText::new(format!("{a:+.4}  {s:+.4}")).monospace());
                    ui.end_row();
                    ui.label("");
                    ui.label(RichText::new(format!("{ms:+.4}  {c:+.4}")).monospace());
                    ui.end_row();
                });
            ui.label(crate::t!(
                "positions-sin-rotation-check",
                target = t + k,
                shift = k,
                t = t,
                d = d,
                diff = format!("{max_diff:.1e}"),
            ));
            ui.weak(crate::t!("positions-sin-rotation-note"));
        });
    }
}

pub(super) fn matrix_view(ui: &mut egui::Ui, derived: &Derived) {
    let (n, d) = derived.pe.dim();
    ui.strong(crate::t!("positions-sin-matrix-title", n = n, d = d));
    ui.weak(crate::t!("positions-sin-matrix-note"));
    let mut map = Heatmap::new(
        derived.pe.view(),
        &derived.positions,
        &derived.dims,
        ColorScale::Diverging { limit: 1.0 },
    );
    let axes = (
        crate::t!("positions-axis-position"),
        crate::t!("positions-axis-dimension"),
    );
    let context = crate::t!("positions-sin-matrix-context");
    map.axis_names = (&axes.0, &axes.1);
    map.context = &context;
    heatmap_box(ui, n, |ui| {
        map.show_with_legend(ui, 200.0, "PE(t, i)");
    });
}

pub(super) fn binary_counter(ui: &mut egui::Ui) {
    ui.strong(crate::t!("positions-sin-counter-title"));
    ui.horizontal_top(|ui| {
        egui::Grid::new("sin_binary_counter")
            .striped(true)
            .spacing([14.0, 1.0])
            .show(ui, |ui| {
                ui.strong("t");
                for bit in ["b₀", "b₁", "b₂", "b₃"] {
                    ui.strong(bit);
                }
                ui.end_row();
                for t in 0u32..16 {
                    ui.label(RichText::new(t.to_string()).monospace());
                    for bit in 0..4 {
                        let on = (t >> bit) & 1 == 1;
                        let text = RichText::new(if on { "1" } else { "0" }).monospace();
                        ui.label(if on {
                            text.strong().color(SIN_COLOR)
                        } else {
                            text
                        });
                    }
                    ui.end_row();
                }
                ui.weak(crate::t!("positions-sin-counter-period"));
                for p in [2, 4, 8, 16] {
                    ui.weak(p.to_string());
                }
                ui.end_row();
            });
        ui.vertical(|ui| {
            ui.label(crate::t!("positions-sin-counter-bits"));
            ui.label(crate::t!("positions-sin-counter-smooth"));
        });
    });
}

pub(super) fn similarity_view(ui: &mut egui::Ui, derived: &Derived, d: usize) {
    let n = derived.sim.nrows();
    crate::app::widgets::math_text::strong(ui, &crate::t!("positions-sin-similarity-title", n = n));
    ui.weak(crate::t!("positions-sin-similarity-note", half = d / 2));
    let mut map = Heatmap::new(
        derived.sim.view(),
        &derived.positions,
        &derived.positions,
        ColorScale::diverging_for(derived.sim.iter()),
    );
    let axes = (
        crate::t!("positions-axis-position-i"),
        crate::t!("positions-axis-position-j"),
    );
    let context = crate::t!("positions-sin-similarity-context");
    map.axis_names = (&axes.0, &axes.1);
    map.context = &context;
    heatmap_box(ui, n, |ui| {
        map.show_with_legend(ui, 200.0, "p_i·p_j");
    });
}

pub(super) fn offset_view(ui: &mut egui::Ui, derived: &Derived, d: usize) {
    let title = crate::t!("positions-sin-offset-title");
    let offset_o = crate::t!("positions-offset-o");
    let strong = ui.visuals().strong_text_color();
    crate::app::widgets::math_text::colored(ui, &title, strong);
    crate::app::widgets::math_text::weak(ui, &crate::t!("positions-sin-offset-note"));
    let ink = ui.visuals().strong_text_color();
    let spoken = crate::app::widgets::math_text::spoken(&title);
    let mut words = PlotWords::new(spoken, offset_o.clone());
    let plot = Plot::new("sin_offset_curves")
        .height(300.0)
        .allow_scroll(false)
        .legend(Legend::default().position(Corner::RightTop))
        .include_y(0.0)
        .include_y(d as f64 / 2.0)
        .x_axis_label(offset_o)
        .y_axis_label(unicode("p_t·p_{t+o}"))
        .show(ui, |plot| {
            for (i, (t, curve)) in OFFSET_STARTS.iter().zip(&derived.offsets).enumerate() {
                let points: Vec<[f64; 2]> = curve
                    .iter()
                    .enumerate()
                    .map(|(o, &v)| [o as f64, v as f64])
                    .collect();
                let name = words.record(format!("t = {t}"), &points);
                // Widest first, so the narrower ones stay visible on top of it.
                plot.line(
                    Line::new(name, points)
                        .width(6.0 - 2.0 * i as f32)
                        .color(OFFSET_COLORS[i]),
                );
            }
            let closed: Vec<[f64; 2]> = derived
                .closed
                .iter()
                .enumerate()
                .map(|(o, &v)| [o as f64, v])
                .collect();
            let name = words.record("Σ_k cos(ω_k·o)", &closed);
            plot.line(
                Line::new(name, closed)
                    .color(ink)
                    .width(1.5)
                    .style(LineStyle::dashed_dense()),
            );
        });
    words.add(ui, &plot.response);
    let spread = (0..derived.closed.len())
        .map(|o| {
            derived
                .offsets
                .iter()
                .map(|c| (c[o] as f64 - derived.closed[o]).abs())
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max);
    crate::app::widgets::math_text::label(
        ui,
        &crate::t!("positions-sin-offset-gap", gap = format!("{spread:.1e}")),
    );
}

/// A bounded box for a heatmap inside the vertical scroll area (which would otherwise offer
/// it unlimited height), tall enough that even N = 256 rows need no inner scrolling.
fn heatmap_box(ui: &mut egui::Ui, rows: usize, add: impl FnOnce(&mut egui::Ui)) {
    let height = (rows as f32 * SMALLEST_CELL + 90.0).max(420.0);
    let width = ui.available_width();
    ui.allocate_ui(egui::vec2(width, height), add);
}

/// Ticks only at whole powers of ten on a log10 axis.
fn pow10_tick(e: f64) -> String {
    let whole = e.round();
    if (e - whole).abs() > 1e-6 || !(0.0..=12.0).contains(&whole) {
        String::new()
    } else if whole <= 5.0 {
        format!("{}", 10u64.pow(whole as u32))
    } else {
        format!("1e{whole}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wavelength_ticks_only_at_powers_of_ten() {
        assert_eq!(pow10_tick(0.0), "1");
        assert_eq!(pow10_tick(3.0), "1000");
        assert_eq!(pow10_tick(6.0), "1e6");
        assert_eq!(pow10_tick(2.5), "");
    }
}
