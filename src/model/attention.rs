//! Attention: scoring functions, masks, one head (`one_head`: scores → scale → bias → mask →
//! softmax → weighted sum) and multi-head attention built around it, with
//! MHA / GQA / MQA and a key/value cache. Everything a view shows of attention is recorded
//! here in an `AttentionTrace`; nothing outside `model/` computes attention.

use super::config::{Positional, Scoring};
use super::dropout::{Dropout, Site};
use super::error::Result;
use super::parallel::{self, Split};
use super::position::{self, Rope};
use super::softmax::masked_softmax_into;
use super::weights::{AttentionWeights, Projection, ScoreWeights};
use crate::util::nested;
use ndarray::linalg::general_mat_mul;
use ndarray::{
    s, Array1, Array2, Array3, ArrayView1, ArrayView2, ArrayViewMut1, ArrayViewMut2, ArrayViewMut3,
    Axis, Zip,
};
use serde::Serialize;

mod kv_cache;
mod masks;
pub use kv_cache::KvCache;
use kv_cache::{keys_and_values, KeysValues};
pub use masks::{block_keys, causal_mask, full_mask, prefix_mask, MaskChoice};

// ---------------------------------------------------------------------------------------------
// Scoring

/// Raw scores `s_ij` for one head: `q` is `[T_q, h]`, `k` is `[T_k, h]`.
pub fn raw_scores(
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    score: &ScoreWeights,
    head: usize,
) -> Array2<f32> {
    match score {
        ScoreWeights::Dot => q.dot(&k.t()),
        ScoreWeights::Bilinear { w } => q.dot(&w.index_axis(Axis(0), head)).dot(&k.t()),
        ScoreWeights::Additive { w, u, v } => {
            let wq = q.dot(&w.index_axis(Axis(0), head).t()); // [T_q, h]
            let uk = k.dot(&u.index_axis(Axis(0), head).t()); // [T_k, h]
            let v = v.index_axis(Axis(0), head);
            Array2::from_shape_fn((q.nrows(), k.nrows()), |(i, j)| {
                wq.row(i)
                    .iter()
                    .zip(uk.row(j))
                    .zip(v)
                    .map(|((a, b), c)| c * (a + b).tanh())
                    .sum()
            })
        }
    }
}

/// What raw scores are divided by: `√h · τ` for scaled dot-product, `τ` otherwise.
pub fn score_divisor(scoring: Scoring, d_head: usize, temperature: f32) -> f32 {
    match scoring {
        Scoring::ScaledDot => (d_head as f32).sqrt() * temperature,
        Scoring::Additive | Scoring::Bilinear => temperature,
    }
}

// ---------------------------------------------------------------------------------------------
// Multi-head attention

/// Every intermediate of one attention layer, labelled with its tokens.
#[derive(Debug, Clone, Serialize)]
pub struct AttentionTrace {
    pub query_tokens: Vec<String>,
    pub key_tokens: Vec<String>,
    /// `[H, T_q, h]` queries per head (after RoPE where used).
    #[serde(serialize_with = "nested::ser")]
    pub q: Array3<f32>,
    /// `[G, T_k, h]` keys per key/value head (after RoPE where used).
    #[serde(serialize_with = "nested::ser")]
    pub k: Array3<f32>,
    /// `[G, T_k, h]` values per key/value head.
    #[serde(serialize_with = "nested::ser")]
    pub v: Array3<f32>,
    /// `[H, T_q, T_k]` raw scores (`QKᵀ` for dot-product scoring).
    #[serde(serialize_with = "nested::ser")]
    pub scores: Array3<f32>,
    /// Raw scores divided by `√h · τ` (or `τ`).
    #[serde(serialize_with = "nested::ser")]
    pub scaled: Array3<f32>,
    /// Positional bias added to the scaled scores (ALiBi / relative), if any.
    #[serde(serialize_with = "nested::ser_opt")]
    pub bias: Option<Array3<f32>>,
    /// `[T_q, T_k]` allowed keys.
    #[serde(serialize_with = "nested::ser")]
    pub mask: Array2<bool>,
    /// Scaled scores + bias, with −∞ (JSON `null`) where masked: the softmax's input.
    #[serde(serialize_with = "nested::ser")]
    pub logits: Array3<f32>,
    /// `[H, T_q, T_k]` attention weights; each allowed row sums to 1.
    #[serde(serialize_with = "nested::ser")]
    pub weights: Array3<f32>,
    /// Training only: `[H, T_q, T_k]` dropout multipliers; the heads then mix values with
    /// `weights ⊙ dropout`.
    #[serde(
        serialize_with = "nested::ser_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub dropout: Option<Array3<f32>>,
    /// `[H, T_q, h]` per-head outputs `A V`.
    #[serde(serialize_with = "nested::ser")]
    pub head_out: Array3<f32>,
    /// `[T_q, H·h]` heads side by side.
    #[serde(serialize_with = "nested::ser")]
    pub concat: Array2<f32>,
    /// `[T_q, d]` after the output projection `W_O`.
    #[serde(serialize_with = "nested::ser")]
    pub out: Array2<f32>,
}

