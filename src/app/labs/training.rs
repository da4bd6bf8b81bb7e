//! The training lab: choose a task and a model, train it with Glimpse's own backward pass, and
//! watch the loss fall and the attention of a fixed probe input take shape.
//!
//! Training advances a slice of steps per frame within a time budget, so the UI never freezes
//! (the same code runs in the browser, which has no threads).

use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::model::{AttentionKind, ForwardOptions, NormPlacement, Positional};
use crate::train::tasks::{TaskKind, ALL_TASKS};
use crate::train::trainer::{make_example, EvalStats, TrainConfig, Trainer};
use egui_plot::{Legend, Line, Plot, PlotPoints};
use web_time::Instant;

/// Held-out examples per evaluation, and how often to evaluate.
const EVAL_EXAMPLES: usize = 100;
const EVAL_EVERY: u64 = 100;
/// Most points a curve draws per frame; longer histories are averaged in chunks.
const PLOT_POINTS: usize = 400;

/// At most `max` points, each the mean of a consecutive chunk of the `n` inputs: a smoothed
/// curve that costs the same to draw at step 100 and at step 100 000.
fn chunk_means(points: impl Iterator<Item = (f64, f64)>, n: usize, max: usize) -> Vec<[f64; 2]> {
    let chunk = n.div_ceil(max.max(1)).max(1);
    let mut out = Vec::with_capacity(n / chunk + 1);
    let (mut sx, mut sy, mut k) = (0.0, 0.0, 0usize);
    for (x, y) in points {
        sx += x;
        sy += y;
        k += 1;
        if k == chunk {
            out.push([sx / k as f64, sy / k as f64]);
            (sx, sy, k) = (0.0, 0.0, 0);
        }
    }
    if k > 0 {
        out.push([sx / k as f64, sy / k as f64]);
    }
    out
}

pub struct TrainingLab {
    pub config: TrainConfig,
    pub trainer: Option<Trainer>,
    pub running: bool,
    /// Milliseconds of training per frame (the speed control).
    pub budget_ms: f32,
    pub evals: Vec<(u64, EvalStats)>,
    pub head: usize,
    pub error: Option<String>,
    /// Steps per second over the last frame, for the status line.
    rate: f32,
}

impl Default for TrainingLab {
    fn default() -> Self {
        Self {
            config: TrainConfig::for_task(TaskKind::Reverse),
            trainer: None,
            running: false,
            budget_ms: 30.0,
            evals: Vec::new(),
            head: 0,
            error: None,
            rate: 0.0,
        }
    }
}

impl TrainingLab {
    /// A fresh model from the current config: the same seed gives the same initial weights.
    pub fn reset(&mut self) {
        self.running = false;
        self.evals.clear();
        self.error = None;
        self.trainer = match Trainer::new(self.config.clone(), self.config.task.name()) {
            Ok(t) => Some(t),
            Err(e) => {
                self.error = Some(e.to_string());
                None
            }
        };
        self.evaluate();
    }

    fn evaluate(&mut self) {
        if let Some(t) = &self.trainer {
            match t.evaluate(EVAL_EXAMPLES) {
                Ok(stats) => self.evals.push((t.steps_done(), stats)),
                Err(e) => self.error = Some(e.to_string()),
            }
        }
    }

    /// Train for at most `budget_ms`, evaluating every `EVAL_EVERY` steps. Returns steps taken.
    pub fn advance(&mut self, budget_ms: f32) -> usize {
        if self.trainer.is_none() {
            self.reset();
        }
        let start = Instant::now();
        let mut steps = 0;
        while let Some(t) = self.trainer.as_mut() {
            if let Err(e) = t.step() {
                self.error = Some(e.to_string());
                self.running = false;
                break;
            }
            steps += 1;
            if t.steps_done() % EVAL_EVERY == 0 {
                self.evaluate();
            }
            if start.elapsed().as_secs_f32() * 1000.0 >= budget_ms {
                break;
            }
        }
        let secs = start.elapsed().as_secs_f32().max(1e-6);
        self.rate = steps as f32 / secs;
        steps
    }

