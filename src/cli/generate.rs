//! `glimpse generate`: continue a prompt with a decoder (greedy, beam search or sampling with
//! temperature, top-k and top-p, seeded), on built-in models and real checkpoints alike.

use crate::decode::beam::{greedy, BeamConfig, BeamSearch};
use crate::decode::{sample, ModelSource, SampleConfig, Source};
use crate::model::tokenizer::BOS;
use clap::ValueEnum;
use serde::Serialize;

#[derive(Debug, Clone, Copy, ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    Greedy,
    Beam,
    Sample,
}

pub struct GenerateArgs<'a> {
    pub model: &'a str,
    pub prompt: &'a str,
    pub strategy: Strategy,
    pub max_new: usize,
    pub beam: usize,
    pub alpha: f32,
    pub temperature: f32,
    pub top_k: Option<usize>,
    pub top_p: Option<f32>,
    pub seed: u64,
    /// Never stop at the end-of-sequence token.
    pub ignore_eos: bool,
    pub json: bool,
}

/// A source whose end-of-sequence token never comes (`--ignore-eos`): the strategies stop at
/// `--max-new` only.
struct WithoutEos<'a>(&'a mut ModelSource);

impl Source for WithoutEos<'_> {
    fn vocab_size(&self) -> usize {
        self.0.vocab_size()
    }
    fn token(&self, id: u32) -> String {
        self.0.token(id)
    }
    fn bos(&self) -> u32 {
        self.0.bos()
    }
    fn eos(&self) -> u32 {
        u32::MAX
    }
    fn log_probs(&mut self, prefix: &[u32]) -> Result<Vec<f32>, String> {
        self.0.log_probs(prefix)
    }
    fn log_probs_onward(&mut self, prefix: &[u32]) -> Result<Vec<f32>, String> {
        self.0.log_probs_onward(prefix)
    }
    fn model(&self) -> Option<&crate::model::Model> {
        self.0.model()
    }
    fn work(&self) -> crate::decode::source::Work {
        self.0.work()
    }
}

#[derive(Serialize)]
struct Report {
    model: String,
    strategy: Strategy,
    prompt: String,
    prompt_ids: Vec<u32>,
    new_ids: Vec<u32>,
    new_tokens: Vec<String>,
    /// The prompt and its continuation as text.
    text: String,
    log_prob: f32,
    /// Stopped at the model's end-of-sequence token (rather than at --max-new).
    ended: bool,
    /// Wall time of the generation (the prompt's steps included, loading the model not).
    generate_ms: f64,
    /// New tokens per second over that time.
    tokens_per_s: f64,
    threads: usize,
}

pub fn generate(a: GenerateArgs) -> Result<String, String> {
    if !(1..=1024).contains(&a.max_new) {
        return Err(format!(
            "--max-new {} must be between 1 and 1024",
            a.max_new
        ));
    }
    if !(a.temperature.is_finite() && a.temperature > 0.0) {
        return Err(format!("--temperature {} must be positive", a.temperature));
    }
    if let Some(p) = a
        .top_p
        .filter(|p| !(p.is_finite() && *p > 0.0 && *p <= 1.0))
    {
        return Err(format!("--top-p {p} must be in (0, 1]"));
    }
    if !(1..=64).contains(&a.beam) {
        return Err(format!("--beam {} must be between 1 and 64", a.beam));
    }
    if a.ignore_eos && !matches!(a.strategy, Strategy::Greedy) {
        return Err("--ignore-eos works with --strategy greedy".into());
    }
    let model = super::resolve_model(a.model).map_err(|e| e.to_string())?;
    if !model.config.family.has_decoder() {
        return Err(format!(
            "`{}` is an encoder: it does not generate text (try fill-mask for BERT)",
            model.config.name
        ));
    }
    let prompt = if model.config.family.has_encoder() {
        vec![BOS]
    } else {
        model.prepare(a.prompt, "").input.target
    };
    if prompt.is_empty() {
        return Err("--prompt is empty: give some text to continue".into());
    }
    let name = model.config.name.clone();
    let mut source = ModelSource::new(model, a.prompt, a.temperature, true)?;
    let room = source
        .model()
        .map_or(0, |m| m.config.max_len)
        .saturating_sub(prompt.len());
    let max_new = a.max_new.min(room);
    if max_new == 0 {
        return Err("the prompt already fills the model's context".into());
    }
    let start = web_time::Instant::now();
    let (new_ids, log_prob) = match a.strategy {
        Strategy::Greedy if a.ignore_eos => greedy(&mut WithoutEos(&mut source), &prompt, max_new)?,
        Strategy::Greedy => greedy(&mut source, &prompt, max_new)?,
        Strategy::Beam => {
            let config = BeamConfig {
                width: a.beam,
                alpha: a.alpha,
                max_len: max_new,
            };
            let mut tree = BeamSearch::new(&source, config, &prompt);
            tree.run(&mut source, &prompt)?;
            let best = tree
                .ranking()
                .first()
                .copied()
                .ok_or("beam search found nothing")?;
            let ids = tree.prefix(&prompt, best)[prompt.len()..].to_vec();
            (ids, tree.nodes[best].cum)
        }
        Strategy::Sample => {
            let cfg = SampleConfig {
                top_k: a.top_k,
                top_p: a.top_p,
                seed: a.seed,
                max_len: max_new,
            };
            let steps = sample(&mut source, &prompt, &cfg)?;
            let log_prob = steps
                .iter()
                .map(|s| {
                    s.kept
                        .iter()
                        .find(|(t, _)| *t == s.chosen)
                        .map_or(0.0, |(_, q)| q.ln())
                })
                .sum();
            (steps.iter().map(|s| s.chosen).collect(), log_prob)
        }
    };
    let generate_s = start.elapsed().as_secs_f64();
    let ended = new_ids.last() == Some(&source.eos());
    let new_ids_len = new_ids.len();
    let tokenizer = &source.model().ok_or("no model")?.tokenizer;
    let all: Vec<u32> = prompt.iter().chain(&new_ids).copied().collect();
    let report = Report {
        model: name,
        strategy: a.strategy,
        prompt: a.prompt.into(),
        prompt_ids: prompt.clone(),
        new_tokens: new_ids.iter().map(|&t| source.token(t)).collect(),
        new_ids,
        text: tokenizer.decode(&all),
        log_prob,
        ended,
        generate_ms: (generate_s * 1e6).round() / 1e3,
        tokens_per_s: (new_ids_len as f64 / generate_s * 100.0).round() / 100.0,
        threads: crate::model::parallel::threads(),
    };
    if a.json {
        return serde_json::to_string(&report).map_err(|e| e.to_string());
    }
    Ok(format!(
        "{}\n\n({} new tokens, log p {:.3}{})",
        report.text,
        report.new_ids.len(),
        report.log_prob,
        if report.ended { ", ended" } else { "" }
    ))
}
