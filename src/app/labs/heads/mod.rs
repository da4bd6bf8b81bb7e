//! Heads off: switch attention heads off (their output zeroed before W_O) on the picked
//! model and see what it loses; rank every head by that loss and remove them from the least
//! important up, to see how many a trained model can do without. Models that share keys and
//! values across query heads (GQA, MQA) have their grouping drawn with the KV cache it saves.
//! A text's scores are passes through the model store: a large model's (SmolLM2) run a slice
//! a frame in the browser, so a click or the ranking never freezes the page.

mod count;
mod panels;

use panels::{grouping, results};

use super::race::{RaceSpec, RaceView};
use super::{Lab, Shared};
use crate::app::export;
use crate::app::link::{LinkReader, LinkWriter};
use crate::app::models::store::{is_cancelled, is_computing, is_unfinished, ModelStore};
use crate::app::widgets::plot_words::PlotWords;
use crate::model::{AttentionKind, HeadId, Model};
use crate::t;
use crate::train::ablation::{
    every_head, measure_for, score, text_pass, text_score, Measure, Plan, Score, TASK_EXAMPLES,
};
use crate::train::compare::{Contender, Experiment};
use crate::train::tasks::TaskKind;
use egui::{Color32, RichText, Ui};
use egui_plot::{Corner, HLine, Legend, Plot};

/// Accuracy lost (token accuracy, as a share) that still counts as "about the same".
const TOLERANCE: f32 = 0.01;
/// How long one frame may spend ranking before it draws.
const FRAME_BUDGET_MS: u128 = 30;
/// Heads listed as the most important.
const LISTED: usize = 8;

/// What a score was computed for: the model, what it is measured on, and the heads off.
type ScoreKey = (String, Measure, Vec<HeadId>);

/// A score, with when it was first asked for (the store's pass may answer frames later).
type Cached = Option<(ScoreKey, Result<Score, String>, web_time::Instant)>;

#[derive(Default)]
pub struct HeadsLab {
    /// The heads the student switched off.
    pub off: Vec<HeadId>,
    /// Rank every head (set by the button or a link).
    pub rank: bool,
    full: Cached,
    current: Cached,
    plan: Option<((String, Measure), Plan)>,
    /// How long the last score took (ms): the ranking's time is about 2 × heads × this.
    score_ms: f64,
    /// The translator retrained with 4, 2 and 1 key/value heads.
    pub kv_race: RaceView,
    /// Which part shows: [`SECTION_OFF`], [`SECTION_KV`] or [`SECTION_COUNT`].
    pub section: u8,
    /// The race's seed (0 reads as 1: the default).
    pub kv_seed: u64,
    /// The character model trained with 1 … 32 heads of one width.
    pub count_race: RaceView,
    /// That race's seed (0 reads as 1).
    pub count_seed: u64,
}

/// Heads switched off on the picked model.
pub const SECTION_OFF: u8 = 0;
/// The translator with its keys and values shared.
pub const SECTION_KV: u8 = 1;
/// How many heads: one width split into 1 … 32.
pub const SECTION_COUNT: u8 = 2;

/// The task the key/value sharing is trained on, and for how long: at 600 steps the
/// translator is at 96–100 % exact, where a difference in quality can still show.
pub const KV_TASK: TaskKind = TaskKind::Translate;
pub const KV_STEPS: u64 = 600;

pub fn kv_spec(seed: u64) -> RaceSpec {
    RaceSpec {
        experiment: Experiment::KvHeads,
        task: KV_TASK,
        seed,
        steps: KV_STEPS,
        examples: 48,
    }
}

/// `e0.1` (encoder layer 0, head 1), `d…` decoder self-attention, `c…` cross-attention.
fn head_code(h: &HeadId) -> String {
    let k = match h.kind {
        AttentionKind::EncoderSelf => 'e',
        AttentionKind::DecoderSelf => 'd',
        AttentionKind::Cross => 'c',
    };
    format!("{k}{}.{}", h.layer, h.head)
}

fn parse_heads(text: &str) -> Option<Vec<HeadId>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    text.split(',')
        .map(|code| {
            let kind = match code.chars().next()? {
                'e' => AttentionKind::EncoderSelf,
                'd' => AttentionKind::DecoderSelf,
                'c' => AttentionKind::Cross,
                _ => return None,
            };
            let (l, h) = code.get(1..)?.split_once('.')?;
            Some(HeadId {
                kind,
                layer: l.parse().ok().filter(|&l| l < 1024)?,
                head: h.parse().ok().filter(|&h| h < 1024)?,
            })
        })
        .collect()
}

