//! What a model loses when heads are switched off: a score (loss and accuracy) with a set of
//! heads off, and the plan that ranks every head by what its absence costs, then removes them
//! from the least to the most important, scoring after each.

use super::tasks::TaskKind;
use super::trainer::evaluate_with;
use crate::model::{AttentionKind, Family, ForwardOptions, HeadId, Model, ModelInput};
use crate::util::argmax_slice;
use ndarray::ArrayView2;

/// Held-out examples a task model is scored on (always the same ones).
pub const TASK_EXAMPLES: usize = 48;
const TASK_SEED: u64 = 11;

/// What the model is scored on.
#[derive(Debug, Clone, PartialEq)]
pub enum Measure {
    /// Held-out examples of the task the model was trained on: teacher-forced loss and token
    /// accuracy, and greedy decoding's exact matches.
    Task(TaskKind),
    /// A decoder on a text: every position predicting the next token.
    Text(Vec<u32>),
}

impl Measure {
    pub fn describe(&self) -> String {
        match self {
            Measure::Task(t) => format!(
                "{TASK_EXAMPLES} held-out examples of the {} task it was trained on",
                t.name()
            ),
            Measure::Text(ids) => format!(
                "the text in the input box: {} next-token predictions",
                ids.len().saturating_sub(1)
            ),
        }
    }
}

/// The task a shipped model was trained on, when it is one of the task models.
pub fn task_of(name: &str) -> Option<TaskKind> {
    TaskKind::from_name(name).or_else(|| {
        (name == "reverse-nomask" || name.starts_with("extrap-")).then_some(TaskKind::Reverse)
    })
}

/// What the picked model can be scored on.
pub fn measure_for(name: &str, model: &Model, ids: Option<&[u32]>) -> Result<Measure, String> {
    if let Some(task) = task_of(name) {
        return Ok(Measure::Task(task));
    }
    if model.config.family != Family::Decoder || model.weights.lm_bias.is_none() {
        return Err(format!(
            "{name} has no next-token output to score (a sentence encoder, or a model without \
             a task of Glimpse's): pick a decoder LM (sotu-lm, SmolLM2, lm) or a task model \
             (translate, reverse, sort, copy, repeat) in the top bar"
        ));
    }
    ids.map(|ids| Measure::Text(ids.to_vec()))
        .ok_or_else(|| "waiting for the forward pass of the input".into())
}

/// A model's score with some heads off.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Score {
    /// Mean cross-entropy per predicted token (nats).
    pub loss: f32,
    /// Share of tokens predicted right (the argmax is the true next token).
    pub accuracy: f32,
    /// Task models: share of examples greedy decoding gets exactly right.
    pub exact: Option<f32>,
}

/// Every head of the model: each attention it has, each layer, each head.
pub fn every_head(model: &Model) -> Vec<HeadId> {
    let family = model.config.family;
    let mut kinds = Vec::new();
    if family.has_encoder() {
        kinds.push(AttentionKind::EncoderSelf);
    }
    if family.has_decoder() {
        kinds.push(AttentionKind::DecoderSelf);
    }
    if family.has_encoder() && family.has_decoder() {
        kinds.push(AttentionKind::Cross);
    }
    let mut heads = Vec::new();
    for kind in kinds {
        for layer in 0..model.config.n_layers {
            for head in 0..model.config.n_heads {
                heads.push(HeadId { kind, layer, head });
            }
        }
    }
    heads
}

/// The score of `model` on `measure` with the heads `off` switched off.
pub fn score(model: &Model, measure: &Measure, off: &[HeadId]) -> Result<Score, String> {
    let opts = ForwardOptions {
        heads_off: off.to_vec(),
        ..Default::default()
    };
    match measure {
        Measure::Task(task) => {
            let s = evaluate_with(model, *task, TASK_EXAMPLES, TASK_SEED, &opts)
                .map_err(|e| e.to_string())?;
            Ok(Score {
                loss: s.loss,
                accuracy: s.token_accuracy,
                exact: (*task != TaskKind::CharLm).then_some(s.exact_match),
            })
        }
        Measure::Text(ids) => {
            let (input, opts) = text_pass(model, ids, off)?;
            let logits = model
                .forward_logits(&input, &opts)
                .map_err(|e| e.to_string())?;
            Ok(text_score(ids, logits.view()))
        }
    }
}

