//! Why attention, trained: a GRU encoder–decoder on the translation task, once with a single
//! fixed context vector (the encoder's last state, Cho et al. 2014) and once with additive
//! attention (Bahdanau et al. 2015), `e_{t,i} = vᵀ tanh(W s_{t−1} + U h_i)`,
//! `α_t = softmax(e_t)`, `c_t = Σ_i α_{t,i} h_i`. Forward and backward are ours, step by step
//! through time, checked against PyTorch autograd (`tests/reference/make_rnn_fixtures.py`).
//!
//! The GRU cell, with PyTorch's gate order (r, z, n) and bias placement:
//!   r = σ(W_ir x + b_ir + W_hr h + b_hr)
//!   z = σ(W_iz x + b_iz + W_hz h + b_hz)
//!   n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn))
//!   h' = (1 − z) ⊙ n + z ⊙ h
//!
//! The decoder reads [embedding of the previous word; c_t] and predicts from [s_t; c_t]; its
//! first state s₀ is the encoder's last, h_T. Without attention c_t = h_T at every step: the
//! whole sentence must pass through one vector of width H.

//!
//! The translator and its forward and backward passes are here; [`training`] trains it
//! (Adam, clipping) and scores it by sentence length.

mod training;

pub use training::{ByLength, RnnTrainer, HELD_OUT, HIDDEN, STEPS};

use crate::model::softmax::{softmax, softmax_backward};
use crate::model::tokenizer::{BOS, EOS};
use crate::util::rng::Rng;
use ndarray::{s, Array1, Array2, ArrayView1, Axis};
use serde::Serialize;

/// Sizes of an RNN translator.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RnnConfig {
    pub vocab: usize,
    /// Word embedding width E.
    pub embed: usize,
    /// Hidden state width H (the fixed context's whole capacity).
    pub hidden: usize,
    /// Width A of the additive attention's tanh layer.
    pub attention_width: usize,
    /// Additive attention (else the fixed context vector).
    pub attention: bool,
}

/// A GRU cell's weights: input and hidden matrices with the three gates stacked (r, z, n).
#[derive(Debug, Clone, PartialEq)]
pub struct Gru {
    pub w_ih: Array2<f32>,
    pub w_hh: Array2<f32>,
    pub b_ih: Array1<f32>,
    pub b_hh: Array1<f32>,
}

/// Every parameter of the translator.
#[derive(Debug, Clone, PartialEq)]
pub struct RnnWeights {
    pub emb: Array2<f32>,
    pub enc: Gru,
    pub dec: Gru,
    pub att_w: Array2<f32>,
    pub att_u: Array2<f32>,
    pub att_v: Array1<f32>,
    pub out_w: Array2<f32>,
    pub out_b: Array1<f32>,
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// What one GRU step keeps for its backward pass.
struct GruStep {
    x: Array1<f32>,
    h: Array1<f32>,
    r: Array1<f32>,
    z: Array1<f32>,
    n: Array1<f32>,
    /// W_hn h + b_hn (r multiplies it).
    hn: Array1<f32>,
}

impl Gru {
    fn new(input: usize, hidden: usize, rng: &mut Rng) -> Self {
        // PyTorch's initialisation: uniform in ±1/√H.
        let k = 1.0 / (hidden as f64).sqrt();
        let mut u = |shape: (usize, usize)| {
            Array2::from_shape_fn(shape, |_| ((2.0 * rng.uniform() - 1.0) * k) as f32)
        };
        let (w_ih, w_hh) = (u((3 * hidden, input)), u((3 * hidden, hidden)));
        let b_ih = u((1, 3 * hidden)).remove_axis(Axis(0));
        let b_hh = u((1, 3 * hidden)).remove_axis(Axis(0));
        Self {
            w_ih,
            w_hh,
            b_ih,
            b_hh,
        }
    }

    fn zeros_like(&self) -> Self {
        Self {
            w_ih: Array2::zeros(self.w_ih.raw_dim()),
            w_hh: Array2::zeros(self.w_hh.raw_dim()),
            b_ih: Array1::zeros(self.b_ih.len()),
            b_hh: Array1::zeros(self.b_hh.len()),
        }
    }

