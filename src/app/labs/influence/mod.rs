//! Influence: from where attention looks to what it does, on the shared model and input.
//! Four sections over the `analysis` tools: the logit lens (what each layer would predict),
//! direct logit attribution (who wrote the answer), activation patching (what restores it)
//! and attention against influence (looking is not using, with the sink detector). The lens
//! and the long sweeps fill in step by step (`background`), with progress and Cancel.

mod attribution_view;
mod background;
mod compare_view;
mod lens_view;
mod patching_view;
#[cfg(test)]
mod tests;

use super::{Lab, Shared};
use crate::analysis::single_token;
use crate::app::link::{LinkReader, LinkWriter};
use crate::app::models::store::ModelStore;
use crate::model::{ForwardOptions, Model, Trace};
use crate::t;
use std::sync::Arc;

/// The lab's four sections, in tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Section {
    #[default]
    Lens,
    Attribution,
    Patching,
    Compare,
}

/// The sections with their names for the tests' probe (the English titles, in every language).
const SECTIONS: [(Section, &str); 4] = [
    (Section::Lens, "layer by layer (logit lens)"),
    (Section::Attribution, "who wrote the answer (attribution)"),
    (Section::Patching, "patching"),
    (Section::Compare, "attention vs influence"),
];

impl Section {
    /// Its chip's title.
    pub fn title(self) -> String {
        match self {
            Section::Lens => t!("influence-section-lens"),
            Section::Attribution => t!("influence-section-attribution"),
            Section::Patching => t!("influence-section-patching"),
            Section::Compare => t!("influence-section-compare"),
        }
    }
}

/// The effect the attention is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Effect {
    /// Direct logit attribution: instant.
    #[default]
    Attribution,
    /// Each head switched off: a pass per block.
    Ablation,
    /// The patching sweep's head scores (run in the patching section).
    Patching,
}

#[derive(Default)]
pub struct InfluenceLab {
    pub section: Section,
    /// The answer token A (as text, one token of the model's tokenizer); empty: the model's
    /// own top prediction at the position.
    pub target: String,
    /// The contrast token B; empty: none (shares of logit(A) alone).
    pub contrast: String,
    /// The position read (lens line, attribution, compare query); `None`: the last.
    pub position: Option<usize>,
    /// The corrupted text patched from the clean (shared) one.
    pub corrupt: String,
    /// The patching sweep was asked to run (a link can ask).
    pub sweep: bool,
    pub effect: Effect,
    /// The ablation was asked to run.
    pub ablate: bool,
    lens: lens_view::LensState,
    attribution: attribution_view::AttributionState,
    patching: patching_view::PatchingState,
    compare: compare_view::CompareState,
    /// The numbers on screen, for the tests' probe (`probe::influence`).
    published: serde_json::Map<String, serde_json::Value>,
}

/// What every section reads: the model, its clean pass (τ = 1, blocks kept) and the tokens.
pub struct Clean {
    pub name: String,
    pub model: Arc<Model>,
    pub trace: Arc<Trace>,
    pub ids: Vec<u32>,
    pub tokens: Vec<String>,
}

impl Clean {
    /// The position read: the one picked, else the last.
    pub fn position(&self, picked: Option<usize>) -> usize {
        let last = self.tokens.len().saturating_sub(1);
        picked.map_or(last, |p| p.min(last))
    }
}

/// The shared input's pass at τ = 1 through the store (memoised; a slice a frame in the
/// browser), or what to show instead.
fn clean_pass(shared: &Shared<'_>) -> Result<Clean, String> {
    let model = shared.bench.model.clone()?;
    let name = shared.bench.model_name.clone();
    let prepared = model.prepare(&shared.bench.source, &shared.bench.target);
    let trace = shared
        .store
        .forward(&name, &prepared.input, &ForwardOptions::default())?;
    let stack = crate::analysis::read_stack(&trace).ok_or_else(|| t!("influence-no-stack"))?;
    let (ids, tokens) = (stack.ids.clone(), stack.tokens.clone());
    if ids.is_empty() {
        return Err(t!("influence-empty-input"));
    }
    Ok(Clean {
        name,
        model,
        trace,
        ids,
        tokens,
    })
}

/// A token typed as text, as the model's id (empty: `None`).
fn token_id(model: &Model, text: &str) -> Result<Option<u32>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    single_token(model, text)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// The answer token: the one typed, else the model's own top prediction at `position`.
fn answer(clean: &Clean, text: &str, position: usize) -> Result<u32, String> {
    if let Some(id) = token_id(&clean.model, text)? {
        return Ok(id);
    }
    let row = clean.trace.logits.row(position);
    let best = row
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, _)| i as u32);
    best.ok_or_else(|| t!("influence-no-logits"))
}

fn warn(ui: &mut egui::Ui, text: impl Into<String>) {
    ui.colored_label(ui.visuals().warn_fg_color, text.into());
}

/// Shows a store answer that is not a trace (its progress with Cancel, or the failure).
fn not_ready(ui: &mut egui::Ui, store: &ModelStore, e: &str) {
    crate::app::models::pass_answer::show(ui, store, e);
}

impl InfluenceLab {
    /// Publishes a section's numbers on screen to the probe (when they changed).
    fn note(&mut self, key: &str, value: serde_json::Value) {
        if self.published.get(key) != Some(&value) {
            self.published.insert(key.to_string(), value);
            crate::app::probe::publish_influence(&self.published);
        }
    }

