//! Each head's ablation effect on one answer: the clean run with head h of block l switched
//! off (its output zeroed before W_O, as in the Heads off lab), scored by how far the logit
//! difference moves,
//!
//!   effect(l, h) = LD_ablated − LD,   LD = logit(A) − logit(B) at the last position,
//!
//! so a head that helped the answer has a negative effect. Each ablation is the run resumed at
//! its block with that head's output zero at every position; a block's heads run side by side
//! (`super::batched`), half a block of the model per step, so the app can spread them out.
//! Decoder-only models.

use super::batched::{Batched, Run, Scored};
use super::{needs_output_layer, AnalysisError, Result};
use crate::model::transformer::Variant;
use crate::model::{Model, ModelInput, Trace};
use ndarray::Array2;

/// Every head's effect, filled a unit at a time (`NaN` where not yet run).
pub struct Ablation {
    input: ModelInput,
    /// Each block's input in the run.
    resid: Vec<Array2<f32>>,
    d_head: usize,
    batches: Batched<usize>,
    target: u32,
    contrast: u32,
    /// `LD` of the run with every head on.
    pub ld: f64,
    /// `[block][head]`: `LD_ablated − LD`.
    pub effects: Vec<Vec<f64>>,
}

impl Ablation {
    /// From a traced pass (blocks kept) of a decoder-only model.
    pub fn new(model: &Model, trace: &Trace, target: u32, contrast: u32) -> Result<Self> {
        needs_output_layer(model, "ablation")?;
        let (None, Some(stack)) = (&trace.encoder, &trace.decoder) else {
            return Err(AnalysisError::Undefined(format!(
                "{} is not decoder-only: ablation scores the next token at the last position",
                model.config.name
            )));
        };
        let last = trace.logits.nrows().saturating_sub(1);
        let (a, b) = (target as usize, contrast as usize);
        if a.max(b) >= trace.logits.ncols() || stack.blocks.is_empty() {
            return Err(AnalysisError::Undefined(
                "the tokens are outside the vocabulary".to_string(),
            ));
        }
        let ld = f64::from(trace.logits[[last, a]]) - f64::from(trace.logits[[last, b]]);
        let (layers, heads, t) = (stack.blocks.len(), model.config.n_heads, stack.ids.len());
        Ok(Self {
            input: model.input_from_ids(stack.ids.clone(), Vec::new()),
            resid: stack.blocks.iter().map(|b| b.input.clone()).collect(),
            d_head: model.config.d_head(),
            batches: Batched::new(layers, |_| (0..heads).collect(), |_, _| t),
            target,
            contrast,
            ld,
            effects: vec![vec![f64::NAN; heads]; layers],
        })
    }

    /// Heads done, and in all.
    pub fn progress(&self) -> (usize, usize) {
        self.batches.progress()
    }

    pub fn is_done(&self) -> bool {
        self.batches.is_done()
    }

    /// Runs the next half block of the unit of heads under way; false once every head has run.
    pub fn step(&mut self, model: &Model) -> Result<bool> {
        let (resid, d_head) = (&self.resid, self.d_head);
        let run = Run {
            model,
            input: &self.input,
            kv: &[],
            variant: |layer: usize, head: usize| {
                let x: &Array2<f32> = &resid[layer];
                let off = Array2::zeros((x.nrows(), d_head));
                Some(Variant {
                    start: 0,
                    x: x.clone(),
                    head: Some((head, off)),
                })
            },
            target: self.target,
            contrast: self.contrast,
        };
        if let Some(scored) = self.batches.step(&run)? {
            record(&mut self.effects, self.ld, &scored);
        }
        Ok(!self.batches.is_done())
    }
}

fn record(effects: &mut [Vec<f64>], ld: f64, scored: &Scored<usize>) {
    for &(head, ablated) in &scored.scores {
        effects[scored.layer][head] = ablated.map_or(0.0, |ablated| ablated - ld);
    }
}