    fn forward(&self, x: Array1<f32>, h: &Array1<f32>) -> (Array1<f32>, GruStep) {
        let hd = h.len();
        let gi = self.w_ih.dot(&x) + &self.b_ih;
        let gh = self.w_hh.dot(h) + &self.b_hh;
        let r = (&gi.slice(s![..hd]) + &gh.slice(s![..hd])).mapv(sigmoid);
        let z = (&gi.slice(s![hd..2 * hd]) + &gh.slice(s![hd..2 * hd])).mapv(sigmoid);
        let hn = gh.slice(s![2 * hd..]).to_owned();
        let n = (&gi.slice(s![2 * hd..]) + &(&r * &hn)).mapv(f32::tanh);
        let out = (1.0 - &z) * &n + &z * h;
        let step = GruStep {
            x,
            h: h.clone(),
            r,
            z,
            n,
            hn,
        };
        (out, step)
    }

    /// Backward of one step: adds the weight gradients into `g`, returns (dx, dh).
    fn backward(
        &self,
        st: &GruStep,
        dout: &Array1<f32>,
        g: &mut Gru,
    ) -> (Array1<f32>, Array1<f32>) {
        let hd = st.h.len();
        // h' = (1 − z) n + z h
        let dn = dout * &(1.0 - &st.z);
        let dz = dout * &(&st.h - &st.n);
        let mut dh = dout * &st.z;
        // n = tanh(a_n), a_n = gi_n + r ⊙ hn
        let dan = dn * &(1.0 - &st.n * &st.n);
        let dr = &dan * &st.hn;
        let dhn = &dan * &st.r;
        let dar = dr * &(&st.r * &(1.0 - &st.r));
        let daz = dz * &(&st.z * &(1.0 - &st.z));
        let mut dgi = Array1::zeros(3 * hd);
        dgi.slice_mut(s![..hd]).assign(&dar);
        dgi.slice_mut(s![hd..2 * hd]).assign(&daz);
        dgi.slice_mut(s![2 * hd..]).assign(&dan);
        let mut dgh = dgi.clone();
        dgh.slice_mut(s![2 * hd..]).assign(&dhn);
        outer_add(&mut g.w_ih, &dgi, &st.x);
        outer_add(&mut g.w_hh, &dgh, &st.h);
        g.b_ih += &dgi;
        g.b_hh += &dgh;
        let dx = self.w_ih.t().dot(&dgi);
        dh += &self.w_hh.t().dot(&dgh);
        (dx, dh)
    }
}

/// m += a bᵀ
fn outer_add(m: &mut Array2<f32>, a: &Array1<f32>, b: &Array1<f32>) {
    for (mut row, &ai) in m.rows_mut().into_iter().zip(a) {
        if ai != 0.0 {
            row.scaled_add(ai, b);
        }
    }
}

/// One decoder step's attention, kept for the backward pass and for the alignment map.
struct AttentionStep {
    /// tanh(W s_{t−1} + U h_i), one row per source word.
    a: Array2<f32>,
    /// e_{t,i} = vᵀ a_i
    e: Array1<f32>,
    alpha: Array1<f32>,
}

/// One decoder step's attention scores e and weights α over the source words.
pub type StepScores = (Array1<f32>, Array1<f32>);

/// A translation's forward pass: the encoder's states, the decoder's steps and the loss.
pub struct Pass {
    enc_steps: Vec<GruStep>,
    /// h_1 … h_T (rows).
    pub states: Array2<f32>,
    dec_steps: Vec<GruStep>,
    /// s₀ … s_T' (s₀ = h_T).
    dec_states: Vec<Array1<f32>>,
    attention: Vec<AttentionStep>,
    contexts: Vec<Array1<f32>>,
    /// Softmax of each step's logits.
    probs: Vec<Array1<f32>>,
    /// Summed cross-entropy over the target (nats).
    pub loss: f32,
}

impl Pass {
    /// α_t over the source words, one row per decoder step (attention only).
    pub fn alignment(&self) -> Option<Array2<f32>> {
        let first = self.attention.first()?;
        let mut m = Array2::zeros((self.attention.len(), first.alpha.len()));
        for (mut row, a) in m.rows_mut().into_iter().zip(&self.attention) {
            row.assign(&a.alpha);
        }
        Some(m)
    }
}

impl RnnWeights {
    pub fn random(c: &RnnConfig, seed: u64) -> Self {
        let mut rng = Rng::new(seed ^ 0x000a_119e);
        let mut normal = |shape: (usize, usize), std: f64| {
            Array2::from_shape_fn(shape, |_| (rng.normal() * std) as f32)
        };
        let emb = normal((c.vocab, c.embed), 1.0);
        let att_w = normal(
            (c.attention_width, c.hidden),
            1.0 / (c.hidden as f64).sqrt(),
        );
        let att_u = normal(
            (c.attention_width, c.hidden),
            1.0 / (c.hidden as f64).sqrt(),
        );
        let att_v = normal(
            (1, c.attention_width),
            1.0 / (c.attention_width as f64).sqrt(),
        )
        .remove_axis(Axis(0));
        let out_w = normal(
            (c.vocab, 2 * c.hidden),
            1.0 / (2.0 * c.hidden as f64).sqrt(),
        );
        let mut rng = Rng::new(seed ^ 0x6e0);
        Self {
            emb,
            enc: Gru::new(c.embed, c.hidden, &mut rng),
            dec: Gru::new(c.embed + c.hidden, c.hidden, &mut rng),
            att_w,
            att_u,
            att_v,
            out_w,
            out_b: Array1::zeros(c.vocab),
        }
    }

