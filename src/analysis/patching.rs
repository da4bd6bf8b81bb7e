//! Activation patching: which activations of a clean run restore its answer when copied into a
//! corrupted run of the same length. With `LD = logit(A) − logit(B)` at the last position,
//!
//!   score = (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt)
//!
//! so 1 means "this activation alone restores the clean answer" and 0 "it changes nothing".
//! Two sweeps: the residual stream `resid[l]` at every block l < L and position p, and each
//! head's output (its slice of W_O's input) at every position. A patched run resumes the
//! corrupted run at the patched block: the blocks before it are not recomputed, the patches of
//! one block run side by side as copies of the input (`Model::resume_decoder_copies`: one
//! matrix product per layer for all of them), and the output layer runs at the last position
//! only. Decoder-only models.

use super::{quoted, AnalysisError, Result};
use crate::model::{AttentionKind, ForwardOptions, HeadId, Intervention, Model, ModelInput, Trace};
use ndarray::{s, Array2, Array3, Axis};
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

/// Rows a batch of copies may have: their attention scores are `rows² × heads` floats.
const MAX_BATCH_ROWS: usize = 512;

/// Patches run together: copies of the corrupted input at block `layer`, one per position
/// (or head) from `first`, `count` of them.
#[derive(Debug, Clone, Copy)]
struct Unit {
    heads: bool,
    layer: usize,
    first: usize,
    count: usize,
}

/// A patching sweep, run a patch at a time (the app spreads it over frames) or all at once.
pub struct Sweep {
    corrupt: ModelInput,
    /// Each block's input in the clean and the corrupted run.
    clean_resid: Vec<Array2<f32>>,
    corrupt_resid: Vec<Array2<f32>>,
    /// Each block's per-head outputs `[H, T, d_head]` in the clean and the corrupted run.
    clean_heads: Vec<Array3<f32>>,
    corrupt_heads: Vec<Array3<f32>>,
    units: Vec<Unit>,
    next: usize,
    pub result: Patching,
}

impl Sweep {
    /// Runs the clean and corrupted passes and lists the patches. Refuses models that are not
    /// decoder-only, empty or unequal texts, and texts that give the same logit difference.
    pub fn new(
        model: &Model,
        clean: Vec<u32>,
        corrupt: Vec<u32>,
        target: u32,
        contrast: u32,
    ) -> Result<Self> {
        let opts = ForwardOptions::default();
        let input = |ids: &[u32]| model.input_from_ids(ids.to_vec(), Vec::new());
        Self::check(model, &clean, &corrupt)?;
        let clean_trace = model.forward(&input(&clean), &opts)?;
        let corrupt_trace = model.forward(&input(&corrupt), &opts)?;
        Self::from_traces(model, &clean_trace, &corrupt_trace, target, contrast)
    }

