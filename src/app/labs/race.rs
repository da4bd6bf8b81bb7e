//! A side-by-side training race drawn inside a lab (Depth's pre-norm vs post-norm, Heads off's
//! shared keys and values): start and pause, progress with the time left, each contender's
//! loss and held-out exact match over the steps, and a table of where each one ended. It
//! trains a slice per frame, so the page keeps drawing.

use super::training::chunk_means;
use crate::app::widgets::plot_words::PlotWords;
use crate::app::widgets::series_key;
use crate::t;
use crate::train::compare::{Contender, Experiment, Race};
use crate::train::tasks::TaskKind;
use egui::Ui;
use egui_plot::Plot;

/// How long one frame may train before it draws.
const FRAME_BUDGET: web_time::Duration = web_time::Duration::from_millis(30);
/// Points a loss curve draws at most.
const PLOT_POINTS: usize = 300;

/// What a race trains: changing any of it starts a new race.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RaceSpec {
    pub experiment: Experiment,
    pub task: TaskKind,
    pub seed: u64,
    pub steps: u64,
    /// Held-out examples per evaluation (ten evaluations per run).
    pub examples: usize,
}

#[derive(Default)]
pub struct RaceView {
    /// Train when the page is drawn (the button, or a link).
    pub running: bool,
    race: Option<(RaceSpec, Result<Race, String>)>,
    /// Seconds spent training and the steps they bought, for the time-left estimate.
    spent: (f64, u64),
    /// log₁₀ loss curves, for the total steps taken when they were made.
    curves: Option<(u64, Vec<Vec<[f64; 2]>>)>,
}

impl RaceView {
    /// Started and not finished: frames still train.
    pub fn pending(&self) -> bool {
        self.running && matches!(&self.race, Some((_, Ok(r))) if !r.done())
    }

    /// The race for `spec`, built when first asked for or when the spec changed.
    pub fn race(&mut self, spec: RaceSpec) -> Result<&Race, String> {
        if self.race.as_ref().is_none_or(|(s, _)| *s != spec) {
            let entries = spec.experiment.entries(spec.task, spec.seed, spec.steps);
            let race = Race::new(entries, spec.steps, spec.steps / 10, spec.examples)
                .map_err(|e| e.to_string());
            self.race = Some((spec, race));
            self.spent = (0.0, 0);
            self.curves = None;
        }
        match &self.race {
            Some((_, Ok(r))) => Ok(r),
            Some((_, Err(e))) => Err(e.clone()),
            None => Err(String::new()),
        }
    }

    /// The race as JSON for the export menu: each contender's settings, final outcome and
    /// evaluations by step.
    pub fn json(&self) -> Option<Vec<u8>> {
        let Some((spec, Ok(race))) = &self.race else {
            return None;
        };
        let contenders: Vec<_> = race
            .contenders
            .iter()
            .zip(race.outcomes())
            .map(|(c, o)| {
                serde_json::json!({
                    "config": c.trainer.config,
                    "outcome": o,
                    "evals": c.evals,
                })
            })
            .collect();
        serde_json::to_vec_pretty(&serde_json::json!({
            "experiment": format!("{:?}", spec.experiment),
            "task": spec.task.name(),
            "steps": spec.steps,
            "contenders": contenders,
        }))
        .ok()
    }

    /// Train one frame's slice.
    fn advance(&mut self, ui: &Ui) {
        let Some((_, Ok(race))) = self.race.as_mut() else {
            return;
        };
        if !self.running || race.done() {
            return;
        }
        let start = web_time::Instant::now();
        let steps = race.run_for(FRAME_BUDGET);
        self.spent.0 += start.elapsed().as_secs_f64();
        self.spent.1 += steps as u64;
        ui.ctx().request_repaint();
    }

    /// The controls, progress, curves and table; `extra` adds a column (its title and one
    /// cell per contender).
    pub fn show(
        &mut self,
        ui: &mut Ui,
        id: &str,
        spec: RaceSpec,
        extra: (&str, &dyn Fn(&Contender) -> String),
    ) {
        if let Err(e) = self.race(spec) {
            ui.colored_label(ui.visuals().error_fg_color, e);
            return;
        }
        self.advance(ui);
        let Some((_, Ok(race))) = &self.race else {
            return;
        };
        let done = race.done();
        let n = race.contenders.len();
        let total = spec.steps * n as u64;
        // Stopped contenders count as finished.
        let counted = (race.progress() * total as f32).round() as u64;
        train_controls(
            ui,
            &format!("{id}:train"),
            &mut self.running,
            (counted, total, done),
            self.spent,
            &t!("race-train-all", count = n),
            &t!("race-what", count = n, steps = spec.steps),
        );
        let taken: u64 = race.contenders.iter().map(Contender::steps).sum();
        if self.curves.as_ref().is_none_or(|(t, _)| *t != taken) {
            let curves = race
                .contenders
                .iter()
                .map(|c| {
                    let h = c.history();
                    let points = h
                        .iter()
                        .filter(|s| s.loss.is_finite())
                        .map(|s| (s.step as f64, f64::from(s.loss).max(1e-9).log10()));
                    chunk_means(points, h.len(), PLOT_POINTS)
                })
                .collect();
            self.curves = Some((taken, curves));
        }
        let curves = self
            .curves
            .as_ref()
            .map(|(_, c)| c.as_slice())
            .unwrap_or_default();
        let names: Vec<String> = race.contenders.iter().map(name).collect();
        series_key(ui, names.iter().map(String::as_str));
        let step = t!("race-step");
        crate::app::widgets::fit::columns(ui, 2, 300.0, |cols| {
            cols[0].label(t!("race-loss-title"));
            let mut words = PlotWords::new(t!("race-loss-title"), step.clone());
            let plot = Plot::new(format!("{id}_loss"))
                .height(170.0)
                .allow_scroll(false)
                .x_axis_label(step.clone())
                .show(&mut cols[0], |p| {
                    for (c, points) in race.contenders.iter().zip(curves) {
                        p.line(words.line(name(c), points.clone()));
                    }
                });
            words.add(&mut cols[0], &plot.response);
            // A language model has no exact answers: its held-out loss is drawn instead.
            let exact = spec.task != TaskKind::CharLm;
            let title = match exact {
                true => t!("race-exact-title"),
                false => t!("race-held-out-loss"),
            };
            cols[1].label(&title);
            let mut words = PlotWords::new(title, step.clone());
            let plot = Plot::new(format!("{id}_exact"))
                .height(170.0)
                .allow_scroll(false);
            // Exact match spans 0 to 1; a loss gets the range of its values.
            let plot = match exact {
                true => plot.include_y(0.0).include_y(1.0),
                false => plot,
            };
            let plot = plot
                .include_x(spec.steps as f64)
                .x_axis_label(step.clone())
                .show(&mut cols[1], |p| {
                    for c in &race.contenders {
                        let points = c
                            .evals
                            .iter()
                            .map(|(s, e)| {
                                let y = if exact { e.exact_match } else { e.loss };
                                [*s as f64, f64::from(y)]
                            })
                            .collect();
                        p.line(words.line(name(c), points));
                    }
                });
            words.add(&mut cols[1], &plot.response);
        });
        table(ui, id, race, extra, spec.task != TaskKind::CharLm);
    }
}

