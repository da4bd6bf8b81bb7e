//! Every tensor a config asks for (name, shape, initialisation), fresh tensors drawn for it,
//! and the checks that tensors from a file or an import match it.

use super::{TensorMap, Weights};
use crate::model::config::{ModelConfig, NormPlacement, OutputHead, Positional, Scoring};
use crate::model::error::{ModelError, Result};
use crate::util::rng::Rng;
use ndarray::{ArrayD, IxDyn};

/// How a fresh tensor is initialised.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Init {
    /// Normal with this standard deviation.
    Normal(f32),
    Zeros,
    Ones,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TensorSpec {
    pub name: String,
    pub shape: Vec<usize>,
    pub init: Init,
}

/// Every tensor a config needs, with its shape and initialisation.
pub fn tensor_specs(cfg: &ModelConfig) -> Vec<TensorSpec> {
    let d = cfg.d_model;
    let (heads, kv, h, ff, vocab) = (
        cfg.n_heads,
        cfg.n_kv_heads,
        cfg.d_head(),
        cfg.d_ff,
        cfg.vocab_size(),
    );
    let mut specs = Vec::new();
    let mut add =
        |name: String, shape: Vec<usize>, init: Init| specs.push(TensorSpec { name, shape, init });
    let proj = |fan_in: usize| Init::Normal(1.0 / (fan_in as f32).sqrt());

    let x = &cfg.extensions;
    add("tok_embed".into(), vec![vocab, d], Init::Normal(1.0));
    if cfg.positional == Positional::Learned {
        add("pos_embed".into(), vec![cfg.max_len, d], Init::Normal(0.5));
    }
    if x.token_types > 0 {
        add(
            "type_embed".into(),
            vec![x.token_types, d],
            Init::Normal(0.5),
        );
    }
    let norm = |add: &mut dyn FnMut(String, Vec<usize>, Init), p: &str| {
        add(format!("{p}.gamma"), vec![d], Init::Ones);
        add(format!("{p}.beta"), vec![d], Init::Zeros);
    };
    if x.embed_norm {
        norm(&mut add, "embed_ln");
    }
    let attention = |add: &mut dyn FnMut(String, Vec<usize>, Init), p: &str, cross: bool| {
        if cross {
            add(format!("{p}.w_q"), vec![heads * h, d], proj(d));
            add(format!("{p}.b_q"), vec![heads * h], Init::Zeros);
            add(format!("{p}.w_kv"), vec![2 * kv * h, d], proj(d));
            add(format!("{p}.b_kv"), vec![2 * kv * h], Init::Zeros);
        } else {
            add(format!("{p}.w_qkv"), vec![(heads + 2 * kv) * h, d], proj(d));
            add(
                format!("{p}.b_qkv"),
                vec![(heads + 2 * kv) * h],
                Init::Zeros,
            );
        }
        add(format!("{p}.w_o"), vec![d, heads * h], proj(heads * h));
        add(format!("{p}.b_o"), vec![d], Init::Zeros);
        match cfg.scoring {
            Scoring::ScaledDot => {}
            Scoring::Bilinear => add(format!("{p}.score_w"), vec![heads, h, h], proj(h)),
            Scoring::Additive => {
                add(format!("{p}.score_w"), vec![heads, h, h], proj(h));
                add(format!("{p}.score_u"), vec![heads, h, h], proj(h));
                add(format!("{p}.score_v"), vec![heads, h], proj(h));
            }
        }
        if let (Positional::Relative { max_distance }, false) = (cfg.positional, cross) {
            add(
                format!("{p}.rel_bias"),
                vec![heads, 2 * max_distance + 1],
                Init::Normal(0.5),
            );
        }
    };
    let has_cross = cfg.family.has_encoder() && cfg.family.has_decoder();
    for (stack, present, cross) in [
        ("enc", cfg.family.has_encoder(), false),
        ("dec", cfg.family.has_decoder(), has_cross),
    ] {
        if !present {
            continue;
        }
        for l in 0..cfg.n_layers {
            norm(&mut add, &format!("{stack}.{l}.ln_attn"));
            attention(&mut add, &format!("{stack}.{l}.self_attn"), false);
            if cross {
                norm(&mut add, &format!("{stack}.{l}.ln_cross"));
                attention(&mut add, &format!("{stack}.{l}.cross_attn"), true);
            }
            norm(&mut add, &format!("{stack}.{l}.ln_ffn"));
            add(format!("{stack}.{l}.ffn.w1"), vec![ff, d], proj(d));
            add(format!("{stack}.{l}.ffn.b1"), vec![ff], Init::Zeros);
            add(format!("{stack}.{l}.ffn.w2"), vec![d, ff], proj(ff));
            add(format!("{stack}.{l}.ffn.b2"), vec![d], Init::Zeros);
            if x.gated_ffn {
                add(format!("{stack}.{l}.ffn.w_gate"), vec![ff, d], proj(d));
                add(format!("{stack}.{l}.ffn.b_gate"), vec![ff], Init::Zeros);
            }
        }
        if cfg.norm == NormPlacement::Pre {
            norm(&mut add, &format!("{stack}.ln_f"));
        }
    }
    if x.output == OutputHead::MaskedLm {
        add("mlm.dense".into(), vec![d, d], proj(d));
        add("mlm.dense_bias".into(), vec![d], Init::Zeros);
        norm(&mut add, "mlm.ln");
    }
    if x.output != OutputHead::None {
        if !cfg.tie_embeddings {
            add("lm_head.weight".into(), vec![vocab, d], proj(d));
        }
        add("lm_head.bias".into(), vec![vocab], Init::Zeros);
    }
    specs
}

