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

use super::tasks::{Split, TaskKind};
use super::trainer::make_example;
use crate::model::tokenizer::{Tokenizer, TokenizerSpec, BOS, EOS};
use crate::model::Result;
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

fn softmax(e: &Array1<f32>) -> Array1<f32> {
    let max = e.fold(f32::NEG_INFINITY, |m, &v| m.max(v));
    let ex = e.mapv(|v| (v - max).exp());
    let sum = ex.sum();
    ex / sum
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
        let alpha = softmax(&e);
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
            let p = softmax(&(w.out_w.dot(&o) + &w.out_b));
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
        // α = softmax(e): de = α ⊙ (dα − Σ α dα)
        let dot = att.alpha.dot(&dalpha);
        let de = &att.alpha * &(dalpha - dot);
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

/// The bottleneck experiment's settings: an 8-wide state holds short sentences but not long
/// ones (at 16 the fixed context already translates most of the toy grammar); 1,500 steps.
pub const HIDDEN: usize = 8;
pub const STEPS: u64 = 1500;
/// Held-out sentences scored by length.
pub const HELD_OUT: usize = 400;

/// Exact share at each source length: (length, sentences, right).
pub type ByLength = Vec<(usize, usize, usize)>;

/// Adam over the translator's parameters (β = 0.9, 0.98; no weight decay), with the global
/// gradient norm clipped at 1.
pub struct RnnTrainer {
    pub model: RnnModel,
    pub tokenizer: Tokenizer,
    task: TaskKind,
    m: Vec<Vec<f32>>,
    v: Vec<Vec<f32>>,
    rng: Rng,
    pub steps: u64,
    pub lr: f32,
    pub batch: usize,
    /// Mean loss per target word, each step.
    pub losses: Vec<f32>,
}

/// Source, decoder input (BOS first) and labels (EOS last) of a task pair.
fn triple(
    task: TaskKind,
    tok: &Tokenizer,
    pair: &super::tasks::Pair,
) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let ex = make_example(task, tok, pair);
    (ex.input.source, ex.input.target, ex.labels)
}

impl RnnTrainer {
    pub fn new(task: TaskKind, attention: bool, hidden: usize, seed: u64) -> Result<Self> {
        let spec = TokenizerSpec::with_symbols(task.tokenizer_kind(), task.symbols());
        let tokenizer = Tokenizer::new(spec)?;
        let config = RnnConfig {
            vocab: tokenizer.vocab_size(),
            embed: 32,
            hidden,
            attention_width: hidden,
            attention,
        };
        let mut weights = RnnWeights::random(&config, seed);
        let sizes: Vec<usize> = weights.named_mut().iter().map(|(_, p)| p.len()).collect();
        Ok(Self {
            model: RnnModel { config, weights },
            tokenizer,
            task,
            m: sizes.iter().map(|&n| vec![0.0; n]).collect(),
            v: sizes.iter().map(|&n| vec![0.0; n]).collect(),
            rng: Rng::new(seed.wrapping_add(0x5eed)),
            steps: 0,
            lr: 3e-3,
            batch: 16,
            losses: Vec::new(),
        })
    }

