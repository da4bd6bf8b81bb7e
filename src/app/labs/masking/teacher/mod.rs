//! Teacher forcing and what the causal mask is for. In training the decoder reads the right
//! answer shifted one step right and predicts every position in one pass; the causal mask is
//! what keeps that honest. Three teacher-forced runs (the masked model, the same model with
//! its mask removed, and a model trained without the mask) and two greedy generations show
//! that a model trained without the mask learns to copy the future it will never have. Last,
//! exposure bias: the repeat model teacher-forced against free-running (`exposure_view`).
//!
//! This file holds the panel's state; the runs are computed in `forcing`, drawn in `draw`.

mod draw;
mod exposure_view;
mod forcing;

pub use draw::fmt_value;
pub use forcing::{
    generate, generate_with_end, lookahead_head, lookahead_weights, reversed, teacher_forced,
    token_loss, ForcedRow, ForcedRun, Generation,
};

use crate::app::models::store::ModelStore;
use crate::app::stepped::{Keyed, Steps};
use crate::model::attention::MaskChoice;
use crate::model::transformer::Model;
use crate::t;
use draw::{generations, lookahead, runs, sequences};
use egui::Ui;

/// The source the panel opens with: the reverse task's own example.
pub const DEFAULT_SOURCE: &str = "abcdefgh";
/// Trained with the decoder's causal mask.
pub const REVERSE: &str = "reverse";
/// The same task trained without it.
pub const REVERSE_NOMASK: &str = "reverse-nomask";

#[derive(Debug, Clone, Copy, PartialEq)]
enum Which {
    Reverse,
    NoMask,
}

impl Which {
    fn name(self) -> &'static str {
        match self {
            Which::Reverse => REVERSE,
            Which::NoMask => REVERSE_NOMASK,
        }
    }
}

/// The two trained models from the store; a load error is kept to be shown.
#[derive(Clone)]
struct Models {
    reverse: Result<std::sync::Arc<Model>, String>,
    nomask: Result<std::sync::Arc<Model>, String>,
}

impl Models {
    fn load(store: &ModelStore) -> Self {
        Self {
            reverse: store.get(REVERSE),
            nomask: store.get(REVERSE_NOMASK),
        }
    }

    fn get(&self, which: Which) -> Result<&Model, String> {
        match which {
            Which::Reverse => self.reverse.as_deref(),
            Which::NoMask => self.nomask.as_deref(),
        }
        .map_err(|e| e.to_string())
    }
}

/// One of the three teacher-forced runs.
struct RunSpec {
    which: Which,
    mask: MaskChoice,
    title: String,
    note: String,
}

/// Teacher-forced runs shown side by side.
const RUNS: usize = 3;

fn run_specs() -> [RunSpec; RUNS] {
    [
        RunSpec {
            which: Which::Reverse,
            mask: MaskChoice::Default,
            title: t!("masking-teacher-run-a"),
            note: t!("masking-teacher-run-a-note"),
        },
        RunSpec {
            which: Which::Reverse,
            mask: MaskChoice::None,
            title: t!("masking-teacher-run-b"),
            note: t!("masking-teacher-run-b-note"),
        },
        RunSpec {
            which: Which::NoMask,
            mask: MaskChoice::Default,
            title: t!("masking-teacher-run-c"),
            note: t!("masking-teacher-run-c-note"),
        },
    ]
}

/// Everything shown for one source text, filled in one pass a step (three teacher-forced
/// runs and two greedy generations in one frame held the browser's page about 90 ms): on the
/// engine worker where it can, else one a frame.
struct Computed {
    source: String,
    target: String,
    runs: Vec<Result<ForcedRun, String>>,
    generated: Vec<(Which, Result<Generation, String>)>,
}

/// The models that generate, in the order shown.
const GENERATING: [Which; 2] = [Which::Reverse, Which::NoMask];

impl Computed {
    fn new(source: &str) -> Self {
        Self {
            source: source.to_string(),
            target: reversed(source),
            runs: Vec::new(),
            generated: Vec::new(),
        }
    }

    fn done(&self) -> bool {
        self.runs.len() == RUNS && self.generated.len() == GENERATING.len()
    }

    /// What is shown when the worker making it stopped: why, in place of the first run.
    fn failed(source: &str, why: String) -> Self {
        Self {
            runs: vec![Err(why)],
            ..Self::new(source)
        }
    }

    /// The next run, else the next generation.
    fn advance(&mut self, models: &Models) {
        if self.runs.len() < RUNS {
            let s = &run_specs()[self.runs.len()];
            let run = models
                .get(s.which)
                .and_then(|m| teacher_forced(m, &self.source, &self.target, s.mask.clone()));
            self.runs.push(run);
        } else if let Some(&w) = GENERATING.get(self.generated.len()) {
            let text = models
                .get(w)
                .and_then(|m| generate_with_end(m, &self.source));
            self.generated.push((w, text));
        }
    }
}

/// A [`Computed`] being made, with the models it runs.
struct Making {
    models: Models,
    computed: Option<Computed>,
}

impl Steps for Making {
    type Output = Computed;
    type Progress = ();

    fn step(&mut self) -> Option<Computed> {
        let c = self.computed.as_mut()?;
        c.advance(&self.models);
        // A first run that fails (an empty or unknown text) is all the panel shows.
        if c.done() || c.runs.first().is_some_and(|r| r.is_err()) {
            self.computed.take()
        } else {
            None
        }
    }

    fn progress(&self) {}
}