    pub fn ui(&mut self, ui: &mut egui::Ui) {
        if self.trainer.is_none() && self.error.is_none() {
            self.reset();
        }
        if self.running {
            self.advance(self.budget_ms);
            ui.ctx().request_repaint();
        }
        crate::app::probe::publish_training(&self.status());
        egui::Panel::left("training_controls")
            .default_size(280.0)
            .show(ui, |ui| self.controls(ui));
        egui::CentralPanel::default()
            .frame(egui::Frame::central_panel(ui.style()).fill(ui.visuals().panel_fill))
            .show(ui, |ui| self.views(ui));
    }

    /// What a test or a status line needs to know.
    pub fn status(&self) -> serde_json::Value {
        let last = self.evals.last();
        serde_json::json!({
            "task": self.config.task.name(),
            "running": self.running,
            "steps": self.trainer.as_ref().map_or(0, |t| t.steps_done()),
            "loss": self.trainer.as_ref().and_then(|t| t.history.last()).map(|s| s.loss),
            "eval_step": last.map(|(s, _)| *s),
            "exact_match": last.map(|(_, e)| e.exact_match),
            "token_accuracy": last.map(|(_, e)| e.token_accuracy),
            "error": self.error,
        })
    }

    fn controls(&mut self, ui: &mut egui::Ui) {
        ui.heading("Task and model");
        let before = self.config.clone();
        let c = &mut self.config;
        egui::ComboBox::from_label("task")
            .selected_text(c.task.name())
            .show_ui(ui, |ui| {
                for t in ALL_TASKS {
                    ui.selectable_value(&mut c.task, t, t.name());
                }
            });
        egui::ComboBox::from_label("positions")
            .selected_text(c.positional.label())
            .show_ui(ui, |ui| {
                for p in [
                    Positional::None,
                    Positional::Sinusoidal { base: 10000.0 },
                    Positional::Learned,
                    Positional::Rope { base: 10000.0 },
                    Positional::Alibi,
                    Positional::Relative { max_distance: 8 },
                ] {
                    ui.selectable_value(&mut c.positional, p, p.label());
                }
            });
        ui.horizontal(|ui| {
            ui.label("norm");
            ui.selectable_value(&mut c.norm, NormPlacement::Pre, "pre");
            ui.selectable_value(&mut c.norm, NormPlacement::Post, "post");
        });
        ui.horizontal(|ui| {
            ui.label("d_model");
            for d in [16, 32, 64] {
                ui.selectable_value(&mut c.d_model, d, d.to_string());
            }
        });
        ui.horizontal(|ui| {
            ui.label("heads");
            for h in [1, 2, 4] {
                ui.selectable_value(&mut c.n_heads, h, h.to_string());
            }
        });
        ui.add(egui::Slider::new(&mut c.n_layers, 1..=3).text("layers"));
        ui.add(egui::DragValue::new(&mut c.seed).prefix("seed "));
        if *c != before {
            // A different task or architecture is a different model: start it afresh.
            c.d_ff = 2 * c.d_model;
            if c.task != before.task {
                let fresh = TrainConfig::for_task(c.task);
                c.positional = fresh.positional;
            }
            self.reset();
        }
        ui.separator();
        ui.heading("Training");
        ui.horizontal(|ui| {
            let label = if self.running {
                "‖ Pause"
            } else {
                "▶ Start"
            };
            let start = ui.button(label);
            crate::app::probe::control("training:start", start.rect);
            if start.clicked() {
                self.running = !self.running;
            }
            if ui
                .button("Step")
                .on_hover_text("one optimisation step")
                .clicked()
            {
                self.running = false;
                if let Some(t) = self.trainer.as_mut() {
                    if let Err(e) = t.step() {
                        self.error = Some(e.to_string());
                    }
                }
            }
            if ui
                .button("Reset")
                .on_hover_text("back to the same initial weights (same seed)")
                .clicked()
            {
                self.reset();
            }
        });
        ui.add(egui::Slider::new(&mut self.budget_ms, 1.0..=100.0).text("ms per frame (speed)"));
        if let Some(t) = &self.trainer {
            let last = t.history.last();
            ui.label(format!("step {}", t.steps_done()));
            if let Some(s) = last {
                ui.label(format!(
                    "loss {:.4} · lr {:.2e} · grad norm {:.3}",
                    s.loss, s.lr, s.grad_norm
                ));
            }
            if self.running {
                ui.label(format!("{:.0} steps/s", self.rate));
            }
        }
        if let Some((step, e)) = self.evals.last() {
            ui.label(format!(
                "held-out at step {step}: exact {:.0}% · tokens {:.0}%",
                100.0 * e.exact_match,
                100.0 * e.token_accuracy
            ));
        }
        if let Some(e) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
    }

