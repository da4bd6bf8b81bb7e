//! Each head's ablation effect on one answer: the clean run with head h of block l switched
//! off (its output zeroed before W_O, as in the Heads off lab), scored by how far the logit
//! difference moves,
//!
//!   effect(l, h) = LD_ablated − LD,   LD = logit(A) − logit(B) at the last position,
//!
//! so a head that helped the answer has a negative effect. A block's heads run side by side
//! as copies resumed at that block (`Model::resume_decoder_copies`), a block per step, so the
//! app can spread them over frames. Decoder-only models.

use super::{needs_output_layer, AnalysisError, Result};
use crate::model::{AttentionKind, ForwardOptions, HeadId, Intervention, Model, ModelInput, Trace};
use ndarray::{s, Array2, Array3, Axis};

/// Every head's effect, filled a block at a time (`NaN` where not yet run).
pub struct Ablation {
    input: ModelInput,
    resid: Vec<Array2<f32>>,
    heads: Vec<Array3<f32>>,
    target: u32,
    contrast: u32,
    /// `LD` of the run with every head on.
    pub ld: f64,
    /// `[block][head]`: `LD_ablated − LD`.
    pub effects: Vec<Vec<f64>>,
    next: usize,
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
        let layers = stack.blocks.len();
        Ok(Self {
            input: model.input_from_ids(stack.ids.clone(), Vec::new()),
            resid: stack.blocks.iter().map(|b| b.input.clone()).collect(),
            heads: stack
                .blocks
                .iter()
                .map(|b| b.self_attn.inner.head_out.clone())
                .collect(),
            target,
            contrast,
            ld,
            effects: vec![vec![f64::NAN; model.config.n_heads]; layers],
            next: 0,
        })
    }

    /// Blocks done, and in all.
    pub fn progress(&self) -> (usize, usize) {
        (self.next, self.effects.len())
    }

    pub fn is_done(&self) -> bool {
        self.next >= self.effects.len()
    }

    /// Switches off each head of the next block in turn; false once every block has run.
    pub fn step(&mut self, model: &Model) -> Result<bool> {
        let layer = self.next;
        let Some(base) = self.resid.get(layer) else {
            return Ok(false);
        };
        let outs = &self.heads[layer];
        let (n, t, dh) = outs.dim();
        let mut x = Array2::zeros((n * t, base.ncols()));
        for k in 0..n {
            x.slice_mut(s![k * t..(k + 1) * t, ..]).assign(base);
        }
        // Copy k has head k zeroed; every other copy keeps that head's own output.
        let interventions = (0..n)
            .map(|h| {
                let mut value = Array2::zeros((n * t, dh));
                for k in (0..n).filter(|&k| k != h) {
                    value
                        .slice_mut(s![k * t..(k + 1) * t, ..])
                        .assign(&outs.index_axis(Axis(0), h));
                }
                let head = HeadId {
                    kind: AttentionKind::DecoderSelf,
                    layer,
                    head: h,
                };
                Intervention::Head { head, value }
            })
            .collect();
        let opts = ForwardOptions {
            interventions,
            ..ForwardOptions::default()
        };
        let logits = model.resume_decoder_copies(&self.input, &opts, layer, x, t - 1)?;
        let (a, b) = (self.target as usize, self.contrast as usize);
        for (h, row) in logits.rows().into_iter().enumerate() {
            self.effects[layer][h] = f64::from(row[a]) - f64::from(row[b]) - self.ld;
        }
        self.next += 1;
        Ok(true)
    }
}
