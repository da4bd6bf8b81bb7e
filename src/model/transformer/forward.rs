//! The forward pass over a whole input (traced, or logits only), batches padded to one
//! length, and the output head that turns the last stack's output into logits.

use super::{count_forward_pass, planned_run, ForwardOptions, Model, ModelInput, StackPlan};
use crate::model::dropout::StackId;
use crate::model::error::Result;
use crate::model::layers::{activate, layer_norm, linear};
use crate::model::tokenizer::PAD;
use crate::model::trace::{StackTrace, Trace};
use crate::model::weights::StackWeights;
use ndarray::{Array2, ArrayView2};

impl Model {
    /// The output head: `h·W_vocabᵀ + b` (after BERT's `LN(act(h·Wᵀ + b))` transform for a
    /// masked-LM head); `[T, 0]` for a model without a head.
    pub(super) fn logits(&self, output: &Array2<f32>) -> Array2<f32> {
        match self.logits_input(output) {
            Some(h) => self.logits_columns(h.view(), 0..self.weights.output_matrix().rows()),
            None => Array2::zeros((output.nrows(), 0)),
        }
    }

    /// What the output layer reads: the last stack's output, through BERT's MLM transform
    /// when the model has one. `None`: no output layer (a sentence encoder).
    pub(in crate::model) fn logits_input<'a>(
        &self,
        output: &'a Array2<f32>,
    ) -> Option<std::borrow::Cow<'a, Array2<f32>>> {
        use std::borrow::Cow;
        self.weights.lm_bias.as_ref()?;
        Some(match &self.weights.mlm {
            Some(t) => {
                let act = self.config.activation;
                let h = linear(output.view(), &t.w, &t.b).mapv(|z| activate(z, act));
                Cow::Owned(layer_norm(h.view(), &t.norm, self.config.ln_eps).output)
            }
            None => Cow::Borrowed(output),
        })
    }

    /// logits = h·W_vocabᵀ + b for the vocabulary entries `cols` (the whole vocabulary in one
    /// pass, a band of it per slice in `model::sliced`).
    pub(in crate::model) fn logits_columns(
        &self,
        h: ArrayView2<f32>,
        cols: std::ops::Range<usize>,
    ) -> Array2<f32> {
        let w = &self.weights;
        let Some(bias) = &w.lm_bias else {
            return Array2::zeros((h.nrows(), 0));
        };
        w.output_matrix()
            .linear(h, cols.clone(), bias.slice(ndarray::s![cols]))
    }

    /// A stack over a whole planned input (no cache).
    pub(super) fn run_planned(
        &self,
        stack: &StackWeights,
        plan: &StackPlan,
        memory: Option<(ArrayView2<f32>, &[String], &[bool])>,
        opts: &ForwardOptions,
        id: StackId,
        keep_blocks: bool,
    ) -> Result<StackTrace> {
        self.stack(stack, planned_run(plan, memory, opts, id, keep_blocks))
    }

    /// Multiply-adds of the largest product a pass over `rows` positions runs (the FFN's or
    /// the output layer's): whether the pass is worth the thread pool (`parallel::in_pool`).
    pub(super) fn largest_product(&self, rows: usize) -> usize {
        let c = &self.config;
        rows.saturating_mul(c.d_model)
            .saturating_mul(c.d_ff.max(c.vocab_size()))
    }

    /// The largest product of a pass over `input` (see `largest_product`).
    pub fn pass_size(&self, input: &ModelInput) -> usize {
        self.largest_product(input.source.len().max(input.target.len()))
    }

    /// The traced forward pass over a whole input.
    pub fn forward(&self, input: &ModelInput, opts: &ForwardOptions) -> Result<Trace> {
        self.forward_keeping(input, opts, true)
    }

    /// The forward pass without its trace: the same logits `[T, V]` (every position) as
    /// [`Model::forward`], the intermediates freed layer by layer instead of kept. For timing
    /// the trace's cost, and for callers that only want the output.
    pub fn forward_logits(&self, input: &ModelInput, opts: &ForwardOptions) -> Result<Array2<f32>> {
        Ok(self.forward_keeping(input, opts, false)?.logits)
    }

    fn forward_keeping(
        &self,
        input: &ModelInput,
        opts: &ForwardOptions,
        keep_blocks: bool,
    ) -> Result<Trace> {
        count_forward_pass();
        crate::model::parallel::in_pool(self.pass_size(input), || -> Result<Trace> {
            let plan = self.plan(input, opts)?;
            let encoder = match (&self.weights.encoder, &plan.encoder) {
                (Some(stack), Some(p)) => {
                    Some(self.run_planned(stack, p, None, opts, StackId::Encoder, keep_blocks)?)
                }
                _ => None,
            };
            let decoder = match (&self.weights.decoder, &plan.decoder) {
                (Some(stack), Some(p)) => {
                    let memory = encoder
                        .as_ref()
                        .zip(plan.encoder.as_ref())
                        .map(|(e, ep)| (e.output.view(), e.tokens.as_slice(), ep.pads.as_slice()));
                    Some(self.run_planned(stack, p, memory, opts, StackId::Decoder, keep_blocks)?)
                }
                _ => None,
            };
            Ok(self.trace_of(encoder, decoder))
        })
    }

    /// The trace of a whole pass, its logits from the last stack's output.
    pub(in crate::model) fn trace_of(
        &self,
        encoder: Option<StackTrace>,
        decoder: Option<StackTrace>,
    ) -> Trace {
        let last = decoder.as_ref().or(encoder.as_ref()).map(|s| &s.output);
        let logits = last.map(|o| self.logits(o)).unwrap_or_default();
        self.trace_with(encoder, decoder, logits)
    }

    /// The trace of a whole pass whose logits are already computed.
    pub(in crate::model) fn trace_with(
        &self,
        encoder: Option<StackTrace>,
        decoder: Option<StackTrace>,
        logits: Array2<f32>,
    ) -> Trace {
        Trace {
            model: self.config.name.clone(),
            family: self.config.family,
            encoder,
            decoder,
            logits,
        }
    }

    /// Sequences of different lengths padded with `<pad>` to the longest, each run with the
    /// padding mask (unless `opts.mask_padding` is off, to show what goes wrong).
    pub fn forward_batch(
        &self,
        inputs: &[ModelInput],
        opts: &ForwardOptions,
    ) -> Result<Vec<Trace>> {
        let longest_src = inputs.iter().map(|i| i.source.len()).max().unwrap_or(0);
        let longest_tgt = inputs.iter().map(|i| i.target.len()).max().unwrap_or(0);
        inputs
            .iter()
            .map(|i| {
                let mut padded = i.clone();
                let pad = self.tokenizer.specials().pad.unwrap_or(PAD);
                padded.source.resize(longest_src, pad);
                padded.target.resize(longest_tgt, pad);
                self.forward(&padded, opts)
            })
            .collect()
    }
}
