//! Attention against influence, for one query token: where the heads look (the mean over
//! heads per block, and each head's strongest weight), rollout, and one effect per head
//! (attribution, ablation or the patching sweep's), with a sentence naming where looking and
//! mattering disagree and the sinks: heads that park half their weight or more on the first
//! token, with the norms of the values they read there.

use super::background::{self, Effects, Job, Status};
use super::{answer, token_id, warn, Clean, Effect, InfluenceLab, Shared};
use crate::analysis::ablation::Ablation;
use crate::analysis::compare::{disagreement_of, looks, sinks, Sink};
use crate::analysis::{read_stack, rollout};
use crate::app::export;
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::t;
use ndarray::{Array2, Axis};

/// What an ablation runs on: model, ids, A, B.
type Key = (String, Vec<u32>, u32, u32);

#[derive(Default)]
pub struct CompareState {
    key: Option<Key>,
    job: Option<Job<Ablation>>,
    status: Option<Status<Effects>>,
}

/// Height of each of the three grids, so the sentence and the sinks stay in view.
const GRID_HEIGHT: f32 = 360.0;

impl CompareState {
    pub fn is_done(&self) -> bool {
        self.status.as_ref().is_some_and(|s| s.done)
    }
}

/// The effects with their names for the tests' probe (the English titles, in every language).
const EFFECTS: [(Effect, &str); 3] = [
    (Effect::Attribution, "direct attribution"),
    (Effect::Ablation, "ablation (head off)"),
    (Effect::Patching, "patching score"),
];

impl Effect {
    /// Its chip's title.
    fn title(self) -> String {
        match self {
            Effect::Attribution => t!("influence-effect-attribution"),
            Effect::Ablation => t!("influence-effect-ablation"),
            Effect::Patching => t!("influence-effect-patching"),
        }
    }

    /// What one head's number measures, as the analysis's sentence and the tests' probe name
    /// it (English in every language, like the sentence).
    fn measure(self) -> &'static str {
        match self {
            Effect::Attribution => "attribution share",
            Effect::Ablation => "ablation effect",
            Effect::Patching => "patching score",
        }
    }

    /// What one head's number measures, in the reader's language.
    fn measure_title(self) -> String {
        match self {
            Effect::Attribution => t!("influence-measure-attribution"),
            Effect::Ablation => t!("influence-measure-ablation"),
            Effect::Patching => t!("influence-measure-patching"),
        }
    }
}

