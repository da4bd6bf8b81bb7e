//! Reading the residual stream out, and resuming a pass part-way (the logit lens and
//! activation patching, `crate::analysis`).

use super::plan::StackPlan;
use super::stack::{planned_run, StackSoFar};
use super::{count_forward_pass, ForwardOptions, Model, ModelInput};
use crate::model::dropout::StackId;
use crate::model::error::{ModelError, Result};
use crate::model::layers::norm;
use crate::model::weights::StackWeights;
use ndarray::{Array2, ArrayView2, Axis};

/// Reading the residual stream out, and resuming a pass part-way (the logit lens and
/// activation patching, `crate::analysis`).
impl Model {
    /// Whether the model predicts tokens (a sentence encoder such as MiniLM has no output layer).
    pub fn has_output_layer(&self) -> bool {
        self.weights.lm_bias.is_some()
    }

    /// The stack whose output the output layer reads (the decoder where there is one).
    pub fn read_stack_weights(&self) -> Option<&StackWeights> {
        self.weights
            .decoder
            .as_ref()
            .or(self.weights.encoder.as_ref())
    }

    /// `W_U · final_norm(resid) + b_U` for rows of that stack's residual stream: what the
    /// model would predict if its stack ended there (`[T, 0]` without an output layer).
    pub fn read_out(&self, resid: ArrayView2<f32>) -> Array2<f32> {
        let ln_f = self.read_stack_weights().and_then(|s| s.ln_f.as_ref());
        let normed = match ln_f {
            Some(ln) => {
                norm(
                    self.config.extensions.norm_kind,
                    resid,
                    ln,
                    self.config.ln_eps,
                )
                .output
            }
            None => resid.to_owned(),
        };
        self.logits(&normed)
    }
}

impl Model {
    /// A decoder-only pass resumed at block `from`, in copies side by side: `x` holds each copy's
    /// input to that block one after another (`[copies · T, d]`), each copy attends only
    /// within itself (a block-diagonal mask, positions 0…T−1 in each), and the logits come
    /// back at `position` of each copy (`[copies, V]`). Patching one block recomputes neither
    /// the blocks before it nor the output layer at the other positions, and one matrix
    /// product per layer serves every copy, so the block's weights are read once, not once a
    /// copy.
    pub fn resume_decoder_copies(
        &self,
        input: &ModelInput,
        opts: &ForwardOptions,
        from: usize,
        x: Array2<f32>,
        position: usize,
    ) -> Result<Array2<f32>> {
        let plan = self.plan(input, opts)?;
        let (None, Some(stack), Some(p)) = (&plan.encoder, &self.weights.decoder, &plan.decoder)
        else {
            return Err(ModelError::Input(format!(
                "{} is not a decoder-only model: a pass resumes part-way only there",
                self.config.name
            )));
        };
        let t = p.ids.len();
        if t == 0
            || !x.nrows().is_multiple_of(t)
            || x.ncols() != self.config.d_model
            || position >= t
        {
            return Err(ModelError::Input(format!(
                "resumed copies need a multiple of {t} rows of {} and a position among them",
                self.config.d_model
            )));
        }
        let copies = x.nrows() / t;
        let repeat =
            |v: &[usize]| -> Vec<usize> { (0..copies).flat_map(|_| v.iter().copied()).collect() };
        let batched = StackPlan {
            ids: (0..copies).flat_map(|_| p.ids.iter().copied()).collect(),
            types: Vec::new(),
            tokens: (0..copies).flat_map(|_| p.tokens.iter().cloned()).collect(),
            positions: repeat(&p.positions),
            // Copy a's row i sees copy b's key j only when a = b and the model's mask allows.
            allowed: Array2::from_shape_fn((copies * t, copies * t), |(i, j)| {
                i / t == j / t && p.allowed[[i % t, j % t]]
            }),
            pads: (0..copies).flat_map(|_| p.pads.iter().copied()).collect(),
            cross_allowed: None,
        };
        count_forward_pass();
        let run = planned_run(&batched, None, opts, StackId::Decoder, false);
        let mut so_far = StackSoFar::resumed(batched.tokens.clone(), x, from);
        while so_far.done < stack.blocks.len() {
            self.next_block(stack, &mut so_far, &run, None)?;
        }
        let rows: Vec<usize> = (0..copies).map(|c| c * t + position).collect();
        Ok(self.read_out(so_far.stream().select(Axis(0), &rows).view()))
    }
}
