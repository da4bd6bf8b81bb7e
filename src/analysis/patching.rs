//! Activation patching: which activations of a clean run restore its answer when copied into a
//! corrupted run of the same length. With `LD = logit(A) − logit(B)` at the last position,
//!
//!   score = (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt)
//!
//! so 1 means "this activation alone restores the clean answer" and 0 "it changes nothing".
//! Two sweeps: the residual stream `resid[l]` at every block l < L and position p, and each
//! head's output (its slice of W_O's input) at every position. A patched run resumes the
//! corrupted run at the patched block (`Model::resume_decoder`): the blocks before it are not
//! recomputed, and the output layer runs at the last position only. Decoder-only models.

use super::{quoted, AnalysisError, Result};
use crate::model::{AttentionKind, ForwardOptions, HeadId, Intervention, Model, ModelInput};
use ndarray::{Array2, Array3};
use serde::Serialize;

/// A sweep's results so far (`NaN` where a patch has not run yet).
#[derive(Debug, Clone, Serialize)]
pub struct Patching {
    pub tokens_clean: Vec<String>,
    pub tokens_corrupt: Vec<String>,
    pub target: u32,
    pub contrast: u32,
    pub ld_clean: f64,
    pub ld_corrupt: f64,
    /// `[block][position]`: patching `resid[block]` at that position.
    pub resid: Vec<Vec<f64>>,
    /// `[block][head]`: patching that head's output at every position.
    pub heads: Vec<Vec<f64>>,
}

/// One patch of the sweep.
#[derive(Debug, Clone, Copy)]
enum Unit {
    Residual { layer: usize, position: usize },
    Head { layer: usize, head: usize },
}

/// A patching sweep, run a patch at a time (the app spreads it over frames) or all at once.
pub struct Sweep<'m> {
    model: &'m Model,
    corrupt: ModelInput,
    /// Each block's input in the clean and the corrupted run.
    clean_resid: Vec<Array2<f32>>,
    corrupt_resid: Vec<Array2<f32>>,
    /// Each block's per-head outputs `[H, T, d_head]` in the clean run.
    clean_heads: Vec<Array3<f32>>,
    units: Vec<Unit>,
    next: usize,
    pub result: Patching,
}

impl<'m> Sweep<'m> {
    /// Runs the clean and corrupted passes and lists the patches. Refuses models that are not
    /// decoder-only, empty or unequal texts, and texts that give the same logit difference.
    pub fn new(
        model: &'m Model,
        clean: Vec<u32>,
        corrupt: Vec<u32>,
        target: u32,
        contrast: u32,
    ) -> Result<Self> {
        let name = &model.config.name;
        let family = model.config.family;
        if !family.has_decoder() {
            return Err(AnalysisError::Undefined(format!(
                "{name} is an encoder: it predicts no next token, so there is no answer at the \
                 last position to patch; patching runs on decoder-only models"
            )));
        }
        if family.has_encoder() {
            return Err(AnalysisError::Undefined(format!(
                "{name} is an encoder–decoder model; patching runs on decoder-only models"
            )));
        }
        super::needs_output_layer(model, "patching")?;
        if clean.is_empty() || corrupt.is_empty() {
            return Err(AnalysisError::Undefined(
                "a text is empty: type a clean and a corrupted text".to_string(),
            ));
        }
        let tokens = |ids: &[u32]| model.tokenizer.tokens(ids);
        if clean.len() != corrupt.len() {
            return Err(AnalysisError::Lengths {
                clean: quoted(&tokens(&clean)),
                clean_len: clean.len(),
                corrupt: quoted(&tokens(&corrupt)),
                corrupt_len: corrupt.len(),
            });
        }
        let opts = ForwardOptions::default();
        let input = |ids: Vec<u32>| ModelInput {
            source: Vec::new(),
            source_types: Vec::new(),
            target: ids,
        };
        let (clean_in, corrupt_in) = (input(clean.clone()), input(corrupt.clone()));
        let clean_trace = model.forward(&clean_in, &opts)?;
        let corrupt_trace = model.forward(&corrupt_in, &opts)?;
        let ld = |logits: &Array2<f32>| -> Result<f64> {
            let last = logits.nrows() - 1;
            let (a, b) = (target as usize, contrast as usize);
            if a.max(b) >= logits.ncols() {
                return Err(AnalysisError::Undefined(format!(
                    "token id {} is outside the vocabulary of {}",
                    a.max(b),
                    logits.ncols()
                )));
            }
            Ok(f64::from(logits[[last, a]]) - f64::from(logits[[last, b]]))
        };
        let (ld_clean, ld_corrupt) = (ld(&clean_trace.logits)?, ld(&corrupt_trace.logits)?);
        if ld_clean == ld_corrupt {
            return Err(AnalysisError::Undefined(
                "the clean and corrupted texts give the same logit difference: there is \
                 nothing to restore"
                    .to_string(),
            ));
        }
        let stacks = (clean_trace.decoder, corrupt_trace.decoder);
        let (Some(c), Some(x)) = stacks else {
            return Err(AnalysisError::Undefined("no decoder stack".to_string()));
        };
        let clean_resid: Vec<_> = c.blocks.iter().map(|b| b.input.clone()).collect();
        let corrupt_resid: Vec<_> = x.blocks.iter().map(|b| b.input.clone()).collect();
        let clean_heads: Vec<_> = c
            .blocks
            .iter()
            .map(|b| b.self_attn.inner.head_out.clone())
            .collect();
        let (layers, t, heads) = (clean_resid.len(), clean.len(), model.config.n_heads);
        let units = (0..layers)
            .flat_map(|layer| (0..t).map(move |position| Unit::Residual { layer, position }))
            .chain(
                (0..layers)
                    .flat_map(|layer| (0..heads).map(move |head| Unit::Head { layer, head })),
            )
            .collect();
        Ok(Self {
            model,
            corrupt: corrupt_in,
            clean_resid,
            corrupt_resid,
            clean_heads,
            units,
            next: 0,
            result: Patching {
                tokens_clean: c.tokens,
                tokens_corrupt: x.tokens,
                target,
                contrast,
                ld_clean,
                ld_corrupt,
                resid: vec![vec![f64::NAN; t]; layers],
                heads: vec![vec![f64::NAN; heads]; layers],
            },
        })
    }

