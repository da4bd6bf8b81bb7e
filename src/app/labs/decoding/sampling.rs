//! Sampling instead of searching: at each step keep the top-k / top-p candidates,
//! renormalise, and let a seeded uniform draw pick one.

use super::pass_slot::PassSlot;
use super::session::{build, join, Built, Models, Settings, SourceKind};
use super::tree::{visible, GREEDY};
use crate::decode::{SampleConfig, SampleStep, Sampler};
use crate::t;
use egui::{Color32, RichText, Sense, Ui, Vec2};

/// Most candidates drawn as bars per step (the rest are summarised).
const BARS: usize = 12;

/// One sampled sequence, with the token names needed to show it.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleRun {
    pub seed: u64,
    pub steps: Vec<SampleStep>,
    /// Per step, the names of the kept tokens (parallel to `kept`).
    pub names: Vec<Vec<String>>,
    /// The sampled tokens joined.
    pub text: String,
}

/// The sampling controls and the last draw.
pub struct Sampling {
    pub use_top_k: bool,
    pub top_k: usize,
    pub use_top_p: bool,
    pub top_p: f32,
    pub seed: u64,
    pub temperature: f32,
    pub result: Option<Result<SampleRun, String>>,
    /// A draw under way, a token (a pass) at a time over frames.
    drawing: Option<Drawing>,
}

struct Drawing {
    built: Built,
    sampler: Sampler,
    kind: SourceKind,
    seed: u64,
    slot: PassSlot,
}

impl Default for Sampling {
    fn default() -> Self {
        Self {
            use_top_k: true,
            top_k: 5,
            use_top_p: false,
            top_p: 0.9,
            seed: 1,
            temperature: 1.0,
            result: None,
            drawing: None,
        }
    }
}

impl Sampling {
    fn config(&self, max_len: usize) -> SampleConfig {
        SampleConfig {
            top_k: self.use_top_k.then_some(self.top_k),
            top_p: self.use_top_p.then_some(self.top_p),
            seed: self.seed,
            max_len,
        }
    }

    /// Start drawing a sequence from the current source with these settings; the tokens
    /// come over the next frames (`advance`).
    pub fn draw(&mut self, settings: &Settings, models: &Models) {
        self.result = None;
        self.drawing = None;
        match build(settings, models, self.temperature, true) {
            Ok(built) => {
                let sampler = Sampler::new(&built.prompt, &self.config(built.max_len));
                self.drawing = Some(Drawing {
                    built,
                    sampler,
                    kind: settings.kind,
                    seed: self.seed,
                    slot: PassSlot::default(),
                });
            }
            Err(e) => self.result = Some(Err(e)),
        }
    }

    /// A draw is under way.
    pub fn drawing(&self) -> bool {
        self.drawing.is_some()
    }

    /// Tokens until `budget` is spent (at least one); the run once it is over.
    pub fn advance(&mut self, budget: web_time::Duration) {
        crate::app::models::running::within(budget, || self.unit());
    }

    /// One token of the draw under way; false once there is none (the run is in `result`), or
    /// while its pass runs off the page's thread.
    fn unit(&mut self) -> bool {
        let Some(d) = self.drawing.as_mut() else {
            return false;
        };
        let source = d.built.source.as_mut();
        let step = match d.sampler.wants() {
            None => Ok(false),
            Some(prefix) => match d.slot.log_probs(source, prefix, false) {
                // Its pass runs off the page's thread: this frame is done.
                None => return false,
                Some(answer) => answer.and_then(|lp| d.sampler.draw_from(&lp, source.eos())),
            }
            .map(|()| true),
        };
        match step {
            Ok(true) => true,
            Ok(false) => {
                self.result = self.drawing.take().map(Drawing::finish).map(Ok);
                false
            }
            Err(e) => {
                self.drawing = None;
                self.result = Some(Err(e));
                false
            }
        }
    }

