//! Parity with the PyTorch reference: every intermediate tensor that
//! `tests/reference/make_fixtures.py` recorded must match Glimpse's trace within 1e-5
//! (max absolute error). The reference runs in float64, Glimpse in float32.

mod common;

use glimpse::model::checkpoint::{load_bytes, read_tensors};
use glimpse::model::trace::StackTrace;
use glimpse::model::{ForwardOptions, ModelInput, Trace};
use ndarray::ArrayD;
use std::path::Path;

const TOLERANCE: f32 = 1e-5;

#[derive(serde::Deserialize)]
struct Inputs {
    source: Vec<u32>,
    target: Vec<u32>,
}

/// The tensor of our trace that a reference name refers to (names in docs/FORMAT.md).
fn ours(trace: &Trace, name: &str) -> Option<ArrayD<f32>> {
    if name == "logits" {
        return Some(trace.logits.clone().into_dyn());
    }
    let parts: Vec<&str> = name.split('.').collect();
    let stack: &StackTrace = match parts[0] {
        "enc" => trace.encoder.as_ref()?,
        "dec" => trace.decoder.as_ref()?,
        _ => return None,
    };
    match parts[1..] {
        ["embed"] => return Some(stack.embed.clone().into_dyn()),
        ["final"] => return Some(stack.output.clone().into_dyn()),
        _ => {}
    }
    let layer: usize = parts.get(1)?.parse().ok()?;
    let b = stack.blocks.get(layer)?;
    let attn = |a: &glimpse::model::attention::AttentionTrace, what: &str| -> Option<ArrayD<f32>> {
        Some(match what {
            "q" => a.q.clone().into_dyn(),
            "k" => a.k.clone().into_dyn(),
            "v" => a.v.clone().into_dyn(),
            "scores" => a.scores.clone().into_dyn(),
            "weights" => a.weights.clone().into_dyn(),
            "head_out" => a.head_out.clone().into_dyn(),
            "out" => a.out.clone().into_dyn(),
            _ => return None,
        })
    };
    match parts[2..] {
        ["input"] => Some(b.input.clone().into_dyn()),
        ["output"] => Some(b.output().clone().into_dyn()),
        ["resid_attn"] => Some(b.self_attn.residual.clone().into_dyn()),
        ["resid_cross"] => Some(b.cross_attn.as_ref()?.residual.clone().into_dyn()),
        ["ln_attn", "mean"] => Some(b.self_attn.norm.mean.clone().into_dyn()),
        ["ln_attn", "var"] => Some(b.self_attn.norm.var.clone().into_dyn()),
        ["ffn", "hidden"] => Some(b.ffn.inner.hidden.clone().into_dyn()),
        ["self_attn", what] => attn(&b.self_attn.inner, what),
        ["cross_attn", what] => attn(&b.cross_attn.as_ref()?.inner, what),
        _ => None,
    }
}

/// Returns how many tensors were compared and the worst error among them.
fn check_case(dir: &Path) -> Result<(usize, f32), String> {
    let read = |f: &str| std::fs::read(dir.join(f)).map_err(|e| format!("{f}: {e}"));
    let config = String::from_utf8(read("model.json")?).map_err(|e| e.to_string())?;
    let model = load_bytes(&config, &read("model.safetensors")?).map_err(|e| e.to_string())?;
    let inputs: Inputs =
        serde_json::from_slice(&read("inputs.json")?).map_err(|e| e.to_string())?;
    let reference = read_tensors(&read("trace.safetensors")?).map_err(|e| e.to_string())?;
    let input = ModelInput {
        source: inputs.source,
        target: inputs.target,
        ..Default::default()
    };
    let trace = model
        .forward(&input, &ForwardOptions::default())
        .map_err(|e| e.to_string())?;
    for must in ["logits"] {
        if !reference.contains_key(must) {
            return Err(format!("reference lacks `{must}`"));
        }
    }
    let mut worst = 0.0f32;
    for (name, expected) in &reference {
        let got = ours(&trace, name)
            .ok_or_else(|| format!("no Glimpse tensor for reference `{name}`"))?;
        if got.shape() != expected.shape() {
            return Err(format!(
                "`{name}`: shape {:?}, reference {:?}",
                got.shape(),
                expected.shape()
            ));
        }
        let err = common::max_abs_error(got.iter(), expected.iter());
        if err > TOLERANCE {
            return Err(format!("`{name}`: max abs error {err:e} > {TOLERANCE:e}"));
        }
        worst = worst.max(err);
    }
    Ok((reference.len(), worst))
}

#[test]
fn every_case_matches_pytorch() {
    let (cases, tensors, worst) = common::run_fixture_cases("parity", 30, check_case);
    println!(
        "{cases} cases, {tensors} tensors within {TOLERANCE:e}; worst max abs error {worst:e}"
    );
}

/// The comparison itself must be able to fail: a perturbed weight is caught.
#[test]
fn a_perturbed_model_is_caught() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/parity/dec-rope-pre-gqa");
    let config = std::fs::read_to_string(dir.join("model.json")).unwrap();
    let mut tensors = read_tensors(&std::fs::read(dir.join("model.safetensors")).unwrap()).unwrap();
    tensors.get_mut("dec.1.ffn.b2").unwrap()[[0]] += 1e-3;
    let bytes = glimpse::model::checkpoint::write_tensors(&tensors).unwrap();
    let tmp = std::env::temp_dir().join(format!("glimpse-perturbed-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::write(tmp.join("model.json"), config).unwrap();
    std::fs::write(tmp.join("model.safetensors"), bytes).unwrap();
    for f in ["inputs.json", "trace.safetensors"] {
        std::fs::copy(dir.join(f), tmp.join(f)).unwrap();
    }
    let e = check_case(&tmp).unwrap_err();
    std::fs::remove_dir_all(&tmp).ok();
    assert!(
        e.contains("dec.1.output") || e.contains("logits") || e.contains("final"),
        "{e}"
    );
}
