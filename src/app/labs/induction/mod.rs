//! Induction on real tokens: the picked decoder reads random words, then the same words
//! again. The lab plots the loss of every prediction (high on the first copy, which nothing
//! predicts; low on the second if the model copies), ranks the heads by how much each query of
//! the second copy attends to the token that followed its earlier occurrence, and draws the
//! best one's attention.

use super::{Lab, Shared};
use crate::app::export;
use crate::app::link::{LinkReader, LinkWriter};
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::app::widgets::plot_words::PlotWords;
use crate::model::induction::{measure, repeated_ids, InductionRun};
use crate::model::{AttentionKind, ForwardOptions};
use crate::t;
use egui::{RichText, Ui};
use egui_plot::{Legend, Plot, VLine};

/// Heads listed in the ranking.
const RANKED: usize = 8;
/// Words per copy the slider allows.
const LENGTHS: std::ops::RangeInclusive<usize> = 4..=60;

pub struct InductionLab {
    /// Random words in each copy.
    pub len: usize,
    pub seed: u64,
    /// What was computed, for which (model, len, seed).
    computed: Option<(RunKey, Result<InductionRun, String>)>,
}

/// The model, words per copy and seed a run was computed for.
type RunKey = (String, usize, u64);

impl Default for InductionLab {
    fn default() -> Self {
        Self {
            len: 20,
            seed: 1,
            computed: None,
        }
    }
}

impl InductionLab {
    /// The current run, if it succeeded.
    pub fn run(&self) -> Option<&InductionRun> {
        self.computed.as_ref().and_then(|(_, r)| r.as_ref().ok())
    }

    fn compute(&mut self, shared: &Shared<'_>) {
        let name = shared.bench.model_name.clone();
        let key = (name.clone(), self.len, self.seed);
        // A run that failed is tried again (the model may have been loading): failing costs
        // nothing, since every failure comes before the forward pass or from the store's memo.
        if self
            .computed
            .as_ref()
            .is_some_and(|(k, r)| *k == key && r.is_ok())
        {
            return;
        }
        let result = shared.store.stored(&name).and_then(|model| {
            let (ids, start) = repeated_ids(&model, self.len, self.seed)
                .map_err(|e| crate::app::words::model_says(&e.to_string()))?;
            let input = model.input_from_ids(ids.clone(), vec![]);
            let trace = model.forward(&input, &ForwardOptions::default())?;
            Ok(measure(&model, ids, start, &trace))
        });
        self.computed = Some((key, result));
    }
}

impl Lab for InductionLab {
    fn id(&self) -> &'static str {
        "induction"
    }

    fn uses_shared_input(&self) -> bool {
        false
    }

    fn uses_shared_model(&self) -> bool {
        true
    }

    fn ui(&mut self, ui: &mut Ui, shared: &mut Shared<'_>) {
        let rect = ui.max_rect();
        ui.horizontal_wrapped(|ui| {
            let run = self.run();
            let json = || serde_json::to_vec_pretty(run?).ok();
            let label = t!("induction-export-run");
            let data: [export::DataFile<'_>; 1] =
                [(&label, "glimpse-induction.json".into(), &json)];
            export::view_menu(ui, shared.exporter, rect, "glimpse-induction.png", &data);
        });
        ui.label(t!("induction-intro"));
        ui.horizontal_wrapped(|ui| {
            let max = shared
                .bench
                .model
                .as_ref()
                .map_or(*LENGTHS.end(), |m| (m.config.max_len.saturating_sub(2)) / 2)
                .clamp(*LENGTHS.start(), *LENGTHS.end());
            ui.add(
                egui::Slider::new(&mut self.len, *LENGTHS.start()..=max)
                    .text(t!("induction-words-per-copy")),
            );
            ui.add(
                egui::DragValue::new(&mut self.seed).prefix(format!("{} ", t!("induction-seed"))),
            );
            if ui.button(t!("induction-new-words")).clicked() {
                self.seed = self.seed.wrapping_add(1);
            }
        });
        self.compute(shared);
        let name = shared.bench.model_name.clone();
        let run = match &self.computed {
            Some((_, Ok(run))) => run,
            Some((_, Err(e))) if crate::app::models::store::is_unfinished(e) => {
                crate::app::models::pass_answer::show(ui, shared.store, e);
                return;
            }
            Some((_, Err(e))) => {
                ui.colored_label(ui.visuals().warn_fg_color, e);
                ui.weak(t!("induction-pick-decoder"));
                return;
            }
            None => return,
        };
        sequence(ui, run);
        ui.add_space(6.0);
        ui.label(
            RichText::new(t!(
                "induction-mean-loss",
                model = &name,
                first = format!("{:.2}", run.first_half),
                second = format!("{:.2}", run.second_half),
                verdict = verdict(run)
            ))
            .strong(),
        );
        loss_plot(ui, run);
        ui.add_space(6.0);
        ranking(ui, run);
        best_head(ui, run, shared);
    }

    fn keys(&self) -> &'static [&'static str] {
        &["ilen", "iseed"]
    }

    fn save(&self, w: &mut LinkWriter) {
        w.put("ilen", self.len);
        w.put("iseed", self.seed);
    }

    fn load(&mut self, r: &mut LinkReader) {
        if let Some(x) = r.number("ilen", LENGTHS) {
            self.len = x;
        }
        if let Some(x) = r.number("iseed", 0..=u32::MAX as u64) {
            self.seed = x;
        }
    }
}

