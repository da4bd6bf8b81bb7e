//! Why attention, trained: the GRU translator of `train::rnn` trained twice in the page, with
//! one fixed context vector and with additive attention; exact match by sentence length (the
//! bottleneck), and the attention model's alignment on a sentence the student types, one
//! decoder step at a time.

use super::race::train_controls;
use super::training::chunk_means;
use super::{Lab, Shared};
use crate::app::export;
use crate::app::link::{LinkReader, LinkWriter};
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::app::widgets::plot_words::PlotWords;
use crate::t;
use crate::train::rnn::{ByLength, RnnTrainer, HELD_OUT, HIDDEN, STEPS};
use crate::train::tasks::TaskKind;
use egui::Ui;
use egui_plot::{Corner, Legend, Plot};

const TASK: TaskKind = TaskKind::Translate;
/// State widths offered: 8 is the bottleneck; at 32 the fixed context fits the toy grammar.
const WIDTHS: [usize; 3] = [HIDDEN, 16, 32];
const FRAME_BUDGET: web_time::Duration = web_time::Duration::from_millis(30);

/// The two translators' names, fixed context first.
fn names() -> [String; 2] {
    [t!("rnn-fixed-context"), t!("rnn-additive-attention")]
}

/// The two translators for one (width, seed), and their scores once trained.
struct Pair {
    key: (usize, u64),
    runs: [RnnTrainer; 2],
    by_length: Option<[ByLength; 2]>,
}

pub struct RnnLab {
    pub hidden: usize,
    pub seed: u64,
    /// Train when drawn (the button, or a link).
    pub running: bool,
    /// The French sentence the alignment is shown on.
    pub sentence: String,
    /// The decoder step shown.
    pub step: usize,
    pair: Option<Result<Pair, String>>,
    spent: (f64, u64),
}

impl Default for RnnLab {
    fn default() -> Self {
        Self {
            hidden: HIDDEN,
            seed: 1,
            running: false,
            // Seed 1 at H = 8: the fixed context says "i see the small car .", attention
            // "i see the fast green car .".
            sentence: "je vois la voiture verte rapide .".into(),
            step: 0,
            pair: None,
            spent: (0.0, 0),
        }
    }
}

impl RnnLab {
    /// Started and not finished: frames still train.
    pub fn pending(&self) -> bool {
        self.running && matches!(&self.pair, Some(Ok(p)) if p.by_length.is_none())
    }

    fn ensure(&mut self) {
        let key = (self.hidden, self.seed);
        if matches!(&self.pair, Some(Ok(p)) if p.key == key) || matches!(&self.pair, Some(Err(_))) {
            return;
        }
        let make = |attention| {
            RnnTrainer::new(TASK, attention, self.hidden, self.seed).map_err(|e| e.to_string())
        };
        self.pair = Some(make(false).and_then(|f| {
            Ok(Pair {
                key,
                runs: [f, make(true)?],
                by_length: None,
            })
        }));
        self.spent = (0.0, 0);
    }

    /// One frame's slice of training, both models in turn; scored by length at the end.
    fn advance(&mut self, ui: &Ui) {
        let Some(Ok(pair)) = self.pair.as_mut() else {
            return;
        };
        if !self.running || pair.by_length.is_some() {
            return;
        }
        let start = web_time::Instant::now();
        while start.elapsed() < FRAME_BUDGET {
            let Some(run) = pair
                .runs
                .iter_mut()
                .filter(|r| r.steps < STEPS)
                .min_by_key(|r| r.steps)
            else {
                break;
            };
            run.step();
            self.spent.1 += 1;
        }
        self.spent.0 += start.elapsed().as_secs_f64();
        if pair.runs.iter().all(|r| r.steps >= STEPS) {
            pair.by_length = Some([
                pair.runs[0].exact_by_length(HELD_OUT),
                pair.runs[1].exact_by_length(HELD_OUT),
            ]);
        }
        ui.ctx().request_repaint();
    }

