//! Checkpoints: a JSON config plus a safetensors weights file (docs/FORMAT.md).
//! A file is either loaded whole and checked, or refused with a message naming the problem.

use super::config::ModelConfig;
use super::error::{ModelError, Result};
use super::subword::SubwordTokenizer;
use super::tokenizer::{Tokenizer, TokenizerKind};
use super::transformer::Model;
use super::weights::{TensorMap, Weights};
use ndarray::{ArrayD, IxDyn};
use safetensors::{Dtype, SafeTensors};

/// Largest weights file Glimpse reads.
pub const MAX_WEIGHTS_BYTES: u64 = 512 * 1024 * 1024;

/// Suffix of the per-row scales of a tensor stored as 8-bit integers (`Storage::Q8`).
pub const Q8_SCALE_SUFFIX: &str = ".q8_scale";

/// How a checkpoint stores its weights: f32 (exact), f16 (half the bytes), or Q8: each row of
/// a matrix as 8-bit integers q with one f32 scale s per row, `w ≈ s·q`, `s = max|row| / 127`
/// (a quarter of the bytes; vectors stay f32). Reading always gives f32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    F32,
    F16,
    Q8,
}

/// Decode every tensor of a safetensors buffer as `f32`: F32 as is, F16 widened, and I8
/// tensors multiplied row by row by their `NAME.q8_scale` (Q8 storage).
pub fn read_tensors(bytes: &[u8]) -> Result<TensorMap> {
    if bytes.len() as u64 > MAX_WEIGHTS_BYTES {
        return Err(ModelError::TooLarge {
            size: bytes.len() as u64,
            limit: MAX_WEIGHTS_BYTES,
        });
    }
    let st = SafeTensors::deserialize(bytes).map_err(|e| ModelError::Safetensors(e.to_string()))?;
    let mut map = TensorMap::new();
    let mut quantized = Vec::new();
    for (name, view) in st.tensors() {
        let data: Vec<f32> = match view.dtype() {
            Dtype::F32 => view
                .data()
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            Dtype::F16 => view
                .data()
                .chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
            Dtype::I8 => {
                quantized.push(name.clone());
                view.data().iter().map(|&b| b as i8 as f32).collect()
            }
            other => {
                return Err(ModelError::DType {
                    name,
                    found: format!("{other:?}"),
                })
            }
        };
        let shape = view.shape().to_vec();
        let t = ArrayD::from_shape_vec(IxDyn(&shape), data).map_err(|e| {
            ModelError::Safetensors(format!(
                "tensor `{name}` has a bad size for shape {shape:?}: {e}"
            ))
        })?;
        map.insert(name, t);
    }
    for name in quantized {
        let scale_name = format!("{name}{Q8_SCALE_SUFFIX}");
        let bad = |why: &str| ModelError::Safetensors(format!("8-bit tensor `{name}`: {why}"));
        let scales = map
            .remove(&scale_name)
            .ok_or_else(|| bad(&format!("no `{scale_name}` beside it")))?;
        let t = map.get_mut(&name).ok_or_else(|| bad("missing"))?;
        let width = t.shape().last().copied().unwrap_or(0).max(1);
        if t.ndim() < 2 || scales.len() * width != t.len() {
            return Err(bad("its scales do not have one value per row"));
        }
        let (Some(values), Some(scales)) = (t.as_slice_mut(), scales.as_slice()) else {
            return Err(bad("not contiguous"));
        };
        // w = s · q, row by row
        for (row, &s) in values.chunks_exact_mut(width).zip(scales) {
            row.iter_mut().for_each(|v| *v *= s);
        }
    }
    Ok(map)
}

/// Encode named tensors as a safetensors buffer (f32).
pub fn write_tensors(map: &TensorMap) -> Result<Vec<u8>> {
    write_tensors_as(map, Storage::F32)
}

/// Row scales and 8-bit values of a matrix: `s = max|row| / 127`, `q = round(w / s)`.
fn quantize_rows(t: &ArrayD<f32>) -> (Vec<f32>, Vec<u8>) {
    let width = t.shape().last().copied().unwrap_or(1).max(1);
    let values: Vec<f32> = t.iter().copied().collect();
    let mut scales = Vec::with_capacity(values.len() / width);
    let mut q = Vec::with_capacity(values.len());
    for row in values.chunks(width) {
        let max = row.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let s = if max > 0.0 { max / 127.0 } else { 1.0 };
        scales.push(s);
        q.extend(
            row.iter()
                .map(|v| (v / s).round().clamp(-127.0, 127.0) as i8 as u8),
        );
    }
    (scales, q)
}

