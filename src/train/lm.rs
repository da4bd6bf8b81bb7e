//! Language modelling on real text: a token stream, its training windows, a data-parallel
//! training step, held-out perplexity for any decoder, and the n-gram baselines it is judged
//! against (issue 20).
//!
//! Perplexity is `exp(−(1/N) Σ_t ln p(x_t | x_<t))` over the N scored tokens: the same tokens
//! (every token after the first) for the model and for both baselines.

use super::backward::{example_gradients, Example};
use super::optim::{clip_global_norm, AdamW, AdamWConfig, Schedule};
use super::trainer::StepStats;
use crate::model::config::{
    Activation, Family, ModelConfig, NormPlacement, Positional, Scoring, FORMAT_NAME,
    FORMAT_VERSION,
};
use crate::model::softmax::log_sum_exp;
use crate::model::subword::SubwordTokenizer;
use crate::model::tokenizer::Tokenizer;
use crate::model::weights::{init_tensors, Weights};
use crate::model::{ForwardOptions, Model, ModelError, ModelInput, Result};
use crate::util::rng::Rng;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Everything that determines an LM training run besides the data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LmConfig {
    pub d_model: usize,
    pub n_heads: usize,
    pub n_layers: usize,
    pub d_ff: usize,
    /// Tokens per training window, and the longest input the model accepts.
    pub context: usize,
    /// Windows per step.
    pub batch_size: usize,
    pub schedule: Schedule,
    pub clip_norm: f32,
    pub adam: AdamWConfig,
    pub seed: u64,
    /// What the model learns to predict (older recipes, which do not say, are causal).
    #[serde(default)]
    pub objective: Objective,
}

/// The pre-training task, and with it the kind of model.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Objective {
    /// GPT's: each token from the ones before it, `p(x_t | x_<t)`; a causal decoder.
    #[default]
    Causal,
    /// BERT's: a share `rate` of the tokens hidden and predicted from both sides,
    /// `p(x_i | x̃)`; an encoder (see `train::mlm`).
    Masked { rate: f32 },
}

impl Default for LmConfig {
    /// The shipped model's shape: 4 pre-norm blocks of width 192 with RoPE and GELU, tied
    /// input and output embeddings (the 4096 × 192 table is a third of the parameters).
    fn default() -> Self {
        Self {
            d_model: 192,
            n_heads: 4,
            n_layers: 4,
            d_ff: 768,
            context: 128,
            batch_size: 16,
            schedule: Schedule::WarmupCosine {
                peak: 2e-3,
                floor: 1e-4,
                warmup: 200,
                total: 6000,
            },
            clip_norm: 1.0,
            adam: AdamWConfig {
                beta1: 0.9,
                beta2: 0.98,
                eps: 1e-8,
                weight_decay: 0.05,
            },
            seed: 1,
            objective: Objective::Causal,
        }
    }
}

impl LmConfig {
    pub fn check(&self) -> Result<()> {
        let bad = |m: String| Err(ModelError::Config(m));
        if self.batch_size == 0 || self.context < 2 {
            return bad("an LM needs batch_size ≥ 1 and context ≥ 2".into());
        }
        if let Objective::Masked { rate } = self.objective {
            if !(rate > 0.0 && rate < 1.0) {
                return bad(format!("the masking rate must be in (0, 1), got {rate}"));
            }
        }
        if self.clip_norm.is_nan() || self.clip_norm <= 0.0 {
            return bad(format!(
                "clip_norm must be positive, got {}",
                self.clip_norm
            ));
        }
        Ok(())
    }

