//! Serialize n-dimensional arrays as nested JSON lists (`[[1, 2], [3, 4]]`), the shape a script
//! or a student expects, instead of ndarray's flat `{dim, data}` form.
//! Non-finite numbers (a masked score is −∞) become `null` in JSON.

use ndarray::{ArrayBase, ArrayViewD, Axis, Data, Dimension};
use serde::ser::{Serialize, SerializeSeq, Serializer};

struct Nested<'a, T>(ArrayViewD<'a, T>);

impl<T: Serialize + Copy> Serialize for Nested<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.ndim() == 0 {
            return match self.0.first() {
                Some(v) => v.serialize(s),
                None => s.serialize_none(),
            };
        }
        let len = self.0.len_of(Axis(0));
        let mut seq = s.serialize_seq(Some(len))?;
        for sub in self.0.axis_iter(Axis(0)) {
            seq.serialize_element(&Nested(sub))?;
        }
        seq.end()
    }
}

/// `#[serde(serialize_with = "crate::util::nested::ser")]` for any array field.
pub fn ser<S, A, T, D>(a: &ArrayBase<A, D>, s: S) -> Result<S::Ok, S::Error>
where
    S: Serializer,
    A: Data<Elem = T>,
    T: Serialize + Copy,
    D: Dimension,
{
    Nested(a.view().into_dyn()).serialize(s)
}

/// The same for an optional array.
pub fn ser_opt<S, A, T, D>(a: &Option<ArrayBase<A, D>>, s: S) -> Result<S::Ok, S::Error>
where
    S: Serializer,
    A: Data<Elem = T>,
    T: Serialize + Copy,
    D: Dimension,
{
    match a {
        Some(a) => ser(a, s),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use ndarray::array;

    #[derive(serde::Serialize)]
    struct W {
        #[serde(serialize_with = "super::ser")]
        m: ndarray::Array2<f32>,
    }

    #[test]
    fn nested_lists_and_null_for_infinity() {
        let w = W {
            m: array![[1.0, f32::NEG_INFINITY], [0.5, 2.0]],
        };
        assert_eq!(
            serde_json::to_string(&w).unwrap(),
            r#"{"m":[[1.0,null],[0.5,2.0]]}"#
        );
    }
}