/// Encode named tensors as a safetensors buffer in the given storage.
pub fn write_tensors_as(map: &TensorMap, storage: Storage) -> Result<Vec<u8>> {
    let mut bytes: Vec<(String, Dtype, Vec<usize>, Vec<u8>)> = Vec::new();
    for (name, t) in map {
        let shape = t.shape().to_vec();
        match storage {
            Storage::F32 => bytes.push((
                name.clone(),
                Dtype::F32,
                shape,
                t.iter().flat_map(|v| v.to_le_bytes()).collect(),
            )),
            Storage::F16 => bytes.push((
                name.clone(),
                Dtype::F16,
                shape,
                t.iter()
                    .flat_map(|&v| half::f16::from_f32(v).to_le_bytes())
                    .collect(),
            )),
            // Vectors (biases, norms) are few bytes and sensitive: they stay f32.
            Storage::Q8 if t.ndim() < 2 => bytes.push((
                name.clone(),
                Dtype::F32,
                shape,
                t.iter().flat_map(|v| v.to_le_bytes()).collect(),
            )),
            Storage::Q8 => {
                let (scales, q) = quantize_rows(t);
                bytes.push((
                    format!("{name}{Q8_SCALE_SUFFIX}"),
                    Dtype::F32,
                    vec![scales.len()],
                    scales.iter().flat_map(|v| v.to_le_bytes()).collect(),
                ));
                bytes.push((name.clone(), Dtype::I8, shape, q));
            }
        }
    }
    let views = bytes
        .iter()
        .map(|(name, dtype, shape, data)| {
            safetensors::tensor::TensorView::new(*dtype, shape.clone(), data)
                .map(|v| (name.clone(), v))
                .map_err(|e| ModelError::Safetensors(e.to_string()))
        })
        .collect::<Result<Vec<_>>>()?;
    safetensors::serialize(views, None).map_err(|e| ModelError::Safetensors(e.to_string()))
}

/// A model from its config text and weights bytes.
pub fn load_bytes(config_json: &str, weights: &[u8]) -> Result<Model> {
    load_bytes_with(config_json, weights, None)
}

/// A model from its config text, weights bytes and, for a model with a sub-word tokenizer
/// (Glimpse's English LM), the `tokenizer.json` it was trained with.
pub fn load_bytes_with(
    config_json: &str,
    weights: &[u8],
    tokenizer_json: Option<&[u8]>,
) -> Result<Model> {
    let config = ModelConfig::from_json(config_json)?;
    let tensors = read_tensors(weights)?;
    let weights = Weights::from_tensors(&config, tensors)?;
    if config.tokenizer.kind != TokenizerKind::Subword {
        return Model::new(config, weights);
    }
    let bytes = tokenizer_json.ok_or_else(|| {
        ModelError::Config(format!(
            "tokenizer: this model's sub-word vocabulary needs its {TOKENIZER_SUFFIX} file"
        ))
    })?;
    let vocab = config.tokenizer.tokens.len();
    let sw = SubwordTokenizer::from_bytes(bytes, Some(vocab))
        .map_err(|e| ModelError::Config(format!("tokenizer: {e}")))?;
    let tok = Tokenizer::subword(sw, vocab);
    if tok.spec().tokens != config.tokenizer.tokens {
        return Err(ModelError::Config(
            "tokenizer: the tokenizer file does not list the pieces the config names".into(),
        ));
    }
    Model::with_tokenizer(config, tok, weights)
}

/// Beside `STEM.json` and `STEM.safetensors`, a sub-word model's `STEM.tokenizer.json`.
pub const TOKENIZER_SUFFIX: &str = ".tokenizer.json";

/// A model as config text and weights bytes.
pub fn save_bytes(model: &Model) -> Result<(String, Vec<u8>)> {
    save_bytes_as(model, Storage::F32)
}

pub fn save_bytes_as(model: &Model, storage: Storage) -> Result<(String, Vec<u8>)> {
    Ok((
        model.config.to_json(),
        write_tensors_as(&model.weights.to_tensors(), storage)?,
    ))
}

