//! What attention does, against `transformers` run with hooks
//! (`tests/reference/make_influence_fixtures.py`): the logit lens, direct logit attribution,
//! activation patching and attention rollout on tiny random GPT-2 (LayerNorm, biases), Llama
//! (GQA; biases) and BERT-MLM checkpoints, and on SmolLM2-135M from its GGUF. Tolerances: 1e-3
//! for probabilities, patching scores and (relative to the logit difference's scale) DLA
//! shares; 1e-4 for rollout.

use glimpse::analysis::{attribution, lens, patching, rollout, AnalysisError};
use glimpse::model::import::open::open_path;
use glimpse::model::{ForwardOptions, Model, Trace};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/influence")
        .join(format!("{name}.json"));
    serde_json::from_slice(&std::fs::read(&path).expect("fixture")).expect("fixture JSON")
}

fn tiny(name: &str) -> Model {
    let dir: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hf")
        .join(name);
    open_path(&dir, &mut |_| {}).unwrap().0
}

fn ids(v: &Value) -> Vec<u32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as u32)
        .collect()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

fn traced(model: &Model, ids: &[u32]) -> Trace {
    let input = model.input_from_ids(ids.to_vec(), Vec::new());
    model.forward(&input, &ForwardOptions::default()).unwrap()
}

/// Every layer's probability of the target at every position, and each position's top token
/// where the reference's first two are not tied, within 1e-3.
fn check_lens(model: &Model, trace: &Trace, want: &Value) {
    let target = want["target"].as_u64().map(|t| t as u32);
    let got = lens::logit_lens(model, trace, 5, target).unwrap();
    let layers = want["layers"].as_array().unwrap();
    assert_eq!(got.layers.len(), layers.len(), "layers 0..=L");
    let mut worst = 0f64;
    for (g, w) in got.layers.iter().zip(layers) {
        let target_p = w["target_p"].as_array().unwrap();
        for (p, (gp, wp)) in g
            .target_p
            .as_ref()
            .unwrap()
            .iter()
            .zip(target_p)
            .enumerate()
        {
            worst = worst.max((f64::from(*gp) - f(wp)).abs());
            let (top_ids, top_p) = (&w["top_ids"][p], &w["top_p"][p]);
            if f(&top_p[0]) - f(&top_p[1]) > 2e-3 {
                assert_eq!(
                    g.top[p][0].id as u64,
                    top_ids[0].as_u64().unwrap(),
                    "layer {} pos {p}",
                    g.layer
                );
            }
            worst = worst.max((f64::from(g.top[p][0].p) - f(&top_p[0])).abs());
        }
    }
    assert!(worst < 1e-3, "lens probabilities differ by {worst:e}");
}

/// Each share within 1e-3 of the logit difference's scale; the shares add up to it.
fn check_dla(model: &Model, trace: &Trace, want: &Value) {
    let target = want["target"].as_u64().unwrap() as u32;
    let contrast = want["contrast"].as_u64().map(|c| c as u32);
    let position = want["position"].as_u64().map(|p| p as usize);
    let got = attribution::attribute(model, trace, target, contrast, position).unwrap();
    let scale = 1.0 + f(&want["logit_diff"]).abs();
    let close = |a: f64, b: f64, what: &str| {
        assert!((a - b).abs() < 1e-3 * scale, "{what}: {a} against {b}");
    };
    close(got.logit_diff, f(&want["logit_diff"]), "logit difference");
    close(got.embed, f(&want["embed"]), "embedding");
    for (l, (g, w)) in got
        .heads
        .iter()
        .zip(want["heads"].as_array().unwrap())
        .enumerate()
    {
        for (h, (a, b)) in g.iter().zip(w.as_array().unwrap()).enumerate() {
            close(*a, f(b), &format!("block {l} head {h}"));
        }
    }
    for (l, (a, b)) in got
        .mlp
        .iter()
        .zip(want["mlp"].as_array().unwrap())
        .enumerate()
    {
        close(*a, f(b), &format!("block {l} MLP"));
    }
    for (name, b) in want["biases"].as_object().unwrap() {
        let a = got.biases.get(name).copied().unwrap_or(0.0);
        close(a, f(b), name);
    }
    assert!(
        (got.sum - got.logit_diff).abs() < 1e-4 * scale,
        "the shares add up to {} but the logit difference is {}",
        got.sum,
        got.logit_diff
    );
}