    /// Patches in all, and done so far.
    pub fn progress(&self) -> (usize, usize) {
        (self.next, self.units.len())
    }

    pub fn is_done(&self) -> bool {
        self.next >= self.units.len()
    }

    /// Runs the next patch; false once every patch has run.
    pub fn step(&mut self) -> Result<bool> {
        let Some(&unit) = self.units.get(self.next) else {
            return Ok(false);
        };
        let score = self.score(unit)?;
        self.record(unit, score);
        self.next += 1;
        Ok(true)
    }

    /// Every patch left (natively spread over the cores, a patch per task).
    pub fn run_all(mut self) -> Result<Patching> {
        let left: Vec<Unit> = self.units[self.next..].to_vec();
        #[cfg(not(target_arch = "wasm32"))]
        let scores: Vec<Result<f64>> = {
            use rayon::prelude::*;
            left.par_iter().map(|&u| self.score(u)).collect()
        };
        #[cfg(target_arch = "wasm32")]
        let scores: Vec<Result<f64>> = left.iter().map(|&u| self.score(u)).collect();
        for (unit, score) in left.into_iter().zip(scores) {
            self.record(unit, score?);
        }
        self.next = self.units.len();
        Ok(self.result)
    }

    fn record(&mut self, unit: Unit, score: f64) {
        match unit {
            Unit::Residual { layer, position } => self.result.resid[layer][position] = score,
            Unit::Head { layer, head } => self.result.heads[layer][head] = score,
        }
    }

    /// The corrupted run with one activation from the clean run, scored.
    fn score(&self, unit: Unit) -> Result<f64> {
        let last = self.corrupt.target.len() - 1;
        let (layer, x, opts) = match unit {
            Unit::Residual { layer, position } => {
                let mut x = self.corrupt_resid[layer].clone();
                x.row_mut(position)
                    .assign(&self.clean_resid[layer].row(position));
                (layer, x, ForwardOptions::default())
            }
            Unit::Head { layer, head } => {
                let value = self.clean_heads[layer]
                    .index_axis(ndarray::Axis(0), head)
                    .to_owned();
                let head = HeadId {
                    kind: AttentionKind::DecoderSelf,
                    layer,
                    head,
                };
                let opts = ForwardOptions {
                    interventions: vec![Intervention::Head { head, value }],
                    ..ForwardOptions::default()
                };
                (layer, self.corrupt_resid[layer].clone(), opts)
            }
        };
        let logits = self
            .model
            .resume_decoder(&self.corrupt, &opts, layer, x, last)?;
        let r = &self.result;
        let ld = f64::from(logits[r.target as usize]) - f64::from(logits[r.contrast as usize]);
        Ok((ld - r.ld_corrupt) / (r.ld_clean - r.ld_corrupt))
    }
}
