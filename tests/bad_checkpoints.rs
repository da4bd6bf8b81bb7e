//! Real-checkpoint folders a user might hand Glimpse that are wrong in one way each: every
//! one is refused with a message naming the problem, and nothing panics. (The file formats'
//! own hostile inputs, byte by byte, are tested in `model::import`.)

use glimpse::model::import::open::open_path;
use std::path::{Path, PathBuf};

/// A copy of a tiny fixture checkpoint in a fresh temporary folder, changed by `edit`.
fn broken(fixture: &str, tag: &str, edit: impl FnOnce(&Path)) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hf")
        .join(fixture);
    let dir = std::env::temp_dir().join(format!("glimpse-bad-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["config.json", "model.safetensors", "tokenizer.json"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    edit(&dir);
    dir
}

fn edit_config(dir: &Path, change: impl FnOnce(&mut serde_json::Value)) {
    let path = dir.join("config.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    change(&mut v);
    std::fs::write(path, v.to_string()).unwrap();
}

fn refused(dir: &Path, needle: &str) {
    let result = std::panic::catch_unwind(|| open_path(dir, &mut |_| {}));
    let Ok(result) = result else {
        panic!("{}: opening panicked", dir.display());
    };
    let Err(e) = result else {
        panic!("{}: opened, but should be refused", dir.display());
    };
    let msg = e.to_string();
    assert!(
        msg.contains(needle),
        "{}: {msg:?} lacks {needle:?}",
        dir.display()
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn missing_files_are_named() {
    let d = broken("gpt2", "no-tokenizer", |d| {
        std::fs::remove_file(d.join("tokenizer.json")).unwrap()
    });
    refused(&d, "tokenizer.json");
    let d = broken("gpt2", "no-config", |d| {
        std::fs::remove_file(d.join("config.json")).unwrap()
    });
    refused(&d, "config.json");
    let d = broken("gpt2", "no-weights", |d| {
        std::fs::remove_file(d.join("model.safetensors")).unwrap()
    });
    refused(&d, "safetensors");
}

#[test]
fn pickled_weights_are_refused() {
    let d = broken("gpt2", "pickle", |d| {
        std::fs::remove_file(d.join("model.safetensors")).unwrap();
        std::fs::write(d.join("pytorch_model.bin"), [0x80, 2, b'}', b'.']).unwrap();
    });
    refused(&d, "pickle");
}

#[test]
fn unsupported_architectures_list_the_supported_ones() {
    let d = broken("gpt2", "t5", |d| {
        edit_config(d, |v| v["model_type"] = "t5".into())
    });
    refused(&d, "bert");
}

#[test]
fn shapes_that_do_not_match_the_config_name_the_tensor() {
    let d = broken("llama-gqa", "shape", |d| {
        edit_config(d, |v| v["intermediate_size"] = 40.into())
    });
    refused(&d, "mlp");
    let d = broken("gpt2", "layers", |d| {
        edit_config(d, |v| v["n_layer"] = 3.into())
    });
    refused(&d, "h.2");
}

#[test]
fn a_tokenizer_larger_than_the_model_is_refused() {
    // The tokenizer knows 290 tokens; a model with 100 embedding rows cannot read its ids.
    let d = broken("llama-gqa", "vocab", |d| {
        edit_config(d, |v| v["vocab_size"] = 100.into())
    });
    refused(&d, "100");
}

#[test]
fn impossible_configs_are_refused_before_any_weight_is_read() {
    let d = broken("llama-gqa", "heads", |d| {
        edit_config(d, |v| v["num_key_value_heads"] = 3.into())
    });
    refused(&d, "num_key_value_heads");
    let d = broken("bert-base", "huge", |d| {
        edit_config(d, |v| v["hidden_size"] = (1u64 << 40).into())
    });
    refused(&d, "hidden_size");
}

#[test]
fn nan_weights_are_named() {
    let d = broken("gpt2", "nan", |d| {
        let path = d.join("model.safetensors");
        let mut bytes = std::fs::read(&path).unwrap();
        // The first value of the first tensor after the header: a NaN.
        let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
        bytes[8 + n..8 + n + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        std::fs::write(path, bytes).unwrap();
    });
    refused(&d, "NaN");
}

#[test]
fn a_truncated_weights_file_is_refused() {
    let d = broken("bert-mlm", "truncated", |d| {
        let path = d.join("model.safetensors");
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(path, &bytes[..bytes.len() / 2]).unwrap();
    });
    refused(&d, "model.safetensors");
}

#[test]
fn input_longer_than_the_context_is_cut_and_counted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hf/gpt2");
    let (model, _) = open_path(&dir, &mut |_| {}).unwrap();
    let long = "the cat sat on the mat ".repeat(200);
    let p = model.prepare(&long, "");
    assert_eq!(p.input.target.len(), model.config.max_len);
    assert!(p.truncated > 0);
}