    /// The model config for a tokenizer of `vocab` ids (`shown`: how each id is displayed).
    pub fn model_config(&self, name: &str, shown: Vec<String>) -> ModelConfig {
        let masked = matches!(self.objective, Objective::Masked { .. });
        let (kind, family) = match masked {
            true => ("a masked-language encoder", Family::Encoder),
            false => ("an English decoder", Family::Decoder),
        };
        ModelConfig {
            format: FORMAT_NAME.into(),
            version: FORMAT_VERSION,
            name: name.into(),
            description: format!(
                "{kind} trained by Glimpse on the State of the Union addresses (1790–2007), \
                 byte-level BPE"
            ),
            family,
            d_model: self.d_model,
            n_heads: self.n_heads,
            n_kv_heads: self.n_heads,
            n_layers: self.n_layers,
            d_ff: self.d_ff,
            max_len: self.context,
            activation: Activation::Gelu,
            norm: NormPlacement::Pre,
            ln_eps: 1e-5,
            positional: Positional::Rope { base: 10000.0 },
            scoring: Scoring::ScaledDot,
            tie_embeddings: true,
            causal: !masked,
            tokenizer: crate::model::tokenizer::TokenizerSpec {
                kind: crate::model::tokenizer::TokenizerKind::Subword,
                tokens: shown,
            },
            extensions: Default::default(),
        }
    }
}

/// A fresh model for `cfg` with a trained `tokenizer.json`, deterministic for the seed; with
/// `init`, its weights start as that model's (see `mlm::start_from`).
pub fn random_lm(
    cfg: &LmConfig,
    name: &str,
    tokenizer_json: &[u8],
    init: Option<&Model>,
) -> Result<Model> {
    let sw = SubwordTokenizer::from_bytes(tokenizer_json, None)
        .map_err(|e| ModelError::Config(format!("tokenizer: {e}")))?;
    let vocab = sw.vocab_size();
    let tok = Tokenizer::subword(sw, vocab);
    let config = cfg.model_config(name, tok.spec().tokens.clone());
    config.validate()?;
    let mut tensors = init_tensors(&config, cfg.seed);
    // GPT-2's initialisation, in the textbook init's terms. The embedding table is also the
    // output matrix: at the textbook's N(0, 1), logits of the unit-variance final norm have
    // standard deviation √d (≈14) and the first loss is ~100 nats instead of ln V ≈ 8.3; at
    // N(0, 1/d) they start near 1. The projections into the residual stream (W_O, FFN W₂)
    // are scaled by 1/√(2L) so the stream's variance does not grow with depth.
    let (d, layers) = (cfg.d_model as f32, cfg.n_layers.max(1) as f32);
    for (name, t) in tensors.iter_mut() {
        if name == "tok_embed" {
            *t *= 1.0 / d.sqrt();
        } else if name.ends_with(".w_o") || name.ends_with(".ffn.w2") {
            *t *= 1.0 / (2.0 * layers).sqrt();
        }
    }
    if let Some(from) = init {
        let (have, want) = (&from.config.tokenizer.tokens, &config.tokenizer.tokens);
        if want.get(..have.len()) != Some(have.as_slice()) {
            return Err(ModelError::Config(format!(
                "--init: {} has another tokenizer (its ids must come first in this one's)",
                from.config.name
            )));
        }
        super::mlm::start_from(&mut tensors, from)?;
    }
    let weights = Weights::from_tensors(&config, tensors)?;
    Model::with_tokenizer(config, tok, weights)
}

/// The id that starts a text: the tokenizer's beginning-of-sequence token, else its
/// end-of-sequence one (GPT-2 and Glimpse's LM use `<|endoftext|>` for both); none for the
/// toy tokenizers' models, which are given `<bos>` by their own conventions.
pub fn start_token(model: &Model) -> Option<u32> {
    let s = model.tokenizer.specials();
    s.bos.or(s.eos)
}

/// Text → one token stream: the text is cut after every line break and the pieces are
/// encoded on their own (in parallel natively), so a 10 MB file never goes through the
/// tokenizer in one call. Training, evaluation and the baselines all read text through this.
pub fn encode_stream(tok: &Tokenizer, text: &str) -> Vec<u32> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    #[cfg(not(target_arch = "wasm32"))]
    let parts: Vec<Vec<u32>> = {
        use rayon::prelude::*;
        lines
            .par_chunks(256)
            .map(|c| c.iter().flat_map(|l| tok.encode(l).ids).collect())
            .collect()
    };
    #[cfg(target_arch = "wasm32")]
    let parts: Vec<Vec<u32>> = vec![lines.iter().flat_map(|l| tok.encode(l).ids).collect()];
    parts.concat()
}

