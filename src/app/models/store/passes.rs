//! The store's forward passes: memoised by exactly what they depend on, and for large models
//! in the browser spread over frames, a slice each, with Cancel and Run again.

use super::ModelStore;
use crate::model::{ForwardOptions, Model, ModelInput, Trace};
use std::collections::VecDeque;
use std::sync::Arc;

/// Traces kept: enough for the most forward passes one view runs per frame (the padding
/// batch runs two per sentence), so drawing a view again never recomputes.
pub(super) const MEMO_CAPACITY: usize = 24;

/// Models from this many parameters (SmolLM2's 135 M; not MiniLM's 23 M, whose pass takes a
/// few frames at most) run the passes the labs ask the store for a slice a frame in the browser.
pub(super) const SLICED_FROM_PARAMETERS: usize = 50_000_000;

/// Passes under way at most: a view asks for two or three at once (a mask and its baseline).
pub(super) const PASSES_UNDER_WAY: usize = 4;

/// The word `forward`'s answer starts with while a pass runs: views show it as progress, not
/// as an error. (A message: the answer is in the reader's language.)
const COMPUTING: &str = "models-pass-computing-word";

/// The word `forward`'s answer starts with for a pass the user cancelled: it starts nothing
/// until asked again after a frame nobody asked for it (the input changed) or until
/// `resume_asked`.
const CANCELLED: &str = "models-pass-cancelled-word";

/// Which forward pass: the model's name, the input and the options, and whether its trace
/// keeps every block's intermediates (`forward`) or only the stacks' outputs and the logits
/// (`forward_logits`).
#[derive(Clone, PartialEq)]
pub(super) struct PassKey {
    pub(super) model: String,
    pub(super) input: ModelInput,
    pub(super) opts: ForwardOptions,
    pub(super) blocks: bool,
}

impl PassKey {
    fn new(model: &str, input: &ModelInput, opts: &ForwardOptions, blocks: bool) -> Self {
        Self {
            model: model.to_string(),
            input: input.clone(),
            opts: opts.clone(),
            blocks,
        }
    }

    fn is(&self, model: &str, input: &ModelInput, opts: &ForwardOptions, blocks: bool) -> bool {
        self.model == model && self.input == *input && self.opts == *opts && self.blocks == blocks
    }
}

/// A trace without its blocks' intermediates (a traced SmolLM2 pass of 34 tokens took about
/// 52 MB natively, its logits 7 MB of it).
fn without_blocks(mut trace: Trace) -> Trace {
    for stack in [&mut trace.encoder, &mut trace.decoder]
        .into_iter()
        .flatten()
    {
        stack.blocks = Vec::new();
    }
    trace
}

/// A pass a lab asked for, spread over frames.
pub(super) struct Pass {
    pub(super) key: PassKey,
    pub(super) job: crate::app::models::pass_job::PassJob,
    /// A view asked for it this frame: it is on screen (it goes first; Cancel stops it).
    pub(super) asked: bool,
}

/// A pass the user cancelled, and whether a view asked for it this frame (one that no view
/// asks for in a whole frame is forgotten: asked for later, it starts again).
pub(super) struct Cancelled {
    pub(super) key: PassKey,
    pub(super) asked: bool,
}

pub(super) struct Memo {
    pub(super) key: PassKey,
    pub(super) trace: Result<Arc<Trace>, String>,
}

impl ModelStore {
    /// The forward pass of model `name` on `input`, computed once per distinct
    /// (model, input, options) among the recent ones.
    pub fn forward(
        &self,
        name: &str,
        input: &ModelInput,
        opts: &ForwardOptions,
    ) -> Result<Arc<Trace>, String> {
        self.pass(name, input, opts, true)
    }

    /// The same pass for a caller that reads only the logits (and the stacks' outputs): the
    /// memo keeps no block's intermediates for it (the heads lab scores hundreds of passes).
    pub fn forward_logits(
        &self,
        name: &str,
        input: &ModelInput,
        opts: &ForwardOptions,
    ) -> Result<Arc<Trace>, String> {
        self.pass(name, input, opts, false)
    }

