//! Checkpoints: a JSON config plus a safetensors weights file (docs/FORMAT.md).
//! A file is either loaded whole and checked, or refused with a message naming the problem.

use super::config::ModelConfig;
use super::error::{ModelError, Result};
use super::transformer::Model;
use super::weights::{TensorMap, Weights};
use ndarray::{ArrayD, IxDyn};
use safetensors::{Dtype, SafeTensors};

/// Largest weights file Glimpse reads.
pub const MAX_WEIGHTS_BYTES: u64 = 512 * 1024 * 1024;

/// Decode every tensor of a safetensors buffer as `f32`.
pub fn read_tensors(bytes: &[u8]) -> Result<TensorMap> {
    if bytes.len() as u64 > MAX_WEIGHTS_BYTES {
        return Err(ModelError::TooLarge {
            size: bytes.len() as u64,
            limit: MAX_WEIGHTS_BYTES,
        });
    }
    let st = SafeTensors::deserialize(bytes).map_err(|e| ModelError::Safetensors(e.to_string()))?;
    let mut map = TensorMap::new();
    for (name, view) in st.tensors() {
        if view.dtype() != Dtype::F32 {
            return Err(ModelError::DType {
                name,
                found: format!("{:?}", view.dtype()),
            });
        }
        let data: Vec<f32> = view
            .data()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let shape = view.shape().to_vec();
        let t = ArrayD::from_shape_vec(IxDyn(&shape), data).map_err(|e| {
            ModelError::Safetensors(format!(
                "tensor `{name}` has a bad size for shape {shape:?}: {e}"
            ))
        })?;
        map.insert(name, t);
    }
    Ok(map)
}

/// Encode named tensors as a safetensors buffer.
pub fn write_tensors(map: &TensorMap) -> Result<Vec<u8>> {
    let bytes: Vec<(String, Vec<usize>, Vec<u8>)> = map
        .iter()
        .map(|(name, t)| {
            let data = t.iter().flat_map(|v| v.to_le_bytes()).collect();
            (name.clone(), t.shape().to_vec(), data)
        })
        .collect();
    let views = bytes
        .iter()
        .map(|(name, shape, data)| {
            safetensors::tensor::TensorView::new(Dtype::F32, shape.clone(), data)
                .map(|v| (name.clone(), v))
                .map_err(|e| ModelError::Safetensors(e.to_string()))
        })
        .collect::<Result<Vec<_>>>()?;
    safetensors::serialize(views, None).map_err(|e| ModelError::Safetensors(e.to_string()))
}

/// A model from its config text and weights bytes.
pub fn load_bytes(config_json: &str, weights: &[u8]) -> Result<Model> {
    let config = ModelConfig::from_json(config_json)?;
    let tensors = read_tensors(weights)?;
    let weights = Weights::from_tensors(&config, tensors)?;
    Model::new(config, weights)
}

/// A model as config text and weights bytes.
pub fn save_bytes(model: &Model) -> Result<(String, Vec<u8>)> {
    Ok((
        model.config.to_json(),
        write_tensors(&model.weights.to_tensors())?,
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
    load_bytes(&text, &bytes)
}

#[cfg(not(target_arch = "wasm32"))]
pub fn save_path(model: &Model, path: &std::path::Path) -> Result<()> {
    let (json, weights) = checkpoint_paths(path);
    let (text, bytes) = save_bytes(model)?;
    let io = |p: &std::path::Path, e: std::io::Error| ModelError::Io {
        path: p.display().to_string(),
        reason: e.to_string(),
    };
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
