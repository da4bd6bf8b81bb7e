//! `glimpse attn`: a model run on text, its whole trace (or the layers and heads asked for).

use super::resolve_model;
use crate::model::{ForwardOptions, Trace};
use serde::Serialize;

#[derive(Serialize)]
struct AttnReport<'a> {
    model: &'a str,
    source: &'a str,
    target: &'a str,
    unknown_tokens: usize,
    truncated_tokens: usize,
    temperature: f32,
    /// The layers and heads kept by `--layers` / `--heads` (all when absent), in trace order.
    #[serde(skip_serializing_if = "Option::is_none")]
    layers_shown: Option<&'a [usize]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    heads_shown: Option<&'a [usize]>,
    trace: &'a Trace,
}

/// Which layers and heads `attn` prints (all when `None`).
#[derive(Default)]
pub struct Keep {
    pub(super) layers: Option<Vec<usize>>,
    pub(super) heads: Option<Vec<usize>>,
}

impl Keep {
    /// Drops the layers and heads not asked for, keeping the rest of the trace whole.
    fn apply(&self, trace: &mut Trace) {
        for stack in [trace.encoder.as_mut(), trace.decoder.as_mut()]
            .into_iter()
            .flatten()
        {
            if let Some(layers) = &self.layers {
                let mut l = 0;
                stack.blocks.retain(|_| {
                    l += 1;
                    layers.contains(&(l - 1))
                });
            }
            if let Some(heads) = &self.heads {
                for b in &mut stack.blocks {
                    keep_heads(&mut b.self_attn.inner, heads);
                    if let Some(c) = b.cross_attn.as_mut() {
                        keep_heads(&mut c.inner, heads);
                    }
                }
            }
        }
    }
}

fn keep_heads(a: &mut crate::model::attention::AttentionTrace, heads: &[usize]) {
    let n = a.weights.len_of(ndarray::Axis(0));
    let rows: Vec<usize> = heads.iter().copied().filter(|&h| h < n).collect();
    let pick = |x: &ndarray::Array3<f32>| x.select(ndarray::Axis(0), &rows);
    a.q = pick(&a.q);
    a.scores = pick(&a.scores);
    a.scaled = pick(&a.scaled);
    a.logits = pick(&a.logits);
    a.weights = pick(&a.weights);
    a.head_out = pick(&a.head_out);
    a.bias = a.bias.as_ref().map(pick);
}

pub(super) fn attn(
    model: &str,
    input: &str,
    target: &str,
    temperature: f32,
    keep: &Keep,
    as_json: bool,
) -> Result<String, String> {
    let m = resolve_model(model).map_err(|e| e.to_string())?;
    if input.is_empty() {
        return Err("--input is empty: give at least one character or word".into());
    }
    let prepared = m.prepare(input, target);
    let opts = ForwardOptions {
        temperature,
        ..Default::default()
    };
    let mut trace = m
        .forward(&prepared.input, &opts)
        .map_err(|e| e.to_string())?;
    // Only layers and heads the model has, so the labels below name the right ones.
    let within = |v: &Option<Vec<usize>>, n: usize| {
        v.as_ref()
            .map(|v| v.iter().copied().filter(|&i| i < n).collect::<Vec<_>>())
    };
    let keep = &Keep {
        layers: within(&keep.layers, m.config.n_layers),
        heads: within(&keep.heads, m.config.n_heads),
    };
    keep.apply(&mut trace);
    if as_json {
        let report = AttnReport {
            model: &m.config.name,
            source: input,
            target,
            unknown_tokens: prepared.unknown,
            truncated_tokens: prepared.truncated,
            temperature,
            layers_shown: keep.layers.as_deref(),
            heads_shown: keep.heads.as_deref(),
            trace: &trace,
        };
        return serde_json::to_string(&report).map_err(|e| e.to_string());
    }
    let mut out = format!("{} ({})\n", m.config.name, m.config.family.label());
    if prepared.truncated > 0 {
        out += &format!(
            "note: {} tokens past max_len {} were cut\n",
            prepared.truncated, m.config.max_len
        );
    }
    for kind in trace.attention_kinds() {
        for layer in 0..trace.layers(kind) {
            let Some(a) = trace.attention(kind, layer) else {
                continue;
            };
            let shown = |kept: &Option<Vec<usize>>, i: usize| {
                kept.as_ref().and_then(|k| k.get(i).copied()).unwrap_or(i)
            };
            for (h, w) in a.weights.outer_iter().enumerate() {
                out += &format!(
                    "{} layer {} head {}:",
                    kind.label(),
                    shown(&keep.layers, layer),
                    shown(&keep.heads, h)
                );
                for (q, row) in w.rows().into_iter().enumerate() {
                    let (best, p) = crate::util::argmax(row.iter().copied()).unwrap_or((0, 0.0));
                    out += &format!(" {}→{} {:.2}", a.query_tokens[q], a.key_tokens[best], p);
                }
                out += "\n";
            }
        }
    }
    Ok(out)
}
