//! The keys and values a decoder keeps between steps, and what one attention call reads:
//! the cache with this call's rows appended (self-attention) or the memory's, computed once
//! (cross-attention).

use crate::model::error::{ModelError, Result};
use ndarray::{Array3, Axis};

/// Keys and values kept between decoding steps.
#[derive(Debug, Clone, Default)]
pub struct KvCache {
    /// `[G, t, h]`, or `None` before the first step.
    pub k: Option<Array3<f32>>,
    pub v: Option<Array3<f32>>,
}

impl KvCache {
    pub fn len(&self) -> usize {
        self.k.as_ref().map_or(0, |k| k.len_of(Axis(1)))
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Keys and values `[G, T_k, h]` of the key/value heads.
pub(super) type KeysValues = (Array3<f32>, Array3<f32>);

/// Appends this call's keys (or values) to the cache along the time axis and returns all of
/// them. A cache whose head count or width differs from the new rows belongs to another
/// model or layer: that is an error, never a silently dropped cache.
fn append(cache: &mut Option<Array3<f32>>, new: Array3<f32>) -> Result<Array3<f32>> {
    let all = match cache.take() {
        Some(old) if (old.dim().0, old.dim().2) == (new.dim().0, new.dim().2) => {
            // Row-major, so each head's keys lie one after another, as the product kernel
            // reads them (`ndarray::concatenate` kept the positions outermost).
            let (heads, width) = (old.dim().0, old.dim().2);
            let positions = old.len_of(Axis(1)) + new.len_of(Axis(1));
            let mut rows = Vec::with_capacity(heads * positions * width);
            for (old, new) in old.outer_iter().zip(new.outer_iter()) {
                for part in [old, new] {
                    match part.as_slice() {
                        Some(part) => rows.extend_from_slice(part),
                        None => rows.extend(part.iter()),
                    }
                }
            }
            Array3::from_shape_vec((heads, positions, width), rows)
                .map_err(|e| ModelError::Input(e.to_string()))?
        }
        Some(old) => {
            return Err(ModelError::Input(format!(
                "the key/value cache holds {:?} (heads, positions, width) but this step \
                 brings {:?}: it belongs to another model; start decoding again",
                old.dim(),
                new.dim()
            )))
        }
        None => new,
    };
    *cache = Some(all.clone());
    Ok(all)
}

/// The keys and values attended over: this call's own, or with a cache, everything cached so
/// far (self-attention appends; cross-attention computes the memory's once and reuses them).
pub(super) fn keys_and_values(
    new: Option<KeysValues>,
    cache: Option<&mut KvCache>,
    is_self: bool,
    empty: (usize, usize),
) -> Result<KeysValues> {
    let nothing = || Array3::zeros((empty.0, 0, empty.1));
    match (cache, new) {
        (Some(c), Some((k, v))) if is_self || c.is_empty() => {
            Ok((append(&mut c.k, k)?, append(&mut c.v, v)?))
        }
        (Some(c), _) => Ok((
            c.k.clone().unwrap_or_else(nothing),
            c.v.clone().unwrap_or_else(nothing),
        )),
        (None, Some(kv)) => Ok(kv),
        (None, None) => Ok((nothing(), nothing())),
    }
}
