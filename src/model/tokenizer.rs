//! The model's tokenizer: Glimpse's own character- and word-level tokenizers with the four
//! special tokens, or a real checkpoint's sub-word tokenizer (`model::subword`) behind the
//! same interface.
//!
//! In the toy tokenizers unknown pieces become `<unk>` and stay visible as such; text can
//! never produce a special token, so typing "<bos>" gives the characters `<`, `b`, `o`, `s`,
//! `>`.

use super::error::{ModelError, Result};
use super::subword::{SpecialIds, SubwordTokenizer};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;

pub const PAD: u32 = 0;
pub const BOS: u32 = 1;
pub const EOS: u32 = 2;
pub const UNK: u32 = 3;
pub const SPECIALS: [&str; 4] = ["<pad>", "<bos>", "<eos>", "<unk>"];

/// Characters that a word-level tokenizer splits off as tokens of their own.
const WORD_PUNCTUATION: &str = ".,!?;:'\"()";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenizerKind {
    Char,
    Word,
    /// A real checkpoint's WordPiece or BPE tokenizer; `tokens` holds how each id is shown.
    Subword,
}

/// The tokenizer as stored in a model config: its kind and its vocabulary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenizerSpec {
    pub kind: TokenizerKind,
    pub tokens: Vec<String>,
}

impl TokenizerSpec {
    /// Specials followed by the given symbols, in order, without duplicates.
    pub fn with_symbols<S: ToString>(
        kind: TokenizerKind,
        symbols: impl IntoIterator<Item = S>,
    ) -> Self {
        let mut tokens: Vec<String> = SPECIALS.iter().map(|s| s.to_string()).collect();
        for s in symbols {
            let s = s.to_string();
            if !tokens.contains(&s) {
                tokens.push(s);
            }
        }
        Self { kind, tokens }
    }

    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(ModelError::Config(format!("tokenizer: {m}")));
        if self.kind == TokenizerKind::Subword {
            // A checkpoint's own tokenizer was validated when it was read; its shown pieces
            // may repeat (two byte sequences can print alike).
            return if self.tokens.is_empty() {
                bad("the vocabulary is empty".into())
            } else {
                Ok(())
            };
        }
        if self.tokens.len() < SPECIALS.len() + 1 {
            return bad(
                "the vocabulary needs the four special tokens and at least one more".into(),
            );
        }
        for (i, s) in SPECIALS.iter().enumerate() {
            if self.tokens[i] != *s {
                return bad(format!("token {i} must be {s}, found {:?}", self.tokens[i]));
            }
        }
        let mut seen = HashMap::new();
        for (i, t) in self.tokens.iter().enumerate() {
            if t.is_empty() {
                return bad(format!("token {i} is empty"));
            }
            if i >= SPECIALS.len() && self.kind == TokenizerKind::Char && t.chars().count() != 1 {
                return bad(format!(
                    "char vocabulary entry {i} ({t:?}) is not one character"
                ));
            }
            if let Some(j) = seen.insert(t.as_str(), i) {
                return bad(format!("token {t:?} appears twice (ids {j} and {i})"));
            }
        }
        Ok(())
    }
}

/// A ready-to-use tokenizer built from a validated spec.
#[derive(Debug, Clone)]
pub struct Tokenizer {
    spec: TokenizerSpec,
    index: HashMap<String, u32>,
    /// A real checkpoint's tokenizer (`TokenizerKind::Subword`).
    subword: Option<Arc<SubwordTokenizer>>,
}

/// The result of tokenizing text: ids and how each id is shown.
#[derive(Debug, Clone, PartialEq)]
pub struct Encoded {
    pub ids: Vec<u32>,
    /// Number of pieces that were not in the vocabulary (shown as `<unk>`).
    pub unknown: usize,
}

impl Tokenizer {
    pub fn new(spec: TokenizerSpec) -> Result<Self> {
        if spec.kind == TokenizerKind::Subword {
            return Err(ModelError::Config(
                "tokenizer: a sub-word vocabulary needs its tokenizer.json: open the Hugging \
                 Face folder or GGUF file it came from"
                    .into(),
            ));
        }
        spec.validate()?;
        let index = spec
            .tokens
            .iter()
            .enumerate()
            .skip(SPECIALS.len())
            .map(|(i, t)| (t.clone(), i as u32))
            .collect();
        Ok(Self {
            spec,
            index,
            subword: None,
        })
    }