/// How much the repeat helped, in words.
fn verdict(run: &InductionRun) -> String {
    let ratio = run.second_half / run.first_half.max(1e-6);
    if ratio < 0.5 {
        t!(
            "induction-verdict-copies",
            percent = format!("{:.0}", 100.0 * (1.0 - ratio))
        )
    } else {
        t!("induction-verdict-no-copy")
    }
}

/// The random words, once (the model reads them twice).
fn sequence(ui: &mut Ui, run: &InductionRun) {
    let words = run.tokens[run.start..run.start + run.period].concat();
    ui.horizontal_wrapped(|ui| {
        ui.weak(t!("induction-tokens", count = run.period));
        ui.monospace(words.trim());
    });
}

/// The loss of each prediction, with the start of the second copy marked.
fn loss_plot(ui: &mut Ui, run: &InductionRun) {
    let points = run
        .loss
        .iter()
        .enumerate()
        .map(|(i, &l)| [(i + 1) as f64, l as f64])
        .collect();
    let second = (run.start + run.period) as f64;
    let mut words = PlotWords::new(t!("induction-plot-title"), t!("induction-plot-x-short"));
    let starts = t!("induction-second-copy");
    words.mark(&starts, second);
    let plot = Plot::new("induction_loss")
        .height(180.0)
        .legend(Legend::default())
        .x_axis_label(t!("induction-plot-x"))
        .y_axis_label(t!("induction-plot-y"))
        .allow_scroll(false)
        .show(ui, |plot| {
            plot.line(words.line(t!("induction-plot-series"), points));
            plot.vline(VLine::new(starts.as_str(), second));
        });
    words.add(ui, &plot.response);
}

/// The heads with the highest induction scores.
fn ranking(ui: &mut Ui, run: &InductionRun) {
    let heads = run.ranked();
    ui.strong(t!("induction-ranking"));
    ui.weak(t!("induction-ranking-about"));
    egui::Grid::new("induction_ranking")
        .striped(true)
        .spacing([16.0, 2.0])
        .show(ui, |ui| {
            for (l, h, s) in heads.iter().take(RANKED) {
                ui.label(t!("induction-layer-head", layer = *l, head = *h));
                ui.add(egui::ProgressBar::new(*s).desired_width(160.0));
                ui.monospace(format!("{s:.2}"));
                ui.end_row();
            }
        });
}

/// The best head's attention on the whole sequence: the copying stripe sits one step right of
/// the diagonal offset by the period.
fn best_head(ui: &mut Ui, run: &InductionRun, shared: &Shared<'_>) {
    let Some((layer, head, score)) = run.best_head() else {
        return;
    };
    let Ok(model) = shared.store.stored(&shared.bench.model_name) else {
        return;
    };
    let input = model.input_from_ids(run.ids.clone(), vec![]);
    let Ok(trace) = model.forward(&input, &ForwardOptions::default()) else {
        return;
    };
    let Some(a) = trace.attention(AttentionKind::DecoderSelf, layer) else {
        return;
    };
    ui.add_space(6.0);
    ui.strong(t!(
        "induction-best-head",
        layer = layer,
        head = head,
        score = format!("{score:.2}")
    ));
    let w = a.weights.index_axis(ndarray::Axis(0), head);
    let context = t!("induction-layer-head", layer = layer, head = head);
    let (query, key) = (t!("induction-axis-query"), t!("induction-axis-key"));
    let mut map = Heatmap::new(
        w,
        &run.tokens,
        &run.tokens,
        ColorScale::Sequential { min: 0.0, max: 1.0 },
    );
    map.allowed = Some(a.mask.view());
    map.axis_names = (&query, &key);
    map.context = &context;
    map.max_cell = 18.0;
    ui.allocate_ui(egui::vec2(ui.available_width(), 520.0), |ui| {
        map.show_with_legend(ui, 200.0, &t!("induction-weight"));
    });
}
