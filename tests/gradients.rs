//! The backward pass, checked two independent ways: against PyTorch autograd (fixtures made
//! by tests/reference/make_grad_fixtures.py in float64) and against finite differences of
//! Glimpse's own forward pass.

mod common;

use glimpse::model::checkpoint::{load_bytes, read_tensors};
use glimpse::model::config::{Family, ModelConfig, NormPlacement, Positional, Scoring};
use glimpse::model::{Dropout, ForwardOptions, Model, ModelInput};
use glimpse::train::loss::cross_entropy;
use glimpse::train::{example_gradients, Example};
use glimpse::util::rng::Rng;
use std::path::Path;

/// Per parameter tensor: max |g − g_ref| ≤ REL · max |g_ref|, or ≤ FLOOR for tensors whose
/// gradients are all tiny (f32 rounding dominates there).
const REL: f32 = 1e-4;
const FLOOR: f32 = 1e-6;

#[derive(serde::Deserialize)]
struct Batch {
    source: Vec<u32>,
    target: Vec<u32>,
    labels: Vec<u32>,
    loss_mask: Vec<u8>,
    label_smoothing: f32,
    /// Dropout (rate, seed) whose masks the reference rebuilt from the documented formula.
    #[serde(default)]
    dropout: Option<(f32, u64)>,
}

/// Mean loss and its gradients (as named tensors).
fn mean_loss_and_grads(
    model: &Model,
    ex: &Example,
    smoothing: f32,
    dropout: Option<Dropout>,
) -> (f32, glimpse::model::weights::TensorMap) {
    let mut grads = model.weights.zeros_like();
    let (sum, n, _) = example_gradients(model, ex, smoothing, dropout, &mut grads).unwrap();
    let scale = 1.0 / n as f32;
    grads.visit_mut(&mut |_, mut a| a *= scale);
    (sum * scale, grads.to_tensors())
}

fn check_case(dir: &Path) -> Result<(usize, f32), String> {
    let read = |f: &str| std::fs::read(dir.join(f)).map_err(|e| format!("{f}: {e}"));
    let config = String::from_utf8(read("model.json")?).map_err(|e| e.to_string())?;
    let model = load_bytes(&config, &read("model.safetensors")?).map_err(|e| e.to_string())?;
    let b: Batch = serde_json::from_slice(&read("batch.json")?).map_err(|e| e.to_string())?;
    let reference = read_tensors(&read("grads.safetensors")?).map_err(|e| e.to_string())?;
    let ex = Example {
        input: ModelInput {
            source: b.source,
            target: b.target,
            ..Default::default()
        },
        labels: b.labels,
        loss_mask: b.loss_mask.iter().map(|&m| m == 1).collect(),
    };
    let dropout = b.dropout.map(|(rate, seed)| Dropout::new(rate, seed));
    let (loss, grads) = mean_loss_and_grads(&model, &ex, b.label_smoothing, dropout);
    let ref_loss = reference.get("loss").ok_or("no loss in fixture")?[[0]];
    if dropout.is_some() {
        // The masks matter: without them the loss is another number.
        let (plain, _) = mean_loss_and_grads(&model, &ex, b.label_smoothing, None);
        if (plain - ref_loss).abs() < 1e-3 {
            return Err(format!("dropout changed nothing ({plain} vs {ref_loss})"));
        }
    }
    if (loss - ref_loss).abs() > 1e-5 * (1.0 + ref_loss.abs()) {
        return Err(format!("loss {loss} vs reference {ref_loss}"));
    }
    let mut worst = 0.0f32;
    for (name, g) in &grads {
        let r = reference
            .get(name)
            .ok_or_else(|| format!("fixture lacks gradient `{name}`"))?;
        if r.shape() != g.shape() {
            return Err(format!(
                "`{name}`: shape {:?} vs {:?}",
                g.shape(),
                r.shape()
            ));
        }
        let err = common::max_abs_error(g.iter(), r.iter());
        let scale = r.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        if err > (REL * scale).max(FLOOR) {
            return Err(format!(
                "`{name}`: max abs error {err:e}, reference max {scale:e}"
            ));
        }
        worst = worst.max(err / scale.max(FLOOR / REL));
    }
    if reference.len() != grads.len() + 1 {
        return Err(format!(
            "fixture has {} gradients, Glimpse {}",
            reference.len() - 1,
            grads.len()
        ));
    }
    Ok((grads.len(), worst))
}

#[test]
fn gradients_match_pytorch_autograd() {
    let (cases, tensors, worst) = common::run_fixture_cases("grads", 20, check_case);
    println!("{cases} cases, {tensors} gradient tensors; worst relative error {worst:e}");
}

/// Smaller than the shared config, so finite differences stay quick.
fn config(
    family: Family,
    positional: Positional,
    norm: NormPlacement,
    kv: usize,
    scoring: Scoring,
    tied: bool,
) -> ModelConfig {
    ModelConfig {
        d_model: 8,
        n_heads: 2,
        d_ff: 12,
        max_len: 12,
        tie_embeddings: tied,
        ..common::config(family, positional, norm, kv, scoring)
    }
}

