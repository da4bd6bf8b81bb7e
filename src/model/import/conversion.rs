//! Opening a checkpoint a piece at a time, so the page can draw between pieces and say how far
//! it has got: read the file (a GGUF's blocks are copied out and the file let go), expand the
//! quantized tensors to f32 one by one (SmolLM2: 210 of them, about 2 ms each natively), build
//! the tokenizer, list how its tokens are shown a band at a time, then map the tensors onto the
//! model a block at a time. `CheckpointFiles::open` runs every piece in one go (the CLI,
//! `glimpse --model`, tests); the browser runs a few each frame.

use super::files::CheckpointFiles;
use super::gguf::{Gguf, TensorReading};
use super::gguf_model::GgufTokenizerData;
use super::hf_config::LlamaConfig;
use super::limits::{Limits, Progress};
use super::map::LlamaMapping;
use super::open::{assemble, stored_types, CheckpointInfo, HfOpening, Info};
use super::tensors::TensorSet;
use crate::model::subword::{Built, GgufBuild, SubwordTokenizer};
use crate::model::tokenizer::{shown_tokens, Tokenizer};
use crate::model::{Model, ModelError, Result};
use serde::Serialize;

/// Where a conversion stands, for a progress bar.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stage {
    /// "reading the file", "building the tokenizer", …
    pub what: &'static str,
    pub done: usize,
    pub total: usize,
}

pub struct Conversion {
    name: String,
    source: String,
    next: Next,
}

enum Next {
    Read(CheckpointFiles),
    /// A Hugging Face folder's tensors are read (and converted) with the file, then mapped,
    /// its tokenizer built and the model put together, a piece a step.
    Hf(Box<HfOpening>),
    /// A GGUF file parsed, its tensors being copied out of it a few at a time.
    GgufRead(Box<GgufRead>),
    Gguf(Box<GgufSteps>),
    Done,
}

/// Bytes of tensors copied out of a GGUF file per step (a few milliseconds in a browser).
const READ_BYTES_PER_STEP: usize = 8 << 20;

/// Tokens whose shown form is listed per step (SmolLM2's 49,152 took 19 ms natively at once).
const TOKENS_PER_STEP: usize = 8192;

/// A parsed GGUF file whose tensors are being copied out.
struct GgufRead {
    bytes: Vec<u8>,
    gguf: Gguf,
    config: LlamaConfig,
    reading: TensorReading,
}

/// A GGUF file's pieces: its metadata and blocks (the file itself already let go).
struct GgufSteps {
    gguf: Gguf,
    config: LlamaConfig,
    tensors: TensorSet,
    /// The tokenizer while it is built, a piece a step.
    building: Option<GgufBuild>,
    tokenizer: Option<SubwordTokenizer>,
    /// How each id is shown (`Tokenizer::subword_shown`), listed a band a step once it is built.
    shown: Vec<String>,
    /// The tensors being mapped onto the model, a block a step (after the tokenizer).
    mapping: Option<LlamaMapping>,
    stored_bytes: usize,
    parameters: usize,
    format: String,
}

impl Conversion {
    /// Nothing is done until the first `step`.
    pub fn new(files: CheckpointFiles, name: &str, source: &str) -> Self {
        Self {
            name: name.into(),
            source: source.into(),
            next: Next::Read(files),
        }
    }