    fn controls(&mut self, ui: &mut Ui) {
        ui.horizontal_wrapped(|ui| {
            ui.label(t!("rnn-state-width"));
            for w in WIDTHS {
                ui.selectable_value(&mut self.hidden, w, w.to_string());
            }
            ui.add(
                egui::DragValue::new(&mut self.seed)
                    .range(1..=u32::MAX as u64)
                    .prefix(format!("{} ", t!("rnn-seed"))),
            );
        });
        let Some(Ok(pair)) = &self.pair else { return };
        let done = pair.by_length.is_some();
        let taken: u64 = pair.runs.iter().map(|r| r.steps).sum();
        train_controls(
            ui,
            "rnn:train",
            &mut self.running,
            (taken, 2 * STEPS, done),
            self.spent,
            &t!("rnn-train-both"),
            &t!("rnn-train-what", steps = STEPS),
        );
    }

    fn curves(ui: &mut Ui, pair: &Pair) {
        let names = names();
        let source_words = t!("rnn-source-words");
        crate::app::widgets::fit::columns(ui, 2, 300.0, |cols| {
            cols[0].label(t!("rnn-loss-title"));
            let mut words = PlotWords::new(t!("rnn-loss-title"), t!("rnn-step"));
            let plot = Plot::new("rnn_loss")
                .height(170.0)
                .allow_scroll(false)
                .legend(Legend::default())
                .x_axis_label(t!("rnn-step"))
                .show(&mut cols[0], |p| {
                    for (run, name) in pair.runs.iter().zip(names.clone()) {
                        let points = run
                            .losses
                            .iter()
                            .enumerate()
                            .map(|(i, l)| ((i + 1) as f64, f64::from(*l).max(1e-9).log10()));
                        p.line(words.line(name, chunk_means(points, run.losses.len(), 300)));
                    }
                });
            words.add(&mut cols[0], &plot.response);
            cols[1].label(t!("rnn-by-length-label", held_out = HELD_OUT));
            let mut words = PlotWords::new(t!("rnn-by-length-title"), t!("rnn-words"));
            let plot = Plot::new("rnn_by_length")
                .height(170.0)
                .allow_scroll(false)
                .include_y(0.0)
                .include_y(1.0)
                .legend(Legend::default().position(Corner::LeftBottom))
                .x_axis_label(source_words.clone())
                .show(&mut cols[1], |p| {
                    for (by, name) in pair.by_length.iter().flatten().zip(names.clone()) {
                        let points = by
                            .iter()
                            .map(|&(len, n, k)| [len as f64, k as f64 / n.max(1) as f64])
                            .collect();
                        p.line(words.line(name, points));
                    }
                });
            words.add(&mut cols[1], &plot.response);
        });
        if let Some(by) = &pair.by_length {
            egui::Grid::new("rnn_by_length_table")
                .striped(true)
                .show(ui, |ui| {
                    ui.strong(&source_words);
                    for &(len, n, _) in &by[0] {
                        ui.strong(format!("{len} ({n})"));
                    }
                    ui.end_row();
                    for (rows, name) in by.iter().zip(names) {
                        ui.label(name);
                        for &(_, n, k) in rows {
                            ui.label(format!("{:.0} %", 100.0 * k as f32 / n.max(1) as f32));
                        }
                        ui.end_row();
                    }
                });
        }
    }

