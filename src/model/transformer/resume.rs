//! Variants of one decoder-only run resumed part-way, side by side (activation patching).
//!
//! A variant is the run with something changed at block `from`, from its row `start` on. In a
//! causal decoder no row attends to a later one, so the variant's rows before `start` stay the
//! run's own in every later block: only rows `start…T−1` are computed, and they attend to the
//! run's keys and values at the positions before `start`. The variants' rows go through each
//! matrix product of a block together (Q/K/V, W_O and the FFN read each weight matrix once for
//! all of them); attention runs a variant at a time, its rows over its own T keys. In the last
//! block only each variant's last row, where the logits are read, goes on past attention.

use super::{count_forward_pass, ForwardOptions, Model, ModelInput};
use crate::model::attention::{self, merge_heads, one_head, score_divisor, KvSource};
use crate::model::error::{ModelError, Result};
use crate::model::layers::ffn;
use crate::model::position;
use crate::model::weights::{AttentionWeights, BlockWeights};
use ndarray::{concatenate, s, Array2, Array3, ArrayView2, Axis};
use std::ops::Range;

/// One variant of a run resumed at block `from`.
#[derive(Debug, Clone)]
pub struct Variant {
    /// Its first row that differs from the run's: the rows before it are the run's own.
    pub start: usize,
    /// Its input to block `from` at positions `start…T−1`, `[T − start, d]`.
    pub x: Array2<f32>,
    /// A head of block `from` whose output at positions `start…T−1` is replaced by this
    /// `[T − start, d_head]` value.
    pub head: Option<(usize, Array2<f32>)>,
}

/// One block's self-attention keys and values in the run, `[G, T, d_head]` each, keys after
/// RoPE (as a trace records them).
#[derive(Debug, Clone)]
pub struct BlockKv {
    pub k: Array3<f32>,
    pub v: Array3<f32>,
}

/// Variants being resumed, half a block at a time.
pub struct Resumption {
    allowed: Array2<bool>,
    rows: Rows,
    /// Every variant's rows after the blocks run so far (in the last block, only each
    /// variant's last row goes on past attention).
    x: Array2<f32>,
    /// Each variant's head replaced at block `from`.
    heads: Vec<Option<(usize, Array2<f32>)>>,
    /// The block under way, and whether its FFN is next (its attention has run).
    next: usize,
    ffn_next: bool,
    from: usize,
    blocks: usize,
}

impl Resumption {
    /// Runs the next half of a block, its attention or its FFN (a step of the app's sweep:
    /// in the browser the FFN alone is three quarters of a block's weights); false once every
    /// block has run.
    pub fn next_part(&mut self, model: &Model, run: &[BlockKv]) -> Result<bool> {
        let Some(stack) = &model.weights.decoder else {
            return Err(ModelError::Input("no decoder stack".to_string()));
        };
        let layer = self.next;
        let Some(b) = stack.blocks.get(layer).filter(|_| layer < self.blocks) else {
            return Ok(false);
        };
        let x = std::mem::take(&mut self.x);
        if self.ffn_next {
            self.x = model.resumed_ffn(b, x)?;
            self.ffn_next = false;
            self.next += 1;
            return Ok(self.next < self.blocks);
        }
        let heads = if layer == self.from {
            self.heads.as_slice()
        } else {
            &[]
        };
        // Past attention a row depends on no other: in the last block only each variant's
        // last row, where the answer is read, goes on.
        let keep: Option<Vec<usize>> = (layer + 1 == self.blocks)
            .then(|| self.rows.spans.iter().map(|(_, r)| r.end - 1).collect());
        let (rows, allowed, keep) = (&self.rows, &self.allowed, keep.as_deref());
        self.x = model.resumed_attention_part(b, x, rows, run.get(layer), allowed, heads, keep)?;
        self.ffn_next = true;
        Ok(true)
    }

    /// Each variant's last row out of the last block, before the final norm, `[variants, d]`;
    /// `None` until every block has run.
    pub fn last_rows(&self) -> Option<ArrayView2<'_, f32>> {
        (self.next == self.blocks).then(|| self.x.view())
    }
}