    /// One piece of the work; the model (or why it cannot be opened) once the last is done.
    pub fn step(&mut self) -> Option<Result<(Model, CheckpointInfo)>> {
        let next = std::mem::replace(&mut self.next, Next::Done);
        let (name, source) = (self.name.as_str(), self.source.as_str());
        match next {
            Next::Read(files) => match files.read(&mut |_: Progress| {}) {
                Ok(super::files::Read::Gguf(bytes)) => match GgufRead::parse(bytes, source) {
                    Ok(g) => self.next = Next::GgufRead(Box::new(g)),
                    Err(e) => return Some(Err(e)),
                },
                Ok(super::files::Read::Hf {
                    config,
                    tokenizer,
                    tensors,
                }) => match HfOpening::new(&config, tensors, tokenizer) {
                    Ok(h) => self.next = Next::Hf(Box::new(h)),
                    Err(e) => return Some(Err(e)),
                },
                Err(e) => return Some(Err(e)),
            },
            Next::Hf(mut h) => match h.step(name, source) {
                Ok(None) => self.next = Next::Hf(h),
                Ok(Some(done)) => return Some(Ok(done)),
                Err(e) => return Some(Err(e)),
            },
            Next::GgufRead(mut g) => match g.read_some(READ_BYTES_PER_STEP, &mut |_| {}) {
                Ok(false) => self.next = Next::GgufRead(g),
                Ok(true) => self.next = Next::Gguf(Box::new(GgufSteps::from_read(*g))),
                Err(e) => return Some(Err(e)),
            },
            Next::Gguf(mut g) => {
                if g.tokenizer.is_none() {
                    if let Err(e) = g.build_tokenizer() {
                        return Some(Err(e));
                    }
                } else if g.shown.len() < g.config.vocab_size {
                    g.list_tokens();
                } else {
                    match g.map_next(name) {
                        Ok(true) => return Some(g.finish(name, source)),
                        Ok(false) => {}
                        Err(e) => return Some(Err(e)),
                    }
                }
                self.next = Next::Gguf(g);
            }
            Next::Done => {
                return Some(Err(ModelError::Import(
                    "this conversion has already finished".into(),
                )))
            }
        }
        None
    }

    /// A GGUF file read already (`glimpse --model FILE.gguf`).
    pub(super) fn gguf(
        bytes: Vec<u8>,
        name: &str,
        source: &str,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Self> {
        Ok(Self {
            name: name.into(),
            source: source.into(),
            next: Next::Gguf(Box::new(GgufSteps::read(bytes, source, progress)?)),
        })
    }

    /// Every remaining piece at once.
    pub fn finish(mut self) -> Result<(Model, CheckpointInfo)> {
        loop {
            if let Some(done) = self.step() {
                return done;
            }
        }
    }

    /// What the next step does, and how many of its kind are done.
    pub fn stage(&self) -> Stage {
        let (what, done, total) = match &self.next {
            Next::Read(_) => ("reading the files", 0, 1),
            Next::GgufRead(g) => {
                let (done, total) = g.gguf.tensors_read(&g.reading);
                ("copying the tensors out of the file", done, total)
            }
            Next::Hf(h) => h.stage(),
            Next::Gguf(g) if g.tokenizer.is_none() => (
                "building the tokenizer",
                g.building.as_ref().map_or(0, GgufBuild::done),
                GgufBuild::PIECES,
            ),
            Next::Gguf(g) if g.shown.len() < g.config.vocab_size => (
                "listing the vocabulary",
                g.shown.len().div_ceil(TOKENS_PER_STEP),
                g.config.vocab_size.div_ceil(TOKENS_PER_STEP),
            ),
            Next::Gguf(g) => (
                "mapping the tensors onto the model",
                g.mapping.as_ref().map_or(0, |m| 1 + m.blocks_done()),
                g.config.num_hidden_layers + 2,
            ),
            Next::Done => ("done", 1, 1),
        };
        Stage { what, done, total }
    }
}

impl GgufRead {
    /// Parse the header and check the tensors' memory; nothing is copied yet.
    fn parse(bytes: Vec<u8>, source: &str) -> Result<Self> {
        let limits = Limits::default();
        let gguf = Gguf::parse_with(&bytes, source, &limits)?;
        let config = LlamaConfig::from_gguf(&gguf)?;
        let reading = gguf.start_reading(&bytes, &limits)?;
        Ok(Self {
            bytes,
            gguf,
            config,
            reading,
        })
    }

    /// Copy about `budget` bytes of tensors; true once all are copied. The file is cut behind
    /// the copies as they go (they are taken last first), so its memory is given back while
    /// the blocks are copied out instead of after.
    fn read_some(&mut self, budget: usize, progress: &mut dyn FnMut(Progress)) -> Result<bool> {
        let done = self
            .gguf
            .read_some(&self.bytes, &mut self.reading, budget, progress)?;
        let needed = self.reading.needed_up_to();
        if needed < self.bytes.len() {
            self.bytes.truncate(needed);
            self.bytes.shrink_to_fit();
        }
        Ok(done)
    }
}

impl GgufSteps {
    /// Parse the header, copy the blocks out, and let the file go.
    fn read(bytes: Vec<u8>, source: &str, progress: &mut dyn FnMut(Progress)) -> Result<Self> {
        let mut g = GgufRead::parse(bytes, source)?;
        while !g.read_some(usize::MAX, progress)? {}
        Ok(Self::from_read(g))
    }

