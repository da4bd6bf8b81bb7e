//! Training the ViT on the page: a slice of steps per frame (the page keeps drawing), the
//! held-out accuracy every 100 steps on 200 images and at the end on 1,000, the loss curve.

use super::VisionLab;
use crate::app::labs::race::train_controls;
use crate::app::widgets::plot_words::PlotWords;
use crate::t;
use crate::train::vision::train::FINAL_EVAL_IMAGES;
use crate::train::vision::{VisionTask, VisionTrainer, Vit, VitConfig};
use egui::{RichText, Ui};
use egui_plot::Plot;

/// How long one frame may train before it draws.
const FRAME_BUDGET_MS: u128 = 30;
/// Held-out images per evaluation along the way, and at the end.
const EVAL_IMAGES: usize = 200;
const EVAL_EVERY: u64 = 100;

#[derive(Default)]
pub struct VisionRun {
    /// Train when the page is drawn (the button, or a link).
    pub running: bool,
    trainer: Option<((VisionTask, u64), Result<VisionTrainer, String>)>,
    /// Mean loss of every step.
    losses: Vec<f32>,
    /// (step, held-out accuracy on [`EVAL_IMAGES`]).
    evals: Vec<(u64, f32)>,
    /// Seconds spent training and the steps they bought.
    spent: (f64, u64),
    /// Held-out accuracy on [`FINAL_EVAL_IMAGES`] after the last step.
    pub final_accuracy: Option<f32>,
}

impl VisionRun {
    fn trainer(&mut self, task: VisionTask, seed: u64) -> Result<&mut VisionTrainer, String> {
        if self
            .trainer
            .as_ref()
            .is_none_or(|(k, _)| *k != (task, seed))
        {
            let t = VisionTrainer::new(VitConfig::for_task(task), task, seed);
            *self = Self {
                running: self.running,
                trainer: Some(((task, seed), t)),
                ..Self::default()
            };
        }
        match &mut self.trainer {
            Some((_, Ok(t))) => Ok(t),
            Some((_, Err(e))) => Err(e.clone()),
            None => Err(String::new()),
        }
    }

    /// The model as trained so far (fresh weights before the first step).
    pub fn model(&mut self, task: VisionTask, seed: u64) -> Result<&Vit, String> {
        self.trainer(task, seed).map(|t| t.model())
    }

    pub fn steps(&self) -> u64 {
        match &self.trainer {
            Some((_, Ok(t))) => t.steps_done(),
            _ => 0,
        }
    }

    /// Started and not finished.
    pub fn pending(&self) -> bool {
        self.running && self.final_accuracy.is_none() && self.trainer.is_some()
    }

    /// One frame's slice of steps, the evaluations that fall in it, and the last one.
    pub fn advance(&mut self, task: VisionTask, seed: u64) {
        if !self.running || self.final_accuracy.is_some() {
            return;
        }
        let total = task.steps();
        let start = web_time::Instant::now();
        let (mut losses, mut evals, mut final_accuracy) = (Vec::new(), Vec::new(), None);
        let Ok(t) = self.trainer(task, seed) else {
            return;
        };
        while t.steps_done() < total && start.elapsed().as_millis() < FRAME_BUDGET_MS {
            losses.push(t.step());
            if t.steps_done() % EVAL_EVERY == 0 {
                evals.push((t.steps_done(), t.evaluate(EVAL_IMAGES)));
            }
        }
        if t.steps_done() >= total {
            final_accuracy = Some(t.evaluate(FINAL_EVAL_IMAGES));
        }
        self.spent.0 += start.elapsed().as_secs_f64();
        self.spent.1 += losses.len() as u64;
        self.losses.extend(losses);
        self.evals.extend(evals);
        self.final_accuracy = final_accuracy;
    }
}

impl VisionLab {
    /// The task, the seed, the button, the curves and where the run ended.
    pub(super) fn training(&mut self, ui: &mut Ui) {
        ui.heading(t!("vision-train-heading"));
        ui.horizontal_wrapped(|ui| {
            for task in VisionTask::ALL {
                let name = match task {
                    VisionTask::Larger => t!("vision-task-larger"),
                    VisionTask::Count => t!("vision-task-count"),
                };
                if ui.selectable_label(self.task == task, name).clicked() && self.task != task {
                    self.task = task;
                    self.gallery = Some(0);
                }
            }
            ui.add(
                egui::DragValue::new(&mut self.seed)
                    .range(1..=u32::MAX as u64)
                    .prefix(format!("{} ", t!("heads-seed"))),
            );
        });
        ui.label(match self.task {
            VisionTask::Larger => t!("vision-task-larger-about"),
            VisionTask::Count => t!("vision-task-count-about"),
        });
        let (task, seed) = (self.task, self.seed.max(1));
        self.run.advance(task, seed);
        let run = &mut self.run;
        let params = match run.model(task, seed) {
            Ok(m) => m.weights().param_count(),
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
                return;
            }
        };
        let total = task.steps();
        let (done, steps, spent) = (run.final_accuracy.is_some(), run.steps(), run.spent);
        train_controls(
            ui,
            "vision:train",
            &mut run.running,
            (steps, total, done),
            spent,
            &t!("vision-train-start"),
            &t!(
                "vision-train-what",
                steps = total,
                parameters = crate::util::grouped(params as u128)
            ),
        );
        if run.pending() {
            ui.ctx().request_repaint();
        }
        if run.losses.is_empty() {
            ui.weak(t!("vision-train-untrained"));
            return;
        }
        curves(ui, run, total);
        if let Some(a) = run.final_accuracy {
            ui.label(
                RichText::new(t!(
                    "vision-train-done",
                    steps = run.steps(),
                    accuracy = format!("{:.1}", 100.0 * a),
                    images = FINAL_EVAL_IMAGES,
                    seconds = format!("{:.1}", run.spent.0)
                ))
                .strong(),
            );
        }
    }
}

/// The loss per step (means of 20) and the held-out accuracy along the way.
fn curves(ui: &mut Ui, run: &VisionRun, total: u64) {
    let step = t!("race-step");
    let loss: Vec<[f64; 2]> = run
        .losses
        .chunks(20)
        .enumerate()
        .map(|(i, c)| {
            let mean = c.iter().sum::<f32>() / c.len() as f32;
            [(i * 20 + c.len()) as f64, f64::from(mean)]
        })
        .collect();
    let accuracy: Vec<[f64; 2]> = run
        .evals
        .iter()
        .map(|&(s, a)| [s as f64, f64::from(a)])
        .collect();
    crate::app::widgets::fit::columns(ui, 2, 260.0, |cols| {
        for (col, (id, title, points, unit)) in cols.iter_mut().zip([
            ("vision_loss", t!("vision-train-loss"), loss, false),
            (
                "vision_accuracy",
                t!("vision-train-accuracy"),
                accuracy,
                true,
            ),
        ]) {
            col.label(&title);
            let mut words = PlotWords::new(title.clone(), step.clone());
            let plot = Plot::new(id)
                .height(130.0)
                .allow_scroll(false)
                .allow_drag(false)
                .include_x(0.0)
                .include_x(total as f64)
                .include_y(0.0);
            let plot = if unit { plot.include_y(1.0) } else { plot };
            let response = plot
                .x_axis_label(step.clone())
                .show(col, |p| p.line(words.line(title.clone(), points)))
                .response;
            words.add(col, &response);
        }
    });
}
