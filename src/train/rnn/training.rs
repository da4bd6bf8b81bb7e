//! Training the GRU translator on the translation task, and its exact match by length.

use super::{RnnConfig, RnnModel, RnnWeights};
use crate::model::tokenizer::{Tokenizer, TokenizerSpec};
use crate::model::Result;
use crate::train::tasks::{Split, TaskKind};
use crate::train::trainer::make_example;
use crate::util::rng::Rng;

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
    pair: &crate::train::tasks::Pair,
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
