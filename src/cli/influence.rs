//! `glimpse lens`, `attribute`, `patch` and `rollout`: what attention does (`crate::analysis`),
//! as JSON with `--json` and as a short table without.

use super::args::OnText;
use crate::analysis::{attribution, lens, patching, quoted, rollout, single_token, AnalysisError};
use crate::model::{ForwardOptions, Model, ModelInput, Trace};

type Out = Result<String, String>;

fn text_input(model: &Model, text: &str, source: Option<&str>) -> Result<ModelInput, String> {
    if text.trim().is_empty() {
        return Err("the text is empty: give a text with --text".to_string());
    }
    let family = model.config.family;
    let prepared = match (family.has_encoder() && family.has_decoder(), source) {
        (true, None) => {
            return Err(format!(
                "{} is an encoder–decoder model: give the encoder's input with --source and the \
                 decoder's with --text",
                model.config.name
            ))
        }
        (true, Some(s)) => model.prepare(s, text),
        (false, _) => model.prepare(text, ""),
    };
    Ok(prepared.input)
}

/// The model named on the command line and its traced pass over the text.
fn traced(on: &OnText) -> Result<(Model, Trace), String> {
    let model = super::resolve_model(&on.model).map_err(|e| e.to_string())?;
    let input = text_input(&model, &on.text, on.source.as_deref())?;
    let trace = model
        .forward(&input, &ForwardOptions::default())
        .map_err(|e| e.to_string())?;
    Ok((model, trace))
}

fn token(model: &Model, text: Option<&str>) -> Result<Option<u32>, String> {
    text.map(|t| single_token(model, t))
        .transpose()
        .map_err(|e: AnalysisError| e.to_string())
}

fn json(value: &impl serde::Serialize) -> Out {
    serde_json::to_string(value).map_err(|e| e.to_string())
}

/// `glimpse lens`: the top tokens at every depth and position.
pub fn lens(on: &OnText, target: Option<&str>, top: usize) -> Out {
    let (model, trace) = traced(on)?;
    let model = &model;
    let target = token(model, target)?;
    let lens = lens::logit_lens(model, &trace, top.max(1), target).map_err(|e| e.to_string())?;
    if on.json {
        return json(&lens);
    }
    let last = lens.tokens.len().saturating_sub(1);
    let mut out = format!(
        "logit lens of {} after {}: the likeliest next token at each depth\n",
        model.config.name,
        quoted(&lens.tokens[last..])
    );
    for layer in &lens.layers {
        let best = &layer.top[last];
        let line: Vec<String> = best
            .iter()
            .take(3)
            .map(|r| format!("{:?} {:.3}", r.token, r.p))
            .collect();
        out.push_str(&format!("  layer {:>2}: {}", layer.layer, line.join("  ")));
        if let Some(p) = &layer.target_p {
            out.push_str(&format!("   target {:.4}", p[last]));
        }
        out.push('\n');
    }
    Ok(out)
}

/// `glimpse attribute`: each component's share of the logit (difference).
pub fn attribute(
    on: &OnText,
    target: &str,
    contrast: Option<&str>,
    position: Option<usize>,
) -> Out {
    let (model, trace) = traced(on)?;
    let model = &model;
    let a = single_token(model, target).map_err(|e| e.to_string())?;
    let b = token(model, contrast)?;
    let r = attribution::attribute(model, &trace, a, b, position).map_err(|e| e.to_string())?;
    if on.json {
        return json(&r);
    }
    let mut rows: Vec<(String, f64)> = vec![("embedding".to_string(), r.embed)];
    for (l, heads) in r.heads.iter().enumerate() {
        rows.extend(
            heads
                .iter()
                .enumerate()
                .map(|(h, s)| (format!("layer {l} head {h}"), *s)),
        );
        rows.push((format!("layer {l} MLP"), r.mlp[l]));
    }
    for (l, heads) in r.cross_heads.iter().flatten().enumerate() {
        rows.extend(
            heads
                .iter()
                .enumerate()
                .map(|(h, s)| (format!("layer {l} cross head {h}"), *s)),
        );
    }
    rows.extend(r.biases.iter().map(|(n, s)| (n.clone(), *s)));
    rows.sort_by(|x, y| y.1.abs().total_cmp(&x.1.abs()));
    let what = match contrast {
        Some(c) => format!("logit({target:?}) − logit({c:?})"),
        None => format!("logit({target:?})"),
    };
    let mut out = format!(
        "{what} at position {} ({:?}) = {:.4}; the shares add up to {:.4}\nlargest contributors:\n",
        r.position, r.tokens[r.position], r.logit_diff, r.sum
    );
    for (name, s) in rows.iter().take(12) {
        out.push_str(&format!("  {name:<28} {s:+.4}\n"));
    }
    Ok(out)
}