/// The teacher-forcing panel: a source box, the shifted sequences, three runs, two
/// generations and the attention of the model that learned to cheat.
pub struct TeacherForcing {
    pub source: String,
    models: Option<Models>,
    /// The runs for the source text, made off the page's thread where it can.
    computed: Keyed<String, Making>,
    /// Exposure bias on the repeat model, measured a few examples per frame.
    pub exposure: exposure_view::Exposure,
}

impl Default for TeacherForcing {
    fn default() -> Self {
        Self {
            source: DEFAULT_SOURCE.to_string(),
            models: None,
            computed: Keyed::default(),
            exposure: Default::default(),
        }
    }
}

impl TeacherForcing {
    pub fn ui(&mut self, ui: &mut Ui, store: &ModelStore) {
        egui::ScrollArea::vertical()
            .id_salt("teacher_forcing")
            .auto_shrink(false)
            .show(ui, |ui| self.contents(ui, store));
    }

    /// Load the models once; recompute only when the source text changed.
    fn refresh(&mut self, ctx: &egui::Context, store: &ModelStore) {
        // Until both models are there (they may still be loading), ask again and recompute.
        let missing = self
            .models
            .as_ref()
            .is_none_or(|m| m.reverse.is_err() || m.nomask.is_err());
        if missing {
            self.models = Some(Models::load(store));
            self.computed = Keyed::default();
        }
        let Some(models) = &self.models else {
            return;
        };
        let make = || Making {
            models: models.clone(),
            computed: Some(Computed::new(&self.source)),
        };
        if self.computed.get(&self.source, make).is_none() {
            ctx.request_repaint();
        }
    }

    fn contents(&mut self, ui: &mut Ui, store: &ModelStore) {
        ui.heading(t!("masking-teacher-heading"));
        ui.label(t!("masking-teacher-intro"));
        ui.horizontal_wrapped(|ui| {
            let label = ui.label(t!("masking-teacher-source"));
            ui.add(egui::TextEdit::singleline(&mut self.source).desired_width(200.0))
                .labelled_by(label.id);
        });
        self.refresh(ui.ctx(), store);
        let failed;
        let c = match self.computed.done() {
            Some(Ok(c)) => c,
            Some(Err(why)) => {
                failed = Computed::failed(&self.source, why.clone());
                &failed
            }
            None => return,
        };
        let Some(first) = c.runs.iter().find_map(|r| r.as_ref().ok()) else {
            if let Some(Err(e)) = c.runs.first() {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
            return;
        };
        sequences(ui, &c.target, first);
        ui.separator();
        runs(ui, &c.runs);
        ui.separator();
        generations(ui, &c.target, &c.generated);
        ui.separator();
        lookahead(ui, c.runs.get(2));
        ui.separator();
        self.exposure.ui(ui, store);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui_kittest::kittest::Queryable;

    fn harness() -> egui_kittest::Harness<'static, TeacherForcing> {
        let store = ModelStore::default();
        egui_kittest::Harness::builder()
            .with_size(egui::vec2(1280.0, 800.0))
            .with_context_setup(crate::app::GlimpseApp::style)
            .build_ui_state(
                move |ui, s: &mut TeacherForcing| s.ui(ui, &store),
                TeacherForcing::default(),
            )
    }

    #[test]
    fn the_panel_draws_runs_generations_and_the_cheat() {
        let mut h = harness();
        h.run_steps(3);
        h.get_by_label("source (letters a–j):");
        h.get_by_label_contains("every position is trained in one pass");
        assert_eq!(h.query_all_by_label_contains("mean loss").count(), 3);
        h.get_by_label_contains("reverse writes “hgfedcba”: right");
        h.get_by_label_contains("reverse-nomask writes");
        h.get_by_label_contains(": wrong");
        h.get_by_label_contains("heatmap reverse-nomask");
    }

    #[test]
    fn exposure_bias_is_measured_over_frames_and_shows_errors_compounding() {
        let mut h = harness();
        h.run_steps(3);
        let done = |h: &egui_kittest::Harness<'static, TeacherForcing>| {
            h.state().exposure.run.as_ref().map_or(0, |r| r.done)
        };
        assert!(done(&h) < exposure_view::EXAMPLES, "spread over frames");
        for _ in 0..40 {
            h.run_steps(1);
        }
        assert_eq!(done(&h), exposure_view::EXAMPLES);
        h.run_steps(1);
        let run = h.state().exposure.run.as_ref().unwrap();
        let (forced, free) = run.overall();
        assert!(free > forced, "free-running errs more: {free} vs {forced}");
        let words = format!(
            "teacher-forced {:.1} % of answer tokens wrong, free-running {:.1} %",
            100.0 * forced,
            100.0 * free
        );
        h.get_by_label_contains(&words);
        assert!(
            h.query_all_by_label_contains("Error rate at every answer position")
                .count()
                >= 1
        );
    }

    #[test]
    fn the_panel_recomputes_on_new_text_and_survives_bad_text() {
        let mut h = harness();
        h.run_steps(2);
        h.state_mut().source = "abc".into();
        // Five passes, one a frame, then the frame that draws the last.
        h.run_steps(6);
        h.get_by_label_contains("target (the source reversed): cba");
        h.get_by_label_contains("reverse writes “cba”");
        h.state_mut().source = String::new();
        h.run_steps(2);
        h.get_by_label_contains("empty");
        h.state_mut().source = "aXb".into();
        h.run_steps(2);
        h.get_by_label_contains("“X”");
    }
}
