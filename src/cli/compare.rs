//! `glimpse compare`: configurations trained side by side (the Depth and Heads off tabs'
//! experiments, run to the end with a progress line).

use crate::train::compare::{Experiment, Race};
use crate::train::tasks::TaskKind;
use std::io::Write;

#[allow(clippy::too_many_arguments)]
pub fn compare(
    experiment: &str,
    task: Option<&str>,
    layers: usize,
    steps: u64,
    seed: u64,
    warmup: bool,
    width: Option<usize>,
    examples: usize,
    json: bool,
) -> Result<String, String> {
    if experiment == "rnn" {
        return rnn(
            steps,
            seed,
            width.unwrap_or(crate::train::rnn::HIDDEN),
            json,
        );
    }
    let (experiment, default_task) = match experiment {
        "depth" => (Experiment::Depth { layers, warmup }, TaskKind::Reverse),
        "kv" => (Experiment::KvHeads, TaskKind::Translate),
        "heads" => (
            Experiment::HeadCount {
                d_model: width.unwrap_or(64),
            },
            TaskKind::Translate,
        ),
        other => {
            return Err(format!(
                "unknown experiment {other:?}: use depth, kv, heads or rnn"
            ))
        }
    };
    let task = match task {
        Some(name) => TaskKind::from_name(name).ok_or_else(|| format!("unknown task {name:?}"))?,
        None => default_task,
    };
    let mut entries = experiment.entries(task, seed, steps);
    for (_, c) in entries.iter_mut() {
        if let (Some(w), false) = (width, matches!(experiment, Experiment::HeadCount { .. })) {
            c.d_model = w;
            c.d_ff = 2 * w;
        }
    }
    let mut race = Race::new(entries, steps, steps / 10, examples).map_err(|e| e.to_string())?;
    let start = std::time::Instant::now();
    while race.step() {
        if !json && race.contenders.iter().map(|c| c.steps()).sum::<u64>() % 100 == 0 {
            eprint!(
                "\r{:5.1} %  {:.0} s",
                100.0 * race.progress(),
                start.elapsed().as_secs_f64()
            );
            std::io::stderr().flush().ok();
        }
    }
    if !json {
        eprintln!();
    }
    let outcomes = race.outcomes();
    if json {
        return serde_json::to_string_pretty(&serde_json::json!({
            "experiment": format!("{experiment:?}"),
            "task": task.name(),
            "steps": steps,
            "seed": seed,
            "outcomes": outcomes,
            "seconds": start.elapsed().as_secs_f64(),
        }))
        .map_err(|e| e.to_string());
    }
    let mut out = format!(
        "{experiment:?} on {}, {steps} steps, seed {seed}\n",
        task.name()
    );
    for (o, c) in outcomes.iter().zip(&race.contenders) {
        let cfg = &c.trainer.model.config;
        out.push_str(&format!(
            "  {:<26} final train loss {:.4}",
            o.label, o.final_loss
        ));
        if let Some(e) = &o.eval {
            out.push_str(&format!(
                ", held-out loss {:.4}, token accuracy {:.1} %, exact {:.1} %",
                e.loss,
                100.0 * e.token_accuracy,
                100.0 * e.exact_match
            ));
        }
        out.push_str(&format!(
            ", KV cache {} floats per token, {:.1} s",
            cfg.kv_cache_floats_per_token(),
            o.seconds
        ));
        if let Some(s) = &o.stopped {
            out.push_str(&format!(" — {s}"));
        }
        out.push('\n');
    }
    out.push_str(&format!("{:.0} s\n", start.elapsed().as_secs_f64()));
    Ok(out)
}

/// `glimpse compare rnn`: the GRU translator with a fixed context and with additive attention,
/// exact match by source length.
fn rnn(steps: u64, seed: u64, hidden: usize, json: bool) -> Result<String, String> {
    use crate::train::rnn::{RnnTrainer, HELD_OUT};
    let start = std::time::Instant::now();
    let mut results = Vec::new();
    for attention in [false, true] {
        let mut t = RnnTrainer::new(TaskKind::Translate, attention, hidden, seed)
            .map_err(|e| e.to_string())?;
        for _ in 0..steps {
            t.step();
        }
        let tail = &t.losses[t.losses.len() - t.losses.len() / 10..];
        let loss = tail.iter().sum::<f32>() / tail.len().max(1) as f32;
        results.push((attention, loss, t.exact_by_length(HELD_OUT)));
    }
    if json {
        let runs: Vec<_> = results
            .iter()
            .map(|(a, l, by)| serde_json::json!({"attention": a, "final_loss": l, "by_length": by}))
            .collect();
        return serde_json::to_string_pretty(&serde_json::json!({
            "hidden": hidden, "steps": steps, "seed": seed, "runs": runs,
        }))
        .map_err(|e| e.to_string());
    }
    let mut out = format!(
        "GRU translator, hidden {hidden}, {steps} steps, seed {seed}; exact match by source length over {HELD_OUT} held-out sentences\n"
    );
    for (attention, loss, by) in &results {
        out.push_str(&format!(
            "  {:<18} final loss {loss:.4}:",
            if *attention {
                "additive attention"
            } else {
                "fixed context"
            }
        ));
        for (len, n, k) in by {
            out.push_str(&format!("  {len} words {k}/{n}"));
        }
        out.push('\n');
    }
    out.push_str(&format!("{:.0} s\n", start.elapsed().as_secs_f64()));
    Ok(out)
}