fn short_kind(kind: AttentionKind) -> String {
    match kind {
        AttentionKind::EncoderSelf => t!("heads-kind-encoder"),
        AttentionKind::DecoderSelf => t!("heads-kind-decoder"),
        AttentionKind::Cross => t!("heads-kind-cross"),
    }
}

fn describe(h: &HeadId) -> String {
    t!(
        "heads-describe",
        kind = short_kind(h.kind),
        layer = h.layer,
        head = h.head
    )
}

/// What the scores are measured on, in the reader's language (`Measure::describe`'s words).
fn measure_words(measure: &Measure) -> String {
    match measure {
        Measure::Task(task) => t!(
            "heads-measure-task",
            examples = TASK_EXAMPLES,
            task = task.name()
        ),
        Measure::Text(ids) => t!(
            "heads-measure-text",
            predictions = ids.len().saturating_sub(1)
        ),
    }
}

/// "loss 0.03 · token accuracy 99.1 % · exact 97.9 %"
fn score_line(s: &Score) -> String {
    let loss = format!("{:.3}", s.loss);
    let accuracy = format!("{:.1}", 100.0 * s.accuracy);
    match s.exact {
        Some(e) => t!(
            "heads-score-exact",
            loss = loss,
            accuracy = accuracy,
            exact = format!("{:.1}", 100.0 * e)
        ),
        None => t!("heads-score", loss = loss, accuracy = accuracy),
    }
}

/// The score of the model called `name` with `off` switched off. A text's is read off the
/// logits of the store's pass (memoised without the blocks' intermediates; a large model's
/// runs a slice a frame in the browser, answering its progress meanwhile); a task model's
/// held-out examples are small models' passes, run here.
fn score_of(
    store: &ModelStore,
    name: &str,
    model: &Model,
    measure: &Measure,
    off: &[HeadId],
) -> Result<Score, String> {
    match measure {
        Measure::Text(ids) => {
            let (input, opts) = text_pass(model, ids, off)?;
            let trace = store.forward_logits(name, &input, &opts)?;
            Ok(text_score(ids, trace.logits.view()))
        }
        Measure::Task(_) => score(model, measure, off),
    }
}

impl HeadsLab {
    /// The score for `key`, computed once (asked for again while the store's pass runs or
    /// stays cancelled); `took_ms` is how long it took from the first asking.
    fn cached(
        slot: &mut Cached,
        key: ScoreKey,
        took_ms: &mut f64,
        score: impl FnOnce(&[HeadId]) -> Result<Score, String>,
    ) -> Result<Score, String> {
        let since = match slot.as_ref() {
            Some((k, Err(e), since)) if *k == key && is_computing(e) => *since,
            Some((k, r, _)) if *k == key && !r.as_ref().is_err_and(|e| is_unfinished(e)) => {
                return r.clone();
            }
            _ => web_time::Instant::now(),
        };
        let result = score(&key.2);
        if !result.as_ref().is_err_and(|e| is_unfinished(e)) {
            *took_ms = since.elapsed().as_secs_f64() * 1e3;
        }
        *slot = Some((key, result.clone(), since));
        result
    }

    /// Rank a few more heads, within the frame's budget (a store's pass under way ends the
    /// frame's share: it goes on next frame).
    fn advance_plan(
        &mut self,
        ui: &Ui,
        store: &ModelStore,
        model: &Model,
        key: &(String, Measure),
        full: Score,
    ) {
        if self.plan.as_ref().is_none_or(|(k, _)| k != key) {
            self.plan = Some((key.clone(), Plan::new(full, every_head(model))));
        }
        let Some((_, plan)) = self.plan.as_mut() else {
            return;
        };
        let start = web_time::Instant::now();
        while start.elapsed().as_millis() < FRAME_BUDGET_MS {
            let Some(off) = plan.next_off() else {
                break;
            };
            match score_of(store, &key.0, model, &key.1, &off) {
                Ok(s) => plan.record(s),
                Err(e) if is_computing(&e) => break,
                Err(e) => {
                    if !is_cancelled(&e) {
                        log::warn!("ranking heads: {e}");
                    }
                    self.rank = false;
                    return;
                }
            }
        }
        if !plan.done() {
            ui.ctx().request_repaint();
        }
    }

    /// A ranking has started and is not finished: frames still compute.
    pub fn ranking_pending(&self) -> bool {
        self.rank && self.plan.as_ref().is_some_and(|(_, p)| !p.done())
    }

    fn toggle(&mut self, h: HeadId) {
        match self.off.iter().position(|x| *x == h) {
            Some(i) => {
                self.off.remove(i);
            }
            None => self.off.push(h),
        }
    }
}

