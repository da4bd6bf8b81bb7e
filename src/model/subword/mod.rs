//! Sub-word tokenizers of real checkpoints: a Hugging Face `tokenizer.json` (WordPiece, BPE) or
//! the byte-level BPE stored in a GGUF file's metadata, run by the `tokenizers` crate.
//!
//! The crate panics on some crafted files, and a panic in the browser kills the page, so a file is
//! checked before the crate sees it (`validate`); natively, loading and encoding also run under
//! `catch_unwind` as a second guard. Pieces are shown the way readers expect (`display`).

mod display;
mod encode;
mod gguf;
mod gguf_build;
mod validate;

#[cfg(test)]
mod tests;

pub use gguf::GgufVocabulary;
pub use gguf_build::{Built, GgufBuild};
pub use validate::{MAX_ADDED, MAX_FILE_BYTES, MAX_MERGES, MAX_VOCAB};

use serde::Serialize;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use thiserror::Error;
use tokenizers::{AddedToken, NormalizedString, Normalizer, Tokenizer};

/// Ids at or above this are refused outright, whatever the model (16.7 M).
pub const MAX_ID: u32 = 1 << 24;
/// Longest text `encode` accepts, in bytes.
pub const MAX_TEXT_BYTES: usize = 1 << 20;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum SubwordError {
    #[error("the tokenizer file is {size} bytes, more than the {limit}-byte limit")]
    TooLarge { size: usize, limit: usize },
    #[error("the tokenizer file is not valid JSON: {0}")]
    Json(String),
    #[error("invalid tokenizer file: {0}")]
    Invalid(String),
    #[error("unsupported tokenizer: {0}")]
    Unsupported(String),
    #[error("the tokenizer does not fit the model: {0}")]
    VocabMismatch(String),
    #[error("invalid GGUF tokenizer metadata: {0}")]
    Gguf(String),
    #[error("the tokenizers library refused it: {0}")]
    Library(String),
    #[error("the tokenizers library crashed while {0}")]
    Panicked(String),
    #[error("the text is {len} bytes, more than the {limit}-byte limit")]
    TextTooLong { len: usize, limit: usize },
    #[error("input has {len} tokens but this model accepts at most {max}")]
    TooLong { len: usize, max: usize },
    #[error("token id {id} is not in the vocabulary of {vocab} tokens")]
    BadId { id: u32, vocab: usize },
}

pub type Result<T> = std::result::Result<T, SubwordError>;

impl From<SubwordError> for crate::model::ModelError {
    fn from(e: SubwordError) -> Self {
        use crate::model::ModelError;
        match e {
            SubwordError::TooLong { len, max } => ModelError::TooLong { len, max },
            SubwordError::BadId { id, vocab } => ModelError::BadTokenId { id, vocab },
            SubwordError::TextTooLong { .. } => ModelError::Input(e.to_string()),
            other => ModelError::Input(other.to_string()),
        }
    }
}

/// How a tokenizer cuts words, which decides how its pieces are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SubwordKind {
    /// BERT's WordPiece: continuation pieces start with `##`.
    WordPiece,
    /// GPT-2 style BPE over bytes (`Ġ` = space).
    ByteLevelBpe,
    /// SentencePiece-style BPE (`▁` = space, `<0xHH>` byte fallback), as Llama 2.
    SentencePieceBpe,
    /// Any other BPE.
    Bpe,
}

impl SubwordKind {
    pub fn label(self) -> &'static str {
        match self {
            Self::WordPiece => "WordPiece",
            Self::ByteLevelBpe => "byte-level BPE",
            Self::SentencePieceBpe => "SentencePiece BPE",
            Self::Bpe => "BPE",
        }
    }
}

/// The special tokens a model uses, found by their usual names and from the post-processor.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SpecialIds {
    pub cls: Option<u32>,
    pub sep: Option<u32>,
    pub mask: Option<u32>,
    pub pad: Option<u32>,
    pub bos: Option<u32>,
    pub eos: Option<u32>,
    pub unk: Option<u32>,
}

/// What to do with an input longer than the model accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Overflow {
    /// `encode` returns `SubwordError::TooLong`.
    Refuse,
    /// Tokens are dropped from the end of the text (the longer text first, for a pair), the
    /// special tokens kept, and the result says so in `truncation`.
    Truncate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct InputLimit {
    pub max_tokens: usize,
    pub overflow: Overflow,
}

/// How an encoding was shortened to fit `InputLimit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Truncation {
    /// Tokens before truncation, special tokens included.
    pub original_len: usize,
    pub max_tokens: usize,
    /// Tokens dropped from the text and from the pair text.
    pub dropped: [usize; 2],
}

