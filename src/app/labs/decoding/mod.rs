//! The decoding lab: beam search drawn as a growing tree over a trained model or a typed
//! table, stepped by hand or played, next to greedy decoding, with the attention behind any
//! hypothesis, seeded sampling, and what the key/value cache saves.

pub mod attention;
pub mod cache;
pub mod fill_mask;
pub mod layout;
pub mod pass_slot;
pub mod sampling;
pub mod session;
pub mod table;
pub mod tree;

#[cfg(test)]
mod tests;

use crate::app::export;
use crate::app::labs::{Lab, Shared};
use crate::app::link::{name_of, value_of, LinkReader, LinkWriter};
use crate::app::models::store::ModelStore;
use crate::model::Model;
use crate::t;
use attention::AttentionView;
use cache::KvComparison;
use egui::{Key, Modifiers, RichText, Ui};
use sampling::Sampling;
use session::{join, Models, Search, Settings, SourceKind};
use std::sync::Arc;

/// The search's passes a frame may take before the rest waits for the next frame (a large
/// model's pass takes longer: then one a frame).
pub(super) const WORK_PER_FRAME: web_time::Duration = web_time::Duration::from_millis(12);

/// Seconds between steps while playing.
const PLAY_INTERVAL: f64 = 0.5;

/// The lab's state; every field a test may want to drive is public.
#[derive(Default)]
pub struct DecodingLab {
    pub settings: Settings,
    /// The search for `settings` (or why there is none).
    pub search: Option<Result<Search, String>>,
    /// The clicked node.
    pub selected: Option<usize>,
    pub playing: bool,
    pub attention: AttentionView,
    pub sampling: Sampling,
    pub kv: Option<KvComparison>,
    models: Models,
    /// The settings the last build (successful or not) came from.
    built_from: Option<Settings>,
    /// When the last played step happened (egui input time).
    last_tick: f64,
    /// A part a lesson page asked to show: opened once, then left to the student.
    pub open: Option<Part>,
    /// Fill in the blank, when the picked model is an encoder.
    pub fill_mask: fill_mask::FillMask,
}

/// The collapsible parts of the lab below the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Sampling,
    KvCache,
}

pub const SOURCES: [(SourceKind, &str); 4] = [
    (SourceKind::Translate, "translate"),
    (SourceKind::Lm, "lm"),
    (SourceKind::Table, "table"),
    (SourceKind::Picked, "picked"),
];

const PARTS: [(Part, &str); 2] = [(Part::Sampling, "sampling"), (Part::KvCache, "cache")];