/// `glimpse patch`: the residual and head patching sweeps.
pub fn patch(
    model: &Model,
    clean: &str,
    corrupt: &str,
    target: &str,
    contrast: &str,
    as_json: bool,
) -> Out {
    if model.config.family.has_encoder() {
        return Err(format!(
            "{} has an encoder: patching runs on decoder-only models (it scores the next token \
             at the last position)",
            model.config.name
        ));
    }
    let ids = |t: &str| text_input(model, t, None).map(|i| i.target);
    let (a, b) = (single_token(model, target), single_token(model, contrast));
    let (a, b) = (a.map_err(|e| e.to_string())?, b.map_err(|e| e.to_string())?);
    let sweep =
        patching::Sweep::new(model, ids(clean)?, ids(corrupt)?, a, b).map_err(|e| e.to_string())?;
    let r = sweep.run_all(model).map_err(|e| e.to_string())?;
    if as_json {
        return json(&r);
    }
    let best = |grid: &[Vec<f64>]| {
        let mut cells: Vec<(usize, usize, f64)> = grid
            .iter()
            .enumerate()
            .flat_map(|(l, row)| row.iter().enumerate().map(move |(i, s)| (l, i, *s)))
            .collect();
        cells.sort_by(|x, y| y.2.total_cmp(&x.2));
        cells.truncate(5);
        cells
    };
    let mut out = format!(
        "logit({target:?}) − logit({contrast:?}): clean {:.3}, corrupted {:.3}; a score of 1 restores the clean answer\nresidual stream, best (layer, position):\n",
        r.ld_clean, r.ld_corrupt
    );
    for (l, p, s) in best(&r.resid) {
        out.push_str(&format!(
            "  layer {l:>2} position {p:>2} {:<14} {s:+.3}\n",
            format!("{:?}", r.tokens_clean[p])
        ));
    }
    out.push_str("heads, best:\n");
    for (l, h, s) in best(&r.heads) {
        out.push_str(&format!("  layer {l:>2} head {h:>2}  {s:+.3}\n"));
    }
    Ok(out)
}

/// `glimpse rollout`: attention rollout of every stack.
pub fn rollout(on: &OnText) -> Out {
    let (model, trace) = traced(on)?;
    let r = rollout::rollout(&trace).map_err(|e| e.to_string())?;
    if on.json {
        return json(&r);
    }
    let mut out = format!(
        "attention rollout of {}: row i draws on column j (rows sum to 1){}\n",
        model.config.name,
        if r.stacks.is_empty() {
            ""
        } else {
            "; the decoder's stack (--json has both)"
        }
    );
    let w = r
        .tokens
        .iter()
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(1)
        .min(12);
    for (i, row) in r.rollout.rows().into_iter().enumerate() {
        let cells: Vec<String> = row.iter().map(|v| format!("{v:.2}")).collect();
        let name: String = r.tokens[i].chars().take(w).collect();
        out.push_str(&format!("  {name:>w$} {}\n", cells.join(" ")));
    }
    Ok(out)
}

/// `glimpse probe`: the position probe's held-out accuracy and the positional share by layer.
pub fn position_probe(model: &Model, seed: u64, as_json: bool) -> Out {
    use crate::analysis::position_probe::{chunks::Source, probe_model};
    let start = web_time::Instant::now();
    let (inputs, layers) = probe_model(model, seed)?;
    let source = match inputs.source {
        Source::Text => "text",
        Source::Symbols => "symbols",
    };
    if as_json {
        return json(&serde_json::json!({
            "model": model.config.name,
            "source": source,
            "positions": inputs.positions,
            "chunks": inputs.inputs.len(),
            "layers": layers,
            "seconds": start.elapsed().as_secs_f64(),
        }));
    }
    let mut out = format!(
        "{}: {} chunks of {} tokens ({source}), a quarter held out; chance {:.1} %\n\
         resid  exact   within 1   positional share   ‖μ_t − μ‖   ‖x − μ‖\n",
        model.config.name,
        inputs.inputs.len(),
        inputs.positions,
        100.0 / inputs.positions as f32
    );
    for (l, p) in layers.iter().enumerate() {
        out.push_str(&format!(
            "{l:>5}  {:5.1} %  {:6.1} %   {:13.3}   {:10.3}  {:8.3}\n",
            100.0 * p.exact,
            100.0 * p.within_one,
            p.share,
            p.positional_norm,
            p.stream_norm
        ));
    }
    out.push_str(&format!("{:.1} s\n", start.elapsed().as_secs_f64()));
    Ok(out)
}