/// "12 s" or "3 min": how long something will take.
pub fn duration(seconds: f64) -> String {
    if seconds < 90.0 {
        t!("race-seconds", seconds = format!("{seconds:.0}"))
    } else {
        t!("race-minutes", minutes = format!("{:.0}", seconds / 60.0))
    }
}

/// The controls every in-page training shares: train / pause / go on, what is trained and
/// about how long is left (from the seconds `spent` on the steps taken so far), and a
/// progress bar while it runs. `steps` is (taken, total, done).
pub fn train_controls(
    ui: &mut Ui,
    control: &str,
    running: &mut bool,
    (taken, total, done): (u64, u64, bool),
    spent: (f64, u64),
    start: &str,
    what: &str,
) {
    ui.horizontal_wrapped(|ui| {
        let label = match (*running, done) {
            (_, true) => t!("race-trained"),
            (true, false) => t!("race-pause"),
            (false, false) if taken > 0 => t!("race-go-on"),
            (false, false) => start.to_string(),
        };
        let b = ui.add_enabled(!done, egui::Button::new(label));
        crate::app::probe::control(control, b.rect);
        if b.clicked() {
            *running = !*running;
        }
        let left = (spent.1 > 0 && !done).then(|| {
            let per = spent.0 / spent.1 as f64;
            t!(
                "race-left",
                time = duration(per * total.saturating_sub(taken) as f64)
            )
        });
        ui.weak(match left {
            Some(left) => format!("{what} · {left}"),
            None => what.to_string(),
        });
    });
    if *running && !done {
        ui.add(egui::ProgressBar::new(taken as f32 / total.max(1) as f32).show_percentage());
    }
}

/// Where each contender stands: the last evaluation and the extra column.
/// `exact` false: a language model, whose exact match is always 0, shows a dash.
fn table(
    ui: &mut Ui,
    id: &str,
    race: &Race,
    extra: (&str, &dyn Fn(&Contender) -> String),
    exact: bool,
) {
    egui::Grid::new(format!("{id}_table"))
        .striped(true)
        .num_columns(6)
        .show(ui, |ui| {
            for title in [
                String::new(),
                t!("race-step"),
                t!("race-held-out-loss"),
                t!("race-tokens-right"),
                t!("race-exact"),
                extra.0.to_string(),
            ] {
                crate::app::widgets::math_text::strong(ui, &title);
            }
            ui.end_row();
            for c in &race.contenders {
                crate::app::widgets::math_text::strong(ui, &name(c));
                ui.label(c.steps().to_string());
                match c.last_eval() {
                    Some(e) => {
                        ui.label(format!("{:.4}", e.loss));
                        ui.label(format!("{:.1} %", 100.0 * e.token_accuracy));
                        match exact {
                            true => ui.label(format!("{:.1} %", 100.0 * e.exact_match)),
                            false => ui.weak("–"),
                        };
                    }
                    None => {
                        for _ in 0..3 {
                            ui.weak("–");
                        }
                    }
                }
                ui.label(extra.1(c));
                if let Some(s) = &c.stopped {
                    ui.colored_label(ui.visuals().warn_fg_color, s);
                }
                ui.end_row();
            }
        });
}

/// A contender's name in the reader's language: the trainer's label names the key/value
/// sharing in English ("2 KV heads (grouped)"); pre-norm and post-norm are terms in every
/// language.
fn name(c: &Contender) -> String {
    let config = &c.trainer.config;
    match config.kv_heads {
        Some(1) if c.label.contains("KV head") => t!("race-kv-multi-query"),
        Some(k) if k == config.n_heads && c.label.contains("KV head") => {
            t!("race-kv-multi-head", count = k)
        }
        Some(k) if c.label.contains("KV head") => t!("race-kv-grouped", count = k),
        _ => c.label.clone(),
    }
}