    /// The controls and the last draw; `may_work`: this frame may draw tokens.
    pub fn show(&mut self, ui: &mut Ui, settings: &Settings, models: &Models, may_work: bool) {
        ui.label(t!("decoding-sampling-intro"));
        self.controls(ui);
        if ui.button(t!("decoding-sample")).clicked() {
            self.draw(settings, models);
        }
        if may_work {
            self.advance(super::WORK_PER_FRAME);
        }
        if let Some(d) = &self.drawing {
            ui.weak(t!("decoding-sampling-drawn", count = d.sampler.steps.len()));
            ui.ctx().request_repaint();
        }
        match &self.result {
            None => {}
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
            Some(Ok(run)) => show_run(ui, run),
        }
    }

    fn controls(&mut self, ui: &mut Ui) {
        ui.horizontal_wrapped(|ui| {
            ui.checkbox(&mut self.use_top_k, "top-k");
            ui.add_enabled(
                self.use_top_k,
                egui::Slider::new(&mut self.top_k, 1..=20).text("k"),
            );
            ui.separator();
            ui.checkbox(&mut self.use_top_p, "top-p");
            ui.add_enabled(
                self.use_top_p,
                egui::Slider::new(&mut self.top_p, 0.05..=1.0).text("p"),
            );
            ui.separator();
            let seed = ui.label(t!("decoding-seed"));
            ui.add(egui::DragValue::new(&mut self.seed))
                .labelled_by(seed.id);
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.temperature, 0.1..=3.0)
                    .logarithmic(true)
                    .text(t!("decoding-sampling-temperature")),
            );
        });
    }
}

impl Drawing {
    fn finish(self) -> SampleRun {
        let name = |t: u32| self.built.source.token(t);
        let steps = self.sampler.steps;
        let names = steps
            .iter()
            .map(|s| s.kept.iter().map(|&(t, _)| name(t)).collect())
            .collect();
        let chosen: Vec<String> = steps.iter().map(|s| name(s.chosen)).collect();
        SampleRun {
            seed: self.seed,
            text: join(self.kind, &chosen),
            names,
            steps,
        }
    }
}

fn show_run(ui: &mut Ui, run: &SampleRun) {
    let title = t!(
        "decoding-sample-run",
        seed = run.seed.to_string(),
        text = &run.text
    );
    ui.label(RichText::new(title).strong());
    egui::ScrollArea::vertical()
        .id_salt("decoding_samples")
        .max_height(320.0)
        .show(ui, |ui| {
            for (i, (step, names)) in run.steps.iter().zip(&run.names).enumerate() {
                ui.label(t!(
                    "decoding-sample-step",
                    step = i + 1,
                    count = step.kept.len(),
                    draw = format!("{:.3}", step.draw)
                ));
                for (&(t, q), name) in step.kept.iter().zip(names).take(BARS) {
                    bar(ui, &visible(name), q, t == step.chosen);
                }
                if step.kept.len() > BARS {
                    ui.weak(t!("decoding-sample-more", count = step.kept.len() - BARS));
                }
            }
        });
}

/// A token with its renormalised probability as a bar; the chosen one in orange.
fn bar(ui: &mut Ui, name: &str, q: f32, chosen: bool) {
    ui.horizontal_wrapped(|ui| {
        let text = RichText::new(format!("{name:>8}")).monospace();
        ui.label(if chosen {
            text.color(GREEDY).strong()
        } else {
            text
        });
        let (rect, _) = ui.allocate_exact_size(Vec2::new(200.0, 12.0), Sense::hover());
        let filled = egui::Rect::from_min_size(rect.min, Vec2::new(200.0 * q, 12.0));
        ui.painter().rect_filled(rect, 2.0, Color32::from_gray(40));
        let color = if chosen {
            GREEDY
        } else {
            Color32::from_rgb(70, 120, 200)
        };
        ui.painter().rect_filled(filled, 2.0, color);
        let share = format!("{:.1}%", 100.0 * q);
        ui.label(if chosen {
            format!("{share}  {}", t!("decoding-sample-chosen"))
        } else {
            share
        });
    });
}
