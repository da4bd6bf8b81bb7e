//! Where next-token log-probabilities come from. A model source keeps a key/value cache per
//! prefix (a child continues its parent's cache), or recomputes the whole prefix every time.

use crate::model::softmax::log_softmax;
use crate::model::tokenizer::{BOS, EOS};
use crate::model::transformer::DecodeState;
use crate::model::{ForwardOptions, Model, ModelInput};
use std::collections::HashMap;
use std::sync::Arc;

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
    /// `log_probs` for a walk that only goes on (greedy decoding, sampling): no prefix shorter
    /// than `prefix` is asked for again, so a source may hand its parent's state to the pass
    /// instead of keeping a copy of it.
    fn log_probs_onward(&mut self, prefix: &[u32]) -> Result<Vec<f32>, String> {
        self.log_probs(prefix)
    }
    /// The model behind it, if any (for attention views).
    fn model(&self) -> Option<&Model> {
        None
    }
    /// Work done so far (for the cache comparison).
    fn work(&self) -> Work {
        Work::default()
    }
    /// `log_probs`'s pass for `prefix` as work any thread can run, where there is one to give
    /// out (a model's; a table answers at once: `None`). Its answer comes back through
    /// [`Source::finish`]; in between the source stays usable for everything else.
    fn pass(&mut self, _prefix: &[u32]) -> Option<Result<Pass, String>> {
        None
    }
    /// `log p(next | prefix)` from a pass that [`Source::pass`] gave out and that has run.
    fn finish(&mut self, _prefix: &[u32], _passed: Passed) -> Result<Vec<f32>, String> {
        Err("this source gives out no passes".into())
    }
}

/// One pass of a model source, owning what it reads (the model and a copy of the parent's
/// cache), so it can run on another thread while the page draws.
pub struct Pass {
    run: Box<dyn FnOnce() -> Result<Passed, String> + Send>,
    /// The largest matrix product it computes (for `model::parallel::in_pool`).
    pub size: usize,
}

impl Pass {
    pub fn run(self) -> Result<Passed, String> {
        (self.run)()
    }
}

/// What a pass computed: the last position's logits, the cache after it (cached passes), and
/// its work.
pub struct Passed {
    logits: Vec<f32>,
    state: Option<DecodeState>,
    positions: usize,
    seconds: f64,
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
    model: Arc<Model>,
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
        model: impl Into<Arc<Model>>,
        source_text: &str,
        temperature: f32,
        use_cache: bool,
    ) -> Result<Self, String> {
        let model = model.into();
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
        model: impl Into<Arc<Model>>,
        source: Vec<u32>,
        temperature: f32,
        use_cache: bool,
    ) -> Result<Self, String> {
        let model = model.into();
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

    /// The pass for `prefix`: with the cache, from its parent's cache when there is one (a
    /// child adds one token; a prefix never seen, the prompt, is read into a fresh cache in one
    /// batched pass); without it, the whole prefix again.
    fn begin(&self, prefix: &[u32]) -> Result<Pass, String> {
        let state = self
            .caches
            .get(parent_of(prefix)?)
            .filter(|_| self.use_cache);
        self.begin_from(prefix, state.cloned())
    }

    /// [`Self::begin`] from the parent's cache `state` (owned: copied, or moved out of the
    /// map by a walk that does not come back to it), or from nothing.
    fn begin_from(&self, prefix: &[u32], state: Option<DecodeState>) -> Result<Pass, String> {
        let max = self.model.config.max_len;
        if prefix.len() > max {
            return Err(format!("the model takes at most {max} tokens"));
        }
        let model = Arc::clone(&self.model);
        let parent = parent_of(prefix)?;
        let new = match state {
            Some(_) => &prefix[parent.len()..],
            None => prefix,
        };
        // The tokens this pass feeds: the source, and the target's new positions.
        let input = ModelInput {
            source: self.source.clone(),
            target: new.to_vec(),
            ..Default::default()
        };
        let size = model.pass_size(&input);
        let use_cache = self.use_cache;
        let run = move || {
            let start = web_time::Instant::now();
            let opts = ForwardOptions::default();
            let (logits, state) = if use_cache {
                let mut state = match state {
                    Some(s) => s,
                    None => model
                        .start_decoding(&input.source, &opts)
                        .map_err(|e| e.to_string())?,
                };
                let logits = model.prefill(&mut state, &input.target, &opts);
                // Only the logits are used: the step's trace is not kept.
                (logits.map_err(|e| e.to_string())?.to_vec(), Some(state))
            } else {
                let trace = model.forward(&input, &opts).map_err(|e| e.to_string())?;
                let last = trace.logits.nrows().checked_sub(1).ok_or("no logits")?;
                (trace.logits.row(last).to_vec(), None)
            };
            Ok(Passed {
                logits,
                state,
                positions: input.target.len(),
                seconds: start.elapsed().as_secs_f64(),
            })
        };
        Ok(Pass {
            run: Box::new(run),
            size,
        })
    }
}

