//! Fill in the blank with a masked-language model (BERT's pre-training task): the probability
//! of every vocabulary token at each `[MASK]`, p = softmax(logits at that position), read from
//! one forward pass over the whole sentence, both directions at once.

use super::config::OutputHead;
use super::softmax::softmax;
use super::{ForwardOptions, Model, ModelInput, Trace};
use serde::Serialize;
use std::borrow::Borrow;

/// One token the model proposes for a blank.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    pub id: u32,
    pub token: String,
    pub probability: f32,
}

/// A blank in the input and the model's best guesses for it, most likely first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MaskSlot {
    /// Position of the mask token among the input's tokens.
    pub position: usize,
    pub candidates: Vec<Candidate>,
}

/// The mask token a model writes (`[MASK]`, `<mask>`), when it has one and a masked-LM head.
pub fn mask_token(model: &Model) -> Result<String, String> {
    let Some(mask) = model.tokenizer.specials().mask else {
        return Err(format!(
            "{} has no mask token: fill-mask needs a masked-language model such as BERT",
            model.config.name
        ));
    };
    // BERT's head transforms h before the tied matrix; Glimpse's own masked models (trained
    // by `glimpse train-lm --masked`) read logits = h·W_embᵀ straight off the encoder.
    let encoder_lm = model.config.family == crate::model::Family::Encoder
        && model.config.extensions.output == OutputHead::Lm;
    if model.config.extensions.output != OutputHead::MaskedLm && !encoder_lm {
        return Err(format!(
            "{} has no masked-language-model head (its checkpoint has no cls.predictions.* \
             tensors; sentence-embedding models such as all-MiniLM-L6-v2 drop it)",
            model.config.name
        ));
    }
    Ok(model.tokenizer.token(mask).to_string())
}

/// The `top` most likely tokens at every mask token of `input`.
pub fn fill_mask(model: &Model, input: &str, top: usize) -> Result<Vec<MaskSlot>, String> {
    fill_mask_with(model, input, top, |i| {
        model
            .forward(i, &ForwardOptions::default())
            .map_err(|e| e.to_string())
    })
}

/// The same, with the forward pass (default options) run by `run`: the app's model store,
/// which memoises it and runs a large model's a slice a frame.
pub fn fill_mask_with<T: Borrow<Trace>>(
    model: &Model,
    input: &str,
    top: usize,
    run: impl FnOnce(&ModelInput) -> Result<T, String>,
) -> Result<Vec<MaskSlot>, String> {
    let shown = mask_token(model)?;
    let mask = model.tokenizer.specials().mask;
    let prepared = model.prepare(input, "");
    let ids = &prepared.input.source;
    let positions: Vec<usize> = (0..ids.len()).filter(|&i| Some(ids[i]) == mask).collect();
    if positions.is_empty() {
        return Err(format!("the text has no {shown} to fill in"));
    }
    let trace = run(&prepared.input)?;
    let trace: &Trace = trace.borrow();
    Ok(positions
        .iter()
        .map(|&position| {
            let p = softmax(&trace.logits.row(position).to_vec());
            let mut order: Vec<usize> = (0..p.len()).collect();
            order.sort_by(|&a, &b| p[b].total_cmp(&p[a]));
            let candidates = order
                .into_iter()
                .take(top.max(1))
                .map(|i| Candidate {
                    id: i as u32,
                    token: model.tokenizer.token(i as u32).to_string(),
                    probability: p[i],
                })
                .collect();
            MaskSlot {
                position,
                candidates,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bert_mlm() -> Model {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hf/bert-mlm");
        crate::model::import::open::open_path(&dir, &mut |_| {})
            .unwrap()
            .0
    }

    /// The candidates are the softmax of the logits at the mask, in order, summing to at most 1.
    #[test]
    fn candidates_are_the_softmax_at_each_mask() {
        let model = bert_mlm();
        let mask = mask_token(&model).unwrap();
        let text = format!("the cat sat on the {mask} .");
        let slots = fill_mask(&model, &text, 5).unwrap();
        assert_eq!(slots.len(), 1);
        let c = &slots[0].candidates;
        assert_eq!(c.len(), 5);
        assert!(c.windows(2).all(|w| w[0].probability >= w[1].probability));
        let prepared = model.prepare(&text, "");
        let trace = model.forward(&prepared.input, &Default::default()).unwrap();
        let row = trace.logits.row(slots[0].position).to_vec();
        let best = crate::util::argmax(row.iter().copied()).unwrap().0;
        assert_eq!(c[0].id as usize, best);
        let p = softmax(&row);
        assert!((c[0].probability - p[best]).abs() < 1e-7);
        let e = fill_mask(&model, "no blank here", 5).unwrap_err();
        assert!(e.contains(&mask), "{e}");
    }
}