/// The architecture facts one attention layer needs.
#[derive(Debug, Clone, Copy)]
pub struct AttentionShape {
    pub n_heads: usize,
    pub n_kv_heads: usize,
    pub d_head: usize,
    pub scoring: Scoring,
    /// Positional scheme acting inside this layer (self-attention only; `None` for cross).
    pub positional: Positional,
    /// How RoPE turns queries and keys, when the scheme is RoPE (self-attention only).
    pub rope: Option<Rope>,
}

/// `[T, n·h]` → `[n, T, h]`.
pub fn split_heads(x: ArrayView2<f32>, n: usize, h: usize) -> Array3<f32> {
    Array3::from_shape_fn((n, x.nrows(), h), |(head, t, c)| x[[t, head * h + c]])
}

/// `[H, T, h]` → `[T, H·h]`.
pub fn merge_heads(x: &Array3<f32>) -> Array2<f32> {
    let (n, t, h) = x.dim();
    Array2::from_shape_fn((t, n * h), |(r, c)| x[[c / h, r, c % h]])
}

/// Where keys and values come from.
pub enum KvSource<'a> {
    /// Self-attention: from the queries' own rows.
    SelfRows,
    /// Cross-attention: from the encoder memory.
    Memory(ArrayView2<'a, f32>),
}

/// Query and key positions and the mask for one call.
pub struct AttentionCall<'a> {
    pub q_pos: &'a [usize],
    /// Key positions; for cached self-attention these cover the whole cache after appending.
    pub k_pos: &'a [usize],
    pub allowed: Array2<bool>,
    pub temperature: f32,
    pub query_tokens: Vec<String>,
    pub key_tokens: Vec<String>,
    /// Training only: dropout on the attention weights.
    pub dropout: Option<(Dropout, Site)>,
    /// Heads switched off: their output is zeroed before the concatenation.
    pub heads_off: Vec<usize>,
    /// Heads whose output is replaced (activation patching): `[T_q, h]` each, before the
    /// concatenation.
    pub head_values: Vec<(usize, Array2<f32>)>,
}

/// Every intermediate of one head.
pub struct HeadTrace {
    pub scores: Array2<f32>,
    pub scaled: Array2<f32>,
    pub logits: Array2<f32>,
    pub weights: Array2<f32>,
    pub out: Array2<f32>,
}

/// Where one head writes its intermediates: `[T_q, T_k]` scores, scaled scores, softmax input
/// and weights, and the `[T_q, h]` output (slices of the layer's arrays, so nothing is copied
/// twice).
pub struct HeadSlots<'a> {
    pub scores: ArrayViewMut2<'a, f32>,
    pub scaled: ArrayViewMut2<'a, f32>,
    pub logits: ArrayViewMut2<'a, f32>,
    pub weights: ArrayViewMut2<'a, f32>,
    pub out: ArrayViewMut2<'a, f32>,
}

