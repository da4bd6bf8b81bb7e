//! Extrapolation: the reverse task trained on 3–8 letters with five positional schemes, run
//! on 3–18 letters. Measured live, a few lengths per frame, and plotted.

use crate::app::widgets::plot_words::PlotWords;
use crate::model::Model;
use crate::train::tasks::TaskKind;
use crate::train::trainer::exact_at_length;
use egui::Ui;
use egui_plot::{Corner, Legend, Plot, VLine};

pub const MODELS: [(&str, &str); 5] = [
    ("sinusoidal", "extrap-sinusoidal"),
    ("learned", "extrap-learned"),
    ("RoPE", "extrap-rope"),
    ("ALiBi", "extrap-alibi"),
    ("relative", "extrap-relative"),
];
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
            .map(|(_, n)| store.get(n))
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
        ui.label(format!(
            "Five models trained by Glimpse on the reverse task with 3–{TRAINED_UP_TO} letters, each with a different positional scheme (same size, data and 3000 steps), then asked to reverse longer inputs. Exact-match accuracy on {EXAMPLES} random inputs per length ({total} of {all} measured):"
        ));
        if let Some(e) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        } else if total < all {
            ui.add(
                egui::ProgressBar::new(total as f32 / all as f32)
                    .desired_width(320.0)
                    .show_percentage()
                    .text(format!("measuring: {total} of {all}")),
            );
        }
        let mut words = PlotWords::new("exact match against input length", "letters");
        words.mark("longest training input", TRAINED_UP_TO as f64);
        let plot = Plot::new("extrapolation")
            .height(320.0)
            .allow_scroll(false)
            .include_y(0.0)
            .include_y(1.0)
            .x_axis_label("input length (letters)")
            .y_axis_label("exact match")
            .legend(Legend::default().position(Corner::LeftBottom))
            .show(ui, |p| {
                for ((label, _), r) in MODELS.iter().zip(&self.results) {
                    let pts = r
                        .iter()
                        .enumerate()
                        .filter_map(|(k, v)| v.map(|v| [(LENGTHS.start() + k) as f64, v as f64]))
                        .collect();
                    p.line(words.line(*label, pts));
                }
                p.vline(VLine::new("longest training input", TRAINED_UP_TO as f64));
            });
        words.add(ui, &plot.response);
        ui.label("Learned and sinusoidal positions fail as soon as the input is longer than anything seen (the learned table's rows past 8 were never trained); RoPE and the relative bias, which encode offsets, carry a little further. ALiBi only tells a head how far back a key is, which a reversal cannot use: it struggles even on the training lengths (its strength is language modelling, where recency is what matters).");
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
            if MODELS[i].0 != "ALiBi" {
                assert!(at(6) > 0.9, "{} at 6: {}", MODELS[i].0, at(6));
            }
            // Nobody reverses 18 letters having seen at most 8.
            assert!(at(18) < 0.2, "{} at 18: {}", MODELS[i].0, at(18));
        }
    }
}
