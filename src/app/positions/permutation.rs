//! Why positions are needed at all: shuffle the input. Without positional encodings the
//! encoder's outputs are the same rows, shuffled with it (self-attention is a set operation);
//! with them, every row changes.

use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::model::{ForwardOptions, Model, Positional};
use crate::util::rng::Rng;
use egui::Ui;
use ndarray::Array2;

pub const MODEL: &str = "extrap-sinusoidal";

pub struct PermutationPanel {
    pub text: String,
    pub seed: u64,
    model: Option<Result<std::sync::Arc<Model>, String>>,
    /// Both comparisons (positions off, on) for the (text, seed) they were made from.
    computed: Option<ComputedFor>,
}

type ComputedFor = ((String, u64), Result<(Comparison, Comparison), String>);

impl Default for PermutationPanel {
    fn default() -> Self {
        Self {
            text: "abcdefgh".into(),
            seed: 1,
            model: None,
            computed: None,
        }
    }
}

/// A seeded shuffle of `0..n` (Fisher–Yates), never the identity when n > 1.
pub fn shuffle(n: usize, seed: u64) -> Vec<usize> {
    let mut rng = Rng::new(seed);
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        p.swap(i, rng.below(i + 1));
    }
    if n > 1 && p.iter().enumerate().all(|(i, &x)| i == x) {
        p.rotate_left(1);
    }
    p
}

/// Per shuffled row i (the token from original position perm[i]): the largest difference
/// between its encoder output in the shuffled run and in the original run.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub tokens: Vec<String>,
    pub perm: Vec<usize>,
    pub original: Array2<f32>,
    pub shuffled: Array2<f32>,
    pub row_change: Vec<f32>,
}

pub fn compare(model: &Model, text: &str, seed: u64) -> Result<Comparison, String> {
    let ids = model.prepare(text, "").input;
    let perm = shuffle(ids.source.len(), seed);
    let mut shuffled = ids.clone();
    shuffled.source = perm.iter().map(|&i| ids.source[i]).collect();
    let run = |input| -> Result<Array2<f32>, String> {
        let t = model
            .forward(input, &ForwardOptions::default())
            .map_err(|e| e.to_string())?;
        t.encoder
            .map(|e| e.output)
            .ok_or_else(|| "this model has no encoder".to_string())
    };
    let (a, b) = (run(&ids)?, run(&shuffled)?);
    let row_change = perm
        .iter()
        .enumerate()
        .map(|(i, &from)| {
            a.row(from)
                .iter()
                .zip(b.row(i))
                .map(|(x, y)| (x - y).abs())
                .fold(0.0f32, f32::max)
        })
        .collect();
    Ok(Comparison {
        tokens: model.tokenizer.tokens(&shuffled.source),
        perm,
        original: a,
        shuffled: b,
        row_change,
    })
}

/// The same weights with the positional encoding switched off (sinusoidal has no parameters,
/// so nothing else changes).
pub fn without_positions(model: &Model) -> Model {
    let mut m = model.clone();
    m.config.positional = Positional::None;
    m
}

impl PermutationPanel {
    pub fn ui(&mut self, ui: &mut Ui, store: &crate::app::store::ModelStore) {
        let model = store.keep(&mut self.model, MODEL);
        let on = match model {
            Ok(m) => m.clone(),
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e.as_str());
                return;
            }
        };
        ui.label(format!(
            "Self-attention treats its input as a set: shuffle the tokens and, without positional encodings, every token's output is the same as before, just in its new place. “{MODEL}”'s encoder, run with its sinusoidal encodings off and on:"
        ));
        ui.horizontal_wrapped(|ui| {
            let l = ui.label("input");
            ui.add(egui::TextEdit::singleline(&mut self.text).desired_width(200.0))
                .labelled_by(l.id);
            if ui.button("shuffle again").clicked() {
                self.seed += 1;
            }
        });
        // Four forward passes and a copy of the model: only when the text or shuffle changes.
        let key = (self.text.clone(), self.seed);
        if self.computed.as_ref().is_none_or(|(k, _)| *k != key) {
            let off = without_positions(&on);
            let both = compare(&off, &self.text, self.seed)
                .and_then(|a| Ok((a, compare(&on, &self.text, self.seed)?)));
            self.computed = Some((key, both));
        }
        let (a, b) = match self.computed.as_ref().map(|(_, r)| r) {
            Some(Ok((a, b))) => (a, b),
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
                return;
            }
            None => return,
        };
        let order: Vec<String> = a.perm.iter().map(|i| i.to_string()).collect();
        ui.label(format!(
            "shuffled order (original positions): {}",
            order.join(" ")
        ));
        egui::Grid::new("permutation_rows")
            .striped(true)
            .show(ui, |ui| {
                for h in [
                    "shuffled row",
                    "token",
                    "from position",
                    "change, positions off",
                    "change, positions on",
                ] {
                    ui.strong(h);
                }
                ui.end_row();
                for i in 0..a.tokens.len() {
                    ui.label(i.to_string());
                    ui.monospace(&a.tokens[i]);
                    ui.label(a.perm[i].to_string());
                    ui.label(format!("{:.2e}", a.row_change[i]));
                    ui.label(format!("{:.3}", b.row_change[i]));
                    ui.end_row();
                }
            });
        ui.label("Positions off: each row is its original row, moved (changes at rounding level). Positions on: the same token at a new position computes something else.");
        let dims: Vec<String> = (0..a.original.ncols()).map(|c| c.to_string()).collect();
        let rows = |c: &Comparison, shuffled: bool| -> Vec<String> {
            (0..c.tokens.len())
                .map(|i| {
                    if shuffled {
                        c.tokens[i].clone()
                    } else {
                        c.tokens[c.perm.iter().position(|&p| p == i).unwrap_or(0)].clone()
                    }
                })
                .collect()
        };
        crate::app::widgets::fit::columns(ui, 4, 180.0, |cols| {
            let panels = [
                ("off: original", &a.original, rows(a, false)),
                ("off: shuffled", &a.shuffled, rows(a, true)),
                ("on: original", &b.original, rows(b, false)),
                ("on: shuffled", &b.shuffled, rows(b, true)),
            ];
            for (col, (name, m, labels)) in cols.iter_mut().zip(panels) {
                col.strong(format!("encoder output, {name}"));
                Heatmap {
                    axis_names: ("token", "dimension"),
                    context: name,
                    max_cell: 8.0,
                    ..Heatmap::new(
                        m.view(),
                        &labels,
                        &dims,
                        ColorScale::diverging_for(m.iter()),
                    )
                }
                .show(col);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_positions_outputs_permute_with_the_input() {
        let on = crate::model::builtin::load(MODEL).unwrap();
        let off = without_positions(&on);
        for seed in 1..5 {
            let c = compare(&off, "abcdefgh", seed).unwrap();
            assert!(c.row_change.iter().all(|&d| d < 1e-5), "{:?}", c.row_change);
            let c = compare(&on, "abcdefgh", seed).unwrap();
            assert!(c.row_change.iter().any(|&d| d > 0.1), "{:?}", c.row_change);
        }
    }

    #[test]
    fn shuffles_are_permutations_and_never_the_identity() {
        for n in 2..10 {
            let p = shuffle(n, 3);
            let mut s = p.clone();
            s.sort();
            assert_eq!(s, (0..n).collect::<Vec<_>>());
            assert!(p.iter().enumerate().any(|(i, &x)| i != x));
        }
        assert_eq!(shuffle(0, 1), Vec::<usize>::new());
    }
}