impl Lab for DecodingLab {
    fn id(&self) -> &'static str {
        "decoding"
    }

    fn uses_shared_input(&self) -> bool {
        false
    }

    /// The picked-model source reads the shared model (the picker then applies).
    fn uses_shared_model(&self) -> bool {
        self.settings.kind == SourceKind::Picked
    }

    fn ui(&mut self, ui: &mut Ui, shared: &mut Shared<'_>) {
        let rect = ui.max_rect();
        // The picked source follows the model in the top bar's picker.
        let bench = &shared.bench;
        self.models.picked = bench.model.clone();
        self.settings.picked_model = bench.model_name.clone();
        // An encoder fills in blanks instead of searching: its candidates are the data.
        let fills_blanks = self.picked_encoder().is_some();
        ui.horizontal_wrapped(|ui| {
            let tree = || serde_json::to_vec_pretty(&self.current()?.beam).ok();
            let blanks = || {
                let slots = self.fill_mask.result()?.as_ref().ok()?;
                serde_json::to_vec_pretty(slots).ok()
            };
            let (candidates, beam_tree) =
                (t!("decoding-export-candidates"), t!("decoding-export-tree"));
            let data: [export::DataFile<'_>; 1] = if fills_blanks {
                [(&candidates, "glimpse-fill-mask.json".into(), &blanks)]
            } else {
                [(&beam_tree, "glimpse-beam-tree.json".into(), &tree)]
            };
            export::view_menu(ui, shared.exporter, rect, "glimpse-decoding.png", &data);
        });
        self.draw(ui, shared.store);
    }

    /// `open` asks for a part below the tree to be opened once (a lesson's request, not
    /// state), so it is read but never written.
    fn keys(&self) -> &'static [&'static str] {
        &["ds", "dtext", "beam", "alpha", "maxlen", "open", "fmask"]
    }

    fn save(&self, w: &mut LinkWriter) {
        let d = &self.settings;
        w.put("ds", name_of(&SOURCES, d.kind));
        w.put("dtext", d.text());
        w.put("beam", d.width);
        w.put("alpha", d.alpha);
        w.put("maxlen", d.max_len);
        // The fill-in sentence, once an encoder has been picked and it has one.
        if !self.fill_mask.text().is_empty() {
            w.put("fmask", self.fill_mask.text());
        }
    }

    fn load(&mut self, r: &mut LinkReader) {
        let d = &mut self.settings;
        if let Some(x) = r.read("ds", |v| value_of(&SOURCES, v)) {
            d.kind = x;
        }
        // The text of the source the link names (a prompt, a sentence, or a typed table). A link
        // that names the source without its text means that source's default text, not the
        // text an earlier page left there.
        let named = r.get("ds").is_some();
        match r.get("dtext") {
            Some(v) => *d.text_mut() = v.chars().take(4000).collect(),
            None if named => {
                let fresh = Settings {
                    kind: d.kind,
                    ..Settings::default()
                };
                *d.text_mut() = fresh.text().to_string();
            }
            None => {}
        }
        if let Some(x) = r.number("beam", 1..=8) {
            d.width = x;
        }
        if let Some(x) = r.number("alpha", 0.0..=2.0) {
            d.alpha = x;
        }
        if let Some(x) = r.number("maxlen", 1..=30) {
            d.max_len = x;
        }
        if let Some(x) = r.read("open", |v| value_of(&PARTS, v)) {
            self.open = Some(x);
        }
        match r.get("fmask") {
            Some(v) => self.fill_mask.set_text(v.chars().take(4000).collect()),
            None if named => self.fill_mask.set_text(String::new()),
            None => {}
        }
    }

    fn sections(&self) -> Vec<String> {
        SOURCES
            .iter()
            .map(|(_, d)| format!("view=decoding&ds={d}"))
            .collect()
    }
}

impl DecodingLab {
    /// The lab, on the store's models.
    pub fn draw(&mut self, ui: &mut Ui, store: &ModelStore) {
        // Until both models are there (they may still be loading): ask again, and build the
        // search again once they arrive.
        let missing =
            |m: &Models| [SourceKind::Translate, SourceKind::Lm].map(|k| m.get(k).is_err());
        let before = missing(&self.models);
        if before.contains(&true) {
            let picked = self.models.picked.clone();
            self.models = Models::from_store(store);
            self.models.picked = picked;
            if missing(&self.models) != before {
                self.built_from = None;
            }
        }
        // Both ways: a wide part (the tree, the KV table) scrolls inside the lab, which keeps
        // its vertical scroll bar in sight (inside a lesson, a wider lab pushed it off screen).
        egui::ScrollArea::both()
            .id_salt("decoding_lab")
            .auto_shrink(false)
            .show(ui, |ui| self.contents(ui, store));
    }

    /// The picked model when it is the source and an encoder (it fills in blanks instead).
    fn picked_encoder(&self) -> Option<Arc<Model>> {
        let model = self.models.picked.as_ref().ok()?;
        let encoder =
            self.settings.kind == SourceKind::Picked && !model.config.family.has_decoder();
        encoder.then(|| model.clone())
    }

    /// The search, when there is one.
    pub fn current(&self) -> Option<&Search> {
        self.search.as_ref().and_then(|s| s.as_ref().ok())
    }