fn check_rollout(trace: &Trace, want: &Value) {
    let got = rollout::rollout(trace).unwrap();
    for (i, row) in want.as_array().unwrap().iter().enumerate() {
        for (j, w) in row.as_array().unwrap().iter().enumerate() {
            let d = (got.rollout[[i, j]] - f(w)).abs();
            assert!(
                d < 1e-4,
                "rollout [{i}, {j}]: {} against {}",
                got.rollout[[i, j]],
                f(w)
            );
        }
    }
}

fn check_patching(model: &Model, want: &Value) {
    let p = patching::Sweep::new(
        model,
        ids(&want["tokens_clean"]),
        ids(&want["tokens_corrupt"]),
        want["target"].as_u64().unwrap() as u32,
        want["contrast"].as_u64().unwrap() as u32,
    )
    .unwrap()
    .run_all(model)
    .unwrap();
    let close =
        |a: f64, b: f64, what: &str| assert!((a - b).abs() < 1e-3, "{what}: {a} against {b}");
    let scale = (f(&want["ld_clean"]) - f(&want["ld_corrupt"]))
        .abs()
        .max(1.0);
    assert!((p.ld_clean - f(&want["ld_clean"])).abs() < 1e-3 * scale);
    assert!((p.ld_corrupt - f(&want["ld_corrupt"])).abs() < 1e-3 * scale);
    for (name, got, want) in [
        ("resid", &p.resid, &want["resid"]),
        ("heads", &p.heads, &want["heads"]),
    ] {
        for (l, (g, w)) in got.iter().zip(want.as_array().unwrap()).enumerate() {
            for (i, (a, b)) in g.iter().zip(w.as_array().unwrap()).enumerate() {
                close(*a, f(b), &format!("{name} block {l} #{i}"));
            }
        }
    }
}

fn check_causal(name: &str) {
    check_all(&tiny(name), &fixture(name));
}

/// The four tools on one model against one fixture.
fn check_all(model: &Model, want: &Value) {
    let trace = traced(model, &ids(&want["ids"]));
    check_lens(model, &trace, &want["lens"]);
    check_dla(model, &trace, &want["dla"]);
    check_rollout(&trace, &want["rollout"]);
    check_patching(model, &want["patch"]);
}

#[test]
fn gpt2_matches_transformers() {
    check_causal("gpt2");
}

#[test]
fn llama_with_biases_matches_transformers() {
    check_causal("llama-bias");
}

#[test]
fn llama_gqa_matches_transformers() {
    check_causal("llama-gqa");
}

/// BERT reads every layer through its masked-LM head; attribution and patching are refused
/// with the reason (post-norm, and no next token to patch).
#[test]
fn bert_mlm_lens_and_rollout_match_and_the_rest_is_refused() {
    let want = fixture("bert-mlm");
    let model = tiny("bert-mlm");
    let ids = ids(&want["ids"]);
    let trace = traced(&model, &ids);
    check_lens(&model, &trace, &want["lens"]);
    check_rollout(&trace, &want["rollout"]);
    let e = attribution::attribute(&model, &trace, ids[1], Some(ids[2]), None).unwrap_err();
    assert!(e.to_string().contains("post-norm"), "{e}");
    let e = patching::Sweep::new(&model, ids.clone(), ids.clone(), ids[1], ids[2])
        .err()
        .expect("an encoder is refused");
    assert!(e.to_string().contains("encoder"), "{e}");
}

/// SmolLM2-135M from its GGUF: " Paris" rising through the lens, the attribution of " Paris"
/// over " London", the rollout, and the whole indirect-object patching sweep (420 residual and
/// 270 head patches) as `transformers` computed them.
#[test]
fn smollm2_matches_transformers() {
    let Some(file) = glimpse::util::real_models::smollm2() else {
        return;
    };
    let (model, _) = open_path(&file, &mut |_| {}).unwrap();
    let want = fixture("smollm2");
    let text = want["text"].as_str().unwrap();
    assert_eq!(
        model.prepare("", text).input.target,
        ids(&want["ids"]),
        "the same ids"
    );
    check_all(&model, &want);
}

