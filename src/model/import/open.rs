//! From checkpoint files to a ready `Model`: read the files (`safetensors_file`, `gguf`),
//! parse the config (`hf_config`), map the tensors onto the block template (`map`), attach
//! the checkpoint's own tokenizer (`model::subword`), and report what was opened.
//! Everything works on bytes, so the browser (dropped files, fetched URLs) uses the same path
//! as `glimpse --model DIR_OR_GGUF`.

use super::conversion::Conversion;
use super::hf_config::Architecture;
use super::limits::Progress;
use super::map::{self, Mapped};
use super::tensors::TensorSet;
use crate::model::subword::SubwordTokenizer;
use crate::model::tokenizer::Tokenizer;
use crate::model::weights::check_shapes;
use crate::model::{Model, ModelError, Result};
use serde::Serialize;

/// What was opened: shown by `glimpse inspect` and the app's model panel.
#[derive(Debug, Clone, Serialize)]
pub struct CheckpointInfo {
    /// Where it came from (a path, a URL, "dropped files").
    pub source: String,
    /// "Hugging Face safetensors (F32)", "GGUF (Q4_1, Q8_0, F32)", …
    pub format: String,
    /// `bert`, `gpt2`, `llama`, `mistral`, `qwen2`.
    pub model_type: String,
    pub description: String,
    pub parameters: usize,
    /// Bytes the weights take in memory once opened: f32, except a quantized file's
    /// vocabulary table, kept in its blocks (`model::weight_matrix`).
    pub memory_bytes: usize,
    /// Bytes of the weights as stored in the file(s).
    pub stored_bytes: usize,
    pub tokenizer: String,
    pub special_tokens: Vec<(String, u32, String)>,
    /// Tensors in the file that no computation reads (buffers, a pooler).
    pub unused: Vec<String>,
    pub notes: Vec<String>,
}

/// A Hugging Face model from its files' bytes: `config.json`, the weights already read into a
/// `TensorSet` (one file or all shards), and `tokenizer.json`.
pub fn from_hf(
    config_json: &str,
    tensors: TensorSet,
    tokenizer_json: &[u8],
    name: &str,
    source: &str,
) -> Result<(Model, CheckpointInfo)> {
    let mut opening = HfOpening::new(config_json, tensors, tokenizer_json.to_vec())?;
    loop {
        if let Some(done) = opening.step(name, source)? {
            return Ok(done);
        }
    }
}

/// A Hugging Face model opened in three pieces, so the browser can draw between them (each
/// about a third of all-MiniLM-L6-v2's 90 ms in Chromium): the tensors mapped onto the block
/// template, the tokenizer built from `tokenizer.json`, the model put together.
pub(super) struct HfOpening {
    arch: Architecture,
    tensors: TensorSet,
    tokenizer_json: Vec<u8>,
    format: String,
    parameters: usize,
    stored_bytes: usize,
    mapped: Option<Mapped>,
    tokenizer: Option<SubwordTokenizer>,
}

impl HfOpening {
    /// The config parsed and the tensors counted; nothing mapped yet.
    pub fn new(config_json: &str, mut tensors: TensorSet, tokenizer_json: Vec<u8>) -> Result<Self> {
        let arch = Architecture::from_config_json(config_json)?;
        let stored_bytes = tensors.memory_bytes();
        let parameters = tensors.parameter_count();
        let format = format!("Hugging Face safetensors ({})", stored_types(&tensors));
        tensors.rename_legacy_layer_norm()?;
        tensors.strip_base_prefixes()?;
        Ok(Self {
            arch,
            tensors,
            tokenizer_json,
            format,
            parameters,
            stored_bytes,
            mapped: None,
            tokenizer: None,
        })
    }

    /// What the next piece does: its name, the pieces done and all of them.
    pub fn stage(&self) -> (&'static str, usize, usize) {
        match (&self.mapped, &self.tokenizer) {
            (None, _) => ("mapping the tensors onto the model", 0, 3),
            (Some(_), None) => ("building the tokenizer", 1, 3),
            (Some(_), Some(_)) => ("putting the model together", 2, 3),
        }
    }

    /// The next piece; the model once the last is done.
    pub fn step(&mut self, name: &str, source: &str) -> Result<Option<(Model, CheckpointInfo)>> {
        let Some(mapped) = self.mapped.take() else {
            let t = &mut self.tensors;
            self.mapped = Some(match &self.arch {
                Architecture::Bert(c) => map::bert(c, t, name)?,
                Architecture::Gpt2(c) => map::gpt2(c, t, name)?,
                Architecture::Llama(c) => map::llama(c, t, name, false)?,
            });
            return Ok(None);
        };
        let Some(mut sub) = self.tokenizer.take() else {
            let vocab = self.arch.vocab_size();
            let sub = SubwordTokenizer::from_bytes(&self.tokenizer_json, Some(vocab))
                .map_err(|e| ModelError::Import(format!("`tokenizer.json`: {e}")))?;
            self.tokenizer_json = Vec::new();
            self.tokenizer = Some(sub);
            self.mapped = Some(mapped);
            return Ok(None);
        };
        fill_specials(&mut sub, &self.arch);
        let info = Info {
            source,
            format: std::mem::take(&mut self.format),
            model_type: self.arch.model_type(),
            parameters: self.parameters,
            stored_bytes: self.stored_bytes,
        };
        let tokenizer = Tokenizer::subword(sub, mapped.config.vocab_size());
        let tensors = std::mem::take(&mut self.tensors);
        assemble(mapped, tokenizer, tensors, info).map(Some)
    }
}

