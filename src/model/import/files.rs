//! A checkpoint handed over as named files in memory: dropped on the page or picked in a file
//! dialog, fetched from a hub or any URL, or served beside the app. Says which files a
//! checkpoint needs, and opens it through the same path as `glimpse --model`.

use super::conversion::Conversion;
use super::detect::{detect, refuse_pickle_name, FileKind};
use super::limits::{Limits, Progress};
use super::open::CheckpointInfo;
use super::safetensors_file::{parse_index, read_safetensors_with, ReadOptions, INDEX_FILE};
use crate::model::{Model, ModelError, Result};
use std::collections::BTreeMap;

/// The Hugging Face file names a folder checkpoint is made of.
pub const CONFIG: &str = "config.json";
pub const TOKENIZER: &str = "tokenizer.json";
pub const WEIGHTS: &str = "model.safetensors";

/// Files by their name within the checkpoint's folder (a dropped folder's own name and any
/// sub-folders are dropped: `MiniLM/config.json` is `config.json`).
#[derive(Default, Clone)]
pub struct CheckpointFiles {
    files: BTreeMap<String, Vec<u8>>,
}

impl CheckpointFiles {
    pub fn new() -> Self {
        Self::default()
    }

    /// Add one file under its base name (the last part of `path`).
    pub fn add(&mut self, path: &str, bytes: Vec<u8>) {
        let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
        self.files.insert(base.to_string(), bytes);
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.files.get(name).map(Vec::as_slice)
    }

    pub fn total_bytes(&self) -> u64 {
        self.files.values().map(|b| b.len() as u64).sum()
    }

    /// A name for the model: the GGUF file's stem, or the dropped folder's name when the
    /// files came in one (`fallback` otherwise).
    pub fn model_name(&self, folder: Option<&str>, fallback: &str) -> String {
        if let Some(gguf) = self.gguf_names().first() {
            return gguf.trim_end_matches(".gguf").to_string();
        }
        folder
            .filter(|f| !f.is_empty())
            .unwrap_or(fallback)
            .to_string()
    }

    fn gguf_names(&self) -> Vec<&str> {
        self.files
            .iter()
            .filter(|(n, b)| n.ends_with(".gguf") || detect(b) == FileKind::Gguf)
            .map(|(n, _)| n.as_str())
            .collect()
    }

    /// Open the checkpoint: one `.gguf` file, or a Hugging Face folder (`config.json`,
    /// `tokenizer.json`, and `model.safetensors` or `model.safetensors.index.json` with its
    /// shards). Files a checkpoint does not use (`vocab.txt`, `README.md`) are ignored. All at
    /// once; the browser goes a piece a frame with a `Conversion`.
    pub fn open(self, name: &str, source: &str) -> Result<(Model, CheckpointInfo)> {
        Conversion::new(self, name, source).finish()
    }

    /// The checkpoint's first piece: a GGUF file's bytes, or a folder's config, tokenizer and
    /// tensors. The files are let go as soon as their tensors are read, before anything
    /// expands to f32.
    pub(super) fn read(mut self, progress: &mut dyn FnMut(Progress)) -> Result<Read> {
        if self.files.is_empty() {
            return Err(missing("no files were given".into()));
        }
        let gguf = self.gguf_names();
        if !self.files.contains_key(CONFIG) {
            return match gguf.as_slice() {
                [one] => {
                    let one = one.to_string();
                    Ok(Read::Gguf(self.files.remove(&one).unwrap_or_default()))
                }
                [] => Err(missing(format!(
                    "{} has no config.json and no .gguf file",
                    self.listing()
                ))),
                many => Err(missing(format!(
                    "{} GGUF files were given ({}): open one at a time",
                    many.len(),
                    many.join(", ")
                ))),
            };
        }
        let config = String::from_utf8(self.files[CONFIG].clone())
            .map_err(|_| ModelError::Import("config.json is not UTF-8 text".into()))?;
        let Some(tokenizer) = self.files.get(TOKENIZER).cloned() else {
            return Err(missing(format!(
                "{} has no tokenizer.json (Glimpse reads the fast tokenizer's one file; \
                 vocab.txt or merges.txt alone are not enough)",
                self.listing()
            )));
        };
        let tensors = self.read_weights(progress)?;
        Ok(Read::Hf {
            config,
            tokenizer,
            tensors,
        })
    }

