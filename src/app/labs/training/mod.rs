//! The training lab: choose a task and a model, train it with Glimpse's own backward pass, and
//! watch the loss fall and the attention of a fixed probe input take shape.
//!
//! The steps run on a worker thread natively and in a Web Worker in the browser (`run`), so
//! the UI never freezes.

mod controls;
pub mod run;

use crate::app::export::{self, Exporter};
use crate::app::labs::{Lab, Layout, Shared};
use crate::app::link::{value_of, LinkReader, LinkWriter};
use crate::app::probe;
use crate::app::probe::scrolling_view;
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::app::widgets::plot_words::PlotWords;
use crate::app::words::Words;
use crate::model::{AttentionKind, ForwardOptions, NormPlacement, Positional, Trace};
use crate::t;
use crate::train::optim::{Schedule, SCHEDULE_NAMES};
use crate::train::tasks::{TaskKind, ALL_TASKS};
use crate::train::trainer::{make_example, EvalStats, StepStats, TrainConfig};
use egui_plot::{Corner, Legend, Plot};
use run::{TrainingRun, EVAL_EVERY, EVAL_EXAMPLES, PERIOD_MS};

/// Narrower than this (points), the controls go above the plots instead of beside them.
const NARROW: f32 = 720.0;

/// Most points a curve draws per frame; longer histories are averaged in chunks.
const PLOT_POINTS: usize = 400;