/// Where each variant's rows lie among all of them, and the position of every row.
struct Rows {
    /// Each variant's first position and its rows.
    spans: Vec<(usize, Range<usize>)>,
    positions: Vec<usize>,
}

/// Whether no row of `allowed` attends to a later key.
fn is_causal(allowed: &Array2<bool>) -> bool {
    allowed.indexed_iter().all(|((i, j), &ok)| !ok || j <= i)
}

impl Model {
    /// Whether a decoder-only pass over `input` is causal: a change at one position then leaves
    /// every row before it as it was.
    pub fn decoder_is_causal(&self, input: &ModelInput) -> Result<bool> {
        let plan = self.plan(input, &ForwardOptions::default())?;
        Ok(plan.decoder.is_some_and(|p| is_causal(&p.allowed)))
    }

    /// The variants set up to be resumed half a block at a time ([`Resumption::next_part`]),
    /// so that no step of the app's sweep takes longer than that.
    pub fn resume_variants(
        &self,
        input: &ModelInput,
        from: usize,
        run: &[BlockKv],
        variants: Vec<Variant>,
    ) -> Result<Resumption> {
        let plan = self.plan(input, &ForwardOptions::default())?;
        let (None, Some(stack), Some(p)) = (&plan.encoder, &self.weights.decoder, &plan.decoder)
        else {
            return Err(ModelError::Input(format!(
                "{} is not a decoder-only model: a pass resumes part-way only there",
                self.config.name
            )));
        };
        let blocks = stack.blocks.len();
        let (t, d) = (p.ids.len(), self.config.d_model);
        let shape = self.attention_shape(false);
        let fits = |v: &Variant| {
            v.start < t
                && v.x.dim() == (t - v.start, d)
                && v.head.as_ref().is_none_or(|(h, value)| {
                    *h < shape.n_heads && value.dim() == (t - v.start, shape.d_head)
                })
        };
        if from >= blocks || variants.is_empty() || !variants.iter().all(fits) {
            return Err(ModelError::Input(format!(
                "resumed variants need a block below {blocks}, and rows of {d} from their start \
                 among {t} positions"
            )));
        }
        let kv_dim = (shape.n_kv_heads, t, shape.d_head);
        let has_run = run.len() == blocks
            && run
                .iter()
                .all(|kv| kv.k.dim() == kv_dim && kv.v.dim() == kv_dim);
        if variants.iter().any(|v| v.start > 0) && !(is_causal(&p.allowed) && has_run) {
            return Err(ModelError::Input(
                "a variant starts after position 0 only in a causal decoder, with the run's \
                 keys and values at every block"
                    .to_string(),
            ));
        }
        let mut rows = Rows {
            spans: Vec::new(),
            positions: Vec::new(),
        };
        for v in &variants {
            let first = rows.positions.len();
            rows.positions.extend(v.start..t);
            rows.spans.push((v.start, first..rows.positions.len()));
        }
        let inputs: Vec<_> = variants.iter().map(|v| v.x.view()).collect();
        let x = concatenate(Axis(0), &inputs).map_err(|e| ModelError::Input(e.to_string()))?;
        count_forward_pass();
        Ok(Resumption {
            allowed: p.allowed.clone(),
            rows,
            x,
            heads: variants.into_iter().map(|v| v.head).collect(),
            next: from,
            ffn_next: false,
            from,
            blocks,
        })
    }

