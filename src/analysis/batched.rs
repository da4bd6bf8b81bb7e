//! Many variants of one decoder-only run, each resumed at its block and scored by the logit
//! difference `LD = logit(A) − logit(B)` at the last position: the shared machinery of
//! activation patching and ablation. A block's variants go in units of at most
//! [`MAX_UNIT_ROWS`] rows, run side by side (`Model::resume_variants`); the app advances a
//! unit half a block at a time (attention, then the FFN), so no step of a sweep is longer
//! than that over one unit.

use super::Result;
use crate::model::transformer::{BlockKv, Resumption, Variant};
use crate::model::{Model, ModelInput};

/// Rows a unit may have. In the browser a step runs on the page's thread until the worker of
/// issue 36, and a step's time grows with its rows: the FFN half of a block over 64 rows took
/// up to 96 ms in Chromium; over 16 rows the longest steps were 41 ms (patching) and 77 ms
/// (ablation), for a sweep 25 % longer. Natively the units run on
/// threads of their own, and bigger units read each weight matrix fewer times.
#[cfg(target_arch = "wasm32")]
const MAX_UNIT_ROWS: usize = 16;
#[cfg(not(target_arch = "wasm32"))]
const MAX_UNIT_ROWS: usize = 512;

/// A block's variants run together, named by the caller's item `P` (a patch, a head).
#[derive(Debug, Clone)]
struct Unit<P> {
    layer: usize,
    items: Vec<P>,
}

/// A unit's results: each item's `LD`, `None` where it made no variant (it changes nothing).
pub struct Scored<P> {
    pub layer: usize,
    pub scores: Vec<(P, Option<f64>)>,
}

/// What a caller supplies: its variants, the run they resume, and the answer they score.
pub struct Run<'a, F> {
    pub model: &'a Model,
    pub input: &'a ModelInput,
    /// The run's keys and values at every block (read where a variant starts after row 0).
    pub kv: &'a [BlockKv],
    /// The variant of item `P` at a block; `None` where it would change nothing.
    pub variant: F,
    pub target: u32,
    pub contrast: u32,
}

/// Every unit of a sweep, and the one under way.
pub struct Batched<P> {
    units: Vec<Unit<P>>,
    next: usize,
    running: Option<(Vec<usize>, Resumption)>,
}

impl<P: Copy> Batched<P> {
    /// Each block's `items`, cut into units of at most [`MAX_UNIT_ROWS`] rows (`rows`: how
    /// many an item resumes; a unit takes at least one item).
    pub fn new(
        layers: usize,
        items: impl Fn(usize) -> Vec<P>,
        rows: impl Fn(usize, P) -> usize,
    ) -> Self {
        let mut units = Vec::new();
        for layer in 0..layers {
            let mut unit = Unit {
                layer,
                items: Vec::new(),
            };
            let mut taken = 0;
            for item in items(layer) {
                let n = rows(layer, item);
                if taken + n > MAX_UNIT_ROWS && !unit.items.is_empty() {
                    let items = std::mem::take(&mut unit.items);
                    units.push(Unit { layer, items });
                    taken = 0;
                }
                unit.items.push(item);
                taken += n;
            }
            units.push(unit);
        }
        Self {
            units,
            next: 0,
            running: None,
        }
    }

    /// Items scored so far, and in all.
    pub fn progress(&self) -> (usize, usize) {
        let count = |units: &[Unit<P>]| units.iter().map(|u| u.items.len()).sum();
        (count(&self.units[..self.next]), count(&self.units))
    }

    pub fn is_done(&self) -> bool {
        self.next >= self.units.len()
    }

    /// Half a block of the unit under way (started here when none is); its scores once its
    /// last block has run.
    pub fn step<F>(&mut self, run: &Run<'_, F>) -> Result<Option<Scored<P>>>
    where
        F: Fn(usize, P) -> Option<Variant>,
    {
        let Some(unit) = self.units.get(self.next) else {
            return Ok(None);
        };
        let running = match self.running.take() {
            Some(running) => running,
            None => match resume(unit, run)? {
                Some(started) => started,
                None => {
                    self.next += 1;
                    return Ok(Some(scored(unit, &[], &[])));
                }
            },
        };
        let (which, mut resumed) = running;
        if resumed.next_part(run.model, run.kv)? {
            self.running = Some((which, resumed));
            return Ok(None);
        }
        self.next += 1;
        Ok(Some(scored(unit, &which, &read(&resumed, run)?)))
    }

    /// Every unit left, at once (natively spread over the cores).
    pub fn run_all<F>(&mut self, run: &Run<'_, F>) -> Result<Vec<Scored<P>>>
    where
        F: Fn(usize, P) -> Option<Variant> + Sync,
        P: Send + Sync,
    {
        let mut done = Vec::new();
        // The unit under way first, where it stands.
        while self.running.is_some() {
            done.extend(self.step(run)?);
        }
        let left = &self.units[self.next..];
        let one = |unit: &Unit<P>| -> Result<Scored<P>> {
            let Some((which, mut resumed)) = resume(unit, run)? else {
                return Ok(scored(unit, &[], &[]));
            };
            while resumed.next_part(run.model, run.kv)? {}
            Ok(scored(unit, &which, &read(&resumed, run)?))
        };
        #[cfg(not(target_arch = "wasm32"))]
        let all: Vec<Result<Scored<P>>> = {
            use rayon::prelude::*;
            left.par_iter().map(one).collect()
        };
        #[cfg(target_arch = "wasm32")]
        let all: Vec<Result<Scored<P>>> = left.iter().map(one).collect();
        for s in all {
            done.push(s?);
        }
        self.next = self.units.len();
        Ok(done)
    }
}

/// The unit's variants set up to resume at its block, with the index of the item each belongs
/// to; `None` where no item makes one (the unit changes nothing).
fn resume<P: Copy, F>(unit: &Unit<P>, run: &Run<'_, F>) -> Result<Option<(Vec<usize>, Resumption)>>
where
    F: Fn(usize, P) -> Option<Variant>,
{
    let (which, variants): (Vec<usize>, Vec<Variant>) = unit
        .items
        .iter()
        .enumerate()
        .filter_map(|(i, &item)| Some((i, (run.variant)(unit.layer, item)?)))
        .unzip();
    if variants.is_empty() {
        return Ok(None);
    }
    let resumed = run
        .model
        .resume_variants(run.input, unit.layer, run.kv, variants)?;
    Ok(Some((which, resumed)))
}

/// Each variant's `LD` out of its last row.
fn read<F>(resumed: &Resumption, run: &Run<'_, F>) -> Result<Vec<f64>> {
    let rows = resumed.last_rows().ok_or_else(|| {
        super::AnalysisError::Undefined("a unit stopped before its last block".to_string())
    })?;
    Ok(run
        .model
        .read_out_difference(rows, run.target, run.contrast)?)
}

/// The unit's items with the `LD` of each variant (`which[k]`: the item variant k belongs to).
fn scored<P: Copy>(unit: &Unit<P>, which: &[usize], lds: &[f64]) -> Scored<P> {
    let mut scores: Vec<(P, Option<f64>)> = unit.items.iter().map(|&p| (p, None)).collect();
    for (&i, &ld) in which.iter().zip(lds) {
        scores[i].1 = Some(ld);
    }
    Scored {
        layer: unit.layer,
        scores,
    }
}