/// The training example at `start`: `ids[start..start+n]` predicts `ids[start+1..start+n+1]`.
pub fn window(ids: &[u32], start: usize, n: usize) -> Example {
    let input = ids[start..start + n].to_vec();
    let labels = ids[start + 1..start + n + 1].to_vec();
    Example {
        input: ModelInput {
            target: input,
            ..Default::default()
        },
        loss_mask: vec![true; labels.len()],
        labels,
    }
}

/// Trains a decoder on a token stream: windows drawn uniformly at random (seeded), gradients
/// of a batch computed in parallel over fixed slices of the batch and summed in order, so a
/// run depends on the seed and the thread count only.
pub struct LmTrainer {
    pub config: LmConfig,
    pub model: Model,
    opt: AdamW,
    rng: Rng,
    threads: usize,
    /// How windows are corrupted, for the masked objective.
    masking: Option<super::mlm::Masking>,
}

impl LmTrainer {
    pub fn new(config: LmConfig, model: Model, threads: usize) -> Result<Self> {
        config.check()?;
        let masking = match config.objective {
            Objective::Causal => None,
            Objective::Masked { rate } => Some(super::mlm::masking_of(&model, rate)?),
        };
        let opt = AdamW::new(&model.weights, config.adam);
        let rng = Rng::new(config.seed.wrapping_add(0x5eed));
        Ok(Self {
            config,
            model,
            opt,
            rng,
            threads: threads.max(1),
            masking,
        })
    }

    pub fn steps_done(&self) -> u64 {
        self.opt.step
    }

    /// One optimisation step on `batch_size` fresh windows of `ids`.
    pub fn step(&mut self, ids: &[u32]) -> Result<StepStats> {
        let n = self.config.context;
        if ids.len() < n + 1 {
            return Err(ModelError::Input(format!(
                "the training text has {} tokens, fewer than one window of {}",
                ids.len(),
                n + 1
            )));
        }
        let rng = &mut self.rng;
        let batch: Vec<Example> = (0..self.config.batch_size)
            .map(|_| {
                let start = rng.below(ids.len() - n);
                match self.masking {
                    Some(m) => super::mlm::masked_window(ids, start, n, m, rng),
                    None => window(ids, start, n),
                }
            })
            .collect();
        let chunk = batch.len().div_ceil(self.threads);
        let model = &self.model;
        let work = |exs: &[Example]| -> Result<(Weights, f32, usize)> {
            let mut g = model.weights.zeros_like();
            let (mut loss, mut tokens) = (0.0, 0);
            for ex in exs {
                let (l, c, _) = example_gradients(model, ex, 0.0, None, &mut g)?;
                loss += l;
                tokens += c;
            }
            Ok((g, loss, tokens))
        };
        #[cfg(not(target_arch = "wasm32"))]
        let parts: Vec<Result<(Weights, f32, usize)>> = {
            use rayon::prelude::*;
            batch.par_chunks(chunk).map(work).collect()
        };
        #[cfg(target_arch = "wasm32")]
        let parts: Vec<Result<(Weights, f32, usize)>> = batch.chunks(chunk).map(work).collect();
        let mut parts = parts.into_iter();
        let (mut grads, mut loss, mut tokens) = parts
            .next()
            .unwrap_or_else(|| Ok((model.weights.zeros_like(), 0.0, 0)))?;
        for p in parts {
            let (g, l, c) = p?;
            add_into(&mut grads, &g);
            loss += l;
            tokens += c;
        }
        // The mean token loss's gradient: the summed one over the number of tokens.
        let scale = 1.0 / tokens.max(1) as f32;
        grads.visit_mut(&mut |_, mut g| g *= scale);
        let grad_norm = clip_global_norm(&mut grads, self.config.clip_norm);
        let step = self.opt.step + 1;
        let lr = self.config.schedule.lr(step);
        self.opt.update(&mut self.model.weights, &grads, lr);
        Ok(StepStats {
            step,
            loss: loss * scale,
            lr,
            grad_norm,
            tokens,
        })
    }
}

