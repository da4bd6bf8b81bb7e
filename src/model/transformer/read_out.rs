//! Reading the residual stream out at any depth (the logit lens, and the answers of
//! patching and ablation, `crate::analysis`).

use super::Model;
use crate::model::error::{ModelError, Result};
use crate::model::layers::norm;
use crate::model::weights::StackWeights;
use ndarray::{Array2, ArrayView2};

/// Reading the residual stream out at any depth.
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
        self.logits(&self.final_norm(resid))
    }

    /// `logit(a) − logit(b)` for rows of the residual stream, through the final norm: two
    /// columns of the output layer instead of the whole vocabulary (patching and ablation read
    /// nothing else, and in the browser the vocabulary's 49,152 columns cost a frame).
    pub fn read_out_difference(&self, resid: ArrayView2<f32>, a: u32, b: u32) -> Result<Vec<f64>> {
        let normed = self.final_norm(resid);
        let vocab = self.weights.output_matrix().rows();
        let Some(h) = self
            .logits_input(&normed)
            .filter(|_| (a.max(b) as usize) < vocab)
        else {
            return Err(ModelError::Input(format!(
                "{} has no output entry for token {}",
                self.config.name,
                a.max(b)
            )));
        };
        let column = |c: u32| self.logits_columns(h.view(), c as usize..c as usize + 1);
        let (la, lb) = (column(a), column(b));
        Ok(la
            .iter()
            .zip(&lb)
            .map(|(&x, &y)| f64::from(x) - f64::from(y))
            .collect())
    }

    /// The final norm of the stack the output layer reads, where it has one.
    fn final_norm(&self, resid: ArrayView2<f32>) -> Array2<f32> {
        let ln_f = self.read_stack_weights().and_then(|s| s.ln_f.as_ref());
        match ln_f {
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
        }
    }
}