    fn current_mut(&mut self) -> Option<&mut Search> {
        self.search.as_mut().and_then(|s| s.as_mut().ok())
    }

    /// Steps taken by the current search (0 without one).
    pub fn steps(&self) -> usize {
        self.current().map_or(0, Search::steps)
    }

    /// Start again when a setting or text changed since the search was built.
    fn refresh(&mut self) {
        if self.built_from.as_ref() != Some(&self.settings) {
            self.reset();
        }
    }

    pub fn reset(&mut self) {
        self.rebuild(0);
    }

    /// A fresh search to be replayed to `steps` steps over the next frames (from what the
    /// search before computed, when it had the same settings: going back costs no pass).
    fn rebuild(&mut self, steps: usize) {
        let old = self.search.take().and_then(Result::ok);
        let mut search = Search::new(&self.settings, &self.models);
        if let Ok(s) = search.as_mut() {
            if let Some(old) = old {
                s.reuse(old);
            }
            s.pending = steps;
            s.advance(WORK_PER_FRAME);
        }
        self.search = Some(search);
        self.built_from = Some(self.settings.clone());
        self.playing = false;
        let nodes = self.current().map_or(0, |s| s.beam.nodes.len());
        self.selected = self.selected.filter(|&i| i < nodes && steps > 0);
    }

    /// Ask for one more step: its passes run over the next frames (at once on a small model).
    pub fn step(&mut self) {
        if let Some(s) = self.current_mut() {
            if !s.done() {
                s.pending += 1;
                s.advance(WORK_PER_FRAME);
            }
        }
    }

    /// One step back: the engine is deterministic, so replay one step fewer.
    pub fn back(&mut self) {
        let k = self.steps();
        if k > 0 {
            self.rebuild(k - 1);
        }
    }

    /// Ask for every step left (over the next frames).
    pub fn run_to_end(&mut self) {
        if let Some(s) = self.current_mut() {
            s.pending = s.beam.config.max_len.saturating_sub(s.steps());
            s.advance(WORK_PER_FRAME);
        }
        self.playing = false;
    }

    /// This frame's share of the search's work; another frame is asked for while some is left.
    fn work(&mut self, ui: &Ui) {
        if let Some(s) = self.current_mut() {
            s.advance(WORK_PER_FRAME);
            if s.busy() {
                ui.ctx().request_repaint();
            }
        }
        crate::app::probe::publish_decoding(&self.status());
    }

    /// The search in numbers, for the test probe.
    pub fn status(&self) -> serde_json::Value {
        let Some(s) = self.current() else {
            return serde_json::json!({ "error": self.search.as_ref().and_then(|s| s.as_ref().err()) });
        };
        let best = s.beam.ranking().first().map(|&n| s.hypothesis(n));
        serde_json::json!({
            "steps": s.steps(),
            "pending": s.pending,
            "done": s.done(),
            "error": s.error,
            "best": best,
            "live": s.beam.live().into_iter().map(|n| s.hypothesis(n)).collect::<Vec<_>>(),
            "greedy": s.greedy.as_ref().map(|g| g.as_ref().map(|(t, _)| join(s.settings.kind, t)).ok()),
            "progress": self.progress(),
            "off_page": pass_slot::answered_off_page(),
        })
    }

    pub fn done(&self) -> bool {
        self.current().is_none_or(Search::done)
    }