    /// A real checkpoint's tokenizer for a model of `model_vocab` ids (often a few more than
    /// the tokenizer names, padded for speed). Its spec lists how every id is shown (`##ing`,
    /// a space instead of `Ġ`), which is what traces and views label tokens with.
    pub fn subword(tokenizer: SubwordTokenizer, model_vocab: usize) -> Self {
        let tokens = shown_tokens(&tokenizer, 0..model_vocab as u32).collect();
        Self::subword_shown(tokenizer, tokens)
    }

    /// The same, with every id's shown form already listed (`shown_tokens`, a band at a time
    /// while a checkpoint converts in the browser: SmolLM2's 49,152 took 19 ms natively).
    pub fn subword_shown(tokenizer: SubwordTokenizer, tokens: Vec<String>) -> Self {
        Self {
            spec: TokenizerSpec {
                kind: TokenizerKind::Subword,
                tokens,
            },
            index: HashMap::new(),
            subword: Some(Arc::new(tokenizer)),
        }
    }

    /// The checkpoint's own tokenizer, if this is one.
    pub fn as_subword(&self) -> Option<&SubwordTokenizer> {
        self.subword.as_deref()
    }

    /// The special tokens' ids: the toy tokenizers' fixed four, or the checkpoint's own.
    pub fn specials(&self) -> SpecialIds {
        match &self.subword {
            Some(t) => t.specials().clone(),
            None => SpecialIds {
                pad: Some(PAD),
                bos: Some(BOS),
                eos: Some(EOS),
                unk: Some(UNK),
                ..SpecialIds::default()
            },
        }
    }

    pub fn spec(&self) -> &TokenizerSpec {
        &self.spec
    }

    pub fn kind(&self) -> TokenizerKind {
        self.spec.kind
    }

    pub fn vocab_size(&self) -> usize {
        self.spec.tokens.len()
    }

    /// Split text into pieces (before vocabulary lookup).
    pub fn pieces(&self, text: &str) -> Vec<String> {
        if let Some(t) = &self.subword {
            return t
                .encode(text, None, false)
                .map(|e| e.pieces)
                .unwrap_or_default();
        }
        match self.spec.kind {
            TokenizerKind::Subword => Vec::new(),
            TokenizerKind::Char => text.chars().map(|c| c.to_string()).collect(),
            TokenizerKind::Word => {
                let mut out = Vec::new();
                for word in text.split_whitespace() {
                    let mut current = String::new();
                    for c in word.chars().flat_map(char::to_lowercase) {
                        if WORD_PUNCTUATION.contains(c) {
                            if !current.is_empty() {
                                out.push(std::mem::take(&mut current));
                            }
                            out.push(c.to_string());
                        } else {
                            current.push(c);
                        }
                    }
                    if !current.is_empty() {
                        out.push(current);
                    }
                }
                out
            }
        }
    }

    /// Text to ids; no special tokens are added.
    pub fn encode(&self, text: &str) -> Encoded {
        if let Some(t) = &self.subword {
            let ids = t
                .encode(text, None, false)
                .map(|e| e.ids)
                .unwrap_or_default();
            let unk = t.specials().unk;
            let unknown = ids.iter().filter(|&&i| Some(i) == unk).count();
            return Encoded { ids, unknown };
        }
        let mut unknown = 0;
        let ids = self
            .pieces(text)
            .iter()
            .map(|p| match self.index.get(p) {
                Some(&id) => id,
                None => {
                    unknown += 1;
                    UNK
                }
            })
            .collect();
        Encoded { ids, unknown }
    }

    /// How an id is shown; out-of-range ids show as `<unk>`.
    pub fn token(&self, id: u32) -> &str {
        self.spec
            .tokens
            .get(id as usize)
            .map(String::as_str)
            .unwrap_or(SPECIALS[UNK as usize])
    }

