//! The scoring and scaling lab: one query scored against the same keys by four scoring
//! functions, the softmax temperature running from argmax to uniform, and why scaled
//! dot-product attention divides by √d_k.
//!
//! This file holds the lab's state and layout. The numbers come from pure functions in
//! `maths` (`scores`, `dot_variance`) and the model's own softmax and entropy from
//! `model::softmax`, so tests check the mathematics without drawing; `draw` draws the views.

mod draw;
mod lab;
mod maths;

pub use maths::{dot_variance, scores, ScoreKind, ScoreParams};

use crate::t;
use egui::RichText;
use maths::VarianceCurve;
use ndarray::{ArrayView1, ArrayView2};

/// The query and keys to score: one head of the loaded model on the user's input.
pub struct ScoringInput<'a> {
    pub query: ArrayView1<'a, f32>,
    pub keys: ArrayView2<'a, f32>,
    pub query_label: &'a str,
    pub key_labels: &'a [String],
    /// Where they come from, shown as a caption, e.g. "layer 2, head 1, query “zone”".
    pub source: String,
}

const TAU_MIN: f32 = 0.05;
const TAU_MAX: f32 = 20.0;

pub struct ScoringLab {
    /// Softmax temperature τ of the temperature view.
    pub temperature: f32,
    /// Key width of the variance view (a power of two, 2 … 512).
    pub d_k: usize,
    /// Seed of the q, k samples of the variance view ("resample" moves it on).
    pub seed: u64,
    /// Seed of the random bilinear and additive parameters.
    pub param_seed: u64,
    /// Parameters for the head width and seed they were drawn for.
    params: Option<(usize, u64, ScoreParams)>,
    curve: Option<VarianceCurve>,
}

impl Default for ScoringLab {
    fn default() -> Self {
        Self {
            temperature: 1.0,
            d_k: 64,
            seed: 1,
            param_seed: 7,
            params: None,
            curve: None,
        }
    }
}

/// Why an input cannot be scored, in words for the student.
fn problem(input: &ScoringInput<'_>) -> Option<String> {
    let (t, h) = input.keys.dim();
    if t == 0 {
        return Some(t!("scoring-no-keys"));
    }
    if h == 0 {
        return Some(t!("scoring-zero-width"));
    }
    if input.query.len() != h {
        return Some(t!(
            "scoring-width-mismatch",
            query = input.query.len(),
            key = h
        ));
    }
    let finite = |x: &f32| x.is_finite();
    if !input.query.iter().all(finite) || !input.keys.iter().all(finite) {
        return Some(t!("scoring-not-finite"));
    }
    None
}

/// Key labels for axes and tables: a missing label becomes "key i"; long ones are shortened.
fn key_names(input: &ScoringInput<'_>) -> Vec<String> {
    (0..input.keys.nrows())
        .map(|i| match input.key_labels.get(i) {
            Some(l) if l.chars().count() > 12 => l.chars().take(11).chain(['…']).collect(),
            Some(l) => l.clone(),
            None => t!("scoring-key-n", key = i),
        })
        .collect()
}

impl ScoringLab {
    /// The query, its keys and the four scorings of each key, as JSON (the export menu's
    /// data); `None` until the table has drawn its parameters.
    pub(super) fn scores_json(&self, input: &ScoringInput<'_>) -> Option<Vec<u8>> {
        let (_, _, params) = self.params.as_ref()?;
        let scores: serde_json::Map<String, serde_json::Value> = maths::ScoreKind::ALL
            .iter()
            .map(|&kind| {
                let s = maths::scores(input.query, input.keys, kind, params);
                (kind.key().to_string(), serde_json::json!(s))
            })
            .collect();
        let doc = serde_json::json!({
            "source": input.source,
            "query": input.query_label,
            "keys": input.key_labels,
            "scores": scores,
            "parameter_seed": self.param_seed,
        });
        serde_json::to_vec_pretty(&doc).ok()
    }

    /// Draw the lab. `input` None → a short message "load a model and type some text" (the
    /// variance view needs no model and is drawn regardless).
    pub fn ui(&mut self, ui: &mut egui::Ui, input: Option<&ScoringInput<'_>>) {
        if !(self.temperature.is_finite() && self.temperature > 0.0) {
            self.temperature = 1.0;
        }
        self.temperature = self.temperature.clamp(TAU_MIN, TAU_MAX);
        egui::ScrollArea::vertical()
            .id_salt("scoring_lab")
            .auto_shrink(false)
            .show(ui, |ui| self.contents(ui, input));
    }