    /// One Adam step on a fresh batch; the mean loss per target word.
    pub fn step(&mut self) -> f32 {
        let mut g = self.model.weights.zeros_like();
        let (mut loss, mut words) = (0.0, 0usize);
        for _ in 0..self.batch {
            let pair = self.task.sample(&mut self.rng, Split::Train);
            let (src, tin, labels) = triple(self.task, &self.tokenizer, &pair);
            let pass = self.model.forward(&src, &tin, &labels);
            self.model.backward(&src, &tin, &labels, &pass, &mut g);
            loss += pass.loss;
            words += labels.len();
        }
        let scale = 1.0 / words.max(1) as f32;
        let mut grads = g.named_mut();
        let norm = grads
            .iter()
            .flat_map(|(_, p)| p.iter())
            .map(|&x| f64::from(x * scale).powi(2))
            .sum::<f64>()
            .sqrt() as f32;
        let clip = if norm > 1.0 { 1.0 / norm } else { 1.0 };
        self.steps += 1;
        let (b1, b2, eps) = (0.9f32, 0.98f32, 1e-9f32);
        let t = self.steps as i32;
        let (c1, c2) = (1.0 - b1.powi(t), 1.0 - b2.powi(t));
        let lr = self.lr;
        for (((_, p), (_, gr)), (m, v)) in self
            .model
            .weights
            .named_mut()
            .into_iter()
            .zip(grads.iter_mut())
            .zip(self.m.iter_mut().zip(self.v.iter_mut()))
        {
            for i in 0..p.len() {
                let gi = gr[i] * scale * clip;
                m[i] = b1 * m[i] + (1.0 - b1) * gi;
                v[i] = b2 * v[i] + (1.0 - b2) * gi * gi;
                p[i] -= lr * (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
            }
        }
        let mean = loss * scale;
        self.losses.push(mean);
        mean
    }

    /// Exact-match share by source length in words over `n` held-out sentences (fixed seed):
    /// (length, sentences, exactly right).
    pub fn exact_by_length(&self, n: usize) -> ByLength {
        let mut rng = Rng::new(0xe7a1);
        let mut by: std::collections::BTreeMap<usize, (usize, usize)> = Default::default();
        for _ in 0..n {
            let pair = self.task.sample(&mut rng, Split::HeldOut);
            let (src, _, labels) = triple(self.task, &self.tokenizer, &pair);
            let want = &labels[..labels.len() - 1];
            let (got, _) = self.model.greedy(&src, labels.len() + 2);
            let e = by.entry(pair.source.len()).or_default();
            e.0 += 1;
            e.1 += usize::from(got == want);
        }
        by.into_iter().map(|(l, (n, k))| (l, n, k)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny(attention: bool) -> RnnModel {
        let config = RnnConfig {
            vocab: 9,
            embed: 4,
            hidden: 5,
            attention_width: 3,
            attention,
        };
        RnnModel {
            weights: RnnWeights::random(&config, 7),
            config,
        }
    }

    /// The loss along a random direction d of all parameters: central differences against
    /// the backward pass's gradient · d, for both variants (the check the transformer's
    /// gradients get beside PyTorch's).
    #[test]
    fn the_backward_pass_matches_finite_differences() {
        for attention in [false, true] {
            let model = tiny(attention);
            let (src, tin, labels) = (vec![3, 4, 5, 6], vec![BOS, 7, 8], vec![7, 8, EOS]);
            let pass = model.forward(&src, &tin, &labels);
            let mut g = model.weights.zeros_like();
            model.backward(&src, &tin, &labels, &pass, &mut g);
            let mut rng = Rng::new(3);
            let mut dir = model.weights.zeros_like();
            for (_, p) in dir.named_mut() {
                p.iter_mut().for_each(|x| *x = rng.normal() as f32);
            }
            let analytic: f64 = g
                .named_mut()
                .into_iter()
                .zip(dir.named_mut())
                .map(|((_, a), (_, d))| {
                    a.iter()
                        .zip(d.iter())
                        .map(|(x, y)| f64::from(x * y))
                        .sum::<f64>()
                })
                .sum();
            let eps = 1e-3f32;
            let mut shifted = |sign: f32| {
                let mut m = model.clone();
                for ((_, p), (_, d)) in m.weights.named_mut().into_iter().zip(dir.named_mut()) {
                    p.iter_mut()
                        .zip(d.iter())
                        .for_each(|(x, y)| *x += sign * eps * y);
                }
                f64::from(m.forward(&src, &tin, &labels).loss)
            };
            let numeric = (shifted(1.0) - shifted(-1.0)) / (2.0 * f64::from(eps));
            let rel = (analytic - numeric).abs() / numeric.abs().max(1e-3);
            assert!(rel < 0.02, "attention {attention}: {analytic} vs {numeric}");
        }
    }

    /// Attention weights are a distribution over the source words at every step.
    #[test]
    fn alignment_rows_sum_to_one() {
        let model = tiny(true);
        let pass = model.forward(&[3, 4, 5], &[BOS, 6], &[6, EOS]);
        let a = pass.alignment().unwrap();
        assert_eq!(a.dim(), (2, 3));
        for row in a.rows() {
            assert!((row.sum() - 1.0).abs() < 1e-5);
        }
        assert!(tiny(false)
            .forward(&[3], &[BOS], &[EOS])
            .alignment()
            .is_none());
    }

    fn tensors(path: &str) -> std::collections::HashMap<String, Vec<f32>> {
        let bytes = std::fs::read(path).unwrap();
        let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
        st.tensors()
            .into_iter()
            .map(|(name, t)| {
                let v = t
                    .data()
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect();
                (name, v)
            })
            .collect()
    }

    /// Loss and every parameter's gradient against PyTorch autograd in f64
    /// (`tests/reference/make_rnn_fixtures.py`: torch.nn.GRUCell cells, the attention and the
    /// output layer from the formulas), for a batch of two sentences of different lengths:
    /// loss within 1e-5 relative, each gradient within 1e-4 of the largest reference value.
    #[test]
    fn loss_and_gradients_match_pytorch() {
        for case in ["fixed", "attention"] {
            let dir = format!("{}/tests/fixtures/rnn/{case}", env!("CARGO_MANIFEST_DIR"));
            let batch: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(format!("{dir}/batch.json")).unwrap(),
            )
            .unwrap();
            let size = |k: &str| batch[k].as_u64().unwrap() as usize;
            let config = RnnConfig {
                vocab: size("vocab"),
                embed: size("embed"),
                hidden: size("hidden"),
                attention_width: size("attention_width"),
                attention: batch["attention"].as_bool().unwrap(),
            };
            let mut model = RnnModel {
                weights: RnnWeights::random(&config, 0),
                config,
            };
            let weights = tensors(&format!("{dir}/weights.safetensors"));
            for (name, p) in model.weights.named_mut() {
                p.copy_from_slice(&weights[name]);
            }
            let reference = tensors(&format!("{dir}/grads.safetensors"));
            let ids = |v: &serde_json::Value| -> Vec<u32> {
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_u64().unwrap() as u32)
                    .collect()
            };
            let mut g = model.weights.zeros_like();
            let mut loss = 0.0;
            for ex in batch["batch"].as_array().unwrap() {
                let (src, tin, labels) = (
                    ids(&ex["source"]),
                    ids(&ex["target_in"]),
                    ids(&ex["labels"]),
                );
                let pass = model.forward(&src, &tin, &labels);
                model.backward(&src, &tin, &labels, &pass, &mut g);
                loss += pass.loss;
            }
            let want = reference["loss"][0];
            assert!(
                (loss - want).abs() <= 1e-5 * want.abs(),
                "{case}: loss {loss} vs {want}"
            );
            for (name, got) in g.named_mut() {
                let want = &reference[name];
                let scale = want.iter().fold(0f32, |m, v| m.max(v.abs())).max(1e-6);
                let worst = got
                    .iter()
                    .zip(want)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0f32, f32::max);
                assert!(
                    worst <= 1e-4 * scale,
                    "{case} {name}: {worst} (largest {scale})"
                );
            }
        }
    }

    /// The notes: one fixed vector cannot hold a long sentence; attention can look back. On
    /// the translator with an 8-wide state, 1,500 steps from seed 1, over 400 held-out
    /// sentences: both get every 2-word sentence right; at 7 words the fixed context gets
    /// 4 of 39, attention 32 (README).
    #[test]
    fn attention_translates_long_sentences_the_fixed_context_cannot() {
        let trained = |attention| {
            let mut t = RnnTrainer::new(TaskKind::Translate, attention, HIDDEN, 1).unwrap();
            for _ in 0..STEPS {
                t.step();
            }
            t.exact_by_length(HELD_OUT)
        };
        let share = |by: &ByLength, len: usize| {
            let (_, n, k) = by.iter().find(|(l, _, _)| *l == len).copied().unwrap();
            k as f32 / n as f32
        };
        let (fixed, attention) = (trained(false), trained(true));
        assert!(
            share(&fixed, 2) >= 0.9 && share(&attention, 2) >= 0.9,
            "{fixed:?} {attention:?}"
        );
        assert!(share(&fixed, 7) <= 0.2, "{fixed:?}");
        assert!(share(&attention, 7) >= 0.6, "{attention:?}");
    }
}