/// `acc += g`, tensor by tensor (both shaped like the same model's weights).
fn add_into(acc: &mut Weights, g: &Weights) {
    let gs = g.params();
    for ((_, mut a), (_, b)) in acc.params_mut().into_iter().zip(gs) {
        a += &b;
    }
}

/// What a perplexity evaluation measured.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Perplexity {
    /// Tokens scored (every token of the stream after the first).
    pub tokens: usize,
    /// Mean negative log-likelihood, nats per token.
    pub nats_per_token: f64,
    /// `exp(nats_per_token)`.
    pub perplexity: f64,
}

impl Perplexity {
    pub fn from_total(nats: f64, tokens: usize) -> Self {
        let mean = nats / tokens.max(1) as f64;
        Self {
            tokens,
            nats_per_token: mean,
            perplexity: mean.exp(),
        }
    }
}

/// The windows that score a stream of `len` tokens with a model of context `n`: each is
/// (start, first scored position within it). The first window scores positions 1‥n−1; each
/// next one moves by n/2 and scores only its second half, so every token after the first is
/// scored exactly once, with at least n/2 tokens of context once past the start.
pub fn eval_windows(len: usize, n: usize) -> Vec<(usize, usize)> {
    let n = n.max(2);
    if len <= n {
        return vec![(0, 1)];
    }
    let stride = n / 2;
    let mut out = vec![(0, 1)];
    let mut scored_to = n; // positions < scored_to are scored
    while scored_to < len {
        let start = (scored_to + stride).min(len) - n;
        out.push((start, scored_to - start));
        scored_to = start + n;
    }
    out
}

/// Held-out perplexity of a decoder on a token stream (windows of its `max_len`).
pub fn perplexity(model: &Model, ids: &[u32]) -> Result<Perplexity> {
    if ids.len() < 2 {
        return Err(ModelError::Input(
            "perplexity needs at least two tokens".into(),
        ));
    }
    let n = model.config.max_len.min(ids.len());
    let windows = eval_windows(ids.len(), n);
    let score = |&(start, first): &(usize, usize)| -> Result<(f64, usize)> {
        let end = (start + n).min(ids.len());
        let input = ModelInput {
            target: ids[start..end].to_vec(),
            ..Default::default()
        };
        let trace = model.forward(&input, &ForwardOptions::default())?;
        let (mut nats, mut count) = (0.0, 0);
        // Row t of the logits predicts token start + t + 1.
        for t in first.max(1) - 1..end - start - 1 {
            let row = trace.logits.row(t);
            let label = ids[start + t + 1] as usize;
            // −ln softmax(z)_y = logsumexp(z) − z_y
            nats += log_sum_exp(row.iter().map(|&z| z as f64)) - row[label] as f64;
            count += 1;
        }
        Ok((nats, count))
    };
    #[cfg(not(target_arch = "wasm32"))]
    let parts: Vec<Result<(f64, usize)>> = {
        use rayon::prelude::*;
        windows.par_iter().map(score).collect()
    };
    #[cfg(target_arch = "wasm32")]
    let parts: Vec<Result<(f64, usize)>> = windows.iter().map(score).collect();
    let (mut nats, mut count) = (0.0, 0);
    for p in parts {
        let (a, c) = p?;
        nats += a;
        count += c;
    }
    Ok(Perplexity::from_total(nats, count))
}

