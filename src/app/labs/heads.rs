//! Heads off: switch attention heads off (their output zeroed before W_O) on the picked
//! model and see what it loses; rank every head by that loss and remove them from the least
//! important up, to see how many a trained model can do without. Models that share keys and
//! values across query heads (GQA, MQA) have their grouping drawn with the KV cache it saves.
//! A text's scores are passes through the model store: a large model's (SmolLM2) run a slice
//! a frame in the browser, so a click or the ranking never freezes the page.

use super::race::{RaceSpec, RaceView};
use super::{Lab, Shared};
use crate::app::export;
use crate::app::link::{LinkReader, LinkWriter};
use crate::app::store::{is_cancelled, is_computing, is_unfinished, ModelStore};
use crate::model::{AttentionKind, HeadId, Model};
use crate::train::ablation::{
    every_head, measure_for, score, text_pass, text_score, Measure, Plan, Score,
};
use crate::train::compare::{Contender, Experiment};
use crate::train::tasks::TaskKind;
use egui::{Color32, RichText, Ui};
use egui_plot::{Corner, HLine, Legend, Line, Plot, PlotPoints};

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
    /// Showing that race (else the switches on the picked model).
    pub kv_section: bool,
    /// The race's seed (0 reads as 1: the default).
    pub kv_seed: u64,
}

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

fn short_kind(kind: AttentionKind) -> &'static str {
    match kind {
        AttentionKind::EncoderSelf => "encoder",
        AttentionKind::DecoderSelf => "decoder self",
        AttentionKind::Cross => "cross",
    }
}

fn describe(h: &HeadId) -> String {
    format!(
        "{} · layer {} · head {}",
        short_kind(h.kind),
        h.layer,
        h.head
    )
}

