//! A GGUF file's tokenizer built a piece at a time.

use super::{validate, Result, SpecialIds, SubwordKind, SubwordTokenizer};
use crate::model::subword::GgufVocabulary;
use serde_json::Value;

/// A GGUF file's tokenizer built in four pieces, so the browser can draw between them (the
/// whole takes ~150 ms natively for SmolLM2's 49,152 tokens): the `tokenizer.json` the metadata
/// stands for, that JSON checked, the library's tokenizer with the file's special ids, then
/// its first encoding ([`SubwordTokenizer::warm_up`]).
pub struct GgufBuild {
    given: SpecialIds,
    model_vocab: Option<usize>,
    state: BuildState,
}

enum BuildState {
    Json(Value),
    Checked(Box<validate::Checked>, Value),
    Built(Box<SubwordTokenizer>),
}

/// What one piece of a [`GgufBuild`] left: the next piece, or the tokenizer.
pub enum Built {
    Next(GgufBuild),
    Done(Box<SubwordTokenizer>),
}

impl GgufBuild {
    /// The first piece: the JSON, with what the GGUF metadata can get wrong checked.
    pub fn new(data: &GgufVocabulary, model_vocab: Option<usize>) -> Result<Self> {
        Ok(Self {
            given: SpecialIds {
                bos: data.bos,
                eos: data.eos,
                unk: data.unk,
                pad: data.pad,
                ..SpecialIds::default()
            },
            model_vocab,
            state: BuildState::Json(super::gguf::to_json(data)?),
        })
    }

    /// Pieces done, of [`GgufBuild::PIECES`].
    pub fn done(&self) -> usize {
        match self.state {
            BuildState::Json(_) => 1,
            BuildState::Checked(..) => 2,
            BuildState::Built(_) => 3,
        }
    }

    pub const PIECES: usize = 4;

    pub fn step(self) -> Result<Built> {
        let Self {
            given,
            model_vocab,
            state,
        } = self;
        Ok(match state {
            BuildState::Json(value) => {
                let (checked, value) = validate::check(value, model_vocab)?;
                Built::Next(Self {
                    given,
                    model_vocab,
                    state: BuildState::Checked(Box::new(checked), value),
                })
            }
            BuildState::Checked(checked, value) => {
                let mut t = SubwordTokenizer::from_checked(&checked, value, model_vocab)?;
                // The file names its special tokens; those win over names guessed from the
                // vocabulary.
                t.specials = SpecialIds {
                    bos: given.bos.or(t.specials.bos),
                    eos: given.eos.or(t.specials.eos),
                    unk: given.unk.or(t.specials.unk),
                    pad: given.pad.or(t.specials.pad),
                    ..t.specials
                };
                t.kind = SubwordKind::ByteLevelBpe;
                Built::Next(Self {
                    given,
                    model_vocab,
                    state: BuildState::Built(Box::new(t)),
                })
            }
            BuildState::Built(t) => {
                t.warm_up();
                Built::Done(t)
            }
        })
    }
}
