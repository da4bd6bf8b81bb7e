//! The training lab's controls: task, model shape and positional scheme; the run's start,
//! pause and step buttons; the learning-rate schedule with its curve and the clipping.

use super::*;
use crate::app::words::Words;

impl TrainingLab {
    pub(super) fn controls(&mut self, ui: &mut egui::Ui) {
        ui.heading(t!("training-task-and-model"));
        let before = self.config.clone();
        let c = &mut self.config;
        egui::ComboBox::from_label(t!("training-task"))
            .selected_text(c.task.name())
            .show_ui(ui, |ui| {
                for t in ALL_TASKS {
                    ui.selectable_value(&mut c.task, t, t.name());
                }
            });
        egui::ComboBox::from_label(t!("training-positions"))
            .selected_text(c.positional.words())
            .show_ui(ui, |ui| {
                for p in [
                    Positional::None,
                    Positional::Sinusoidal { base: 10000.0 },
                    Positional::Learned,
                    Positional::Rope { base: 10000.0 },
                    Positional::Alibi,
                    Positional::Relative { max_distance: 8 },
                ] {
                    ui.selectable_value(&mut c.positional, p, p.words());
                }
            });
        ui.horizontal_wrapped(|ui| {
            ui.label(t!("training-norm"));
            ui.selectable_value(&mut c.norm, NormPlacement::Pre, "pre");
            ui.selectable_value(&mut c.norm, NormPlacement::Post, "post");
        });
        ui.horizontal_wrapped(|ui| {
            crate::app::widgets::math_text::label(ui, "d_model");
            for d in [16, 32, 64] {
                ui.selectable_value(&mut c.d_model, d, d.to_string());
            }
        });
        ui.horizontal_wrapped(|ui| {
            ui.label(t!("training-heads"));
            for h in [1, 2, 4] {
                ui.selectable_value(&mut c.n_heads, h, h.to_string());
            }
        });
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut c.n_layers, 1..=3).text(t!("training-layers")),
        );
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut c.dropout, 0.0..=0.5).text(t!("training-dropout")),
        )
        .on_hover_text(t!("training-dropout-hover"));
        ui.add(egui::DragValue::new(&mut c.seed).prefix(format!("{} ", t!("training-seed"))));
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
        ui.heading(t!("training-learning-rate"));
        let before = self.config.clone();
        schedule_controls(ui, &mut self.config);
        if self.config != before {
            self.reset();
        }
        ui.separator();
        ui.heading(t!("training-training"));
        if let Some(run) = self.run.as_mut() {
            Self::run_controls(ui, run, &self.config, &mut self.speed);
        }
        if let Some(e) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
    }

    pub(super) fn run_controls(
        ui: &mut egui::Ui,
        run: &mut TrainingRun,
        config: &TrainConfig,
        speed: &mut f32,
    ) {
        let running = run.running();
        ui.horizontal_wrapped(|ui| {
            let label = if running {
                t!("training-pause")
            } else {
                t!("training-start")
            };
            let start = ui.button(label);
            crate::app::probe::control("training:start", start.rect);
            if start.clicked() {
                run.set_running(!running);
            }
            if ui
                .button(t!("training-step"))
                .on_hover_text(t!("training-step-hover"))
                .clicked()
            {
                run.step_once();
            }
            let reset = ui
                .button(t!("training-reset"))
                .on_hover_text(t!("training-reset-hover"));
            crate::app::probe::control("training:reset", reset.rect);
            if reset.clicked() {
                if let Err(e) = run.reset(config) {
                    log::warn!("reset failed: {e}");
                }
            }
        });
        // The run's own speed: inside the browser's frames it is capped below what was asked.
        let (mut percent, max) = (run.speed() * 100.0, run.max_speed() * 100.0);
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut percent, 5.0..=max)
                .text(t!("training-speed"))
                .integer(),
        )
        .on_hover_text(if run.threaded() {
            t!("training-speed-thread-hover")
        } else if max < 100.0 {
            t!("training-speed-capped-hover", max = format!("{max:.0}"))
        } else {
            t!("training-speed-frames-hover")
        });
        if (percent / 100.0 - run.speed()).abs() > 1e-6 {
            run.set_speed(percent / 100.0);
            *speed = run.speed();
        }
        let p = run.progress();
        if p.starting() {
            ui.label(t!("training-starting"));
        } else {
            ui.label(t!("training-step-count", step = p.steps));
        }
        if let Some(s) = p.history.last() {
            crate::app::widgets::math_text::label(
                ui,
                &t!(
                    "training-step-stats",
                    loss = format!("{:.4}", s.loss),
                    lr = format!("{:.2e}", s.lr),
                    grad_norm = format!("{:.3}", s.grad_norm)
                ),
            );
        }
        if p.running {
            ui.label(t!(
                "training-speed-stats",
                steps = format!("{:.0}", p.steps_per_sec),
                tokens = format!("{:.0}", p.tokens_per_sec),
                place = if run.threaded() {
                    t!("training-worker-thread")
                } else {
                    t!("training-in-frames")
                }
            ));
        }
        if let Some((step, e)) = p.evals.last() {
            ui.label(t!(
                "training-held-out-stats",
                step = *step,
                exact = format!("{:.0}", 100.0 * e.exact_match),
                tokens = format!("{:.0}", 100.0 * e.token_accuracy)
            ));
        }
        ui.weak(t!(
            "training-eval-note",
            examples = EVAL_EXAMPLES,
            every = EVAL_EVERY,
            ms = format!("{:.0}", run.speed() * PERIOD_MS),
            period = format!("{PERIOD_MS:.0}")
        ));
        if let Some(e) = &p.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
    }
}

