//! Why positions are needed at all: reorder the input. Without positional encodings the
//! encoder's outputs are the same rows, reordered with it (self-attention is a set operation);
//! with them, every row changes. On a toy encoder the letters are shuffled; on
//! all-MiniLM-L6-v2 the student types two orders of the same words ("the dog bit the man",
//! "the man bit the dog") and sees whether the sentence vectors tell them apart.

use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::model::{ForwardOptions, Model, ModelInput, Positional};
use crate::util::rng::Rng;
use egui::Ui;
use ndarray::{Array2, Axis};
use std::sync::Arc;

pub const MODEL: &str = "extrap-sinusoidal";
/// The real encoder: BERT's learned positions, English word pieces.
pub const REAL_MODEL: &str = "all-MiniLM-L6-v2";

/// Which encoder the panel reorders the input of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoder {
    /// The toy: a letter-level encoder with sinusoidal positions; its input is shuffled.
    Toy,
    /// all-MiniLM-L6-v2: two orders of the same words, typed.
    Real,
}

pub struct PermutationPanel {
    pub text: String,
    pub seed: u64,
    pub encoder: Encoder,
    /// The real encoder's sentence and the same words in another order.
    pub sentence: String,
    pub reordered: String,
    toy: Option<Result<Arc<Model>, String>>,
    real: Option<Result<Arc<Model>, String>>,
    /// The model with its positions off, made once per model (a copy of its weights).
    off: Option<(String, Arc<Model>)>,
    /// Both comparisons (positions off, on) for the input they were made from.
    computed: Option<ComputedFor>,
}

type Key = (Encoder, String, String, u64);
type ComputedFor = (Key, Result<(Comparison, Comparison), String>);