/// At most `max` points, each the mean of a consecutive chunk of the `n` inputs: a smoothed
/// curve that costs the same to draw at step 100 and at step 100 000.
pub(super) fn chunk_means(
    points: impl Iterator<Item = (f64, f64)>,
    n: usize,
    max: usize,
) -> Vec<[f64; 2]> {
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

/// A finished or abandoned run's curves, kept to compare the next run with.
#[derive(Debug, Clone)]
pub struct Curves {
    /// Its settings in words, e.g. "cosine · warmup 200 · peak 3.0e-3 · clip 1".
    pub label: String,
    /// (step, loss) and (step, log₁₀ gradient norm before clipping), averaged in chunks.
    pub loss: Vec<[f64; 2]>,
    pub grad_norm: Vec<[f64; 2]>,
}

impl Curves {
    /// The curves the plots draw for a run's history, labelled `label`. The current run and
    /// the kept one are drawn from the same function, so a run looks the same once kept.
    pub fn of(history: &[StepStats], label: String) -> Self {
        let points = |f: fn(&StepStats) -> f64| {
            let pts = history.iter().map(|s| (s.step as f64, f(s)));
            chunk_means(pts, history.len(), PLOT_POINTS)
        };
        Self {
            label,
            loss: points(|s| s.loss as f64),
            grad_norm: points(|s| (s.grad_norm as f64).max(1e-12).log10()),
        }
    }
}

/// A run's optimiser settings in words, for legends.
pub fn describe(c: &TrainConfig) -> String {
    let clip = if c.clip_norm.is_finite() {
        t!("training-clip", norm = c.clip_norm.to_string())
    } else {
        t!("training-no-clipping")
    };
    let warmup = match c.schedule.name() {
        "constant" => t!("training-no-warmup"),
        _ => t!("training-warmup", steps = c.schedule.warmup()),
    };
    t!(
        "training-describe",
        schedule = controls::schedule_words(c.schedule.name()),
        warmup = warmup,
        peak = format!("{:.1e}", c.schedule.peak()),
        clip = clip,
        norm = match c.norm {
            NormPlacement::Pre => "pre",
            NormPlacement::Post => "post",
        }
    )
}

/// Steps of the training lab's schedules (the cosine reaches its floor here).
const SCHEDULE_STEPS: u64 = 3000;
/// Peak learning rates the slider allows.
const PEAKS: std::ops::RangeInclusive<f32> = 1e-4..=3e-2;
/// Warmup steps the slider allows.
const WARMUPS: std::ops::RangeInclusive<u64> = 0..=2000;
/// Clipping thresholds the slider allows; the top of the range turns clipping off.
const CLIPS: std::ops::RangeInclusive<f32> = 0.1..=100.0;

pub struct TrainingLab {
    pub config: TrainConfig,
    pub run: Option<TrainingRun>,
    /// Train on a worker thread (a Web Worker in the browser) rather than inside frames.
    pub threaded: bool,
    /// Share of the time spent training (the speed control).
    pub speed: f32,
    pub head: usize,
    /// Why there is no run (a config the trainer refused).
    pub error: Option<String>,
    /// The run before the last change of settings, drawn beside the current one.
    pub previous: Option<Curves>,
    /// The settings the current run was started with.
    ran: Option<TrainConfig>,
    /// The probe input's trace for the (config, step) it was run at: recomputed only when
    /// training has moved on, not on every frame.
    probe: Option<((TrainConfig, u64), Result<Trace, String>)>,
}

impl Default for TrainingLab {
    fn default() -> Self {
        Self {
            config: TrainConfig::for_task(TaskKind::Reverse),
            run: None,
            threaded: true,
            // The worker (a thread, or a Web Worker in the browser) may train flat out: in
            // Chromium on two cores the frames came no closer at 70 % (benchmarks).
            speed: 1.0,
            head: 0,
            error: None,
            previous: None,
            ran: None,
            probe: None,
        }
    }
}

/// The training lab's positional schemes by name, in links.
const SCHEMES: [(Positional, &str); 6] = [
    (Positional::None, "none"),
    (Positional::Sinusoidal { base: 10000.0 }, "sinusoidal"),
    (Positional::Learned, "learned"),
    (Positional::Rope { base: 10000.0 }, "rope"),
    (Positional::Alibi, "alibi"),
    (Positional::Relative { max_distance: 8 }, "relative"),
];

impl Lab for TrainingLab {
    fn id(&self) -> &'static str {
        "training"
    }

    fn uses_shared_input(&self) -> bool {
        false
    }

    fn layout(&self) -> Layout {
        Layout::OwnPanels
    }

    fn ui(&mut self, ui: &mut egui::Ui, shared: &mut Shared<'_>) {
        self.draw(ui, shared.exporter);
    }

    fn keys(&self) -> &'static [&'static str] {
        &["task", "seed", "pe", "width", "sch", "lr", "warm", "clip"]
    }

    fn save(&self, w: &mut LinkWriter) {
        let c = &self.config;
        w.put("seed", c.seed);
        w.put("task", c.task.name());
        let scheme = SCHEMES.iter().find(|(p, _)| *p == c.positional);
        w.put("pe", scheme.map_or("sinusoidal", |(_, n)| n));
        w.put("width", c.d_model);
        w.put("sch", c.schedule.name());
        w.put("lr", c.schedule.peak());
        w.put("warm", c.schedule.warmup());
        w.put(
            "clip",
            if c.clip_norm.is_finite() {
                c.clip_norm
            } else {
                0.0
            },
        );
    }

    /// A different task starts a fresh run from that task's defaults; the seed, scheme and
    /// width are then read on top.
    fn load(&mut self, r: &mut LinkReader) {
        if let Some(task) = r.read("task", TaskKind::from_name) {
            if task != self.config.task {
                self.config = TrainConfig::for_task(task);
                if self.run.is_some() {
                    self.reset();
                }
            }
        }
        if let Some(x) = r.read("seed", |v| v.parse::<u64>().ok()) {
            self.config.seed = x;
        }
        if let Some(x) = r.read("pe", |v| value_of(&SCHEMES, v)) {
            self.config.positional = x;
        }
        if let Some(x) = r.read("width", |v| {
            v.parse::<usize>().ok().filter(|w| [16, 32, 64].contains(w))
        }) {
            self.config.d_model = x;
            self.config.d_ff = 2 * x;
        }
        let s = &self.config.schedule;
        let stored = (s.name(), s.peak(), s.warmup());
        let (mut name, mut peak, mut warmup) = stored;
        if let Some(x) = r.read("sch", |v| SCHEDULE_NAMES.into_iter().find(|n| *n == v)) {
            name = x;
        }
        if let Some(x) = r.number("lr", PEAKS) {
            peak = x;
        }
        if let Some(x) = r.number("warm", WARMUPS) {
            warmup = x;
        }
        // Rebuilt only when the link asks for something else: Noam's peak read back from its
        // scale may differ from the stored one in the last bit.
        if (name, peak, warmup) != stored {
            let d = self.config.d_model;
            if let Some(s) = Schedule::shaped(name, peak, warmup, d, SCHEDULE_STEPS) {
                self.config.schedule = s;
            }
        }
        // 0 is "no clipping".
        if let Some(x) = r.read("clip", |v| {
            v.parse::<f32>()
                .ok()
                .filter(|x| *x == 0.0 || CLIPS.contains(x))
        }) {
            self.config.clip_norm = if x == 0.0 { f32::INFINITY } else { x };
        }
    }
}

