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
    examples: usize,
    json: bool,
) -> Result<String, String> {
    let (experiment, default_task) = match experiment {
        "depth" => (Experiment::Depth { layers, warmup }, TaskKind::Reverse),
        "kv" => (Experiment::KvHeads, TaskKind::Translate),
        other => return Err(format!("unknown experiment {other:?}: use depth or kv")),
    };
    let task = match task {
        Some(name) => TaskKind::from_name(name).ok_or_else(|| format!("unknown task {name:?}"))?,
        None => default_task,
    };
    let entries = experiment.entries(task, seed, steps);
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
            ", KV cache {} floats per token",
            cfg.kv_cache_floats_per_token()
        ));
        if let Some(s) = &o.stopped {
            out.push_str(&format!(" — {s}"));
        }
        out.push('\n');
    }
    out.push_str(&format!("{:.0} s\n", start.elapsed().as_secs_f64()));
    Ok(out)
}
