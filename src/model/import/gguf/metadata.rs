//! Typed accessors for a GGUF file's metadata keys: a missing key or a value of the wrong
//! type is an `ImportError` naming the key.

use super::{Gguf, MetaArray, MetaValue};
use crate::model::import::error::{ImportError, Result};

impl Gguf {
    fn meta_err(&self, key: &str, reason: String) -> ImportError {
        ImportError::Metadata {
            file: self.file.clone(),
            key: key.to_string(),
            reason,
        }
    }

    fn required(&self, key: &str) -> Result<&MetaValue> {
        self.metadata
            .get(key)
            .ok_or_else(|| self.meta_err(key, "is missing".into()))
    }

    fn wrong(&self, key: &str, wanted: &str, v: &MetaValue) -> ImportError {
        self.meta_err(
            key,
            format!("should be {wanted}, found a {}", v.type_name()),
        )
    }

    pub fn get(&self, key: &str) -> Option<&MetaValue> {
        self.metadata.get(key)
    }

    pub fn get_str(&self, key: &str) -> Result<&str> {
        match self.required(key)? {
            MetaValue::Str(s) => Ok(s),
            v => Err(self.wrong(key, "a string", v)),
        }
    }

    /// Any integer type whose value fits.
    pub fn get_u64(&self, key: &str) -> Result<u64> {
        let v = self.required(key)?;
        let i = v
            .as_i128()
            .ok_or_else(|| self.wrong(key, "an integer", v))?;
        u64::try_from(i).map_err(|_| self.meta_err(key, format!("is {i}, not a count")))
    }

    pub fn get_u32(&self, key: &str) -> Result<u32> {
        let v = self.get_u64(key)?;
        u32::try_from(v).map_err(|_| self.meta_err(key, format!("is {v}, too large")))
    }

    pub fn get_usize(&self, key: &str) -> Result<usize> {
        let v = self.get_u64(key)?;
        usize::try_from(v).map_err(|_| self.meta_err(key, format!("is {v}, too large")))
    }

    /// Floats and integers; NaN and infinities are refused.
    pub fn get_f32(&self, key: &str) -> Result<f32> {
        let v = self.required(key)?;
        let x = v.as_f64().ok_or_else(|| self.wrong(key, "a number", v))? as f32;
        if x.is_finite() {
            Ok(x)
        } else {
            Err(self.meta_err(key, format!("is {x}, not a finite number")))
        }
    }

    pub fn get_bool(&self, key: &str) -> Result<bool> {
        match self.required(key)? {
            MetaValue::Bool(b) => Ok(*b),
            v => Err(self.wrong(key, "a bool", v)),
        }
    }

    pub fn get_array(&self, key: &str) -> Result<&MetaArray> {
        match self.required(key)? {
            MetaValue::Array(a) => Ok(a),
            v => Err(self.wrong(key, "an array", v)),
        }
    }

    pub fn get_str_array(&self, key: &str) -> Result<&[String]> {
        match self.get_array(key)? {
            MetaArray::Str(v) => Ok(v),
            _ => Err(self.meta_err(key, "should be an array of strings".into())),
        }
    }

    /// An integer array of any element type whose values all fit in i32.
    pub fn get_i32_array(&self, key: &str) -> Result<Vec<i32>> {
        self.get_int_array(key)
    }

    /// An integer array of any element type whose values all fit in u32.
    pub fn get_u32_array(&self, key: &str) -> Result<Vec<u32>> {
        self.get_int_array(key)
    }

    /// An integer array of any element type whose values all fit in `T`.
    fn get_int_array<T: TryFrom<i128>>(&self, key: &str) -> Result<Vec<T>> {
        let ints = self
            .get_array(key)?
            .integers()
            .ok_or_else(|| self.meta_err(key, "should be an array of integers".into()))?;
        let kind = std::any::type_name::<T>();
        ints.into_iter()
            .map(|i| {
                T::try_from(i).map_err(|_| self.meta_err(key, format!("holds {i}, outside {kind}")))
            })
            .collect()
    }

    pub fn get_f32_array(&self, key: &str) -> Result<Vec<f32>> {
        match self.get_array(key)? {
            MetaArray::F32(v) => Ok(v.clone()),
            MetaArray::F64(v) => Ok(v.iter().map(|&x| x as f32).collect()),
            _ => Err(self.meta_err(key, "should be an array of floats".into())),
        }
    }

    /// `Ok(None)` when the key is absent, else `f(self, key)`: optional keys with the same
    /// type checks, e.g. `gguf.optional("llama.rope.freq_base", Gguf::get_f32)`.
    pub fn optional<'s, T>(
        &'s self,
        key: &str,
        f: impl Fn(&'s Self, &str) -> Result<T>,
    ) -> Result<Option<T>> {
        if self.metadata.contains_key(key) {
            f(self, key).map(Some)
        } else {
            Ok(None)
        }
    }

    /// `general.architecture` (e.g. "llama").
    pub fn architecture(&self) -> Result<&str> {
        self.get_str("general.architecture")
    }
}
