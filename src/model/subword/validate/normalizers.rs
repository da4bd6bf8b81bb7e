//! What runs on the text before the model: normalizers and pre-tokenizers, with the
//! patterns and split behaviours they take.

use super::fields::{
    bad, obj, opt_bool, opt_char, opt_str, opt_u64, req_str, type_of, unsupported,
};
use super::{sequence, Ctx, SubwordError, MAX_TOKEN_BYTES};
use serde_json::{Map, Value};

/// `{"String": s}` or `{"Regex": r}`, as Split and Replace take them.
pub(super) fn pattern(m: &Map<String, Value>, path: &str) -> Result<(String, bool), SubwordError> {
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

pub(super) fn check_normalizer(
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

pub(super) fn check_pre_tokenizer(
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

pub(super) fn metaspace(m: &Map<String, Value>, path: &str) -> Result<(), SubwordError> {
    opt_char(m, "replacement", path)?;
    req_str(m, "replacement", path)?;
    opt_bool(m, "add_prefix_space", path)?;
    opt_bool(m, "split", path)?;
    match opt_str(m, "prepend_scheme", path)? {
        None | Some("first" | "never" | "always") => Ok(()),
        Some(s) => Err(bad(path, format!("unknown prepend_scheme `{s}`"))),
    }
}
