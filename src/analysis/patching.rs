//! Activation patching: which activations of a clean run restore its answer when copied into a
//! corrupted run of the same length. With `LD = logit(A) − logit(B)` at the last position,
//!
//!   score = (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt)
//!
//! so 1 means "this activation alone restores the clean answer" and 0 "it changes nothing".
//! Two sweeps: the residual stream `resid[l]` at every block l < L and position p, and each
//! head's output (its slice of W_O's input) at every position. A patched run resumes the
//! corrupted run at the patched block: the blocks before it are not recomputed; in a causal
//! decoder a patch leaves the rows before the first one it changes as they were, so only its
//! rows from there on are computed, attending to the corrupted run's keys and values before
//! them (a patch that changes no row is the corrupted run: score 0). A block's patches run
//! side by side, in units (`super::batched`), and only the two output columns of A and B are
//! read, at the last position. Decoder-only models.

use super::batched::{Batched, Run, Scored};
use super::{quoted, AnalysisError, Result};
use crate::model::transformer::{BlockKv, Variant};
use crate::model::{ForwardOptions, Model, ModelInput, Trace};
use ndarray::{s, Array2, Array3, ArrayView1, Axis};
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

/// One activation patched: a row of the residual stream or a head's output.
#[derive(Debug, Clone, Copy)]
enum Patch {
    Resid(usize),
    Head(usize),
}

/// The clean and corrupted runs' activations a patch is made of.
struct Runs {
    /// Each block's input in the clean and the corrupted run.
    clean_resid: Vec<Array2<f32>>,
    corrupt_resid: Vec<Array2<f32>>,
    /// Each block's per-head outputs `[H, T, d_head]` in the clean and the corrupted run.
    clean_heads: Vec<Array3<f32>>,
    corrupt_heads: Vec<Array3<f32>>,
    /// Whether a patch's rows before the first one it changes are the corrupted run's (a
    /// causal decoder whose keys and values the corrupted trace holds).
    from_first_change: bool,
}

/// A patching sweep, run half a block of a unit of patches at a time (the app spreads it out)
/// or all at once.
pub struct Sweep {
    corrupt: ModelInput,
    runs: Runs,
    /// Each block's self-attention keys and values in the corrupted run.
    corrupt_kv: Vec<BlockKv>,
    batches: Batched<Patch>,
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
        let corrupt_kv: Vec<BlockKv> = x
            .blocks
            .iter()
            .map(|b| BlockKv {
                k: b.self_attn.inner.k.clone(),
                v: b.self_attn.inner.v.clone(),
            })
            .collect();
        let (layers, t, heads) = (clean_resid.len(), clean.len(), model.config.n_heads);
        let kv_dim = (model.config.n_kv_heads, t, model.config.d_head());
        let has_kv = corrupt_kv
            .iter()
            .all(|kv| kv.k.dim() == kv_dim && kv.v.dim() == kv_dim);
        let corrupt_input = model.input_from_ids(corrupt, Vec::new());
        let from_first_change = has_kv && model.decoder_is_causal(&corrupt_input)?;
        let runs = Runs {
            clean_resid,
            corrupt_resid,
            clean_heads,
            corrupt_heads,
            from_first_change,
        };
        let batches = Batched::new(
            layers,
            |_| {
                (0..t)
                    .map(Patch::Resid)
                    .chain((0..heads).map(Patch::Head))
                    .collect()
            },
            |layer, patch| runs.start(layer, patch).map_or(0, |start| t - start),
        );
        Ok(Self {
            corrupt: corrupt_input,
            runs,
            corrupt_kv,
            batches,
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
        self.batches.progress()
    }

    pub fn is_done(&self) -> bool {
        self.batches.is_done()
    }

    /// Runs the next half block of the unit of patches under way; false once every patch has
    /// run.
    pub fn step(&mut self, model: &Model) -> Result<bool> {
        let run = self
            .runs
            .run(model, &self.corrupt, &self.corrupt_kv, &self.result);
        if let Some(scored) = self.batches.step(&run)? {
            record(&mut self.result, &scored);
        }
        Ok(!self.batches.is_done())
    }

    /// Every patch left (natively the units spread over the cores).
    pub fn run_all(mut self, model: &Model) -> Result<Patching> {
        let run = self
            .runs
            .run(model, &self.corrupt, &self.corrupt_kv, &self.result);
        for scored in self.batches.run_all(&run)? {
            record(&mut self.result, &scored);
        }
        Ok(self.result)
    }
}

/// A unit's `LD`s as scores (a patch that changes nothing leaves the corrupted run: 0).
fn record(result: &mut Patching, scored: &Scored<Patch>) {
    for &(patch, ld) in &scored.scores {
        let score = ld.map_or(0.0, |ld| {
            (ld - result.ld_corrupt) / (result.ld_clean - result.ld_corrupt)
        });
        match patch {
            Patch::Resid(p) => result.resid[scored.layer][p] = score,
            Patch::Head(h) => result.heads[scored.layer][h] = score,
        }
    }
}

impl Runs {
    /// What the units need of the corrupted run, and the answer they read (`LD`).
    fn run<'a>(
        &'a self,
        model: &'a Model,
        corrupt: &'a ModelInput,
        kv: &'a [BlockKv],
        result: &Patching,
    ) -> Run<'a, impl Fn(usize, Patch) -> Option<Variant> + Sync + 'a> {
        Run {
            model,
            input: corrupt,
            kv,
            variant: move |layer, patch| self.variant(layer, patch),
            target: result.target,
            contrast: result.contrast,
        }
    }

    /// The first row `patch` at block `layer` changes (0 where the rows before it may change
    /// too: a decoder that is not causal); `None` where it changes none.
    fn start(&self, layer: usize, patch: Patch) -> Option<usize> {
        let differ = |a: ArrayView1<f32>, b: ArrayView1<f32>| a != b;
        let first = match patch {
            Patch::Resid(p) => {
                let (clean, corrupt) = (&self.clean_resid[layer], &self.corrupt_resid[layer]);
                differ(clean.row(p), corrupt.row(p)).then_some(p)
            }
            Patch::Head(h) => {
                let clean = self.clean_heads[layer].index_axis(Axis(0), h);
                let corrupt = self.corrupt_heads[layer].index_axis(Axis(0), h);
                (0..clean.nrows()).find(|&i| differ(clean.row(i), corrupt.row(i)))
            }
        }?;
        Some(if self.from_first_change { first } else { 0 })
    }

    /// The corrupted run with `patch` at block `layer`, from the first row it changes.
    fn variant(&self, layer: usize, patch: Patch) -> Option<Variant> {
        let start = self.start(layer, patch)?;
        let mut x = self.corrupt_resid[layer].slice(s![start.., ..]).to_owned();
        let head = match patch {
            Patch::Resid(p) => {
                x.row_mut(p - start).assign(&self.clean_resid[layer].row(p));
                None
            }
            Patch::Head(h) => {
                let clean = self.clean_heads[layer].index_axis(Axis(0), h);
                Some((h, clean.slice(s![start.., ..]).to_owned()))
            }
        };
        Some(Variant { start, x, head })
    }
}