    /// A block's attention sublayer over every variant's rows, with the heads `replaced` names
    /// put in; `keep`: the only rows to go on (in the last block, each variant's last).
    #[allow(clippy::too_many_arguments)]
    fn resumed_attention_part(
        &self,
        b: &BlockWeights,
        x: Array2<f32>,
        rows: &Rows,
        run: Option<&BlockKv>,
        allowed: &Array2<bool>,
        replaced: &[Option<(usize, Array2<f32>)>],
        keep: Option<&[usize]>,
    ) -> Result<Array2<f32>> {
        if b.cross.is_some() {
            return Err(ModelError::Input(
                "a resumed pass runs decoder-only blocks (no cross-attention)".to_string(),
            ));
        }
        let attn = self.sublayer(&x, &b.ln_attn, None, |h| {
            let out = self.resumed_attention(&b.self_attn, h, rows, run, allowed, replaced)?;
            Ok(((), out))
        })?;
        Ok(match keep {
            Some(r) => attn.residual.select(Axis(0), r),
            None => attn.residual,
        })
    }

    /// A block's FFN sublayer over the rows that went on past its attention.
    fn resumed_ffn(&self, b: &BlockWeights, x: Array2<f32>) -> Result<Array2<f32>> {
        let act = self.config.activation;
        let ffn = self.sublayer(&x, &b.ln_ffn, None, |h| {
            Ok(((), ffn(h, &b.ffn, act).output))
        })?;
        Ok(ffn.residual)
    }

    /// Self-attention of every variant's rows `h`: Q, K and V of all rows in one product
    /// (RoPE at each row's position), each variant's heads over its keys and values at
    /// positions 0…T−1 (the run's before its start, its own from there; [`one_head`]), the
    /// heads `replaced` names swapped in, and W_O of all rows in one product.
    fn resumed_attention(
        &self,
        w: &AttentionWeights,
        h: ArrayView2<f32>,
        rows: &Rows,
        run: Option<&BlockKv>,
        allowed: &Array2<bool>,
        replaced: &[Option<(usize, Array2<f32>)>],
    ) -> Result<Array2<f32>> {
        let shape = self.attention_shape(false);
        let (n_heads, dh) = (shape.n_heads, shape.d_head);
        let group = n_heads / shape.n_kv_heads;
        let (q, kv) = attention::project(w, shape, h, &KvSource::SelfRows, &rows.positions, false);
        let Some((k, v)) = kv else {
            return Err(ModelError::Input("no self-attention keys".to_string()));
        };
        let divisor = score_divisor(shape.scoring, dh, 1.0);
        let slopes = position::alibi_slopes(n_heads);
        let k_pos: Vec<usize> = (0..allowed.ncols()).collect();
        let mut head_out = Array3::zeros((n_heads, h.nrows(), dh));
        for (start, span) in &rows.spans {
            let start = *start;
            // Keys (values) at positions 0…T−1: the run's before `start`, the variant's after.
            let all_positions = |run: Option<&Array3<f32>>, own: &Array3<f32>| {
                let own = own.slice(s![.., span.clone(), ..]);
                match run {
                    Some(r) if start > 0 => {
                        concatenate(Axis(1), &[r.slice(s![.., ..start, ..]), own])
                    }
                    _ => Ok(own.to_owned()),
                }
                .map_err(|e| ModelError::Input(e.to_string()))
            };
            let keys = all_positions(run.map(|r| &r.k), &k)?;
            let values = all_positions(run.map(|r| &r.v), &v)?;
            let q_pos = &rows.positions[span.clone()];
            for head in 0..n_heads {
                let bias = attention::head_bias(shape, w, head, &slopes, (q_pos, &k_pos));
                let one = one_head(
                    q.slice(s![head, span.clone(), ..]),
                    keys.index_axis(Axis(0), head / group),
                    values.index_axis(Axis(0), head / group),
                    (&w.score, head),
                    divisor,
                    bias.as_ref(),
                    allowed.slice(s![start.., ..]),
                    None,
                );
                head_out
                    .slice_mut(s![head, span.clone(), ..])
                    .assign(&one.out);
            }
        }
        for (replaced, (_, span)) in replaced.iter().zip(&rows.spans) {
            if let Some((head, value)) = replaced {
                head_out
                    .slice_mut(s![*head, span.clone(), ..])
                    .assign(value);
            }
        }
        Ok(w.w_o.linear_all(merge_heads(&head_out).view(), &w.b_o))
    }
}