/// The one forward pass that scores a text with the heads `off` switched off: its input and
/// options (the app runs it through its model store), or why the text cannot be scored.
pub fn text_pass(
    model: &Model,
    ids: &[u32],
    off: &[HeadId],
) -> Result<(ModelInput, ForwardOptions), String> {
    if ids.len() < 2 {
        return Err("type at least two tokens: each one is predicted from those before it".into());
    }
    let opts = ForwardOptions {
        heads_off: off.to_vec(),
        ..Default::default()
    };
    Ok((model.input_from_ids(ids.to_vec(), vec![]), opts))
}

/// A text's score from the logits of its pass (`[T, V]`, at least two positions).
pub fn text_score(ids: &[u32], logits: ArrayView2<f32>) -> Score {
    // Position t predicts token t + 1: loss = −log softmax(logits_t)[ids_{t+1}].
    let (mut loss, mut right) = (0.0f64, 0);
    for t in 0..ids.len().saturating_sub(1) {
        let view = logits.row(t);
        let copied;
        let row = match view.as_slice() {
            Some(row) => row,
            None => {
                copied = view.to_vec();
                &copied
            }
        };
        let next = ids[t + 1] as usize;
        // log Z over the whole vocabulary: the kernels' row loop (a browser frame's worth
        // of f64 `exp` calls for a 49,152-entry vocabulary otherwise).
        let log_z = glimpse_kernels::rows::log_sum_exp_row(row);
        loss += log_z - row.get(next).map_or(f64::NAN, |&x| x as f64);
        right += (argmax_slice(row).map(|(i, _)| i) == Some(next)) as usize;
    }
    let n = ids.len().saturating_sub(1).max(1) as f32;
    Score {
        loss: loss as f32 / n,
        accuracy: right as f32 / n,
        exact: None,
    }
}

/// One head's importance: the score with it alone off.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Importance {
    pub head: HeadId,
    pub without: Score,
    /// Loss with the head off minus the loss with every head on.
    pub loss_rise: f32,
}

/// Ranking every head, then removing them one by one: one score at a time, so the app can
/// spread the work over frames.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub full: Score,
    heads: Vec<HeadId>,
    /// One per head, in `heads` order while ranking.
    pub ranked: Vec<Importance>,
    /// Scores with the `k` least important heads off, `k` = 1, 2, …
    pub pruned: Vec<Score>,
}

impl Plan {
    pub fn new(full: Score, heads: Vec<HeadId>) -> Self {
        Self {
            full,
            heads,
            ranked: Vec::new(),
            pruned: Vec::new(),
        }
    }

    pub fn total_steps(&self) -> usize {
        2 * self.heads.len()
    }

    pub fn steps_done(&self) -> usize {
        self.ranked.len() + self.pruned.len()
    }

    pub fn done(&self) -> bool {
        self.steps_done() == self.total_steps()
    }

    /// The heads from least to most important (after ranking).
    pub fn least_first(&self) -> Vec<HeadId> {
        let mut order = self.ranked.clone();
        order.sort_by(|a, b| a.loss_rise.total_cmp(&b.loss_rise));
        order.into_iter().map(|i| i.head).collect()
    }

    /// Compute the next score.
    pub fn step(&mut self, model: &Model, measure: &Measure) -> Result<(), String> {
        if let Some(off) = self.next_off() {
            self.record(score(model, measure, &off)?);
        }
        Ok(())
    }

    /// The heads off in the next score: one head alone while ranking, then the `k` least
    /// important; `None` once done.
    pub fn next_off(&self) -> Option<Vec<HeadId>> {
        if self.ranked.len() < self.heads.len() {
            Some(vec![self.heads[self.ranked.len()]])
        } else if !self.done() {
            Some(self.least_first()[..self.pruned.len() + 1].to_vec())
        } else {
            None
        }
    }

    /// The next score (with `next_off` off), computed by the caller.
    pub fn record(&mut self, s: Score) {
        if self.ranked.len() < self.heads.len() {
            let head = self.heads[self.ranked.len()];
            self.ranked.push(Importance {
                head,
                without: s,
                loss_rise: s.loss - self.full.loss,
            });
        } else if !self.done() {
            self.pruned.push(s);
        }
    }

