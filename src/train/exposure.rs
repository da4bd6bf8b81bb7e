//! Exposure bias, measured: a model trained with teacher forcing only ever read the right
//! prefix. Decoding freely it reads its own outputs, and after its first mistake it reads a
//! prefix it never saw in training, so one error tends to bring more. Per answer position:
//! how often the argmax is wrong teacher-forced (the true prefix) and free-running (its own
//! greedy outputs), taken one held-out example at a time so the browser can spread the work
//! over frames.

use super::evaluation::greedy;
use super::tasks::{Split, TaskKind};
use super::trainer::make_example;
use crate::model::{ForwardOptions, Model, Result};
use crate::util::argmax;
use crate::util::rng::Rng;

/// The tallies at one answer position (0 = the first token the model must produce).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PositionTally {
    /// Examples whose answer reaches this position.
    pub examples: usize,
    /// Teacher-forced: the argmax after the true prefix is wrong.
    pub forced_wrong: usize,
    /// Free-running: the greedy output here is wrong.
    pub free_wrong: usize,
    /// Free-running, with an earlier output already wrong.
    pub after_error: usize,
    /// … and wrong here too.
    pub after_error_wrong: usize,
}

impl PositionTally {
    fn rate(wrong: usize, of: usize) -> Option<f64> {
        (of > 0).then(|| wrong as f64 / of as f64)
    }

    pub fn forced_rate(&self) -> Option<f64> {
        Self::rate(self.forced_wrong, self.examples)
    }

    pub fn free_rate(&self) -> Option<f64> {
        Self::rate(self.free_wrong, self.examples)
    }

    /// The error rate where the free-running prefix already holds a mistake.
    pub fn after_error_rate(&self) -> Option<f64> {
        Self::rate(self.after_error_wrong, self.after_error)
    }
}

/// The measurement so far over held-out examples of one task.
pub struct ExposureBias {
    pub task: TaskKind,
    pub positions: Vec<PositionTally>,
    /// Examples taken, and how many free-running answers were entirely right.
    pub done: usize,
    pub exact: usize,
    /// Examples whose teacher-forced argmax was right everywhere.
    pub forced_exact: usize,
    rng: Rng,
}

impl ExposureBias {
    pub fn new(task: TaskKind, seed: u64) -> Self {
        Self {
            task,
            positions: Vec::new(),
            done: 0,
            exact: 0,
            forced_exact: 0,
            rng: Rng::new(seed ^ 0xe4b0),
        }
    }

    /// Take one more held-out example: one teacher-forced pass and one greedy decoding.
    pub fn next_example(&mut self, model: &Model) -> Result<()> {
        let opts = ForwardOptions::default();
        let pair = self.task.sample(&mut self.rng, Split::HeldOut);
        let ex = make_example(self.task, &model.tokenizer, &pair);
        let trace = model.forward(&ex.input, &opts)?;
        // The answer's positions, in order, with the label each must produce.
        let answer: Vec<(usize, u32)> = (0..ex.labels.len())
            .filter(|&t| ex.loss_mask[t])
            .map(|t| (t, ex.labels[t]))
            .collect();
        let forced: Vec<bool> = answer
            .iter()
            .map(|&(t, label)| {
                let row = trace.logits.row(t);
                argmax(row.iter().copied()).map(|(i, _)| i as u32) == Some(label)
            })
            .collect();
        let wanted: Vec<u32> = answer.iter().map(|&(_, l)| l).collect();
        let free = greedy(model, self.task, &ex, wanted.len(), &opts)?;
        if self.positions.len() < wanted.len() {
            self.positions
                .resize(wanted.len(), PositionTally::default());
        }
        let mut derailed = false;
        for (i, (&want, &forced_right)) in wanted.iter().zip(&forced).enumerate() {
            let free_right = free.get(i) == Some(&want);
            let p = &mut self.positions[i];
            p.examples += 1;
            p.forced_wrong += !forced_right as usize;
            p.free_wrong += !free_right as usize;
            if derailed {
                p.after_error += 1;
                p.after_error_wrong += !free_right as usize;
            }
            derailed |= !free_right;
        }
        self.done += 1;
        self.exact += (free == wanted) as usize;
        self.forced_exact += forced.iter().all(|&r| r) as usize;
        Ok(())
    }

    /// Summed over every position: (teacher-forced, free-running) error rates.
    pub fn overall(&self) -> (f64, f64) {
        let n: usize = self.positions.iter().map(|p| p.examples).sum();
        let forced: usize = self.positions.iter().map(|p| p.forced_wrong).sum();
        let free: usize = self.positions.iter().map(|p| p.free_wrong).sum();
        let n = n.max(1) as f64;
        (forced as f64 / n, free as f64 / n)
    }

    /// Over every position: the free-running error rate once an earlier output was wrong.
    pub fn after_error_rate(&self) -> Option<f64> {
        let after: usize = self.positions.iter().map(|p| p.after_error).sum();
        let wrong: usize = self.positions.iter().map(|p| p.after_error_wrong).sum();
        PositionTally::rate(wrong, after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builtin;

    #[test]
    fn free_running_errors_compound_on_the_repeat_model() {
        let model = builtin::load("repeat").unwrap();
        let mut m = ExposureBias::new(TaskKind::Repeat, 3);
        for _ in 0..150 {
            m.next_example(&model).unwrap();
        }
        let first = m.positions[0];
        // The first answer token reads the same prefix either way.
        assert_eq!(first.forced_wrong, first.free_wrong);
        assert_eq!(first.after_error, 0);
        let (forced, free) = m.overall();
        assert!(free > forced, "free {free} vs forced {forced}");
        // After a first mistake the model errs far more often than teacher-forced.
        let after: usize = m.positions.iter().map(|p| p.after_error).sum();
        let after_wrong: usize = m.positions.iter().map(|p| p.after_error_wrong).sum();
        assert!(after > 0);
        assert!(
            after_wrong as f64 / after as f64 > 3.0 * forced,
            "compounds"
        );
        // Free-running errors come only from a clean prefix (then the input is the
        // teacher-forced one, so the error is too) or after an earlier error.
        for p in &m.positions {
            assert!(p.free_wrong <= p.forced_wrong + p.after_error_wrong);
            assert!(p.after_error_wrong <= p.after_error && p.after_error <= p.examples);
        }
        assert!(m.exact <= m.forced_exact && m.forced_exact <= m.done);
    }

    #[test]
    fn a_perfect_model_has_no_exposure_bias() {
        let model = builtin::load("reverse").unwrap();
        let mut m = ExposureBias::new(TaskKind::Reverse, 1);
        for _ in 0..40 {
            m.next_example(&model).unwrap();
        }
        assert_eq!(m.overall(), (0.0, 0.0));
        assert_eq!(m.exact, 40);
    }
}