impl TrainingLab {
    /// A fresh model from the current config: the same seed gives the same initial weights.
    pub fn reset(&mut self) {
        if let (Some(run), Some(ran)) = (&self.run, &self.ran) {
            let p = run.progress();
            if !p.history.is_empty() {
                self.previous = Some(Curves::of(&p.history, describe(ran)));
            }
        }
        self.ran = Some(self.config.clone());
        let result = match self.run.as_mut() {
            Some(run) => run.reset(&self.config),
            None => TrainingRun::new(&self.config, self.threaded, self.speed).map(|r| {
                self.run = Some(r);
            }),
        };
        self.error = result.err();
        if self.error.is_some() {
            self.run = None;
        }
    }

    pub fn draw(&mut self, ui: &mut egui::Ui, exporter: &mut Exporter) {
        if self.run.is_none() && self.error.is_none() {
            self.reset();
        }
        if let Some(run) = self.run.as_mut() {
            run.frame(Some(ui.ctx()));
            if run.running() {
                ui.ctx().request_repaint();
            }
        }
        crate::app::probe::publish_training(&self.status());
        if ui.available_width() < NARROW {
            // A tablet or a lesson on a projector: the controls above the plots, which keep the
            // whole width (beside them the plots were a hundred points wide).
            egui::CentralPanel::default()
                .frame(egui::Frame::central_panel(ui.style()).fill(ui.visuals().panel_fill))
                .show(ui, |ui| {
                    let rect = ui.max_rect();
                    ui.horizontal_wrapped(|ui| self.export_menu(ui, exporter, rect));
                    scrolling_view(ui, "training", |ui| {
                        egui::CollapsingHeader::new(t!("training-controls-header"))
                            .id_salt("training_controls_narrow")
                            .default_open(true)
                            .show(ui, |ui| self.controls(ui));
                        self.views(ui);
                    });
                    probe::check_fits("view", ui);
                });
            return;
        }
        egui::Panel::left("training_controls")
            .default_size(280.0)
            .show(ui, |ui| {
                // The schedule's controls make the column taller than a projector at presenter
                // zoom: it scrolls rather than clips.
                scrolling_view(ui, "training controls", |ui| self.controls(ui));
                probe::check_fits("controls", ui);
            });
        egui::CentralPanel::default()
            .frame(egui::Frame::central_panel(ui.style()).fill(ui.visuals().panel_fill))
            .show(ui, |ui| {
                let rect = ui.max_rect();
                ui.horizontal_wrapped(|ui| self.export_menu(ui, exporter, rect));
                scrolling_view(ui, "training", |ui| self.views(ui));
                probe::check_fits("view", ui);
            });
    }

    /// What a test or a status line needs to know.
    pub fn status(&self) -> serde_json::Value {
        let Some(run) = &self.run else {
            return serde_json::json!({ "task": self.config.task.name(), "error": self.error });
        };
        let p = run.progress();
        let last = p.evals.last();
        serde_json::json!({
            "task": self.config.task.name(),
            "running": p.running,
            "threaded": run.threaded(),
            "steps": p.steps,
            "loss": p.history.last().map(|s| s.loss),
            "eval_step": last.map(|(s, _)| *s),
            "exact_match": last.map(|(_, e)| e.exact_match),
            "token_accuracy": last.map(|(_, e)| e.token_accuracy),
            "tokens_per_sec": p.tokens_per_sec,
            "steps_per_sec": p.steps_per_sec,
            "error": p.error.as_ref().or(self.error.as_ref()),
        })
    }

    /// The view as a picture; the run's curves (every step, every evaluation) as CSV.
    fn export_menu(&self, ui: &mut egui::Ui, exporter: &mut Exporter, rect: egui::Rect) {
        let name = format!("glimpse-training-{}", self.config.task.name());
        let run = self.run.as_ref();
        let steps = || Some(steps_csv(&run?.progress().history).into_bytes());
        let evals = || Some(evals_csv(&run?.progress().evals).into_bytes());
        let (steps_label, evals_label) = (t!("training-export-steps"), t!("training-export-evals"));
        export::view_menu(
            ui,
            exporter,
            rect,
            &format!("{name}.png"),
            &[
                (&steps_label, format!("{name}-steps.csv"), &steps),
                (&evals_label, format!("{name}-evals.csv"), &evals),
            ],
        );
    }