    /// The tensors copied out and the file let go. Quantized matrices stay in their blocks
    /// (`model::weight_matrix`); nothing is expanded.
    fn from_read(g: GgufRead) -> Self {
        let GgufRead {
            bytes,
            gguf,
            config,
            reading,
        } = g;
        drop(bytes);
        let tensors = reading.set;
        Self {
            stored_bytes: tensors.memory_bytes(),
            parameters: tensors.parameter_count(),
            format: format!("GGUF ({})", stored_types(&tensors)),
            gguf,
            config,
            tensors,
            building: None,
            tokenizer: None,
            shown: Vec::new(),
            mapping: None,
        }
    }

    /// One piece of the tokenizer: its JSON from the metadata, the check, or the build.
    fn build_tokenizer(&mut self) -> Result<()> {
        let wrap = |e| ModelError::Import(format!("the GGUF tokenizer: {e}"));
        let build = match self.building.take() {
            Some(b) => b,
            None => {
                let data = GgufTokenizerData::from_gguf(&self.gguf)?;
                let vocab = Some(self.config.vocab_size);
                self.building = Some(GgufBuild::new(&(&data).into(), vocab).map_err(wrap)?);
                return Ok(());
            }
        };
        match build.step().map_err(wrap)? {
            Built::Next(b) => self.building = Some(b),
            Built::Done(t) => self.tokenizer = Some(*t),
        }
        Ok(())
    }

    /// How the next band of ids is shown.
    fn list_tokens(&mut self) {
        let Some(sub) = &self.tokenizer else {
            return;
        };
        let start = self.shown.len();
        let end = (start + TOKENS_PER_STEP).min(self.config.vocab_size);
        self.shown
            .extend(shown_tokens(sub, start as u32..end as u32));
    }

    /// One piece of the mapping: the config and the embedding table, then a block a step;
    /// true once every block is mapped.
    fn map_next(&mut self, name: &str) -> Result<bool> {
        match &mut self.mapping {
            None => {
                let m = LlamaMapping::new(&self.config, &mut self.tensors, name, true)?;
                self.mapping = Some(m);
            }
            Some(m) if m.blocks_done() < m.blocks() => m.next_block(&mut self.tensors)?,
            Some(_) => return Ok(true),
        }
        Ok(false)
    }

