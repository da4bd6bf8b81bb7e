//! Induction on real tokens: a random sequence of words, repeated. In the first copy nothing
//! can be predicted; in the second, a model with induction heads ("after A came B last time")
//! copies the next token from the first copy, so its loss drops, and those heads attend from
//! each token to the one that followed its earlier occurrence.

use super::analysis::induction_score;
use super::error::{ModelError, Result};
use super::softmax::log_sum_exp;
use super::tokenizer::TokenizerKind;
use super::{AttentionKind, ForwardOptions, Model, Trace};
use crate::util::rng::Rng;
use serde::Serialize;

/// A repeated random sequence run through a decoder.
#[derive(Debug, Clone, Serialize)]
pub struct InductionRun {
    /// The ids fed to the model: the model's start token if it has one, then the random part
    /// twice.
    pub ids: Vec<u32>,
    pub tokens: Vec<String>,
    /// Where the first copy starts, and its length (the period of the repeat).
    pub start: usize,
    pub period: usize,
    /// `loss[i]` = −ln p(ids[i+1] | ids[..=i]), in nats, for every position but the last.
    pub loss: Vec<f32>,
    /// Mean loss predicting tokens of the first copy, and of the second.
    pub first_half: f32,
    pub second_half: f32,
    /// `scores[layer][head]`: `analysis::induction_score`, the attention each query of the
    /// second copy pays to the token after its earlier occurrence.
    pub scores: Vec<Vec<f32>>,
}

impl InductionRun {
    /// The head with the highest induction score: (layer, head, score).
    pub fn best_head(&self) -> Option<(usize, usize, f32)> {
        self.ranked().into_iter().next()
    }

    /// Every head as (layer, head, score), the highest score first (the earliest head on a
    /// tie).
    pub fn ranked(&self) -> Vec<(usize, usize, f32)> {
        let mut heads: Vec<(usize, usize, f32)> = self
            .scores
            .iter()
            .enumerate()
            .flat_map(|(l, row)| row.iter().enumerate().map(move |(h, &s)| (l, h, s)))
            .collect();
        heads.sort_by(|a, b| b.2.total_cmp(&a.2));
        heads
    }
}

/// How many of the first ids of a vocabulary random words are drawn from.
const COMMON: usize = 8192;

/// The ids random sequences are drawn from: whole words (a piece that starts with a space and
/// has at least three letters) for a sub-word model, so the sequence reads as words; any
/// ordinary token for Glimpse's own tokenizers.
pub fn word_ids(model: &Model) -> Vec<u32> {
    let tok = &model.tokenizer;
    let specials = tok.specials();
    let special = |id: u32| match tok.as_subword() {
        Some(t) => t.is_special(id),
        None => [specials.pad, specials.bos, specials.eos, specials.unk].contains(&Some(id)),
    };
    // BPE merges frequent pairs first, so low ids are common words; the first 8,192 ids keep
    // the words familiar (all of a small vocabulary).
    (0..tok.vocab_size().min(COMMON) as u32)
        .filter(|&id| !special(id))
        .filter(|&id| {
            let piece = tok.token(id);
            match tok.kind() {
                TokenizerKind::Subword => {
                    let word = piece.strip_prefix(' ').unwrap_or("");
                    word.len() >= 3 && word.chars().all(|c| c.is_ascii_alphabetic())
                }
                _ => !piece.trim().is_empty(),
            }
        })
        .collect()
}

/// The model's start (if any) and `len` random word tokens drawn with `seed`, twice; and where
/// the first copy starts.
pub fn repeated_ids(model: &Model, len: usize, seed: u64) -> Result<(Vec<u32>, usize)> {
    if !model.config.family.has_decoder() || model.config.family.has_encoder() {
        return Err(ModelError::Input(
            "induction needs a decoder-only model: it predicts each next token from the ones \
             before it"
                .into(),
        ));
    }
    let pool = word_ids(model);
    if pool.is_empty() || len < 2 {
        return Err(ModelError::Input(
            "induction needs at least two random tokens from a vocabulary of words".into(),
        ));
    }
    let mut rng = Rng::new(seed);
    let part: Vec<u32> = (0..len).map(|_| pool[rng.below(pool.len())]).collect();
    // Whatever the model puts before any text: <bos> for Glimpse's decoders and Llama 2,
    // nothing for GPT-2 or SmolLM2.
    let mut ids = model.prepare("", "").input.target;
    let start = ids.len();
    ids.extend(&part);
    ids.extend(&part);
    if ids.len() > model.config.max_len {
        return Err(ModelError::TooLong {
            len: ids.len(),
            max: model.config.max_len,
        });
    }
    Ok((ids, start))
}

