//! `glimpse beam`: the whole beam-search tree as JSON (or the ranking as text), from a model
//! or from a typed table of next-token probabilities.

use crate::decode::beam::{greedy, BeamConfig, BeamSearch};
use crate::decode::{ModelSource, Source, TableSource};
use crate::model::tokenizer::BOS;
use serde::Serialize;
use std::path::Path;

pub struct BeamArgs<'a> {
    pub model: Option<&'a str>,
    pub table: Option<&'a Path>,
    pub input: &'a str,
    pub beam: usize,
    pub alpha: f32,
    pub max_len: usize,
    pub temperature: f32,
    pub json: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    tree: &'a BeamSearch,
    ranking: Vec<Ranked>,
    greedy: Ranked,
}

#[derive(Serialize)]
struct Ranked {
    tokens: Vec<String>,
    log_prob: f32,
    score: f32,
}

pub fn beam(a: BeamArgs) -> Result<String, String> {
    if !(1..=64).contains(&a.beam) {
        return Err(format!("--beam {} must be between 1 and 64", a.beam));
    }
    if !(1..=512).contains(&a.max_len) {
        return Err(format!("--max-len {} must be between 1 and 512", a.max_len));
    }
    if !(a.alpha.is_finite() && (0.0..=5.0).contains(&a.alpha)) {
        return Err(format!("--alpha {} must be between 0 and 5", a.alpha));
    }
    if !(a.temperature.is_finite() && a.temperature > 0.0) {
        return Err(format!("--temperature {} must be positive", a.temperature));
    }
    let (mut source, prompt): (Box<dyn Source>, Vec<u32>) = match (a.model, a.table) {
        (_, Some(path)) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            (
                Box::new(TableSource::parse(&text, a.temperature)?),
                vec![BOS],
            )
        }
        (Some(name), None) => {
            let model = super::resolve_model(name).map_err(|e| e.to_string())?;
            let prompt = if model.config.family.has_encoder() {
                vec![BOS]
            } else {
                model.prepare(a.input, "").input.target
            };
            (
                Box::new(ModelSource::new(model, a.input, a.temperature, true)?),
                prompt,
            )
        }
        (None, None) => return Err("give --model NAME_OR_PATH or --table FILE".into()),
    };
    let config = BeamConfig {
        width: a.beam,
        alpha: a.alpha,
        max_len: a.max_len,
    };
    let mut tree = BeamSearch::new(source.as_ref(), config, &prompt);
    tree.run(source.as_mut(), &prompt)?;
    let ranking: Vec<Ranked> = tree
        .ranking()
        .into_iter()
        .map(|n| Ranked {
            tokens: tree.tokens(n),
            log_prob: tree.nodes[n].cum,
            score: tree.nodes[n].score,
        })
        .collect();
    let (g, g_cum) = greedy(source.as_mut(), &prompt, a.max_len)?;
    let greedy = Ranked {
        tokens: g.iter().map(|&t| source.token(t)).collect(),
        log_prob: g_cum,
        score: crate::decode::beam::normalised(g_cum, g.len(), a.alpha),
    };
    if a.json {
        let r = Report {
            tree: &tree,
            ranking,
            greedy,
        };
        return serde_json::to_string(&r).map_err(|e| e.to_string());
    }
    // Characters read as a word; words need spaces.
    let join = |t: &[String]| {
        // Sub-word pieces carry their own spaces (" the", "##ing").
        let chars =
            t.iter().all(|x| x.chars().count() == 1) || t.iter().any(|x| x.starts_with(' '));
        t.join(if chars { "" } else { " " })
    };
    let mut lines: Vec<String> = ranking
        .iter()
        .enumerate()
        .map(|(i, r)| {
            format!(
                "{:2}. {:<40} log p {:8.4}  score {:8.4}",
                i + 1,
                join(&r.tokens),
                r.log_prob,
                r.score
            )
        })
        .collect();
    lines.push(format!(
        "greedy: {} (log p {:.4})",
        join(&greedy.tokens),
        greedy.log_prob
    ));
    lines.push(format!("{} nodes in the tree", tree.nodes.len()));
    Ok(lines.join("\n"))
}