/// "loss 0.03 · token accuracy 99.1 % · exact 97.9 %"
fn score_line(s: &Score) -> String {
    let exact = s
        .exact
        .map_or(String::new(), |e| format!(" · exact {:.1} %", 100.0 * e));
    format!(
        "loss {:.3} nats · token accuracy {:.1} %{exact}",
        s.loss,
        100.0 * s.accuracy
    )
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

    fn title(&self) -> &'static str {
        "Heads off"
    }

    /// Switching heads off works on the shared model; the key/value sharing section trains
    /// its own translators.
    fn uses_shared_input(&self) -> bool {
        !self.kv_section
    }

    fn ui(&mut self, ui: &mut Ui, shared: &mut Shared<'_>) {
        ui.horizontal_wrapped(|ui| {
            ui.selectable_value(&mut self.kv_section, false, "switch heads off");
            ui.selectable_value(
                &mut self.kv_section,
                true,
                "share keys and values (trained)",
            );
        });
        if self.kv_section {
            let rect = ui.max_rect();
            let race = &self.kv_race;
            ui.horizontal_wrapped(|ui| {
                let json = || race.json();
                let files: [export::DataFile<'_>; 1] =
                    [("runs as JSON", "glimpse-kv-heads.json".into(), &json)];
                export::view_menu(ui, shared.exporter, rect, "glimpse-kv-heads.png", &files);
            });
            self.kv_sharing(ui);
        } else {
            self.ablation(ui, shared);
        }
    }

    fn sections(&self) -> Vec<String> {
        (0..2).map(|s| format!("view=heads&hsec={s}")).collect()
    }

    fn keys(&self) -> &'static [&'static str] {
        &["hoff", "hrank", "hsec", "kvtrain", "kvseed"]
    }

    fn save(&self, w: &mut LinkWriter) {
        w.put("hsec", u8::from(self.kv_section));
        w.put("kvtrain", u8::from(self.kv_race.running));
        w.put("kvseed", self.kv_seed.max(1));
        let mut off: Vec<String> = self.off.iter().map(head_code).collect();
        off.sort();
        w.put("hoff", off.join(","));
        w.put("hrank", u8::from(self.rank));
    }

    fn load(&mut self, r: &mut LinkReader) {
        if let Some(t) = r.number("hsec", 0..=1u8) {
            self.kv_section = t == 1;
        }
        if let Some(x) = r.number("kvseed", 1..=u32::MAX as u64) {
            self.kv_seed = x;
        }
        if let Some(t) = r.flag("kvtrain") {
            self.kv_race.running = t;
        }
        if let Some(off) = r.read("hoff", parse_heads) {
            self.off = off;
        }
        if let Some(rank) = r.flag("hrank") {
            self.rank = rank;
        }
    }
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
            let data: [export::DataFile<'_>; 1] =
                [("ranking as JSON", "glimpse-heads.json".into(), &json)];
            export::view_menu(ui, shared.exporter, rect, "glimpse-heads.png", &data);
        });
        ui.label(
            "Click a head to switch it off: its output is set to zero before the heads are \
             concatenated and mixed by W_O, as if it were not there. The model's loss and \
             accuracy change by what that head contributed.",
        );
        let Ok(model) = shared.bench.model.clone() else {
            ui.weak("waiting for the model…");
            return;
        };
        let ids = shared
            .bench
            .trace()
            .and_then(|t| t.decoder.as_ref().map(|d| d.ids.clone()));
        let measure = match measure_for(&name, &model, ids.as_deref()) {
            Ok(m) => m,
            Err(e) => {
                ui.colored_label(ui.visuals().warn_fg_color, e);
                grouping(ui, &model);
                return;
            }
        };
        let all = every_head(&model);
        self.off.retain(|h| all.contains(h));
        ui.label(format!("{name}, measured on {}.", measure.describe()));
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
                crate::app::pass_answer::show(ui, store, &e);
                return;
            }
            Err(e) => {
                ui.colored_label(ui.visuals().warn_fg_color, e);
                return;
            }
        };
        let mut off = self.off.clone();
        off.sort_by_key(head_code);
        let now = Self::cached(
            &mut self.current,
            (name.clone(), measure.clone(), off.clone()),
            &mut self.score_ms,
            score,
        );
        ui.horizontal_wrapped(|ui| {
            ui.label(
                RichText::new(format!("All {} heads on: {}", all.len(), score_line(&full)))
                    .strong(),
            );
        });
        match &now {
            Ok(s) if !off.is_empty() => {
                ui.label(
                    RichText::new(format!(
                        "{} off: {} (loss {:+.3}, accuracy {:+.1} points)",
                        if off.len() == 1 {
                            "1 head".to_string()
                        } else {
                            format!("{} heads", off.len())
                        },
                        score_line(s),
                        s.loss - full.loss,
                        100.0 * (s.accuracy - full.accuracy)
                    ))
                    .strong()
                    .color(ui.visuals().warn_fg_color),
                );
            }
            Ok(_) => {
                ui.weak("No head is off.");
            }
            Err(e) if is_unfinished(e) => crate::app::pass_answer::show(ui, store, e),
            Err(e) => {
                ui.colored_label(ui.visuals().warn_fg_color, e);
            }
        }
        ui.horizontal_wrapped(|ui| {
            if ui.button("all heads on").clicked() {
                self.off.clear();
            }
            let done = self
                .plan
                .as_ref()
                .is_some_and(|(k, p)| k.0 == name && p.done());
            let label = match (self.rank, done) {
                (true, true) => "ranked",
                (true, false) => "ranking…",
                _ => "rank every head",
            };
            let r = ui.add_enabled(!self.rank, egui::Button::new(label));
            crate::app::probe::control("heads:rank", r.rect);
            if r.clicked() {
                self.rank = true;
            }
            // A large model takes minutes: it can be stopped and picked up again.
            if self.rank && !done && ui.button("stop").clicked() {
                self.rank = false;
            }
            let seconds = 2.0 * all.len() as f64 * self.score_ms / 1e3;
            ui.weak(format!(
                "(switches each of the {} heads off alone, then removes them from the least \
                 important up: {} scores, about {})",
                all.len(),
                2 * all.len(),
                super::race::duration(seconds)
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
                    egui::ProgressBar::new(p.steps_done() as f32 / p.total_steps() as f32)
                        .text(format!("{} of {} scores", p.steps_done(), p.total_steps())),
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

    /// Grouped-query attention trained: the translator with 4, 2 and 1 key/value heads.
    fn kv_sharing(&mut self, ui: &mut Ui) {
        ui.heading("Sharing keys and values, trained");
        ui.label(format!(
            "The {} model (4 query heads per attention, 2 + 2 layers) trained three times for {} \
             steps from the same seed: every query head with its own keys and values \
             (multi-head), pairs of query heads sharing one (grouped-query), and all four \
             sharing one (multi-query). The KV cache a decoder keeps per token shrinks with \
             the key/value heads; see what the quality does.",
            KV_TASK.name(),
            KV_STEPS
        ));
        ui.horizontal_wrapped(|ui| {
            ui.add(
                egui::DragValue::new(&mut self.kv_seed)
                    .range(1..=u32::MAX as u64)
                    .prefix("seed "),
            );
            ui.weak(
                "another seed gives other initial weights and examples: on a task this small \
                 the three differ by a few points either way, while the cache is 4× smaller",
            );
        });
        let cache = |c: &Contender| {
            let n = c.trainer.model.config.kv_cache_floats_per_token();
            format!("{n} floats ({} B)", 4 * n)
        };
        let spec = kv_spec(self.kv_seed.max(1));
        self.kv_race
            .show(ui, "kv_race", spec, ("KV cache per token", &cache));
    }

    /// One button per head, by attention and layer; a ranked head is shaded by how much the
    /// loss rises without it.
    fn grid(&mut self, ui: &mut Ui, all: &[HeadId], plan: Option<&Plan>) {
        let worst = plan
            .map(|p| p.ranked.iter().map(|i| i.loss_rise).fold(0.0, f32::max))
            .unwrap_or(0.0);
        let rise = |h: &HeadId| {
            plan.and_then(|p| p.ranked.iter().find(|i| i.head == *h))
                .map(|i| i.loss_rise)
        };
        let mut kinds: Vec<AttentionKind> = all.iter().map(|h| h.kind).collect();
        kinds.dedup();
        let mut clicked = None;
        for kind in kinds {
            ui.strong(kind.label());
            let layers = all
                .iter()
                .filter(|h| h.kind == kind)
                .map(|h| h.layer)
                .max()
                .unwrap_or(0);
            egui::Grid::new(("heads", kind as u8))
                .spacing([3.0, 3.0])
                .show(ui, |ui| {
                    for layer in 0..=layers {
                        ui.weak(format!("layer {layer}"));
                        for h in all.iter().filter(|h| h.kind == kind && h.layer == layer) {
                            let off = self.off.contains(h);
                            let mut text = RichText::new(format!("{}", h.head)).monospace();
                            if off {
                                text = text.strikethrough().weak();
                            }
                            let fill = match (off, rise(h)) {
                                (true, _) => ui.visuals().extreme_bg_color,
                                (false, Some(r)) if worst > 0.0 => {
                                    let t = (r.max(0.0) / worst).sqrt();
                                    Color32::from_rgb(60 + (180.0 * t) as u8, 60, 70)
                                }
                                _ => ui.visuals().widgets.inactive.bg_fill,
                            };
                            let hover = match rise(h) {
                                Some(r) => format!(
                                    "{}: loss {r:+.3} without it; click to switch {}",
                                    describe(h),
                                    if off { "on" } else { "off" }
                                ),
                                None => format!(
                                    "{}: click to switch {}",
                                    describe(h),
                                    if off { "on" } else { "off" }
                                ),
                            };
                            let b = ui
                                .add(
                                    egui::Button::new(text)
                                        .fill(fill)
                                        .min_size(egui::vec2(26.0, 20.0)),
                                )
                                .on_hover_text(hover);
                            crate::app::probe::control(&format!("heads:{}", head_code(h)), b.rect);
                            if b.clicked() {
                                clicked = Some(*h);
                            }
                        }
                        ui.end_row();
                    }
                });
            ui.add_space(4.0);
        }
        if let Some(h) = clicked {
            self.toggle(h);
        }
    }
}

/// The ranking and the pruning curve.
fn results(ui: &mut Ui, plan: &Plan, off: &mut Vec<HeadId>) {
    let mut ranked = plan.ranked.clone();
    ranked.sort_by(|a, b| b.loss_rise.total_cmp(&a.loss_rise));
    if !ranked.is_empty() {
        ui.strong("The heads that matter most");
        egui::Grid::new("heads_ranked")
            .striped(true)
            .show(ui, |ui| {
                for i in ranked.iter().take(LISTED) {
                    ui.label(describe(&i.head));
                    ui.monospace(format!("loss {:+.3}", i.loss_rise));
                    ui.monospace(format!(
                        "acc {:+.1}",
                        100.0 * (i.without.accuracy - plan.full.accuracy)
                    ));
                    ui.end_row();
                }
            });
        let negligible = ranked.iter().filter(|i| i.loss_rise.abs() < 0.01).count();
        ui.weak(format!(
            "{negligible} of {} heads change the loss by less than 0.01 nats when switched off alone.",
            ranked.len()
        ));
    }
    if plan.pruned.is_empty() {
        return;
    }
    ui.add_space(6.0);
    let removable = plan.removable(TOLERANCE);
    let total = plan.ranked.len();
    ui.label(
        RichText::new(format!(
            "{removable} of {total} heads can be switched off together, least important first, \
             with token accuracy within {:.0} point of the full model's{}.",
            100.0 * TOLERANCE,
            if plan.done() { "" } else { " (so far)" }
        ))
        .strong(),
    );
    if removable > 0 && ui.button(format!("switch those {removable} off")).clicked() {
        *off = plan.least_first()[..removable].to_vec();
    }
    let accuracy: PlotPoints = std::iter::once([0.0, 100.0 * plan.full.accuracy as f64])
        .chain(
            plan.pruned
                .iter()
                .enumerate()
                .map(|(k, s)| [(k + 1) as f64, 100.0 * s.accuracy as f64]),
        )
        .collect();
    let exact: Option<PlotPoints> = plan.full.exact.map(|e| {
        std::iter::once([0.0, 100.0 * e as f64])
            .chain(
                plan.pruned
                    .iter()
                    .enumerate()
                    .map(|(k, s)| [(k + 1) as f64, 100.0 * s.exact.unwrap_or(0.0) as f64]),
            )
            .collect()
    });
    Plot::new("heads_pruned")
        .height(200.0)
        .legend(Legend::default().position(Corner::LeftBottom))
        .x_axis_label("heads switched off, least important first")
        .y_axis_label("%")
        .include_y(0.0)
        .include_y(100.0)
        .allow_scroll(false)
        .show(ui, |p| {
            p.line(Line::new("token accuracy", accuracy));
            if let Some(e) = exact {
                p.line(Line::new("exact match", e));
            }
            p.hline(HLine::new(
                "full model − 1 point",
                100.0 * (plan.full.accuracy - TOLERANCE) as f64,
            ));
        });
}

/// Grouped-query attention: which query heads share which key/value head, and the KV cache
/// that saves.
fn grouping(ui: &mut Ui, model: &Model) {
    let c = &model.config;
    if c.n_kv_heads >= c.n_heads {
        return;
    }
    let group = c.n_heads / c.n_kv_heads;
    ui.add_space(8.0);
    ui.strong(format!(
        "Shared keys and values: {} query heads read {} key/value head{} ({})",
        c.n_heads,
        c.n_kv_heads,
        if c.n_kv_heads == 1 { "" } else { "s" },
        if c.n_kv_heads == 1 {
            "multi-query attention".to_string()
        } else {
            format!("grouped-query attention, groups of {group}")
        }
    ));
    let (w, h) = (ui.available_width().min(720.0), 90.0);
    let (rect, _) = ui.allocate_exact_size(egui::vec2(w, h), egui::Sense::hover());
    let p = ui.painter();
    let ink = ui.visuals().text_color();
    let font = egui::FontId::monospace(11.0);
    let x_of = |i: usize, n: usize| rect.left() + (i as f32 + 0.5) * rect.width() / n as f32;
    let (top, bottom) = (rect.top() + 14.0, rect.bottom() - 14.0);
    for q in 0..c.n_heads {
        let kv = q / group;
        p.line_segment(
            [
                egui::pos2(x_of(q, c.n_heads), top + 8.0),
                egui::pos2(x_of(kv, c.n_kv_heads), bottom - 8.0),
            ],
            egui::Stroke::new(1.5, crate::app::explorer::lines::head_color(kv)),
        );
        p.text(
            egui::pos2(x_of(q, c.n_heads), top),
            egui::Align2::CENTER_CENTER,
            format!("Q{q}"),
            font.clone(),
            ink,
        );
    }
    for kv in 0..c.n_kv_heads {
        p.text(
            egui::pos2(x_of(kv, c.n_kv_heads), bottom),
            egui::Align2::CENTER_CENTER,
            format!("K{kv} V{kv}"),
            font.clone(),
            crate::app::explorer::lines::head_color(kv),
        );
    }
    let per = |heads: usize| 2 * heads * c.d_head();
    ui.label(format!(
        "KV cache per token and layer: 2 · {} · {} = {} numbers, against 2 · {} · {} = {} if every query head had its own ({}× smaller; {} over {} layers and {} tokens in f32).",
        c.n_kv_heads,
        c.d_head(),
        crate::util::grouped(per(c.n_kv_heads) as u128),
        c.n_heads,
        c.d_head(),
        crate::util::grouped(per(c.n_heads) as u128),
        group,
        crate::app::sources::megabytes((4 * per(c.n_kv_heads) * c.n_layers * c.max_len) as u64),
        c.n_layers,
        c.max_len
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::tests::open;
    use egui_kittest::kittest::Queryable;

    /// A link with every cross-attention head of the translator off: the lab says so, the
    /// translation collapses, and the link the app writes names the same heads.
    #[test]
    fn a_link_switches_heads_off_and_the_lab_shows_the_cost() {
        let cross = "c0.0,c0.1,c0.2,c0.3,c1.0,c1.1,c1.2,c1.3";
        let mut h = open(&format!("view=heads&model=translate&hoff={cross}"));
        h.run_steps(6);
        h.get_by_label_contains("8 heads off:");
        let lab = h.state().labs.get::<HeadsLab>().unwrap();
        let full = lab.full.as_ref().unwrap().1.clone().unwrap();
        let now = lab.current.as_ref().unwrap().1.clone().unwrap();
        assert!(now.accuracy < full.accuracy - 0.3, "{now:?} vs {full:?}");
        let link = crate::app::link::encode(h.state());
        assert!(
            link.contains(&format!("hoff={}", crate::app::link::escape(cross))),
            "{link}"
        );
    }

    /// Ranking runs over frames to the end, names how many heads can go, and its button
    /// switches exactly those off.
    #[test]
    fn ranking_every_head_finds_the_ones_that_can_go() {
        let mut h = open("view=heads&model=translate&hrank=1");
        for _ in 0..400 {
            h.run_steps(1);
            let lab = h.state().labs.get::<HeadsLab>().unwrap();
            if lab.plan.as_ref().is_some_and(|(_, p)| p.done()) {
                break;
            }
        }
        h.run_steps(2);
        let plan = h
            .state()
            .labs
            .get::<HeadsLab>()
            .unwrap()
            .plan
            .clone()
            .unwrap()
            .1;
        assert!(plan.done());
        let k = plan.removable(TOLERANCE);
        h.get_by_label_contains(&format!("{k} of 24 heads can be switched off together"));
        h.get_by_label(&format!("switch those {k} off")).click();
        h.run_steps(3);
        let lab = h.state().labs.get::<HeadsLab>().unwrap();
        assert_eq!(lab.off, plan.least_first()[..k].to_vec());
        let now = lab.current.as_ref().unwrap().1.clone().unwrap();
        assert!(now.accuracy >= plan.full.accuracy - TOLERANCE, "{now:?}");
    }

    /// On a decoder LM the store runs a slice a frame (the browser's way with SmolLM2), the
    /// lab's scores are the store's passes: the full score shows its progress, then is the
    /// whole pass's; the ranking waits for a pass at a time and ranks exactly as one run
    /// whole does.
    #[test]
    fn a_texts_scores_and_ranking_run_through_the_stores_slices() {
        let mut h = open("view=heads&model=sotu-lm");
        let model = h.state().store.get("sotu-lm").unwrap();
        let params = crate::model::weights::parameter_count(&model.config);
        h.state()
            .store
            .slice_passes(web_time::Duration::ZERO, params);
        // A new text (the harness's first frames ran the first one's score whole).
        h.state_mut().bench.source = "The Congress shall have power to lay taxes".into();
        h.run_steps(2);
        h.get_by_label_contains("computing sotu-lm: step");
        let mut frames = 2;
        let full = loop {
            let lab = h.state().labs.get::<HeadsLab>().unwrap();
            if let Some((_, Ok(s), _)) = &lab.full {
                break *s;
            }
            h.run_steps(1);
            frames += 1;
            assert!(frames < 100, "still computing after {frames} frames");
        };
        assert!(frames > model.config.n_layers, "{frames} frames");
        let ids = h
            .state()
            .bench
            .trace()
            .unwrap()
            .decoder
            .as_ref()
            .unwrap()
            .ids
            .clone();
        let measure = Measure::Text(ids);
        assert_eq!(full, score(&model, &measure, &[]).unwrap());
        h.state_mut().labs.get_mut::<HeadsLab>().unwrap().rank = true;
        let mut frames = 0;
        let plan = loop {
            h.run_steps(1);
            frames += 1;
            let lab = h.state().labs.get::<HeadsLab>().unwrap();
            assert!(lab.rank, "the ranking stopped");
            if let Some((_, p)) = lab.plan.as_ref().filter(|(_, p)| p.done()) {
                break p.clone();
            }
            assert!(frames < 2000, "still ranking after {frames} frames");
        };
        let mut whole = Plan::new(full, every_head(&model));
        while !whole.done() {
            whole.step(&model, &measure).unwrap();
        }
        // A pass of a block a frame: more frames than blocks in all the passes.
        let scores = whole.total_steps();
        assert!(frames > scores * model.config.n_layers, "{frames} frames");
        assert_eq!(plan, whole);
    }

    /// A model with nothing to score says why; a garbage link keeps the default.
    #[test]
    fn unscorable_models_and_bad_links_get_a_reason() {
        assert!(parse_heads("e0.1,d2.3,c1.0").is_some_and(|v| v.len() == 3));
        for bad in ["x0.1", "e0", "e0.", "e.1", "e0.1,,", "e99999.1"] {
            assert_eq!(parse_heads(bad), None, "{bad}");
        }
        let mut r = LinkReader::parse("hoff=zz&hrank=maybe");
        let mut lab = HeadsLab::default();
        lab.load(&mut r);
        assert!(lab.off.is_empty() && !lab.rank);
        assert_eq!(r.notices.len(), 2, "{:?}", r.notices);
        let encoder = crate::model::builtin::load("demo-encoder").unwrap();
        let e = measure_for("demo-encoder", &encoder, None).unwrap_err();
        assert!(e.contains("no next-token output"), "{e}");
    }

    /// The key/value-sharing race starts from a link, trains all three models a slice per
    /// frame, shows each one's cache, and stops when paused.
    #[test]
    fn the_key_value_race_trains_three_models_and_pauses() {
        let mut h = open("view=heads&model=translate&hsec=1&kvtrain=1");
        h.run_steps(8);
        // In the table and in both plots' legends.
        assert!(h.query_all_by_label("4 KV heads (multi-head)").count() >= 1);
        h.get_by_label("32 floats (128 B)");
        let lab = h.state_mut().labs.get_mut::<HeadsLab>().unwrap();
        assert!(lab.kv_race.pending());
        let steps: Vec<u64> = lab
            .kv_race
            .race(kv_spec(1))
            .unwrap()
            .contenders
            .iter()
            .map(|c| c.steps())
            .collect();
        assert!(steps.iter().all(|&s| s > 0), "{steps:?}");
        lab.kv_race.running = false;
        assert!(!lab.kv_race.pending());
    }
}