    pub fn zeros_like(&self) -> Self {
        Self {
            emb: Array2::zeros(self.emb.raw_dim()),
            enc: self.enc.zeros_like(),
            dec: self.dec.zeros_like(),
            att_w: Array2::zeros(self.att_w.raw_dim()),
            att_u: Array2::zeros(self.att_u.raw_dim()),
            att_v: Array1::zeros(self.att_v.len()),
            out_w: Array2::zeros(self.out_w.raw_dim()),
            out_b: Array1::zeros(self.out_b.len()),
        }
    }

    /// Every parameter tensor by name (the names the PyTorch fixtures use), flat.
    pub fn named_mut(&mut self) -> Vec<(&'static str, &mut [f32])> {
        fn flat<D: ndarray::Dimension>(a: &mut ndarray::Array<f32, D>) -> &mut [f32] {
            a.as_slice_mut().expect("parameters are contiguous")
        }
        vec![
            ("emb", flat(&mut self.emb)),
            ("enc.w_ih", flat(&mut self.enc.w_ih)),
            ("enc.w_hh", flat(&mut self.enc.w_hh)),
            ("enc.b_ih", flat(&mut self.enc.b_ih)),
            ("enc.b_hh", flat(&mut self.enc.b_hh)),
            ("dec.w_ih", flat(&mut self.dec.w_ih)),
            ("dec.w_hh", flat(&mut self.dec.w_hh)),
            ("dec.b_ih", flat(&mut self.dec.b_ih)),
            ("dec.b_hh", flat(&mut self.dec.b_hh)),
            ("att.w", flat(&mut self.att_w)),
            ("att.u", flat(&mut self.att_u)),
            ("att.v", flat(&mut self.att_v)),
            ("out.w", flat(&mut self.out_w)),
            ("out.b", flat(&mut self.out_b)),
        ]
    }
}

/// A GRU translator: its sizes and weights.
#[derive(Debug, Clone, PartialEq)]
pub struct RnnModel {
    pub config: RnnConfig,
    pub weights: RnnWeights,
}

impl RnnModel {
    fn encode(&self, source: &[u32]) -> (Vec<GruStep>, Array2<f32>) {
        let w = &self.weights;
        let hd = self.config.hidden;
        let mut h = Array1::zeros(hd);
        let mut steps = Vec::with_capacity(source.len());
        let mut states = Array2::zeros((source.len(), hd));
        for (i, &id) in source.iter().enumerate() {
            let (next, st) = w.enc.forward(w.emb.row(id as usize).to_owned(), &h);
            states.row_mut(i).assign(&next);
            steps.push(st);
            h = next;
        }
        (steps, states)
    }

