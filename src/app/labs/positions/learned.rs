//! A learned absolute table: the trained model's rows as a heatmap, their similarities, and
//! what happens past the table's end (there is no vector: the model refuses, with a message).

use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::model::{ForwardOptions, Model};
use egui::Ui;

pub const MODEL: &str = "extrap-learned";
/// Rows of the table training ever read: the reverse task's inputs have at most 8 letters
/// (`train::trainer::make_example`): the encoder reads them at positions 0‥7, the decoder reads
/// `<bos>` and them at 0‥8. `<eos>` is only a label, never an input, so row 9 is never used.
pub const TRAINED_POSITIONS: usize = 9;

pub struct LearnedPanel {
    model: Option<Result<std::sync::Arc<Model>, String>>,
    pub position: usize,
    pub text: String,
}

impl Default for LearnedPanel {
    fn default() -> Self {
        Self {
            model: None,
            position: 12,
            text: "abcdefghij".into(),
        }
    }
}

/// The vector of position `t`, or why there is none.
pub fn row_of(model: &Model, t: usize) -> Result<Vec<f32>, String> {
    let table = model
        .weights
        .pos_embed
        .as_ref()
        .ok_or_else(|| crate::t!("positions-learned-no-table"))?;
    if t >= table.nrows() {
        return Err(crate::t!(
            "positions-learned-past-the-table",
            position = t,
            rows = table.nrows(),
            last = table.nrows() - 1,
        ));
    }
    Ok(table.row(t).to_vec())
}