    fn contents(&mut self, ui: &mut Ui, store: &ModelStore) {
        // An encoder predicts no next token: it fills in blanks instead.
        let encoder = self.picked_encoder();
        if encoder.is_some() {
            ui.heading(t!("decoding-heading-fill"));
        } else {
            ui.heading(t!("decoding-heading"));
            ui.label(t!("decoding-intro"));
        }
        self.source_picker(ui);
        if let Some(model) = encoder {
            self.fill_mask
                .show(ui, store, &self.settings.picked_model, &model);
            return;
        }
        self.controls(ui);
        self.refresh();
        self.keyboard(ui);
        self.tick(ui);
        self.stepping(ui);
        self.work(ui);
        ui.separator();
        match &self.search {
            Some(Ok(search)) => {
                show_search(ui, store, search, &mut self.selected, &mut self.attention);
            }
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
            None => {}
        }
        ui.separator();
        // One part computes at a time: the panels below wait while the search has work.
        let may_work = !self.current().is_some_and(Search::busy);
        let open = self.open.take();
        egui::CollapsingHeader::new(t!("decoding-part-sampling"))
            .id_salt("decoding_sampling")
            .open((open == Some(Part::Sampling)).then_some(true))
            .show(ui, |ui| {
                self.sampling
                    .show(ui, &self.settings, &self.models, may_work);
            });
        egui::CollapsingHeader::new(t!("decoding-part-kv"))
            .id_salt("decoding_kv")
            .open((open == Some(Part::KvCache)).then_some(true))
            .show(ui, |ui| {
                let may_work = may_work && !self.sampling.drawing();
                cache::show(ui, &mut self.kv, &self.settings, &self.models, may_work);
            });
    }

    fn source_picker(&mut self, ui: &mut Ui) {
        ui.horizontal_wrapped(|ui| {
            ui.label(t!("decoding-source-pick"));
            for kind in SourceKind::ALL {
                let chip = ui.selectable_value(&mut self.settings.kind, kind, kind.label());
                crate::app::probe::control(&format!("decoding:{}", kind.probe_name()), chip.rect);
            }
        });
        // An encoder continues nothing: its sentence with blanks is the fill-in panel's.
        let encoder = self.picked_encoder().is_some();
        let s = &mut self.settings;
        match s.kind {
            SourceKind::Picked if encoder => {}
            SourceKind::Translate => {
                ui.horizontal_wrapped(|ui| {
                    let l = ui.label(t!("decoding-translate-label"));
                    ui.add(egui::TextEdit::singleline(&mut s.translate_text).desired_width(360.0))
                        .labelled_by(l.id);
                });
            }
            SourceKind::Lm => {
                ui.horizontal_wrapped(|ui| {
                    let l = ui.label(t!("decoding-lm-label"));
                    ui.add(egui::TextEdit::singleline(&mut s.lm_text).desired_width(360.0))
                        .labelled_by(l.id);
                });
            }
            SourceKind::Picked => {
                ui.horizontal_wrapped(|ui| {
                    let l = ui.label(t!("decoding-picked-label", model = &s.picked_model));
                    // A chat prompt has line breaks: show them rather than a box per break.
                    let field = if s.picked_text.contains('\n') {
                        egui::TextEdit::multiline(&mut s.picked_text).desired_rows(3)
                    } else {
                        egui::TextEdit::singleline(&mut s.picked_text)
                    };
                    ui.add(field.desired_width(360.0)).labelled_by(l.id);
                });
            }
            SourceKind::Table => {
                let l = ui.label(t!("decoding-table-label"));
                ui.add(
                    egui::TextEdit::multiline(&mut s.table_text)
                        .code_editor()
                        .desired_rows(8)
                        .desired_width(f32::INFINITY),
                )
                .labelled_by(l.id);
            }
        }
    }