/// Directional finite difference per parameter tensor: for a random direction d,
/// (L(θ+εd) − L(θ−εd)) / 2ε must equal ⟨∇L, d⟩ for a unit vector d. In f32 with ε = 1e-2
/// the truncation and rounding errors stay near 1e-3 relative; the tolerance is 2% + 2e-3.
/// Returns the tensors whose analytic gradient (after `tamper`) disagrees.
fn finite_difference_mismatches(
    cfg: ModelConfig,
    seed: u64,
    dropout: Option<Dropout>,
    tamper: impl Fn(&str, &mut ndarray::ArrayD<f32>),
) -> Vec<String> {
    let model = Model::random(cfg.clone(), seed).unwrap();
    let ex = Example {
        input: ModelInput {
            source: vec![4, 6, 5, 9, 7],
            target: vec![1, 8, 4, 6],
            ..Default::default()
        },
        labels: vec![8, 4, 6, 2, 5],
        loss_mask: vec![false, true, true, true, true],
    };
    let ex = match cfg.family {
        Family::Encoder => ex,
        _ => Example {
            labels: ex.labels[..4].to_vec(),
            loss_mask: ex.loss_mask[..4].to_vec(),
            ..ex
        },
    };
    let (_, mut grads) = mean_loss_and_grads(&model, &ex, 0.1, dropout);
    for (name, g) in grads.iter_mut() {
        tamper(name, g);
    }
    let mut mismatches = vec![];
    let loss_at = |w: &glimpse::model::weights::TensorMap| {
        let m = Model::new(
            cfg.clone(),
            glimpse::model::weights::Weights::from_tensors(&cfg, w.clone()).unwrap(),
        )
        .unwrap();
        let opts = ForwardOptions {
            dropout,
            ..Default::default()
        };
        let t = m.forward(&ex.input, &opts).unwrap();
        let (s, n, _) = cross_entropy(t.logits.view(), &ex.labels, &ex.loss_mask, 0.1);
        (s / n as f32) as f64
    };
    let base = model.weights.to_tensors();
    let mut rng = Rng::new(seed ^ 0xfd);
    let eps = 1e-2f32;
    for (name, g) in &grads {
        // A unit-length direction, so the step is ε whatever the tensor's size.
        let mut dir: Vec<f32> = (0..g.len()).map(|_| rng.normal() as f32).collect();
        let norm = dir.iter().map(|d| d * d).sum::<f32>().sqrt();
        dir.iter_mut().for_each(|d| *d /= norm);
        let analytic: f64 = g.iter().zip(&dir).map(|(a, b)| (*a * *b) as f64).sum();
        let shifted = |sign: f32| {
            let mut w = base.clone();
            let t = w.get_mut(name).unwrap();
            t.iter_mut()
                .zip(&dir)
                .for_each(|(v, d)| *v += sign * eps * d);
            loss_at(&w)
        };
        let numeric = (shifted(1.0) - shifted(-1.0)) / (2.0 * eps as f64);
        let tol = 2e-2 * analytic.abs().max(numeric.abs()) + 2e-3;
        if (analytic - numeric).abs() > tol {
            mismatches.push(format!(
                "{:?}/{}: `{name}` analytic {analytic:.6} vs finite difference {numeric:.6}",
                cfg.family,
                cfg.positional.label()
            ));
        }
    }
    mismatches
}

#[test]
fn gradients_match_finite_differences() {
    let schemes = [
        Positional::None,
        Positional::Sinusoidal { base: 10000.0 },
        Positional::Learned,
        Positional::Rope { base: 10000.0 },
        Positional::Alibi,
        Positional::Relative { max_distance: 2 },
    ];
    let mut seed = 1;
    for family in [Family::Encoder, Family::Decoder, Family::EncoderDecoder] {
        for (i, pos) in schemes.iter().enumerate() {
            let norm = if i % 2 == 0 {
                NormPlacement::Pre
            } else {
                NormPlacement::Post
            };
            let scoring = [Scoring::ScaledDot, Scoring::Additive, Scoring::Bilinear][i % 3];
            let kv = [2, 1][i % 2];
            let bad = finite_difference_mismatches(
                config(family, *pos, norm, kv, scoring, i % 3 == 2),
                seed,
                None,
                |_, _| {},
            );
            assert!(bad.is_empty(), "{}", bad.join("\n"));
            seed += 1;
        }
    }
}

/// Dropout masks are a pure function of the seed, so the loss with dropout is a smooth
/// function of the weights and finite differences apply unchanged.
#[test]
fn gradients_with_dropout_match_finite_differences() {
    let cases = [
        (Family::Encoder, NormPlacement::Post, Positional::Learned),
        (
            Family::Decoder,
            NormPlacement::Pre,
            Positional::Rope { base: 10000.0 },
        ),
        (
            Family::EncoderDecoder,
            NormPlacement::Post,
            Positional::Sinusoidal { base: 10000.0 },
        ),
        (
            Family::EncoderDecoder,
            NormPlacement::Pre,
            Positional::Alibi,
        ),
    ];
    for (i, (family, norm, pos)) in cases.into_iter().enumerate() {
        let cfg = config(family, pos, norm, 1 + i % 2, Scoring::ScaledDot, i == 1);
        let dropout = Some(Dropout::new(0.25, 40 + i as u64));
        let bad = finite_difference_mismatches(cfg, 20 + i as u64, dropout, |_, _| {});
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }
}

/// The check can fail: a gradient 10% off in one tensor is caught.
#[test]
fn a_wrong_gradient_is_caught_by_finite_differences() {
    let cfg = config(
        Family::Decoder,
        Positional::Rope { base: 10000.0 },
        NormPlacement::Pre,
        1,
        Scoring::ScaledDot,
        false,
    );
    let bad = finite_difference_mismatches(cfg, 3, None, |name, g| {
        if name == "dec.1.self_attn.w_qkv" {
            *g *= 1.1;
        }
    });
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].contains("dec.1.self_attn.w_qkv"));
}