/// One head of attention, the textbook way:
///
/// ```text
/// S = score(Q, K)        QKᵀ for dot-product scoring
/// E = S / divisor        √d_k · τ for scaled dot-product, τ otherwise
/// L = E + B              B: a positional bias (ALiBi, relative), if any
/// L = −∞ where masked
/// A = softmax(L)         row by row
/// O = A V                (A ⊙ dropout) V while training
/// ```
#[allow(clippy::too_many_arguments)]
pub fn one_head(
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    v: ArrayView2<f32>,
    score: (&ScoreWeights, usize),
    divisor: f32,
    bias: Option<&Array2<f32>>,
    allowed: ArrayView2<bool>,
    dropout: Option<ArrayView2<f32>>,
) -> HeadTrace {
    let blank = || Array2::zeros((q.nrows(), k.nrows()));
    let (mut scores, mut scaled, mut logits, mut weights) = (blank(), blank(), blank(), blank());
    let mut out = Array2::zeros((q.nrows(), v.ncols()));
    one_head_into(
        q,
        k,
        v,
        score,
        divisor,
        bias.map(|b| b.view()),
        allowed,
        dropout,
        HeadSlots {
            scores: scores.view_mut(),
            scaled: scaled.view_mut(),
            logits: logits.view_mut(),
            weights: weights.view_mut(),
            out: out.view_mut(),
        },
    );
    HeadTrace {
        scores,
        scaled,
        logits,
        weights,
        out,
    }
}

/// [`one_head`], writing each intermediate into its slot.
#[allow(clippy::too_many_arguments)]
pub fn one_head_into(
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    v: ArrayView2<f32>,
    score: (&ScoreWeights, usize),
    divisor: f32,
    bias: Option<ArrayView2<f32>>,
    allowed: ArrayView2<bool>,
    dropout: Option<ArrayView2<f32>>,
    slots: HeadSlots,
) {
    let HeadSlots {
        mut scores,
        mut scaled,
        mut logits,
        mut weights,
        mut out,
    } = slots;
    // S = score(Q, K)
    match score.0 {
        // One query (a decoding step): a dot product per key, K read where it lies (a
        // general product first copied all of K into panels, for every head and step).
        ScoreWeights::Dot if q.nrows() == 1 => {
            for (s, k) in scores.row_mut(0).iter_mut().zip(k.rows()) {
                *s = q.row(0).dot(&k);
            }
        }
        // Many: the product kernel, reading K's rows where they lie.
        ScoreWeights::Dot => super::layers::x_wt_into(q, k, scores.view_mut()),
        other => scores.assign(&raw_scores(q, k, other, score.1)),
    }
    // E = S / divisor;  L = E + B, then −∞ where masked (one pass over the T² cells)
    let zip = Zip::from(&mut scaled)
        .and(&mut logits)
        .and(&scores)
        .and(&allowed);
    let mask = |e: f32, ok: bool| if ok { e } else { f32::NEG_INFINITY };
    match bias {
        Some(b) => zip.and(&b).for_each(|e, l, &s, &ok, &b| {
            *e = s / divisor;
            *l = mask(*e + b, ok);
        }),
        None => zip.for_each(|e, l, &s, &ok| {
            *e = s / divisor;
            *l = mask(*e, ok);
        }),
    }
    // A = softmax(L)
    masked_softmax_into(logits.view(), allowed, weights.view_mut());
    // O = A V
    match dropout {
        Some(m) => general_mat_mul(1.0, &(&weights * &m), &v, 0.0, &mut out),
        None if weights.nrows() == 1 => weighted_rows(weights.row(0), v, out.row_mut(0)),
        None => general_mat_mul(1.0, &weights, &v, 0.0, &mut out),
    }
}

/// `o = Σⱼ aⱼ vⱼ` for one query (a decoding step): V's rows added in order, each scaled by
/// its weight, without copying V into panels as a general product does.
fn weighted_rows(a: ArrayView1<f32>, v: ArrayView2<f32>, mut o: ArrayViewMut1<f32>) {
    o.fill(0.0);
    for (&a, v) in a.iter().zip(v.rows()) {
        o.scaled_add(a, &v);
    }
}

