//! Helpers shared by the integration tests. Each test binary uses only some of them.
#![allow(dead_code)]

use glimpse::model::config::{Activation, Family, ModelConfig, NormPlacement, Positional, Scoring};
use glimpse::model::tokenizer::{TokenizerKind, TokenizerSpec};
use std::path::{Path, PathBuf};

/// Symbols after the specials in `config`'s vocabulary (ids 4‥13).
pub const VOCAB: &str = "abcdefghij";

/// A small model config for property and gradient tests.
pub fn config(
    family: Family,
    positional: Positional,
    norm: NormPlacement,
    kv: usize,
    scoring: Scoring,
) -> ModelConfig {
    ModelConfig {
        format: "glimpse-model".into(),
        version: 1,
        name: "test".into(),
        description: String::new(),
        family,
        d_model: 16,
        n_heads: 4,
        n_kv_heads: kv,
        n_layers: 2,
        d_ff: 24,
        max_len: 24,
        activation: Activation::Gelu,
        norm,
        ln_eps: 1e-5,
        positional,
        scoring,
        tie_embeddings: false,
        causal: true,
        tokenizer: TokenizerSpec::with_symbols(TokenizerKind::Char, VOCAB.chars()),
        extensions: Default::default(),
    }
}

/// Run `check` on every case directory under `tests/fixtures/<dir>`; fails listing every
/// differing case. `check` returns (tensors compared, worst error). Returns
/// (cases, tensors, worst error).
pub fn run_fixture_cases(
    dir: &str,
    min_cases: usize,
    check: impl Fn(&Path) -> Result<(usize, f32), String>,
) -> (usize, usize, f32) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(
        cases.len() >= min_cases,
        "expected at least {min_cases} cases in {dir}, found {}",
        cases.len()
    );
    let (mut tensors, mut worst) = (0, 0.0f32);
    let mut failures = vec![];
    for case in &cases {
        match check(case) {
            Ok((n, w)) => {
                tensors += n;
                worst = worst.max(w);
            }
            Err(e) => failures.push(format!(
                "{}: {e}",
                case.file_name().unwrap_or_default().to_string_lossy()
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    (cases.len(), tensors, worst)
}

/// Largest |a − b|, with NaN on either side counted as infinite (max would skip it).
pub fn max_abs_error<'a>(
    a: impl IntoIterator<Item = &'a f32>,
    b: impl IntoIterator<Item = &'a f32>,
) -> f32 {
    a.into_iter()
        .zip(b)
        .map(|(x, y)| {
            let d = (x - y).abs();
            if d.is_nan() {
                f32::INFINITY
            } else {
                d
            }
        })
        .fold(0.0, f32::max)
}