    /// The weights: `model.safetensors`, the shards an index names, or the one
    /// `.safetensors` file given under another name.
    fn read_weights(
        &self,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<super::tensors::TensorSet> {
        let limits = Limits::default();
        let safetensors: Vec<&str> = self
            .names()
            .filter(|n| n.ends_with(".safetensors"))
            .collect();
        let single = match safetensors.as_slice() {
            _ if self.files.contains_key(WEIGHTS) => Some(WEIGHTS),
            [one] if !self.files.contains_key(INDEX_FILE) => Some(*one),
            _ => None,
        };
        if let Some(file) = single {
            let opts = ReadOptions {
                file,
                limits,
                ..ReadOptions::default()
            };
            return Ok(read_safetensors_with(&self.files[file], &opts, progress)?);
        }
        let Some(index) = self.files.get(INDEX_FILE) else {
            for name in self.names() {
                refuse_pickle_name(name)?;
            }
            return Err(missing(format!(
                "{} has no weights: give model.safetensors (or \
                 model.safetensors.index.json and its shards)",
                self.listing()
            )));
        };
        let text = std::str::from_utf8(index)
            .map_err(|_| ModelError::Import(format!("{INDEX_FILE} is not UTF-8 text")))?;
        let index = parse_index(text, &limits)?;
        let mut load = |shard: &str| match self.files.get(shard) {
            Some(bytes) => Ok(bytes.clone()),
            None => Err(super::ImportError::ShardIndex {
                file: INDEX_FILE.into(),
                reason: format!("shard `{shard}` was not given with it"),
            }),
        };
        Ok(index.read_shards(&mut load, &limits, progress)?)
    }

    /// "The files given (a, b, c)", for messages.
    fn listing(&self) -> String {
        let names: Vec<&str> = self.names().take(8).collect();
        let more = self.files.len().saturating_sub(names.len());
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        format!("the files given ({}{tail})", names.join(", "))
    }
}

/// What `CheckpointFiles::read` found.
pub(super) enum Read {
    Gguf(Vec<u8>),
    Hf {
        config: String,
        tokenizer: Vec<u8>,
        tensors: super::tensors::TensorSet,
    },
}

fn missing(reason: String) -> ModelError {
    ModelError::Import(format!(
        "{reason}. A checkpoint is one .gguf file, or a Hugging Face folder: config.json, \
         tokenizer.json and model.safetensors"
    ))
}

/// Memory a checkpoint will take once opened, estimated before its weights are downloaded:
/// safetensors stored as 16-bit floats double when converted to f32; GGUF blocks of 4 bits
/// grow up to eightfold (Q4_0 is 4.5 bits a weight; 32 / 4.5 ≈ 7.1).
pub fn estimated_memory(weights_bytes: u64, gguf: bool, config_json: Option<&str>) -> u64 {
    if gguf {
        return weights_bytes.saturating_mul(71) / 10;
    }
    let half = config_json
        .and_then(|c| serde_json::from_str::<serde_json::Value>(c).ok())
        .and_then(|c| {
            c.get("torch_dtype")
                .and_then(|d| d.as_str())
                .map(str::to_owned)
        })
        .is_some_and(|d| d == "float16" || d == "bfloat16");
    if half {
        weights_bytes.saturating_mul(2)
    } else {
        weights_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn fixture(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/hf")
            .join(name)
    }

    fn folder(name: &str) -> CheckpointFiles {
        let mut files = CheckpointFiles::new();
        for entry in std::fs::read_dir(fixture(name)).unwrap() {
            let path = entry.unwrap().path();
            // The fixtures' expected outputs are not part of the checkpoint.
            if path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("expected")
            {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            // As a browser hands a dropped folder over: with the folder in the path.
            files.add(
                &format!("{name}/{}", path.file_name().unwrap().to_string_lossy()),
                bytes,
            );
        }
        files
    }

    /// Dropped files open to the same model as the folder on disk.
    #[test]
    fn a_dropped_folder_opens_like_the_folder_on_disk() {
        for name in ["gpt2", "llama-gqa", "bert-mlm"] {
            let files = folder(name);
            let (dropped, info) = files.open(name, "dropped files").unwrap();
            let (disk, _) = super::super::open::open_path(&fixture(name), &mut |_| {}).unwrap();
            assert_eq!(dropped.weights.len(), disk.weights.len(), "{name}");
            assert_eq!(info.source, "dropped files");
            let text = "the cat sat";
            let a = dropped.prepare(text, "").input;
            let b = disk.prepare(text, "").input;
            let opts = Default::default();
            assert_eq!(
                dropped.forward(&a, &opts).unwrap().logits,
                disk.forward(&b, &opts).unwrap().logits,
                "{name}"
            );
        }
    }

    #[test]
    fn missing_or_wrong_files_are_named() {
        let mut files = folder("gpt2");
        files.files.remove(TOKENIZER);
        let e = files.open("m", "s").unwrap_err().to_string();
        assert!(e.contains("no tokenizer.json"), "{e}");

        let mut files = folder("gpt2");
        files.files.remove(WEIGHTS);
        files.add("pytorch_model.bin", b"PK\x03\x04".to_vec());
        let e = files.open("m", "s").unwrap_err().to_string();
        assert!(e.contains("pickle"), "{e}");

        let mut files = CheckpointFiles::new();
        files.add("notes/readme.md", b"hello".to_vec());
        let e = files.open("m", "s").unwrap_err().to_string();
        assert!(e.contains("readme.md") && e.contains(".gguf"), "{e}");

        let e = CheckpointFiles::new().open("m", "s").unwrap_err();
        assert!(e.to_string().contains("no files"), "{e}");

        // A truncated weights file is refused with the reason, not a panic.
        let mut files = folder("gpt2");
        let w = files.files[WEIGHTS].clone();
        files.add(WEIGHTS, w[..w.len() / 2].to_vec());
        let e = files.open("m", "s").unwrap_err().to_string();
        assert!(e.contains("model.safetensors"), "{e}");
    }

    /// Shards named by an index are read from the files given; a missing shard is named.
    #[test]
    fn sharded_weights_are_read_from_the_files_given() {
        use super::super::safetensors_file::read_safetensors;
        let files = folder("gpt2");
        let whole = read_safetensors(&files.files[WEIGHTS], &mut |_| {}).unwrap();
        let names: Vec<String> = whole.names().map(str::to_string).collect();
        let (first, second) = names.split_at(names.len() / 2);
        let shard = |subset: &[String]| {
            let mut map = crate::model::weights::TensorMap::new();
            for n in subset {
                let t = whole.get(n).unwrap().clone();
                let shape = t.shape.clone();
                let values = ndarray::ArrayD::from_shape_vec(shape, t.into_f32()).unwrap();
                map.insert(n.clone(), values);
            }
            crate::model::checkpoint::write_tensors(&map).unwrap()
        };
        let mut map = serde_json::Map::new();
        for n in first {
            map.insert(n.clone(), "model-00001-of-00002.safetensors".into());
        }
        for n in second {
            map.insert(n.clone(), "model-00002-of-00002.safetensors".into());
        }
        let index = serde_json::json!({ "weight_map": map }).to_string();
        let mut sharded = files.clone();
        sharded.files.remove(WEIGHTS);
        sharded.add(INDEX_FILE, index.into_bytes());
        sharded.add("model-00001-of-00002.safetensors", shard(first));
        let e = sharded.clone().open("m", "s").unwrap_err().to_string();
        assert!(e.contains("model-00002-of-00002.safetensors"), "{e}");
        sharded.add("model-00002-of-00002.safetensors", shard(second));
        let (model, _) = sharded.open("m", "s").unwrap();
        let (reference, _) = files.open("m", "s").unwrap();
        assert_eq!(model.weights.len(), reference.weights.len());
    }

    #[test]
    fn memory_is_estimated_from_the_file_and_its_dtype() {
        assert_eq!(
            estimated_memory(100, false, Some(r#"{"torch_dtype":"float32"}"#)),
            100
        );
        assert_eq!(
            estimated_memory(100, false, Some(r#"{"torch_dtype":"bfloat16"}"#)),
            200
        );
        assert_eq!(estimated_memory(100, false, None), 100);
        assert_eq!(estimated_memory(100, true, None), 710);
    }

    #[test]
    fn names_come_from_the_gguf_file_or_the_folder() {
        let mut files = CheckpointFiles::new();
        files.add("x/config.json", b"{}".to_vec());
        assert_eq!(files.model_name(Some("MiniLM"), "dropped"), "MiniLM");
        assert_eq!(files.model_name(None, "dropped"), "dropped");
        files.add("SmolLM2.Q4_1.gguf", b"GGUF".to_vec());
        assert_eq!(files.model_name(Some("x"), "dropped"), "SmolLM2.Q4_1");
    }
}
