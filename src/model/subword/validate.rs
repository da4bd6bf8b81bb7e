//! Checks a `tokenizer.json` before the `tokenizers` crate sees it. The crate panics on some
//! crafted files (merges whose parts do not join into a vocabulary token, templates naming
//! missing special tokens, a `Strip` decoder that cuts past the token, …) and in the browser a
//! panic kills the page, so everything the crate would index with is checked here first. Only
//! components whose code was read for such hazards are accepted; the rest are refused by name.

//!
//! [`fields`] reads typed JSON fields; [`vocab`] checks the model (vocabulary, merges) and the
//! added tokens; [`normalizers`] the normalizer and pre-tokenizer; [`decoders`] the decoder and
//! the post-processor.

mod decoders;
mod fields;
mod normalizers;
mod vocab;

use super::{SubwordError, MAX_ID};
use decoders::{check_decoder, check_post_processor};
use fields::{arr, bad, id_of, obj, unsupported};
use normalizers::{check_normalizer, check_pre_tokenizer};
use serde_json::{Map, Value};
use std::collections::HashMap;
use vocab::{check_added, check_model};

/// Largest `tokenizer.json` accepted (Gemma's is ~33 MB).
pub const MAX_FILE_BYTES: usize = 64 << 20;
/// Largest model vocabulary (entries) and merge list.
pub const MAX_VOCAB: usize = 1 << 20;
pub const MAX_MERGES: usize = 1 << 20;
/// Added tokens beyond the model vocabulary.
pub const MAX_ADDED: usize = 1 << 16;
/// Longest token, pattern or literal string in a component, in bytes.
pub const MAX_TOKEN_BYTES: usize = 4096;
/// WordPiece's search is cubic in the word length; real files use 100.
pub const MAX_WORDPIECE_CHARS: u64 = 1000;
const MAX_NESTING: usize = 4;
const MAX_SEQUENCE: usize = 64;
const MAX_TEMPLATE: usize = 64;

/// What the checks learned, for the loader.
#[derive(Debug, Default)]
pub struct Checked {
    /// Model vocabulary: id → token, every id unique.
    pub model_tokens: HashMap<u32, String>,
    /// `unk_token` of the model, when it has one.
    pub unk_token: Option<String>,
    /// Special tokens the post-processor puts before and after the text (single-sequence form).
    pub before: Vec<(String, u32)>,
    pub after: Vec<(String, u32)>,
    /// cls/sep from BertProcessing/RobertaProcessing.
    pub cls: Option<u32>,
    pub sep: Option<u32>,
    /// Model type as given ("WordPiece" or "BPE").
    pub model_type: &'static str,
    /// ByteLevel / Metaspace / byte_fallback seen anywhere: decides the display kind.
    pub byte_level: bool,
    pub metaspace: bool,
}

/// Checks the whole file; on success returns what was learned and the value to hand to the crate
/// (truncation and padding removed: Glimpse truncates explicitly and never pads).
pub fn check(
    mut root: Value,
    model_vocab: Option<usize>,
) -> Result<(Checked, Value), SubwordError> {
    let mut out = Checked::default();
    {
        let top = obj(&root, "tokenizer.json")?;
        if let Some(v) = top.get("version") {
            if v.as_str() != Some("1.0") {
                return Err(unsupported(
                    "version",
                    format!("{v} (only \"1.0\" is known)"),
                ));
            }
        }
        let model = top
            .get("model")
            .ok_or_else(|| bad("tokenizer.json", "has no `model`"))?;
        check_model(model, &mut out)?;
        let vocab: HashMap<&str, u32> = out
            .model_tokens
            .iter()
            .map(|(id, t)| (t.as_str(), *id))
            .collect();
        let added = check_added(top.get("added_tokens"), &out, &vocab)?;
        let known = |id: u32| out.model_tokens.contains_key(&id) || added.contains(&id);
        let mut ctx = Ctx {
            out: Checked::default(),
            adder: false,
            known: &known,
            model_vocab,
        };
        for (key, f) in [
            ("normalizer", check_normalizer as CheckFn),
            ("pre_tokenizer", check_pre_tokenizer),
            ("decoder", check_decoder),
            ("post_processor", check_post_processor),
        ] {
            match top.get(key) {
                None | Some(Value::Null) => {}
                Some(v) => f(v, key, 0, &mut ctx)?,
            }
        }
        out.byte_level |= ctx.out.byte_level;
        out.metaspace |= ctx.out.metaspace;
        out.before = ctx.out.before;
        out.after = ctx.out.after;
        out.cls = ctx.out.cls;
        out.sep = ctx.out.sep;
        if let Some(limit) = model_vocab {
            let ids = out.model_tokens.keys().chain(added.iter());
            if let Some(&id) = ids.filter(|&&id| id as usize >= limit).max() {
                return Err(SubwordError::VocabMismatch(format!(
                    "token id {id} is beyond the model's vocabulary of {limit}"
                )));
            }
        }
    }
    if let Value::Object(top) = &mut root {
        top.insert("truncation".into(), Value::Null);
        top.insert("padding".into(), Value::Null);
        if let Some(Value::Object(m)) = top.get_mut("model") {
            m.insert("type".into(), Value::String(out.model_type.into()));
        }
    }
    Ok((out, root))
}

struct Ctx<'a> {
    /// What the components tell (kind, inserted specials); merged into the result.
    out: Checked,
    /// A post-processor that inserts special tokens was seen.
    adder: bool,
    known: &'a dyn Fn(u32) -> bool,
    model_vocab: Option<usize>,
}

impl Ctx<'_> {
    /// An id a post-processor inserts: it must name a token of this tokenizer and fit the model.
    fn special_id(&self, id: &Value, path: &str) -> Result<u32, SubwordError> {
        let id = id_of(id, path)?;
        if !(self.known)(id) {
            return Err(bad(
                path,
                format!("special token id {id} is not in the vocabulary"),
            ));
        }
        if let Some(limit) = self.model_vocab {
            if id as usize >= limit {
                return Err(SubwordError::VocabMismatch(format!(
                    "{path}: special token id {id} is beyond the model's vocabulary of {limit}"
                )));
            }
        }
        Ok(id)
    }
}

type CheckFn = fn(&Value, &str, usize, &mut Ctx) -> Result<(), SubwordError>;

/// `{"type": "Sequence", key: [...]}`: each element checked with `f`, nesting bounded.
fn sequence(
    m: &Map<String, Value>,
    key: &str,
    path: &str,
    depth: usize,
    ctx: &mut Ctx,
    f: CheckFn,
) -> Result<(), SubwordError> {
    if depth >= MAX_NESTING {
        return Err(bad(path, "sequences nested too deeply"));
    }
    let items = arr(
        m.get(key)
            .ok_or_else(|| bad(path, format!("has no `{key}`")))?,
        &format!("{path}.{key}"),
        MAX_SEQUENCE,
    )?;
    for (i, item) in items.iter().enumerate() {
        f(item, &format!("{path}.{key}[{i}]"), depth + 1, ctx)?;
    }
    Ok(())
}
