//! Attention: scoring functions, masks, the masked softmax, and multi-head attention with
//! MHA / GQA / MQA and a key/value cache. Everything a view shows of attention is recorded
//! here in an `AttentionTrace`; nothing outside `model/` computes attention.

use super::config::{Positional, Scoring};
use super::dropout::{Dropout, Site};
use super::layers::linear;
use super::position;
use super::weights::{AttentionWeights, Projection, ScoreWeights};
use crate::util::nested;
use ndarray::{s, Array1, Array2, Array3, ArrayView2, Axis};
use serde::Serialize;

// ---------------------------------------------------------------------------------------------
// Masks: `true` = the query may attend to the key.

/// Every key allowed.
pub fn full_mask(t_q: usize, t_k: usize) -> Array2<bool> {
    Array2::from_elem((t_q, t_k), true)
}

/// Causal: a query at position p sees keys at positions ≤ p.
pub fn causal_mask(q_pos: &[usize], k_pos: &[usize]) -> Array2<bool> {
    Array2::from_shape_fn((q_pos.len(), k_pos.len()), |(i, j)| k_pos[j] <= q_pos[i])
}

/// Prefix-LM: the first `prefix` positions see each other both ways; the rest is causal.
pub fn prefix_mask(t: usize, prefix: usize) -> Array2<bool> {
    Array2::from_shape_fn((t, t), |(i, j)| j <= i || j < prefix)
}

/// Blocks keys that are padding (`is_pad[j]`) for every query.
pub fn block_keys(mask: &mut Array2<bool>, is_pad: &[bool]) {
    for mut row in mask.rows_mut() {
        for (allowed, &pad) in row.iter_mut().zip(is_pad) {
            *allowed &= !pad;
        }
    }
}

/// The self-attention mask a user picks; `Default` is the family's own (causal in a decoder).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum MaskChoice {
    #[default]
    Default,
    /// Bidirectional: every key.
    None,
    Causal,
    /// Bidirectional over the first n tokens, causal after.
    Prefix(usize),
    /// A user-drawn `[T, T]` matrix.
    Custom(Array2<bool>),
}

// ---------------------------------------------------------------------------------------------
// Softmax

/// Row-wise softmax over allowed entries only. Disallowed entries are exactly 0; a row with
/// no allowed entry is all 0 (the query receives nothing), never NaN.
pub fn masked_softmax(logits: ArrayView2<f32>, allowed: ArrayView2<bool>) -> Array2<f32> {
    let mut out = Array2::zeros(logits.raw_dim());
    for ((l, a), mut o) in logits
        .rows()
        .into_iter()
        .zip(allowed.rows())
        .zip(out.rows_mut())
    {
        let max = l
            .iter()
            .zip(a)
            .filter(|(_, &ok)| ok)
            .map(|(&x, _)| x)
            .fold(f32::NEG_INFINITY, f32::max);
        if max == f32::NEG_INFINITY {
            continue;
        }
        let mut sum = 0.0f32;
        for ((o, &x), &ok) in o.iter_mut().zip(l).zip(a) {
            if ok {
                *o = (x - max).exp();
                sum += *o;
            }
        }
        o /= sum;
    }
    out
}

/// Entropy of each row in bits: 0 for one-hot, log₂(n) for uniform over n keys.
pub fn row_entropy_bits(weights: ArrayView2<f32>) -> Array1<f32> {
    weights.map_axis(Axis(1), |row| {
        -row.iter()
            .filter(|&&p| p > 0.0)
            .map(|&p| p * p.log2())
            .sum::<f32>()
    })
}

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
}

/// Keys and values kept between decoding steps.
#[derive(Debug, Clone, Default)]
pub struct KvCache {
    /// `[G, t, h]`, or `None` before the first step.
    pub k: Option<Array3<f32>>,
    pub v: Option<Array3<f32>>,
}