/// The prefix a child continues: all of `prefix` but its last token (whose cache a step
/// starts from).
fn parent_of(prefix: &[u32]) -> Result<&[u32], String> {
    Ok(prefix.split_last().ok_or("empty prefix")?.1)
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
        let passed = self.begin(prefix)?.run()?;
        self.finish(prefix, passed)
    }

    /// The parent's cache moves into the pass (each step had copied it, all its keys and
    /// values, and kept every prefix's copy), and the prefixes before it are dropped.
    fn log_probs_onward(&mut self, prefix: &[u32]) -> Result<Vec<f32>, String> {
        let state = self
            .caches
            .remove(parent_of(prefix)?)
            .filter(|_| self.use_cache);
        self.caches.clear();
        let passed = self.begin_from(prefix, state)?.run()?;
        self.finish(prefix, passed)
    }

    fn pass(&mut self, prefix: &[u32]) -> Option<Result<Pass, String>> {
        Some(self.begin(prefix))
    }

    fn finish(&mut self, prefix: &[u32], passed: Passed) -> Result<Vec<f32>, String> {
        if let Some(state) = passed.state {
            self.caches.insert(prefix.to_vec(), state);
        }
        self.work.calls += 1;
        self.work.positions += passed.positions;
        self.work.seconds += passed.seconds;
        Ok(log_softmax(&passed.logits, self.temperature))
    }

    fn model(&self) -> Option<&Model> {
        Some(&self.model)
    }

    fn work(&self) -> Work {
        self.work
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builtin;

    /// A pass given out, run on another thread and taken back answers exactly as `log_probs`
    /// does here, with the same work counted and the cache carried on, with the cache and
    /// without, for a decoder-only model and an encoder–decoder.
    #[test]
    fn a_pass_run_on_another_thread_answers_as_log_probs() {
        for (name, text) in [("lm", "the cat "), ("translate", "la zone économique")] {
            let model = Arc::new(builtin::load(name).unwrap());
            for use_cache in [true, false] {
                let mut here = ModelSource::new(Arc::clone(&model), text, 0.8, use_cache).unwrap();
                let mut away = ModelSource::new(Arc::clone(&model), text, 0.8, use_cache).unwrap();
                let mut prefix = vec![here.bos()];
                for _ in 0..4 {
                    let expected = here.log_probs(&prefix).unwrap();
                    let pass = away.pass(&prefix).unwrap().unwrap();
                    let passed = std::thread::spawn(move || pass.run())
                        .join()
                        .unwrap()
                        .unwrap();
                    let got = away.finish(&prefix, passed).unwrap();
                    assert_eq!(got, expected, "{name}, cache {use_cache}, {prefix:?}");
                    let (w1, w2) = (here.work(), away.work());
                    assert_eq!((w1.calls, w1.positions), (w2.calls, w2.positions));
                    prefix.push(crate::decode::beam::most_likely(&got).unwrap().0);
                }
                // With the cache each step after the prompt feeds one new position.
                let positions = away.work().positions;
                assert_eq!(positions, if use_cache { 4 } else { 1 + 2 + 3 + 4 });
            }
        }
    }

    /// A walk that only goes on moves each cache into the next pass instead of copying it:
    /// the same log-probabilities to the bit and the same work as `log_probs`, and only the
    /// last prefix's cache kept.
    #[test]
    fn going_onward_answers_as_log_probs_and_keeps_one_cache() {
        for (name, text) in [("lm", "the cat "), ("translate", "la zone économique")] {
            let model = Arc::new(builtin::load(name).unwrap());
            let mut copying = ModelSource::new(Arc::clone(&model), text, 0.8, true).unwrap();
            let mut moving = ModelSource::new(Arc::clone(&model), text, 0.8, true).unwrap();
            let mut prefix = vec![copying.bos()];
            for _ in 0..5 {
                let expected = copying.log_probs(&prefix).unwrap();
                let got = moving.log_probs_onward(&prefix).unwrap();
                assert_eq!(got, expected, "{name}, {prefix:?}");
                assert_eq!(moving.caches.len(), 1);
                prefix.push(crate::decode::beam::most_likely(&got).unwrap().0);
            }
            assert_eq!(copying.caches.len(), 5);
            let (w1, w2) = (copying.work(), moving.work());
            assert_eq!((w1.calls, w1.positions), (w2.calls, w2.positions));
        }
    }

    #[test]
    fn a_prefix_longer_than_the_model_is_refused() {
        let long = vec![BOS; builtin::load("lm").unwrap().config.max_len + 1];
        let mut s = ModelSource::new(builtin::load("lm").unwrap(), "", 1.0, true).unwrap();
        assert!(
            s.pass(&long).unwrap().is_err(),
            "too long a prefix is refused up front"
        );
    }
}
