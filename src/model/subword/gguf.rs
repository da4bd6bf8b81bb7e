//! The byte-level BPE tokenizer a GGUF file describes in its metadata (`tokenizer.ggml.*`),
//! written out as the `tokenizer.json` it stands for, so that it passes through the same checks
//! and the same loader as a Hugging Face file.
//!
//! `tokenizer.ggml.pre` names the pre-tokenizer, i.e. how text is cut before the merges run.
//! The names and their splits follow llama.cpp (`llama-vocab.cpp`), which writes these files:
//! GPT-2's split for `gpt-2` and kin; llama.cpp's StarCoder family (`smollm`, `starcoder`,
//! `refact`, …) first isolates every digit, then applies GPT-2's split, which is what those
//! models' own `tokenizer.json` does (`Digits` then `ByteLevel`); Llama 3 and Qwen 2 use their
//! own regular expressions.

use super::display::is_byte_level;
use super::validate::{MAX_MERGES, MAX_TOKEN_BYTES, MAX_VOCAB};
use super::SubwordError;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// What a byte-level BPE tokenizer needs of a GGUF file's tokenizer metadata (the reader's
/// `import::GgufTokenizerData` converts into it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GgufVocabulary {
    /// `tokenizer.ggml.model`: only "gpt2" (byte-level BPE) is supported.
    pub model: String,
    /// `tokenizer.ggml.pre`: the pre-tokenizer's name ("smollm", "llama-bpe", "gpt-2", …).
    pub pre: Option<String>,
    /// `tokenizer.ggml.tokens`: token `i` has id `i`.
    pub tokens: Vec<String>,
    /// `tokenizer.ggml.token_type`, one per token (empty when absent): 1 normal, 2 unknown,
    /// 3 control, 4 user-defined, 5 unused, 6 byte.
    pub token_types: Vec<i32>,
    /// `tokenizer.ggml.merges`, each "left right", best first.
    pub merges: Vec<String>,
    pub bos: Option<u32>,
    pub eos: Option<u32>,
    pub unk: Option<u32>,
    pub pad: Option<u32>,
    /// `tokenizer.ggml.add_bos_token` / `add_eos_token`: put BOS before (EOS after) each text.
    pub add_bos: bool,
    pub add_eos: bool,
}

const CONTROL: i32 = 3;
const USER_DEFINED: i32 = 4;

/// GPT-2's split (also what `ByteLevel` with `use_regex` applies).
const GPT2: &str = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";
/// Llama 3's split, as in its `tokenizer.json`.
const LLAMA3: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// Qwen 2's split: Llama 3's with single digits.
const QWEN2: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// llama.cpp's fallback for files without a known name, applied one after the other.
const DEFAULT: [&str; 4] = [r"[\p{P}\$\+<=>\^~\|]+", GPT2, r"\p{N}+", r"[0-9][0-9][0-9]"];

/// The pre-tokenizer names Glimpse knows, for messages.
pub const KNOWN_PRE: &str = "gpt2, gpt-2, phi-2, mpt, olmo, smollm, starcoder, refact, command-r, \
codeshell, exaone, minerva-7b, llama3, llama-v3, llama-bpe, falcon3, dbrx, smaug-bpe, qwen2, \
deepseek-r1-qwen, stablelm2, megrez, default";

fn split(regex: &str) -> Value {
    json!({"type": "Split", "pattern": {"Regex": regex}, "behavior": "Isolated", "invert": false})
}

fn byte_level(use_regex: bool) -> Value {
    json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": use_regex})
}

/// The pre-tokenizer for a `tokenizer.ggml.pre` name, and whether the BPE model looks whole
/// pre-tokens up before merging (`ignore_merges`, set by llama.cpp for the Llama 3 family).
fn pre_tokenizer(pre: Option<&str>) -> Result<(Value, bool), SubwordError> {
    let seq = |list: Vec<Value>| json!({"type": "Sequence", "pretokenizers": list});
    Ok(match pre.unwrap_or("default") {
        "gpt2" | "gpt-2" | "phi-2" | "mpt" | "olmo" => (byte_level(true), false),
        "smollm" | "starcoder" | "refact" | "command-r" | "codeshell" | "exaone" | "minerva-7b" => {
            (
                seq(vec![
                    json!({"type": "Digits", "individual_digits": true}),
                    byte_level(true),
                ]),
                false,
            )
        }
        "llama3" | "llama-v3" | "llama-bpe" | "falcon3" => {
            (seq(vec![split(LLAMA3), byte_level(false)]), true)
        }
        "dbrx" | "smaug-bpe" => (seq(vec![split(LLAMA3), byte_level(false)]), false),
        "qwen2" | "deepseek-r1-qwen" | "stablelm2" | "megrez" => {
            (seq(vec![split(QWEN2), byte_level(false)]), false)
        }
        "default" | "" => {
            let mut list: Vec<Value> = DEFAULT.iter().map(|r| split(r)).collect();
            list.push(byte_level(false));
            (seq(list), false)
        }
        other => {
            return Err(SubwordError::Unsupported(format!(
                "GGUF pre-tokenizer `{other}` (known: {KNOWN_PRE})"
            )))
        }
    })
}

fn gguf_err(msg: impl Into<String>) -> SubwordError {
    SubwordError::Gguf(msg.into())
}

