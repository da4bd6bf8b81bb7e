//! Text and token ids into a model's checked input: its own tokenizer, `<bos>` where the
//! family wants one, the cut at `max_len`, and the checks every pass starts with.

use super::{ForwardOptions, Model, ModelInput, PreparedInput};
use crate::model::error::{ModelError, Result};
use crate::model::subword::SubwordTokenizer;
use crate::model::tokenizer::BOS;

impl Model {
    /// Tokenize text for this model's family, cutting anything past `max_len`.
    /// `source` feeds the encoder; `target` the decoder (after `<bos>`). A decoder-only model
    /// reads `source` when `target` is empty, so one text box serves every family.
    /// A checkpoint's own tokenizer adds the special tokens it was trained with instead
    /// (`[CLS] … [SEP]` with token types for BERT, `<s>` where a Llama adds it, none for GPT-2).
    pub fn prepare(&self, source: &str, target: &str) -> PreparedInput {
        if let Some(t) = self.tokenizer.as_subword() {
            let text = if target.is_empty() { source } else { target };
            return self.prepare_subword(t, text);
        }
        let max = self.config.max_len;
        let mut unknown = 0;
        let mut truncated = 0;
        let mut encode = |text: &str, with_bos: bool| {
            let e = self.tokenizer.encode(text);
            unknown += e.unknown;
            let mut ids = Vec::with_capacity(e.ids.len() + 1);
            if with_bos {
                ids.push(BOS);
            }
            ids.extend(e.ids);
            truncated += ids.len().saturating_sub(max);
            ids.truncate(max);
            ids
        };
        let family = self.config.family;
        let input = match (family.has_encoder(), family.has_decoder()) {
            (true, false) => ModelInput {
                source: encode(source, false),
                target: vec![],
                ..Default::default()
            },
            (false, true) => ModelInput {
                source: vec![],
                target: encode(if target.is_empty() { source } else { target }, true),
                ..Default::default()
            },
            _ => ModelInput {
                source: encode(source, false),
                target: encode(target, true),
                ..Default::default()
            },
        };
        self.prepared(input, unknown, truncated)
    }

    fn prepare_subword(&self, t: &SubwordTokenizer, text: &str) -> PreparedInput {
        let max = self.config.max_len;
        let encoded = t.encode(text, None, true).unwrap_or_default();
        let unk = t.specials().unk;
        let unknown = encoded.ids.iter().filter(|&&i| Some(i) == unk).count();
        let truncated = encoded.ids.len().saturating_sub(max);
        let (mut ids, mut types) = (encoded.ids, encoded.type_ids);
        ids.truncate(max);
        types.truncate(max);
        let input = self.input_from_ids(ids, types);
        self.prepared(input, unknown, truncated)
    }

    fn prepared(&self, input: ModelInput, unknown: usize, truncated: usize) -> PreparedInput {
        PreparedInput {
            source_words: crate::model::words::words_of(&self.tokenizer, &input.source),
            target_words: crate::model::words::words_of(&self.tokenizer, &input.target),
            input,
            unknown,
            truncated,
        }
    }

    /// Token ids (and token types) as the input of this model's one stack: the encoder's
    /// source, or the decoder's target.
    pub fn input_from_ids(&self, ids: Vec<u32>, types: Vec<u32>) -> ModelInput {
        if self.config.family.has_encoder() {
            ModelInput {
                source: ids,
                source_types: types,
                ..Default::default()
            }
        } else {
            ModelInput {
                target: ids,
                ..Default::default()
            }
        }
    }

    pub(super) fn check_ids(&self, ids: &[u32], side: &str) -> Result<()> {
        if ids.is_empty() {
            return Err(ModelError::Input(format!(
                "the {side} is empty: type at least one token"
            )));
        }
        if ids.len() > self.config.max_len {
            return Err(ModelError::TooLong {
                len: ids.len(),
                max: self.config.max_len,
            });
        }
        let vocab = self.config.vocab_size();
        match ids.iter().find(|&&i| i as usize >= vocab) {
            Some(&id) => Err(ModelError::BadTokenId { id, vocab }),
            None => Ok(()),
        }
    }

    /// Token types are one per token (or none), each with an embedding row.
    pub(super) fn check_types(&self, types: &[u32], t: usize) -> Result<()> {
        if types.is_empty() {
            return Ok(());
        }
        if types.len() != t {
            return Err(ModelError::Input(format!(
                "{} token types for {t} tokens: give one type per token",
                types.len()
            )));
        }
        let n = self.config.extensions.token_types.max(1);
        match types.iter().find(|&&ty| ty as usize >= n) {
            Some(ty) => Err(ModelError::Input(format!(
                "token type {ty} is outside the model's {n} token types"
            ))),
            None => Ok(()),
        }
    }

    pub(crate) fn check_options(&self, opts: &ForwardOptions) -> Result<()> {
        if !(opts.temperature > 0.0 && opts.temperature.is_finite()) {
            return Err(ModelError::Input(format!(
                "temperature must be a positive number, got {}",
                opts.temperature
            )));
        }
        Ok(())
    }
}
