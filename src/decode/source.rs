//! Where next-token log-probabilities come from. A model source keeps a key/value cache per
//! prefix (a child continues its parent's cache), or recomputes the whole prefix every time.

use crate::model::softmax::log_softmax;
use crate::model::tokenizer::{BOS, EOS};
use crate::model::transformer::DecodeState;
use crate::model::{ForwardOptions, Model, ModelInput};
use std::collections::HashMap;

/// A next-token distribution over a vocabulary.
pub trait Source {
    fn vocab_size(&self) -> usize;
    /// How token `id` is shown.
    fn token(&self, id: u32) -> String;
    fn bos(&self) -> u32 {
        BOS
    }
    fn eos(&self) -> u32 {
        EOS
    }
    /// `log p(next | prefix)` for every token; `prefix` starts with `<bos>`.
    fn log_probs(&mut self, prefix: &[u32]) -> Result<Vec<f32>, String>;
    /// The model behind it, if any (for attention views).
    fn model(&self) -> Option<&Model> {
        None
    }
    /// Work done so far (for the cache comparison).
    fn work(&self) -> Work {
        Work::default()
    }
}

/// How much a source computed: positions run through the decoder, and wall time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Work {
    pub calls: usize,
    /// Decoder positions computed (a cached step computes one; a recomputation all).
    pub positions: usize,
    pub seconds: f64,
}

pub struct ModelSource {
    model: Model,
    source: Vec<u32>,
    temperature: f32,
    use_cache: bool,
    /// Caches after feeding each prefix (its last token included).
    caches: HashMap<Vec<u32>, DecodeState>,
    work: Work,
}

impl ModelSource {
    /// Decode `model` on `source_text` (ignored by decoder-only models, whose prompt is the
    /// prefix itself).
    pub fn new(
        model: Model,
        source_text: &str,
        temperature: f32,
        use_cache: bool,
    ) -> Result<Self, String> {
        let source = if model.config.family.has_encoder() {
            let p = model.prepare(source_text, "");
            if p.input.source.is_empty() {
                return Err("type a source sentence first".into());
            }
            p.input.source
        } else {
            vec![]
        };
        Self::from_ids(model, source, temperature, use_cache)
    }

    /// Decode `model` on source ids already tokenized (empty for a decoder-only model); a
    /// source longer than the model accepts is refused.
    pub fn from_ids(
        model: Model,
        source: Vec<u32>,
        temperature: f32,
        use_cache: bool,
    ) -> Result<Self, String> {
        let max = model.config.max_len;
        if source.len() > max {
            return Err(crate::model::ModelError::TooLong {
                len: source.len(),
                max,
            }
            .to_string());
        }
        Ok(Self {
            model,
            source,
            temperature,
            use_cache,
            caches: HashMap::new(),
            work: Work::default(),
        })
    }

    pub fn source_ids(&self) -> &[u32] {
        &self.source
    }

    /// Logits after `prefix`, from the cache of its parent when there is one.
    fn cached(&mut self, prefix: &[u32]) -> Result<Vec<f32>, String> {
        let opts = ForwardOptions::default();
        let (_, parent) = prefix.split_last().ok_or("empty prefix")?;
        // From the parent's cache, one new token; a prefix never seen (the prompt) is read
        // into a fresh cache in one batched pass.
        let (mut state, new) = match self.caches.get(parent) {
            Some(s) => (s.clone(), &prefix[parent.len()..]),
            None => (
                self.model
                    .start_decoding(&self.source, &opts)
                    .map_err(|e| e.to_string())?,
                prefix,
            ),
        };
        let logits = self
            .model
            .prefill(&mut state, new, &opts)
            .map_err(|e| e.to_string())?;
        self.work.positions += new.len();
        // Only the logits are used: the step's trace is not kept.
        self.caches.insert(prefix.to_vec(), state);
        Ok(logits.to_vec())
    }

    fn recomputed(&mut self, prefix: &[u32]) -> Result<Vec<f32>, String> {
        let input = ModelInput {
            source: self.source.clone(),
            target: prefix.to_vec(),
            ..Default::default()
        };
        let trace = self
            .model
            .forward(&input, &ForwardOptions::default())
            .map_err(|e| e.to_string())?;
        self.work.positions += prefix.len();
        let last = trace.logits.nrows().checked_sub(1).ok_or("no logits")?;
        Ok(trace.logits.row(last).to_vec())
    }
}

impl Source for ModelSource {
    fn vocab_size(&self) -> usize {
        self.model.config.vocab_size()
    }

    /// The model's own start and end tokens (a checkpoint's, or the toy models' `<bos>` and
    /// `<eos>`); a model without an end token never ends on its own.
    fn bos(&self) -> u32 {
        self.model.tokenizer.specials().bos.unwrap_or(BOS)
    }

    fn eos(&self) -> u32 {
        self.model.tokenizer.specials().eos.unwrap_or(u32::MAX)
    }

    fn token(&self, id: u32) -> String {
        self.model.tokenizer.tokens(&[id]).pop().unwrap_or_default()
    }

    fn log_probs(&mut self, prefix: &[u32]) -> Result<Vec<f32>, String> {
        if prefix.len() > self.model.config.max_len {
            return Err(format!(
                "the model takes at most {} tokens",
                self.model.config.max_len
            ));
        }
        let start = web_time::Instant::now();
        let logits = if self.use_cache {
            self.cached(prefix)?
        } else {
            self.recomputed(prefix)?
        };
        self.work.calls += 1;
        self.work.seconds += start.elapsed().as_secs_f64();
        Ok(log_softmax(&logits, self.temperature))
    }

    fn model(&self) -> Option<&Model> {
        Some(&self.model)
    }

    fn work(&self) -> Work {
        self.work
    }
}
