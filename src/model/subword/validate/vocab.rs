//! The tokenizer's model (WordPiece, BPE: vocabulary, merges, unknown token) and its added
//! tokens, checked where the crate would index with them.

use super::fields::{
    arr, bad, id_of, obj, opt_bool, opt_str, opt_u64, req_str, type_of, unsupported,
};
use super::{
    Checked, SubwordError, MAX_ADDED, MAX_ID, MAX_MERGES, MAX_TOKEN_BYTES, MAX_VOCAB,
    MAX_WORDPIECE_CHARS,
};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

pub(super) fn check_model(model: &Value, out: &mut Checked) -> Result<(), SubwordError> {
    let path = "model";
    let m = obj(model, path)?;
    // Files written before the `type` tag: the crate guesses from the fields, so do the same.
    let kind = match m.get("type") {
        Some(_) => type_of(m, path)?,
        None if m.contains_key("merges") => "BPE",
        None if m.contains_key("max_input_chars_per_word") => "WordPiece",
        None => return Err(bad(path, "has no `type`")),
    };
    match kind {
        "WordPiece" => check_wordpiece(m, out),
        "BPE" => check_bpe(m, out),
        "Unigram" => Err(unsupported(
            path,
            "Unigram (SentencePiece unigram, as in T5, ALBERT, XLM-R) is not supported; \
             Glimpse reads WordPiece and BPE tokenizers",
        )),
        "WordLevel" => Err(unsupported(
            path,
            "WordLevel is not supported; Glimpse reads WordPiece and BPE tokenizers",
        )),
        other => Err(unsupported(path, format!("unknown model type `{other}`"))),
    }
}

/// The vocabulary object: token → unique id.
fn read_vocab(m: &Map<String, Value>, out: &mut Checked) -> Result<(), SubwordError> {
    let path = "model.vocab";
    let v = obj(
        m.get("vocab")
            .ok_or_else(|| bad("model", "has no `vocab`"))?,
        path,
    )?;
    if v.is_empty() {
        return Err(bad(path, "is empty"));
    }
    if v.len() > MAX_VOCAB {
        return Err(bad(
            path,
            format!("{} tokens, more than {MAX_VOCAB}", v.len()),
        ));
    }
    out.model_tokens.reserve(v.len());
    for (token, id) in v {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(bad(path, format!("a token of {} bytes", token.len())));
        }
        let id = match id.as_u64() {
            Some(id) if id < u64::from(MAX_ID) => id as u32,
            _ => {
                return Err(bad(
                    path,
                    format!("{token:?} has id {id}, not an integer below {MAX_ID}"),
                ))
            }
        };
        if let Some(other) = out.model_tokens.insert(id, token.clone()) {
            return Err(bad(
                path,
                format!("id {id} is given to both {other:?} and {token:?}"),
            ));
        }
    }
    Ok(())
}

fn check_wordpiece(m: &Map<String, Value>, out: &mut Checked) -> Result<(), SubwordError> {
    let path = "model";
    out.model_type = "WordPiece";
    read_vocab(m, out)?;
    // The crate insists on these fields; say which one is missing rather than its serde error.
    let unk = req_str(m, "unk_token", path)?;
    req_str(m, "continuing_subword_prefix", path)?;
    let max = opt_u64(m, "max_input_chars_per_word", path)?
        .ok_or_else(|| bad(path, "`max_input_chars_per_word` is missing"))?;
    if max > MAX_WORDPIECE_CHARS {
        return Err(bad(
            path,
            format!("max_input_chars_per_word {max} is more than {MAX_WORDPIECE_CHARS}"),
        ));
    }
    if !out.model_tokens.values().any(|t| t == unk) {
        return Err(bad(
            path,
            format!("unk_token {unk:?} is not in the vocabulary"),
        ));
    }
    out.unk_token = Some(unk.to_string());
    Ok(())
}