    /// The last piece: the final norm and output matrix, and the model put together.
    fn finish(mut self, name: &str, source: &str) -> Result<(Model, CheckpointInfo)> {
        let (Some(sub), Some(mapping)) = (self.tokenizer.take(), self.mapping.take()) else {
            return Err(ModelError::Import(format!(
                "{name}: the conversion finished before its tokenizer and blocks"
            )));
        };
        let mapped = mapping.finish(&mut self.tensors)?;
        let tokenizer = Tokenizer::subword_shown(sub, std::mem::take(&mut self.shown));
        let info = Info {
            source,
            format: self.format,
            model_type: "llama",
            parameters: self.parameters,
            stored_bytes: self.stored_bytes,
        };
        assemble(mapped, tokenizer, self.tensors, info)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SmolLM2's GGUF opens a piece at a time: the file read and parsed, its tensors copied out
    /// 8 MB at a time (every quantized matrix left in its blocks), the tokenizer, then the
    /// mapping a block at a time; the stages a progress bar shows only move forward.
    #[test]
    fn a_gguf_opens_a_tensor_at_a_time_with_its_stage_reported() {
        let Some(path) = crate::util::real_models::smollm2() else {
            return;
        };
        let mut files = CheckpointFiles::new();
        files.add(&path.to_string_lossy(), std::fs::read(&path).unwrap());
        let mut c = Conversion::new(files, "smol", "test");
        let mut stages = vec![c.stage()];
        let (model, info) = loop {
            if let Some(done) = c.step() {
                break done.unwrap();
            }
            stages.push(c.stage());
        };
        let whats: Vec<&str> = stages.iter().map(|s| s.what).collect();
        let mut kinds = whats.clone();
        kinds.dedup();
        assert_eq!(
            kinds,
            [
                "reading the files",
                "copying the tensors out of the file",
                "building the tokenizer",
                "listing the vocabulary",
                "mapping the tensors onto the model"
            ]
        );
        // The 98 MB file copied out 8 MB a step (the 30 MB Q8_0 vocabulary table is one piece).
        let copying = stages
            .iter()
            .filter(|s| s.what == "copying the tensors out of the file")
            .count();
        assert!((6..=20).contains(&copying), "{copying} copying steps");
        // (done, total) of every step of one kind, in order.
        let steps = |what: &str| -> Vec<(usize, usize)> {
            stages
                .iter()
                .filter(|s| s.what == what)
                .map(|s| (s.done, s.total))
                .collect()
        };
        let counted = |n: usize| (0..n).map(|k| (k, n)).collect::<Vec<_>>();
        // The tokenizer in four pieces (JSON, check, build, first encoding), each its own step.
        assert_eq!(steps("building the tokenizer"), counted(4));
        // How the 49,152 ids are shown, 8,192 a step: 6 steps.
        assert_eq!(steps("listing the vocabulary"), counted(6));
        let whole = Tokenizer::subword(
            model.tokenizer.as_subword().unwrap().clone(),
            model.config.vocab_size(),
        );
        assert_eq!(model.tokenizer.spec(), whole.spec());
        // The config and embedding table, each of the 30 blocks, then the output: 32 steps.
        assert_eq!(steps("mapping the tensors onto the model"), counted(32));
        assert_eq!(model.config.n_layers, 30);
        // 30 layers × 5 matrices (Q, K and V fused; O; gate, up, down: 6), and the table, all
        // still in their blocks: 92 MB of weights where f32 took 514 MiB.
        assert!(model.weights.tok_embed.as_f32().is_none());
        assert_eq!(model.weights.quantized_matrices().len(), 30 * 5 + 1);
        let bytes = model.weights.memory_bytes();
        assert!(bytes < 100_000_000, "{bytes} bytes of weights");
        assert_eq!(info.model_type, "llama");
        assert!(c.step().unwrap().is_err(), "a finished conversion says so");
    }

    /// A Hugging Face folder: read, mapped, its tokenizer built, then put together, a piece
    /// a step, with the same model as opening it in one go.
    #[test]
    fn a_folder_opens_in_four_pieces() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hf/gpt2");
        let mut files = CheckpointFiles::new();
        for f in ["config.json", "tokenizer.json", "model.safetensors"] {
            files.add(f, std::fs::read(dir.join(f)).unwrap());
        }
        let mut c = Conversion::new(files, "gpt2", "test");
        let mut stages = vec![c.stage()];
        let (model, _) = loop {
            if let Some(done) = c.step() {
                break done.unwrap();
            }
            stages.push(c.stage());
        };
        let seen: Vec<(&str, usize, usize)> =
            stages.iter().map(|s| (s.what, s.done, s.total)).collect();
        assert_eq!(
            seen,
            [
                ("reading the files", 0, 1),
                ("mapping the tensors onto the model", 0, 3),
                ("building the tokenizer", 1, 3),
                ("putting the model together", 2, 3),
            ]
        );
        let read = |f: &str| std::fs::read(dir.join(f)).unwrap();
        let config = String::from_utf8(read("config.json")).unwrap();
        let limits = super::super::limits::Limits::default();
        let tensors =
            super::super::safetensors_file::read_path(&dir, &limits, &mut |_| {}).unwrap();
        let (whole, _) =
            super::super::open::from_hf(&config, tensors, &read("tokenizer.json"), "gpt2", "test")
                .unwrap();
        assert_eq!(model.config.n_layers, 2);
        assert_eq!(model.weights, whole.weights);
        let input = model.prepare("The cat sat", "").input;
        let opts = crate::model::ForwardOptions::default();
        assert_eq!(
            model.forward(&input, &opts).unwrap().logits,
            whole.forward(&input, &opts).unwrap().logits
        );
    }
}