impl Lab for HeadsLab {
    fn id(&self) -> &'static str {
        "heads"
    }

    /// Switching heads off works on the shared model; the two training sections train their
    /// own models.
    fn uses_shared_input(&self) -> bool {
        self.section == SECTION_OFF
    }

    fn ui(&mut self, ui: &mut Ui, shared: &mut Shared<'_>) {
        ui.horizontal_wrapped(|ui| {
            ui.selectable_value(&mut self.section, SECTION_OFF, t!("heads-section-off"));
            ui.selectable_value(&mut self.section, SECTION_KV, t!("heads-section-kv"));
            ui.selectable_value(&mut self.section, SECTION_COUNT, t!("heads-section-count"));
        });
        if self.section == SECTION_COUNT {
            export_runs(ui, shared, &self.count_race, "glimpse-head-count");
            self.head_count(ui);
        } else if self.section == SECTION_KV {
            export_runs(ui, shared, &self.kv_race, "glimpse-kv-heads");
            self.kv_sharing(ui);
        } else {
            self.ablation(ui, shared);
        }
    }

    fn sections(&self) -> Vec<String> {
        (0..=SECTION_COUNT)
            .map(|s| format!("view=heads&hsec={s}"))
            .collect()
    }

    fn keys(&self) -> &'static [&'static str] {
        &[
            "hoff", "hrank", "hsec", "kvtrain", "kvseed", "hctrain", "hcseed",
        ]
    }

    fn save(&self, w: &mut LinkWriter) {
        w.put("hsec", self.section);
        w.put("kvtrain", u8::from(self.kv_race.running));
        w.put("kvseed", self.kv_seed.max(1));
        w.put("hctrain", u8::from(self.count_race.running));
        w.put("hcseed", self.count_seed.max(1));
        let mut off: Vec<String> = self.off.iter().map(head_code).collect();
        off.sort();
        w.put("hoff", off.join(","));
        w.put("hrank", u8::from(self.rank));
    }

    fn load(&mut self, r: &mut LinkReader) {
        if let Some(t) = r.number("hsec", 0..=SECTION_COUNT) {
            self.section = t;
        }
        if let Some(x) = r.number("kvseed", 1..=u32::MAX as u64) {
            self.kv_seed = x;
        }
        if let Some(t) = r.flag("kvtrain") {
            self.kv_race.running = t;
        }
        if let Some(x) = r.number("hcseed", 1..=u32::MAX as u64) {
            self.count_seed = x;
        }
        if let Some(t) = r.flag("hctrain") {
            self.count_race.running = t;
        }
        if let Some(off) = r.read("hoff", parse_heads) {
            self.off = off;
        }
        if let Some(rank) = r.flag("hrank") {
            self.rank = rank;
        }
    }
}