    fn controls(&mut self, ui: &mut Ui) {
        let s = &mut self.settings;
        ui.horizontal_wrapped(|ui| {
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut s.width, 1..=8).text(t!("decoding-beam-width")),
            );
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut s.alpha, 0.0..=2.0).text(t!("decoding-alpha")),
            );
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut s.max_len, 1..=30).text(t!("decoding-max-length")),
            );
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut s.temperature, 0.1..=3.0)
                    .logarithmic(true)
                    .text(t!("decoding-temperature")),
            );
            ui.checkbox(&mut s.use_cache, t!("decoding-use-cache"));
        });
    }

    /// Right arrow steps, left goes back, space plays or pauses, while no widget has the focus
    /// (a focused slider or box of the beam tree takes the arrows, a button takes Space;
    /// Escape lets go).
    fn keyboard(&mut self, ui: &mut Ui) {
        if ui.ctx().egui_wants_keyboard_input() {
            return;
        }
        let pressed = |key| ui.input_mut(|i| i.consume_key(Modifiers::NONE, key));
        if pressed(Key::ArrowRight) {
            self.step();
        }
        if pressed(Key::ArrowLeft) {
            self.back();
        }
        if pressed(Key::Space) {
            self.toggle_play(ui);
        }
    }

    fn toggle_play(&mut self, ui: &Ui) {
        self.playing = !self.playing && !self.done();
        self.last_tick = ui.input(|i| i.time);
    }

    /// While playing, a step every half second.
    fn tick(&mut self, ui: &Ui) {
        if !self.playing {
            return;
        }
        let now = ui.input(|i| i.time);
        let waiting = self.current().is_some_and(|s| s.pending > 0);
        if now - self.last_tick >= PLAY_INTERVAL && !waiting {
            self.step();
            self.last_tick = now;
        }
        if self.done() {
            self.playing = false;
        } else {
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_secs_f64(PLAY_INTERVAL));
        }
    }

    fn stepping(&mut self, ui: &mut Ui) {
        ui.horizontal_wrapped(|ui| {
            if ui.button(t!("decoding-reset")).clicked() {
                self.reset();
            }
            if ui.button(t!("decoding-back")).clicked() {
                self.back();
            }
            let step = ui.button(t!("decoding-step"));
            crate::app::probe::control("decoding:step", step.rect);
            if step.clicked() {
                self.step();
            }
            let play = if self.playing {
                t!("decoding-pause")
            } else {
                t!("decoding-play")
            };
            if ui.button(play).clicked() {
                self.toggle_play(ui);
            }
            if ui.button(t!("decoding-run-to-end")).clicked() {
                self.run_to_end();
            }
            ui.label(self.progress());
            ui.weak(t!("decoding-keys"));
        });
    }

    /// "step k of at most N", or "step k of k (done)".
    pub fn progress(&self) -> String {
        let Some(s) = self.current() else {
            return t!("decoding-no-search");
        };
        let k = s.steps();
        if let Some((ready, of)) = s.computing() {
            t!(
                "decoding-computing-step",
                step = k + 1,
                ready = ready,
                of = of
            )
        } else if s.done() {
            t!("decoding-step-done", step = k)
        } else {
            t!("decoding-step-of", step = k, most = s.beam.config.max_len)
        }
    }
}

/// The tree, this step's candidates, the final ranking and the selected node's attention.
fn show_search(
    ui: &mut Ui,
    store: &ModelStore,
    search: &Search,
    selected: &mut Option<usize>,
    attention: &mut AttentionView,
) {
    if let Some(e) = &search.error {
        ui.colored_label(
            ui.visuals().error_fg_color,
            t!("decoding-search-stopped", error = e),
        );
    }
    if search.built.max_len < search.settings.max_len {
        ui.weak(t!("decoding-room", count = search.built.max_len));
    }
    ui.label(RichText::new(t!("decoding-tree-heading")).strong());
    tree::show(ui, search, selected);
    tree::legend(ui);
    ui.separator();
    ui.label(RichText::new(t!("decoding-candidates-heading")).strong());
    match table::viewed_step(search, *selected) {
        Some(step) => table::candidates(ui, search, step),
        None => {
            ui.label(t!("decoding-press-step"));
        }
    }
    if search.done() {
        ui.separator();
        ui.label(RichText::new(t!("decoding-ranking-heading")).strong());
        table::ranking(ui, search);
    }
    ui.separator();
    ui.label(RichText::new(t!("decoding-attention-heading")).strong());
    attention.show(ui, store, search, *selected);
}
