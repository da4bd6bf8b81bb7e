//! Typed reads of `tokenizer.json` fields, each error naming the field's path.

use super::{SubwordError, MAX_ID, MAX_TOKEN_BYTES};
use serde_json::{Map, Value};

pub(super) fn bad(path: &str, msg: impl std::fmt::Display) -> SubwordError {
    SubwordError::Invalid(format!("{path}: {msg}"))
}

pub(super) fn unsupported(path: &str, msg: impl std::fmt::Display) -> SubwordError {
    SubwordError::Unsupported(format!("{path}: {msg}"))
}

pub(super) fn obj<'a>(v: &'a Value, path: &str) -> Result<&'a Map<String, Value>, SubwordError> {
    v.as_object()
        .ok_or_else(|| bad(path, "expected a JSON object"))
}

pub(super) fn type_of<'a>(m: &'a Map<String, Value>, path: &str) -> Result<&'a str, SubwordError> {
    match m.get("type") {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(bad(path, "`type` is not a string")),
        None => Err(bad(path, "has no `type`")),
    }
}

/// A string field no longer than MAX_TOKEN_BYTES; `None` when absent or null.
pub(super) fn opt_str<'a>(
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

pub(super) fn req_str<'a>(
    m: &'a Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<&'a str, SubwordError> {
    opt_str(m, key, path)?.ok_or_else(|| bad(path, format!("`{key}` is missing")))
}

pub(super) fn opt_bool(
    m: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<bool>, SubwordError> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(bad(path, format!("`{key}` is not true or false"))),
    }
}

pub(super) fn opt_u64(
    m: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<u64>, SubwordError> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| bad(path, format!("`{key}` is not a non-negative integer"))),
    }
}

/// A single `char` given as a one-character string (serde's encoding of `char`).
pub(super) fn opt_char(m: &Map<String, Value>, key: &str, path: &str) -> Result<(), SubwordError> {
    if let Some(s) = opt_str(m, key, path)? {
        if s.chars().count() != 1 {
            return Err(bad(path, format!("`{key}` must be exactly one character")));
        }
    }
    Ok(())
}

pub(super) fn id_of(v: &Value, path: &str) -> Result<u32, SubwordError> {
    match v.as_u64() {
        Some(id) if id < u64::from(MAX_ID) => Ok(id as u32),
        Some(id) => Err(bad(path, format!("id {id} is absurdly large"))),
        None => Err(bad(path, "an id is not a non-negative integer")),
    }
}

pub(super) fn arr<'a>(
    v: &'a Value,
    path: &str,
    max: usize,
) -> Result<&'a Vec<Value>, SubwordError> {
    let a = v.as_array().ok_or_else(|| bad(path, "expected a list"))?;
    if a.len() > max {
        return Err(bad(path, format!("{} entries, more than {max}", a.len())));
    }
    Ok(a)
}