fn check_bpe(m: &Map<String, Value>, out: &mut Checked) -> Result<(), SubwordError> {
    let path = "model";
    out.model_type = "BPE";
    read_vocab(m, out)?;
    if let Some(v) = m.get("dropout") {
        match v.as_f64() {
            None if v.is_null() => {}
            Some(0.0) => {}
            _ => {
                return Err(unsupported(
                    path,
                    "BPE dropout (random merges, for training) is not supported",
                ))
            }
        }
    }
    for key in ["fuse_unk", "byte_fallback", "ignore_merges"] {
        opt_bool(m, key, path)?;
    }
    if opt_bool(m, "byte_fallback", path)? == Some(true) {
        out.metaspace = true;
    }
    let prefix = opt_str(m, "continuing_subword_prefix", path)?.unwrap_or("");
    opt_str(m, "end_of_word_suffix", path)?;
    let vocab: HashMap<&str, u32> = out
        .model_tokens
        .iter()
        .map(|(id, t)| (t.as_str(), *id))
        .collect();
    if let Some(unk) = opt_str(m, "unk_token", path)? {
        if !vocab.contains_key(unk) {
            return Err(bad(
                path,
                format!("unk_token {unk:?} is not in the vocabulary"),
            ));
        }
        out.unk_token = Some(unk.to_string());
    }
    let merges = arr(
        m.get("merges")
            .ok_or_else(|| bad(path, "has no `merges`"))?,
        "model.merges",
        MAX_MERGES,
    )?;
    // The crate accepts all-pairs or all-strings ("a b"), not a mix.
    let strings = merges.first().is_some_and(Value::is_string);
    for (i, merge) in merges.iter().enumerate() {
        let here = || format!("model.merges[{i}]");
        let (a, b) = match merge {
            Value::String(line) if strings => {
                if line.starts_with("#version") {
                    continue;
                }
                let mut parts = line.split(' ');
                match (parts.next(), parts.next(), parts.next()) {
                    (Some(a), Some(b), None) => (a, b),
                    _ => return Err(bad(&here(), format!("{line:?} is not two tokens"))),
                }
            }
            Value::Array(pair) if !strings => match pair.as_slice() {
                [Value::String(a), Value::String(b)] => (a.as_str(), b.as_str()),
                _ => return Err(bad(&here(), "is not a pair of strings")),
            },
            _ => return Err(bad(&here(), "merges mix pairs and strings")),
        };
        check_merge(a, b, prefix, &vocab).map_err(|e| bad(&here(), e))?;
    }
    Ok(())
}

/// The crate joins `a` with `b` minus the continuing-subword prefix's byte length and looks the
/// result up; it slices without checking, so every step is checked here.
fn check_merge(a: &str, b: &str, prefix: &str, vocab: &HashMap<&str, u32>) -> Result<(), String> {
    for part in [a, b] {
        if !vocab.contains_key(part) {
            return Err(format!("{part:?} is not in the vocabulary"));
        }
    }
    let cut = prefix.len();
    if b.len() < cut || !b.is_char_boundary(cut) {
        return Err(format!(
            "{b:?} does not start with the continuing-subword prefix {prefix:?}"
        ));
    }
    let joined = format!("{a}{}", &b[cut..]);
    if !vocab.contains_key(joined.as_str()) {
        return Err(format!(
            "merging {a:?} and {b:?} gives {joined:?}, which is not in the vocabulary"
        ));
    }
    Ok(())
}

/// Added tokens: the crate ignores the ids in the file and numbers them itself (the model's id
/// when the content is in its vocabulary, else the next free one after the vocabulary's length),
/// so the file's ids must be exactly those or the file means something other than it says.
pub(super) fn check_added(
    v: Option<&Value>,
    out: &Checked,
    vocab: &HashMap<&str, u32>,
) -> Result<HashSet<u32>, SubwordError> {
    let mut ids = HashSet::new();
    let list = match v {
        None | Some(Value::Null) => return Ok(ids),
        Some(v) => arr(v, "added_tokens", MAX_ADDED)?,
    };
    let mut assigned: HashMap<&str, u32> = HashMap::new();
    let mut next = out.model_tokens.len() as u64;
    for (i, t) in list.iter().enumerate() {
        let path = format!("added_tokens[{i}]");
        let m = obj(t, &path)?;
        let content = req_str(m, "content", &path)?;
        let id = id_of(m.get("id").ok_or_else(|| bad(&path, "has no `id`"))?, &path)?;
        for key in ["single_word", "lstrip", "rstrip", "normalized", "special"] {
            opt_bool(m, key, &path)?;
        }
        if content.is_empty() {
            // The crate skips it; so does Glimpse.
            continue;
        }
        let expected = match assigned.get(content).or_else(|| vocab.get(content)) {
            Some(&id) => id,
            None => {
                let id = next;
                next += 1;
                if id >= u64::from(MAX_ID) {
                    return Err(bad(&path, "too many tokens"));
                }
                id as u32
            }
        };
        if id != expected {
            return Err(bad(
                &path,
                format!(
                    "{content:?} has id {id} in the file, but the tokenizer would give it id {expected} \
                     (ids of added tokens must follow the vocabulary)"
                ),
            ));
        }
        if !vocab.contains_key(content) && out.model_tokens.contains_key(&id) {
            return Err(bad(
                &path,
                format!("{content:?} would take id {id}, which the vocabulary already uses"),
            ));
        }
        assigned.insert(content, id);
        ids.insert(id);
    }
    Ok(ids)
}
