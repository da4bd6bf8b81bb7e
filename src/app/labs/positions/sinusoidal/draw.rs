//! Drawing the sinusoidal lab's views: matrix, band, wavelengths, counter, similarity, rotation.

use super::{
    rotate_by, rotation_block, Derived, SinusoidalPanel, MAX_SHIFT, OFFSET_STARTS, SMALLEST_CELL,
};
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::app::widgets::plot_words::PlotWords;
use crate::model::position::{sinusoidal, sinusoidal_frequency, sinusoidal_wavelength};
use egui::{Color32, RichText};
use egui_plot::{Corner, HLine, Legend, Line, LineStyle, Plot, PlotPoints, Points, VLine};

/// Points per position on the continuous sin/cos curves.
const CURVE_RESOLUTION: usize = 8;
const SIN_COLOR: Color32 = Color32::from_rgb(255, 196, 64);
const COS_COLOR: Color32 = Color32::from_rgb(90, 170, 255);
const OFFSET_COLORS: [Color32; 3] = [
    Color32::from_rgb(255, 196, 64),
    Color32::from_rgb(90, 170, 255),
    Color32::from_rgb(120, 220, 140),
];

impl SinusoidalPanel {
    pub(super) fn band_view(&mut self, ui: &mut egui::Ui, derived: &Derived) {
        let (d, base) = (self.d, self.base);
        ui.strong("One band against position");
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut self.band, 0..=d / 2 - 1).text("band k"),
        );
        let k = self.band;
        let omega = sinusoidal_frequency(k, d, base);
        ui.label(format!(
            "band {k} (dimensions {}, {}): ω_k = {omega:.4} rad per position, wavelength {:.2} \
             positions",
            2 * k,
            2 * k + 1,
            sinusoidal_wavelength(k, d, base),
        ));
        ui.weak(
            "Dots: the values the model adds at whole positions. Lines: the underlying sine and \
             cosine. The first bands wiggle fast; the last barely move across N positions.",
        );
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
        let mut words = PlotWords::new(format!("band {k}: sine and cosine"), "position t");
        let plot = Plot::new("sin_curves")
            .height(260.0)
            .allow_scroll(false)
            .include_y(-1.1)
            .include_y(1.1)
            .legend(Legend::default().position(Corner::RightBottom))
            .x_axis_label("position t")
            .y_axis_label("PE value")
            .show(ui, |plot| {
                plot.line(Line::new(format!("sin(t·ω_{k})"), smooth(f64::sin)).color(SIN_COLOR));
                plot.line(
                    Line::new(format!("cos(t·ω_{k})"), smooth(f64::cos))
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
        ui.strong("Wavelength of every band");
        ui.weak(
            "A geometric ladder: each band's wavelength is base^(2/d) times the previous one, \
             from 2π up towards 2π·base. Bands above the N line never finish one cycle within \
             the N positions drawn.",
        );
        let points: Vec<[f64; 2]> = (0..d / 2)
            .map(|k| [k as f64, sinusoidal_wavelength(k, d, base).log10()])
            .collect();
        let tau = std::f64::consts::TAU;
        let mut words = PlotWords::new("log₁₀ wavelength of every band", "band k");
        words.record("log₁₀ wavelength", &points);
        words.mark("log₁₀ 2π", tau.log10());
        words.mark("log₁₀ 2π·base", (tau * base as f64).log10());
        words.mark("log₁₀ N", (self.n as f64).log10());
        words.mark("chosen band", self.band as f64);
        let plot = Plot::new("sin_wavelengths")
            .height(300.0)
            .allow_scroll(false)
            .legend(Legend::default().position(Corner::LeftTop))
            .include_y(0.0)
            .include_y((tau * base as f64).log10() + 0.3)
            .x_axis_label("band k")
            .y_axis_label("wavelength in positions (log scale)")
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
                    HLine::new("N positions", (self.n as f64).log10())
                        .color(COS_COLOR)
                        .style(LineStyle::dashed_loose()),
                );
                plot.line(Line::new("wavelength", PlotPoints::from(points.clone())).width(2.0));
                plot.points(
                    Points::new("bands", points)
                        .radius(2.0)
                        .filled(true)
                        .color(SIN_COLOR),
                );
                plot.vline(VLine::new("chosen band", self.band as f64).color(Color32::GRAY));
            });
        words.add(ui, &plot.response);
    }

    pub(super) fn rotation_view(&mut self, ui: &mut egui::Ui) {
        let (d, base) = (self.d, self.base);
        ui.strong("Moving k positions is a rotation");
        ui.horizontal_wrapped(|ui| {
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.t, 0..=MAX_SHIFT).text("position t"),
            );
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.shift, 0..=MAX_SHIFT).text("shift k"),
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
            ui.label(format!("PE({}) beside R({k})·PE({t}), band by band", t + k));
            egui::ScrollArea::vertical()
                .id_salt("sin_rotation_table")
                .max_height(260.0)
                .show(ui, |ui| {
                    egui::Grid::new("sin_rotation_grid")
                        .striped(true)
                        .spacing([14.0, 3.0])
                        .show(ui, |ui| {
                            ui.strong("band");
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
            ui.label(
                "The angle-addition formulas, with θ = k·ω for one band:\n\
                 sin(tω + θ) = sin(tω)·cos θ + cos(tω)·sin θ\n\
                 cos(tω + θ) = −sin(tω)·sin θ + cos(tω)·cos θ",
            );
            ui.label(format!(
                "so each (sin, cos) pair is turned by the block [[cos θ, sin θ], [−sin θ, cos θ]]. \
                 For band {b}: θ = {k}·{:.4} = {:.4} rad,",
                sinusoidal_frequency(b, d, base),
                k as f64 * sinusoidal_frequency(b, d, base),
            ));
            egui::Grid::new("sin_rotation_block")
                .spacing([10.0, 2.0])
                .show(ui, |ui| {
                    ui.label(format!("R({k}) block {b} ="));
                    ui.label(RichText::new(format!("{a:+.4}  {s:+.4}")).monospace());
                    ui.end_row();
                    ui.label("");
                    ui.label(RichText::new(format!("{ms:+.4}  {c:+.4}")).monospace());
                    ui.end_row();
                });
            ui.label(format!(
                "max |PE({}) − R({k})·PE({t})| over all {d} dimensions = {max_diff:.1e}",
                t + k
            ));
            ui.weak(
                "R(k) is block-diagonal and depends on the shift k alone, never on t: one fixed \
                 linear map moves every position k steps on, so a head can learn \"look k \
                 tokens back\" once for the whole input.",
            );
        });
    }
}

