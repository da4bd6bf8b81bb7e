//! Rotary position embeddings' base and scaling (none, linear, Llama 3, GGUF's precomputed
//! factors) and the inverse frequencies they give.

use super::keys::Keys;
use super::{bad, caps};
use crate::model::import::error::{ImportError, Result};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub enum RopeScaling {
    None,
    /// Every inverse frequency divided by `factor`.
    Linear {
        factor: f32,
    },
    /// Llama 3.1: low frequencies divided by `factor`, high ones kept, a smooth ramp between.
    Llama3 {
        factor: f32,
        low_freq_factor: f32,
        high_freq_factor: f32,
        original_max_position_embeddings: usize,
    },
    /// GGUF stores Llama 3 scaling precomputed: inverse frequency i is divided by element i
    /// of this tensor (`rope_freqs.weight`, head_dim/2 values).
    GgufFreqFactors {
        tensor: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Rope {
    pub theta: f32,
    pub scaling: RopeScaling,
}

impl Rope {
    /// The inverse frequencies of a head of `head_dim`, as Hugging Face computes them in f32:
    /// θ^(−2i/head_dim) for i < head_dim/2, then the scaling. `freq_factors` is the tensor of
    /// `RopeScaling::GgufFreqFactors` (ignored otherwise).
    pub fn inv_freq(&self, head_dim: usize, freq_factors: Option<&[f32]>) -> Result<Vec<f32>> {
        let base: Vec<f32> = (0..head_dim / 2)
            .map(|i| 1.0 / self.theta.powf((2 * i) as f32 / head_dim as f32))
            .collect();
        Ok(match &self.scaling {
            RopeScaling::None => base,
            RopeScaling::Linear { factor } => base.iter().map(|f| f / factor).collect(),
            RopeScaling::Llama3 {
                factor,
                low_freq_factor: lo,
                high_freq_factor: hi,
                original_max_position_embeddings: o,
            } => {
                let o = *o as f32;
                let (low_wavelen, high_wavelen) = (o / lo, o / hi);
                base.iter()
                    .map(|&f| {
                        let wavelen = 2.0 * std::f32::consts::PI / f;
                        if wavelen > low_wavelen {
                            f / factor
                        } else if wavelen < high_wavelen {
                            f
                        } else {
                            let s = (o / wavelen - lo) / (hi - lo);
                            (1.0 - s) * f / factor + s * f
                        }
                    })
                    .collect()
            }
            RopeScaling::GgufFreqFactors { tensor } => {
                let factors = freq_factors
                    .filter(|f| f.len() == base.len())
                    .ok_or_else(|| {
                        ImportError::Usage(format!(
                            "RoPE needs the {} values of `{tensor}`",
                            base.len()
                        ))
                    })?;
                base.iter().zip(factors).map(|(f, d)| f / d).collect()
            }
        })
    }
}

/// RoPE base and scaling from `rope_theta` + `rope_scaling` (transformers 4) or
/// `rope_parameters` (transformers 5, where theta moved inside; per-layer-type dictionaries
/// are accepted when they only hold `full_attention`).
pub(super) fn rope(c: &Keys) -> Result<Rope> {
    let params = match c.get("rope_parameters") {
        Some(Value::Object(p)) => {
            let has_own = ["rope_type", "type", "rope_theta", "factor"]
                .iter()
                .any(|k| p.contains_key(*k));
            if has_own {
                Some(p)
            } else {
                match (p.get("full_attention"), p.len()) {
                    (Some(Value::Object(full)), 1) => Some(full),
                    _ => {
                        return Err(bad("`rope_parameters` is per layer type; Glimpse runs \
                                        only full-attention layers"
                            .into()))
                    }
                }
            }
        }
        Some(v) => {
            return Err(bad(format!(
                "`rope_parameters` should be an object, found {v}"
            )));
        }
        None => None,
    };
    let scaling = match (params, c.get("rope_scaling")) {
        (Some(p), _) => Some(p),
        (None, Some(Value::Object(s))) => Some(s),
        (None, Some(v)) => {
            return Err(bad(format!(
                "`rope_scaling` should be an object, found {v}"
            )));
        }
        (None, None) => None,
    };
    let theta = match params
        .and_then(|p| p.get("rope_theta"))
        .filter(|v| !v.is_null())
    {
        Some(v) => v
            .as_f64()
            .ok_or_else(|| bad(format!("`rope_theta` should be a number, found {v}")))?,
        None => c.float("rope_theta", 10000.0)?,
    };
    if !(theta.is_finite() && theta > 0.0 && theta < 1e12) {
        return Err(bad(format!(
            "`rope_theta` is {theta}; it must be a positive number"
        )));
    }
    let Some(s) = scaling else {
        return Ok(Rope {
            theta: theta as f32,
            scaling: RopeScaling::None,
        });
    };
    let s = Keys(s);
    let kind = match (s.get("rope_type"), s.get("type")) {
        (Some(Value::String(t)), _) | (None, Some(Value::String(t))) => t.clone(),
        (None, None) => "default".into(),
        (Some(v), _) | (None, Some(v)) => {
            return Err(bad(format!("`rope_type` should be a string, found {v}")));
        }
    };
    let factor = |key: &str| -> Result<f32> {
        let v = s
            .get(key)
            .ok_or_else(|| bad(format!("RoPE scaling \"{kind}\" needs `{key}`")))?;
        v.as_f64()
            .filter(|x| x.is_finite() && *x > 0.0 && *x < 1e6)
            .map(|x| x as f32)
            .ok_or_else(|| {
                bad(format!(
                    "RoPE `{key}` should be a positive number, found {v}"
                ))
            })
    };
    let scaling = match kind.as_str() {
        "default" => RopeScaling::None,
        "linear" => RopeScaling::Linear {
            factor: factor("factor")?,
        },
        "llama3" => {
            let (low, high) = (factor("low_freq_factor")?, factor("high_freq_factor")?);
            if low >= high {
                return Err(bad(format!(
                    "RoPE `low_freq_factor` ({low}) must be below `high_freq_factor` ({high})"
                )));
            }
            let original = if s.present("original_max_position_embeddings") {
                s.size("original_max_position_embeddings", 0, caps::POSITIONS)?
            } else {
                c.size("original_max_position_embeddings", 0, caps::POSITIONS)
                    .map_err(|_| {
                        bad(
                            "RoPE scaling \"llama3\" needs `original_max_position_embeddings`"
                                .into(),
                        )
                    })?
            };
            RopeScaling::Llama3 {
                factor: factor("factor")?,
                low_freq_factor: low,
                high_freq_factor: high,
                original_max_position_embeddings: original,
            }
        }
        other => {
            return Err(bad(format!(
                "RoPE scaling \"{other}\" is not supported; Glimpse runs default, linear and llama3"
            )));
        }
    };
    Ok(Rope {
        theta: theta as f32,
        scaling,
    })
}
