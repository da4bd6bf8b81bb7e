//! Sampling with temperature, top-k and top-p, seeded: the same seed draws the same text.

use super::source::Source;
use crate::util::rng::Rng;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SampleConfig {
    /// Keep the k most likely tokens (None: all).
    pub top_k: Option<usize>,
    /// Keep the smallest set whose probability reaches p (None: all).
    pub top_p: Option<f32>,
    pub seed: u64,
    pub max_len: usize,
}

/// One draw: the kept candidates with their renormalised probabilities, and the pick.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SampleStep {
    pub kept: Vec<(u32, f32)>,
    pub chosen: u32,
    /// The uniform number that chose it.
    pub draw: f64,
}

/// The candidate set after top-k and top-p, renormalised, most likely first.
pub fn kept_set(log_probs: &[f32], top_k: Option<usize>, top_p: Option<f32>) -> Vec<(u32, f32)> {
    let mut c: Vec<(u32, f32)> = log_probs
        .iter()
        .enumerate()
        .filter(|(_, l)| l.is_finite())
        .map(|(i, l)| (i as u32, l.exp()))
        .collect();
    c.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    if let Some(k) = top_k {
        c.truncate(k.max(1));
    }
    if let Some(p) = top_p {
        let mut acc = 0.0;
        let mut n = 0;
        for (_, q) in &c {
            n += 1;
            acc += q;
            // A hair of slack: 0.5 + 0.3 in f32 falls just short of 0.8.
            if acc >= p - 1e-6 {
                break;
            }
        }
        c.truncate(n.max(1));
    }
    let total: f32 = c.iter().map(|(_, q)| q).sum();
    c.iter_mut()
        .for_each(|(_, q)| *q /= total.max(f32::MIN_POSITIVE));
    c
}

/// Sampling a token at a time (a pass each, so an app can spread a run over frames).
pub struct Sampler {
    rng: Rng,
    prefix: Vec<u32>,
    cfg: SampleConfig,
    /// The steps drawn so far.
    pub steps: Vec<SampleStep>,
    over: bool,
}

impl Sampler {
    pub fn new(prompt: &[u32], cfg: &SampleConfig) -> Self {
        Self {
            rng: Rng::new(cfg.seed),
            prefix: prompt.to_vec(),
            cfg: *cfg,
            steps: Vec::new(),
            over: false,
        }
    }

    /// Draw the next token; false once the run is over (`<eos>` drawn or `max_len` reached).
    pub fn step(&mut self, source: &mut dyn Source) -> Result<bool, String> {
        let Some(prefix) = self.wants().map(<[u32]>::to_vec) else {
            return Ok(false);
        };
        let log_probs = source.log_probs_onward(&prefix)?;
        self.draw_from(&log_probs, source.eos())?;
        Ok(true)
    }

    /// The prefix whose next token is drawn next; `None` once the run is over.
    pub fn wants(&mut self) -> Option<&[u32]> {
        if self.over || self.steps.len() >= self.cfg.max_len {
            self.over = true;
            return None;
        }
        Some(&self.prefix)
    }

    /// Draw the next token from `log_probs`, the source's answer for [`Sampler::wants`]'s
    /// prefix (computed wherever the caller chose).
    pub fn draw_from(&mut self, log_probs: &[f32], eos: u32) -> Result<(), String> {
        let kept = kept_set(log_probs, self.cfg.top_k, self.cfg.top_p);
        let draw = self.rng.uniform();
        let mut acc = 0.0f64;
        let chosen = kept
            .iter()
            .find(|(_, q)| {
                acc += *q as f64;
                draw < acc
            })
            .or(kept.last())
            .map(|(t, _)| *t)
            .ok_or("no token to sample")?;
        self.prefix.push(chosen);
        self.steps.push(SampleStep { kept, chosen, draw });
        self.over = chosen == eos;
        Ok(())
    }
}

/// Sample until `<eos>` or `max_len` tokens.
pub fn sample(
    source: &mut dyn Source,
    prompt: &[u32],
    cfg: &SampleConfig,
) -> Result<Vec<SampleStep>, String> {
    let mut sampler = Sampler::new(prompt, cfg);
    while sampler.step(source)? {}
    Ok(sampler.steps)
}

#[cfg(test)]
mod tests {
    use super::super::ModelSource;
    use super::*;
    use crate::model::builtin;
    use crate::model::tokenizer::BOS;

    #[test]
    fn top_k_and_top_p_keep_what_they_say() {
        let lp: Vec<f32> = [0.5f32, 0.3, 0.15, 0.05].iter().map(|p| p.ln()).collect();
        assert_eq!(kept_set(&lp, Some(2), None).len(), 2);
        let k = kept_set(&lp, None, Some(0.8));
        assert_eq!(k.iter().map(|x| x.0).collect::<Vec<_>>(), [0, 1]);
        assert!((k[0].1 - 0.625).abs() < 1e-5);
        assert_eq!(kept_set(&lp, None, Some(0.01)).len(), 1);
    }

    #[test]
    fn the_same_seed_draws_the_same_text() {
        let m = builtin::load("lm").unwrap();
        let cfg = SampleConfig {
            top_k: Some(5),
            top_p: Some(0.9),
            seed: 7,
            max_len: 20,
        };
        let run = |seed| {
            let mut s = ModelSource::new(m.clone(), "", 1.2, true).unwrap();
            let prompt = [BOS, 4, 5];
            sample(&mut s, &prompt, &SampleConfig { seed, ..cfg }).unwrap()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        for s in run(7) {
            assert!(s.kept.len() <= 5 && s.kept.iter().any(|(t, _)| *t == s.chosen));
        }
    }
}
