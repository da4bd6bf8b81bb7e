//! The command line as a script would use it: JSON on stdout, errors on stderr with a
//! non-zero exit, for good and bad input alike.

use std::process::{Command, Output};

fn glimpse(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_glimpse"))
        .args(args)
        .output()
        .expect("run glimpse")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = glimpse(args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// `glimpse` with `GLIMPSE_DATA` (where scripts/fetch_data.sh puts corpora) set to `data`.
fn glimpse_with_data(data: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_glimpse"))
        .args(args)
        .env("GLIMPSE_DATA", data)
        .output()
        .expect("run glimpse")
}

/// [`json`] with `GLIMPSE_DATA` set to `data`.
fn json_with_data(data: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let out = glimpse_with_data(data, args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// A failing call: non-zero exit, nothing on stdout, a message containing `needle` on stderr.
fn fails(args: &[&str], needle: &str) {
    failed(args, glimpse(args), needle);
}

/// [`fails`] with `GLIMPSE_DATA` set to `data`; returns the message.
fn fails_with_data(data: &std::path::Path, args: &[&str], needle: &str) -> String {
    failed(args, glimpse_with_data(data, args), needle)
}

fn failed(args: &[&str], out: Output, needle: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "{args:?} should fail");
    assert!(
        out.stdout.is_empty(),
        "{args:?} printed to stdout on failure"
    );
    assert!(
        err.contains(needle),
        "{args:?}: stderr {err:?} lacks {needle:?}"
    );
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    err
}

#[test]
fn models_lists_every_builtin() {
    let v = json(&["models", "--json"]);
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "translate",
            "reverse",
            "reverse-nomask",
            "extrap-sinusoidal",
            "extrap-learned",
            "extrap-rope",
            "extrap-alibi",
            "extrap-relative",
            "copy",
            "sort",
            "repeat",
            "sotu-lm",
            "sotu-mlm",
            "lm",
            "demo-decoder",
            "demo-encoder",
            "demo-translate"
        ]
    );
    assert!(v[0]["trained"].as_bool().unwrap());
}

#[test]
fn attn_prints_the_whole_trace() {
    let v = json(&[
        "attn",
        "--model",
        "demo-translate",
        "--input",
        "la zone économique européenne",
        "--target",
        "the european economic area",
        "--json",
    ]);
    let trace = &v["trace"];
    let enc_tokens = &trace["encoder"]["tokens"];
    assert_eq!(enc_tokens.as_array().unwrap().len(), 4);
    let cross = &trace["decoder"]["blocks"][1]["cross_attn"]["inner"];
    // [H, T_q, T_k] = [4, 5 (<bos> + 4), 4]
    let w = cross["weights"].as_array().unwrap();
    assert_eq!(w.len(), 4);
    assert_eq!(w[0].as_array().unwrap().len(), 5);
    assert_eq!(w[0][0].as_array().unwrap().len(), 4);
    let row_sum: f64 = w[2][3]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .sum();
    assert!((row_sum - 1.0).abs() < 1e-5);
    for key in [
        "q", "k", "v", "scores", "scaled", "mask", "logits", "head_out", "concat", "out",
    ] {
        assert!(!cross[key].is_null(), "cross-attention trace lacks {key}");
    }
    let self_attn = &trace["decoder"]["blocks"][0]["self_attn"];
    assert!(self_attn["norm"]["mean"].is_array() && self_attn["residual"].is_array());
    // Masked scores are −∞, written as null in JSON.
    assert!(self_attn["inner"]["logits"][0][0][1].is_null());
    assert_eq!(trace["logits"].as_array().unwrap().len(), 5);
}

#[test]
fn attn_marks_unknown_and_truncated_input() {
    let v = json(&[
        "attn",
        "--model",
        "demo-decoder",
        "--input",
        "héllo 💥",
        "--json",
    ]);
    assert_eq!(v["unknown_tokens"], 2);
    let tokens = v["trace"]["decoder"]["tokens"].as_array().unwrap();
    assert_eq!(tokens[0], "<bos>");
    assert_eq!(tokens[2], "<unk>");
    let long = "a".repeat(500);
    let v = json(&[
        "attn",
        "--model",
        "demo-decoder",
        "--input",
        &long,
        "--json",
    ]);
    assert_eq!(v["truncated_tokens"], 501 - 64);
}

#[test]
fn pe_sinusoidal_and_rope_tables() {
    let v = json(&[
        "pe",
        "--kind",
        "sinusoidal",
        "--dim",
        "4",
        "--positions",
        "3",
        "--json",
    ]);
    assert_eq!(v["encodings"][0], serde_json::json!([0.0, 1.0, 0.0, 1.0]));
    assert_eq!(v["encodings"].as_array().unwrap().len(), 3);
    let dir = std::env::temp_dir().join(format!("glimpse-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("rows.json");
    // Three tokens × four dimensions, the textbook RoPE table.
    std::fs::write(&file, "[[1,0,1,0],[1,0,1,0],[1,0,1,0]]").unwrap();
    let v = json(&[
        "pe",
        "--kind",
        "rope",
        "--positions",
        "0..3",
        "--apply",
        file.to_str().unwrap(),
        "--json",
    ]);
    let rot = &v["rotated"];
    assert_eq!(rot[0], serde_json::json!([1.0, 0.0, 1.0, 0.0]));
    let (c, s) = (rot[2][0].as_f64().unwrap(), rot[2][1].as_f64().unwrap());
    assert!((c - 2f64.cos()).abs() < 1e-6 && (s - 2f64.sin()).abs() < 1e-6);
    // Pair 1 turns at 10000^(-2/4) = 0.01 rad per position.
    assert!((rot[2][3].as_f64().unwrap() - 0.02f64.sin()).abs() < 1e-6);
    std::fs::remove_dir_all(&dir).ok();
    let v = json(&[
        "pe",
        "--kind",
        "alibi",
        "--heads",
        "2",
        "--positions",
        "3",
        "--json",
    ]);
    assert_eq!(v["slopes"], serde_json::json!([0.0625, 0.00390625]));
    let v = json(&["pe", "--kind", "learned", "--positions", "0,63", "--json"]);
    assert_eq!(v["encodings"].as_array().unwrap().len(), 2);
}

/// Without `--json`, `pe` prints tables a person reads, like every other subcommand.
#[test]
fn pe_without_json_prints_a_table() {
    let out = glimpse(&[
        "pe",
        "--kind",
        "sinusoidal",
        "--dim",
        "4",
        "--positions",
        "0,2",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        serde_json::from_slice::<serde_json::Value>(&out.stdout).is_err(),
        "{text}"
    );
    assert!(text.contains("kind sinusoidal"), "{text}");
    // sin(2·1) = 0.9093 and cos(2·1) = -0.4161 in the first band at position 2.
    assert!(text.contains("pos 2      0.9093    -0.4161"), "{text}");
    assert!(text.contains("wavelengths:"), "{text}");
}

/// `--layers 1 --heads 0,2` keeps exactly layer 1 and heads 0 and 2, named as such.
#[test]
fn attn_keeps_the_layers_and_heads_asked_for() {
    let v = json(&[
        "attn",
        "--model",
        "demo-decoder",
        "--input",
        "abcd",
        "--layers",
        "1",
        "--heads",
        "0,2",
        "--json",
    ]);
    assert_eq!(v["layers_shown"], serde_json::json!([1]));
    assert_eq!(v["heads_shown"], serde_json::json!([0, 2]));
    let blocks = v["trace"]["decoder"]["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 1);
    let weights = blocks[0]["self_attn"]["inner"]["weights"]
        .as_array()
        .unwrap();
    assert_eq!(weights.len(), 2);
    let out = glimpse(&[
        "attn",
        "--model",
        "demo-decoder",
        "--input",
        "abcd",
        "--layers",
        "1",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("layer 1 head 0") && !text.contains("layer 0 head"),
        "{text}"
    );
}

#[test]
fn bad_cli_input_fails_cleanly() {
    fails(
        &["attn", "--model", "nope", "--input", "x"],
        "no model named `nope`",
    );
    fails(
        &["attn", "--model", "demo-decoder", "--input", "", "--json"],
        "empty",
    );
    fails(
        &[
            "attn",
            "--model",
            "demo-translate",
            "--input",
            "la",
            "--temperature=-1",
        ],
        "temperature",
    );
    fails(
        &["pe", "--kind", "sinusoidal", "--positions", "4"],
        "--dim is required",
    );
    fails(
        &["pe", "--kind", "rope", "--dim", "3", "--positions", "4"],
        "even",
    );
    fails(
        &[
            "pe",
            "--kind",
            "sinusoidal",
            "--dim",
            "4",
            "--positions",
            "9..2",
        ],
        "before the start",
    );
    fails(
        &[
            "pe",
            "--kind",
            "sinusoidal",
            "--dim",
            "4",
            "--positions",
            "abc",
        ],
        "not a non-negative whole number",
    );
    fails(
        &[
            "pe",
            "--kind",
            "rope",
            "--positions",
            "2",
            "--apply",
            "/nonexistent/rows.json",
        ],
        "could not read",
    );
    fails(
        &["pe", "--kind", "learned", "--positions", "100"],
        "past the learned table",
    );
    fails(
        &["pe", "--kind", "bogus", "--positions", "2"],
        "invalid value",
    );
    fails(&["attn"], "--model");
}

#[test]
fn corrupt_checkpoints_are_refused_with_the_reason() {
    let dir = std::env::temp_dir().join(format!("glimpse-cli-ckpt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stem = dir.join("m");
    let model = glimpse::model::builtin::load("demo-decoder").unwrap();
    glimpse::model::checkpoint::save_path(&model, &stem).unwrap();
    let path = stem.to_str().unwrap();
    let ok = json(&["attn", "--model", path, "--input", "abc", "--json"]);
    assert_eq!(ok["model"], "demo-decoder");
    let weights = dir.join("m.safetensors");
    let bytes = std::fs::read(&weights).unwrap();
    std::fs::write(&weights, &bytes[..bytes.len() / 3]).unwrap();
    fails(
        &["attn", "--model", path, "--input", "abc"],
        "not a valid safetensors file",
    );
    std::fs::write(&weights, &bytes).unwrap();
    std::fs::write(dir.join("m.json"), "{\"format\": \"glimpse-model\"").unwrap();
    fails(&["attn", "--model", path, "--input", "abc"], "config JSON");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn train_writes_a_model_and_recipe_that_eval_reads() {
    let dir = std::env::temp_dir().join(format!("glimpse-cli-train-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("copy");
    let out_s = out.to_str().unwrap();
    let recipe = json(&[
        "train", "--task", "copy", "--steps", "20", "--seed", "3", "--out", out_s, "--quiet",
    ]);
    assert_eq!(recipe["config"]["task"], "copy");
    assert_eq!(recipe["steps"], 20);
    assert!(recipe["held_out"]["token_accuracy"].as_f64().unwrap() >= 0.0);
    assert!(dir.join("copy.safetensors").exists() && dir.join("copy.recipe.json").exists());
    let stats = json(&["eval", "--model", out_s, "--examples", "50", "--json"]);
    assert_eq!(stats["examples"], 50);
    fails(
        &["eval", "--model", out_s, "--task", "translate"],
        "not built for the translate task",
    );
    // A recipe that names no task says so; with none at all, the tasks of the model's
    // vocabulary are named.
    let recipe_file = dir.join("copy.recipe.json");
    std::fs::write(&recipe_file, r#"{"command": "glimpse train"}"#).unwrap();
    fails(&["eval", "--model", out_s], "names no task");
    std::fs::remove_file(&recipe_file).unwrap();
    let err = String::from_utf8_lossy(&glimpse(&["eval", "--model", out_s]).stderr).to_string();
    let tasks = err
        .split("its vocabulary is that of")
        .nth(1)
        .unwrap_or_default();
    assert!(
        err.contains("no recipe beside") && err.contains("pass --task") && tasks.contains("copy"),
        "{err}"
    );
    assert_eq!(
        json(&[
            "eval",
            "--model",
            out_s,
            "--task",
            "copy",
            "--examples",
            "5",
            "--json"
        ])["examples"],
        5
    );
    fails(
        &["train", "--task", "juggle", "--out", out_s],
        "unknown task `juggle`",
    );
    fails(
        &["train", "--task", "copy", "--steps", "0", "--out", out_s],
        "--steps 0",
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A few kilobytes of English for `train-lm` (the real corpus comes from
/// scripts/fetch_data.sh; training on it is a recipe, not a test).
const SPEECH: &str = "We the People of the United States, in Order to form a more perfect Union, \
establish Justice, insure domestic Tranquility, provide for the common defence, promote the \
general Welfare, and secure the Blessings of Liberty to ourselves and our Posterity, do ordain \
and establish this Constitution for the United States of America.\n";

/// An LM config small enough to train in a test: one block of width 16, `steps` steps.
fn tiny_lm_config(steps: u32) -> serde_json::Value {
    serde_json::json!({
        "d_model": 16, "n_heads": 2, "n_layers": 1, "d_ff": 32, "context": 16, "batch_size": 4,
        "schedule": {"kind": "warmup_cosine", "peak": 0.01, "floor": 0.001, "warmup": 5, "total": steps},
        "clip_norm": 1.0,
        "adam": {"beta1": 0.9, "beta2": 0.98, "eps": 1e-8, "weight_decay": 0.0},
        "seed": 1
    })
}

#[test]
fn train_lm_writes_a_model_its_tokenizer_and_recipe_that_eval_text_reads() {
    let dir = std::env::temp_dir().join(format!("glimpse-cli-lm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let train = SPEECH.repeat(40);
    std::fs::write(dir.join("train.txt"), &train).unwrap();
    let held = "The People of the United States establish this Union for the common Welfare.\n";
    std::fs::write(dir.join("heldout.txt"), held).unwrap();
    std::fs::write(dir.join("cfg.json"), tiny_lm_config(60).to_string()).unwrap();
    let out = dir.join("lm");
    let (d, o, c) = (
        dir.to_str().unwrap(),
        out.to_str().unwrap(),
        dir.join("cfg.json"),
    );
    let recipe = json(&[
        "train-lm",
        "--data",
        d,
        "--out",
        o,
        "--steps",
        "60",
        "--vocab",
        "300",
        "--config",
        c.to_str().unwrap(),
        "--log-every",
        "10",
        "--checkpoint-every",
        "30",
        "--store",
        "q8",
    ]);
    for f in [
        "lm.json",
        "lm.safetensors",
        "lm.tokenizer.json",
        "lm.recipe.json",
    ] {
        assert!(dir.join(f).exists(), "{f} missing");
    }
    // The data hashes are the files' SHA-256, as sha256sum prints them.
    let sha = glimpse::util::sha256::sha256_hex;
    assert_eq!(recipe["data"]["train_sha256"], sha(train.as_bytes()));
    assert_eq!(recipe["data"]["heldout_sha256"], sha(held.as_bytes()));
    assert_eq!(recipe["tokenizer"]["vocab"], 300);
    assert_eq!(recipe["storage"], "q8");
    // Training on a repeated paragraph: the loss falls well below its start (ln 300 ≈ 5.7).
    let curve = recipe["curve"].as_array().unwrap();
    let (first, last) = (
        curve[0]["train_loss"].as_f64().unwrap(),
        curve[curve.len() - 1]["train_loss"].as_f64().unwrap(),
    );
    assert!(last < first - 1.0, "loss {first} → {last}");
    // Both baselines and the model scored the same tokens: all but the first of the stream.
    let h = &recipe["held_out"];
    let n = recipe["data"]["heldout_tokens"].as_u64().unwrap() - 1;
    for k in ["model", "model_f32", "unigram", "bigram_kneser_ney"] {
        assert_eq!(h[k]["tokens"].as_u64(), Some(n), "{k}");
        let p = h[k]["perplexity"].as_f64().unwrap();
        let nats = h[k]["nats_per_token"].as_f64().unwrap();
        assert!(
            p > 1.0 && (p - nats.exp()).abs() < 1e-6 * p,
            "{k}: {p} vs {nats}"
        );
    }
    // eval --text on the saved model (read back with its tokenizer) finds the recipe's figure.
    let e = json(&[
        "eval",
        "--model",
        o,
        "--text",
        dir.join("heldout.txt").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(e["tokens"].as_u64(), Some(n));
    let (got, want) = (
        e["perplexity"].as_f64().unwrap(),
        h["model"]["perplexity"].as_f64().unwrap(),
    );
    assert!((got - want).abs() < 1e-6 * want, "{got} vs {want}");
    assert_eq!(e["context"], 16);
    // Without --text: the recipe's held-out text, found where scripts/fetch_data.sh puts a
    // corpus (`$GLIMPSE_DATA/<the recipe's folder name>`), the recipe's figure again.
    let data = dir.parent().unwrap();
    let e = json_with_data(data, &["eval", "--model", o, "--json"]);
    assert_eq!(e["tokens"].as_u64(), Some(n));
    assert!(
        (e["perplexity"].as_f64().unwrap() - want).abs() < 1e-6 * want,
        "{e}"
    );
    assert_eq!(e["recipe_perplexity"].as_f64(), Some(want));
    assert_eq!(e["file"], dir.join("heldout.txt").to_str().unwrap());
    // Another text in its place is not the recipe's: refused, with the way to score it anyway.
    std::fs::write(dir.join("heldout.txt"), "Some other text.\n").unwrap();
    fails_with_data(data, &["eval", "--model", o], "its SHA-256 differs");
    std::fs::write(dir.join("heldout.txt"), held).unwrap();
    // Any decoder: the built-in character LM scores one token per character after its <bos>.
    let e = json(&[
        "eval",
        "--model",
        "lm",
        "--text",
        dir.join("heldout.txt").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(e["tokens"].as_u64(), Some(held.chars().count() as u64));
    assert!(e["perplexity"].as_f64().unwrap() > 1.0);
    fails(
        &[
            "eval",
            "--model",
            "copy",
            "--text",
            dir.join("heldout.txt").to_str().unwrap(),
        ],
        "not a decoder-only",
    );
    fails(
        &["train-lm", "--data", d, "--out", o, "--store", "q4"],
        "--store q4",
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `train-lm --masked`: an encoder on BERT's task, its tokenizer gaining `<mask>`, scored with the
/// baselines on the same hidden tokens, filling blanks through `fill-mask`; `--init` continues
/// from a decoder with the same tokenizer and refuses one with another.
#[test]
fn train_lm_masked_writes_an_encoder_that_fills_blanks() {
    let dir = std::env::temp_dir().join(format!("glimpse-cli-mlm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("train.txt"), SPEECH.repeat(40)).unwrap();
    let held = "The People of the United States establish this Union for the common Welfare.\n";
    std::fs::write(dir.join("heldout.txt"), held.repeat(4)).unwrap();
    std::fs::write(dir.join("cfg.json"), tiny_lm_config(40).to_string()).unwrap();
    let (d, c) = (dir.to_str().unwrap(), dir.join("cfg.json"));
    let c = c.to_str().unwrap();
    let (causal, masked) = (dir.join("gpt"), dir.join("bert"));
    let (causal, masked) = (causal.to_str().unwrap(), masked.to_str().unwrap());
    let common = [
        "--data",
        d,
        "--config",
        c,
        "--vocab",
        "300",
        "--log-every",
        "10",
    ];
    let run = |extra: &[&str]| {
        let args: Vec<&str> = ["train-lm"]
            .iter()
            .chain(&common)
            .chain(extra)
            .copied()
            .collect();
        json(&args)
    };
    run(&["--out", causal, "--steps", "10"]);
    let tokenizer = format!("{causal}.tokenizer.json");
    let recipe = run(&[
        "--out",
        masked,
        "--steps",
        "40",
        "--masked",
        "0.3",
        "--init",
        causal,
        "--tokenizer",
        &tokenizer,
    ]);
    assert_eq!(recipe["config"]["objective"]["masked"]["rate"], 0.3);
    assert_eq!(
        recipe["tokenizer"]["vocab"], 301,
        "the tokenizer gained <mask>"
    );
    let h = &recipe["held_out"];
    assert!(h["scored"].as_str().unwrap().contains("hidden"));
    let hidden = h["model"]["tokens"].as_u64().unwrap();
    assert!(hidden > 0);
    for k in ["model_f32", "unigram", "bigram_kneser_ney"] {
        assert_eq!(
            h[k]["tokens"].as_u64(),
            Some(hidden),
            "{k}: the same hidden tokens"
        );
    }
    let acc = h["top1_accuracy"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&acc));
    // eval scores the same hidden tokens: on the recipe's held-out text, and on --text.
    let data = dir.parent().unwrap();
    let want = h["model"]["perplexity"].as_f64().unwrap();
    let held_file = dir.join("heldout.txt");
    for e in [
        json_with_data(data, &["eval", "--model", masked, "--json"]),
        json(&[
            "eval",
            "--model",
            masked,
            "--text",
            held_file.to_str().unwrap(),
            "--json",
        ]),
    ] {
        assert_eq!(e["tokens"].as_u64(), Some(hidden), "{e}");
        assert!(
            (e["perplexity"].as_f64().unwrap() - want).abs() < 1e-6 * want,
            "{e}"
        );
        assert_eq!(e["top1_accuracy"].as_f64(), Some(acc), "{e}");
        assert!(e["scored"].as_str().unwrap().contains("hidden"), "{e}");
    }
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{masked}.json")).unwrap()).unwrap();
    assert_eq!(config["family"], "encoder");
    assert_eq!(config["causal"], false);
    let filled = json(&[
        "fill-mask",
        "--model",
        masked,
        "--input",
        "We the <mask> of the United States",
        "--top",
        "3",
        "--json",
    ]);
    let slots = filled.as_array().unwrap();
    assert_eq!(slots.len(), 1);
    assert_eq!(slots[0]["candidates"].as_array().unwrap().len(), 3);
    // The character LM has another tokenizer: its weights cannot start this model.
    fails(
        &[
            "train-lm",
            "--data",
            d,
            "--out",
            masked,
            "--config",
            c,
            "--steps",
            "1",
            "--masked",
            "0.15",
            "--init",
            "lm",
            "--tokenizer",
            &tokenizer,
        ],
        "another tokenizer",
    );
    fails(
        &["train-lm", "--data", d, "--out", masked, "--masked", "1.5"],
        "masking rate",
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The shipped English models are language models: without --text, eval scores them on their
/// recipe's held-out speeches when those are here, and otherwise says so, where the text
/// would be and how to fetch it (never "pass --task", never a parse error).
#[test]
fn eval_of_a_shipped_lm_without_its_text_says_how_to_get_it() {
    let data = std::env::temp_dir().join(format!("glimpse-cli-nodata-{}", std::process::id()));
    std::fs::create_dir_all(&data).unwrap();
    for (model, kind) in [
        ("sotu-lm", "is a language model"),
        ("sotu-mlm", "is a masked language model"),
    ] {
        let err = fails_with_data(&data, &["eval", "--model", model], kind);
        let expected = data.join("sotu").join("heldout.txt");
        for needle in [
            "--text FILE",
            "scripts/fetch_data.sh",
            expected.to_str().unwrap(),
        ] {
            assert!(err.contains(needle), "{model}: {err:?} lacks {needle:?}");
        }
        assert!(
            !err.contains("pass --task") && !err.contains("missing field"),
            "{err}"
        );
        fails_with_data(
            &data,
            &["eval", "--model", model, "--lengths", "3..5"],
            "--lengths measures task models",
        );
    }
    // A trained task built-in finds its task in the recipe compiled in with it.
    let v = json(&["eval", "--model", "copy", "--examples", "20", "--json"]);
    assert_eq!(v["examples"], 20);
    assert!(v["exact_match"].as_f64().unwrap() > 0.9, "{v}");
    std::fs::remove_dir_all(&data).ok();
}

#[test]
fn beam_prints_the_whole_tree() {
    let dir = std::env::temp_dir().join(format!("glimpse-beam-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let table = dir.join("table.txt");
    std::fs::write(
        &table,
        "<bos> -> the 0.5, a 0.4, <eos> 0.1\n<bos> the -> cat 0.4, dog 0.3, <eos> 0.3\n<bos> a -> cat 0.9, <eos> 0.1\n",
    )
    .unwrap();
    let path = table.to_str().unwrap();
    let v = json(&["beam", "--table", path, "--beam", "2", "--json"]);
    let words = |r: &serde_json::Value| -> Vec<String> {
        r["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(words(&v["ranking"][0]), ["a", "cat", "<eos>"]);
    assert_eq!(words(&v["greedy"]), ["the", "cat", "<eos>"]);
    let nodes = v["tree"]["nodes"].as_array().unwrap();
    assert!(nodes.iter().any(|n| n["state"]["state"] == "pruned"));
    for n in &nodes[1..] {
        let parent = &nodes[n["parent"].as_u64().unwrap() as usize];
        let sum = parent["cum"].as_f64().unwrap() + n["log_p"].as_f64().unwrap();
        assert!((n["cum"].as_f64().unwrap() - sum).abs() < 1e-5);
    }
    let v = json(&[
        "beam",
        "--model",
        "translate",
        "--input",
        "la zone économique européenne",
        "--beam",
        "3",
        "--alpha",
        "0.6",
        "--json",
    ]);
    assert_eq!(
        words(&v["ranking"][0]).join(" "),
        "the european economic area <eos>"
    );
    fails(&["beam", "--input", "x"], "--model");
    fails(&["beam", "--table", path, "--beam", "0"], "--beam");
    fails(&["beam", "--table", "/nonexistent/table.txt"], "table.txt");
    std::fs::write(&table, "<bos> the 0.5\n").unwrap();
    fails(&["beam", "--table", path], "line 1");
    fails(&["beam", "--model", "translate", "--input", ""], "source");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bench_forward_times_every_shipped_model() {
    let v = json(&["bench-forward", "--no-large"]);
    let rows = v.as_array().expect("a list");
    let models = json(&["models", "--json"]);
    assert_eq!(rows.len(), models.as_array().expect("models").len());
    for r in rows {
        let ms = r["median_ms"].as_f64().expect("median_ms");
        assert!(ms > 0.0 && ms < 1000.0, "{r}");
        assert!(r["runs"].as_u64().expect("runs") >= 15, "{r}");
        assert_cpu(&r["cpu"]);
    }
}

/// A benchmark's `cpu`: the model name, the logical CPUs and the SIMD extensions.
fn assert_cpu(cpu: &serde_json::Value) {
    assert!(
        !cpu["model"].as_str().expect("cpu.model").is_empty(),
        "{cpu}"
    );
    assert!(
        cpu["logical_cpus"].as_u64().expect("cpu.logical_cpus") >= 1,
        "{cpu}"
    );
    for flag in ["avx2", "fma", "avx512f"] {
        assert!(cpu[flag].is_boolean(), "{cpu} lacks {flag}");
    }
}

/// `bench-forward --model` names the CPU in its JSON and, for whoever watches, on stderr.
#[test]
fn bench_forward_names_the_cpu() {
    let out = glimpse(&[
        "bench-forward",
        "--model",
        "lm",
        "--tokens",
        "8",
        "--runs",
        "1",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_cpu(&v["cpu"]);
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("cpu: "))
        .expect("a cpu line");
    assert!(line.contains(v["cpu"]["model"].as_str().unwrap()), "{line}");
    assert!(
        line.contains("avx2") && line.contains("logical CPU"),
        "{line}"
    );
}

/// `bench-gpu --model` times one model both ways on English (a built-in here; the real
/// checkpoints in the README): a comparison with both medians and the logits' difference, or,
/// without any adapter, a clear failure. A bad length is refused either way.
#[test]
fn bench_gpu_times_one_model_both_ways() {
    let out = glimpse(&["bench-gpu", "--model", "lm", "--tokens", "8", "--runs", "1"]);
    if out.status.success() {
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_cpu(&v["cpu"]);
        let c = &v["comparisons"][0];
        assert_eq!(c["model"], "lm");
        assert_eq!(c["tokens"], 8);
        assert!(c["cpu_ms"].as_f64().unwrap() > 0.0 && c["gpu_ms"].as_f64().unwrap() > 0.0);
        assert!(c["max_logit_error"].as_f64().unwrap() < 1e-3, "{c}");
        let weights = c["max_weight_error"].as_f64().unwrap();
        assert!(
            weights >= c["max_logit_error"].as_f64().unwrap() && weights < 1e-3,
            "{c}"
        );
    } else {
        let required = std::env::var("GLIMPSE_REQUIRE_GPU").is_ok_and(|v| v == "1");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!required && !err.contains("panicked"), "{err}");
    }
    fails(
        &["bench-gpu", "--model", "lm", "--tokens", "0"],
        "--tokens 0",
    );
}