/// This call's queries `[H, T_q, h]` and, where new ones are computed, keys and values
/// `[G, T_k, h]`, with RoPE applied to queries and keys of self-attention.
pub(crate) fn project(
    w: &AttentionWeights,
    shape: AttentionShape,
    x: ArrayView2<f32>,
    source: &KvSource,
    q_pos: &[usize],
    memory_cached: bool,
) -> (Array3<f32>, Option<KeysValues>) {
    let AttentionShape {
        n_heads,
        n_kv_heads,
        d_head: h,
        ..
    } = shape;
    let (qh, kvh) = (n_heads * h, n_kv_heads * h);
    match (&w.projection, source) {
        (Projection::Fused { w_qkv, b_qkv }, _) => {
            let qkv = w_qkv.linear_all(x, b_qkv);
            let mut q = split_heads(qkv.slice(s![.., ..qh]), n_heads, h);
            let mut k = split_heads(qkv.slice(s![.., qh..qh + kvh]), n_kv_heads, h);
            let v = split_heads(qkv.slice(s![.., qh + kvh..]), n_kv_heads, h);
            if let Some(rope) = &shape.rope {
                for mut head in q.outer_iter_mut().chain(k.outer_iter_mut()) {
                    rope.rotate_in_place(head.view_mut(), q_pos);
                }
            }
            (q, Some((k, v)))
        }
        (
            Projection::Cross {
                w_q,
                b_q,
                w_kv,
                b_kv,
            },
            KvSource::Memory(memory),
        ) => {
            let q = split_heads(w_q.linear_all(x, b_q).view(), n_heads, h);
            if memory_cached {
                return (q, None);
            }
            let kv = w_kv.linear_all(*memory, b_kv);
            let k = split_heads(kv.slice(s![.., ..kvh]), n_kv_heads, h);
            let v = split_heads(kv.slice(s![.., kvh..]), n_kv_heads, h);
            (q, Some((k, v)))
        }
        (Projection::Cross { .. }, KvSource::SelfRows) => {
            // A cross layer always receives memory; an empty memory means no keys at all.
            let empty = Array3::zeros((n_kv_heads, 0, h));
            (split_heads(x, n_heads, h), Some((empty.clone(), empty)))
        }
    }
}

/// The positional bias `[T_q, T_k]` a head adds to its scaled scores, if its scheme has one.
pub(crate) fn head_bias(
    shape: AttentionShape,
    w: &AttentionWeights,
    head: usize,
    slopes: &Array1<f32>,
    (q_pos, k_pos): (&[usize], &[usize]),
) -> Option<Array2<f32>> {
    match (shape.positional, &w.rel_bias) {
        (Positional::Alibi, _) => Some(position::alibi_bias(slopes[head], q_pos, k_pos)),
        (Positional::Relative { max_distance }, Some(table)) => Some(position::relative_bias(
            table.row(head),
            max_distance,
            q_pos,
            k_pos,
        )),
        _ => None,
    }
}

/// Every head's slots in one layer's `[H, …]` arrays, cut into groups of heads for threads.
struct LayerSlots<'a> {
    scores: ArrayViewMut3<'a, f32>,
    scaled: ArrayViewMut3<'a, f32>,
    logits: ArrayViewMut3<'a, f32>,
    weights: ArrayViewMut3<'a, f32>,
    out: ArrayViewMut3<'a, f32>,
    bias: Option<ArrayViewMut3<'a, f32>>,
}

impl<'a> parallel::Split for LayerSlots<'a> {
    fn items(&self) -> usize {
        self.scores.len_of(Axis(0))
    }

    fn split_at(self, mid: usize) -> (Self, Self) {
        let cut = |a: ArrayViewMut3<'a, f32>| a.split_at(Axis(0), mid);
        let (scores, scores2) = cut(self.scores);
        let (scaled, scaled2) = cut(self.scaled);
        let (logits, logits2) = cut(self.logits);
        let (weights, weights2) = cut(self.weights);
        let (out, out2) = cut(self.out);
        let (bias, bias2) = match self.bias.map(cut) {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        };
        (
            Self {
                scores,
                scaled,
                logits,
                weights,
                out,
                bias,
            },
            Self {
                scores: scores2,
                scaled: scaled2,
                logits: logits2,
                weights: weights2,
                out: out2,
                bias: bias2,
            },
        )
    }
}

