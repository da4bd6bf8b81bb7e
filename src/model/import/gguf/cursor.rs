//! A cursor over a GGUF file's untrusted bytes: every read is bounds-checked, and every
//! count is checked against the bytes that remain before anything is allocated from it.

use super::{MetaArray, MetaValue, MAX_NESTING};
use crate::model::import::error::{ImportError, Result};

/// A cursor over untrusted bytes: every read is bounds-checked.
pub(super) struct Cursor<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
    pub(super) file: &'a str,
}

impl<'a> Cursor<'a> {
    pub(super) fn err(&self, reason: String) -> ImportError {
        ImportError::Malformed {
            file: self.file.to_string(),
            format: "GGUF",
            reason,
        }
    }

    fn remaining(&self) -> u64 {
        self.bytes.len().saturating_sub(self.pos) as u64
    }

    pub(super) fn take(&mut self, n: u64, what: &str) -> Result<&'a [u8]> {
        let slice = usize::try_from(n)
            .ok()
            .and_then(|n| self.bytes.get(self.pos..self.pos.checked_add(n)?));
        match slice {
            Some(s) => {
                self.pos += s.len();
                Ok(s)
            }
            None => Err(self.err(format!(
                "the file ends inside {what} (at byte {}, {n} bytes needed, {} left)",
                self.pos,
                self.remaining()
            ))),
        }
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let s = self.take(N as u64, what)?;
        s.try_into()
            .map_err(|_| self.err(format!("a short read of {what}")))
    }

    pub(super) fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    pub(super) fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// A count of items that each take at least `min_bytes`: refused if the rest of the file
    /// cannot hold that many, so no allocation is ever sized by a lie.
    pub(super) fn count(&mut self, min_bytes: u64, what: &str) -> Result<usize> {
        let n = self.u64(what)?;
        let fits = n
            .checked_mul(min_bytes)
            .is_some_and(|need| need <= self.remaining());
        match usize::try_from(n) {
            Ok(n) if fits => Ok(n),
            _ => Err(self.err(format!(
                "{what} is {n}, but only {} bytes remain in the file",
                self.remaining()
            ))),
        }
    }

    pub(super) fn string(&mut self, what: &str) -> Result<String> {
        let len = self.u64(what)?;
        if len > self.remaining() {
            return Err(self.err(format!(
                "{what} says it is {len} bytes long, but only {} bytes remain",
                self.remaining()
            )));
        }
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| self.err(format!("{what} is not UTF-8")))
    }

    pub(super) fn value(&mut self, ty: u32, key: &str, depth: usize) -> Result<MetaValue> {
        let what = &format!("the value of `{key}`");
        Ok(match ty {
            0 => MetaValue::U8(u8::from_le_bytes(self.array(what)?)),
            1 => MetaValue::I8(i8::from_le_bytes(self.array(what)?)),
            2 => MetaValue::U16(u16::from_le_bytes(self.array(what)?)),
            3 => MetaValue::I16(i16::from_le_bytes(self.array(what)?)),
            4 => MetaValue::U32(u32::from_le_bytes(self.array(what)?)),
            5 => MetaValue::I32(i32::from_le_bytes(self.array(what)?)),
            6 => MetaValue::F32(f32::from_le_bytes(self.array(what)?)),
            7 => MetaValue::Bool(self.boolean(what)?),
            8 => MetaValue::Str(self.string(what)?),
            9 => MetaValue::Array(self.meta_array(key, depth)?),
            10 => MetaValue::U64(u64::from_le_bytes(self.array(what)?)),
            11 => MetaValue::I64(i64::from_le_bytes(self.array(what)?)),
            12 => MetaValue::F64(f64::from_le_bytes(self.array(what)?)),
            other => return Err(self.err(format!("`{key}` has an unknown value type {other}"))),
        })
    }

    fn boolean(&mut self, what: &str) -> Result<bool> {
        match self.array::<1>(what)? {
            [0] => Ok(false),
            [1] => Ok(true),
            [b] => Err(self.err(format!("{what} is a bool stored as {b}, not 0 or 1"))),
        }
    }

    /// `n` fixed-size elements decoded by `f`, after checking they fit in the file.
    fn fixed<T, const N: usize>(
        &mut self,
        n: usize,
        what: &str,
        f: fn([u8; N]) -> T,
    ) -> Result<Vec<T>> {
        let bytes = self.take((n as u64).saturating_mul(N as u64), what)?;
        Ok(bytes.as_chunks::<N>().0.iter().map(|b| f(*b)).collect())
    }

    fn meta_array(&mut self, key: &str, depth: usize) -> Result<MetaArray> {
        if depth >= MAX_NESTING {
            return Err(self.err(format!("`{key}` nests arrays more than {MAX_NESTING} deep")));
        }
        let ty = self.u32(&format!("the element type of `{key}`"))?;
        // The smallest element of each type: strings and arrays carry an 8-byte length.
        let min = match ty {
            0 | 1 | 7 => 1,
            2 | 3 => 2,
            4..=6 => 4,
            8 | 10..=12 => 8,
            9 => 12,
            other => return Err(self.err(format!("`{key}` is an array of unknown type {other}"))),
        };
        let what = format!("the length of array `{key}`");
        let n = self.count(min, &what)?;
        let what = &format!("array `{key}`");
        Ok(match ty {
            0 => MetaArray::U8(self.fixed(n, what, u8::from_le_bytes)?),
            1 => MetaArray::I8(self.fixed(n, what, i8::from_le_bytes)?),
            2 => MetaArray::U16(self.fixed(n, what, u16::from_le_bytes)?),
            3 => MetaArray::I16(self.fixed(n, what, i16::from_le_bytes)?),
            4 => MetaArray::U32(self.fixed(n, what, u32::from_le_bytes)?),
            5 => MetaArray::I32(self.fixed(n, what, i32::from_le_bytes)?),
            6 => MetaArray::F32(self.fixed(n, what, f32::from_le_bytes)?),
            10 => MetaArray::U64(self.fixed(n, what, u64::from_le_bytes)?),
            11 => MetaArray::I64(self.fixed(n, what, i64::from_le_bytes)?),
            12 => MetaArray::F64(self.fixed(n, what, f64::from_le_bytes)?),
            7 => {
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(self.boolean(what)?);
                }
                MetaArray::Bool(v)
            }
            8 => {
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(self.string(what)?);
                }
                MetaArray::Str(v)
            }
            _ => {
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(self.meta_array(key, depth + 1)?);
                }
                MetaArray::Array(v)
            }
        })
    }
}
