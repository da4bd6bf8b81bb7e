//! Sampling instead of searching: at each step keep the top-k / top-p candidates,
//! renormalise, and let a seeded uniform draw pick one.

use super::session::{build, join, Models, Settings};
use super::tree::{visible, GREEDY};
use crate::decode::{sample, SampleConfig, SampleStep};
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

    /// Draw a whole sequence from the current source with these settings.
    pub fn draw(&mut self, settings: &Settings, models: &Models) {
        self.result = Some(self.run(settings, models));
    }

    fn run(&self, settings: &Settings, models: &Models) -> Result<SampleRun, String> {
        let mut built = build(settings, models, self.temperature, true)?;
        let cfg = self.config(built.max_len);
        let steps = sample(built.source.as_mut(), &built.prompt, &cfg)?;
        let name = |t: u32| built.source.token(t);
        let names = steps
            .iter()
            .map(|s| s.kept.iter().map(|&(t, _)| name(t)).collect())
            .collect();
        let chosen: Vec<String> = steps.iter().map(|s| name(s.chosen)).collect();
        Ok(SampleRun {
            seed: self.seed,
            text: join(settings.kind, &chosen),
            names,
            steps,
        })
    }

    pub fn show(&mut self, ui: &mut Ui, settings: &Settings, models: &Models) {
        ui.label(
            "Instead of keeping the best hypotheses, pick one next token at random from the \
             renormalised candidates. The seed fixes the random draws: the same seed and \
             settings always give the same text.",
        );
        self.controls(ui);
        if ui.button("sample").clicked() {
            self.draw(settings, models);
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
            let seed = ui.label("seed");
            ui.add(egui::DragValue::new(&mut self.seed))
                .labelled_by(seed.id);
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.temperature, 0.1..=3.0)
                    .logarithmic(true)
                    .text("sampling temperature"),
            );
        });
    }
}

fn show_run(ui: &mut Ui, run: &SampleRun) {
    ui.label(RichText::new(format!("seed {}: {}", run.seed, run.text)).strong());
    egui::ScrollArea::vertical()
        .id_salt("decoding_samples")
        .max_height(320.0)
        .show(ui, |ui| {
            for (i, (step, names)) in run.steps.iter().zip(&run.names).enumerate() {
                ui.label(format!(
                    "step {}: {} candidate(s) kept, uniform draw {:.3}",
                    i + 1,
                    step.kept.len(),
                    step.draw
                ));
                for (&(t, q), name) in step.kept.iter().zip(names).take(BARS) {
                    bar(ui, &visible(name), q, t == step.chosen);
                }
                if step.kept.len() > BARS {
                    ui.weak(format!("… and {} more", step.kept.len() - BARS));
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
        ui.label(format!(
            "{:.1}%{}",
            100.0 * q,
            if chosen { "  chosen" } else { "" }
        ));
    });
}
