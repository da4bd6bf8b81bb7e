//! `softmax(QKᵀ/√d_k)V`, one matrix at a time, for the selected layer and head, then the
//! rest of the block and the output layer. Every panel
//! after the first is computed from the panels before it with plain loops, so a test
//! can check that the chain a student follows lands exactly on the model's own trace.
//!
//! This file holds the chain's types and one query's weighted sum; `chain` builds the steps
//! up to W_O from `inputs`, `block` the steps after it, and `draw` shows them.

mod block;
mod chain;
mod draw;
mod inputs;

pub use chain::build;
pub use draw::show;

use ndarray::Array2;

/// One matrix on screen.
#[derive(Debug, Clone)]
pub struct Panel {
    pub name: String,
    pub matrix: Array2<f32>,
    pub rows: Vec<String>,
    pub cols: Vec<String>,
    /// Diverging colours around 0 (false: weights in [0, 1]).
    pub signed: bool,
    /// Cells to hatch (the attention mask), where it applies.
    pub mask: Option<Array2<bool>>,
    /// Rows are query tokens (so the selected query can be outlined).
    pub query_rows: bool,
}

/// One step of the walkthrough: a formula and the matrices it produces.
#[derive(Debug, Clone)]
pub struct Step {
    /// Its name, the same in every language: the code, the tests and the control names find
    /// a step by it. [`Step::label`] is what its chip shows.
    pub title: &'static str,
    pub formula: String,
    pub explain: String,
    pub panels: Vec<Panel>,
}

impl Step {
    /// The step's name on its chip: a formula's title as it is, a title in words in the
    /// reader's language.
    pub fn label(&self) -> String {
        match self.title {
            "+ mask" => crate::t!("attention-walk-title-mask"),
            "cross-attn" => crate::t!("attention-walk-title-cross-attn"),
            "final norm" => crate::t!("attention-walk-title-final-norm"),
            "memory" => crate::t!("attention-walk-title-memory"),
            "output" => crate::t!("attention-walk-title-output"),
            "MLM transform" => crate::t!("attention-walk-title-mlm"),
            "softmax (vocab)" => crate::t!("attention-walk-title-softmax-vocab"),
            formula => formula.to_string(),
        }
    }

    /// The display formula drawn above the step's matrices (`crate::app::formulas`), where
    /// the whole formula helps: the softmax, attention once A·V completes it, each norm.
    pub fn display(&self) -> Option<&'static str> {
        match self.title {
            "softmax" | "softmax (vocab)" => Some("softmax"),
            "A·V" => Some("attention"),
            "norm₁" | "norm₂" | "final norm" if self.formula.contains("mean(x²)") => {
                Some("rms-norm")
            }
            "norm₁" | "norm₂" | "final norm" => Some("layer-norm"),
            _ => None,
        }
    }
}

/// The whole chain for one head, plus the pieces the query breakdown needs.
#[derive(Debug, Clone)]
pub struct Chain {
    pub steps: Vec<Step>,
    /// `[T_q, T_k]` weights and `[T_k, h]` values of the head, and its output `[T_q, h]`.
    pub weights: Array2<f32>,
    pub values: Array2<f32>,
    pub head_out: Array2<f32>,
    pub key_tokens: Vec<String>,
    pub query_tokens: Vec<String>,
}

/// "o₂ = 0.71·v₃ + 0.20·v₁ + …": the weighted sum behind one query's output, largest terms first.
pub fn weighted_sum(chain: &Chain, query: usize) -> String {
    let Some(row) = chain.weights.outer_iter().nth(query) else {
        return String::new();
    };
    let mut terms: Vec<(usize, f32)> = row
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, a)| *a > 0.0)
        .collect();
    terms.sort_by(|a, b| b.1.total_cmp(&a.1));
    let shown: Vec<String> = terms
        .iter()
        .take(4)
        .map(|(j, a)| {
            format!(
                "{a:.2}·v{j}(“{}”)",
                chain.key_tokens.get(*j).map_or("?", |s| s.as_str())
            )
        })
        .collect();
    let more = if terms.len() > 4 {
        format!(
            " {}",
            crate::t!("attention-walk-sum-more", count = terms.len() - 4)
        )
    } else {
        String::new()
    };
    let out: Vec<String> = chain
        .head_out
        .row(query)
        .iter()
        .take(8)
        .map(|x| format!("{x:.3}"))
        .collect();
    format!(
        "o{query}(“{}”) = {}{more} = [{}{}]",
        chain.query_tokens.get(query).map_or("?", |s| s.as_str()),
        shown.join(" + "),
        out.join(", "),
        if chain.head_out.ncols() > 8 {
            ", …"
        } else {
            ""
        }
    )
}

