//! Sinusoidal positional encoding taken apart: the matrix itself, its bands and their
//! wavelengths, the binary-counter analogy, why p_i·p_j depends only on i − j, and the
//! rotation that carries PE(t) to PE(t+k).
//!
//! This file holds the panel's state, caches and layout. Every number drawn comes from
//! `model::position` (the functions the model runs) or from the pure functions in `maths`,
//! which build on them, so the tests check what the student sees; `draw` draws the views.

mod circle;
mod draw;
mod maths;

pub use circle::TOLERANCE as CIRCLE_TOLERANCE;
pub use maths::{
    band_point, closed_form_offset, confusions, offset_curve, rotate_by, rotation_block, similarity,
};

use crate::app::widgets::heatmap::Heatmap;
use crate::model::position::{sinusoidal, sinusoidal_frequency, sinusoidal_wavelength};
use draw::{binary_counter, matrix_view, offset_view, similarity_view};
use ndarray::Array2;

pub const D_RANGE: std::ops::RangeInclusive<usize> = 4..=128;
const BASE_RANGE: std::ops::RangeInclusive<f32> = 10.0..=100_000.0;
const N_RANGE: std::ops::RangeInclusive<usize> = 8..=256;
/// Furthest position and shift of the rotation view.
const MAX_SHIFT: usize = 500;
/// The starting positions whose offset curves are overlaid: they coincide.
const OFFSET_STARTS: [usize; 3] = [0, 5, 40];
/// The heatmap widget's smallest cell side, in points.
const SMALLEST_CELL: f32 = 3.0;

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

/// Widths at which the first positions are also written out as numbers (the notes' d = 4
/// table).
pub const SMALL_D: usize = 8;
/// Positions written out.
const FIRST: usize = 4;

/// PE(t) for the first positions, one column per dimension, as numbers.
fn first_positions(ui: &mut egui::Ui, pe: &Array2<f32>, d: usize, base: f32) {
    ui.strong(crate::t!("positions-sin-first-positions"));
    egui::Grid::new("sinusoidal_first")
        .striped(true)
        .spacing([16.0, 3.0])
        .show(ui, |ui| {
            ui.label("t");
            for k in 0..d / 2 {
                let w = sinusoidal_frequency(k, d, base);
                ui.label(format!("sin({w:.4}·t)"));
                ui.label(format!("cos({w:.4}·t)"));
            }
            ui.end_row();
            for (t, row) in pe.rows().into_iter().take(FIRST).enumerate() {
                ui.monospace(t.to_string());
                for x in row {
                    ui.monospace(format!("{x:.2}").replace('-', "−"));
                }
                ui.end_row();
            }
        });
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
    /// The unit-circle view: the position whose point is drawn, and the notes' two angles.
    pub circle_t: usize,
    pub notes_angles: bool,
    derived: Option<Derived>,
    /// The trained model shown at the end (loaded once).
    trained: Option<Result<std::sync::Arc<crate::model::Model>, String>>,
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
            circle_t: 2,
            notes_angles: false,
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

    pub fn ui(&mut self, ui: &mut egui::Ui, store: &crate::app::models::store::ModelStore) {
        self.sanitize();
        egui::ScrollArea::vertical()
            .id_salt("positions_sinusoidal")
            .auto_shrink(false)
            .show(ui, |ui| self.contents(ui, store));
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
        self.circle_t = self.circle_t.min(self.n - 1);
    }

    fn contents(&mut self, ui: &mut egui::Ui, store: &crate::app::models::store::ModelStore) {
        ui.heading(crate::t!("positions-sin-heading"));
        crate::app::formulas::show(ui, "sinusoidal-base");
        ui.horizontal_wrapped(|ui| {
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.d, D_RANGE)
                    .step_by(2.0)
                    .text(crate::t!("positions-sin-slider-d")),
            );
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.base, BASE_RANGE)
                    .logarithmic(true)
                    .fixed_decimals(0)
                    .text(crate::t!("positions-slider-base")),
            );
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.n, N_RANGE).text(crate::t!("positions-slider-n")),
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
        ui.label(crate::t!(
            "positions-sin-bands",
            d = d,
            bands = bands,
            shortest = format!("{:.2}", sinusoidal_wavelength(0, d, base)),
            longest = format!("{:.1}", sinusoidal_wavelength(bands - 1, d, base)),
            limit = format!("{:.0}", std::f64::consts::TAU * base as f64),
        ));
        if d <= SMALL_D {
            first_positions(ui, &derived.pe, d, base);
        }
        ui.separator();
        crate::app::widgets::fit::columns(ui, 2, 300.0, |cols| {
            matrix_view(&mut cols[0], &derived);
            self.band_view(&mut cols[1], &derived);
        });
        ui.separator();
        self.circle_view(ui);
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
        self.trained_view(ui, store);
    }

    /// A trained model that adds exactly these encodings (d 32, base 10000): its encoder
    /// self-attention on a short input.
    fn trained_view(&mut self, ui: &mut egui::Ui, store: &crate::app::models::store::ModelStore) {
        let model = store.keep(&mut self.trained, "reverse");
        let Ok(model) = model else {
            return;
        };
        ui.strong(crate::t!("positions-sin-trained"));
        ui.label(crate::t!(
            "positions-sin-trained-about",
            d = model.config.d_model
        ));
        let input = model.prepare("abcdefgh", "").input;
        let Ok(trace) = store.forward("reverse", &input, &crate::model::ForwardOptions::default())
        else {
            return;
        };
        let Some(a) = trace.attention(crate::model::AttentionKind::EncoderSelf, 0) else {
            return;
        };
        crate::app::widgets::fit::columns(ui, model.config.n_heads, 180.0, |cols| {
            for (h, col) in cols.iter_mut().enumerate() {
                col.label(crate::t!("positions-head", head = h));
                let context = crate::t!("positions-sin-trained-context", head = h);
                Heatmap {
                    max_cell: 22.0,
                    ..crate::app::labs::attention::head::weights_heatmap(a, h, &context)
                }
                .show(col);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::position;
    use egui_kittest::kittest::Queryable;

    fn harness() -> egui_kittest::Harness<'static, SinusoidalPanel> {
        let store = crate::app::models::store::ModelStore::default();
        egui_kittest::Harness::builder()
            .with_size(egui::vec2(1280.0, 800.0))
            .with_context_setup(crate::app::GlimpseApp::style)
            .build_ui_state(
                move |ui, p: &mut SinusoidalPanel| p.ui(ui, &store),
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

    #[test]
    fn the_unit_circle_names_the_positions_the_sine_confuses() {
        let mut h = harness();
        h.run_steps(2);
        h.get_by_role_and_label(egui::accesskit::Role::Slider, "position t on the circle");
        h.get_by_label_contains("A band is a point on the unit circle");
        assert_eq!(h.query_all_by_label_contains("sin(5π/6)").count(), 0);
        h.get_by_label("the notes' angles π/6 and 5π/6").click();
        h.state_mut().band = 0;
        h.run_steps(2);
        assert!(
            h.state().notes_angles,
            "the checkbox turns the notes' angles on"
        );
        h.get_by_label_contains("by the sine alone, 20, 27, 46; by the point (sin, cos), 46.");
        h.get_by_label_contains("sin(π/6) = 0.5000 and sin(5π/6) = 0.5000");
        h.get_by_label_contains(
            "Unit circle of band 0: position 2 at (sin, cos) = (+0.9093, −0.4161)",
        );
        h.state_mut().circle_t = 999;
        h.run_steps(2);
        assert_eq!(
            h.state().circle_t,
            63,
            "the position stays among the N drawn"
        );
    }
}