pub(super) fn matrix_view(ui: &mut egui::Ui, derived: &Derived) {
    let (n, d) = derived.pe.dim();
    ui.strong(format!("PE: {n} positions × {d} dimensions"));
    ui.weak(
        "Left columns (fast bands) change from row to row; right columns (slow bands) stay \
         near sin = 0, cos = 1.",
    );
    let mut map = Heatmap::new(
        derived.pe.view(),
        &derived.positions,
        &derived.dims,
        ColorScale::Diverging { limit: 1.0 },
    );
    map.axis_names = ("position", "dimension");
    map.context = "sinusoidal PE";
    heatmap_box(ui, n, |ui| {
        map.show_with_legend(ui, 200.0, "PE(t, i)");
    });
}

pub(super) fn binary_counter(ui: &mut egui::Ui) {
    ui.strong("The binary-counter analogy");
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
                ui.weak("period");
                for p in [2, 4, 8, 16] {
                    ui.weak(p.to_string());
                }
                ui.end_row();
            });
        ui.vertical(|ui| {
            ui.label(
                "Count in binary, bits from low to high. The low bit b₀ flips at every step, \
                 like the first bands; each higher bit flips half as often, and the high bits \
                 flip slowest, like the last bands.",
            );
            ui.label(
                "Together the bits give every position a unique pattern. Sinusoids are the \
                 smooth version: instead of square waves with periods 2, 4, 8, 16 they use sine \
                 and cosine waves whose wavelengths grow geometrically, and the values are \
                 continuous, so nearby positions get nearby vectors.",
            );
        });
    });
}

pub(super) fn similarity_view(ui: &mut egui::Ui, derived: &Derived, d: usize) {
    let n = derived.sim.nrows();
    ui.strong(format!("Similarity p_i·p_j of all {n} positions"));
    ui.weak(format!(
        "The diagonal is d/2 = {} (each band is a unit vector). Every diagonal stripe is \
         constant: the dot product depends only on the distance i − j.",
        d / 2
    ));
    let mut map = Heatmap::new(
        derived.sim.view(),
        &derived.positions,
        &derived.positions,
        ColorScale::diverging_for(derived.sim.iter()),
    );
    map.axis_names = ("position i", "position j");
    map.context = "PE similarity";
    heatmap_box(ui, n, |ui| {
        map.show_with_legend(ui, 200.0, "p_i·p_j");
    });
}

pub(super) fn offset_view(ui: &mut egui::Ui, derived: &Derived, d: usize) {
    ui.strong("p_t·p_{t+o} against the offset o");
    ui.weak(
        "Three starting positions t, one curve: they lie on top of each other and on the \
         dashed closed form, because each band contributes cos(ω_k·o) whatever t is.",
    );
    let ink = ui.visuals().strong_text_color();
    let mut words = PlotWords::new("p_t·p_{t+o} against the offset o", "offset o");
    let plot = Plot::new("sin_offset_curves")
        .height(300.0)
        .allow_scroll(false)
        .legend(Legend::default().position(Corner::RightTop))
        .include_y(0.0)
        .include_y(d as f64 / 2.0)
        .x_axis_label("offset o")
        .y_axis_label("p_t·p_{t+o}")
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
    ui.label(format!(
        "largest gap between the curves and Σ_k cos(ω_k·o): {spread:.1e}"
    ));
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