impl KvCache {
    pub fn len(&self) -> usize {
        self.k.as_ref().map_or(0, |k| k.len_of(Axis(1)))
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
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

fn append(cache: &mut Option<Array3<f32>>, new: Array3<f32>) -> Array3<f32> {
    let all = match cache.take() {
        Some(old) => ndarray::concatenate(Axis(1), &[old.view(), new.view()]).unwrap_or(new),
        None => new,
    };
    *cache = Some(all.clone());
    all
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
}

/// One multi-head attention layer. With a cache, self-attention appends this call's keys
/// and values and attends over all of them; cross-attention computes the memory's keys and
/// values once and reuses them.
pub fn multi_head(
    w: &AttentionWeights,
    shape: AttentionShape,
    x: ArrayView2<f32>,
    source: KvSource,
    call: AttentionCall,
    cache: Option<&mut KvCache>,
) -> AttentionTrace {
    let AttentionShape {
        n_heads,
        n_kv_heads,
        d_head: h,
        ..
    } = shape;
    let (q, k_new, v_new) = match (&w.projection, source) {
        (Projection::Fused { w_qkv, b_qkv }, _) => {
            let qkv = linear(x, w_qkv, b_qkv);
            let (qh, kvh) = (n_heads * h, n_kv_heads * h);
            let mut q = split_heads(qkv.slice(s![.., ..qh]), n_heads, h);
            let mut k = split_heads(qkv.slice(s![.., qh..qh + kvh]), n_kv_heads, h);
            let v = split_heads(qkv.slice(s![.., qh + kvh..]), n_kv_heads, h);
            if let Positional::Rope { base } = shape.positional {
                for mut head in q.outer_iter_mut() {
                    position::rope_rotate_in_place(head.view_mut(), call.q_pos, base);
                }
                for mut head in k.outer_iter_mut() {
                    position::rope_rotate_in_place(head.view_mut(), call.q_pos, base);
                }
            }
            (q, Some(k), Some(v))
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
            let q = split_heads(linear(x, w_q, b_q).view(), n_heads, h);
            let cached = cache.as_ref().is_some_and(|c| !c.is_empty());
            if cached {
                (q, None, None)
            } else {
                let kv = linear(memory, w_kv, b_kv);
                let kvh = n_kv_heads * h;
                let k = split_heads(kv.slice(s![.., ..kvh]), n_kv_heads, h);
                let v = split_heads(kv.slice(s![.., kvh..]), n_kv_heads, h);
                (q, Some(k), Some(v))
            }
        }
        (Projection::Cross { .. }, KvSource::SelfRows) => {
            // A cross layer always receives memory; an empty memory means no keys at all.
            let empty = Array3::zeros((n_kv_heads, 0, h));
            (split_heads(x, n_heads, h), Some(empty.clone()), Some(empty))
        }
    };
    let (k, v) = match cache {
        Some(c) => {
            let is_self = matches!(w.projection, Projection::Fused { .. });
            match (k_new, v_new) {
                (Some(kn), Some(vn)) if is_self || c.is_empty() => {
                    (append(&mut c.k, kn), append(&mut c.v, vn))
                }
                _ => (
                    c.k.clone()
                        .unwrap_or_else(|| Array3::zeros((n_kv_heads, 0, h))),
                    c.v.clone()
                        .unwrap_or_else(|| Array3::zeros((n_kv_heads, 0, h))),
                ),
            }
        }
        None => (
            k_new.unwrap_or_else(|| Array3::zeros((n_kv_heads, 0, h))),
            v_new.unwrap_or_else(|| Array3::zeros((n_kv_heads, 0, h))),
        ),
    };

    let (t_q, t_k) = (q.len_of(Axis(1)), k.len_of(Axis(1)));
    let group = n_heads / n_kv_heads;
    let divisor = score_divisor(shape.scoring, h, call.temperature);
    let slopes = position::alibi_slopes(n_heads);
    let mut scores = Array3::zeros((n_heads, t_q, t_k));
    let mut scaled = Array3::zeros((n_heads, t_q, t_k));
    let mut logits = Array3::zeros((n_heads, t_q, t_k));
    let mut weights = Array3::zeros((n_heads, t_q, t_k));
    let mut head_out = Array3::zeros((n_heads, t_q, h));
    let dropout = call
        .dropout
        .map(|(d, site)| d.mask(site, (n_heads, t_q, t_k)));
    let mut bias_all = match shape.positional {
        Positional::Alibi | Positional::Relative { .. } => Some(Array3::zeros((n_heads, t_q, t_k))),
        _ => None,
    };
    for head in 0..n_heads {
        let g = head / group;
        let (kh, vh) = (k.index_axis(Axis(0), g), v.index_axis(Axis(0), g));
        let s_h = raw_scores(q.index_axis(Axis(0), head), kh, &w.score, head);
        let e_h = &s_h / divisor;
        let bias =
            match (shape.positional, &w.rel_bias) {
                (Positional::Alibi, _) => {
                    Some(position::alibi_bias(slopes[head], call.q_pos, call.k_pos))
                }
                (Positional::Relative { max_distance }, Some(table)) => Some(
                    position::relative_bias(table.row(head), max_distance, call.q_pos, call.k_pos),
                ),
                _ => None,
            };
        let mut l_h = match &bias {
            Some(b) => &e_h + b,
            None => e_h.clone(),
        };
        let a_h = masked_softmax(l_h.view(), call.allowed.view());
        l_h.zip_mut_with(&call.allowed, |x, &ok| {
            if !ok {
                *x = f32::NEG_INFINITY
            }
        });
        let mixed = match &dropout {
            Some(m) => (&a_h * &m.index_axis(Axis(0), head)).dot(&vh),
            None => a_h.dot(&vh),
        };
        head_out.index_axis_mut(Axis(0), head).assign(&mixed);
        scores.index_axis_mut(Axis(0), head).assign(&s_h);
        scaled.index_axis_mut(Axis(0), head).assign(&e_h);
        logits.index_axis_mut(Axis(0), head).assign(&l_h);
        weights.index_axis_mut(Axis(0), head).assign(&a_h);
        if let (Some(all), Some(b)) = (bias_all.as_mut(), bias) {
            all.index_axis_mut(Axis(0), head).assign(&b);
        }
    }
    let concat = merge_heads(&head_out);
    let out = linear(concat.view(), &w.w_o, &w.b_o);
    AttentionTrace {
        query_tokens: call.query_tokens,
        key_tokens: call.key_tokens,
        q,
        k,
        v,
        scores,
        scaled,
        bias: bias_all.take(),
        mask: call.allowed,
        logits,
        weights,
        dropout,
        head_out,
        concat,
        out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn softmax_of_two_and_one() {
        let a = masked_softmax(array![[2.0f32, 1.0]].view(), full_mask(1, 2).view());
        let e = 1f32.exp();
        assert!((a[[0, 0]] - e / (e + 1.0)).abs() < 1e-7);
    }

    #[test]
    fn masked_entries_are_exactly_zero_and_empty_rows_are_zero() {
        let logits = array![[1.0f32, 50.0, 3.0], [0.0, 0.0, 0.0]];
        let allowed = array![[true, false, true], [false, false, false]];
        let a = masked_softmax(logits.view(), allowed.view());
        assert_eq!(a[[0, 1]], 0.0);
        assert!((a.row(0).sum() - 1.0).abs() < 1e-6);
        assert_eq!(a.row(1).to_vec(), vec![0.0, 0.0, 0.0]);
        assert!(a.iter().all(|x| x.is_finite()));
    }

    #[test]
    fn softmax_survives_huge_logits() {
        let a = masked_softmax(array![[1e30f32, -1e30, 0.0]].view(), full_mask(1, 3).view());
        assert_eq!(a.row(0).to_vec(), vec![1.0, 0.0, 0.0]);
    }

    #[test]
    fn masks_have_their_shapes() {
        let c = causal_mask(&[0, 1, 2], &[0, 1, 2]);
        assert_eq!(
            c,
            array![
                [true, false, false],
                [true, true, false],
                [true, true, true]
            ]
        );
        let p = prefix_mask(4, 2);
        assert!(p[[0, 1]] && !p[[0, 2]] && p[[2, 1]] && !p[[2, 3]] && p[[3, 3]]);
        let mut f = full_mask(2, 3);
        block_keys(&mut f, &[false, true, false]);
        assert_eq!(f, array![[true, false, true], [true, false, true]]);
    }

    #[test]
    fn entropy_in_bits() {
        let e = row_entropy_bits(array![[1.0f32, 0.0, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25]].view());
        assert_eq!(e[0], 0.0);
        assert!((e[1] - 2.0).abs() < 1e-6);
    }

    #[test]
    fn heads_split_and_merge_back() {
        let x = Array2::from_shape_fn((3, 6), |(r, c)| (r * 10 + c) as f32);
        let h = split_heads(x.view(), 3, 2);
        assert_eq!(h[[1, 2, 0]], x[[2, 2]]);
        assert_eq!(merge_heads(&h), x);
    }

    #[test]
    fn divisor_is_sqrt_dk_times_temperature() {
        assert_eq!(score_divisor(Scoring::ScaledDot, 64, 1.0), 8.0);
        assert_eq!(score_divisor(Scoring::ScaledDot, 16, 0.5), 2.0);
        assert_eq!(score_divisor(Scoring::Additive, 16, 2.0), 2.0);
    }
}