    /// Refuses what cannot be patched: models that are not decoder-only or have no output
    /// layer, empty texts, texts of different lengths (with both token lists).
    pub fn check(model: &Model, clean: &[u32], corrupt: &[u32]) -> Result<()> {
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
                clean: quoted(&tokens(clean)),
                clean_len: clean.len(),
                corrupt: quoted(&tokens(corrupt)),
                corrupt_len: corrupt.len(),
            });
        }
        Ok(())
    }

    /// The sweep over two traced passes of `model` (the app runs them through its store, a
    /// slice a frame), checked as in [`Sweep::check`].
    pub fn from_traces(
        model: &Model,
        clean_trace: &Trace,
        corrupt_trace: &Trace,
        target: u32,
        contrast: u32,
    ) -> Result<Self> {
        let stacks = (&clean_trace.decoder, &corrupt_trace.decoder);
        let (Some(c), Some(x)) = stacks else {
            return Err(AnalysisError::Undefined("no decoder stack".to_string()));
        };
        let (clean, corrupt) = (c.ids.clone(), x.ids.clone());
        Self::check(model, &clean, &corrupt)?;
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
        let clean_resid: Vec<_> = c.blocks.iter().map(|b| b.input.clone()).collect();
        let corrupt_resid: Vec<_> = x.blocks.iter().map(|b| b.input.clone()).collect();
        let head_outs = |s: &crate::model::trace::StackTrace| -> Vec<Array3<f32>> {
            s.blocks
                .iter()
                .map(|b| b.self_attn.inner.head_out.clone())
                .collect()
        };
        let (clean_heads, corrupt_heads) = (head_outs(c), head_outs(x));
        let (layers, t, heads) = (clean_resid.len(), clean.len(), model.config.n_heads);
        let per_batch = (MAX_BATCH_ROWS / t).max(1);
        let batches = move |heads_too: bool, n: usize| {
            (0..layers).flat_map(move |layer| {
                (0..n).step_by(per_batch).map(move |first| Unit {
                    heads: heads_too,
                    layer,
                    first,
                    count: per_batch.min(n - first),
                })
            })
        };
        let units = batches(false, t).chain(batches(true, heads)).collect();
        Ok(Self {
            corrupt: model.input_from_ids(corrupt, Vec::new()),
            clean_resid,
            corrupt_resid,
            clean_heads,
            corrupt_heads,
            units,
            next: 0,
            result: Patching {
                tokens_clean: c.tokens.clone(),
                tokens_corrupt: x.tokens.clone(),
                target,
                contrast,
                ld_clean,
                ld_corrupt,
                resid: vec![vec![f64::NAN; t]; layers],
                heads: vec![vec![f64::NAN; heads]; layers],
            },
        })
    }

    /// Patches done so far, and in all.
    pub fn progress(&self) -> (usize, usize) {
        let count = |units: &[Unit]| units.iter().map(|u| u.count).sum();
        (count(&self.units[..self.next]), count(&self.units))
    }

    pub fn is_done(&self) -> bool {
        self.next >= self.units.len()
    }

    /// Runs the next batch of patches (one block's); false once every patch has run.
    pub fn step(&mut self, model: &Model) -> Result<bool> {
        let Some(&unit) = self.units.get(self.next) else {
            return Ok(false);
        };
        let scores = self.scores(model, unit)?;
        self.record(unit, &scores);
        self.next += 1;
        Ok(true)
    }

    /// Every patch left (natively the batches spread over the cores).
    pub fn run_all(mut self, model: &Model) -> Result<Patching> {
        let left: Vec<Unit> = self.units[self.next..].to_vec();
        #[cfg(not(target_arch = "wasm32"))]
        let scores: Vec<Result<Vec<f64>>> = {
            use rayon::prelude::*;
            left.par_iter().map(|&u| self.scores(model, u)).collect()
        };
        #[cfg(target_arch = "wasm32")]
        let scores: Vec<Result<Vec<f64>>> = left.iter().map(|&u| self.scores(model, u)).collect();
        for (unit, scores) in left.into_iter().zip(scores) {
            self.record(unit, &scores?);
        }
        self.next = self.units.len();
        Ok(self.result)
    }

    fn record(&mut self, unit: Unit, scores: &[f64]) {
        let row = match unit.heads {
            false => &mut self.result.resid[unit.layer],
            true => &mut self.result.heads[unit.layer],
        };
        row[unit.first..unit.first + unit.count].copy_from_slice(scores);
    }

    /// The corrupted run with one activation from the clean run, once per patch of the unit,
    /// the copies side by side; each scored.
    fn scores(&self, model: &Model, unit: Unit) -> Result<Vec<f64>> {
        let Unit {
            heads,
            layer,
            first,
            count,
        } = unit;
        let base = &self.corrupt_resid[layer];
        let t = base.nrows();
        // Copy k starts from the corrupted run's input to the block.
        let mut x = Array2::zeros((count * t, base.ncols()));
        for k in 0..count {
            x.slice_mut(s![k * t..(k + 1) * t, ..]).assign(base);
        }
        let mut opts = ForwardOptions::default();
        if heads {
            // Copy k takes head first + k's output from the clean run; every other copy keeps
            // that head's corrupted output, which it computes anyway from the same input.
            opts.interventions = (first..first + count)
                .map(|h| {
                    let mut value = Array2::zeros((count * t, self.clean_heads[layer].shape()[2]));
                    for k in 0..count {
                        let run = if first + k == h {
                            &self.clean_heads[layer]
                        } else {
                            &self.corrupt_heads[layer]
                        };
                        value
                            .slice_mut(s![k * t..(k + 1) * t, ..])
                            .assign(&run.index_axis(Axis(0), h));
                    }
                    let head = HeadId {
                        kind: AttentionKind::DecoderSelf,
                        layer,
                        head: h,
                    };
                    Intervention::Head { head, value }
                })
                .collect();
        } else {
            return self.residual_scores(model, layer, first, count);
        }
        let logits = model.resume_decoder_copies(&self.corrupt, &opts, layer, x, t - 1)?;
        Ok(self.scored(&logits))
    }

    /// Each row of `logits` (one per patch) scored against the clean and corrupted runs.
    fn scored(&self, logits: &Array2<f32>) -> Vec<f64> {
        let r = &self.result;
        logits
            .rows()
            .into_iter()
            .map(|row| {
                let ld = f64::from(row[r.target as usize]) - f64::from(row[r.contrast as usize]);
                (ld - r.ld_corrupt) / (r.ld_clean - r.ld_corrupt)
            })
            .collect()
    }

    /// Residual patches at positions `first…first + count` of block `layer`. A causal model's
    /// rows before the patched position are the corrupted run's, so each patch computes only
    /// its rows from the patched position on; they attend to one shared copy of the corrupted
    /// rows before them (computed once for all the patches), which is what they would have
    /// computed themselves.
    fn residual_scores(
        &self,
        model: &Model,
        layer: usize,
        first: usize,
        count: usize,
    ) -> Result<Vec<f64>> {
        let (clean, corrupt) = (&self.clean_resid[layer], &self.corrupt_resid[layer]);
        let t = corrupt.nrows();
        let shared = (first + count - 1).min(t);
        // Rows: the shared prefix 0…shared−1, then patch k's positions first + k…T−1.
        let mut rows: Vec<usize> = (0..shared).collect();
        let mut patch_of: Vec<Option<usize>> = vec![None; shared];
        let mut read = Vec::with_capacity(count);
        for k in 0..count {
            rows.extend(first + k..t);
            patch_of.extend(std::iter::repeat_n(Some(first + k), t - first - k));
            read.push(rows.len() - 1);
        }
        let mut x = Array2::zeros((rows.len(), corrupt.ncols()));
        for (r, (&pos, patch)) in rows.iter().zip(&patch_of).enumerate() {
            let source = if *patch == Some(pos) { clean } else { corrupt };
            x.row_mut(r).assign(&source.row(pos));
        }
        // A shared row sees the shared rows before it; a patch's row sees the shared rows
        // before its patched position and its own rows up to itself.
        let allowed = Array2::from_shape_fn((rows.len(), rows.len()), |(i, j)| {
            match (patch_of[i], patch_of[j]) {
                (None, None) => j <= i,
                (Some(p), None) => rows[j] < p,
                (Some(p), Some(q)) => p == q && rows[j] <= rows[i],
                (None, Some(_)) => false,
            }
        });
        let opts = ForwardOptions::default();
        let logits =
            model.resume_decoder_rows(&self.corrupt, &opts, layer, x, &rows, allowed, &read)?;
        Ok(self.scored(&logits))
    }
}
