//! `glimpse pe`: positional encodings (sinusoidal, learned, RoPE, ALiBi) as a JSON document,
//! or given vectors rotated with RoPE.

use super::{resolve_model, PeKind};
use crate::model::position;
use ndarray::Array2;
use serde_json::json;

/// Most positions `pe` prints at once.
pub const MAX_PE_POSITIONS: usize = 10_000;
/// Widest encoding `pe` computes.
pub const MAX_PE_DIM: usize = 4096;

fn rows(a: &Array2<f32>) -> Vec<Vec<f32>> {
    a.rows().into_iter().map(|r| r.to_vec()).collect()
}

fn need_dim(dim: Option<usize>, even: bool) -> Result<usize, String> {
    let d = dim.ok_or("--dim is required for this kind")?;
    if d == 0 || d > MAX_PE_DIM {
        return Err(format!("--dim {d} must be between 1 and {MAX_PE_DIM}"));
    }
    if even && d % 2 != 0 {
        return Err(format!(
            "--dim {d} must be even: dimensions come in (sin, cos) / rotation pairs"
        ));
    }
    Ok(d)
}

fn check_base(base: f32) -> Result<(), String> {
    if base > 1.0 && base.is_finite() {
        Ok(())
    } else {
        Err(format!("--base {base} must be a number greater than 1"))
    }
}

/// Read `--apply`: a JSON array of equally long numeric rows.
pub fn parse_rows(text: &str) -> Result<Array2<f32>, String> {
    let rows: Vec<Vec<f32>> = serde_json::from_str(text)
        .map_err(|e| format!("--apply file must be a JSON array of rows of numbers: {e}"))?;
    let width = rows
        .first()
        .map(Vec::len)
        .ok_or("--apply file has no rows")?;
    if width == 0 {
        return Err("--apply rows are empty".into());
    }
    if let Some(i) = rows.iter().position(|r| r.len() != width) {
        return Err(format!(
            "--apply row {i} has {} numbers, row 0 has {width}",
            rows[i].len()
        ));
    }
    if rows.iter().flatten().any(|v| !v.is_finite()) {
        return Err("--apply rows contain a non-finite number".into());
    }
    Array2::from_shape_vec((rows.len(), width), rows.concat()).map_err(|e| e.to_string())
}

/// The JSON document `glimpse pe` prints.
pub fn pe_report(
    kind: PeKind,
    dim: Option<usize>,
    positions: &[usize],
    base: f32,
    apply: Option<&str>,
    heads: usize,
    model: &str,
) -> Result<serde_json::Value, String> {
    Ok(match kind {
        PeKind::Sinusoidal => {
            let d = need_dim(dim, true)?;
            check_base(base)?;
            let bands = 0..d / 2;
            json!({
                "kind": "sinusoidal", "dim": d, "base": base, "positions": positions,
                "frequencies": bands.clone().map(|k| position::sinusoidal_frequency(k, d, base)).collect::<Vec<_>>(),
                "wavelengths": bands.map(|k| position::sinusoidal_wavelength(k, d, base)).collect::<Vec<_>>(),
                "encodings": rows(&position::sinusoidal(positions, d, base)),
            })
        }
        PeKind::Rope => {
            check_base(base)?;
            match apply {
                None => {
                    let d = need_dim(dim, true)?;
                    let angles = position::rope_angles(positions, d, base);
                    json!({
                        "kind": "rope", "dim": d, "base": base, "positions": positions,
                        "angles": rows(&angles),
                        "cos": rows(&angles.mapv(f32::cos)),
                        "sin": rows(&angles.mapv(f32::sin)),
                    })
                }
                Some(text) => {
                    let x = parse_rows(text)?;
                    let width = x.ncols();
                    if width % 2 != 0 {
                        return Err(format!(
                            "--apply rows have {width} numbers; RoPE needs an even width"
                        ));
                    }
                    if let Some(d) = dim.filter(|&d| d != width) {
                        return Err(format!(
                            "--dim {d} does not match the {width}-wide rows of --apply"
                        ));
                    }
                    if x.nrows() != positions.len() {
                        return Err(format!(
                            "--apply has {} rows but --positions gives {} positions: one position per row",
                            x.nrows(),
                            positions.len()
                        ));
                    }
                    json!({
                        "kind": "rope", "dim": width, "base": base, "positions": positions,
                        "input": rows(&x),
                        "angles": rows(&position::rope_angles(positions, width, base)),
                        "rotated": rows(&position::rope_rotate(&x, positions, base)),
                    })
                }
            }
        }
        PeKind::Alibi => {
            if heads == 0 || heads > 256 {
                return Err(format!("--heads {heads} must be between 1 and 256"));
            }
            let slopes = position::alibi_slopes(heads);
            let bias: Vec<_> = slopes
                .iter()
                .map(|&m| rows(&position::alibi_bias(m, positions, positions)))
                .collect();
            json!({ "kind": "alibi", "heads": heads, "positions": positions, "slopes": slopes.to_vec(), "bias": bias })
        }
        PeKind::Learned => {
            let m = resolve_model(model).map_err(|e| e.to_string())?;
            let table = m.weights.pos_embed.as_ref().ok_or_else(|| {
                format!(
                    "model `{model}` uses {} positions, not a learned table; try --model demo-translate",
                    m.config.positional.label()
                )
            })?;
            if let Some(d) = dim.filter(|&d| d != m.config.d_model) {
                return Err(format!(
                    "--dim {d} does not match model `{model}`'s d_model {}",
                    m.config.d_model
                ));
            }
            if let Some(&p) = positions.iter().find(|&&p| p >= table.nrows()) {
                return Err(format!(
                    "position {p} is past the learned table of `{model}` (max_len {}): a learned absolute encoding has no vector there",
                    table.nrows()
                ));
            }
            json!({
                "kind": "learned", "model": model, "dim": m.config.d_model, "positions": positions,
                "encodings": rows(&table.select(ndarray::Axis(0), positions)),
            })
        }
    })
}