/// The unigram baseline's probabilities: `p(w) = (c(w) + 1) / (N + V)` (add-one, so a token
/// unseen in training still has a probability), for every id below `vocab`.
pub fn unigram_probabilities(train: &[u32], vocab: usize) -> Vec<f64> {
    let mut counts = vec![0u64; vocab];
    for &w in train {
        counts[w as usize] += 1;
    }
    let denom = (train.len() + vocab) as f64;
    counts.iter().map(|&c| (c + 1) as f64 / denom).collect()
}

/// The unigram baseline scored on every token of `test` after the first.
pub fn unigram_perplexity(train: &[u32], test: &[u32], vocab: usize) -> Perplexity {
    let p = unigram_probabilities(train, vocab);
    let nats: f64 = test[1..].iter().map(|&w| -p[w as usize].ln()).sum();
    Perplexity::from_total(nats, test.len().saturating_sub(1))
}

/// Interpolated Kneser–Ney bigram (Chen & Goodman's form with one discount):
///
/// `p(w | v) = max(c(v,w) − D, 0) / c(v)  +  D · N₁₊(v•) / c(v) · p_cont(w)`
/// `p_cont(w) = (N₁₊(•w) + 1) / (N₁₊(••) + V)`
///
/// where c(v) counts v as a history, N₁₊(v•) the distinct words after v, N₁₊(•w) the distinct
/// words before w, N₁₊(••) the distinct bigrams, and `D = n₁ / (n₁ + 2 n₂)` (Ney's estimate
/// from the numbers of bigrams seen once and twice). The add-one in p_cont keeps unseen
/// tokens possible; an unseen history falls back to p_cont alone.
pub struct KneserNeyBigram {
    pub discount: f64,
    bigrams: HashMap<(u32, u32), u64>,
    history: Vec<u64>,
    followers: Vec<u64>,
    continuation: Vec<f64>,
}

impl KneserNeyBigram {
    pub fn fit(train: &[u32], vocab: usize) -> Self {
        let mut bigrams: HashMap<(u32, u32), u64> = HashMap::new();
        for w in train.windows(2) {
            *bigrams.entry((w[0], w[1])).or_default() += 1;
        }
        let (mut history, mut followers, mut preceders) =
            (vec![0u64; vocab], vec![0u64; vocab], vec![0u64; vocab]);
        let (mut n1, mut n2) = (0u64, 0u64);
        for (&(v, w), &c) in &bigrams {
            history[v as usize] += c;
            followers[v as usize] += 1;
            preceders[w as usize] += 1;
            n1 += (c == 1) as u64;
            n2 += (c == 2) as u64;
        }
        let discount = if n1 + n2 == 0 {
            0.5
        } else {
            n1 as f64 / (n1 as f64 + 2.0 * n2 as f64)
        };
        let types = (bigrams.len() + vocab) as f64;
        let continuation = preceders.iter().map(|&p| (p + 1) as f64 / types).collect();
        Self {
            discount,
            bigrams,
            history,
            followers,
            continuation,
        }
    }

    /// `p_cont(w)`: the bigram's guess for a word with no history.
    pub fn continuation(&self, w: u32) -> f64 {
        self.continuation[w as usize]
    }

    pub fn prob(&self, v: u32, w: u32) -> f64 {
        let p_cont = self.continuation[w as usize];
        let c_v = self.history[v as usize] as f64;
        if c_v == 0.0 {
            return p_cont;
        }
        let c_vw = self.bigrams.get(&(v, w)).copied().unwrap_or(0) as f64;
        let lambda = self.discount * self.followers[v as usize] as f64 / c_v;
        (c_vw - self.discount).max(0.0) / c_v + lambda * p_cont
    }

    pub fn perplexity(&self, test: &[u32]) -> Perplexity {
        let nats: f64 = test.windows(2).map(|w| -self.prob(w[0], w[1]).ln()).sum();
        Perplexity::from_total(nats, test.len().saturating_sub(1))
    }
}

#[cfg(test)]
mod tests;