/// One encoded text (or pair of texts), one entry per token in every list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SubwordEncoding {
    pub ids: Vec<u32>,
    /// Segment ids (BERT's token types): 0 for the text, usually 1 for the pair text.
    pub type_ids: Vec<u32>,
    pub attention_mask: Vec<u32>,
    /// Byte range of the token in its own text (`sequence`); (0, 0) for inserted special tokens.
    pub offsets: Vec<(usize, usize)>,
    /// 0 = the text, 1 = the pair text, `None` = a special token the template inserted.
    pub sequence: Vec<Option<usize>>,
    /// Special tokens: inserted by the template, or special tokens of the vocabulary wherever they
    /// come from (`[MASK]` typed in the text, `[UNK]` for an unknown word, `<|im_start|>`).
    pub special: Vec<bool>,
    /// The tokens as readers expect to see them (`##ing`, ` the`, `\n`, `<0xE2>`).
    pub pieces: Vec<String>,
    /// Set when the input was longer than the limit and was cut.
    pub truncation: Option<Truncation>,
}

impl SubwordEncoding {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

#[derive(Debug, Clone)]
pub struct SubwordTokenizer {
    inner: Tokenizer,
    kind: SubwordKind,
    vocab_size: usize,
    specials: SpecialIds,
    /// Ids of special added tokens and of the tokens the post-processor inserts.
    special_ids: HashSet<u32>,
    /// Added tokens are plain text, shown as written.
    added_ids: HashSet<u32>,
    limit: Option<InputLimit>,
}

/// Runs `f`, turning a panic of the crate into an error. In the browser (panic = abort) nothing
/// is caught, which is why `validate` exists.
fn guard<T>(doing: &str, f: impl FnOnce() -> T) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let msg = crate::util::panic_text(&*payload).unwrap_or_default();
        SubwordError::Panicked(format!("{doing}: {msg}"))
    })
}

fn library(e: impl std::fmt::Display) -> SubwordError {
    SubwordError::Library(e.to_string())
}

impl SubwordTokenizer {
    /// Loads a `tokenizer.json`. With `model_vocab`, every id the tokenizer can produce must be
    /// below it (the model's embedding rows).
    pub fn from_bytes(bytes: &[u8], model_vocab: Option<usize>) -> Result<Self> {
        if bytes.len() > MAX_FILE_BYTES {
            return Err(SubwordError::TooLarge {
                size: bytes.len(),
                limit: MAX_FILE_BYTES,
            });
        }
        let value: Value =
            serde_json::from_slice(bytes).map_err(|e| SubwordError::Json(e.to_string()))?;
        Self::from_value(value, model_vocab)
    }

    /// Builds the byte-level BPE described by a GGUF file's metadata, all pieces at once.
    pub fn from_gguf(data: &GgufVocabulary, model_vocab: Option<usize>) -> Result<Self> {
        let mut build = GgufBuild::new(data, model_vocab)?;
        loop {
            match build.step()? {
                Built::Done(t) => return Ok(*t),
                Built::Next(b) => build = b,
            }
        }
    }

    fn from_value(value: Value, model_vocab: Option<usize>) -> Result<Self> {
        let (checked, value) = validate::check(value, model_vocab)?;
        Self::from_checked(&checked, value, model_vocab)
    }

    /// The library's tokenizer from a `tokenizer.json` that `validate::check` passed.
    fn from_checked(
        checked: &validate::Checked,
        value: Value,
        model_vocab: Option<usize>,
    ) -> Result<Self> {
        let inner: Tokenizer =
            guard("loading the tokenizer", || serde_json::from_value(value))?.map_err(library)?;
        let added: HashMap<u32, AddedToken> =
            inner.get_added_tokens_decoder().into_iter().collect();
        check_added_patterns(&inner, &added)?;
        let max_model = checked.model_tokens.keys().max().copied().unwrap_or(0);
        let max_added = added.keys().max().copied().unwrap_or(0);
        let vocab_size = max_model.max(max_added) as usize + 1;
        if let Some(limit) = model_vocab {
            if vocab_size > limit {
                return Err(SubwordError::VocabMismatch(format!(
                    "the tokenizer has ids up to {}, the model's vocabulary has {limit}",
                    vocab_size - 1
                )));
            }
        }
        let kind = match checked.model_type {
            "WordPiece" => SubwordKind::WordPiece,
            _ if checked.byte_level => SubwordKind::ByteLevelBpe,
            _ if checked.metaspace => SubwordKind::SentencePieceBpe,
            _ => SubwordKind::Bpe,
        };
        let mut special_ids: HashSet<u32> = added
            .iter()
            .filter(|(_, t)| t.special)
            .map(|(&id, _)| id)
            .collect();
        special_ids.extend(checked.before.iter().chain(&checked.after).map(|t| t.1));
        let added_ids = added.keys().copied().collect();
        let mut t = Self {
            inner,
            kind,
            vocab_size,
            specials: SpecialIds::default(),
            special_ids,
            added_ids,
            limit: None,
        };
        t.specials = t.find_specials(checked);
        Ok(t)
    }