impl Default for PermutationPanel {
    fn default() -> Self {
        Self {
            text: "abcdefgh".into(),
            seed: 1,
            encoder: Encoder::Toy,
            sentence: "the dog bit the man".into(),
            reordered: "the man bit the dog".into(),
            toy: None,
            real: None,
            off: None,
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

/// Per reordered row i (the token from original position perm[i]): the largest difference
/// between its encoder output in the reordered run and in the original run.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub tokens: Vec<String>,
    pub perm: Vec<usize>,
    pub original: Array2<f32>,
    pub shuffled: Array2<f32>,
    pub row_change: Vec<f32>,
    /// Cosine similarity of the two runs' sentence vectors (the mean of the output rows, as
    /// sentence-transformers pools all-MiniLM-L6-v2): 1 when the model cannot tell them apart.
    pub sentence_cosine: f32,
}

/// The toy's comparison: `text` against a seeded shuffle of its tokens.
pub fn compare(model: &Model, text: &str, seed: u64) -> Result<Comparison, String> {
    let ids = model.prepare(text, "").input;
    let perm = shuffle(ids.source.len(), seed);
    compare_orders(model, &ids, &perm)
}

/// `b` as a reordering of `a`: `perm` with `b[i] = a[perm[i]]` (equal tokens matched in
/// order), or `None` when `b` does not hold exactly the tokens of `a`.
pub fn reordering(a: &[u32], b: &[u32]) -> Option<Vec<usize>> {
    if a.len() != b.len() {
        return None;
    }
    let mut used = vec![false; a.len()];
    b.iter()
        .map(|t| {
            let j = (0..a.len()).find(|&j| !used[j] && a[j] == *t)?;
            used[j] = true;
            Some(j)
        })
        .collect()
}

/// The real encoder's comparison: `sentence` against `reordered`, the same word pieces in
/// another order.
pub fn compare_sentences(
    model: &Model,
    sentence: &str,
    reordered: &str,
) -> Result<Comparison, String> {
    let a = model.prepare(sentence, "").input;
    let b = model.prepare(reordered, "").input;
    let perm = reordering(&a.source, &b.source).ok_or_else(|| {
        crate::t!(
            "positions-perm-not-a-reordering",
            reordered = reordered,
            sentence = sentence
        )
    })?;
    compare_orders(model, &a, &perm)
}

/// Runs `ids` and its reordering by `perm` and compares every row with where it came from.
fn compare_orders(model: &Model, ids: &ModelInput, perm: &[usize]) -> Result<Comparison, String> {
    let mut shuffled = ids.clone();
    shuffled.source = perm.iter().map(|&i| ids.source[i]).collect();
    let run = |input| -> Result<Array2<f32>, String> {
        let t = model
            .forward(input, &ForwardOptions::default())
            .map_err(|e| e.to_string())?;
        t.encoder
            .map(|e| e.output)
            .ok_or_else(|| crate::t!("positions-perm-no-encoder"))
    };
    let (a, b) = (run(ids)?, run(&shuffled)?);
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
    let sentence_cosine = match (a.mean_axis(Axis(0)), b.mean_axis(Axis(0))) {
        (Some(u), Some(v)) => cosine(u.as_slice().unwrap_or(&[]), v.as_slice().unwrap_or(&[])),
        _ => 0.0,
    };
    Ok(Comparison {
        tokens: model.tokenizer.tokens(&shuffled.source),
        perm: perm.to_vec(),
        original: a,
        shuffled: b,
        row_change,
        sentence_cosine,
    })
}

/// u·v / (|u| |v|), in f64 so that equal vectors give 1 to the digits shown.
fn cosine(u: &[f32], v: &[f32]) -> f32 {
    let dot: f64 = u.iter().zip(v).map(|(x, y)| *x as f64 * *y as f64).sum();
    let norm = |w: &[f32]| w.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    (dot / (norm(u) * norm(v)).max(f64::MIN_POSITIVE)) as f32
}

/// The same weights with the positional encoding switched off (sinusoidal has no parameters,
/// so nothing else changes).
pub fn without_positions(model: &Model) -> Model {
    let mut m = model.clone();
    m.config.positional = Positional::None;
    m
}

impl PermutationPanel {
    pub fn ui(&mut self, ui: &mut Ui, store: &crate::app::models::store::ModelStore) {
        ui.horizontal_wrapped(|ui| {
            ui.label(crate::t!("positions-perm-encoder"));
            ui.radio_value(
                &mut self.encoder,
                Encoder::Toy,
                crate::t!("positions-perm-toy", model = MODEL),
            );
            ui.radio_value(
                &mut self.encoder,
                Encoder::Real,
                crate::t!("positions-perm-real", model = REAL_MODEL),
            );
        });
        let (name, slot) = match self.encoder {
            Encoder::Toy => (MODEL, &mut self.toy),
            Encoder::Real => (REAL_MODEL, &mut self.real),
        };
        let on = match store.keep(slot, name) {
            Ok(m) => m.clone(),
            Err(e) if store.is_loading(name) => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label(e.as_str());
                });
                return;
            }
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e.as_str());
                return;
            }
        };
        match self.encoder {
            Encoder::Toy => {
                ui.label(crate::t!("positions-perm-toy-about", model = MODEL));
                ui.horizontal_wrapped(|ui| {
                    let l = ui.label(crate::t!("positions-perm-input"));
                    ui.add(egui::TextEdit::singleline(&mut self.text).desired_width(200.0))
                        .labelled_by(l.id);
                    if ui.button(crate::t!("positions-perm-shuffle")).clicked() {
                        self.seed += 1;
                    }
                });
            }
            Encoder::Real => {
                ui.label(crate::t!("positions-perm-real-about", model = REAL_MODEL));
                for (label, text) in [
                    (crate::t!("positions-perm-sentence"), &mut self.sentence),
                    (crate::t!("positions-perm-reordered"), &mut self.reordered),
                ] {
                    ui.horizontal(|ui| {
                        let l = ui.label(label);
                        ui.add(egui::TextEdit::singleline(text).desired_width(260.0))
                            .labelled_by(l.id);
                    });
                }
            }
        }
        // Four forward passes: only when the input changes.
        let key = match self.encoder {
            Encoder::Toy => (Encoder::Toy, self.text.clone(), String::new(), self.seed),
            Encoder::Real => (
                Encoder::Real,
                self.sentence.clone(),
                self.reordered.clone(),
                0,
            ),
        };
        if self.computed.as_ref().is_none_or(|(k, _)| *k != key) {
            // The copy without positions is made once per model.
            if self.off.as_ref().is_none_or(|(n, _)| n != name) {
                self.off = Some((name.to_string(), Arc::new(without_positions(&on))));
            }
            let off = self
                .off
                .as_ref()
                .map(|(_, m)| m.clone())
                .unwrap_or(on.clone());
            let run = |m: &Model| match self.encoder {
                Encoder::Toy => compare(m, &self.text, self.seed),
                Encoder::Real => compare_sentences(m, &self.sentence, &self.reordered),
            };
            let both = run(&off).and_then(|a| Ok((a, run(&on)?)));
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
        ui.strong(crate::t!(
            "positions-perm-cosines",
            off = format!("{:.4}", a.sentence_cosine),
            on = format!("{:.4}", b.sentence_cosine),
        ));
        let order: Vec<String> = a.perm.iter().map(|i| i.to_string()).collect();
        ui.label(crate::t!("positions-perm-order", order = order.join(" ")));
        egui::Grid::new("permutation_rows")
            .striped(true)
            .show(ui, |ui| {
                for h in [
                    crate::t!("positions-perm-col-row"),
                    crate::t!("positions-perm-col-token"),
                    crate::t!("positions-perm-col-from"),
                    crate::t!("positions-perm-col-change-off"),
                    crate::t!("positions-perm-col-change-on"),
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
        ui.label(crate::t!("positions-perm-conclusion"));
        // A real model's 384 dimensions would be slivers: the first 64 are drawn.
        let width = a.original.ncols().min(64);
        if width < a.original.ncols() {
            ui.weak(crate::t!(
                "positions-perm-dimensions-drawn",
                last = width - 1,
                all = a.original.ncols(),
            ));
        }
        let dims: Vec<String> = (0..width).map(|c| c.to_string()).collect();
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
        let (token, dimension) = (
            crate::t!("positions-perm-col-token"),
            crate::t!("positions-axis-dimension"),
        );
        crate::app::widgets::fit::columns(ui, 4, 180.0, |cols| {
            let panels = [
                (
                    crate::t!("positions-perm-off-original"),
                    &a.original,
                    rows(a, false),
                ),
                (
                    crate::t!("positions-perm-off-reordered"),
                    &a.shuffled,
                    rows(a, true),
                ),
                (
                    crate::t!("positions-perm-on-original"),
                    &b.original,
                    rows(b, false),
                ),
                (
                    crate::t!("positions-perm-on-reordered"),
                    &b.shuffled,
                    rows(b, true),
                ),
            ];
            for (col, (name, m, labels)) in cols.iter_mut().zip(panels) {
                let m = m.slice(ndarray::s![.., ..width]);
                col.strong(crate::t!("positions-perm-output", run = &name));
                Heatmap {
                    axis_names: (&token, &dimension),
                    context: &name,
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
    fn reorderings_match_equal_tokens_in_order() {
        assert_eq!(
            reordering(&[1, 2, 3, 1], &[1, 3, 2, 1]),
            Some(vec![0, 2, 1, 3])
        );
        assert_eq!(reordering(&[1, 2], &[1, 1]), None);
        assert_eq!(reordering(&[1, 2], &[1, 2, 3]), None);
    }

    /// On all-MiniLM-L6-v2 (when cached): without positions "the dog bit the man" and "the man
    /// bit the dog" are one sentence vector and every word's output only moves; with them the
    /// vectors differ.
    #[test]
    fn the_real_encoder_cannot_tell_who_bit_whom_without_positions() {
        let Some(path) = crate::util::real_models::minilm() else {
            return;
        };
        let (on, _) = crate::model::import::open::open_path(&path, &mut |_| {}).unwrap();
        let off = without_positions(&on);
        let a = compare_sentences(&off, "the dog bit the man", "the man bit the dog").unwrap();
        assert!(a.row_change.iter().all(|&d| d < 1e-4), "{:?}", a.row_change);
        assert!(a.sentence_cosine > 0.99999, "{}", a.sentence_cosine);
        let b = compare_sentences(&on, "the dog bit the man", "the man bit the dog").unwrap();
        assert!(b.sentence_cosine < 0.99, "{}", b.sentence_cosine);
        assert!(b.row_change.iter().any(|&d| d > 0.1), "{:?}", b.row_change);
        assert!(compare_sentences(&on, "the dog bit the man", "a cat bit the man").is_err());
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