impl InfluenceLab {
    pub(super) fn compare_section(
        &mut self,
        ui: &mut egui::Ui,
        shared: &mut Shared<'_>,
        clean: &Clean,
    ) {
        let rect = ui.max_rect();
        ui.label(t!("influence-compare-intro"));
        self.token_boxes(ui, clean, true);
        let Some(stack) = read_stack(&clean.trace) else {
            return;
        };
        let q = clean.position(self.position);
        let looked = looks(stack, q);
        let sunk = sinks(stack, q);
        let roll = rollout::of_stack(stack);
        let t = clean.tokens.len();
        // Mean over heads of each block's weights from the query: [block, key].
        let mean = Array2::from_shape_fn((stack.blocks.len(), t), |(l, j)| {
            let w = &stack.blocks[l].self_attn.inner.weights;
            w.index_axis(Axis(1), q).column(j).mean().unwrap_or(0.0)
        });
        let mut with_roll = mean.clone();
        with_roll
            .push_row(roll.row(q).mapv(|x| x as f32).view())
            .ok();
        let rows: Vec<String> = (0..stack.blocks.len())
            .map(|l| t!("influence-block", block = l))
            .chain([t!("influence-rollout")])
            .collect();
        let heads = looked.first().map_or(0, Vec::len);
        let head_cols: Vec<String> = (0..heads).map(|h| format!("h{h}")).collect();
        let strongest = Array2::from_shape_fn((looked.len(), heads), |(l, h)| looked[l][h].weight);
        let effects = self.effects(ui, shared, clean, q);
        ui.horizontal_wrapped(|ui| {
            let json = || {
                serde_json::to_vec_pretty(&serde_json::json!({
                    "model": clean.name, "tokens": clean.tokens, "query": q,
                    "mean_attention": mean.outer_iter().map(|r| r.to_vec()).collect::<Vec<_>>(),
                    "rollout": roll.row(q).to_vec(),
                    "strongest_weight": strongest.outer_iter().map(|r| r.to_vec()).collect::<Vec<_>>(),
                    "effects": effects.as_ref().ok().map(|e| &e.1),
                    "sinks": sunk.iter().map(sink_json).collect::<Vec<_>>(),
                }))
                .ok()
            };
            // The query's attention, mean over heads per block, with rollout as the last row.
            let csv = || Some(export::matrix_csv(with_roll.view(), &rows, &clean.tokens).into_bytes());
            let (json_label, csv_label) = (
                t!("influence-compare-export-json"),
                t!("influence-compare-export-csv"),
            );
            let files: [export::DataFile<'_>; 2] = [
                (&json_label, "glimpse-influence.json".into(), &json),
                (&csv_label, "glimpse-influence.csv".into(), &csv),
            ];
            export::view_menu(ui, shared.exporter, rect, "glimpse-influence.png", &files);
        });
        let seq = ColorScale::Sequential { min: 0.0, max: 1.0 };
        // The effect grid, `NaN` (not measured yet) drawn hatched.
        let effect_grid = effects.as_ref().ok().map(|(what, e)| {
            let (values, ok) = super::patching_view::grid(e);
            (what.measure_title(), values, ok)
        });
        let blocks = &rows[..looked.len()];
        let (block, key, head) = (
            t!("influence-axis-block"),
            t!("influence-axis-key"),
            t!("influence-axis-head"),
        );
        let (weight, effect) = (t!("influence-weight"), t!("influence-effect"));
        let (mean_context, strongest_context) = (
            t!("influence-compare-mean-context"),
            t!("influence-compare-strongest-context"),
        );
        crate::app::widgets::fit::columns(ui, 3, 280.0, |cols| {
            let n = cols.len();
            let sized = |ui: &mut egui::Ui, title: String, map: Heatmap<'_>, caption: &str| {
                ui.strong(title);
                let size = egui::vec2(ui.available_width(), GRID_HEIGHT);
                ui.allocate_ui(size, |ui| {
                    map.show_with_legend(ui, GRID_HEIGHT - 40.0, caption)
                });
            };
            let mut m = Heatmap::new(with_roll.view(), &rows, &clean.tokens, seq);
            m.axis_names = (&block, &key);
            m.context = &mean_context;
            let title = t!("influence-compare-mean-title", token = &clean.tokens[q]);
            sized(&mut cols[0], title, m, &weight);
            let mut m = Heatmap::new(strongest.view(), blocks, &head_cols, seq);
            m.axis_names = (&block, &head);
            m.context = &strongest_context;
            sized(
                &mut cols[1.min(n - 1)],
                t!("influence-compare-strongest-title"),
                m,
                &weight,
            );
            if let Some((what, values, ok)) = &effect_grid {
                let mut m = Heatmap::new(
                    values.view(),
                    blocks,
                    &head_cols,
                    ColorScale::diverging_for(values.iter()),
                );
                m.allowed = Some(ok.view());
                m.axis_names = (&block, &head);
                m.context = what;
                sized(
                    &mut cols[2.min(n - 1)],
                    t!("influence-compare-effect-title", what = what),
                    m,
                    &effect,
                );
            }
        });
        match &effects {
            Ok((what, e)) => {
                let sentence = verdict(&looked, e, &clean.tokens, what.measure_title());
                ui.label(egui::RichText::new(&sentence).strong());
                // Every head measured (ablation and patching fill in step by step).
                let complete = e.iter().flatten().all(|x| x.is_finite());
                let longest_step_ms = (self.effect == Effect::Ablation)
                    .then(|| self.compare.status.as_ref().map(|s| s.longest_step * 1e3))
                    .flatten();
                let note = serde_json::json!({
                    "query": q, "effect": what.measure(), "sentence": sentence, "complete": complete,
                    "longest_step_ms": longest_step_ms,
                });
                self.note("compare", note);
            }
            Err(e) => warn(ui, e.clone()),
        }
        sink_table(
            ui,
            &sunk,
            effects.as_ref().ok().map(|e| &e.1),
            &clean.tokens,
        );
        self.note(
            "sinks",
            serde_json::Value::Array(sunk.iter().map(sink_json).collect()),
        );
    }

    /// The effect per head picked, `[block][head]`, with its name; ablation and patching fill
    /// in as they run.
    fn effects(
        &mut self,
        ui: &mut egui::Ui,
        _shared: &mut Shared<'_>,
        clean: &Clean,
        q: usize,
    ) -> Result<(Effect, Vec<Vec<f64>>), String> {
        ui.horizontal_wrapped(|ui| {
            ui.label(t!("influence-effect-label"));
            for (e, name) in EFFECTS {
                let r = ui.selectable_value(&mut self.effect, e, e.title());
                crate::app::probe::control(&format!("influence:effect {name}"), r.rect);
            }
        });
        if !clean.model.has_output_layer() {
            return Err(t!("influence-compare-no-output"));
        }
        let a = answer(clean, &self.target, q)?;
        let b = token_id(&clean.model, &self.contrast)?;
        match self.effect {
            Effect::Attribution => {
                let got = self.attribution.get(clean, a, b, q).clone()?;
                Ok((Effect::Attribution, got.heads))
            }
            Effect::Patching => {
                let r = self.patching.results_for(&clean.name, &clean.ids);
                let r = r.ok_or_else(|| t!("influence-compare-run-sweep-first"))?;
                Ok((Effect::Patching, r.heads.clone()))
            }
            Effect::Ablation => {
                let b = b.ok_or_else(|| t!("influence-compare-ablation-needs-b"))?;
                if q + 1 != clean.tokens.len() {
                    return Err(t!("influence-compare-ablation-last"));
                }
                let key = (clean.name.clone(), clean.ids.clone(), a, b);
                if self.compare.key.as_ref() != Some(&key) {
                    let job = Ablation::new(&clean.model, &clean.trace, a, b)
                        .map_err(|e| e.to_string())?;
                    self.compare.job = Some(Job::start(job, clean.model.clone(), ui.ctx().clone()));
                    self.compare.key = Some(key);
                    self.compare.status = None;
                    self.ablate = true;
                }
                background::poll(&mut self.compare.job, &mut self.compare.status);
                let s = self
                    .compare
                    .status
                    .as_ref()
                    .ok_or_else(|| t!("influence-starting"))?;
                if let Some(e) = &s.error {
                    return Err(e.clone());
                }
                let (done, all) = s.progress;
                if done < all {
                    ui.add(
                        egui::ProgressBar::new(done as f32 / all.max(1) as f32).text(t!(
                            "influence-compare-progress",
                            done = done,
                            all = all,
                            seconds = format!("{:.1}", s.seconds)
                        )),
                    );
                }
                if s.done {
                    ui.label(t!(
                        "influence-compare-ld",
                        ld = format!("{:.3}", s.snapshot.ld)
                    ));
                }
                Ok((Effect::Ablation, s.snapshot.effects.clone()))
            }
        }
    }
}