/// What the walkthrough's tests share: the comparison and the models they walk.
#[cfg(test)]
pub(super) mod test_models {
    use crate::model::{builtin, ForwardOptions, Model, Trace};
    use ndarray::ArrayView2;

    /// The largest difference, relative to 1 + |b|: real checkpoints' values reach the
    /// hundreds, where f32 sums in another order differ in the fifth significant digit.
    pub fn max_diff(a: ArrayView2<f32>, b: ArrayView2<f32>) -> f32 {
        assert_eq!(a.dim(), b.dim());
        a.iter()
            .zip(b)
            .map(|(x, y)| {
                if x == y {
                    0.0
                } else {
                    (x - y).abs() / (1.0 + y.abs())
                }
            })
            .fold(0.0, f32::max)
    }

    /// Every shipped model with its example text, run at temperature `temperature`.
    pub fn shipped(temperature: f32) -> Vec<(Model, Trace)> {
        let names = [
            "translate",
            "reverse",
            "lm",
            "repeat",
            "demo-decoder",
            "demo-encoder",
        ];
        names
            .into_iter()
            .map(|name| {
                let model = builtin::load(name).unwrap();
                let info = builtin::info(name).unwrap();
                let prepared = model.prepare(info.example_source, info.example_target);
                let opts = ForwardOptions {
                    temperature,
                    ..Default::default()
                };
                let trace = model.forward(&prepared.input, &opts).unwrap();
                (model, trace)
            })
            .collect()
    }

    /// The real checkpoints in the model cache (MiniLM: post-norm BERT with learned positions
    /// and token types; SmolLM2: a Llama with RMSNorm, RoPE and grouped-query attention) on
    /// the English example.
    pub fn real() -> Vec<(Model, Trace)> {
        let checkpoints = [
            crate::util::real_models::minilm(),
            crate::util::real_models::smollm2(),
        ];
        checkpoints
            .into_iter()
            .flatten()
            .map(|path| {
                let (model, _) = crate::model::import::open::open_path(&path, &mut |_| {}).unwrap();
                let prepared = model.prepare(crate::app::workbench::ENGLISH_EXAMPLE, "");
                let trace = model
                    .forward(&prepared.input, &ForwardOptions::default())
                    .unwrap();
                (model, trace)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::labs::attention::Selection;
    use crate::model::{builtin, AttentionKind, ForwardOptions};

    #[test]
    fn the_weighted_sum_names_the_largest_terms() {
        let model = builtin::load("reverse").unwrap();
        let prepared = model.prepare("abcd", "dcba");
        let trace = model
            .forward(&prepared.input, &ForwardOptions::default())
            .unwrap();
        let sel = Selection {
            kind: AttentionKind::Cross,
            layer: 1,
            head: 0,
            query: 0,
        };
        let c = build(&model, &trace, &sel, 1.0).unwrap();
        let text = weighted_sum(&c, 1);
        assert!(text.starts_with("o1(“d”) = "), "{text}");
        let best = crate::util::argmax(c.weights.row(1).iter().copied())
            .unwrap()
            .0;
        assert!(text.contains(&format!("·v{best}(")), "{text}");
    }

    /// In English a chip reads as the step's title; in Spanish only the titles in words change.
    #[test]
    fn a_step_shows_its_title_translated_only_where_it_is_words() {
        use super::test_models::shipped;
        let before = crate::i18n::current();
        for (model, trace) in shipped(1.0) {
            for kind in trace.attention_kinds() {
                let sel = Selection {
                    kind,
                    layer: 0,
                    head: 0,
                    query: 0,
                };
                let c = build(&model, &trace, &sel, 1.0).unwrap();
                crate::i18n::set("en");
                for s in &c.steps {
                    assert_eq!(s.label(), s.title);
                }
                crate::i18n::set("es");
                for s in &c.steps {
                    let words = [
                        "+ mask",
                        "cross-attn",
                        "final norm",
                        "memory",
                        "output",
                        "MLM transform",
                        "softmax (vocab)",
                    ];
                    assert_eq!(
                        s.label() == s.title,
                        !words.contains(&s.title),
                        "{}",
                        s.title
                    );
                }
            }
        }
        crate::i18n::set(before);
    }
}
