//! Held-out evaluation of a trained model: exact match and token accuracy by greedy
//! decoding, taken one example at a time for the browser; accuracy at unseen lengths; and
//! the repeat task's head scores.

use super::backward::Example;
use super::tasks::{Split, TaskKind};
use super::trainer::{make_example, EvalStats, HeadScore};
use crate::model::config::Family;
use crate::model::tokenizer::BOS;
use crate::model::{ForwardOptions, Model, Result};
use crate::util::argmax;
use crate::util::rng::Rng;

/// Exact-match accuracy of greedy decoding on `n` sequences of exactly `len` pieces (copy,
/// reverse and sort): how a model trained on short inputs copes with longer ones. `None`
/// when the model cannot take inputs that long at all.
pub fn exact_at_length(
    model: &Model,
    task: TaskKind,
    len: usize,
    n: usize,
    seed: u64,
) -> Result<Option<f32>> {
    if len + 2 > model.config.max_len {
        return Ok(None);
    }
    let mut rng = Rng::new(seed ^ (len as u64).wrapping_mul(0x9e37));
    let mut exact = 0;
    for _ in 0..n {
        let Some(pair) = task.pair_of_length(&mut rng, len) else {
            return Ok(None);
        };
        let ex = make_example(task, &model.tokenizer, &pair);
        let wanted: Vec<u32> = ex.labels.clone();
        let opts = ForwardOptions::default();
        exact += (greedy(model, task, &ex, wanted.len(), &opts)? == wanted) as usize;
    }
    Ok(Some(exact as f32 / n.max(1) as f32))
}

/// Held-out evaluation of any model on a task.
pub fn evaluate(model: &Model, task: TaskKind, n: usize, seed: u64) -> Result<EvalStats> {
    evaluate_with(model, task, n, seed, &ForwardOptions::default())
}

/// [`evaluate`] under run-time options (heads switched off, for the ablation lab).
pub fn evaluate_with(
    model: &Model,
    task: TaskKind,
    n: usize,
    seed: u64,
    opts: &ForwardOptions,
) -> Result<EvalStats> {
    let mut eval = Evaluation::new(task, n, seed);
    while !eval.is_complete() {
        eval.next_example(model, opts)?;
    }
    Ok(eval.finish(model))
}

/// A held-out evaluation taken one example at a time, so the browser can spread it over
/// frames instead of freezing one; run to the end it is exactly [`evaluate_with`].
pub struct Evaluation {
    task: TaskKind,
    n: usize,
    seed: u64,
    rng: Rng,
    done: usize,
    exact: usize,
    right: usize,
    counted: usize,
    loss: f32,
    /// The repeat task's head scores, gathered alongside (one repeated sequence per example).
    heads: Option<HeadTally>,
}

impl Evaluation {
    /// The `n` held-out examples that `seed` picks (the same ones at every evaluation).
    pub fn new(task: TaskKind, n: usize, seed: u64) -> Self {
        Self {
            task,
            n,
            seed,
            rng: Rng::new(seed ^ 0xe7a1),
            done: 0,
            exact: 0,
            right: 0,
            counted: 0,
            loss: 0.0,
            heads: None,
        }
    }

    pub fn is_complete(&self) -> bool {
        self.done >= self.n
    }

    /// Score the next example: its teacher-forced loss and token accuracy, and whether greedy
    /// decoding reproduces the target exactly.
    pub fn next_example(&mut self, model: &Model, opts: &ForwardOptions) -> Result<()> {
        if self.is_complete() {
            return Ok(());
        }
        let task = self.task;
        let pair = task.sample(&mut self.rng, Split::HeldOut);
        let ex = make_example(task, &model.tokenizer, &pair);
        let trace = model.forward(&ex.input, opts)?;
        let (l, _, _) =
            super::loss::cross_entropy(trace.logits.view(), &ex.labels, &ex.loss_mask, 0.0);
        self.loss += l;
        for (t, row) in trace.logits.rows().into_iter().enumerate() {
            if ex.loss_mask[t] {
                self.counted += 1;
                self.right += (argmax(row.iter().copied()).map(|(i, _)| i)
                    == Some(ex.labels[t] as usize)) as usize;
            }
        }
        let wanted: Vec<u32> = ex
            .labels
            .iter()
            .zip(&ex.loss_mask)
            .filter(|(_, &m)| m)
            .map(|(&l, _)| l)
            .collect();
        // A language model has no single right continuation: it is judged by its loss.
        if task != TaskKind::CharLm && greedy(model, task, &ex, wanted.len(), opts)? == wanted {
            self.exact += 1;
        }
        if task == TaskKind::Repeat {
            let (n, seed) = (self.n, self.seed);
            let tally = self
                .heads
                .get_or_insert_with(|| HeadTally::new(model, n, seed));
            tally.add_sequence(model)?;
        }
        self.done += 1;
        Ok(())
    }