    /// Special ids by the usual names, then from the post-processor's template.
    fn find_specials(&self, checked: &validate::Checked) -> SpecialIds {
        let named = |names: &[&str]| names.iter().find_map(|n| self.inner.token_to_id(n));
        let first = checked.before.first().map(|t| t.1);
        let last = checked.after.last().map(|t| t.1);
        let wordpiece = self.kind == SubwordKind::WordPiece;
        SpecialIds {
            cls: checked
                .cls
                .or_else(|| named(&["[CLS]", "<cls>"]))
                .or(first.filter(|_| wordpiece)),
            sep: checked
                .sep
                .or_else(|| named(&["[SEP]", "<sep>"]))
                .or(last.filter(|_| wordpiece)),
            mask: named(&["[MASK]", "<mask>"]),
            pad: named(&["[PAD]", "<pad>", "<|padding|>", "<|pad|>"]),
            bos: named(&[
                "<s>",
                "<|begin_of_text|>",
                "<|startoftext|>",
                "<bos>",
                "[BOS]",
            ])
            .or(first.filter(|_| !wordpiece)),
            eos: named(&["</s>", "<|end_of_text|>", "<|endoftext|>", "<eos>", "[EOS]"])
                .or(last.filter(|_| !wordpiece)),
            unk: checked
                .unk_token
                .as_deref()
                .and_then(|u| self.inner.token_to_id(u))
                .or_else(|| named(&["[UNK]", "<unk>", "<|unk|>"])),
        }
    }

    pub fn kind(&self) -> SubwordKind {
        self.kind
    }

    /// One more than the largest id (model vocabulary and added tokens).
    pub fn vocab_size(&self) -> usize {
        self.vocab_size
    }

    pub fn specials(&self) -> &SpecialIds {
        &self.specials
    }

    /// Replaces the special ids, e.g. with those a model's config names.
    pub fn set_specials(&mut self, specials: SpecialIds) {
        self.specials = specials;
    }

    pub fn limit(&self) -> Option<InputLimit> {
        self.limit
    }

    /// The model's context: inputs longer than `max_tokens` are refused or truncated.
    pub fn set_limit(&mut self, limit: Option<InputLimit>) {
        self.limit = limit;
    }

    pub fn with_limit(mut self, limit: Option<InputLimit>) -> Self {
        self.limit = limit;
        self
    }

    /// Whether `id` is a special token (an added special token or one a template inserts).
    pub fn is_special(&self, id: u32) -> bool {
        self.special_ids.contains(&id)
    }

    /// The vocabulary string of `id` as the tokenizer stores it (`Ġthe`, `##ing`).
    pub fn id_to_piece(&self, id: u32) -> Option<String> {
        self.inner.id_to_token(id)
    }

    pub fn piece_to_id(&self, piece: &str) -> Option<u32> {
        self.inner.token_to_id(piece)
    }

    /// The tokenizer as `tokenizer.json` text (what a checkpoint saves beside its weights).
    pub fn to_json(&self) -> Result<String> {
        self.inner.to_string(false).map_err(library)
    }

    /// `id` as a reader expects to see it (`##ing`, ` the`, `\n`, `<0xE2>`).
    pub fn display_piece(&self, id: u32) -> Option<String> {
        self.id_to_piece(id).map(|t| self.show(id, &t))
    }

    fn show(&self, id: u32, token: &str) -> String {
        if self.added_ids.contains(&id) {
            display::escape(token)
        } else {
            display::piece(self.kind, token)
        }
    }
}

/// Added tokens are matched in the text as written or, when `normalized`, as the normalizer
/// rewrites them. Two shapes make the crate cut the text at impossible places and panic: a token
/// that normalizes to nothing, and a token that starts with whitespace while another strips the
/// whitespace after itself (the second match then begins inside the first).
fn check_added_patterns(inner: &Tokenizer, added: &HashMap<u32, AddedToken>) -> Result<()> {
    let stripper = added.values().find(|t| t.rstrip);
    for t in added.values() {
        let mut pattern = t.content.clone();
        if t.normalized {
            if let Some(n) = inner.get_normalizer() {
                let mut s = NormalizedString::from(t.content.as_str());
                guard("normalizing an added token", || n.normalize(&mut s))?.map_err(library)?;
                pattern = s.get().to_string();
            }
        }
        if pattern.is_empty() {
            return Err(SubwordError::Unsupported(format!(
                "added token {:?} becomes empty once normalized, so it cannot be found in text",
                t.content
            )));
        }
        if let Some(stripper) = stripper.filter(|_| pattern.starts_with(char::is_whitespace)) {
            return Err(SubwordError::Unsupported(format!(
                "added token {:?} starts with whitespace while {:?} strips whitespace after it; \
                 the tokenizers library cannot split text with both",
                t.content, stripper.content
            )));
        }
    }
    Ok(())
}