    /// h_T, the encoder's last state (zeros for an empty source).
    fn last_state(&self, states: &Array2<f32>) -> Array1<f32> {
        match states.nrows() {
            0 => Array1::zeros(self.config.hidden),
            n => states.row(n - 1).to_owned(),
        }
    }

    /// The context for a decoder step from the previous state: attention, or h_T.
    fn context(
        &self,
        states: &Array2<f32>,
        u_h: &Array2<f32>,
        s_prev: &Array1<f32>,
    ) -> (Array1<f32>, Option<AttentionStep>) {
        let w = &self.weights;
        if !self.config.attention || states.nrows() == 0 {
            return (self.last_state(states), None);
        }
        // e_i = vᵀ tanh(W s + U h_i)
        let ws = w.att_w.dot(s_prev);
        let a = (u_h + &ws.insert_axis(Axis(0))).mapv(f32::tanh);
        let e = a.dot(&w.att_v);
        let alpha = Array1::from(softmax(&e.to_vec()));
        let c = states.t().dot(&alpha);
        (c, Some(AttentionStep { a, e, alpha }))
    }

    /// Teacher-forced pass over `target_in` (starting with BOS), scored against `labels`.
    pub fn forward(&self, source: &[u32], target_in: &[u32], labels: &[u32]) -> Pass {
        let w = &self.weights;
        let (enc_steps, states) = self.encode(source);
        let u_h = states.dot(&w.att_u.t());
        let mut s = self.last_state(&states);
        let mut pass = Pass {
            enc_steps,
            states: states.clone(),
            dec_steps: Vec::new(),
            dec_states: vec![s.clone()],
            attention: Vec::new(),
            contexts: Vec::new(),
            probs: Vec::new(),
            loss: 0.0,
        };
        for (&y_in, &label) in target_in.iter().zip(labels) {
            let (c, att) = self.context(&states, &u_h, &s);
            let x = ndarray::concatenate(Axis(0), &[w.emb.row(y_in as usize), c.view()])
                .expect("same axis");
            let (next, st) = w.dec.forward(x, &s);
            let o = ndarray::concatenate(Axis(0), &[next.view(), c.view()]).expect("same axis");
            let p = Array1::from(softmax(&(w.out_w.dot(&o) + &w.out_b).to_vec()));
            pass.loss -= p[label as usize].max(1e-30).ln();
            pass.dec_steps.push(st);
            pass.dec_states.push(next.clone());
            pass.attention.extend(att);
            pass.contexts.push(c);
            pass.probs.push(p);
            s = next;
        }
        pass
    }

    /// Gradients of the pass's summed loss, added into `g`.
    pub fn backward(
        &self,
        source: &[u32],
        target_in: &[u32],
        labels: &[u32],
        pass: &Pass,
        g: &mut RnnWeights,
    ) {
        let w = &self.weights;
        let hd = self.config.hidden;
        let e_dim = self.config.embed;
        let t_src = source.len();
        // Gradient reaching each encoder state h_i from outside the encoder's own recurrence.
        let mut dstates = Array2::<f32>::zeros((t_src, hd));
        let mut ds = Array1::<f32>::zeros(hd);
        for t in (0..target_in.len().min(labels.len())).rev() {
            // logits = W_out [s_t; c_t] + b; d logits = p − onehot(label)
            let mut dlogits = pass.probs[t].clone();
            dlogits[labels[t] as usize] -= 1.0;
            let s_t = &pass.dec_states[t + 1];
            let c = &pass.contexts[t];
            let o = ndarray::concatenate(Axis(0), &[s_t.view(), c.view()]).expect("same axis");
            outer_add(&mut g.out_w, &dlogits, &o);
            g.out_b += &dlogits;
            let d_o = w.out_w.t().dot(&dlogits);
            ds += &d_o.slice(s![..hd]);
            let mut dc = d_o.slice(s![hd..]).to_owned();
            let (dx, dh_prev) = w.dec.backward(&pass.dec_steps[t], &ds, &mut g.dec);
            g.emb
                .row_mut(target_in[t] as usize)
                .scaled_add(1.0, &dx.slice(s![..e_dim]));
            dc += &dx.slice(s![e_dim..]);
            ds = dh_prev;
            self.context_backward(pass, t, &dc, &mut ds, &mut dstates, g);
        }
        // s₀ = h_T
        if t_src > 0 {
            dstates.row_mut(t_src - 1).scaled_add(1.0, &ds);
        }
        // Back through the encoder, last word first.
        let mut dh = Array1::<f32>::zeros(hd);
        for i in (0..t_src).rev() {
            dh += &dstates.row(i);
            let (dx, dh_prev) = w.enc.backward(&pass.enc_steps[i], &dh, &mut g.enc);
            g.emb.row_mut(source[i] as usize).scaled_add(1.0, &dx);
            dh = dh_prev;
        }
    }