fn sink_json(s: &Sink) -> serde_json::Value {
    serde_json::json!({
        "layer": s.layer, "head": s.head, "first": s.first,
        "value_norm_first": s.value_norm_first, "value_norm_rest": s.value_norm_rest,
    })
}

/// The sink heads, one line each, with their effect where one is measured.
fn sink_table(
    ui: &mut egui::Ui,
    sinks: &[Sink],
    effects: Option<&Vec<Vec<f64>>>,
    tokens: &[String],
) {
    let first = tokens.first().map_or("", |t| t.as_str());
    if sinks.is_empty() {
        ui.label(t!("influence-sinks-none", token = first));
        return;
    }
    ui.label(t!("influence-sinks", count = sinks.len(), token = first));
    egui::ScrollArea::vertical()
        .id_salt("sinks")
        .max_height(180.0)
        .show(ui, |ui| {
            egui::Grid::new("sink table").striped(true).show(ui, |ui| {
                for h in [
                    t!("influence-axis-head"),
                    t!("influence-sinks-weight"),
                    t!("influence-sinks-norm-first"),
                    t!("influence-sinks-norm-rest"),
                    t!("influence-effect"),
                ] {
                    ui.strong(h);
                }
                ui.end_row();
                for s in sinks {
                    ui.label(format!("{}.{}", s.layer, s.head));
                    ui.label(format!("{:.2}", s.first));
                    ui.label(format!("{:.2}", s.value_norm_first));
                    ui.label(format!("{:.2}", s.value_norm_rest));
                    let e = effects
                        .and_then(|e| e.get(s.layer)?.get(s.head))
                        .filter(|x| x.is_finite());
                    ui.label(e.map_or("–".to_string(), |x| format!("{x:+.3}")));
                    ui.end_row();
                }
            });
        });
}

/// Looking against mattering in one paragraph, in the reader's language (the numbers of
/// `analysis::compare::disagreement_of`; in English exactly `compare::disagreement`'s text).
fn verdict(
    looks: &[Vec<crate::analysis::compare::Look>],
    effects: &[Vec<f64>],
    tokens: &[String],
    what: String,
) -> String {
    let Some(d) = disagreement_of(looks, effects) else {
        return t!("influence-verdict-none", what = what);
    };
    let token = |j: usize| tokens.get(j).map_or("?", |t| t.as_str()).to_string();
    let mut parts = Vec::new();
    if let Some((l, e)) = &d.looker {
        parts.push(t!(
            "influence-verdict-looker",
            head = format!("{}.{}", l.layer, l.head),
            weight = format!("{:.2}", l.weight),
            token = token(l.key),
            position = l.key,
            what = what.clone(),
            effect = format!("{e:+.3}")
        ));
    }
    let (l, e) = &d.strongest;
    parts.push(t!(
        "influence-verdict-strongest",
        head = format!("{}.{}", l.layer, l.head),
        what = what.clone(),
        effect = format!("{e:+.3}"),
        weight = format!("{:.2}", l.weight),
        token = token(l.key),
        position = l.key
    ));
    parts.push(t!(
        "influence-verdict-correlation",
        heads = d.heads,
        rho = format!("{:.2}", d.rank_correlation)
    ));
    parts.join(" ")
}
