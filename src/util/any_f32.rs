//! JSON has no infinity or NaN: `serde_json` writes them as `null` and cannot read that back
//! into an `f32`. Fields that may hold them (clipping switched off is `∞`, a diverged run's loss
//! is NaN) go through this module: finite values stay numbers, the rest become the strings
//! `"inf"`, `"-inf"` and `"nan"`, and both forms are read.

use serde::{Deserializer, Serializer};

pub fn serialize<S: Serializer>(x: &f32, s: S) -> Result<S::Ok, S::Error> {
    match *x {
        x if x.is_finite() => s.serialize_f32(x),
        x if x.is_nan() => s.serialize_str("nan"),
        x if x > 0.0 => s.serialize_str("inf"),
        _ => s.serialize_str("-inf"),
    }
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
    d.deserialize_any(Reader)
}

/// A plain visitor rather than an untagged enum: the browser's download stays small.
struct Reader;

impl serde::de::Visitor<'_> for Reader {
    type Value = f32;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a number, \"inf\", \"-inf\" or \"nan\"")
    }

    fn visit_f64<E: serde::de::Error>(self, x: f64) -> Result<f32, E> {
        Ok(x as f32)
    }

    fn visit_i64<E: serde::de::Error>(self, x: i64) -> Result<f32, E> {
        Ok(x as f32)
    }

    fn visit_u64<E: serde::de::Error>(self, x: u64) -> Result<f32, E> {
        Ok(x as f32)
    }

    fn visit_str<E: serde::de::Error>(self, word: &str) -> Result<f32, E> {
        match word {
            "inf" => Ok(f32::INFINITY),
            "-inf" => Ok(f32::NEG_INFINITY),
            "nan" => Ok(f32::NAN),
            _ => Err(E::invalid_value(serde::de::Unexpected::Str(word), &self)),
        }
    }
}

#[cfg(test)]
mod tests {
    #[derive(Debug, serde::Serialize, serde::Deserialize)]
    struct Holder {
        #[serde(with = "super")]
        x: f32,
    }

    #[test]
    fn every_f32_survives_json() {
        for x in [
            0.0,
            -1.5,
            3.25e-7,
            f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ] {
            let json = serde_json::to_string(&Holder { x }).unwrap();
            assert_eq!(
                serde_json::from_str::<Holder>(&json).unwrap().x,
                x,
                "{json}"
            );
        }
        let json = serde_json::to_string(&Holder { x: f32::NAN }).unwrap();
        assert_eq!(json, r#"{"x":"nan"}"#);
        assert!(serde_json::from_str::<Holder>(&json).unwrap().x.is_nan());
        assert_eq!(serde_json::from_str::<Holder>(r#"{"x":2}"#).unwrap().x, 2.0);
        assert!(serde_json::from_str::<Holder>(r#"{"x":"lots"}"#).is_err());
    }
}
