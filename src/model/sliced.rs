//! The traced forward pass in slices: one block at a time, so that a browser tab, which has
//! one thread for both drawing and computing, can draw a frame between blocks and a user can
//! cancel a pass of a large model. The slices compute exactly what `Model::forward` does,
//! in the same order: the encoder's blocks, then the decoder's over the encoder's output, then
//! the output layer a band of the vocabulary at a time (SmolLM2's 49,152 × 576 output matrix
//! costs as much as seven of its blocks).

use super::dropout::StackId;
use super::error::Result;
use super::trace::{StackTrace, Trace};
use super::transformer::{count_forward_pass, planned_run, ForwardPlan, StackSoFar};
use super::{ForwardOptions, Model, ModelInput};
use ndarray::{s, Array2};
use std::sync::Arc;
use web_time::{Duration, Instant};

/// A forward pass under way.
pub struct SlicedForward {
    model: Arc<Model>,
    opts: ForwardOptions,
    plan: ForwardPlan,
    /// The encoder's finished trace (encoder and encoder–decoder models).
    encoder: Option<StackTrace>,
    /// The stack being run, and its blocks so far.
    current: Option<(StackId, StackSoFar)>,
    /// Both stacks done: the output layer under way.
    output: Option<OutputLayer>,
    /// Steps run so far (blocks, then bands of the output layer).
    steps_done: usize,
    /// Vocabulary entries per step of the output layer.
    pub band: usize,
}

/// The output layer in bands: logits = h·W_vocabᵀ + b, `next` onwards still to compute.
struct OutputLayer {
    encoder: Option<StackTrace>,
    decoder: Option<StackTrace>,
    /// What the output layer reads; `None`: the model has none (the logits have no columns).
    input: Option<Array2<f32>>,
    logits: Array2<f32>,
    next: usize,
}

/// Vocabulary entries per step: about one block's work on SmolLM2.
const BAND: usize = 8192;

impl SlicedForward {
    /// Checks the input and settles the masks; no block has run yet.
    pub fn new(model: Arc<Model>, input: &ModelInput, opts: &ForwardOptions) -> Result<Self> {
        let plan = model.plan(input, opts)?;
        count_forward_pass();
        Ok(Self {
            model,
            opts: opts.clone(),
            plan,
            encoder: None,
            current: None,
            output: None,
            steps_done: 0,
            band: BAND,
        })
    }

    /// The model it runs.
    pub fn model(&self) -> &Arc<Model> {
        &self.model
    }

    /// The options it runs with.
    pub fn opts(&self) -> &ForwardOptions {
        &self.opts
    }

    /// Steps run so far: blocks of both stacks, then bands of the output layer.
    pub fn steps_done(&self) -> usize {
        self.steps_done
    }

    /// Steps the whole pass takes.
    pub fn steps(&self) -> usize {
        let w = &self.model.weights;
        let count = |s: &Option<super::weights::StackWeights>, p: bool| {
            s.as_ref().filter(|_| p).map_or(0, |s| s.blocks.len())
        };
        let vocab = w.lm_bias.as_ref().map_or(0, |_| w.output_matrix().rows());
        count(&w.encoder, self.plan.encoder.is_some())
            + count(&w.decoder, self.plan.decoder.is_some())
            + vocab.div_ceil(self.band.max(1))
    }

    /// Runs the next step (a block, or a band of the output layer); the whole trace once
    /// the last one has run.
    pub fn step(&mut self) -> Result<Option<Trace>> {
        let model = self.model.clone();
        let band = self.band.max(1);
        let Some(out) = self.output.as_mut() else {
            return self.next_block();
        };
        if let Some(h) = &out.input {
            let end = (out.next + band).min(out.logits.ncols());
            let part = model.logits_columns(h.view(), out.next..end);
            out.logits.slice_mut(s![.., out.next..end]).assign(&part);
            out.next = end;
            self.steps_done += 1;
            if end < out.logits.ncols() {
                return Ok(None);
            }
        }
        let Some(out) = self.output.take() else {
            return Ok(None);
        };
        Ok(Some(model.trace_with(out.encoder, out.decoder, out.logits)))
    }

    /// Both stacks are done: the output layer comes next.
    fn start_output(&mut self, encoder: Option<StackTrace>, decoder: Option<StackTrace>) {
        let last = decoder.as_ref().or(encoder.as_ref()).map(|s| &s.output);
        let rows = last.map_or(0, |o| o.nrows());
        let input = last
            .and_then(|o| self.model.logits_input(o))
            .map(std::borrow::Cow::into_owned);
        let vocab = match input {
            Some(_) => self.model.weights.output_matrix().rows(),
            None => 0,
        };
        self.output = Some(OutputLayer {
            encoder,
            decoder,
            input,
            logits: Array2::zeros((rows, vocab)),
            next: 0,
        });
    }

