//! JSON has no infinity or NaN: `serde_json` writes them as `null` and cannot read that back
//! into an `f32`. Fields that may hold them (clipping switched off is `∞`, a diverged run's loss
//! is NaN) go through this module: finite values stay numbers, the rest become the strings
//! `"inf"`, `"-inf"` and `"nan"`, and both forms are read.

use serde::{Deserialize, Deserializer, Serializer};

pub fn serialize<S: Serializer>(x: &f32, s: S) -> Result<S::Ok, S::Error> {
    match *x {
        x if x.is_finite() => s.serialize_f32(x),
        x if x.is_nan() => s.serialize_str("nan"),
        x if x > 0.0 => s.serialize_str("inf"),
        _ => s.serialize_str("-inf"),
    }
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Written {
        Number(f32),
        Word(String),
    }
    match Written::deserialize(d)? {
        Written::Number(x) => Ok(x),
        Written::Word(w) => match w.as_str() {
            "inf" => Ok(f32::INFINITY),
            "-inf" => Ok(f32::NEG_INFINITY),
            "nan" => Ok(f32::NAN),
            other => Err(serde::de::Error::custom(format!(
                "expected a number, \"inf\", \"-inf\" or \"nan\", not \"{other}\""
            ))),
        },
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