    /// The scores over the examples taken (all `n` once complete); the repeat task adds its
    /// best induction and previous-token heads.
    pub fn finish(&self, model: &Model) -> EvalStats {
        let (task, n) = (self.task, self.done);
        let (induction, previous_token) = match &self.heads {
            Some(tally) => {
                let (i, p) = tally.best(model.config.n_heads);
                (Some(i), Some(p))
            }
            None => (None, None),
        };
        EvalStats {
            baseline_loss: (task == TaskKind::CharLm).then(super::tasks::lm_unigram_baseline),
            induction,
            previous_token,
            exact_match: self.exact as f32 / n.max(1) as f32,
            token_accuracy: self.right as f32 / self.counted.max(1) as f32,
            loss: self.loss / self.counted.max(1) as f32,
            examples: n,
        }
    }
}

/// Best induction head and best previous-token head over `n` held-out repeated sequences
/// (`<bos> s s`, so the repeat has period |s| from position 1).
pub fn repeat_head_scores(model: &Model, n: usize, seed: u64) -> Result<(HeadScore, HeadScore)> {
    let mut tally = HeadTally::new(model, n, seed);
    for _ in 0..n {
        tally.add_sequence(model)?;
    }
    Ok(tally.best(model.config.n_heads))
}

/// Running induction and previous-token scores of every head over held-out repeated
/// sequences (`<bos> s s`, so the repeat has period |s| from position 1).
struct HeadTally {
    rng: Rng,
    /// Sequences the mean is over.
    n: usize,
    induction: Vec<f32>,
    previous: Vec<f32>,
}

impl HeadTally {
    fn new(model: &Model, n: usize, seed: u64) -> Self {
        let heads = model.config.n_layers * model.config.n_heads;
        Self {
            rng: Rng::new(seed ^ 0x1d0c),
            n,
            induction: vec![0.0; heads],
            previous: vec![0.0; heads],
        }
    }

    /// Add the next sequence's scores (each weighted 1/n).
    fn add_sequence(&mut self, model: &Model) -> Result<()> {
        use crate::model::analysis::{induction_score, previous_token_score};
        use crate::model::AttentionKind;
        let heads = model.config.n_heads;
        let pair = TaskKind::Repeat.sample(&mut self.rng, Split::HeldOut);
        let ex = make_example(TaskKind::Repeat, &model.tokenizer, &pair);
        let period = pair.source.len();
        let trace = model.forward(&ex.input, &ForwardOptions::default())?;
        let n = self.n as f32;
        for layer in 0..model.config.n_layers {
            let Some(w) = trace.weights(AttentionKind::DecoderSelf, layer) else {
                continue;
            };
            for (head, a) in w.outer_iter().enumerate() {
                self.induction[layer * heads + head] += induction_score(a, 1, period) / n;
                self.previous[layer * heads + head] += previous_token_score(a) / n;
            }
        }
        Ok(())
    }

    /// The best induction head and the best previous-token head.
    fn best(&self, heads: usize) -> (HeadScore, HeadScore) {
        let best = |scores: &[f32]| {
            let (i, score) = argmax(scores.iter().copied()).unwrap_or((0, 0.0));
            HeadScore {
                layer: i / heads,
                head: i % heads,
                score,
            }
        };
        (best(&self.induction), best(&self.previous))
    }
}

/// Greedy continuation with the KV cache: `len` tokens after the prompt.
pub(super) fn greedy(
    model: &Model,
    task: TaskKind,
    ex: &Example,
    len: usize,
    opts: &ForwardOptions,
) -> Result<Vec<u32>> {
    let mut state = model.start_decoding(&ex.input.source, opts)?;
    // Decoder-only: the prompt is `<bos>` and the first copy; the last prompt token's logits
    // predict the first wanted token.
    let prompt: Vec<u32> = match task.family() {
        Family::Decoder => ex.input.target[..ex.input.target.len() - len].to_vec(),
        _ => vec![BOS],
    };
    let mut last = None;
    for &t in &prompt {
        last = Some(model.decode_step(&mut state, t, opts)?.logits);
    }
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        let Some(logits) = last.take() else { break };
        let next = argmax(logits.iter().copied()).map_or(0, |(i, _)| i as u32);
        out.push(next);
        if out.len() < len && state.ids.len() < model.config.max_len {
            last = Some(model.decode_step(&mut state, next, opts)?.logits);
        }
    }
    Ok(out)
}