    fn pass(
        &self,
        name: &str,
        input: &ModelInput,
        opts: &ForwardOptions,
        blocks: bool,
    ) -> Result<Arc<Trace>, String> {
        let cached = self
            .memo
            .borrow()
            .iter()
            .find(|m| m.key.is(name, input, opts, blocks))
            .map(|m| m.trace.clone());
        if let Some(trace) = cached {
            return trace;
        }
        let key = PassKey::new(name, input, opts, blocks);
        if let Some(answer) = self.was_cancelled(&key) {
            return answer;
        }
        let model = self.get(name)?;
        if let Some(answer) = self.sliced(&key, &model) {
            return answer;
        }
        let trace = model
            .forward(input, opts)
            .map(|t| if blocks { t } else { without_blocks(t) })
            .map(Arc::new)
            .map_err(|e| e.to_string());
        self.remember(key, trace.clone());
        trace
    }

    fn remember(&self, key: PassKey, trace: Result<Arc<Trace>, String>) {
        let mut memo = self.memo.borrow_mut();
        if memo.len() == MEMO_CAPACITY {
            memo.pop_front();
        }
        memo.push_back(Memo { key, trace });
    }

    /// A large model's pass in the browser: started (or found under way) and answered with
    /// its progress; `None` where passes run whole.
    fn sliced(&self, key: &PassKey, model: &Arc<Model>) -> Option<Result<Arc<Trace>, String>> {
        let (_, from) = self.slicing.get()?;
        if crate::model::weights::parameter_count(&model.config) < from {
            return None;
        }
        let mut passes = self.passes.borrow_mut();
        let progress = |job: &crate::app::models::pass_job::PassJob| {
            Err(crate::t!(
                "models-pass-computing",
                model = &key.model,
                done = job.steps_done(),
                all = job.steps()
            ))
        };
        if let Some(p) = passes.iter_mut().find(|p| p.key == *key) {
            p.asked = true;
            return Some(progress(&p.job));
        }
        let job = match crate::app::models::pass_job::PassJob::new(
            model.clone(),
            &key.input,
            &key.opts,
        ) {
            Ok(job) => job,
            Err(e) => return Some(Err(e.to_string())),
        };
        let answer = progress(&job);
        if passes.len() == PASSES_UNDER_WAY {
            // The oldest no view asks for any more makes room; else the oldest.
            let stale = passes.iter().position(|p| !p.asked).unwrap_or(0);
            passes.remove(stale);
        }
        passes.push_back(Pass {
            key: key.clone(),
            job,
            asked: true,
        });
        self.loader.wake();
        Some(answer)
    }

    /// This frame's slice of the oldest pass a view asked for last frame (else the oldest:
    /// a view left behind does not hold up the one on screen); its trace goes to the memo
    /// when done.
    pub(super) fn advance_pass(&self) {
        let Some((budget, _)) = self.slicing.get() else {
            return;
        };
        let (at, pass) = {
            let mut passes = self.passes.borrow_mut();
            let at = passes.iter().position(|p| p.asked).unwrap_or(0);
            (at, passes.remove(at))
        };
        let Some(mut pass) = pass else {
            return;
        };
        let done = match pass.job.run_for(budget) {
            Ok(None) => {
                self.passes.borrow_mut().insert(at, pass);
                self.loader.wake();
                return;
            }
            Ok(Some(trace)) if pass.key.blocks => Ok(Arc::new(trace)),
            Ok(Some(trace)) => Ok(Arc::new(without_blocks(trace))),
            Err(e) => Err(e.to_string()),
        };
        self.remember(pass.key, done);
        self.version.set(self.version.get() + 1);
        self.loader.wake();
    }

