//! Sinusoidal positional encoding taken apart: the matrix itself, its bands and their
//! wavelengths, the binary-counter analogy, why p_i·p_j depends only on i − j, and the
//! rotation that carries PE(t) to PE(t+k).
//!
//! Every number drawn comes from `model::position` (the functions the model runs) or from the
//! pure functions below, which build on them, so the tests check what the student sees.

use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::model::position::{sinusoidal, sinusoidal_frequency, sinusoidal_wavelength};
use egui::{Color32, RichText};
use egui_plot::{Corner, HLine, Legend, Line, LineStyle, Plot, PlotPoints, Points, VLine};
use ndarray::{Array2, ArrayView2};

/// p_i·p_j for every pair of rows of an encoding: the Gram matrix PE·PEᵀ.
pub fn similarity(pe: ArrayView2<'_, f32>) -> Array2<f32> {
    pe.dot(&pe.t())
}

/// p_t·p_{t+o} for o = 0 … `max_offset`, from the model's own encoding of positions t … t+max.
pub fn offset_curve(t: usize, max_offset: usize, d: usize, base: f32) -> Vec<f32> {
    let positions: Vec<usize> = (t..=t + max_offset).collect();
    let pe = sinusoidal(&positions, d, base);
    let first = pe.row(0);
    pe.rows().into_iter().map(|row| first.dot(&row)).collect()
}

/// Σ_k cos(ω_k·o): what p_t·p_{t+o} must be, since each band contributes
/// sin(tω)sin((t+o)ω) + cos(tω)cos((t+o)ω) = cos(oω), whatever t is.
pub fn closed_form_offset(o: usize, d: usize, base: f32) -> f64 {
    (0..d / 2)
        .map(|k| (o as f64 * sinusoidal_frequency(k, d, base)).cos())
        .sum()
}

/// The 2×2 block of R(shift) for one band, acting on (sin, cos) = (PE(t,2b), PE(t,2b+1)).
///
/// With θ = shift·ω_b, the angle-addition formulas give
/// sin(tω + θ) = sin(tω)·cos θ + cos(tω)·sin θ and cos(tω + θ) = −sin(tω)·sin θ + cos(tω)·cos θ,
/// so the block is [[cos θ, sin θ], [−sin θ, cos θ]]. Because the pair is (sin, cos) rather
/// than (cos, sin), the sign of sin θ sits opposite to RoPE's matrix.
pub fn rotation_block(shift: usize, band: usize, d: usize, base: f32) -> [[f64; 2]; 2] {
    let (sin, cos) = (shift as f64 * sinusoidal_frequency(band, d, base)).sin_cos();
    [[cos, sin], [-sin, cos]]
}

/// R(k)·PE(t): every (sin, cos) pair of `pe_row` turned by its band's block. Equal to PE(t+k),
/// which is why a fixed linear map can move attention a fixed distance along the input.
pub fn rotate_by(pe_row: &[f32], k: usize, d: usize, base: f32) -> Vec<f32> {
    let mut out = pe_row.to_vec();
    for (band, pair) in out.chunks_exact_mut(2).enumerate() {
        let [[a, b], [c, e]] = rotation_block(k, band, d, base);
        let (s, co) = (pair[0] as f64, pair[1] as f64);
        pair[0] = (a * s + b * co) as f32;
        pair[1] = (c * s + e * co) as f32;
    }
    out
}

const D_RANGE: std::ops::RangeInclusive<usize> = 4..=128;
const BASE_RANGE: std::ops::RangeInclusive<f32> = 10.0..=100_000.0;
const N_RANGE: std::ops::RangeInclusive<usize> = 8..=256;
/// Furthest position and shift of the rotation view.
const MAX_SHIFT: usize = 500;
/// The starting positions whose offset curves are overlaid: they coincide.
const OFFSET_STARTS: [usize; 3] = [0, 5, 40];
/// The heatmap widget's smallest cell side, in points.
const SMALLEST_CELL: f32 = 3.0;
/// Points per position on the continuous sin/cos curves.
const CURVE_RESOLUTION: usize = 8;
const SIN_COLOR: Color32 = Color32::from_rgb(255, 196, 64);
const COS_COLOR: Color32 = Color32::from_rgb(90, 170, 255);
const OFFSET_COLORS: [Color32; 3] = [
    Color32::from_rgb(255, 196, 64),
    Color32::from_rgb(90, 170, 255),
    Color32::from_rgb(120, 220, 140),
];

