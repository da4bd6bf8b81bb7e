//! The walkthrough's last steps over the vocabulary: the output layer's logits for the words
//! worth showing, and the softmax over every word.

use super::{panel, Place};
use crate::app::labs::attention::walkthrough::chain::numbered;
use crate::app::labs::attention::walkthrough::inputs::project_view;
use crate::app::labs::attention::walkthrough::{Panel, Step};
use crate::model::layers::activate;
use crate::model::Trace;
use crate::t;
use glimpse_kernels::rows::log_sum_exp_row;
use ndarray::{Array2, ArrayView2};

/// At most this many vocabulary columns are shown of the logits and probabilities.
pub(super) const SHOWN_WORDS: usize = 12;

impl Place<'_> {
    /// logits = h·W_vocabᵀ + b, and p = softmax(logits) over the whole vocabulary.
    pub(super) fn output_layer(&self, trace: &Trace, mut h: Array2<f32>, later: &str) -> Vec<Step> {
        let model = self.model;
        let cfg = &model.config;
        let w = &model.weights;
        let mut steps = Vec::new();
        let dn = numbered("", cfg.d_model);
        if let Some(t) = &w.mlm {
            let z = project_view(h.view(), t.w.view(), &t.b, 0..t.w.nrows());
            let act = z.mapv(|v| activate(v, cfg.activation));
            let (mut step, y) = self.norm_step(
                "MLM transform",
                &t!("attention-walk-mlm-what"),
                act.view(),
                &t.norm,
            );
            step.explain = t!("attention-walk-mlm-explain", explain = &step.explain);
            h = y;
            steps.push(step);
        }
        let logits = &trace.logits;
        let vocab = logits.ncols();
        let words = shown_words(logits.view());
        let names: Vec<String> = words
            .iter()
            .map(|&i| format!("“{}”", model.tokenizer.token(i as u32)))
            .collect();
        let out_rows: Vec<_> = words.iter().map(|&v| w.output_matrix().row(v)).collect();
        let bias = w.lm_bias.as_ref();
        // Only the shown columns are recomputed; the softmax needs every logit of a row.
        let shown_logits = Array2::from_shape_fn((h.nrows(), words.len()), |(t, c)| {
            let row = &out_rows[c];
            bias.map_or(0.0, |b| b[words[c]])
                + (0..h.ncols()).map(|i| h[[t, i]] * row[i]).sum::<f32>()
        });
        let rows_of = Array2::from_shape_fn((words.len(), cfg.d_model), |(c, i)| out_rows[c][i]);
        let tied = cfg.tie_embeddings || w.lm_head.is_none();
        let matrix_name = if tied {
            t!("attention-walk-panel-vocab-tied")
        } else {
            t!("attention-walk-panel-vocab")
        };
        let tying = if tied {
            t!("attention-walk-tied", vocab = vocab, d = cfg.d_model)
        } else {
            t!("attention-walk-not-tied", vocab = vocab, d = cfg.d_model)
        };
        steps.push(Step {
            title: "logits",
            formula: t!(
                "attention-walk-logits-formula",
                bias = if bias.is_some_and(|b| b.iter().any(|v| *v != 0.0)) {
                    " + b"
                } else {
                    ""
                },
                rows = h.nrows(),
                vocab = vocab,
                shown = words.len()
            ),
            explain: t!(
                "attention-walk-logits-explain",
                later = later,
                tying = tying
            ),
            panels: vec![
                panel("h", h.clone(), self.tokens, dn.clone()),
                Panel {
                    query_rows: false,
                    ..panel(&matrix_name, rows_of, &names, dn)
                },
                panel("logits", shown_logits, self.tokens, names.clone()),
            ],
        });
        // pᵢ = exp(lᵢ − log Σⱼ exp(lⱼ)), the sum over runs of 1024 terms added in f64
        // (glimpse_kernels::rows): a running f32 sum over 49,152 terms drifts by 10⁻⁴.
        let log_z: Vec<f64> = logits
            .rows()
            .into_iter()
            .map(|row| log_sum_exp_row(&row.to_vec()))
            .collect();
        let probs = Array2::from_shape_fn((logits.nrows(), words.len()), |(t, c)| {
            (f64::from(logits[[t, words[c]]]) - log_z[t]).exp() as f32
        });
        let best: Vec<String> = (0..logits.nrows().min(8))
            .filter_map(|t| {
                let (i, _) = crate::util::argmax_row(logits.row(t))?;
                Some(format!(
                    "{} → {}",
                    self.tokens.get(t).map_or("?", String::as_str),
                    model.tokenizer.token(i as u32)
                ))
            })
            .collect();
        let reading = if cfg.family.has_decoder() {
            t!("attention-walk-reading-next")
        } else {
            t!("attention-walk-reading-blanks")
        };
        steps.push(Step {
            title: "softmax (vocab)",
            formula: t!("attention-walk-vocab-formula", vocab = vocab),
            explain: t!(
                "attention-walk-vocab-explain",
                reading = reading,
                best = format!(
                    "{}{}",
                    best.join(", "),
                    if logits.nrows() > 8 { ", …" } else { "" }
                )
            ),
            panels: vec![Panel {
                signed: false,
                ..panel("p", probs, self.tokens, names)
            }],
        });
        steps
    }
}

/// The vocabulary columns worth showing: every row's most likely token, then the tokens with
/// the largest logit anywhere, up to [`SHOWN_WORDS`] (more when the rows' winners alone are
/// more).
pub(super) fn shown_words(logits: ArrayView2<f32>) -> Vec<usize> {
    let mut words: Vec<usize> = Vec::new();
    for row in logits.rows() {
        if let Some((i, _)) = crate::util::argmax_row(row) {
            if !words.contains(&i) {
                words.push(i);
            }
        }
    }
    // Each word's largest logit over the rows, read row by row (the rows are contiguous).
    let mut best = vec![f32::NEG_INFINITY; logits.ncols()];
    for row in logits.rows() {
        for (m, &l) in best.iter_mut().zip(row.iter()) {
            *m = m.max(l);
        }
    }
    let mut best_anywhere: Vec<(usize, f32)> = best.into_iter().enumerate().collect();
    // Largest first, ties by id; only the first few are needed, so they are selected before
    // sorting (the whole vocabulary sorted took 18 ms in the browser).
    let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    let needed = (SHOWN_WORDS + words.len()).min(best_anywhere.len());
    if needed < best_anywhere.len() {
        best_anywhere.select_nth_unstable_by(needed, order);
        best_anywhere.truncate(needed);
    }
    best_anywhere.sort_unstable_by(order);
    for (j, _) in best_anywhere {
        if words.len() >= SHOWN_WORDS {
            break;
        }
        if !words.contains(&j) {
            words.push(j);
        }
    }
    words
}