    /// How many of the least important heads can go before token accuracy falls more than
    /// `tolerance` below the full model's (counting from none removed).
    pub fn removable(&self, tolerance: f32) -> usize {
        self.pruned
            .iter()
            .take_while(|s| s.accuracy >= self.full.accuracy - tolerance)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builtin;
    use ndarray::s;

    /// A head switched off gives exactly what the same model gives with that head's columns
    /// of W_O zeroed (an independent construction of "the head contributes nothing").
    #[test]
    fn a_head_off_is_its_w_o_columns_zeroed() {
        for name in ["translate", "lm"] {
            let model = builtin::load(name).unwrap();
            let info = builtin::info(name).unwrap();
            let input = model
                .prepare(info.example_source, info.example_target)
                .input;
            let h = model.config.d_head();
            for head in every_head(&model).into_iter().step_by(3) {
                let opts = ForwardOptions {
                    heads_off: vec![head],
                    ..Default::default()
                };
                let off = model.forward(&input, &opts).unwrap();
                let mut weights = model.weights.clone();
                let stack = match head.kind {
                    AttentionKind::EncoderSelf => weights.encoder.as_mut().unwrap(),
                    _ => weights.decoder.as_mut().unwrap(),
                };
                let block = &mut stack.blocks[head.layer];
                let attn = match head.kind {
                    AttentionKind::Cross => &mut block.cross.as_mut().unwrap().1,
                    _ => &mut block.self_attn,
                };
                attn.w_o
                    .f32_mut()
                    .slice_mut(s![.., head.head * h..(head.head + 1) * h])
                    .fill(0.0);
                let zeroed = Model::new(model.config.clone(), weights)
                    .unwrap()
                    .forward(&input, &ForwardOptions::default())
                    .unwrap();
                let gap = off.logit_difference(&zeroed);
                assert!(gap < 1e-5, "{name} {head:?}: {gap}");
                let full = model.forward(&input, &ForwardOptions::default()).unwrap();
                assert!(
                    off.logit_difference(&full) > 1e-4,
                    "{name} {head:?} changed nothing"
                );
            }
        }
    }

    /// The same through the decoding cache, which greedy decoding uses.
    #[test]
    fn a_head_off_is_off_in_cached_decoding_too() {
        let model = builtin::load("lm").unwrap();
        let ids = model.prepare("", "attention is all").input.target;
        let off = vec![HeadId {
            kind: AttentionKind::DecoderSelf,
            layer: 1,
            head: 0,
        }];
        let opts = ForwardOptions {
            heads_off: off,
            ..Default::default()
        };
        let whole = model
            .forward_logits(&model.input_from_ids(ids.clone(), vec![]), &opts)
            .unwrap();
        let mut state = model.start_decoding(&[], &opts).unwrap();
        for (t, &id) in ids.iter().enumerate() {
            let step = model.decode_step(&mut state, id, &opts).unwrap().logits;
            let gap = step
                .iter()
                .zip(whole.row(t))
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f32::max);
            assert!(gap < 1e-4, "position {t}: {gap}");
        }
    }

    /// On the translator: cross-attention is what carries the source, so with every
    /// cross-attention head off the translation fails, while the least important heads can go
    /// with accuracy held.
    #[test]
    fn the_translator_needs_its_cross_attention_but_not_every_head() {
        let model = builtin::load("translate").unwrap();
        let measure = Measure::Task(TaskKind::Translate);
        let full = score(&model, &measure, &[]).unwrap();
        assert!(full.accuracy > 0.95, "{full:?}");
        let cross: Vec<HeadId> = every_head(&model)
            .into_iter()
            .filter(|h| h.kind == AttentionKind::Cross)
            .collect();
        let blind = score(&model, &measure, &cross).unwrap();
        assert!(
            blind.exact.unwrap() < 0.1 && blind.accuracy < full.accuracy - 0.3,
            "{blind:?}"
        );
        let mut plan = Plan::new(full, every_head(&model));
        while !plan.done() {
            plan.step(&model, &measure).unwrap();
        }
        let n = every_head(&model).len();
        let removable = plan.removable(0.01);
        assert!(
            removable >= n / 4,
            "only {removable} of {n} heads removable"
        );
        assert!(
            plan.pruned.last().unwrap().accuracy < 0.5,
            "all heads off still works?"
        );
    }

    /// A decoder's text score is its mean next-token loss: the closed form on the logits.
    #[test]
    fn the_text_score_is_the_mean_next_token_cross_entropy() {
        let model = builtin::load("lm").unwrap();
        let ids = model.prepare("", "the heads attend").input.target;
        let s = score(&model, &Measure::Text(ids.clone()), &[]).unwrap();
        let logits = model
            .forward_logits(
                &model.input_from_ids(ids.clone(), vec![]),
                &Default::default(),
            )
            .unwrap();
        let mut want = 0.0;
        for t in 0..ids.len() - 1 {
            let p = crate::model::softmax::softmax(&logits.row(t).to_vec());
            want -= (p[ids[t + 1] as usize] as f64).ln();
        }
        want /= (ids.len() - 1) as f64;
        assert!((s.loss as f64 - want).abs() < 1e-4, "{} vs {want}", s.loss);
        assert!(score(&model, &Measure::Text(ids[..1].to_vec()), &[]).is_err());
    }
}