/// Everything derived from (d, base, N), recomputed only when one of them moves.
struct Derived {
    key: (usize, u32, usize),
    /// `position::sinusoidal` for positions 0 … N−1: exactly what the heatmap draws.
    pe: Array2<f32>,
    sim: Array2<f32>,
    positions: Vec<String>,
    dims: Vec<String>,
    /// One curve p_t·p_{t+o} per start in `OFFSET_STARTS`.
    offsets: Vec<Vec<f32>>,
    closed: Vec<f64>,
}

impl Derived {
    fn new(d: usize, base: f32, n: usize) -> Self {
        let ts: Vec<usize> = (0..n).collect();
        let pe = sinusoidal(&ts, d, base);
        let sim = similarity(pe.view());
        let dims = (0..d)
            .map(|c| format!("{c} {}", if c % 2 == 0 { "sin" } else { "cos" }))
            .collect();
        Self {
            key: (d, base.to_bits(), n),
            pe,
            sim,
            positions: ts.iter().map(|t| t.to_string()).collect(),
            dims,
            offsets: OFFSET_STARTS
                .iter()
                .map(|&t| offset_curve(t, n, d, base))
                .collect(),
            closed: (0..=n).map(|o| closed_form_offset(o, d, base)).collect(),
        }
    }
}

pub struct SinusoidalPanel {
    /// Model width (even): d/2 bands of (sin, cos).
    pub d: usize,
    pub base: f32,
    /// Positions 0 … N−1 drawn in the matrices and curves.
    pub n: usize,
    /// The band whose sin and cos are plotted and whose rotation block is shown.
    pub band: usize,
    /// Rotation view: the starting position t and the shift k.
    pub t: usize,
    pub shift: usize,
    derived: Option<Derived>,
    /// The trained model shown at the end (loaded once).
    trained: Option<Result<crate::model::Model, String>>,
}

impl Default for SinusoidalPanel {
    fn default() -> Self {
        Self {
            d: 64,
            base: 10_000.0,
            n: 64,
            band: 2,
            t: 10,
            shift: 5,
            derived: None,
            trained: None,
        }
    }
}

impl SinusoidalPanel {
    /// The encoding matrix drawn in the last frame (positions 0 … N−1 × d), if any.
    pub fn shown_encoding(&self) -> Option<&Array2<f32>> {
        self.derived.as_ref().map(|d| &d.pe)
    }

    pub fn ui(&mut self, ui: &mut egui::Ui) {
        self.sanitize();
        egui::ScrollArea::vertical()
            .id_salt("positions_sinusoidal")
            .auto_shrink(false)
            .show(ui, |ui| self.contents(ui));
    }

    /// Keep state set from outside (tests, saved sessions) inside what the sliders allow.
    fn sanitize(&mut self) {
        self.d = self.d.clamp(*D_RANGE.start(), *D_RANGE.end()) / 2 * 2;
        if !self.base.is_finite() {
            self.base = 10_000.0;
        }
        self.base = self.base.clamp(*BASE_RANGE.start(), *BASE_RANGE.end());
        self.n = self.n.clamp(*N_RANGE.start(), *N_RANGE.end());
        self.band = self.band.min(self.d / 2 - 1);
        self.t = self.t.min(MAX_SHIFT);
        self.shift = self.shift.min(MAX_SHIFT);
    }

