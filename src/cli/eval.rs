//! `glimpse eval`: a task model on held-out examples of its task (or at several source
//! lengths); a language model on a text: `--text FILE`, or, without it, the held-out text its
//! recipe was scored on when that text is on this machine (scripts/fetch_data.sh).

use super::recipe::{recipe_of, AnyRecipe, Found};
use super::train_lm::{eval_text_with, model_stream, read, LmRecipe, HELD_OUT_PICKS_SEED};
use super::{parse_positions, resolve_model, train};
use crate::model::{Family, Model};
use crate::train::lm::{Objective, Perplexity};
use crate::train::mlm;
use crate::util::sha256::sha256_hex;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// `glimpse eval`'s options (see `Command::Eval`).
pub(super) struct EvalArgs {
    pub model: String,
    pub text: Option<PathBuf>,
    pub context: Option<usize>,
    pub task: Option<String>,
    pub examples: usize,
    pub seed: u64,
    pub json: bool,
    pub lengths: Option<String>,
}

/// BERT's share of hidden tokens, for a masked LM scored on `--text` without a recipe.
const DEFAULT_MASK_RATE: f32 = 0.15;

pub(super) fn eval(a: EvalArgs) -> Result<String, String> {
    if let Some(file) = &a.text {
        return on_text(&a, file);
    }
    if a.task.is_none() {
        if let Some(Found {
            recipe: AnyRecipe::Lm(r),
            place,
        }) = recipe_of(&a.model)?
        {
            if a.lengths.is_some() {
                return Err(format!(
                    "--lengths measures task models (copy, reverse, sort); `{}` is {} ({place})",
                    a.model,
                    lm_kind(&r)
                ));
            }
            return on_held_out(&a, &r);
        }
    }
    match &a.lengths {
        Some(spec) => lengths(&a, spec),
        None => task(&a),
    }
}

/// What `eval` reports for a language model scored on its recipe's held-out text, or a
/// masked language model on `--text`.
#[derive(Debug, Clone, Serialize)]
pub struct LmEval {
    pub model: String,
    pub file: String,
    /// The context window: a decoder's longest input, the windows a masked LM reads.
    pub context: usize,
    /// What was scored.
    pub scored: String,
    #[serde(flatten)]
    pub perplexity: Perplexity,
    /// A masked LM's share of hidden tokens it ranks first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top1_accuracy: Option<f64>,
    /// The recipe's figure for the same model and text, to compare with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recipe_perplexity: Option<f64>,
}

/// "a language model" or "a masked language model", as its recipe trained it.
fn lm_kind(r: &LmRecipe) -> &'static str {
    match r.config.objective {
        Objective::Causal => "a language model",
        Objective::Masked { .. } => "a masked language model",
    }
}

/// Whether `m` is an encoder with a mask token (what `train-lm --masked` makes).
fn is_masked_lm(m: &Model) -> bool {
    m.config.family == Family::Encoder && m.tokenizer.specials().mask.is_some()
}

/// `--text FILE`: a decoder's perplexity on every next token; a masked LM's on the tokens
/// hidden in the text's windows, as its recipe hid them (BERT's 15 % without one).
fn on_text(a: &EvalArgs, file: &Path) -> Result<String, String> {
    let m = resolve_model(&a.model).map_err(|e| e.to_string())?;
    if !is_masked_lm(&m) {
        let r = eval_text_with(m, &a.model, file, a.context)?;
        return Ok(if a.json {
            serde_json::to_string(&r).unwrap_or_default()
        } else {
            format!(
                "{} tokens · {:.4} nats/token · perplexity {:.2} (context {})",
                r.perplexity.tokens,
                r.perplexity.nats_per_token,
                r.perplexity.perplexity,
                r.context
            )
        });
    }
    let rate = match recipe_of(&a.model) {
        Ok(Some(Found {
            recipe: AnyRecipe::Lm(r),
            ..
        })) => match r.config.objective {
            Objective::Masked { rate } => rate,
            Objective::Causal => DEFAULT_MASK_RATE,
        },
        _ => DEFAULT_MASK_RATE,
    };
    let report = score(m, &a.model, file, Objective::Masked { rate }, a.context)?;
    Ok(lm_report(&report, a.json))
}

