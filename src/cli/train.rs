//! `glimpse train` and `glimpse eval`.

use super::recipe::{AnyRecipe, Found};
use crate::model::checkpoint;
use crate::model::Positional;
use crate::train::optim::Schedule;
use crate::train::tasks::TaskKind;
use crate::train::trainer::{evaluate, exact_at_length, EvalStats, TrainConfig, Trainer};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The recipe written beside a trained model: how it was made and how well it does.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Recipe {
    pub command: String,
    pub config: TrainConfig,
    pub steps: u64,
    pub seconds: f64,
    pub tokens_per_second: f64,
    pub final_loss: f32,
    pub held_out: serde_json::Value,
}

/// Held-out examples used by `train` and `eval`.
pub const EVAL_EXAMPLES: usize = 1000;

pub fn recipe_path(out: &Path) -> PathBuf {
    let (json, _) = checkpoint::checkpoint_paths(out);
    json.with_extension("recipe.json")
}

/// Command-line changes to a task's default training config.
pub struct Overrides {
    pub quiet: bool,
    pub no_causal_mask: bool,
    pub positional: Option<String>,
    pub max_len: Option<usize>,
}

/// A positional scheme by name, with the defaults the app uses.
fn parse_positional(name: &str) -> Result<Positional, String> {
    Ok(match name {
        "none" => Positional::None,
        "sinusoidal" => Positional::Sinusoidal { base: 10000.0 },
        "learned" => Positional::Learned,
        "rope" => Positional::Rope { base: 10000.0 },
        "alibi" => Positional::Alibi,
        "relative" => Positional::Relative { max_distance: 8 },
        other => {
            return Err(format!(
                "unknown --positional `{other}`; one of none, sinusoidal, learned, rope, alibi, relative"
            ))
        }
    })
}

pub fn train(
    task: &str,
    config: Option<&Path>,
    steps: u64,
    seed: Option<u64>,
    out: &Path,
    over: Overrides,
) -> Result<String, String> {
    let Overrides {
        quiet,
        no_causal_mask,
        positional,
        max_len,
    } = over;
    let task = TaskKind::from_name(task).ok_or_else(|| {
        let names: Vec<&str> = crate::train::tasks::ALL_TASKS
            .iter()
            .map(|t| t.name())
            .collect();
        format!("unknown task `{task}`; tasks: {}", names.join(", "))
    })?;
    if steps == 0 || steps > 10_000_000 {
        return Err(format!("--steps {steps} must be between 1 and 10000000"));
    }
    let mut cfg = match config {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("could not read {}: {e}", p.display()))?;
            // A bare training config, or a recipe written by an earlier run.
            match serde_json::from_str::<TrainConfig>(&text) {
                Ok(c) => c,
                Err(e) => serde_json::from_str::<Recipe>(&text)
                    .map(|r| r.config)
                    .map_err(|_| {
                        format!(
                            "{} is neither a training config nor a recipe: {e}",
                            p.display()
                        )
                    })?,
            }
        }
        None => TrainConfig::for_task(task),
    };
    cfg.task = task;
    if no_causal_mask {
        cfg.causal = false;
    }
    if let Some(p) = positional {
        cfg.positional = parse_positional(&p)?;
    }
    if let Some(n) = max_len {
        let need = 2 * task.max_pieces() + 4;
        if n < need || n > 4096 {
            return Err(format!(
                "--max-len {n} must be between {need} (what the task needs) and 4096"
            ));
        }
        cfg.max_len = Some(n);
    }
    if let Some(s) = seed {
        cfg.seed = s;
    }
    if let Schedule::WarmupCosine { total, .. } = &mut cfg.schedule {
        *total = steps;
    }
    let name = out
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("model")
        .to_string();
    let mut trainer = Trainer::new(cfg.clone(), &name).map_err(|e| e.to_string())?;
    let bar = if quiet {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(steps)
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} steps · {msg} · ETA {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let start = std::time::Instant::now();
    let mut tokens = 0usize;
    let mut recent = 0.0f32;
    for i in 0..steps {
        let s = trainer.step().map_err(|e| e.to_string())?;
        tokens += s.tokens;
        recent = if i == 0 {
            s.loss
        } else {
            0.95 * recent + 0.05 * s.loss
        };
        if i % 10 == 0 || i + 1 == steps {
            let rate = tokens as f64 / start.elapsed().as_secs_f64().max(1e-9);
            bar.set_message(format!("loss {recent:.4} · {rate:.0} tokens/s"));
            bar.set_position(i + 1);
        }
    }
    bar.finish();
    let seconds = start.elapsed().as_secs_f64();
    let stats = trainer.evaluate(EVAL_EXAMPLES).map_err(|e| e.to_string())?;
    checkpoint::save_path(&trainer.model, out).map_err(|e| e.to_string())?;
    let recipe = Recipe {
        // As a user would type it, without this machine's path to the binary.
        command: std::iter::once("glimpse".to_string())
            .chain(std::env::args().skip(1))
            .collect::<Vec<_>>()
            .join(" "),
        config: cfg,
        steps,
        seconds,
        tokens_per_second: tokens as f64 / seconds.max(1e-9),
        final_loss: recent,
        held_out: serde_json::to_value(stats).unwrap_or_default(),
    };
    let text = serde_json::to_string_pretty(&recipe).map_err(|e| e.to_string())?;
    std::fs::write(recipe_path(out), &text).map_err(|e| e.to_string())?;
    Ok(text)
}

