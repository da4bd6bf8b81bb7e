//! Extrapolation: the reverse task trained on 3–8 letters with five positional schemes, run
//! on 3–18 letters. Measured live, a few lengths per frame, and plotted.

use crate::app::widgets::plot_words::PlotWords;
use crate::model::Model;
use crate::train::tasks::TaskKind;
use crate::train::trainer::exact_at_length;
use egui::Ui;
use egui_plot::{Corner, Legend, Plot, VLine};

/// The five models, one per positional scheme.
pub const MODELS: [&str; 5] = [
    "extrap-sinusoidal",
    "extrap-learned",
    "extrap-rope",
    "extrap-alibi",
    "extrap-relative",
];

/// The plot's name for a model of `MODELS`: its positional scheme.
pub fn scheme_label(model: &str) -> String {
    match model {
        "extrap-sinusoidal" => crate::t!("positions-extrap-sinusoidal"),
        "extrap-learned" => crate::t!("positions-extrap-learned"),
        "extrap-rope" => crate::t!("positions-extrap-rope"),
        "extrap-alibi" => crate::t!("positions-extrap-alibi"),
        "extrap-relative" => crate::t!("positions-extrap-relative"),
        other => other.to_string(),
    }
}
pub const LENGTHS: std::ops::RangeInclusive<usize> = 3..=18;
pub const TRAINED_UP_TO: usize = 8;
/// Sequences per (model, length).
pub const EXAMPLES: usize = 50;

#[derive(Default)]
pub struct ExtrapolationPanel {
    models: Vec<std::sync::Arc<Model>>,
    /// `[model][length − 3]`: exact match, measured so far.
    pub results: Vec<Vec<Option<f32>>>,
    pub error: Option<String>,
}

impl ExtrapolationPanel {
    fn load(&mut self, store: &crate::app::models::store::ModelStore) {
        // Asked again each frame until every model is there (they may still be loading).
        if !self.models.is_empty() {
            return;
        }
        match MODELS
            .iter()
            .map(|n| store.get(n))
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(m) => {
                self.results = vec![Vec::new(); m.len()];
                self.models = m;
                self.error = None;
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// Measure the next cell; true while there is more to do.
    pub fn measure_next(&mut self, store: &crate::app::models::store::ModelStore) -> bool {
        self.load(store);
        let n = LENGTHS.count();
        let Some(i) = self.results.iter().position(|r| r.len() < n) else {
            return false;
        };
        let len = LENGTHS.start() + self.results[i].len();
        match exact_at_length(&self.models[i], TaskKind::Reverse, len, EXAMPLES, 1) {
            Ok(v) => self.results[i].push(v),
            Err(e) => {
                self.error = Some(e.to_string());
                return false;
            }
        }
        true
    }

    pub fn ui(&mut self, ui: &mut Ui, store: &crate::app::models::store::ModelStore) {
        // About 40 ms of measuring per frame, so the page stays responsive.
        let start = web_time::Instant::now();
        while start.elapsed().as_millis() < 40 && self.measure_next(store) {}
        let total: usize = self.results.iter().map(Vec::len).sum();
        let all = MODELS.len() * LENGTHS.count();
        if total < all && self.error.is_none() {
            ui.ctx().request_repaint();
        }
        ui.label(crate::t!(
            "positions-extrap-about",
            longest = TRAINED_UP_TO,
            examples = EXAMPLES,
            measured = total,
            all = all,
        ));
        if let Some(e) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        } else if total < all {
            ui.add(
                egui::ProgressBar::new(total as f32 / all as f32)
                    .desired_width(320.0)
                    .show_percentage()
                    .text(crate::t!(
                        "positions-extrap-measuring",
                        measured = total,
                        all = all
                    )),
            );
        }
        let longest = crate::t!("positions-extrap-longest");
        let mut words = PlotWords::new(
            crate::t!("positions-extrap-plot"),
            crate::t!("positions-extrap-letters"),
        );
        words.mark(&longest, TRAINED_UP_TO as f64);
        let plot = Plot::new("extrapolation")
            .height(320.0)
            .allow_scroll(false)
            .include_y(0.0)
            .include_y(1.0)
            .x_axis_label(crate::t!("positions-extrap-axis-length"))
            .y_axis_label(crate::t!("positions-extrap-axis-exact"))
            .legend(Legend::default().position(Corner::LeftBottom))
            .show(ui, |p| {
                for (model, r) in MODELS.iter().zip(&self.results) {
                    let pts = r
                        .iter()
                        .enumerate()
                        .filter_map(|(k, v)| v.map(|v| [(LENGTHS.start() + k) as f64, v as f64]))
                        .collect();
                    p.line(words.line(scheme_label(model), pts));
                }
                p.vline(VLine::new(longest, TRAINED_UP_TO as f64));
            });
        words.add(ui, &plot.response);
        ui.label(crate::t!("positions-extrap-conclusion"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cell_gets_measured_and_in_distribution_is_high() {
        let mut p = ExtrapolationPanel::default();
        while p.measure_next(&crate::app::models::store::ModelStore::default()) {}
        assert!(p.error.is_none());
        for (i, r) in p.results.iter().enumerate() {
            assert_eq!(r.len(), LENGTHS.count());
            let at = |len: usize| r[len - LENGTHS.start()].unwrap();
            if MODELS[i] != "extrap-alibi" {
                assert!(at(6) > 0.9, "{} at 6: {}", MODELS[i], at(6));
            }
            // Nobody reverses 18 letters having seen at most 8.
            assert!(at(18) < 0.2, "{} at 18: {}", MODELS[i], at(18));
        }
    }
}
