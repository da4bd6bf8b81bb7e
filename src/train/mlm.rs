//! Masked-language modelling, BERT's pre-training task (issue 22, item 9): pick a share of a
//! window's tokens, hide them, and train an encoder that reads both directions to say what was
//! there. Also the held-out score of such a model and of the baselines on the same picks.
//!
//! Corruption (BERT's): each token is picked with probability `rate`; a picked token becomes
//! `<mask>` 80 % of the time, a random token 10 %, and stays itself 10 % (so the model cannot
//! learn that only `<mask>` positions matter). The loss is the cross-entropy at the picked
//! positions only: `L = −(1/|P|) Σ_{i∈P} ln p(x_i | x̃)`.

use super::backward::Example;
use super::lm::{unigram_probabilities, KneserNeyBigram, Perplexity};
use crate::model::softmax::log_sum_exp;
use crate::model::weights::TensorMap;
use crate::model::{ForwardOptions, Model, ModelError, ModelInput, Result};
use crate::util::rng::Rng;
use serde::{Deserialize, Serialize};

/// The masked token every training and test sentence uses (RoBERTa's spelling). It absorbs the
/// space before it (`lstrip`), so "the <mask> of" hides the token " state", space included,
/// exactly as training hid it.
pub const MASK_TOKEN: &str = "<mask>";

/// How a window is corrupted: the ids to draw random replacements from and the mask's id.
#[derive(Debug, Clone, Copy)]
pub struct Masking {
    pub rate: f32,
    pub mask_id: u32,
    /// Random replacements are drawn from `0..vocab` (the ids before the mask token).
    pub vocab: usize,
}

/// The corruption for `model`: it must read both directions and have a `<mask>` token;
/// random replacements are the ordinary tokens before it.
pub fn masking_of(model: &Model, rate: f32) -> Result<Masking> {
    let bad = |m: String| Err(ModelError::Config(m));
    if model.config.family != crate::model::Family::Encoder || model.config.causal {
        return bad(format!(
            "the masked objective trains an encoder that reads both directions; {} is a {:?}",
            model.config.name, model.config.family
        ));
    }
    let Some(mask_id) = model.tokenizer.specials().mask else {
        return bad(format!("{} has no {MASK_TOKEN} token", model.config.name));
    };
    Ok(Masking {
        rate,
        mask_id,
        vocab: mask_id as usize,
    })
}

/// `ids[start..start+n]` corrupted BERT's way; labels are the original tokens, counted only
/// where picked. At least one token is picked, so every window teaches something.
pub fn masked_window(ids: &[u32], start: usize, n: usize, m: Masking, rng: &mut Rng) -> Example {
    let labels = ids[start..start + n].to_vec();
    let mut picked: Vec<bool> = (0..n).map(|_| rng.uniform() < m.rate as f64).collect();
    if !picked.contains(&true) {
        picked[rng.below(n)] = true;
    }
    let mut source = labels.clone();
    for (i, _) in picked.iter().enumerate().filter(|(_, &p)| p) {
        let r = rng.uniform();
        if r < 0.8 {
            source[i] = m.mask_id;
        } else if r < 0.9 {
            source[i] = rng.below(m.vocab) as u32;
        }
    }
    Example {
        input: ModelInput {
            source,
            ..Default::default()
        },
        labels,
        loss_mask: picked,
    }
}

/// The held-out test: the stream cut into windows of `n` that do not overlap, each corrupted
/// with one seeded generator, so every model and baseline is scored on the same picks.
pub fn held_out_examples(ids: &[u32], n: usize, m: Masking, seed: u64) -> Vec<Example> {
    let mut rng = Rng::new(seed);
    let n = n.min(ids.len()).max(1);
    (0..ids.len() / n)
        .map(|w| masked_window(ids, w * n, n, m, &mut rng))
        .collect()
}

/// What a masked-token evaluation measured.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MaskedScore {
    /// `exp` of the mean negative log-likelihood of the picked tokens.
    #[serde(flatten)]
    pub perplexity: Perplexity,
    /// Share of picked tokens whose most likely candidate is the original.
    pub top1_accuracy: f64,
}

/// A model's score on the picked tokens of `examples`.
pub fn score(model: &Model, examples: &[Example]) -> Result<MaskedScore> {
    let one = |ex: &Example| -> Result<(f64, usize, usize)> {
        let logits = model.forward_logits(&ex.input, &ForwardOptions::default())?;
        let (mut nats, mut count, mut right) = (0.0, 0, 0);
        for (i, _) in ex.loss_mask.iter().enumerate().filter(|(_, &p)| p) {
            let row = logits.row(i);
            let label = ex.labels[i] as usize;
            // −ln softmax(z)_y = logsumexp(z) − z_y
            nats += log_sum_exp(row.iter().map(|&z| z as f64)) - row[label] as f64;
            count += 1;
            let best = crate::util::argmax(row.iter().copied()).map(|(i, _)| i);
            right += (best == Some(label)) as usize;
        }
        Ok((nats, count, right))
    };
    #[cfg(not(target_arch = "wasm32"))]
    let parts: Vec<Result<(f64, usize, usize)>> = {
        use rayon::prelude::*;
        examples.par_iter().map(one).collect()
    };
    #[cfg(target_arch = "wasm32")]
    let parts: Vec<Result<(f64, usize, usize)>> = examples.iter().map(one).collect();
    let (mut nats, mut count, mut right) = (0.0, 0, 0);
    for p in parts {
        let (a, c, r) = p?;
        nats += a;
        count += c;
        right += r;
    }
    Ok(MaskedScore {
        perplexity: Perplexity::from_total(nats, count),
        top1_accuracy: right as f64 / count.max(1) as f64,
    })
}

