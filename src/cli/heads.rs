//! `glimpse heads`: what every attention head of a model does on one text, and the head that
//! shows each pattern most clearly (the numbers the app's head grid and lessons show).

use crate::model::heads::{best_heads, every_head, HeadStats};
use crate::model::{ForwardOptions, Model};

pub fn heads(model: &Model, text: &str, json: bool) -> Result<String, String> {
    use std::fmt::Write;
    let prepared = model.prepare(text, "");
    let trace = model
        .forward(&prepared.input, &ForwardOptions::default())
        .map_err(|e| e.to_string())?;
    let kinds = trace.attention_kinds();
    let stats: Vec<(_, Vec<Vec<HeadStats>>)> = kinds
        .iter()
        .map(|&k| (k, every_head(&trace, k, prepared.sequence(k))))
        .collect();
    if json {
        let out: Vec<_> = stats
            .iter()
            .map(|(k, s)| {
                serde_json::json!({
                    "attention": k.label(),
                    "tokens": model.tokenizer.tokens(prepared.sequence(*k).tokens),
                    "best": best_heads(s),
                    "heads": s,
                })
            })
            .collect();
        return serde_json::to_string_pretty(&out).map_err(|e| e.to_string());
    }
    let mut out = String::new();
    for (kind, s) in &stats {
        let tokens = model.tokenizer.tokens(prepared.sequence(*kind).tokens);
        let _ = writeln!(out, "{} on {tokens:?}", kind.label());
        for f in best_heads(s) {
            let mark = if f.clear {
                ""
            } else {
                "  (below its threshold)"
            };
            let _ = writeln!(
                out,
                "  {:<16} layer {:>2} head {:>2}  {:.2}{mark}",
                f.pattern.label(),
                f.layer,
                f.head,
                f.score
            );
        }
    }
    Ok(out)
}

/// `glimpse induction`: a random sequence of words, repeated; the loss on each copy and the
/// heads that copy from the first.
pub fn induction(model: &Model, len: usize, seed: u64, json: bool) -> Result<String, String> {
    let run =
        crate::model::induction::repeated_random(model, len, seed).map_err(|e| e.to_string())?;
    if json {
        return serde_json::to_string_pretty(&run).map_err(|e| e.to_string());
    }
    let ranked = run.ranked();
    let mut out = format!(
        "{}\nmean loss: first copy {:.2} nats, second copy {:.2} nats\ninduction heads:\n",
        run.tokens[run.start..run.start + run.period].concat(),
        run.first_half,
        run.second_half
    );
    for (l, h, s) in ranked.iter().take(5) {
        out.push_str(&format!("  layer {l:>2} head {h:>2}  {s:.2}\n"));
    }
    Ok(out)
}

/// `glimpse ablate`: each head switched off alone, then the least important removed together.
pub fn ablate(name: &str, model: &Model, text: &str, json: bool) -> Result<String, String> {
    use crate::train::ablation::{every_head, measure_for, score, Plan};
    let ids = model.prepare(text, "").input;
    let ids = (!text.is_empty()).then(|| [ids.source, ids.target].concat());
    // A path's model is named by its config; a built-in by the name given.
    let measure = measure_for(name, model, ids.as_deref())
        .or_else(|_| measure_for(&model.config.name, model, ids.as_deref()))?;
    let full = score(model, &measure, &[])?;
    let mut plan = Plan::new(full, every_head(model));
    while !plan.done() {
        plan.step(model, &measure)?;
    }
    let removable = plan.removable(0.01);
    if json {
        return serde_json::to_string_pretty(&serde_json::json!({
            "model": model.config.name,
            "measured_on": measure.describe(),
            "full": plan.full,
            "ranked": plan.ranked,
            "pruned": plan.pruned,
            "removable_within_1_point": removable,
        }))
        .map_err(|e| e.to_string());
    }
    let mut ranked = plan.ranked.clone();
    ranked.sort_by(|a, b| b.loss_rise.total_cmp(&a.loss_rise));
    let line = |s: &crate::train::ablation::Score| {
        format!(
            "loss {:.3}, token accuracy {:.1} %{}",
            s.loss,
            100.0 * s.accuracy,
            s.exact
                .map_or(String::new(), |e| format!(", exact {:.1} %", 100.0 * e))
        )
    };
    let mut out = format!(
        "{}, measured on {}\nall {} heads on: {}\nmost important (loss rise with the head off alone):\n",
        model.config.name,
        measure.describe(),
        ranked.len(),
        line(&plan.full)
    );
    for i in ranked.iter().take(8) {
        out.push_str(&format!(
            "  {:?} layer {} head {}  {:+.3}\n",
            i.head.kind, i.head.layer, i.head.head, i.loss_rise
        ));
    }
    out.push_str(&format!(
        "{removable} of {} heads can be switched off together (least important first) with token \
         accuracy within 1 point; with them off: {}\n",
        ranked.len(),
        removable
            .checked_sub(1)
            .and_then(|k| plan.pruned.get(k))
            .map_or_else(|| line(&plan.full), line)
    ));
    Ok(out)
}