    pub fn tokens(&self, ids: &[u32]) -> Vec<String> {
        ids.iter().map(|&i| self.token(i).to_string()).collect()
    }

    /// Ids back to text, skipping `<pad>`, `<bos>`, `<eos>`.
    pub fn decode(&self, ids: &[u32]) -> String {
        if let Some(t) = &self.subword {
            let plain: Vec<u32> = ids.iter().copied().filter(|&i| !t.is_special(i)).collect();
            return t
                .decode(&plain)
                .unwrap_or_else(|_| self.tokens(&plain).concat());
        }
        let sep = match self.spec.kind {
            TokenizerKind::Char | TokenizerKind::Subword => "",
            TokenizerKind::Word => " ",
        };
        ids.iter()
            .filter(|&&i| !matches!(i, PAD | BOS | EOS))
            .map(|&i| self.token(i))
            .collect::<Vec<_>>()
            .join(sep)
    }
}

/// How the ids in `ids` are shown (`##ing`, a space instead of `Ġ`; `<id>` for an id the
/// tokenizer does not name).
pub fn shown_tokens(
    tokenizer: &SubwordTokenizer,
    ids: std::ops::Range<u32>,
) -> impl Iterator<Item = String> + '_ {
    ids.map(|id| {
        tokenizer
            .display_piece(id)
            .unwrap_or_else(|| format!("<{id}>"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars() -> Tokenizer {
        Tokenizer::new(TokenizerSpec::with_symbols(
            TokenizerKind::Char,
            "ab c".chars(),
        ))
        .unwrap()
    }

    fn words() -> Tokenizer {
        Tokenizer::new(TokenizerSpec::with_symbols(
            TokenizerKind::Word,
            ["je", "suis", "étudiant", "."],
        ))
        .unwrap()
    }

    #[test]
    fn char_level_maps_unknown_to_unk() {
        let t = chars();
        let e = t.encode("ab💥c");
        assert_eq!(e.ids, vec![4, 5, UNK, 7]);
        assert_eq!(e.unknown, 1);
        assert_eq!(t.tokens(&e.ids), vec!["a", "b", "<unk>", "c"]);
    }

    #[test]
    fn typed_specials_are_plain_characters() {
        let t = chars();
        let e = t.encode("<bos>");
        assert!(e.ids.iter().all(|&i| i == UNK || i >= 4));
        assert!(!e.ids.contains(&BOS));
    }

    #[test]
    fn word_level_lowercases_and_splits_punctuation() {
        let t = words();
        assert_eq!(
            t.pieces("Je  suis étudiant."),
            vec!["je", "suis", "étudiant", "."]
        );
        let e = t.encode("Je suis prof.");
        assert_eq!(t.tokens(&e.ids), vec!["je", "suis", "<unk>", "."]);
        assert_eq!(t.decode(&[BOS, 4, 5, EOS]), "je suis");
    }

    #[test]
    fn empty_and_whitespace_input_give_no_ids() {
        assert!(words().encode("   ").ids.is_empty());
        assert!(chars().encode("").ids.is_empty());
    }

    #[test]
    fn out_of_range_ids_show_as_unk() {
        assert_eq!(chars().token(9999), "<unk>");
    }

    #[test]
    fn bad_vocabularies_are_refused() {
        let mut s = TokenizerSpec::with_symbols(TokenizerKind::Char, "ab".chars());
        s.tokens.swap(0, 1);
        assert!(Tokenizer::new(s).is_err());
        let mut s = TokenizerSpec::with_symbols(TokenizerKind::Char, "ab".chars());
        s.tokens.push("a".into());
        assert!(Tokenizer::new(s).unwrap_err().to_string().contains("twice"));
        let s = TokenizerSpec::with_symbols(TokenizerKind::Char, ["ab"]);
        assert!(Tokenizer::new(s)
            .unwrap_err()
            .to_string()
            .contains("not one character"));
        let s = TokenizerSpec {
            kind: TokenizerKind::Char,
            tokens: vec![],
        };
        assert!(Tokenizer::new(s).is_err());
    }
}