/// The learning-rate schedule (kind, peak, warmup) and the clipping threshold, with the
/// schedule's curve. The schedule is rebuilt only when a control moved.
fn schedule_controls(ui: &mut egui::Ui, c: &mut TrainConfig) {
    let was = (c.schedule.name(), c.schedule.peak(), c.schedule.warmup());
    let (mut name, mut peak, mut warmup) = was;
    ui.horizontal_wrapped(|ui| {
        for (n, why) in SCHEDULE_NAMES.into_iter().zip([
            t!("training-schedule-cosine-hover"),
            t!("training-schedule-noam-hover"),
            t!("training-schedule-constant-hover"),
        ]) {
            ui.selectable_value(&mut name, n, schedule_words(n))
                .on_hover_text(why);
        }
    });
    crate::app::widgets::fit::add(
        ui,
        egui::Slider::new(&mut peak, PEAKS)
            .logarithmic(true)
            .text(t!("training-peak-lr")),
    );
    ui.add_enabled_ui(name != "constant", |ui| {
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut warmup, WARMUPS).text(t!("training-warmup-steps")),
        );
    });
    if (name, peak, warmup) != was {
        if let Some(s) = Schedule::shaped(name, peak, warmup, c.d_model, SCHEDULE_STEPS) {
            c.schedule = s;
        }
    }
    let off = *CLIPS.end();
    let mut clip = if c.clip_norm.is_finite() {
        c.clip_norm
    } else {
        off
    };
    crate::app::widgets::fit::add(
        ui,
        egui::Slider::new(&mut clip, CLIPS)
            .logarithmic(true)
            .text(t!("training-clip-norm")),
    )
    .on_hover_text(t!("training-clip-norm-hover"));
    c.clip_norm = if clip >= off { f32::INFINITY } else { clip };
    let schedule = c.schedule;
    let points = (1..=SCHEDULE_STEPS)
        .step_by(10)
        .map(|t| [t as f64, schedule.lr(t) as f64])
        .collect();
    let mut words = PlotWords::new(t!("training-schedule-title"), t!("training-step-axis"));
    let plot = Plot::new("schedule")
        .height(90.0)
        .allow_scroll(false)
        .allow_drag(false)
        .include_y(0.0)
        .x_axis_label(t!("training-step-axis"))
        .show(ui, |p| {
            p.line(words.line(t!("training-learning-rate-series"), points))
        });
    words.add(ui, &plot.response);
}

/// A schedule's name (`cosine`, `noam`, `constant` in links) as the reader reads it; Noam is a
/// name.
pub(super) fn schedule_words(name: &str) -> String {
    match name {
        "cosine" => t!("training-schedule-cosine"),
        "constant" => t!("training-schedule-constant"),
        other => other.to_string(),
    }
}