/// Number of parameters a config asks for (checked before anything is allocated).
pub fn parameter_count(cfg: &ModelConfig) -> usize {
    tensor_specs(cfg)
        .iter()
        .map(|s| s.shape.iter().product::<usize>())
        .sum()
}

/// Fresh tensors for a config, deterministic for a seed.
pub fn init_tensors(cfg: &ModelConfig, seed: u64) -> TensorMap {
    let mut rng = Rng::new(seed);
    tensor_specs(cfg)
        .into_iter()
        .map(|s| {
            let n = s.shape.iter().product();
            let data: Vec<f32> = match s.init {
                Init::Zeros => vec![0.0; n],
                Init::Ones => vec![1.0; n],
                Init::Normal(std) => (0..n).map(|_| rng.normal() as f32 * std).collect(),
            };
            // `data` has exactly the shape's element count, so this cannot fail.
            let t = ArrayD::from_shape_vec(IxDyn(&s.shape), data)
                .unwrap_or_else(|_| ArrayD::zeros(IxDyn(&s.shape)));
            (s.name, t)
        })
        .collect()
}

/// Check a map against the config: every tensor present with the right shape, none extra,
/// all values finite. Nothing is built unless everything is right.
pub fn check_tensors(cfg: &ModelConfig, map: &TensorMap) -> Result<()> {
    let specs = tensor_specs(cfg);
    for s in &specs {
        let t = map
            .get(&s.name)
            .ok_or_else(|| ModelError::MissingTensor(s.name.clone()))?;
        if t.shape() != s.shape.as_slice() {
            return Err(ModelError::ShapeMismatch {
                name: s.name.clone(),
                expected: s.shape.clone(),
                found: t.shape().to_vec(),
            });
        }
        if t.iter().any(|v| !v.is_finite()) {
            return Err(ModelError::NonFinite(s.name.clone()));
        }
    }
    if let Some(extra) = map.keys().find(|k| !specs.iter().any(|s| &s.name == *k)) {
        return Err(ModelError::UnexpectedTensor(extra.clone()));
    }
    Ok(())
}

/// Check built weights against the config without copying them: every tensor the config asks
/// for, with its shape, and nothing else (imported checkpoints are built directly).
pub fn check_shapes(cfg: &ModelConfig, weights: &Weights) -> Result<()> {
    let specs = tensor_specs(cfg);
    let mut seen = 0;
    let mut problem = None;
    let mut check = |name: String, shape: &[usize]| {
        if problem.is_some() {
            return;
        }
        seen += 1;
        match specs.iter().find(|s| s.name == name) {
            None => problem = Some(ModelError::UnexpectedTensor(name)),
            Some(s) if s.shape != shape => {
                problem = Some(ModelError::ShapeMismatch {
                    name,
                    expected: s.shape.clone(),
                    found: shape.to_vec(),
                })
            }
            Some(_) => {}
        }
    };
    weights.visit(&mut |name, a| check(name, a.shape()));
    for (name, q) in weights.quantized_matrices() {
        check(name, &[q.rows(), q.cols()]);
    }
    if let Some(p) = problem {
        return Err(p);
    }
    if seen != specs.len() {
        let mut present = Vec::new();
        weights.visit(&mut |name, _| present.push(name));
        present.extend(weights.quantized_matrices().into_iter().map(|(n, _)| n));
        if let Some(missing) = specs.iter().find(|s| !present.contains(&s.name)) {
            return Err(ModelError::MissingTensor(missing.name.clone()));
        }
    }
    Ok(())
}