/// The `tokenizer.json` that `data` stands for, checked for what the GGUF metadata can get wrong.
pub fn to_json(data: &GgufVocabulary) -> Result<Value, SubwordError> {
    if data.model != "gpt2" {
        return Err(SubwordError::Unsupported(format!(
            "GGUF tokenizer model `{}`: only \"gpt2\" (byte-level BPE) is supported",
            data.model
        )));
    }
    let n = data.tokens.len();
    if n == 0 || n > MAX_VOCAB {
        return Err(gguf_err(format!("{n} tokens (expected 1 to {MAX_VOCAB})")));
    }
    if !data.token_types.is_empty() && data.token_types.len() != n {
        return Err(gguf_err(format!(
            "{} token types for {n} tokens",
            data.token_types.len()
        )));
    }
    if data.merges.len() > MAX_MERGES {
        return Err(gguf_err(format!(
            "{} merges, more than {MAX_MERGES}",
            data.merges.len()
        )));
    }
    for (name, id) in [
        ("bos", data.bos),
        ("eos", data.eos),
        ("unk", data.unk),
        ("pad", data.pad),
    ] {
        if let Some(id) = id.filter(|&id| id as usize >= n) {
            return Err(gguf_err(format!(
                "{name} id {id} is not one of the {n} tokens"
            )));
        }
    }
    // Tokens are stored in the byte-level alphabet; one that is not (a raw space, say) is respelled
    // from its UTF-8 bytes, as transformers does when it reads the file.
    let mut vocab = Map::with_capacity(n);
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(n);
    for (id, token) in data.tokens.iter().enumerate() {
        if token.is_empty() || token.len() > MAX_TOKEN_BYTES {
            return Err(gguf_err(format!("token {id} is empty or too long")));
        }
        if let Some(first) = seen.insert(token, id) {
            return Err(gguf_err(format!(
                "token {token:?} appears twice (ids {first} and {id})"
            )));
        }
        let spelled = if is_byte_level(token) {
            token.clone()
        } else {
            let table = super::display::byte_to_char();
            token.bytes().map(|b| table[b as usize]).collect()
        };
        if vocab.insert(spelled, json!(id)).is_some() {
            return Err(gguf_err(format!(
                "token {id} ({token:?}) repeats another once respelled"
            )));
        }
    }
    let mut merges = Vec::with_capacity(data.merges.len());
    for (i, m) in data.merges.iter().enumerate() {
        let mut parts = m.split(' ');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(a), Some(b), None) if !a.is_empty() && !b.is_empty() => {
                merges.push(json!([a, b]));
            }
            _ => return Err(gguf_err(format!("merge {i} ({m:?}) is not two tokens"))),
        }
    }
    // Control tokens become special added tokens and user-defined ones plain added tokens, so
    // text naming them is matched whole (llama.cpp does the same); like transformers, only those
    // spelled in the byte-level alphabet.
    let mut added = Vec::new();
    for (id, (token, &kind)) in data.tokens.iter().zip(&data.token_types).enumerate() {
        if (kind == CONTROL || kind == USER_DEFINED) && is_byte_level(token) {
            added.push(json!({
                "id": id, "content": token, "single_word": false, "lstrip": false,
                "rstrip": false, "normalized": false, "special": kind == CONTROL,
            }));
        }
    }
    let (pre, ignore_merges) = pre_tokenizer(data.pre.as_deref())?;
    Ok(json!({
        "version": "1.0",
        "added_tokens": added,
        "normalizer": null,
        "pre_tokenizer": pre,
        "post_processor": template(data)?,
        "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
        "model": {
            "type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
            "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false,
            "ignore_merges": ignore_merges, "vocab": vocab, "merges": merges,
        },
    }))
}

/// BOS/EOS around each text as the file asks, in the form transformers writes: `bos $A eos` and
/// `bos $A eos bos:1 $B:1 eos:1`.
fn template(data: &GgufVocabulary) -> Result<Value, SubwordError> {
    let mut specials = Map::new();
    let mut wrap =
        |flag: bool, id: Option<u32>, name: &str| -> Result<Option<String>, SubwordError> {
            if !flag {
                return Ok(None);
            }
            let id = id.ok_or_else(|| {
                gguf_err(format!("add_{name}_token is set but there is no {name} id"))
            })?;
            let token = data
                .tokens
                .get(id as usize)
                .ok_or_else(|| gguf_err(format!("{name} id {id} is not a token")))?;
            specials.insert(
                token.clone(),
                json!({"id": token, "ids": [id], "tokens": [token]}),
            );
            Ok(Some(token.clone()))
        };
    let bos = wrap(data.add_bos, data.bos, "bos")?;
    let eos = wrap(data.add_eos, data.eos, "eos")?;
    let seq = |id: &str, type_id: u32| json!({"Sequence": {"id": id, "type_id": type_id}});
    let tok = |t: &String, type_id: u32| json!({"SpecialToken": {"id": t, "type_id": type_id}});
    let mut single = Vec::new();
    let mut pair = Vec::new();
    for (list, sequences) in [(&mut single, &["A"][..]), (&mut pair, &["A", "B"][..])] {
        for (type_id, s) in sequences.iter().enumerate() {
            let type_id = type_id as u32;
            list.extend(bos.iter().map(|t| tok(t, type_id)));
            list.push(seq(s, type_id));
            list.extend(eos.iter().map(|t| tok(t, type_id)));
        }
    }
    Ok(
        json!({"type": "TemplateProcessing", "single": single, "pair": pair, "special_tokens": specials}),
    )
}

impl From<&crate::model::import::GgufTokenizerData> for GgufVocabulary {
    fn from(d: &crate::model::import::GgufTokenizerData) -> Self {
        Self {
            model: d.model.clone(),
            pre: d.pre.clone(),
            tokens: d.tokens.clone(),
            token_types: d.token_type.clone().unwrap_or_default(),
            merges: d.merges.clone().unwrap_or_default(),
            bos: d.bos,
            eos: d.eos,
            unk: d.unk,
            pad: d.pad,
            add_bos: d.add_bos_token.unwrap_or(false),
            add_eos: d.add_eos_token.unwrap_or(false),
        }
    }
}