/// Baselines on the same picked tokens: the add-one unigram `p(w) = (c(w)+1)/(N+V)` and the
/// Kneser–Ney bigram from the left neighbour alone, `p(w | x_{i−1})` (the original
/// neighbour, as the n-gram never sees the corruption). Returns (unigram, bigram).
pub fn baselines(
    train: &[u32],
    vocab: usize,
    bigram: &KneserNeyBigram,
    examples: &[Example],
) -> (Perplexity, Perplexity) {
    let unigram = unigram_probabilities(train, vocab);
    let (mut uni, mut bi, mut count) = (0.0, 0.0, 0);
    for ex in examples {
        for (i, _) in ex.loss_mask.iter().enumerate().filter(|(_, &p)| p) {
            let w = ex.labels[i];
            uni -= unigram[w as usize].ln();
            bi -= match i.checked_sub(1) {
                Some(j) => bigram.prob(ex.labels[j], w).ln(),
                None => bigram.continuation(w).ln(),
            };
            count += 1;
        }
    }
    (
        Perplexity::from_total(uni, count),
        Perplexity::from_total(bi, count),
    )
}

/// Start a model from another's weights (continued pre-training): every tensor of `init` is
/// copied into `tensors` under the same name (a decoder's `dec.` blocks into an encoder's
/// `enc.` ones); a vocabulary-sized tensor may have gained rows (the new `<mask>`), which keep
/// their fresh values. Any other difference in names or shapes is an error.
pub fn start_from(tensors: &mut TensorMap, init: &Model) -> Result<usize> {
    let mismatch = |m: String| Err(ModelError::Config(format!("--init: {m}")));
    let mut copied = 0;
    for (name, from) in init.weights.to_tensors() {
        let target = match name.strip_prefix("dec.") {
            Some(rest) if !tensors.contains_key(&name) => format!("enc.{rest}"),
            _ => name.clone(),
        };
        let Some(to) = tensors.get_mut(&target) else {
            return mismatch(format!("the new model has no tensor for `{name}`"));
        };
        let (a, b) = (from.shape(), to.shape());
        // A vocabulary-sized tensor (embedding rows, output bias) may have grown along axis 0.
        let grown = a.len() == b.len() && a[0] <= b[0] && a[1..] == b[1..];
        if !grown {
            return mismatch(format!("`{name}` is {a:?} there and {b:?} here"));
        }
        to.slice_axis_mut(ndarray::Axis(0), ndarray::Slice::from(0..a[0]))
            .assign(&from);
        copied += 1;
    }
    Ok(copied)
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: Masking = Masking {
        rate: 0.15,
        mask_id: 99,
        vocab: 50,
    };

    #[test]
    fn corruption_follows_berts_proportions() {
        let ids: Vec<u32> = (0..200_000).map(|i| (i % 50) as u32).collect();
        let ex = masked_window(&ids, 0, ids.len(), M, &mut Rng::new(7));
        let picked: Vec<usize> = (0..ids.len()).filter(|&i| ex.loss_mask[i]).collect();
        let share = |n: usize, of: usize| n as f64 / of as f64;
        assert!((share(picked.len(), ids.len()) - 0.15).abs() < 0.005);
        let masked = picked.iter().filter(|&&i| ex.input.source[i] == 99).count();
        let kept = picked
            .iter()
            .filter(|&&i| ex.input.source[i] == ids[i])
            .count();
        assert!((share(masked, picked.len()) - 0.8).abs() < 0.01, "{masked}");
        // Kept: the 10 % left alone, plus the random draws that hit the original (1 in 50).
        let want_kept = 0.1 + 0.1 / 50.0;
        assert!((share(kept, picked.len()) - want_kept).abs() < 0.01);
        // Unpicked tokens are never touched; labels are the originals everywhere.
        assert!((0..ids.len()).all(|i| ex.loss_mask[i] || ex.input.source[i] == ids[i]));
        assert_eq!(ex.labels, ids);
        // Random replacements stay below the mask id.
        assert!(ex.input.source.iter().all(|&t| t < 50 || t == 99));
    }

    #[test]
    fn every_window_picks_at_least_one_token() {
        let ids = vec![1u32; 4];
        let m = Masking { rate: 0.0, ..M };
        for seed in 0..20 {
            let ex = masked_window(&ids, 0, 4, m, &mut Rng::new(seed));
            assert_eq!(ex.loss_mask.iter().filter(|&&p| p).count(), 1);
        }
    }

    #[test]
    fn baselines_score_the_picked_tokens_by_their_formulas() {
        // train "0 0 1", V = 3: p(0) = 3/6, p(1) = 2/6, p(2) = 1/6.
        let train = [0u32, 0, 1];
        let bigram = KneserNeyBigram::fit(&train, 3);
        let ex = Example {
            input: ModelInput::default(),
            labels: vec![0, 1, 2],
            loss_mask: vec![true, false, true],
        };
        let (uni, bi) = baselines(&train, 3, &bigram, &[ex]);
        assert_eq!(uni.tokens, 2);
        let want = -((3.0f64 / 6.0).ln() + (1.0f64 / 6.0).ln()) / 2.0;
        assert!((uni.nats_per_token - want).abs() < 1e-12);
        let want = -(bigram.continuation(0).ln() + bigram.prob(1, 2).ln()) / 2.0;
        assert!((bi.nats_per_token - want).abs() < 1e-12);
    }
}