/// A GGUF file (llama.cpp): config, weights and tokenizer all come from the one file, which
/// is let go as soon as its blocks are copied out, before they expand to f32.
pub fn from_gguf(
    bytes: Vec<u8>,
    name: &str,
    source: &str,
    progress: &mut dyn FnMut(Progress),
) -> Result<(Model, CheckpointInfo)> {
    Conversion::gguf(bytes, name, source, progress)?.finish()
}

/// A Hugging Face folder or a `.gguf` file on disk.
#[cfg(not(target_arch = "wasm32"))]
pub fn open_path(
    path: &std::path::Path,
    progress: &mut dyn FnMut(Progress),
) -> Result<(Model, CheckpointInfo)> {
    let limits = super::limits::Limits::default();
    let source = path.display().to_string();
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| source.clone());
    if path.is_file() {
        let bytes = super::safetensors_file::read_file(path, &limits)?;
        if super::detect(&bytes) == super::FileKind::Gguf {
            return from_gguf(bytes, &name, &source, progress);
        }
        return Err(ModelError::Import(format!(
            "`{source}` is not a GGUF file: give a .gguf file or a Hugging Face folder \
             (config.json, model.safetensors, tokenizer.json)"
        )));
    }
    let read_text = |file: &str| -> Result<Vec<u8>> {
        let p = path.join(file);
        if !p.exists() {
            return Err(ModelError::Import(format!(
                "`{}` has no {file}: a Hugging Face folder needs config.json, \
                 model.safetensors (or model.safetensors.index.json and its shards) and \
                 tokenizer.json",
                source
            )));
        }
        Ok(super::safetensors_file::read_file(&p, &limits)?)
    };
    let config = read_text("config.json")?;
    let tokenizer = read_text("tokenizer.json")?;
    let config = String::from_utf8(config)
        .map_err(|_| ModelError::Import(format!("`{source}/config.json` is not UTF-8 text")))?;
    let tensors = super::safetensors_file::read_path(path, &limits, progress)?;
    from_hf(&config, tensors, &tokenizer, &name, &source)
}

/// The facts of the files themselves, gathered before the mapping consumes the tensors.
pub(super) struct Info<'a> {
    pub source: &'a str,
    pub format: String,
    pub model_type: &'static str,
    pub parameters: usize,
    pub stored_bytes: usize,
}

pub(super) fn assemble(
    mapped: Mapped,
    tokenizer: Tokenizer,
    tensors: TensorSet,
    info: Info,
) -> Result<(Model, CheckpointInfo)> {
    let Mapped {
        mut config,
        weights,
        notes,
    } = mapped;
    let sub = tokenizer
        .as_subword()
        .ok_or_else(|| ModelError::Import("a checkpoint without its own tokenizer".into()))?;
    let tokenizer_label = format!("{} ({} tokens)", sub.kind().label(), sub.vocab_size());
    let specials = sub.specials().clone();
    config.tokenizer = tokenizer.spec().clone();
    check_shapes(&config, &weights)?;
    let model = Model::with_tokenizer(config, tokenizer, weights)?;
    let named = [
        ("cls", specials.cls),
        ("sep", specials.sep),
        ("mask", specials.mask),
        ("pad", specials.pad),
        ("bos", specials.bos),
        ("eos", specials.eos),
        ("unk", specials.unk),
    ];
    let special_tokens = named
        .into_iter()
        .filter_map(|(role, id)| {
            id.map(|id| (role.to_string(), id, model.tokenizer.token(id).to_string()))
        })
        .collect();
    let mut unused = tensors.unused();
    unused.extend(tensors.skipped().iter().cloned());
    let info = CheckpointInfo {
        source: info.source.into(),
        format: info.format,
        model_type: info.model_type.into(),
        description: model.config.description.clone(),
        parameters: info.parameters,
        memory_bytes: model.weights.memory_bytes(),
        stored_bytes: info.stored_bytes,
        tokenizer: tokenizer_label,
        special_tokens,
        unused,
        notes,
    };
    Ok((model, info))
}

/// Specials the tokenizer file leaves unnamed, taken from config.json.
fn fill_specials(sub: &mut SubwordTokenizer, arch: &Architecture) {
    let from_config = map::config_specials(&arch.special_tokens().in_vocab(arch.vocab_size()));
    let mut s = sub.specials().clone();
    s.cls = s.cls.or(from_config.cls);
    s.sep = s.sep.or(from_config.sep);
    s.mask = s.mask.or(from_config.mask);
    s.pad = s.pad.or(from_config.pad);
    s.bos = s.bos.or(from_config.bos);
    s.eos = s.eos.or(from_config.eos);
    s.unk = s.unk.or(from_config.unk);
    sub.set_specials(s);
}

/// The stored types of the tensors, most common first ("Q4_1, Q8_0, F32").
pub(super) fn stored_types(tensors: &TensorSet) -> String {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for (_, t) in tensors.iter() {
        let name = format!("{:?}", t.stored_as);
        match counts.iter_mut().find(|(n, _)| *n == name) {
            Some((_, c)) => *c += 1,
            None => counts.push((name, 1)),
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    counts
        .into_iter()
        .map(|(n, _)| n)
        .collect::<Vec<_>>()
        .join(", ")
}