    /// Runs the next block of the stack under way (starting the next stack when one ends).
    fn next_block(&mut self) -> Result<Option<Trace>> {
        let model = self.model.clone();
        let weights = &model.weights;
        // The decoder runs only once the encoder's trace is kept.
        let encoder_pending =
            self.encoder.is_none() && weights.encoder.is_some() && self.plan.encoder.is_some();
        let (id, stack, plan) = match (encoder_pending, &weights.decoder, &self.plan.decoder) {
            (true, ..) => (
                StackId::Encoder,
                weights.encoder.as_ref(),
                self.plan.encoder.as_ref(),
            ),
            (false, Some(stack), Some(plan)) => (StackId::Decoder, Some(stack), Some(plan)),
            _ => (StackId::Decoder, None, None),
        };
        let (Some(stack), Some(plan)) = (stack, plan) else {
            // No stack (left) to run: the output layer of what has run.
            let encoder = self.encoder.take();
            self.start_output(encoder, None);
            return Ok(None);
        };
        let memory = match (id, &self.encoder, &self.plan.encoder) {
            (StackId::Decoder, Some(e), Some(ep)) => {
                Some((e.output.view(), e.tokens.as_slice(), ep.pads.as_slice()))
            }
            _ => None,
        };
        let run = planned_run(plan, memory, &self.opts, id, true);
        let mut so_far = match self.current.take() {
            Some((_, so_far)) => so_far,
            None => model.begin_stack(&run),
        };
        if so_far.done < stack.blocks.len() {
            model.next_block(stack, &mut so_far, &run, None)?;
            self.steps_done += 1;
        }
        if so_far.done < stack.blocks.len() {
            self.current = Some((id, so_far));
            return Ok(None);
        }
        let finished = model.finish_stack(stack, so_far, &run);
        drop(run);
        match id {
            StackId::Encoder if weights.decoder.is_some() && self.plan.decoder.is_some() => {
                self.encoder = Some(finished);
            }
            StackId::Encoder => self.start_output(Some(finished), None),
            StackId::Decoder => {
                let encoder = self.encoder.take();
                self.start_output(encoder, Some(finished));
            }
        }
        Ok(None)
    }

    /// Runs blocks until the pass is done or `budget` has been spent (at least one block).
    pub fn run_for(&mut self, budget: Duration) -> Result<Option<Trace>> {
        let start = Instant::now();
        loop {
            if let Some(trace) = self.step()? {
                return Ok(Some(trace));
            }
            if start.elapsed() >= budget {
                return Ok(None);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{builtin, MaskChoice};

    /// Every intermediate of two traces, bit for bit.
    fn same(a: &Trace, b: &Trace) {
        assert_eq!(a.logits, b.logits);
        for (x, y) in [(&a.encoder, &b.encoder), (&a.decoder, &b.decoder)] {
            assert_eq!(x.is_some(), y.is_some());
            let (Some(x), Some(y)) = (x, y) else { continue };
            assert_eq!(x.tokens, y.tokens);
            assert_eq!(x.embed, y.embed);
            assert_eq!(x.output, y.output);
            assert_eq!(x.blocks.len(), y.blocks.len());
            for (p, q) in x.blocks.iter().zip(&y.blocks) {
                assert_eq!(p.self_attn.inner.weights, q.self_attn.inner.weights);
                assert_eq!(p.output(), q.output());
            }
        }
    }

    /// The pass in steps, the output layer in bands of `band` entries: the trace and the
    /// number of steps.
    fn sliced(
        model: &Arc<Model>,
        input: &ModelInput,
        opts: &ForwardOptions,
        band: usize,
    ) -> (Trace, usize) {
        let mut job = SlicedForward::new(model.clone(), input, opts).unwrap();
        job.band = band;
        let mut calls = 0;
        loop {
            calls += 1;
            if let Some(t) = job.step().unwrap() {
                assert_eq!(job.steps_done(), job.steps());
                return (t, job.steps());
            }
            assert!(calls <= job.steps() + 3, "more calls than steps");
        }
    }

    #[test]
    fn slices_compute_exactly_the_whole_pass_one_block_or_band_at_a_time() {
        // An encoder–decoder, a decoder-only and an encoder-only model.
        for name in ["translate", "lm", "demo-encoder"] {
            let model = Arc::new(builtin::load(name).unwrap());
            let prepared = model.prepare("the cat sat", "le chat");
            let opts = ForwardOptions {
                temperature: 0.7,
                ..Default::default()
            };
            let whole = model.forward(&prepared.input, &opts).unwrap();
            // Bands of 7 entries: the output layer in many steps, the last one short.
            let (parts, steps) = sliced(&model, &prepared.input, &opts, 7);
            same(&whole, &parts);
            let w = &model.weights;
            let blocks = w.encoder.as_ref().map_or(0, |s| s.blocks.len())
                + w.decoder.as_ref().map_or(0, |s| s.blocks.len());
            let vocab = w.lm_bias.as_ref().map_or(0, |_| w.output_matrix().rows());
            assert!(vocab > 7, "{name}");
            assert_eq!(steps, blocks + vocab.div_ceil(7), "{name}");
        }
    }

    #[test]
    fn every_family_under_a_user_mask_slices_the_same() {
        for name in ["demo-encoder", "demo-decoder", "demo-translate"] {
            let model = Arc::new(builtin::load(name).unwrap());
            let prepared = model.prepare("the european area", "the economic");
            let opts = ForwardOptions {
                self_mask: MaskChoice::Causal,
                ..Default::default()
            };
            let whole = model.forward(&prepared.input, &opts).unwrap();
            same(&whole, &sliced(&model, &prepared.input, &opts, BAND).0);
        }
    }

    #[test]
    fn a_bad_input_is_refused_before_any_block_runs() {
        let model = Arc::new(builtin::load("lm").unwrap());
        let input = ModelInput {
            target: vec![1, u32::MAX],
            ..Default::default()
        };
        assert!(SlicedForward::new(model, &input, &ForwardOptions::default()).is_err());
    }

    #[test]
    fn a_budget_runs_several_blocks_and_stops_between_them() {
        let model = Arc::new(builtin::load("translate").unwrap());
        let prepared = model.prepare("the cat sat", "le chat");
        let opts = ForwardOptions::default();
        let mut job = SlicedForward::new(model.clone(), &prepared.input, &opts).unwrap();
        // No time at all: one block, then back to the caller.
        assert!(job.run_for(Duration::ZERO).unwrap().is_none());
        assert_eq!(job.steps_done(), 1);
        let trace = job.run_for(Duration::from_secs(60)).unwrap().unwrap();
        same(&model.forward(&prepared.input, &opts).unwrap(), &trace);
    }
}
