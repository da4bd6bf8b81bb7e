//! Typed, checked reads of config.json keys: sizes within caps, floats, booleans, token ids.

use super::{bad, Activation};
use crate::model::import::error::Result;
use serde_json::{Map, Value};

/// Typed reads of config keys, each error naming the key.
pub(super) struct Keys<'a>(pub(super) &'a Map<String, Value>);

impl Keys<'_> {
    /// The value, treating JSON null as absent.
    pub(super) fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key).filter(|v| !v.is_null())
    }

    pub(super) fn present(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub(super) fn size(&self, key: &str, default: usize, max: usize) -> Result<usize> {
        let v = match self.get(key) {
            None => default,
            Some(v) => v
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| bad(format!("`{key}` should be a whole number, found {v}")))?,
        };
        if v == 0 || v > max {
            return Err(bad(format!(
                "`{key}` is {v}; it must be between 1 and {max}"
            )));
        }
        Ok(v)
    }

    /// A size under any of `keys` (aliases, first wins), which must agree when several are given.
    pub(super) fn size_alias(&self, keys: &[&str], default: usize, max: usize) -> Result<usize> {
        let mut found: Option<(usize, &str)> = None;
        for &key in keys {
            if self.present(key) {
                let v = self.size(key, default, max)?;
                match found {
                    Some((w, first)) if w != v => {
                        return Err(bad(format!(
                            "`{first}` is {w} but its alias `{key}` is {v}"
                        )));
                    }
                    _ => found = Some((v, key)),
                }
            }
        }
        match found {
            Some((v, _)) => Ok(v),
            None => self.size(keys.first().copied().unwrap_or(""), default, max),
        }
    }

    pub(super) fn float(&self, key: &str, default: f64) -> Result<f64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .as_f64()
                .filter(|x| x.is_finite())
                .ok_or_else(|| bad(format!("`{key}` should be a number, found {v}"))),
        }
    }

    /// A small positive epsilon.
    pub(super) fn eps(&self, key: &str, default: f64) -> Result<f32> {
        let e = self.float(key, default)?;
        if !(e > 0.0 && e < 1.0) {
            return Err(bad(format!("`{key}` is {e}; it must be between 0 and 1")));
        }
        Ok(e as f32)
    }

    pub(super) fn boolean(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(bad(format!("`{key}` should be true or false, found {v}"))),
        }
    }

    pub(super) fn string(&self, key: &str, default: &str) -> Result<String> {
        match self.get(key) {
            None => Ok(default.into()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(v) => Err(bad(format!("`{key}` should be a string, found {v}"))),
        }
    }

    pub(super) fn activation(&self, key: &str, default: &str) -> Result<Activation> {
        let name = self.string(key, default)?;
        Activation::parse(&name).ok_or_else(|| {
            bad(format!(
                "`{key}` is \"{name}\"; Glimpse knows gelu, gelu_new, gelu_pytorch_tanh, relu, silu and swish"
            ))
        })
    }

    /// A token id: absent is `default`, null or negative (old Llama conversions wrote a pad
    /// id of -1) is none.
    pub(super) fn token(&self, key: &str, default: Option<u32>) -> Result<Option<u32>> {
        match self.0.get(key) {
            None => Ok(default),
            Some(Value::Null) => Ok(None),
            Some(v) => one_token(key, v),
        }
    }

    /// `eos_token_id`: an id or a list of ids.
    pub(super) fn tokens(&self, key: &str, default: Option<u32>) -> Result<Vec<u32>> {
        match self.0.get(key) {
            None => Ok(default.into_iter().collect()),
            Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => {
                if items.len() > 1024 {
                    return Err(bad(format!("`{key}` lists {} ids", items.len())));
                }
                let mut out = Vec::new();
                for v in items {
                    out.extend(one_token(key, v)?);
                }
                Ok(out)
            }
            Some(v) => Ok(one_token(key, v)?.into_iter().collect()),
        }
    }

    pub(super) fn string_list(&self, key: &str) -> Vec<String> {
        match self.get(key) {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .take(64)
                .collect(),
            _ => Vec::new(),
        }
    }
}

fn one_token(key: &str, v: &Value) -> Result<Option<u32>> {
    if v.as_i64().is_some_and(|i| i < 0) {
        return Ok(None);
    }
    v.as_u64()
        .and_then(|i| u32::try_from(i).ok())
        .map(Some)
        .ok_or_else(|| bad(format!("`{key}` should be a token id, found {v}")))
}

pub(super) fn heads_divide(
    hidden: usize,
    heads: usize,
    hidden_key: &str,
    heads_key: &str,
) -> Result<usize> {
    if !hidden.is_multiple_of(heads) {
        return Err(bad(format!(
            "`{hidden_key}` ({hidden}) is not a multiple of `{heads_key}` ({heads})"
        )));
    }
    Ok(hidden / heads)
}