/// A trained section's export menu: the view as PNG and its runs as JSON (`stem`.png/.json).
fn export_runs(ui: &mut Ui, shared: &mut Shared<'_>, race: &RaceView, stem: &str) {
    let rect = ui.max_rect();
    ui.horizontal_wrapped(|ui| {
        let json = || race.json();
        let label = t!("heads-export-runs");
        let files: [export::DataFile<'_>; 1] = [(&label, format!("{stem}.json"), &json)];
        export::view_menu(ui, shared.exporter, rect, &format!("{stem}.png"), &files);
    });
}

impl HeadsLab {
    /// Switching heads off on the picked model, and its grouping of keys and values.
    fn ablation(&mut self, ui: &mut Ui, shared: &mut Shared<'_>) {
        let rect = ui.max_rect();
        let name = shared.bench.model_name.clone();
        ui.horizontal_wrapped(|ui| {
            let plan = self.plan.as_ref().map(|(_, p)| p);
            let json = || {
                let p = plan?;
                serde_json::to_vec_pretty(&serde_json::json!({
                    "model": name,
                    "full": p.full,
                    "ranked": p.ranked,
                    "pruned": p.pruned,
                }))
                .ok()
            };
            let label = t!("heads-export-ranking");
            let data: [export::DataFile<'_>; 1] = [(&label, "glimpse-heads.json".into(), &json)];
            export::view_menu(ui, shared.exporter, rect, "glimpse-heads.png", &data);
        });
        crate::app::widgets::math_text::label(ui, &t!("heads-intro"));
        let Ok(model) = shared.bench.model.clone() else {
            ui.weak(t!("heads-waiting"));
            return;
        };
        let ids = shared
            .bench
            .trace()
            .and_then(|t| t.decoder.as_ref().map(|d| d.ids.clone()));
        let measure = match measure_for(&name, &model, ids.as_deref()) {
            Ok(m) => m,
            Err(e) => {
                let said = crate::app::words::model_says(&e);
                ui.colored_label(ui.visuals().warn_fg_color, said);
                grouping(ui, &model);
                return;
            }
        };
        let all = every_head(&model);
        self.off.retain(|h| all.contains(h));
        ui.label(t!(
            "heads-measured",
            model = &name,
            measure = measure_words(&measure)
        ));
        let store = shared.store;
        let score = |off: &[HeadId]| score_of(store, &name, &model, &measure, off);
        let full = Self::cached(
            &mut self.full,
            (name.clone(), measure.clone(), vec![]),
            &mut self.score_ms,
            score,
        );
        let full = match full {
            Ok(s) => s,
            Err(e) if is_unfinished(&e) => {
                crate::app::models::pass_answer::show(ui, store, &e);
                return;
            }
            Err(e) => {
                ui.colored_label(ui.visuals().warn_fg_color, e);
                return;
            }
        };
        let mut off = self.off.clone();
        off.sort_by_key(head_code);
        // With every head on, the score is the one just read (its text's score over a whole
        // vocabulary is not worked out twice).
        let now = match off.is_empty() {
            true => Ok(full),
            false => Self::cached(
                &mut self.current,
                (name.clone(), measure.clone(), off.clone()),
                &mut self.score_ms,
                score,
            ),
        };
        ui.horizontal_wrapped(|ui| {
            ui.label(
                RichText::new(t!(
                    "heads-all-on",
                    count = all.len(),
                    score = score_line(&full)
                ))
                .strong(),
            );
        });
        match &now {
            Ok(s) if !off.is_empty() => {
                ui.label(
                    RichText::new(t!(
                        "heads-off",
                        count = off.len(),
                        score = score_line(s),
                        loss = format!("{:+.3}", s.loss - full.loss),
                        accuracy = format!("{:+.1}", 100.0 * (s.accuracy - full.accuracy))
                    ))
                    .strong()
                    .color(ui.visuals().warn_fg_color),
                );
            }
            Ok(_) => {
                ui.weak(t!("heads-none-off"));
            }
            Err(e) if is_unfinished(e) => crate::app::models::pass_answer::show(ui, store, e),
            Err(e) => {
                ui.colored_label(ui.visuals().warn_fg_color, e);
            }
        }
        ui.horizontal_wrapped(|ui| {
            if ui.button(t!("heads-all-on-button")).clicked() {
                self.off.clear();
            }
            let done = self
                .plan
                .as_ref()
                .is_some_and(|(k, p)| k.0 == name && p.done());
            let label = match (self.rank, done) {
                (true, true) => t!("heads-ranked"),
                (true, false) => t!("heads-ranking"),
                _ => t!("heads-rank"),
            };
            let r = ui.add_enabled(!self.rank, egui::Button::new(label));
            crate::app::probe::control("heads:rank", r.rect);
            if r.clicked() {
                self.rank = true;
            }
            // A large model takes minutes: it can be stopped and picked up again.
            if self.rank && !done && ui.button(t!("heads-stop")).clicked() {
                self.rank = false;
            }
            let seconds = 2.0 * all.len() as f64 * self.score_ms / 1e3;
            ui.weak(t!(
                "heads-rank-about",
                count = all.len(),
                scores = 2 * all.len(),
                time = super::race::duration(seconds)
            ));
        });
        let key = (name.clone(), measure.clone());
        if self.rank {
            self.advance_plan(ui, store, &model, &key, full);
        }
        // Taken out while drawing (the grid needs `self` mutably), put back below: no copy.
        let kept = self.plan.take();
        let plan = kept.as_ref().filter(|(k, _)| *k == key).map(|(_, p)| p);
        if let Some(p) = plan {
            if !p.done() {
                ui.add(
                    egui::ProgressBar::new(p.steps_done() as f32 / p.total_steps() as f32).text(
                        t!(
                            "heads-progress",
                            done = p.steps_done(),
                            total = p.total_steps()
                        ),
                    ),
                );
            }
        }
        ui.add_space(6.0);
        // Side by side where both fit (the ranking's rows are about 440 points wide), else
        // one under the other (a tablet, presenter zoom).
        let grid = |lab: &mut Self, ui: &mut Ui| {
            egui::ScrollArea::vertical()
                .id_salt("heads_grid")
                .max_height(460.0)
                .show(ui, |ui| lab.grid(ui, &all, plan));
        };
        if ui.available_width() >= 900.0 {
            ui.columns(2, |cols| {
                grid(self, &mut cols[0]);
                if let Some(p) = plan {
                    results(&mut cols[1], p, &mut self.off);
                }
            });
        } else {
            grid(self, ui);
            if let Some(p) = plan {
                results(ui, p, &mut self.off);
            }
        }
        self.plan = kept;
        grouping(ui, &model);
    }
}

#[cfg(test)]
mod tests;