    /// A new frame: what views ask for from now on is what is on screen. A cancelled pass
    /// no view asked for in the frame that ended is forgotten (its input changed, or its view
    /// was left).
    pub(super) fn new_frame(&self) {
        let mut cancelled = self.cancelled.borrow_mut();
        cancelled.retain(|c| c.asked);
        for c in cancelled.iter_mut() {
            c.asked = false;
        }
        for p in self.passes.borrow_mut().iter_mut() {
            p.asked = false;
        }
    }

    /// The answer for a pass the user cancelled (noting that a view still asks for it).
    fn was_cancelled(&self, key: &PassKey) -> Option<Result<Arc<Trace>, String>> {
        let mut cancelled = self.cancelled.borrow_mut();
        let c = cancelled.iter_mut().find(|c| c.key == *key)?;
        c.asked = true;
        Some(Err(crate::t!("models-pass-cancelled", model = &key.model)))
    }

    /// Cancel: the passes under way that views asked for this frame (those on screen) are
    /// dropped, and answered as cancelled, starting nothing, while views keep asking for them.
    pub fn cancel_asked(&self) {
        let mut passes = self.passes.borrow_mut();
        let (asked, left): (VecDeque<Pass>, VecDeque<Pass>) =
            passes.drain(..).partition(|p| p.asked);
        *passes = left;
        self.cancelled
            .borrow_mut()
            .extend(asked.into_iter().map(|p| Cancelled {
                key: p.key,
                asked: true,
            }));
    }

    /// Run again: the cancelled passes views asked for this frame start when next asked for.
    pub fn resume_asked(&self) {
        self.cancelled.borrow_mut().retain(|c| !c.asked);
        self.loader.wake();
    }

    /// Passes under way (started and not finished or cancelled).
    pub fn passes_under_way(&self) -> usize {
        self.passes.borrow().len()
    }

    /// Run passes of models from `from_parameters` parameters a slice of `budget` a frame, as
    /// the browser does (tests).
    #[cfg(test)]
    pub fn slice_passes(&self, budget: web_time::Duration, from_parameters: usize) {
        self.slicing.set(Some((budget, from_parameters)));
    }
}

/// Whether `e` starts with the word `key` in any shipped language (an answer given before
/// the reader switched language still reads as what it is).
fn starts_with_word(e: &str, key: &str) -> bool {
    crate::i18n::codes()
        .into_iter()
        .any(|lang| crate::i18n::format_in(lang, key, &[]).is_some_and(|word| e.starts_with(&word)))
}

/// The answer `forward` gives while the pass runs (its progress, not a failure).
pub fn is_computing(e: &str) -> bool {
    starts_with_word(e, COMPUTING)
}

/// The answer `forward` gives for a pass the user cancelled (not a failure either).
pub fn is_cancelled(e: &str) -> bool {
    starts_with_word(e, CANCELLED)
}

/// Running or cancelled: a view that keeps what it computed asks again next frame.
pub fn is_unfinished(e: &str) -> bool {
    is_computing(e) || is_cancelled(e)
}

/// A model of the store under its name: derefs to the model, and runs its forward passes
/// through the store's memo.
pub struct Stored<'a> {
    store: &'a ModelStore,
    name: String,
    model: Arc<Model>,
}

impl ModelStore {
    /// `name`'s model, ready to run through the memo.
    pub fn stored(&self, name: &str) -> Result<Stored<'_>, String> {
        Ok(Stored {
            store: self,
            name: name.to_string(),
            model: self.get(name)?,
        })
    }
}

impl Stored<'_> {
    /// The memoised forward pass (shadows `Model::forward`, which always computes).
    pub fn forward(&self, input: &ModelInput, opts: &ForwardOptions) -> Result<Arc<Trace>, String> {
        self.store.forward(&self.name, input, opts)
    }

    /// The store it runs through (for a progress line's Cancel).
    pub fn store(&self) -> &ModelStore {
        self.store
    }
}

impl std::ops::Deref for Stored<'_> {
    type Target = Model;
    fn deref(&self) -> &Model {
        &self.model
    }
}