    fn contents(&mut self, ui: &mut egui::Ui, input: Option<&ScoringInput<'_>>) {
        ui.heading(t!("scoring-title"));
        let usable = match input {
            None => {
                ui.label(t!("scoring-no-model"));
                None
            }
            Some(input) => {
                ui.label(
                    RichText::new(t!(
                        "scoring-caption",
                        query = input.query_label,
                        keys = input.keys.nrows(),
                        source = &input.source
                    ))
                    .italics(),
                );
                match problem(input) {
                    Some(why) => {
                        ui.colored_label(ui.visuals().warn_fg_color, why);
                        None
                    }
                    None => Some(input),
                }
            }
        };
        let scaled = usable.map(|input| {
            let scaled = self.score_table(ui, input);
            (scaled, key_names(input))
        });
        ui.separator();
        crate::app::widgets::fit::columns(ui, 2, 300.0, |cols| {
            match &scaled {
                Some((s, names)) => self.temperature_view(&mut cols[0], s, names),
                None => {
                    cols[0].strong(t!("scoring-temperature"));
                    cols[0].label(t!("scoring-temperature-needs"));
                }
            }
            let head_width = usable.map(|i| i.keys.ncols());
            self.scaling_view(&mut cols[1], head_width);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::maths::tests::example_keys;
    use super::maths::SAMPLES;
    use super::*;
    use crate::model::softmax::{entropy_bits, softmax_with_temperature};
    use egui_kittest::kittest::Queryable;
    use ndarray::{array, Array1, Array2};

    fn harness(q: Array1<f32>, k: Array2<f32>) -> egui_kittest::Harness<'static, ScoringLab> {
        let labels: Vec<String> = (0..k.nrows()).map(|i| format!("tok{i}")).collect();
        egui_kittest::Harness::builder()
            .with_size(egui::vec2(1280.0, 800.0))
            .with_context_setup(crate::app::GlimpseApp::style)
            .build_ui_state(
                move |ui, lab: &mut ScoringLab| {
                    let input = ScoringInput {
                        query: q.view(),
                        keys: k.view(),
                        query_label: "zone",
                        key_labels: &labels,
                        source: "layer 2, head 1, query “zone”".into(),
                    };
                    lab.ui(ui, Some(&input));
                },
                ScoringLab::default(),
            )
    }

    /// The export's JSON holds the four scorings of each key; the dot products are q·k.
    #[test]
    fn the_exported_scores_are_the_table_of_scores() {
        let (q, k) = example_keys();
        let labels: Vec<String> = (0..k.nrows()).map(|i| format!("tok{i}")).collect();
        let input = ScoringInput {
            query: q.view(),
            keys: k.view(),
            query_label: "zone",
            key_labels: &labels,
            source: "test".into(),
        };
        let mut lab = ScoringLab::default();
        assert!(
            lab.scores_json(&input).is_none(),
            "no parameters before the table is drawn"
        );
        lab.params = Some((k.ncols(), 0, ScoreParams::random(k.ncols(), 0)));
        let doc: serde_json::Value =
            serde_json::from_slice(&lab.scores_json(&input).unwrap()).unwrap();
        let all = doc["scores"].as_object().unwrap();
        assert_eq!(all.len(), 4);
        let dot = all[ScoreKind::Dot.key()].as_array().unwrap();
        for (i, key) in k.outer_iter().enumerate() {
            let by_hand: f32 = key.iter().zip(q.iter()).map(|(a, b)| a * b).sum();
            assert!((dot[i].as_f64().unwrap() as f32 - by_hand).abs() < 1e-5);
        }
        assert_eq!(doc["keys"][1], "tok1");
    }

    #[test]
    fn the_lab_draws_and_follows_the_temperature() {
        let (q, k) = example_keys();
        let scaled = {
            let p = ScoreParams::random(3, 0);
            scores(q.view(), k.view(), ScoreKind::ScaledDot, &p)
        };
        let mut h = harness(q, k);
        h.run_steps(3);
        h.get_by_role_and_label(egui::accesskit::Role::Slider, "temperature τ");
        h.get_by_role_and_label(egui::accesskit::Role::Slider, "dₖ");
        h.get_by_label_contains("layer 2, head 1");
        h.get_by_label_contains("bilinear qᵀWk");
        let (raw, scaled64) = dot_variance(64, SAMPLES, 1);
        let printed = crate::app::widgets::math_text::spoken(&format!(
            "var(q·k) = {raw:.2} (≈ d_k)   var(q·k/√d_k) = {scaled64:.3}"
        ));
        assert!(h.query_all_by_label_contains(&printed).next().is_some());
        let at_one = entropy_bits(&softmax_with_temperature(&scaled, 1.0));
        h.get_by_label_contains(&format!("entropy at τ = 1.00: {at_one:.3} bits"));

        h.state_mut().temperature = 0.05;
        h.run_steps(2);
        let sharp = entropy_bits(&softmax_with_temperature(&scaled, 0.05));
        assert!(sharp < at_one);
        h.get_by_label_contains(&format!("entropy at τ = 0.05: {sharp:.3} bits"));

        h.get_by_label("resample").click();
        h.run_steps(2);
        assert_eq!(h.state().seed, 2);
        h.get_by_label_contains("(seed 2)");
    }

    #[test]
    fn the_lab_survives_odd_input() {
        // One key: weight 1, entropy 0 of at most log₂ 1 = 0.
        let mut one = harness(array![1.0, 2.0], array![[0.5, 0.5]]);
        one.run_steps(3);
        one.get_by_label_contains("entropy at τ = 1.00: 0.000 bits");
        // No keys, zero width, NaN: a message instead of plots.
        let mut none = harness(array![1.0, 2.0], Array2::zeros((0, 2)));
        none.run_steps(2);
        none.get_by_label_contains("no keys to score");
        let mut flat = harness(Array1::zeros(0), Array2::zeros((3, 0)));
        flat.run_steps(2);
        flat.get_by_label_contains("width 0");
        let mut nan = harness(array![f32::NAN, 1.0], array![[1.0, 2.0], [3.0, 4.0]]);
        nan.run_steps(2);
        nan.get_by_label_contains("NaN");
        // No model at all.
        let mut empty = egui_kittest::Harness::builder()
            .with_size(egui::vec2(1280.0, 800.0))
            .with_context_setup(crate::app::GlimpseApp::style)
            .build_ui_state(
                |ui, lab: &mut ScoringLab| lab.ui(ui, None),
                ScoringLab::default(),
            );
        empty.run_steps(2);
        empty.get_by_label_contains("Load a model and type some text");
    }
}
