//! Checks a `tokenizer.json` before the `tokenizers` crate sees it. The crate panics on some
//! crafted files (merges whose parts do not join into a vocabulary token, templates naming
//! missing special tokens, a `Strip` decoder that cuts past the token, …) and in the browser a
//! panic kills the page, so everything the crate would index with is checked here first. Only
//! components whose code was read for such hazards are accepted; the rest are refused by name.

use super::{SubwordError, MAX_ID};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

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

fn bad(path: &str, msg: impl std::fmt::Display) -> SubwordError {
    SubwordError::Invalid(format!("{path}: {msg}"))
}

fn unsupported(path: &str, msg: impl std::fmt::Display) -> SubwordError {
    SubwordError::Unsupported(format!("{path}: {msg}"))
}

fn obj<'a>(v: &'a Value, path: &str) -> Result<&'a Map<String, Value>, SubwordError> {
    v.as_object()
        .ok_or_else(|| bad(path, "expected a JSON object"))
}

fn type_of<'a>(m: &'a Map<String, Value>, path: &str) -> Result<&'a str, SubwordError> {
    match m.get("type") {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(bad(path, "`type` is not a string")),
        None => Err(bad(path, "has no `type`")),
    }
}

/// A string field no longer than MAX_TOKEN_BYTES; `None` when absent or null.
fn opt_str<'a>(
    m: &'a Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<&'a str>, SubwordError> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.len() <= MAX_TOKEN_BYTES => Ok(Some(s)),
        Some(Value::String(_)) => Err(bad(path, format!("`{key}` is too long"))),
        Some(_) => Err(bad(path, format!("`{key}` is not a string"))),
    }
}

fn req_str<'a>(m: &'a Map<String, Value>, key: &str, path: &str) -> Result<&'a str, SubwordError> {
    opt_str(m, key, path)?.ok_or_else(|| bad(path, format!("`{key}` is missing")))
}

fn opt_bool(m: &Map<String, Value>, key: &str, path: &str) -> Result<Option<bool>, SubwordError> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(bad(path, format!("`{key}` is not true or false"))),
    }
}

fn opt_u64(m: &Map<String, Value>, key: &str, path: &str) -> Result<Option<u64>, SubwordError> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| bad(path, format!("`{key}` is not a non-negative integer"))),
    }
}

/// A single `char` given as a one-character string (serde's encoding of `char`).
fn opt_char(m: &Map<String, Value>, key: &str, path: &str) -> Result<(), SubwordError> {
    if let Some(s) = opt_str(m, key, path)? {
        if s.chars().count() != 1 {
            return Err(bad(path, format!("`{key}` must be exactly one character")));
        }
    }
    Ok(())
}

fn id_of(v: &Value, path: &str) -> Result<u32, SubwordError> {
    match v.as_u64() {
        Some(id) if id < u64::from(MAX_ID) => Ok(id as u32),
        Some(id) => Err(bad(path, format!("id {id} is absurdly large"))),
        None => Err(bad(path, "an id is not a non-negative integer")),
    }
}

fn arr<'a>(v: &'a Value, path: &str, max: usize) -> Result<&'a Vec<Value>, SubwordError> {
    let a = v.as_array().ok_or_else(|| bad(path, "expected a list"))?;
    if a.len() > max {
        return Err(bad(path, format!("{} entries, more than {max}", a.len())));
    }
    Ok(a)
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