/// A model (built-in name or path) and the task it is evaluated on (from `--task`, else from
/// the recipe beside it), checked to share a vocabulary.
fn model_and_task(
    model: &str,
    task: Option<&str>,
) -> Result<(crate::model::Model, TaskKind), String> {
    let m = super::resolve_model(model).map_err(|e| e.to_string())?;
    let task = match task {
        Some(t) => TaskKind::from_name(t).ok_or_else(|| format!("unknown task `{t}`"))?,
        None => match super::recipe::recipe_of(model)? {
            Some(Found {
                recipe: AnyRecipe::Task(r),
                ..
            }) => r.config.task,
            Some(Found { place, .. }) => {
                return Err(format!(
                    "`{model}` is a language model ({place}), not a task model: it has no \
                     task to be scored on"
                ))
            }
            None => return Err(super::eval::no_recipe(model, &m)),
        },
    };
    if !built_for(&m, task) {
        return Err(format!(
            "model `{model}` was not built for the {} task (its vocabulary differs)",
            task.name()
        ));
    }
    Ok((m, task))
}

/// Whether `m` has `task`'s vocabulary (every task model is built on its task's symbols).
pub(super) fn built_for(m: &crate::model::Model, task: TaskKind) -> bool {
    m.config.tokenizer
        == crate::model::tokenizer::TokenizerSpec::with_symbols(
            task.tokenizer_kind(),
            task.symbols(),
        )
}

fn check_examples(examples: usize) -> Result<(), String> {
    if examples == 0 || examples > 100_000 {
        return Err(format!(
            "--examples {examples} must be between 1 and 100000"
        ));
    }
    Ok(())
}

pub fn eval(
    model: &str,
    task: Option<&str>,
    examples: usize,
    seed: u64,
) -> Result<EvalStats, String> {
    let (m, task) = model_and_task(model, task)?;
    check_examples(examples)?;
    evaluate(&m, task, examples, seed).map_err(|e| e.to_string())
}

/// Exact match at one source length.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LengthRow {
    pub length: usize,
    /// `None`: longer than the model accepts.
    pub exact: Option<f32>,
}

pub fn eval_lengths(
    model: &str,
    task: Option<&str>,
    lengths: &[usize],
    examples: usize,
    seed: u64,
) -> Result<Vec<LengthRow>, String> {
    let (m, task) = model_and_task(model, task)?;
    check_examples(examples)?;
    lengths
        .iter()
        .map(|&length| {
            let exact =
                exact_at_length(&m, task, length, examples, seed).map_err(|e| e.to_string())?;
            if exact.is_none()
                && !matches!(task, TaskKind::Copy | TaskKind::Reverse | TaskKind::Sort)
            {
                return Err(format!(
                    "--lengths works for copy, reverse and sort, not {}",
                    task.name()
                ));
            }
            Ok(LengthRow { length, exact })
        })
        .collect()
}