    /// Both models on the typed sentence; the attention model's α, step by step.
    fn alignment(&mut self, ui: &mut Ui) {
        let Some(Ok(pair)) = &self.pair else { return };
        ui.add_space(8.0);
        ui.heading(t!("rnn-your-sentence"));
        ui.horizontal_wrapped(|ui| {
            let label = ui.label(t!("rnn-french-sentence"));
            ui.add(egui::TextEdit::singleline(&mut self.sentence).desired_width(360.0))
                .labelled_by(label.id);
        });
        let tok = &pair.runs[0].tokenizer;
        let encoded = tok.encode(&self.sentence);
        let words: Vec<String> = encoded.ids.iter().map(|&i| tok.decode(&[i])).collect();
        if encoded.ids.is_empty() {
            ui.weak(t!("rnn-type-a-sentence"));
            return;
        }
        let unknown: Vec<&str> = self
            .sentence
            .split_whitespace()
            .filter(|w| tok.encode(w).ids.contains(&crate::model::tokenizer::UNK))
            .collect();
        if !unknown.is_empty() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                t!("rnn-unknown-words", words = unknown.join(", ")),
            );
        }
        let max_len = encoded.ids.len() + 4;
        let (fixed, _) = pair.runs[0].model.greedy(&encoded.ids, max_len);
        let (out, steps) = pair.runs[1].model.greedy(&encoded.ids, max_len);
        ui.label(t!("rnn-fixed-output", output = tok.decode(&fixed)));
        ui.label(t!("rnn-attention-output", output = tok.decode(&out)));
        if steps.is_empty() {
            return;
        }
        let mut rows: Vec<String> = out.iter().map(|&i| tok.decode(&[i])).collect();
        rows.push("<eos>".into());
        rows.truncate(steps.len());
        // Clamped for drawing only: the link's step survives a sentence that decodes shorter
        // (an untrained model's).
        let mut step = self.step.min(steps.len() - 1);
        if ui
            .add(egui::Slider::new(&mut step, 0..=steps.len() - 1).text(t!("rnn-decoder-step")))
            .changed()
        {
            self.step = step;
        }
        // Rows after t are not computed yet at step t: shown empty.
        let mut alpha = ndarray::Array2::<f32>::zeros((steps.len(), words.len()));
        let mut allowed = ndarray::Array2::from_elem(alpha.raw_dim(), false);
        for (t, (_, a)) in steps.iter().enumerate().take(step + 1) {
            alpha.row_mut(t).assign(a);
            allowed.row_mut(t).fill(true);
        }
        let (output_word, source_word) = (t!("rnn-output-word"), t!("rnn-source-word"));
        crate::app::widgets::fit::columns(ui, 2, 300.0, |cols| {
            Heatmap {
                show_numbers: true,
                axis_names: (&output_word, &source_word),
                allowed: Some(allowed.view()),
                highlight_row: Some(step),
                max_cell: 44.0,
                ..Heatmap::new(
                    alpha.view(),
                    &rows,
                    &words,
                    ColorScale::Sequential { min: 0.0, max: 1.0 },
                )
            }
            .show(&mut cols[0]);
            let (e, a) = &steps[step];
            let ui = &mut cols[1];
            let producing = t!("rnn-step-producing", step = step, word = &rows[step]);
            crate::app::widgets::math_text::strong(ui, &producing);
            crate::app::formulas::show(ui, "bahdanau");
            egui::Grid::new("rnn_step").striped(true).show(ui, |ui| {
                for t in [t!("rnn-source-word-i"), "e_{t,i}".into(), "α_{t,i}".into()] {
                    crate::app::widgets::math_text::strong(ui, &t);
                }
                ui.end_row();
                for (i, w) in words.iter().enumerate() {
                    ui.label(w);
                    ui.monospace(format!("{:+.3}", e[i]));
                    ui.monospace(format!("{:.3}", a[i]));
                    ui.end_row();
                }
            });
        });
    }
}