fn check_model(model: &Value, out: &mut Checked) -> Result<(), SubwordError> {
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
fn check_added(
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

/// `{"String": s}` or `{"Regex": r}`, as Split and Replace take them.
fn pattern(m: &Map<String, Value>, path: &str) -> Result<(String, bool), SubwordError> {
    let p = obj(
        m.get("pattern")
            .ok_or_else(|| bad(path, "has no `pattern`"))?,
        &format!("{path}.pattern"),
    )?;
    let (kind, text) = match p.iter().next() {
        Some((k, Value::String(s))) if p.len() == 1 => (k.as_str(), s),
        _ => {
            return Err(bad(
                path,
                "`pattern` must be {\"String\": …} or {\"Regex\": …}",
            ))
        }
    };
    if text.len() > MAX_TOKEN_BYTES {
        return Err(bad(path, "pattern is too long"));
    }
    match kind {
        "String" => Ok((text.clone(), false)),
        "Regex" => Ok((text.clone(), true)),
        _ => Err(bad(path, format!("unknown pattern kind `{kind}`"))),
    }
}

/// A Replace normalizer whose pattern can match empty text inserts at a point, which leaves the
/// crate's offset bookkeeping inconsistent and panics later in the pipeline. Such patterns are
/// refused; a regular expression must be plain (no look-around) so its minimum length is known.
fn never_empty(path: &str, text: &str, regex: bool) -> Result<(), SubwordError> {
    if !regex {
        return if text.is_empty() {
            Err(bad(path, "the pattern is empty"))
        } else {
            Ok(())
        };
    }
    let hir = regex_syntax::Parser::new().parse(text).map_err(|e| {
        unsupported(
            path,
            format!("a Replace normalizer needs a plain regular expression: {e}"),
        )
    })?;
    match hir.properties().minimum_len() {
        Some(n) if n > 0 => Ok(()),
        _ => Err(unsupported(
            path,
            format!("a Replace normalizer whose pattern {text:?} can match empty text"),
        )),
    }
}

const BEHAVIORS: [&str; 5] = [
    "Removed",
    "Isolated",
    "MergedWithPrevious",
    "MergedWithNext",
    "Contiguous",
];

fn behavior(m: &Map<String, Value>, path: &str, required: bool) -> Result<(), SubwordError> {
    match opt_str(m, "behavior", path)? {
        Some(b) if BEHAVIORS.contains(&b) => Ok(()),
        Some(b) => Err(bad(path, format!("unknown split behavior `{b}`"))),
        None if required => Err(bad(path, "has no `behavior`")),
        None => Ok(()),
    }
}

fn check_normalizer(
    v: &Value,
    path: &str,
    depth: usize,
    ctx: &mut Ctx,
) -> Result<(), SubwordError> {
    let m = obj(v, path)?;
    match type_of(m, path)? {
        "Sequence" => sequence(m, "normalizers", path, depth, ctx, check_normalizer),
        "BertNormalizer" => {
            for key in [
                "clean_text",
                "handle_chinese_chars",
                "strip_accents",
                "lowercase",
            ] {
                opt_bool(m, key, path)?;
            }
            Ok(())
        }
        "Strip" => {
            opt_bool(m, "strip_left", path)?;
            opt_bool(m, "strip_right", path).map(|_| ())
        }
        "StripAccents" | "NFC" | "NFD" | "NFKC" | "NFKD" | "Lowercase" | "Nmt" => Ok(()),
        "ByteLevel" => {
            ctx.out.byte_level = true;
            Ok(())
        }
        "Prepend" => {
            let p = req_str(m, "prepend", path)?;
            if p.is_empty() {
                return Err(bad(path, "`prepend` is empty"));
            }
            if p == "▁" {
                ctx.out.metaspace = true;
            }
            Ok(())
        }
        "Replace" => {
            let (text, regex) = pattern(m, path)?;
            never_empty(path, &text, regex)?;
            if req_str(m, "content", path)? == "▁" {
                ctx.out.metaspace = true;
            }
            Ok(())
        }
        "Precompiled" => Err(unsupported(
            path,
            "the Precompiled normalizer (a SentencePiece character map) is not supported",
        )),
        other => Err(unsupported(path, format!("unknown normalizer `{other}`"))),
    }
}

fn check_pre_tokenizer(
    v: &Value,
    path: &str,
    depth: usize,
    ctx: &mut Ctx,
) -> Result<(), SubwordError> {
    let m = obj(v, path)?;
    match type_of(m, path)? {
        "Sequence" => sequence(m, "pretokenizers", path, depth, ctx, check_pre_tokenizer),
        "BertPreTokenizer" | "Whitespace" | "WhitespaceSplit" | "UnicodeScripts" => Ok(()),
        "ByteLevel" => {
            for key in ["add_prefix_space", "trim_offsets", "use_regex"] {
                opt_bool(m, key, path)?;
            }
            ctx.out.byte_level = true;
            Ok(())
        }
        "Metaspace" => {
            metaspace(m, path)?;
            ctx.out.metaspace = true;
            Ok(())
        }
        "Split" => {
            pattern(m, path)?;
            behavior(m, path, true)?;
            opt_bool(m, "invert", path)?
                .ok_or_else(|| bad(path, "has no `invert`"))
                .map(|_| ())
        }
        "Punctuation" => behavior(m, path, false),
        "Digits" => opt_bool(m, "individual_digits", path).map(|_| ()),
        "CharDelimiterSplit" => {
            opt_char(m, "delimiter", path)?;
            req_str(m, "delimiter", path).map(|_| ())
        }
        "FixedLength" => match opt_u64(m, "length", path)? {
            // The crate chunks by `length` and panics on 0.
            Some(0) => Err(bad(path, "`length` is 0")),
            Some(n) if n > MAX_TOKEN_BYTES as u64 => Err(bad(path, "`length` is too large")),
            _ => Ok(()),
        },
        other => Err(unsupported(
            path,
            format!("unknown pre-tokenizer `{other}`"),
        )),
    }
}

fn metaspace(m: &Map<String, Value>, path: &str) -> Result<(), SubwordError> {
    opt_char(m, "replacement", path)?;
    req_str(m, "replacement", path)?;
    opt_bool(m, "add_prefix_space", path)?;
    opt_bool(m, "split", path)?;
    match opt_str(m, "prepend_scheme", path)? {
        None | Some("first" | "never" | "always") => Ok(()),
        Some(s) => Err(bad(path, format!("unknown prepend_scheme `{s}`"))),
    }
}

fn check_decoder(v: &Value, path: &str, depth: usize, ctx: &mut Ctx) -> Result<(), SubwordError> {
    let m = obj(v, path)?;
    match type_of(m, path)? {
        "Sequence" => sequence(m, "decoders", path, depth, ctx, check_decoder),
        "ByteLevel" => {
            ctx.out.byte_level = true;
            Ok(())
        }
        "WordPiece" => {
            req_str(m, "prefix", path)?;
            opt_bool(m, "cleanup", path).map(|_| ())
        }
        "Metaspace" => {
            ctx.out.metaspace = true;
            metaspace(m, path)
        }
        "BPEDecoder" => opt_str(m, "suffix", path).map(|_| ()),
        "ByteFallback" | "Fuse" => Ok(()),
        "Replace" => {
            pattern(m, path)?;
            req_str(m, "content", path).map(|_| ())
        }
        "Strip" => {
            opt_char(m, "content", path)?;
            req_str(m, "content", path)?;
            opt_u64(m, "start", path)?;
            // Cutting from the end indexes past short tokens and panics in the crate.
            match opt_u64(m, "stop", path)? {
                Some(0) => Ok(()),
                _ => Err(unsupported(
                    path,
                    "a Strip decoder with `stop` other than 0",
                )),
            }
        }
        "CTC" => Err(unsupported(
            path,
            "the CTC decoder (speech models) is not supported",
        )),
        other => Err(unsupported(path, format!("unknown decoder `{other}`"))),
    }
}

fn check_post_processor(
    v: &Value,
    path: &str,
    depth: usize,
    ctx: &mut Ctx,
) -> Result<(), SubwordError> {
    let m = obj(v, path)?;
    let kind = type_of(m, path)?;
    // Several processors that each add tokens would add them several times.
    let adds = matches!(
        kind,
        "TemplateProcessing" | "BertProcessing" | "RobertaProcessing"
    );
    if adds && ctx.adder {
        return Err(unsupported(
            path,
            "more than one post-processor adding special tokens",
        ));
    }
    ctx.adder |= adds;
    match kind {
        "Sequence" if depth == 0 => {
            sequence(m, "processors", path, depth, ctx, check_post_processor)
        }
        "Sequence" => Err(unsupported(path, "nested post-processor sequences")),
        "ByteLevel" => {
            for key in ["add_prefix_space", "trim_offsets", "use_regex"] {
                opt_bool(m, key, path)?;
            }
            Ok(())
        }
        "BertProcessing" | "RobertaProcessing" => {
            let pair = |key: &str| -> Result<(String, u32), SubwordError> {
                let here = format!("{path}.{key}");
                match m.get(key).and_then(Value::as_array).map(Vec::as_slice) {
                    Some([Value::String(t), id]) if t.len() <= MAX_TOKEN_BYTES => {
                        Ok((t.clone(), ctx.special_id(id, &here)?))
                    }
                    _ => Err(bad(&here, "must be [token, id]")),
                }
            };
            let cls = pair("cls")?;
            let sep = pair("sep")?;
            for key in ["trim_offsets", "add_prefix_space"] {
                opt_bool(m, key, path)?;
            }
            ctx.out.cls = Some(cls.1);
            ctx.out.sep = Some(sep.1);
            ctx.out.before.push(cls);
            ctx.out.after.push(sep);
            Ok(())
        }
        "TemplateProcessing" => template(m, path, ctx),
        other => Err(unsupported(
            path,
            format!("unknown post-processor `{other}`"),
        )),
    }
}

/// TemplateProcessing: every special token a template names must be defined, with as many ids as
/// tokens, and `single` must not use `$B` (the crate indexes the missing second sequence).
fn template(m: &Map<String, Value>, path: &str, ctx: &mut Ctx) -> Result<(), SubwordError> {
    let specials_path = format!("{path}.special_tokens");
    let specials = obj(
        m.get("special_tokens")
            .ok_or_else(|| bad(path, "has no `special_tokens`"))?,
        &specials_path,
    )?;
    if specials.len() > MAX_TEMPLATE {
        return Err(bad(&specials_path, "too many special tokens"));
    }
    let mut defined: HashMap<&str, Vec<(String, u32)>> = HashMap::new();
    for (key, entry) in specials {
        let here = format!("{specials_path}[{key:?}]");
        let e = obj(entry, &here)?;
        let ids = arr(
            e.get("ids").ok_or_else(|| bad(&here, "has no `ids`"))?,
            &here,
            MAX_TEMPLATE,
        )?;
        let tokens = arr(
            e.get("tokens")
                .ok_or_else(|| bad(&here, "has no `tokens`"))?,
            &here,
            MAX_TEMPLATE,
        )?;
        req_str(e, "id", &here)?;
        if ids.len() != tokens.len() {
            return Err(bad(&here, "`ids` and `tokens` differ in length"));
        }
        let mut list = Vec::with_capacity(ids.len());
        for (id, token) in ids.iter().zip(tokens) {
            let token = token
                .as_str()
                .filter(|t| t.len() <= MAX_TOKEN_BYTES)
                .ok_or_else(|| bad(&here, "a token is not a string"))?;
            list.push((token.to_string(), ctx.special_id(id, &here)?));
        }
        defined.insert(key, list);
    }
    for (key, single) in [("single", true), ("pair", false)] {
        let here = format!("{path}.{key}");
        let pieces = arr(
            m.get(key)
                .ok_or_else(|| bad(path, format!("has no `{key}`")))?,
            &here,
            MAX_TEMPLATE,
        )?;
        let (mut has_a, mut has_b) = (false, false);

        for (i, piece) in pieces.iter().enumerate() {
            let at = format!("{here}[{i}]");
            let p = obj(piece, &at)?;
            let (kind, body) = match p.iter().next() {
                Some((k, Value::Object(b))) if p.len() == 1 => (k.as_str(), b),
                _ => {
                    return Err(bad(
                        &at,
                        "must be {\"Sequence\": …} or {\"SpecialToken\": …}",
                    ))
                }
            };
            opt_u64(body, "type_id", &at)?
                .filter(|&t| t <= u64::from(u32::MAX))
                .ok_or_else(|| bad(&at, "has no valid `type_id`"))?;
            match kind {
                "Sequence" => match req_str(body, "id", &at)? {
                    "A" => has_a = true,
                    "B" if single => return Err(bad(&at, "the single-sequence template uses $B")),
                    "B" => has_b = true,
                    other => return Err(bad(&at, format!("unknown sequence `{other}`"))),
                },
                "SpecialToken" => {
                    let name = req_str(body, "id", &at)?;
                    let tokens = defined.get(name).ok_or_else(|| {
                        bad(
                            &at,
                            format!("special token {name:?} is not in special_tokens"),
                        )
                    })?;
                    if single && has_a {
                        ctx.out.after.extend(tokens.iter().cloned());
                    } else if single {
                        ctx.out.before.extend(tokens.iter().cloned());
                    }
                }
                other => return Err(bad(&at, format!("unknown piece `{other}`"))),
            }
        }
        if !has_a || (!single && !has_b) {
            return Err(bad(&here, "does not use every input sequence"));
        }
    }
    Ok(())
}