/// The `.json` and `.safetensors` paths of a checkpoint given either file or their stem.
#[cfg(not(target_arch = "wasm32"))]
pub fn checkpoint_paths(path: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let stem = match path.extension().and_then(|e| e.to_str()) {
        Some("json") | Some("safetensors") => path.with_extension(""),
        _ => path.to_path_buf(),
    };
    let with = |ext: &str| {
        let mut s = stem.clone().into_os_string();
        s.push(ext);
        std::path::PathBuf::from(s)
    };
    (with(".json"), with(".safetensors"))
}

#[cfg(not(target_arch = "wasm32"))]
pub fn load_path(path: &std::path::Path) -> Result<Model> {
    let (json, weights) = checkpoint_paths(path);
    let io = |p: &std::path::Path, e: std::io::Error| ModelError::Io {
        path: p.display().to_string(),
        reason: e.to_string(),
    };
    let size = std::fs::metadata(&weights)
        .map_err(|e| io(&weights, e))?
        .len();
    if size > MAX_WEIGHTS_BYTES {
        return Err(ModelError::TooLarge {
            size,
            limit: MAX_WEIGHTS_BYTES,
        });
    }
    let text = std::fs::read_to_string(&json).map_err(|e| io(&json, e))?;
    let bytes = std::fs::read(&weights).map_err(|e| io(&weights, e))?;
    let tok_path = tokenizer_path(&json);
    let tok = match tok_path.exists() {
        true => Some(std::fs::read(&tok_path).map_err(|e| io(&tok_path, e))?),
        false => None,
    };
    load_bytes_with(&text, &bytes, tok.as_deref())
}

/// `STEM.tokenizer.json` from `STEM.json`.
#[cfg(not(target_arch = "wasm32"))]
pub fn tokenizer_path(json: &std::path::Path) -> std::path::PathBuf {
    let mut s = json.with_extension("").into_os_string();
    s.push(TOKENIZER_SUFFIX);
    std::path::PathBuf::from(s)
}

#[cfg(not(target_arch = "wasm32"))]
pub fn save_path(model: &Model, path: &std::path::Path) -> Result<()> {
    save_path_as(model, path, Storage::F32)
}