    fn contents(&mut self, ui: &mut egui::Ui) {
        ui.heading("Sinusoidal positional encoding");
        ui.label(
            RichText::new(
                "PE(t, 2k) = sin(t·ω_k)    PE(t, 2k+1) = cos(t·ω_k)    ω_k = base^(−2k/d)",
            )
            .monospace(),
        );
        ui.horizontal_wrapped(|ui| {
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.d, D_RANGE)
                    .step_by(2.0)
                    .text("d (model width)"),
            );
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.base, BASE_RANGE)
                    .logarithmic(true)
                    .fixed_decimals(0)
                    .text("base"),
            );
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.n, N_RANGE).text("positions N"),
            );
        });
        self.sanitize();
        let (d, base, n) = (self.d, self.base, self.n);
        let key = (d, base.to_bits(), n);
        if self.derived.as_ref().is_none_or(|x| x.key != key) {
            self.derived = Some(Derived::new(d, base, n));
        }
        let Some(derived) = self.derived.take() else {
            return;
        };
        let bands = d / 2;
        ui.label(format!(
            "d = {d}: {bands} bands (dimension pairs), wavelengths from 2π = {:.2} to {:.1} \
             positions (2π·base = {:.0} is the limit they approach)",
            sinusoidal_wavelength(0, d, base),
            sinusoidal_wavelength(bands - 1, d, base),
            std::f64::consts::TAU * base as f64,
        ));
        ui.separator();
        crate::app::widgets::fit::columns(ui, 2, 300.0, |cols| {
            matrix_view(&mut cols[0], &derived);
            self.band_view(&mut cols[1], &derived);
        });
        ui.separator();
        crate::app::widgets::fit::columns(ui, 2, 300.0, |cols| {
            self.wavelength_view(&mut cols[0]);
            binary_counter(&mut cols[1]);
        });
        ui.separator();
        // An N × N heatmap needs N·3 points across at the least; past half the width it gets
        // the whole width and the offset curves go below it.
        if ui.available_width() / 2.0 >= n as f32 * SMALLEST_CELL + 180.0 {
            crate::app::widgets::fit::columns(ui, 2, 300.0, |cols| {
                similarity_view(&mut cols[0], &derived, d);
                offset_view(&mut cols[1], &derived, d);
            });
        } else {
            similarity_view(ui, &derived, d);
            offset_view(ui, &derived, d);
        }
        ui.separator();
        self.rotation_view(ui);
        self.derived = Some(derived);
        ui.separator();
        self.trained_view(ui);
    }

    /// A trained model that adds exactly these encodings (d 32, base 10000): its encoder
    /// self-attention on a short input.
    fn trained_view(&mut self, ui: &mut egui::Ui) {
        let model = self.trained.get_or_insert_with(|| {
            crate::model::builtin::load("reverse").map_err(|e| e.to_string())
        });
        let Ok(model) = model else {
            return;
        };
        ui.strong("On a trained model");
        ui.label(format!(
            "“reverse” (and translate, copy, sort) add these encodings with d = {} and base 10000 to their token embeddings. Its encoder self-attention, layer 0, on “abcdefgh”: with positions, heads can attend by place (to neighbours, to the start), not only by letter.",
            model.config.d_model
        ));
        let input = model.prepare("abcdefgh", "").input;
        let Ok(trace) = model.forward(&input, &crate::model::ForwardOptions::default()) else {
            return;
        };
        let Some(a) = trace.attention(crate::model::AttentionKind::EncoderSelf, 0) else {
            return;
        };
        crate::app::widgets::fit::columns(ui, model.config.n_heads, 180.0, |cols| {
            for (h, col) in cols.iter_mut().enumerate() {
                col.label(format!("head {h}"));
                let context = format!("reverse · encoder layer 0 · head {h}");
                Heatmap {
                    max_cell: 22.0,
                    ..crate::app::explorer::head::weights_heatmap(a, h, &context)
                }
                .show(col);
            }
        });
    }

    fn band_view(&mut self, ui: &mut egui::Ui, derived: &Derived) {
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
        let column = |c: usize| -> PlotPoints {
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
        Plot::new("sin_curves")
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
                plot.points(
                    Points::new(format!("PE(t, {})", 2 * k), column(2 * k))
                        .radius(2.5)
                        .filled(true)
                        .color(SIN_COLOR),
                );
                plot.points(
                    Points::new(format!("PE(t, {})", 2 * k + 1), column(2 * k + 1))
                        .radius(2.5)
                        .filled(true)
                        .color(COS_COLOR),
                );
            });
    }

    fn wavelength_view(&self, ui: &mut egui::Ui) {
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
        Plot::new("sin_wavelengths")
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
                plot.vline(VLine::new("chosen band", self.band as f64).color(Color32::LIGHT_GRAY));
            });
    }

    fn rotation_view(&mut self, ui: &mut egui::Ui) {
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

fn matrix_view(ui: &mut egui::Ui, derived: &Derived) {
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

fn binary_counter(ui: &mut egui::Ui) {
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

fn similarity_view(ui: &mut egui::Ui, derived: &Derived, d: usize) {
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

fn offset_view(ui: &mut egui::Ui, derived: &Derived, d: usize) {
    ui.strong("p_t·p_{t+o} against the offset o");
    ui.weak(
        "Three starting positions t, one curve: they lie on top of each other and on the \
         dashed closed form, because each band contributes cos(ω_k·o) whatever t is.",
    );
    Plot::new("sin_offset_curves")
        .height(300.0)
        .allow_scroll(false)
        .legend(Legend::default().position(Corner::RightTop))
        .include_y(0.0)
        .include_y(d as f64 / 2.0)
        .x_axis_label("offset o")
        .y_axis_label("p_t·p_{t+o}")
        .show(ui, |plot| {
            for (i, (t, curve)) in OFFSET_STARTS.iter().zip(&derived.offsets).enumerate() {
                let points: PlotPoints = curve
                    .iter()
                    .enumerate()
                    .map(|(o, &v)| [o as f64, v as f64])
                    .collect();
                // Widest first, so the narrower ones stay visible on top of it.
                plot.line(
                    Line::new(format!("t = {t}"), points)
                        .width(6.0 - 2.0 * i as f32)
                        .color(OFFSET_COLORS[i]),
                );
            }
            let closed: PlotPoints = derived
                .closed
                .iter()
                .enumerate()
                .map(|(o, &v)| [o as f64, v])
                .collect();
            plot.line(
                Line::new("Σ_k cos(ω_k·o)", closed)
                    .color(Color32::WHITE)
                    .width(1.5)
                    .style(LineStyle::dashed_dense()),
            );
        });
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
    use crate::model::position;
    use egui_kittest::kittest::Queryable;

    #[test]
    fn offset_curve_depends_only_on_the_offset_and_matches_the_closed_form() {
        for (d, base) in [(64, 10_000.0), (16, 100.0), (128, 100_000.0)] {
            let curves: Vec<Vec<f32>> = [0, 5, 40]
                .iter()
                .map(|&t| offset_curve(t, 100, d, base))
                .collect();
            for o in 0..=100 {
                let closed = closed_form_offset(o, d, base);
                for c in &curves {
                    assert!((c[o] - curves[0][o]).abs() < 1e-4, "d {d} o {o}");
                    assert!((c[o] as f64 - closed).abs() < 1e-4, "d {d} o {o}");
                }
            }
        }
    }

    #[test]
    fn closed_form_by_hand() {
        // o = 0: every band gives cos 0 = 1.
        assert_eq!(closed_form_offset(0, 64, 10_000.0), 32.0);
        // d = 4, base 10000: ω = 1, 0.01, so o = 3 gives cos 3 + cos 0.03.
        let want = 3f64.cos() + 0.03f64.cos();
        assert!((closed_form_offset(3, 4, 10_000.0) - want).abs() < 1e-12);
    }

    #[test]
    fn rotating_pe_t_by_k_gives_pe_t_plus_k() {
        for (d, base) in [(4, 10_000.0), (16, 100.0), (64, 10_000.0), (128, 100_000.0)] {
            for t in [0, 1, 7, 100, 499] {
                for k in [0, 1, 3, 50, 400] {
                    let start = position::sinusoidal(&[t], d, base).row(0).to_vec();
                    let want = position::sinusoidal(&[t + k], d, base);
                    let got = rotate_by(&start, k, d, base);
                    for (a, b) in got.iter().zip(want.row(0)) {
                        assert!((a - b).abs() < 1e-5, "d {d} t {t} k {k}: {a} vs {b}");
                    }
                }
            }
        }
    }

    #[test]
    fn rotation_block_by_hand() {
        // Band 0 has ω = 1, so a shift of 1 turns by θ = 1 rad; PE(0) = (sin 0, cos 0) = (0, 1)
        // goes to (sin 1, cos 1) = PE(1) through the block [[cos 1, sin 1], [−sin 1, cos 1]].
        let [[a, b], [c, e]] = rotation_block(1, 0, 8, 10_000.0);
        let (s, co) = 1f64.sin_cos();
        assert_eq!([[a, b], [c, e]], [[co, s], [-s, co]]);
        let r = rotate_by(&[0.0, 1.0], 1, 2, 10_000.0);
        assert!((r[0] - 1f32.sin()).abs() < 1e-7 && (r[1] - 1f32.cos()).abs() < 1e-7);
        // A rotation: determinant 1.
        let [[a, b], [c, e]] = rotation_block(37, 3, 16, 100.0);
        assert!((a * e - b * c - 1.0).abs() < 1e-12);
    }

    #[test]
    fn similarity_has_d_over_two_on_the_diagonal_and_is_symmetric() {
        let positions: Vec<usize> = (0..20).collect();
        let pe = position::sinusoidal(&positions, 32, 10_000.0);
        let sim = similarity(pe.view());
        assert_eq!(sim.dim(), (20, 20));
        for i in 0..20 {
            assert!((sim[[i, i]] - 16.0).abs() < 1e-5);
            for j in 0..20 {
                assert!((sim[[i, j]] - sim[[j, i]]).abs() < 1e-5);
                let closed = closed_form_offset(i.abs_diff(j), 32, 10_000.0);
                assert!((sim[[i, j]] as f64 - closed).abs() < 1e-4);
            }
        }
    }

    #[test]
    fn wavelength_ticks_only_at_powers_of_ten() {
        assert_eq!(pow10_tick(0.0), "1");
        assert_eq!(pow10_tick(3.0), "1000");
        assert_eq!(pow10_tick(6.0), "1e6");
        assert_eq!(pow10_tick(2.5), "");
    }

    fn harness() -> egui_kittest::Harness<'static, SinusoidalPanel> {
        egui_kittest::Harness::builder()
            .with_size(egui::vec2(1280.0, 800.0))
            .with_context_setup(crate::app::GlimpseApp::style)
            .build_ui_state(
                |ui, p: &mut SinusoidalPanel| p.ui(ui),
                SinusoidalPanel::default(),
            )
    }

    #[test]
    fn the_heatmap_draws_the_models_encoding() {
        let mut h = harness();
        h.run_steps(3);
        let positions: Vec<usize> = (0..64).collect();
        let want = position::sinusoidal(&positions, 64, 10_000.0);
        assert_eq!(h.state().shown_encoding(), Some(&want));
        h.state_mut().d = 16;
        h.state_mut().base = 100.0;
        h.state_mut().n = 20;
        h.run_steps(2);
        let positions: Vec<usize> = (0..20).collect();
        let want = position::sinusoidal(&positions, 16, 100.0);
        assert_eq!(h.state().shown_encoding(), Some(&want));
    }

    #[test]
    fn the_panel_draws_and_follows_its_sliders() {
        let mut h = harness();
        h.run_steps(3);
        for slider in [
            "d (model width)",
            "base",
            "positions N",
            "band k",
            "shift k",
        ] {
            h.get_by_role_and_label(egui::accesskit::Role::Slider, slider);
        }
        h.get_by_label_contains("d = 64: 32 bands");
        h.get_by_label_contains("binary-counter analogy");
        h.get_by_label_contains("max |PE(15) − R(5)·PE(10)|");

        h.state_mut().d = 16;
        h.state_mut().band = 99;
        h.state_mut().shift = 7;
        h.run_steps(2);
        assert_eq!(h.state().band, 7, "the band follows the narrower width");
        h.get_by_label_contains("d = 16: 8 bands");
        h.get_by_label_contains("band 7 (dimensions 14, 15)");
        h.get_by_label_contains("max |PE(17) − R(7)·PE(10)| over all 16 dimensions");
        assert_eq!(h.query_all_by_label_contains("d = 64: 32 bands").count(), 0);
    }
}