    fn views(&mut self, ui: &mut egui::Ui) {
        let Some(t) = &self.trainer else { return };
        ui.heading(format!(
            "Training: {} model on “{}”",
            t.model.config.family.label(),
            self.config.task.name()
        ));
        let loss: PlotPoints = chunk_means(
            t.history.iter().map(|s| (s.step as f64, s.loss as f64)),
            t.history.len(),
            PLOT_POINTS,
        )
        .into();
        let exact: PlotPoints = self
            .evals
            .iter()
            .map(|(s, e)| [*s as f64, e.exact_match as f64])
            .collect();
        let tokens: PlotPoints = self
            .evals
            .iter()
            .map(|(s, e)| [*s as f64, e.token_accuracy as f64])
            .collect();
        ui.columns(2, |cols| {
            cols[0].label("training loss (cross-entropy per token)");
            Plot::new("loss")
                .height(180.0)
                .allow_scroll(false)
                .show(&mut cols[0], |p| {
                    p.line(Line::new("loss", loss));
                });
            cols[1].label("held-out accuracy");
            Plot::new("accuracy")
                .height(180.0)
                .allow_scroll(false)
                .include_y(0.0)
                .include_y(1.0)
                .legend(Legend::default())
                .show(&mut cols[1], |p| {
                    p.line(Line::new("exact sequences", exact));
                    p.line(Line::new("tokens", tokens));
                });
        });
        ui.separator();
        let task = self.config.task;
        let ex = make_example(task, &t.model.tokenizer, &task.probe_pair());
        let trace = match t.model.forward(&ex.input, &ForwardOptions::default()) {
            Ok(tr) => tr,
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e.to_string());
                return;
            }
        };
        let kind = AttentionKind::most_telling(t.model.config.family);
        let layer = t.model.config.n_layers - 1;
        let heads = t.model.config.n_heads;
        self.head = self.head.min(heads - 1);
        ui.horizontal(|ui| {
            ui.label(format!("Probe input, {} of the last layer:", kind.label()));
            ui.add(egui::Slider::new(&mut self.head, 0..=heads - 1).text("head"));
        });
        let Some(a) = trace.attention(kind, layer) else {
            return;
        };
        let Some(w) = a.weights.outer_iter().nth(self.head) else {
            return;
        };
        let scale = ColorScale::Sequential { min: 0.0, max: 1.0 };
        Heatmap {
            values: w,
            row_labels: &a.query_tokens,
            col_labels: &a.key_tokens,
            scale,
            allowed: Some(a.mask.view()),
            show_numbers: false,
            max_cell: 36.0,
            axis_names: ("query", "key"),
        }
        .show_with_legend(ui, 200.0, "weight");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reset_returns_to_the_same_initial_weights() {
        let mut lab = TrainingLab::default();
        lab.reset();
        let initial = lab.trainer.as_ref().unwrap().model.weights.clone();
        lab.advance(5.0);
        assert!(lab.trainer.as_ref().unwrap().steps_done() > 0);
        assert_ne!(lab.trainer.as_ref().unwrap().model.weights, initial);
        lab.reset();
        assert_eq!(lab.trainer.as_ref().unwrap().model.weights, initial);
        assert_eq!(lab.trainer.as_ref().unwrap().steps_done(), 0);
    }

    #[test]
    fn long_curves_are_averaged_in_chunks() {
        let pts = chunk_means((0..1000).map(|i| (i as f64, (i % 2) as f64)), 1000, 400);
        assert_eq!(pts.len(), 334); // chunks of 3
        assert_eq!(pts[0], [1.0, 1.0 / 3.0]);
        let short = chunk_means((0..10).map(|i| (i as f64, 1.0)), 10, 400);
        assert_eq!(short.len(), 10);
    }

    #[test]
    fn advance_respects_its_time_budget() {
        let mut lab = TrainingLab::default();
        lab.reset();
        let start = Instant::now();
        let steps = lab.advance(20.0);
        // One step can overrun the budget, never many: a step of this model takes milliseconds.
        assert!(steps >= 1);
        assert!(start.elapsed().as_secs_f32() < 2.0);
    }
}