/// A language model without `--text`: its recipe's held-out text when it is here (the same
/// test the recipe reports), else a message saying where that text would be and how to get it.
fn on_held_out(a: &EvalArgs, r: &LmRecipe) -> Result<String, String> {
    let file = held_out_text(&a.model, r)?;
    let m = resolve_model(&a.model).map_err(|e| e.to_string())?;
    let mut report = score(m, &a.model, &file, r.config.objective, a.context)?;
    report.recipe_perplexity = r.held_out.model.map(|p| p.perplexity);
    Ok(lm_report(&report, a.json))
}

/// Scores `m` on the text in `file` as `train-lm` scores its held-out split: every token after
/// the first from those before it (causal), or the tokens one fixed seed hides in windows of
/// the model's context (masked).
fn score(
    m: Model,
    model: &str,
    file: &Path,
    objective: Objective,
    context: Option<usize>,
) -> Result<LmEval, String> {
    let rate = match objective {
        Objective::Masked { rate } => rate,
        Objective::Causal => {
            let t = eval_text_with(m, model, file, context)?;
            return Ok(LmEval {
                model: t.model,
                file: t.file,
                context: t.context,
                scored: "every token after the first, from the tokens before it".into(),
                perplexity: t.perplexity,
                top1_accuracy: None,
                recipe_perplexity: None,
            });
        }
    };
    if context.is_some_and(|c| c < 2) {
        return Err("--context must be at least 2".into());
    }
    let context = context.map_or(m.config.max_len, |c| c.min(m.config.max_len));
    let ids = model_stream(&m, &read(file)?);
    let masking = mlm::masking_of(&m, rate).map_err(|e| e.to_string())?;
    let windows = mlm::held_out_examples(&ids, context, masking, HELD_OUT_PICKS_SEED);
    let s = mlm::score(&m, &windows).map_err(|e| e.to_string())?;
    Ok(LmEval {
        model: model.to_string(),
        file: file.display().to_string(),
        context: context.min(ids.len()),
        scored: format!(
            "the tokens hidden in {} windows of {context} tokens ({:.0} % of them, seed \
             {HELD_OUT_PICKS_SEED}), from both sides",
            windows.len(),
            100.0 * rate
        ),
        perplexity: s.perplexity,
        top1_accuracy: Some(s.top1_accuracy),
        recipe_perplexity: None,
    })
}

fn lm_report(r: &LmEval, json: bool) -> String {
    if json {
        return serde_json::to_string(r).unwrap_or_default();
    }
    let mut out = format!(
        "{}\n{} tokens · {:.4} nats/token · perplexity {:.2} (context {})",
        r.file,
        r.perplexity.tokens,
        r.perplexity.nats_per_token,
        r.perplexity.perplexity,
        r.context
    );
    if let Some(acc) = r.top1_accuracy {
        out += &format!(" · top-1 accuracy {:.1}%", 100.0 * acc);
    }
    if let Some(p) = r.recipe_perplexity {
        out += &format!("\nthe recipe's perplexity on this text: {p:.2}");
    }
    out + "\nscored: " + &r.scored
}

/// The folders where the held-out text of `r`'s corpus may be on this machine: under
/// `$GLIMPSE_DATA` when it is set, else under ~/.cache/glimpse/data (scripts/fetch_data.sh's
/// two places), then the folder the recipe names. The first is where fetching puts it.
fn data_dirs(r: &LmRecipe) -> Vec<PathBuf> {
    // `source` is the folder, then a note in parentheses.
    let recorded = PathBuf::from(r.data.source.split(" (").next().unwrap_or_default().trim());
    let corpus = recorded.file_name().map(PathBuf::from).unwrap_or_default();
    let mut dirs = Vec::new();
    match std::env::var_os("GLIMPSE_DATA") {
        Some(data) => dirs.push(PathBuf::from(data).join(&corpus)),
        None => {
            if let Some(home) = std::env::var_os("HOME") {
                dirs.push(Path::new(&home).join(".cache/glimpse/data").join(&corpus));
            }
            if recorded.is_absolute() && !dirs.contains(&recorded) {
                dirs.push(recorded);
            }
        }
    }
    dirs
}