impl LearnedPanel {
    pub fn ui(&mut self, ui: &mut Ui, store: &crate::app::models::store::ModelStore) {
        let model = store.keep(&mut self.model, MODEL);
        let model = match model {
            Ok(m) => m,
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e.as_str());
                return;
            }
        };
        let Some(table) = &model.weights.pos_embed else {
            return;
        };
        ui.label(crate::t!(
            "positions-learned-about",
            model = MODEL,
            rows = table.nrows(),
            dims = table.ncols(),
            letters = TRAINED_POSITIONS - 1,
            encoder_last = TRAINED_POSITIONS - 2,
            decoder_last = TRAINED_POSITIONS - 1,
        ));
        let rows: Vec<String> = (0..table.nrows()).map(|t| t.to_string()).collect();
        let cols: Vec<String> = (0..table.ncols()).map(|c| c.to_string()).collect();
        let sim = table.dot(&table.t());
        let (position, dimension) = (
            crate::t!("positions-axis-position"),
            crate::t!("positions-axis-dimension"),
        );
        let (position_i, position_j) = (
            crate::t!("positions-axis-position-i"),
            crate::t!("positions-axis-position-j"),
        );
        let table_context = crate::t!("positions-learned-table-context");
        let similarity_context = crate::t!("positions-learned-similarity-context");
        crate::app::widgets::fit::columns(ui, 2, 300.0, |c| {
            c[0].strong(crate::t!("positions-learned-table-title"));
            Heatmap {
                axis_names: (&position, &dimension),
                context: &table_context,
                max_cell: 14.0,
                ..Heatmap::new(
                    table.view(),
                    &rows,
                    &cols,
                    ColorScale::diverging_for(table.iter()),
                )
            }
            .show_with_legend(&mut c[0], 200.0, &crate::t!("positions-learned-value"));
            c[1].strong(crate::t!("positions-learned-similarity-title"));
            Heatmap {
                axis_names: (&position_i, &position_j),
                context: &similarity_context,
                max_cell: 14.0,
                ..Heatmap::new(
                    sim.view(),
                    &rows,
                    &rows,
                    ColorScale::diverging_for(sim.iter()),
                )
            }
            .show_with_legend(&mut c[1], 200.0, "pᵢ·pⱼ");
        });
        ui.separator();
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut self.position, 0..=60).text(crate::t!("positions-position-t")),
        );
        match row_of(model, self.position) {
            Ok(v) => {
                let shown: Vec<String> = v.iter().take(8).map(|x| format!("{x:.3}")).collect();
                let note = if self.position < TRAINED_POSITIONS {
                    crate::t!("positions-learned-trained")
                } else {
                    crate::t!("positions-learned-untrained")
                };
                ui.monospace(format!(
                    "p{} = [{}, …] ({note})",
                    self.position,
                    shown.join(", ")
                ));
            }
            Err(e) => {
                ui.colored_label(ui.visuals().warn_fg_color, e);
            }
        }
        ui.horizontal_wrapped(|ui| {
            let l = ui.label(crate::t!("positions-learned-run-on"));
            ui.add(egui::TextEdit::singleline(&mut self.text).desired_width(360.0))
                .labelled_by(l.id);
        });
        let input = model.prepare(&self.text, "").input;
        match store.forward(MODEL, &input, &ForwardOptions::default()) {
            Ok(_) => ui.label(crate::t!(
                "positions-learned-fits",
                tokens = input.source.len(),
                rows = model.config.max_len,
            )),
            Err(e) => ui.colored_label(
                ui.visuals().warn_fg_color,
                crate::t!("positions-learned-refuses", error = e.to_string()),
            ),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_table_there_is_a_message_not_a_panic() {
        let m = crate::model::builtin::load(MODEL).unwrap();
        let n = m.weights.pos_embed.as_ref().unwrap().nrows();
        assert_eq!(row_of(&m, n - 1).unwrap().len(), m.config.d_model);
        let e = row_of(&m, n).unwrap_err();
        assert!(e.contains("no vector"), "{e}");
        // The model itself refuses an input past the table.
        let long: String = "abcdefghij".repeat(5);
        let input = m.prepare(&long, "").input;
        assert!(input.source.len() <= n, "prepare cuts at the limit");
        let mut over = input.clone();
        over.source.extend([4; 3]);
        assert!(m.forward(&over, &ForwardOptions::default()).is_err());
    }

    /// The training code's own examples: no input is longer than `TRAINED_POSITIONS` and none
    /// reads `<eos>`, so the rows from `TRAINED_POSITIONS` on are never looked up.
    #[test]
    fn training_reads_exactly_the_trained_rows() {
        use crate::model::tokenizer::EOS;
        use crate::train::tasks::{Split, TaskKind};
        use crate::train::trainer::make_example;
        use crate::util::rng::Rng;
        let m = crate::model::builtin::load(MODEL).unwrap();
        let mut rng = Rng::new(1);
        let mut longest = 0;
        for _ in 0..2000 {
            let pair = TaskKind::Reverse.sample(&mut rng, Split::Train);
            let ex = make_example(TaskKind::Reverse, &m.tokenizer, &pair);
            assert!(!ex.input.source.contains(&EOS) && !ex.input.target.contains(&EOS));
            longest = longest
                .max(ex.input.source.len())
                .max(ex.input.target.len());
        }
        assert_eq!(longest, TRAINED_POSITIONS);
        assert_eq!(
            TaskKind::Reverse.max_pieces() + 1,
            TRAINED_POSITIONS,
            "<bos> + 8 letters"
        );
    }

    /// The shipped weights agree: against the same seed's initial table, every row training
    /// reached turned, and every other row only shrank (AdamW's decay, which touches all rows).
    #[test]
    fn untrained_rows_are_their_initial_values_decayed() {
        let m = crate::model::builtin::load(MODEL).unwrap();
        // The recipe's seed (assets/models/extrap-learned.recipe.json).
        let init = Model::random(m.config.clone(), 1).unwrap();
        let (t, t0) = (
            m.weights.pos_embed.as_ref().unwrap(),
            init.weights.pos_embed.as_ref().unwrap(),
        );
        let cosine = |r: usize| {
            let (a, b) = (t.row(r), t0.row(r));
            a.dot(&b) / (a.dot(&a).sqrt() * b.dot(&b).sqrt())
        };
        let shrink = |r: usize| t.row(r).dot(&t.row(r)).sqrt() / t0.row(r).dot(&t0.row(r)).sqrt();
        // Every untouched row shrank by the same factor, ∏(1 − lr·decay) ≈ 0.955.
        let decay = shrink(t.nrows() - 1);
        assert!((0.9..1.0).contains(&decay), "{decay}");
        for r in 0..t.nrows() {
            if r < TRAINED_POSITIONS {
                assert!(
                    cosine(r) < 0.999,
                    "row {r} was trained: cosine {}",
                    cosine(r)
                );
            } else {
                assert!(
                    cosine(r) > 0.99999,
                    "row {r} untouched: cosine {}",
                    cosine(r)
                );
                assert!((shrink(r) - decay).abs() < 1e-4, "row {r}: {}", shrink(r));
            }
        }
    }

    #[test]
    fn trained_rows_moved_and_untrained_rows_did_not_learn_much() {
        // Rows the training never reached keep their small random initialisation.
        let m = crate::model::builtin::load(MODEL).unwrap();
        let t = m.weights.pos_embed.as_ref().unwrap();
        let norm = |r: usize| t.row(r).mapv(|x| x * x).sum().sqrt();
        let trained = (0..TRAINED_POSITIONS).map(norm).sum::<f32>() / TRAINED_POSITIONS as f32;
        let untrained = (30..t.nrows()).map(norm).sum::<f32>() / (t.nrows() - 30) as f32;
        assert!(trained > untrained, "{trained} vs {untrained}");
    }
}