#[cfg(not(target_arch = "wasm32"))]
pub fn save_path_as(model: &Model, path: &std::path::Path, storage: Storage) -> Result<()> {
    let (json, weights) = checkpoint_paths(path);
    let (text, bytes) = save_bytes_as(model, storage)?;
    let io = |p: &std::path::Path, e: std::io::Error| ModelError::Io {
        path: p.display().to_string(),
        reason: e.to_string(),
    };
    if let Some(t) = model.tokenizer.as_subword() {
        let tok_json = t
            .to_json()
            .map_err(|e| ModelError::Config(format!("tokenizer: {e}")))?;
        let p = tokenizer_path(&json);
        std::fs::write(&p, tok_json).map_err(|e| io(&p, e))?;
    }
    std::fs::write(&json, text).map_err(|e| io(&json, e))?;
    std::fs::write(&weights, bytes).map_err(|e| io(&weights, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::config::tests::small;
    use crate::model::config::{Family, Positional};

    fn saved() -> (Model, String, Vec<u8>) {
        let m = Model::random(small(Family::EncoderDecoder, Positional::Alibi), 5).unwrap();
        let (j, b) = save_bytes(&m).unwrap();
        (m, j, b)
    }

    #[test]
    fn save_then_load_is_identical() {
        let (m, j, b) = saved();
        let back = load_bytes(&j, &b).unwrap();
        assert_eq!(back.weights, m.weights);
        assert_eq!(back.config, m.config);
    }

    #[test]
    fn truncated_and_garbage_files_are_refused() {
        let (_, j, b) = saved();
        for cut in [0, 7, 8, 100, b.len() / 2, b.len() - 1] {
            let e = load_bytes(&j, &b[..cut]).unwrap_err();
            assert!(matches!(e, ModelError::Safetensors(_)), "cut {cut}: {e}");
        }
        let e = load_bytes(&j, b"definitely not safetensors").unwrap_err();
        assert!(matches!(e, ModelError::Safetensors(_)));
        let mut flipped = b.clone();
        flipped[3] ^= 0x7f; // corrupt the header length
        assert!(load_bytes(&j, &flipped).is_err());
    }

    #[test]
    fn weights_of_another_config_are_refused_by_name() {
        let (_, _, b) = saved();
        let mut other = small(Family::EncoderDecoder, Positional::Alibi);
        other.d_model = 16;
        let e = load_bytes(&other.to_json(), &b).unwrap_err();
        assert!(
            matches!(e, ModelError::ShapeMismatch { ref name, .. } if name == "tok_embed"),
            "{e}"
        );
        let other = small(Family::Decoder, Positional::Alibi);
        let e = load_bytes(&other.to_json(), &b).unwrap_err();
        assert!(
            matches!(
                e,
                ModelError::MissingTensor(_) | ModelError::UnexpectedTensor(_)
            ),
            "{e}"
        );
    }

    #[test]
    fn f16_and_q8_storage_read_back_within_their_rounding() {
        let (m, j, _) = saved();
        for (storage, tol) in [(Storage::F16, 1.0 / 1024.0), (Storage::Q8, 0.5 / 127.0)] {
            let (_, b) = save_bytes_as(&m, storage).unwrap();
            let back = load_bytes(&j, &b).unwrap();
            let (orig, got) = (m.weights.params(), back.weights.params());
            for ((name, a), (_, b)) in orig.iter().zip(&got) {
                // f16: relative error ≤ 2⁻¹¹ per value; Q8: ≤ half a step, s/2 = max|row|/254.
                let width = a.shape().last().copied().unwrap_or(1);
                let rows_a: Vec<f32> = a.iter().copied().collect();
                let rows_b: Vec<f32> = b.iter().copied().collect();
                for (ra, rb) in rows_a.chunks(width).zip(rows_b.chunks(width)) {
                    let max = ra.iter().fold(0.0f32, |m, v| m.max(v.abs()));
                    for (x, y) in ra.iter().zip(rb) {
                        let bound = match storage {
                            Storage::F16 => x.abs() * tol + 1e-7,
                            _ if a.ndim() < 2 => 0.0,
                            _ => max * tol * 1.0001,
                        };
                        assert!((x - y).abs() <= bound, "{storage:?} {name}: {x} vs {y}");
                    }
                }
            }
        }
        // On a model wide enough for the data to outweigh the header and the row scales:
        // about ¼ and ½ of the f32 bytes.
        let mut cfg = small(Family::Decoder, Positional::Alibi);
        (cfg.d_model, cfg.d_ff) = (64, 256);
        let wide = Model::random(cfg, 1).unwrap();
        let size = |s| save_bytes_as(&wide, s).unwrap().1.len() as f64;
        let (q8, f16, f32) = (size(Storage::Q8), size(Storage::F16), size(Storage::F32));
        assert!(q8 < 0.3 * f32 && f16 < 0.55 * f32, "{q8} {f16} {f32}");
        // An 8-bit tensor without its scales is refused by name.
        let data = vec![1u8; 4];
        let v = safetensors::tensor::TensorView::new(Dtype::I8, vec![2, 2], &data).unwrap();
        let bytes = safetensors::serialize(vec![("w".to_string(), v)], None).unwrap();
        let e = read_tensors(&bytes).unwrap_err().to_string();
        assert!(e.contains("w.q8_scale"), "{e}");
    }

    #[test]
    fn wrong_dtype_is_named() {
        let data = vec![0u8; 8];
        let v = safetensors::tensor::TensorView::new(Dtype::F64, vec![1], &data).unwrap();
        let bytes = safetensors::serialize(vec![("tok_embed".to_string(), v)], None).unwrap();
        let e = read_tensors(&bytes).unwrap_err();
        assert!(
            e.to_string().contains("tok_embed") && e.to_string().contains("F64"),
            "{e}"
        );
    }

    #[test]
    fn files_on_disk_by_stem_or_either_name() {
        let (m, _, _) = saved();
        let dir = std::env::temp_dir().join(format!("glimpse-ckpt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let stem = dir.join("m");
        save_path(&m, &stem).unwrap();
        for p in ["m", "m.json", "m.safetensors"] {
            assert_eq!(load_path(&dir.join(p)).unwrap().weights, m.weights);
        }
        // An oversized weights file is refused from its size alone, before any read. The
        // file is sparse, so the test costs no disk.
        let big = std::fs::File::create(dir.join("big.safetensors")).unwrap();
        big.set_len(MAX_WEIGHTS_BYTES + 1).unwrap();
        std::fs::copy(dir.join("m.json"), dir.join("big.json")).unwrap();
        let e = load_path(&dir.join("big")).unwrap_err();
        assert!(matches!(e, ModelError::TooLarge { .. }), "{e}");
        let e = load_path(&dir.join("absent")).unwrap_err();
        assert!(matches!(e, ModelError::Io { .. }), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