/// The recipe's held-out text on this machine (checked against the recipe's SHA-256), or a
/// message that says what the model is, where its text would be, and how to fetch it.
fn held_out_text(model: &str, r: &LmRecipe) -> Result<PathBuf, String> {
    let dirs = data_dirs(r);
    let mut other = None;
    for dir in &dirs {
        let file = dir.join("heldout.txt");
        match std::fs::read(&file) {
            Ok(bytes) if sha256_hex(&bytes) == r.data.heldout_sha256 => return Ok(file),
            Ok(_) => other = other.or(Some(file)),
            Err(_) => {}
        }
    }
    let expected = dirs.first().map_or_else(
        || "heldout.txt in the folder scripts/fetch_data.sh fills".to_string(),
        |d| d.join("heldout.txt").display().to_string(),
    );
    let mut msg = format!(
        "`{model}` is {}: it is scored on a text, not on a task's examples. Its recipe's \
         held-out text is not on this machine (expected at {expected}); fetch it with \
         scripts/fetch_data.sh (set GLIMPSE_DATA to choose the folder) and run this again, or \
         pass --text FILE to score it on any text",
        lm_kind(r)
    );
    if let Some(file) = other {
        msg += &format!(
            ". {} is there but is not the text the recipe was scored on (its SHA-256 differs); \
             --text {} scores it anyway",
            file.display(),
            file.display()
        );
    }
    Err(msg)
}

/// What to say when `model` has no recipe and no `--task` was given: the tasks whose
/// vocabulary it has, or, for a language model, that it is scored on a text.
pub(super) fn no_recipe(model: &str, m: &Model) -> String {
    let tasks: Vec<&str> = crate::train::tasks::ALL_TASKS
        .into_iter()
        .filter(|&t| train::built_for(m, t))
        .map(|t| t.name())
        .collect();
    if !tasks.is_empty() {
        return format!(
            "no recipe beside `{model}` names its task: pass --task (its vocabulary is that of {})",
            tasks.join(", ")
        );
    }
    let kind = if m.config.family == Family::Decoder {
        "a language model"
    } else if is_masked_lm(m) {
        "a masked language model"
    } else {
        return format!("no recipe beside `{model}` names its task: pass --task");
    };
    format!("`{model}` is {kind} with no recipe beside it: pass --text FILE to score it on a text")
}

/// `--lengths`: exact match at each source length.
fn lengths(a: &EvalArgs, spec: &str) -> Result<String, String> {
    let rows = train::eval_lengths(
        &a.model,
        a.task.as_deref(),
        &parse_positions(spec)?,
        a.examples,
        a.seed,
    )?;
    Ok(if a.json {
        serde_json::to_string(&rows).unwrap_or_default()
    } else {
        rows.iter()
            .map(|r| match r.exact {
                Some(e) => format!("length {:3}: exact {:.1}%", r.length, 100.0 * e),
                None => format!("length {:3}: longer than the model accepts", r.length),
            })
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// Held-out examples of the model's task.
fn task(a: &EvalArgs) -> Result<String, String> {
    let stats = train::eval(&a.model, a.task.as_deref(), a.examples, a.seed)?;
    Ok(if a.json {
        serde_json::to_string(&stats).unwrap_or_default()
    } else {
        let mut line = format!(
            "exact match {:.2}% · token accuracy {:.2}% · loss {:.4} on {} held-out examples",
            100.0 * stats.exact_match,
            100.0 * stats.token_accuracy,
            stats.loss,
            stats.examples
        );
        if let Some(b) = stats.baseline_loss {
            line += &format!(
                "\nunigram baseline loss {b:.4} nats/char; the model's is {:.1}% of it",
                100.0 * stats.loss / b
            );
        }
        if let (Some(i), Some(p)) = (stats.induction, stats.previous_token) {
            line += &format!(
                "\ninduction head: layer {} head {} scores {:.3}; previous-token head: layer {} head {} scores {:.3}",
                i.layer, i.head, i.score, p.layer, p.head, p.score
            );
        }
        line
    })
}