    /// Every head's ablation has run (the comparison's effect is complete).
    pub fn compare_done(&self) -> bool {
        self.compare.is_done()
    }

    /// What the probe last heard, for the native tests.
    pub fn published(&self) -> &serde_json::Map<String, serde_json::Value> {
        &self.published
    }

    /// The answer and contrast boxes, and the position picked, above every section.
    fn token_boxes(&mut self, ui: &mut egui::Ui, clean: &Clean, contrast_too: bool) {
        ui.horizontal_wrapped(|ui| {
            let label = ui.label(t!("influence-answer-token"));
            let r = ui.add(
                egui::TextEdit::singleline(&mut self.target)
                    .desired_width(90.0)
                    .hint_text(t!("influence-answer-hint")),
            );
            let r = r.labelled_by(label.id);
            crate::app::probe::control("influence:target", r.rect);
            if contrast_too {
                let label = ui.label(t!("influence-contrast-token"));
                let r = ui.add(
                    egui::TextEdit::singleline(&mut self.contrast)
                        .desired_width(90.0)
                        .hint_text(t!("influence-contrast-hint")),
                );
                let r = r.labelled_by(label.id);
                crate::app::probe::control("influence:contrast", r.rect);
            }
            let p = clean.position(self.position);
            egui::ComboBox::from_label(t!("influence-position-read"))
                .selected_text(format!("{p} “{}”", clean.tokens[p]))
                .show_ui(ui, |ui| {
                    for (i, t) in clean.tokens.iter().enumerate() {
                        let last = i + 1 == clean.tokens.len();
                        let label = match last {
                            true => t!("influence-position-last", position = i, token = t),
                            false => format!("{i} “{t}”"),
                        };
                        if ui.selectable_label(p == i, label).clicked() {
                            self.position = (!last).then_some(i);
                        }
                    }
                });
        });
        ui.weak(t!("influence-token-help"));
    }
}

/// A text value of a link, at most 4,000 characters (longer: refused with a notice).
fn text(r: &mut LinkReader, key: &str) -> Option<String> {
    r.read(key, |v| (v.chars().count() <= 4000).then(|| v.to_string()))
}

impl Lab for InfluenceLab {
    fn id(&self) -> &'static str {
        "influence"
    }

    fn uses_shared_input(&self) -> bool {
        true
    }

    fn ui(&mut self, ui: &mut egui::Ui, shared: &mut Shared<'_>) {
        ui.horizontal_wrapped(|ui| {
            for (section, name) in SECTIONS {
                let r = ui.selectable_value(&mut self.section, section, section.title());
                crate::app::probe::control(&format!("influence:{name}"), r.rect);
            }
        });
        let clean = match clean_pass(shared) {
            Ok(c) => c,
            Err(e) => {
                if shared.bench.model.is_err() {
                    ui.weak(t!("influence-waiting"));
                } else {
                    not_ready(ui, shared.store, &e);
                }
                return;
            }
        };
        if !clean.model.has_output_layer() {
            warn(ui, t!("influence-no-output-layer", model = &clean.name));
        }
        match self.section {
            Section::Lens => self.lens_section(ui, shared, &clean),
            Section::Attribution => self.attribution_section(ui, shared, &clean),
            Section::Patching => self.patching_section(ui, shared, &clean),
            Section::Compare => self.compare_section(ui, shared, &clean),
        }
    }

    fn sections(&self) -> Vec<String> {
        (0..SECTIONS.len())
            .map(|s| format!("view=influence&isec={s}"))
            .collect()
    }

    fn keys(&self) -> &'static [&'static str] {
        &[
            "isec", "itgt", "icon", "ipos", "icor", "isweep", "ieff", "iabl",
        ]
    }

    fn save(&self, w: &mut LinkWriter) {
        let section = SECTIONS.iter().position(|s| s.0 == self.section);
        w.put("isec", section.unwrap_or(0));
        w.put("itgt", &self.target);
        w.put("icon", &self.contrast);
        if let Some(p) = self.position {
            w.put("ipos", p);
        }
        w.put("icor", &self.corrupt);
        w.put("isweep", u8::from(self.sweep));
        w.put("ieff", self.effect as u8);
        w.put("iabl", u8::from(self.ablate));
    }

    fn load(&mut self, r: &mut LinkReader) {
        if let Some(s) = r.number("isec", 0..=SECTIONS.len() - 1) {
            self.section = SECTIONS[s].0;
        }
        if let Some(t) = text(r, "itgt") {
            self.target = t;
        }
        if let Some(t) = text(r, "icon") {
            self.contrast = t;
        }
        if let Some(p) = r.number("ipos", 0..=100_000usize) {
            self.position = Some(p);
        }
        if let Some(t) = text(r, "icor") {
            self.corrupt = t;
        }
        if let Some(s) = r.flag("isweep") {
            self.sweep = s;
        }
        if let Some(e) = r.number("ieff", 0..=2u8) {
            self.effect = [Effect::Attribution, Effect::Ablation, Effect::Patching][e as usize];
        }
        if let Some(a) = r.flag("iabl") {
            self.ablate = a;
        }
    }
}