impl Lab for RnnLab {
    fn id(&self) -> &'static str {
        "rnn"
    }

    fn uses_shared_input(&self) -> bool {
        false
    }

    fn ui(&mut self, ui: &mut Ui, shared: &mut Shared<'_>) {
        self.ensure();
        self.advance(ui);
        let rect = ui.max_rect();
        let this = &*self;
        ui.horizontal_wrapped(|ui| {
            let json = || {
                let Some(Ok(p)) = &this.pair else { return None };
                serde_json::to_vec_pretty(&serde_json::json!({
                    "hidden": this.hidden,
                    "seed": this.seed,
                    "steps": p.runs.iter().map(|r| r.steps).collect::<Vec<_>>(),
                    "final_losses": p.runs.iter().map(|r| r.losses.last()).collect::<Vec<_>>(),
                    "exact_by_length": p.by_length,
                }))
                .ok()
            };
            let label = t!("rnn-export-json");
            let files: [export::DataFile<'_>; 1] = [(&label, "glimpse-rnn.json".into(), &json)];
            export::view_menu(ui, shared.exporter, rect, "glimpse-rnn.png", &files);
        });
        ui.heading(t!("rnn-heading"));
        crate::app::widgets::math_text::label(ui, &t!("rnn-intro", hidden = HIDDEN));
        if let Some(Err(e)) = &self.pair {
            ui.colored_label(ui.visuals().error_fg_color, e);
            return;
        }
        self.controls(ui);
        if let Some(Ok(pair)) = &self.pair {
            Self::curves(ui, pair);
        }
        self.alignment(ui);
    }

    fn keys(&self) -> &'static [&'static str] {
        &["rh", "rseed", "rtrain", "rsrc", "rstep"]
    }

    fn save(&self, w: &mut LinkWriter) {
        w.put("rh", self.hidden);
        w.put("rseed", self.seed);
        w.put("rtrain", u8::from(self.running));
        w.put("rsrc", &self.sentence);
        w.put("rstep", self.step);
    }

    fn load(&mut self, r: &mut LinkReader) {
        if let Some(h) = r.read("rh", |v| v.parse().ok().filter(|h| WIDTHS.contains(h))) {
            self.hidden = h;
        }
        if let Some(s) = r.number("rseed", 1..=u32::MAX as u64) {
            self.seed = s;
        }
        if let Some(t) = r.flag("rtrain") {
            self.running = t;
        }
        if let Some(s) = r.read("rsrc", |v| {
            (v.chars().count() <= 200).then(|| v.to_string())
        }) {
            self.sentence = s;
        }
        if let Some(t) = r.number("rstep", 0..=64usize) {
            self.step = t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::tests::open;
    use egui_kittest::kittest::Queryable;

    /// A link trains both translators in frames, then the lab shows exact match by length and
    /// the attention model's alignment on the sentence, one row per output word.
    #[test]
    fn a_link_trains_both_and_shows_the_bottleneck_and_the_alignment() {
        let mut h = open("view=rnn&rtrain=1&rstep=2");
        for _ in 0..3000 {
            if !h.state().labs.get::<RnnLab>().unwrap().pending() {
                break;
            }
            h.run_steps(1);
        }
        h.run_steps(2);
        let lab = h.state().labs.get::<RnnLab>().unwrap();
        let Some(Ok(pair)) = &lab.pair else {
            panic!("no runs")
        };
        assert!(pair.runs.iter().all(|r| r.steps == STEPS));
        let by = pair.by_length.as_ref().unwrap();
        let at = |b: &ByLength, len| b.iter().find(|r| r.0 == len).map(|r| r.2).unwrap();
        assert!(at(&by[1], 7) > at(&by[0], 7) + 10, "{by:?}");
        // The default sentence, as the lesson page describes it.
        let tok = &pair.runs[0].tokenizer;
        let ids = tok.encode(&lab.sentence).ids;
        let (fixed, _) = pair.runs[0].model.greedy(&ids, 12);
        let (out, steps) = pair.runs[1].model.greedy(&ids, 12);
        assert_eq!(tok.decode(&fixed), "i see the small car .");
        assert_eq!(tok.decode(&out), "i see the fast green car .");
        let rapide = ids
            .iter()
            .position(|&i| tok.decode(&[i]) == "rapide")
            .unwrap();
        let top = crate::util::argmax(steps[3].1.iter().copied()).unwrap().0;
        assert_eq!(top, rapide);
        h.get_by_label_contains("Step 2: producing");
        h.get_by_label("trained");
        h.get_by_label_contains("additive attention: ");
    }

    #[test]
    fn bad_links_keep_the_defaults() {
        let mut lab = RnnLab::default();
        let mut r = LinkReader::parse("rh=7&rseed=0&rtrain=x&rstep=999");
        lab.load(&mut r);
        assert_eq!(
            (lab.hidden, lab.seed, lab.running, lab.step),
            (HIDDEN, 1, false, 0)
        );
        assert_eq!(r.notices.len(), 4, "{:?}", r.notices);
    }
}