/// What the model's forward pass `trace` on `ids` (from [`repeated_ids`]) says about induction.
pub fn measure(model: &Model, ids: Vec<u32>, start: usize, trace: &Trace) -> InductionRun {
    let len = (ids.len() - start) / 2;
    let loss: Vec<f32> = (0..ids.len().saturating_sub(1))
        .map(|i| {
            let row = trace.logits.row(i);
            // −ln softmax(z)_y = logsumexp(z) − z_y
            let log_sum = log_sum_exp(row.iter().map(|&z| z as f64));
            let y = ids[i + 1] as usize;
            (log_sum - row.get(y).map_or(f64::NEG_INFINITY, |&z| z as f64)) as f32
        })
        .collect();
    // Position i predicts ids[i + 1]: the first copy is predicted from positions
    // start .. start + len − 1 (its first token cannot be), the second from start + len − 1 on.
    let mean = |r: std::ops::Range<usize>| {
        let r = r.start.min(loss.len())..r.end.min(loss.len());
        let n = r.len().max(1) as f32;
        loss[r].iter().sum::<f32>() / n
    };
    let first_half = mean(start..(start + len).saturating_sub(1));
    let second_half = mean(start + len..ids.len().saturating_sub(1));
    let kind = AttentionKind::DecoderSelf;
    let scores = (0..trace.layers(kind))
        .filter_map(|l| trace.weights(kind, l))
        .map(|w| {
            w.outer_iter()
                .map(|h| induction_score(h, start, len))
                .collect()
        })
        .collect();
    InductionRun {
        tokens: model.tokenizer.tokens(&ids),
        ids,
        start,
        period: len,
        loss,
        first_half,
        second_half,
        scores,
    }
}

/// Run `model` on `len` random word tokens (drawn with `seed`), repeated once.
pub fn repeated_random(model: &Model, len: usize, seed: u64) -> Result<InductionRun> {
    let (ids, start) = repeated_ids(model, len, seed)?;
    let input = model.input_from_ids(ids.clone(), vec![]);
    let trace = model.forward(&input, &ForwardOptions::default())?;
    Ok(measure(model, ids, start, &trace))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builtin;

    #[test]
    fn the_repeat_model_predicts_the_second_copy() {
        // Trained on repeated random sequences: a previous-token head and an induction head.
        let m = builtin::load("repeat").unwrap();
        let run = repeated_random(&m, 8, 3).unwrap();
        assert_eq!(run.ids.len(), 1 + 16);
        assert_eq!(run.ids[1..9], run.ids[9..17]);
        assert_eq!(run.loss.len(), run.ids.len() - 1);
        assert!(run.loss.iter().all(|x| x.is_finite() && *x >= 0.0));
        assert!(
            run.second_half < 0.5 * run.first_half,
            "{} vs {}",
            run.second_half,
            run.first_half
        );
        let (layer, _, score) = run.best_head().unwrap();
        assert_eq!(layer, 1, "the induction head sits in the second layer");
        assert!(score > 0.5, "{score}");
    }

    #[test]
    fn the_loss_is_the_cross_entropy_of_each_next_token() {
        let m = builtin::load("lm").unwrap();
        let run = repeated_random(&m, 5, 1).unwrap();
        let input = m.input_from_ids(run.ids.clone(), vec![]);
        let trace = m.forward(&input, &ForwardOptions::default()).unwrap();
        for (i, &l) in run.loss.iter().enumerate() {
            let row = trace.logits.row(i);
            let z: f64 = row.iter().map(|&x| (x as f64).exp()).sum();
            let p = (row[run.ids[i + 1] as usize] as f64).exp() / z;
            assert!((l as f64 + p.ln()).abs() < 1e-4, "position {i}");
        }
    }

    #[test]
    fn encoders_and_impossible_lengths_are_refused() {
        let enc = builtin::load("demo-encoder").unwrap();
        assert!(repeated_random(&enc, 5, 1).is_err());
        let dec = builtin::load("lm").unwrap();
        assert!(repeated_random(&dec, 1, 1).is_err());
        assert!(matches!(
            repeated_random(&dec, 1000, 1),
            Err(ModelError::TooLong { .. })
        ));
    }
}