/// Bad input gets a clear message: a target that is not one token, texts of different
/// lengths, an empty text, and a model without an output layer.
#[test]
fn bad_input_is_refused_with_the_reason() {
    let model = tiny("gpt2");
    let e = glimpse::analysis::single_token(&model, "a whole phrase of words").unwrap_err();
    assert!(matches!(e, AnalysisError::NotOneToken { .. }), "{e}");
    assert!(e.to_string().contains("splits into"), "{e}");
    let e = patching::Sweep::new(&model, vec![5, 6, 7], vec![5, 6], 5, 6)
        .err()
        .unwrap();
    assert!(matches!(e, AnalysisError::Lengths { .. }), "{e}");
    let e = patching::Sweep::new(&model, vec![], vec![], 5, 6)
        .err()
        .unwrap();
    assert!(e.to_string().contains("empty"), "{e}");
    let sentence_encoder = tiny("bert-base");
    let trace = traced(&sentence_encoder, &[2, 7, 9, 3]);
    let e = lens::logit_lens(&sentence_encoder, &trace, 5, None).unwrap_err();
    assert!(e.to_string().contains("no output layer"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// The command line: `glimpse lens`, `attribute`, `patch` and `rollout` print the JSON of the
// issue's shapes, a table without `--json`, and refuse bad input on stderr with a failing exit.

fn cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_glimpse"))
        .args(args)
        .output()
        .expect("run glimpse")
}

fn cli_json(args: &[&str]) -> Value {
    let out = cli(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn the_four_commands_print_their_json() {
    let text = "the cat sat on the mat";
    let lens = cli_json(&[
        "lens", "--model", "lm", "--text", text, "--target", "t", "--top", "3", "--json",
    ]);
    let layers = lens["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 3, "lm has 2 blocks: layers 0, 1, 2");
    let t = lens["tokens"].as_array().unwrap().len();
    assert_eq!(layers[2]["top"].as_array().unwrap().len(), t);
    assert_eq!(layers[2]["top"][0].as_array().unwrap().len(), 3);
    for key in ["token", "id", "p"] {
        assert!(layers[0]["top"][0][0].get(key).is_some(), "{key}");
    }
    assert_eq!(layers[1]["target_p"].as_array().unwrap().len(), t);

    let a = cli_json(&[
        "attribute",
        "--model",
        "lm",
        "--text",
        text,
        "--target",
        "t",
        "--contrast",
        "a",
        "--json",
    ]);
    assert!((f(&a["sum"]) - f(&a["logit_diff"])).abs() < 1e-4 * (1.0 + f(&a["logit_diff"]).abs()));
    assert_eq!(a["heads"].as_array().unwrap().len(), 2);
    assert!(a["mlp"].is_array() && a["embed"].is_number() && a["biases"].is_object());

    let p = cli_json(&[
        "patch",
        "--model",
        "lm",
        "--clean",
        "the cat sat",
        "--corrupt",
        "the dog sat",
        "--target",
        "c",
        "--contrast",
        "d",
        "--json",
    ]);
    for key in [
        "tokens_clean",
        "tokens_corrupt",
        "ld_clean",
        "ld_corrupt",
        "resid",
        "heads",
    ] {
        assert!(p.get(key).is_some(), "{key}");
    }
    let r = cli_json(&["rollout", "--model", "lm", "--text", text, "--json"]);
    let rows = r["rollout"].as_array().unwrap();
    assert_eq!(rows.len(), r["tokens"].as_array().unwrap().len());
    for row in rows {
        let sum: f64 = row.as_array().unwrap().iter().map(f).sum();
        assert!((sum - 1.0).abs() < 1e-6);
    }
    let table = cli(&["lens", "--model", "lm", "--text", text]);
    assert!(String::from_utf8_lossy(&table.stdout).contains("layer  2"));
}

#[test]
fn the_commands_refuse_bad_input_with_the_reason() {
    let refused = |args: &[&str], needle: &str| {
        let out = cli(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(needle),
            "{args:?}: {err}"
        );
    };
    refused(&["lens", "--model", "lm", "--text", ""], "empty");
    refused(
        &[
            "attribute",
            "--model",
            "lm",
            "--text",
            "the cat",
            "--target",
            "cat",
        ],
        "not one token",
    );
    refused(
        &[
            "patch",
            "--model",
            "lm",
            "--clean",
            "the cat",
            "--corrupt",
            "the cats",
            "--target",
            "a",
            "--contrast",
            "b",
        ],
        "same number of tokens",
    );
    refused(
        &[
            "patch",
            "--model",
            "demo-encoder",
            "--clean",
            "a b",
            "--corrupt",
            "b a",
            "--target",
            "a",
            "--contrast",
            "b",
        ],
        "decoder-only",
    );
    refused(
        &[
            "lens",
            "--model",
            "translate",
            "--text",
            "the european area",
        ],
        "--source",
    );
}