    fn views(&mut self, ui: &mut egui::Ui) {
        let Some(run) = &self.run else { return };
        // Held for this frame's drawing only; the worker waits at most that long to publish.
        let p = run.progress();
        let model = &p.model;
        ui.heading(t!(
            "training-heading",
            family = model.config.family.words(),
            task = self.config.task.name()
        ));
        let this = Curves::of(&p.history, describe(&self.config));
        let exact: Vec<[f64; 2]> = p
            .evals
            .iter()
            .map(|(s, e)| [*s as f64, e.exact_match as f64])
            .collect();
        let tokens: Vec<[f64; 2]> = p
            .evals
            .iter()
            .map(|(s, e)| [*s as f64, e.token_accuracy as f64])
            .collect();
        let previous = self.previous.as_ref();
        let (this_run, step) = (t!("training-this-run"), t!("training-step-axis"));
        crate::app::widgets::fit::columns(ui, 2, 300.0, |cols| {
            cols[0].label(t!("training-loss-title"));
            let mut words = PlotWords::new(t!("training-loss-title"), step.clone());
            let plot = Plot::new("loss")
                .height(180.0)
                .allow_scroll(false)
                .legend(Legend::default())
                .show(&mut cols[0], |p| {
                    p.line(words.line(this_run.clone(), this.loss));
                    if let Some(prev) = previous {
                        let name = t!("training-before", settings = &prev.label);
                        p.line(words.line(name, prev.loss.clone()));
                    }
                });
            words.add(&mut cols[0], &plot.response);
            cols[1].label(t!("training-accuracy-title"));
            let mut words = PlotWords::new(t!("training-accuracy-title"), step.clone());
            let plot = Plot::new("accuracy")
                .height(180.0)
                .allow_scroll(false)
                .include_y(0.0)
                .include_y(1.0)
                .legend(Legend::default().position(Corner::RightBottom))
                .show(&mut cols[1], |p| {
                    p.line(words.line(t!("training-exact-sequences"), exact));
                    p.line(words.line(t!("training-tokens"), tokens));
                });
            words.add(&mut cols[1], &plot.response);
        });
        ui.label(t!("training-grad-norm-label", settings = &this.label));
        let mut words = PlotWords::new(t!("training-grad-norm-title"), step);
        let plot = Plot::new("grad_norm")
            .height(130.0)
            .allow_scroll(false)
            .legend(Legend::default())
            .show(ui, |p| {
                p.line(words.line(this_run, this.grad_norm));
                if let Some(prev) = previous {
                    let name = t!("training-before", settings = &prev.label);
                    p.line(words.line(name, prev.grad_norm.clone()));
                }
            });
        words.add(ui, &plot.response);
        ui.separator();
        let key = (self.config.clone(), p.steps);
        if self.probe.as_ref().is_none_or(|(k, _)| *k != key) {
            let task = self.config.task;
            let ex = make_example(task, &model.tokenizer, &task.probe_pair());
            let trace = model.forward(&ex.input, &ForwardOptions::default());
            self.probe = Some((key, trace.map_err(|e| e.to_string())));
        }
        let trace = match self.probe.as_ref().map(|(_, t)| t) {
            Some(Ok(tr)) => tr,
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
                return;
            }
            None => return,
        };
        let kind = AttentionKind::most_telling(model.config.family);
        let layer = model.config.n_layers - 1;
        let heads = model.config.n_heads;
        self.head = self.head.min(heads - 1);
        ui.horizontal_wrapped(|ui| {
            ui.label(t!("training-probe-input", attention = kind.words()));
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.head, 0..=heads - 1).text(t!("training-head")),
            );
        });
        let Some(a) = trace.attention(kind, layer) else {
            return;
        };
        let Some(w) = a.weights.outer_iter().nth(self.head) else {
            return;
        };
        let scale = ColorScale::Sequential { min: 0.0, max: 1.0 };
        let context = t!("training-probe-context", layer = layer, head = self.head);
        let (query, key) = (t!("training-query"), t!("training-key"));
        Heatmap {
            allowed: Some(a.mask.view()),
            max_cell: 36.0,
            axis_names: (&query, &key),
            context: &context,
            ..Heatmap::new(w, &a.query_tokens, &a.key_tokens, scale)
        }
        .show_with_legend(ui, 200.0, &t!("training-weight"));
    }
}

/// One row per training step.
pub fn steps_csv(history: &[StepStats]) -> String {
    let mut out = String::from("step,loss,learning_rate,grad_norm,tokens\n");
    for s in history {
        out += &format!(
            "{},{},{},{},{}\n",
            s.step, s.loss, s.lr, s.grad_norm, s.tokens
        );
    }
    out
}

/// One row per held-out evaluation; the baseline column is empty except for the LM.
pub fn evals_csv(evals: &[(u64, EvalStats)]) -> String {
    let mut out = String::from("step,exact_match,token_accuracy,loss,examples,baseline_loss\n");
    for (step, e) in evals {
        let baseline = e.baseline_loss.map(|b| b.to_string()).unwrap_or_default();
        out += &format!(
            "{step},{},{},{},{},{baseline}\n",
            e.exact_match, e.token_accuracy, e.loss, e.examples
        );
    }
    out
}

#[cfg(test)]
mod tests;