    /// Backward of step t's context into the previous decoder state and the encoder states.
    fn context_backward(
        &self,
        pass: &Pass,
        t: usize,
        dc: &Array1<f32>,
        ds_prev: &mut Array1<f32>,
        dstates: &mut Array2<f32>,
        g: &mut RnnWeights,
    ) {
        let w = &self.weights;
        let t_src = pass.states.nrows();
        if t_src == 0 {
            return;
        }
        let Some(att) = self.config.attention.then(|| &pass.attention[t]) else {
            dstates.row_mut(t_src - 1).scaled_add(1.0, dc);
            return;
        };
        // c = Σ α_i h_i
        let dalpha = pass.states.dot(dc);
        for (mut row, &a) in dstates.rows_mut().into_iter().zip(&att.alpha) {
            row.scaled_add(a, dc);
        }
        // α = softmax(e): de = α ⊙ (dα − Σ α dα), the softmax's backward on one row
        let de = softmax_backward(
            att.alpha.view().insert_axis(Axis(0)),
            dalpha.view().insert_axis(Axis(0)),
        )
        .index_axis_move(Axis(0), 0);
        // e_i = v · a_i, a_i = tanh(pre_i), pre_i = W s + U h_i
        let mut dpre = Array2::<f32>::zeros(att.a.raw_dim());
        for (i, (mut row, a_row)) in dpre.rows_mut().into_iter().zip(att.a.rows()).enumerate() {
            g.att_v.scaled_add(de[i], &a_row);
            let da: Array1<f32> = &w.att_v * de[i];
            row.assign(&(da * &a_row.mapv(|v| 1.0 - v * v)));
        }
        let dpre_sum = dpre.sum_axis(Axis(0));
        outer_add(&mut g.att_w, &dpre_sum, &pass.dec_states[t]);
        *ds_prev += &w.att_w.t().dot(&dpre_sum);
        g.att_u += &dpre.t().dot(&pass.states);
        *dstates += &dpre.dot(&w.att_u);
    }

    /// Greedy translation, at most `max_len` words; with attention, (e, α) at each step.
    pub fn greedy(&self, source: &[u32], max_len: usize) -> (Vec<u32>, Vec<StepScores>) {
        let w = &self.weights;
        let (_, states) = self.encode(source);
        let u_h = states.dot(&w.att_u.t());
        let mut s = self.last_state(&states);
        let (mut out, mut alphas, mut prev) = (Vec::new(), Vec::new(), BOS);
        for _ in 0..max_len {
            let (c, att) = self.context(&states, &u_h, &s);
            let x = ndarray::concatenate(Axis(0), &[w.emb.row(prev as usize), c.view()])
                .expect("same axis");
            let (next, _) = w.dec.forward(x, &s);
            let o = ndarray::concatenate(Axis(0), &[next.view(), c.view()]).expect("same axis");
            let logits = w.out_w.dot(&o) + &w.out_b;
            let best = argmax(logits.view());
            alphas.extend(att.map(|a| (a.e, a.alpha)));
            if best == EOS {
                break;
            }
            out.push(best);
            prev = best;
            s = next;
        }
        (out, alphas)
    }
}

fn argmax(v: ArrayView1<f32>) -> u32 {
    crate::util::argmax(v.iter().copied()).map_or(0, |(i, _)| i as u32)
}

#[cfg(test)]
mod tests;
