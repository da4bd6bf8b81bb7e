//! The training lab's controls: task, model shape and positional scheme; the run's start,
//! pause and step buttons; the learning-rate schedule with its curve and the clipping.

use super::*;

impl TrainingLab {
    pub(super) fn controls(&mut self, ui: &mut egui::Ui) {
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
        ui.horizontal_wrapped(|ui| {
            ui.label("norm");
            ui.selectable_value(&mut c.norm, NormPlacement::Pre, "pre");
            ui.selectable_value(&mut c.norm, NormPlacement::Post, "post");
        });
        ui.horizontal_wrapped(|ui| {
            ui.label("d_model");
            for d in [16, 32, 64] {
                ui.selectable_value(&mut c.d_model, d, d.to_string());
            }
        });
        ui.horizontal_wrapped(|ui| {
            ui.label("heads");
            for h in [1, 2, 4] {
                ui.selectable_value(&mut c.n_heads, h, h.to_string());
            }
        });
        crate::app::widgets::fit::add(ui, egui::Slider::new(&mut c.n_layers, 1..=3).text("layers"));
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut c.dropout, 0.0..=0.5).text("dropout"),
        )
        .on_hover_text(
            "share of activations zeroed at random during training (never when evaluating)",
        );
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
        ui.heading("Learning rate");
        let before = self.config.clone();
        schedule_controls(ui, &mut self.config);
        if self.config != before {
            self.reset();
        }
        ui.separator();
        ui.heading("Training");
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
            let label = if running { "‖ Pause" } else { "▶ Start" };
            let start = ui.button(label);
            crate::app::probe::control("training:start", start.rect);
            if start.clicked() {
                run.set_running(!running);
            }
            if ui
                .button("Step")
                .on_hover_text("one optimisation step")
                .clicked()
            {
                run.step_once();
            }
            let reset = ui
                .button("Reset")
                .on_hover_text("back to the same initial weights (same seed)");
            if reset.clicked() {
                if let Err(e) = run.reset(config) {
                    log::warn!("reset failed: {e}");
                }
            }
        });
        let mut percent = *speed * 100.0;
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut percent, 5.0..=100.0)
                .text("speed %")
                .integer(),
        )
        .on_hover_text(if run.threaded() {
            "share of each 100 ms the training thread works"
        } else {
            "milliseconds of each frame spent training (of 100)"
        });
        if (percent / 100.0 - *speed).abs() > 1e-6 {
            *speed = percent / 100.0;
            run.set_speed(*speed);
        }
        let p = run.progress();
        ui.label(format!("step {}", p.steps));
        if let Some(s) = p.history.last() {
            ui.label(format!(
                "loss {:.4} · lr {:.2e} · grad norm {:.3}",
                s.loss, s.lr, s.grad_norm
            ));
        }
        if p.running {
            ui.label(format!(
                "{:.0} steps/s · {:.0} tokens/s ({})",
                p.steps_per_sec,
                p.tokens_per_sec,
                if run.threaded() {
                    "worker thread"
                } else {
                    "in frames"
                }
            ));
        }
        if let Some((step, e)) = p.evals.last() {
            ui.label(format!(
                "held-out at step {step}: exact {:.0}% · tokens {:.0}%",
                100.0 * e.exact_match,
                100.0 * e.token_accuracy
            ));
        }
        ui.weak(format!(
            "{EVAL_EXAMPLES} held-out sequences every {EVAL_EVERY} steps; speed {:.0} ms of every {PERIOD_MS:.0}",
            *speed * PERIOD_MS
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
            "linear warmup, then cosine decay to peak/30 at step 3000",
            "the original transformer: (1/√d) · min(1/√s, s/(w·√w)), scaled to the peak",
            "the peak from the first step: no warmup",
        ]) {
            ui.selectable_value(&mut name, n, n).on_hover_text(why);
        }
    });
    crate::app::widgets::fit::add(
        ui,
        egui::Slider::new(&mut peak, PEAKS)
            .logarithmic(true)
            .text("peak lr"),
    );
    ui.add_enabled_ui(name != "constant", |ui| {
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut warmup, WARMUPS).text("warmup steps"),
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
            .text("clip norm"),
    )
    .on_hover_text(
        "rescale the whole gradient when its norm is above this; 100 turns clipping off",
    );
    c.clip_norm = if clip >= off { f32::INFINITY } else { clip };
    let schedule = c.schedule;
    let points = (1..=SCHEDULE_STEPS)
        .step_by(10)
        .map(|t| [t as f64, schedule.lr(t) as f64])
        .collect();
    let mut words = PlotWords::new("learning-rate schedule", "step");
    let plot = Plot::new("schedule")
        .height(90.0)
        .allow_scroll(false)
        .allow_drag(false)
        .include_y(0.0)
        .x_axis_label("step")
        .show(ui, |p| p.line(words.line("learning rate", points)));
    words.add(ui, &plot.response);
}
