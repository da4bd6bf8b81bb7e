//! What runs after the model: decoders (ids back to text) and post-processors (the special
//! tokens added around a sequence), with their templates.

use super::fields::{
    arr, bad, obj, opt_bool, opt_char, opt_str, opt_u64, req_str, type_of, unsupported,
};
use super::normalizers::{metaspace, pattern};
use super::{sequence, Ctx, SubwordError, MAX_TEMPLATE, MAX_TOKEN_BYTES};
use serde_json::{Map, Value};
use std::collections::HashMap;

pub(super) fn check_decoder(
    v: &Value,
    path: &str,
    depth: usize,
    ctx: &mut Ctx,
) -> Result<(), SubwordError> {
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

pub(super) fn check_post_processor(
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