/// One multi-head attention layer: project, (rotate,) attend with each head through
/// [`one_head`] (query head `i` reads key/value head `⌊i / (H/G)⌋`), concatenate, apply `W_O`.
/// Each head writes its intermediates straight into the trace's arrays.
pub fn multi_head(
    w: &AttentionWeights,
    shape: AttentionShape,
    x: ArrayView2<f32>,
    source: KvSource,
    call: AttentionCall,
    cache: Option<&mut KvCache>,
) -> Result<AttentionTrace> {
    let (n_heads, h) = (shape.n_heads, shape.d_head);
    let is_self = matches!(w.projection, Projection::Fused { .. });
    let memory_cached = !is_self && cache.as_ref().is_some_and(|c| !c.is_empty());
    let (q, new_kv) = project(w, shape, x, &source, call.q_pos, memory_cached);
    let (k, v) = keys_and_values(new_kv, cache, is_self, (shape.n_kv_heads, h))?;

    let (t_q, t_k) = (q.len_of(Axis(1)), k.len_of(Axis(1)));
    let group = n_heads / shape.n_kv_heads;
    let divisor = score_divisor(shape.scoring, h, call.temperature);
    let slopes = position::alibi_slopes(n_heads);
    let dropout = call
        .dropout
        .map(|(d, site)| d.mask(site, (n_heads, t_q, t_k)));
    let blank = || Array3::zeros((n_heads, t_q, t_k));
    let (mut scores, mut scaled, mut logits, mut weights) = (blank(), blank(), blank(), blank());
    let mut head_out = Array3::zeros((n_heads, t_q, h));
    let mut bias_all = match shape.positional {
        Positional::Alibi | Positional::Relative { .. } => Some(blank()),
        _ => None,
    };
    let layer = LayerSlots {
        scores: scores.view_mut(),
        scaled: scaled.view_mut(),
        logits: logits.view_mut(),
        weights: weights.view_mut(),
        out: head_out.view_mut(),
        bias: bias_all.as_mut().map(|b| b.view_mut()),
    };
    // Heads are independent: spread over the threads, each writing its own slices.
    let work_per_head = 2 * t_q * t_k * h;
    parallel::for_parts(layer, work_per_head, &|first, mut part: LayerSlots| {
        for i in 0..part.items() {
            let head = first + i;
            let g = head / group;
            let bias = head_bias(shape, w, head, &slopes, (call.q_pos, call.k_pos));
            if let (Some(all), Some(b)) = (part.bias.as_mut(), &bias) {
                all.index_axis_mut(Axis(0), i).assign(b);
            }
            one_head_into(
                q.index_axis(Axis(0), head),
                k.index_axis(Axis(0), g),
                v.index_axis(Axis(0), g),
                (&w.score, head),
                divisor,
                bias.as_ref().map(|b| b.view()),
                call.allowed.view(),
                dropout.as_ref().map(|m| m.index_axis(Axis(0), head)),
                HeadSlots {
                    scores: part.scores.index_axis_mut(Axis(0), i),
                    scaled: part.scaled.index_axis_mut(Axis(0), i),
                    logits: part.logits.index_axis_mut(Axis(0), i),
                    weights: part.weights.index_axis_mut(Axis(0), i),
                    out: part.out.index_axis_mut(Axis(0), i),
                },
            );
        }
    });
    // Ablation: a head switched off contributes nothing to concat · W_Oᵀ.
    for &off in &call.heads_off {
        if off < n_heads {
            head_out.index_axis_mut(Axis(0), off).fill(0.0);
        }
    }
    // Patching: a head's output taken from another run, at every query position.
    for (h, value) in &call.head_values {
        if *h < n_heads && value.dim() == (head_out.shape()[1], head_out.shape()[2]) {
            head_out.index_axis_mut(Axis(0), *h).assign(value);
        }
    }
    let concat = merge_heads(&head_out);
    let out = w.w_o.linear_all(concat.view(), &w.b_o);
    Ok(AttentionTrace {
        query_tokens: call.query_tokens,
        key_tokens: call.key_tokens,
        q,
        k,
        v,
        scores,
        scaled,
        bias: bias_all,
        mask: call.allowed,
        logits,
        weights,
        dropout,
        head_out,
        concat,
        out,
    })
}

#[cfg(test)]
mod tests;
