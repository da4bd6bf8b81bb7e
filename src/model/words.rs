//! Which tokens make up one word. A sub-word tokenizer cuts "tokenization" into `token`,
//! `##ization` (WordPiece) or ` token`, `ization` (BPE); a character model reads a word one
//! letter at a time. Grouping the tokens back into words lets the head classifier recognise a
//! head that reads "the rest of my own word".

use super::subword::SubwordKind;
use super::tokenizer::{Tokenizer, TokenizerKind};

/// How a tokenizer marks the pieces of a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordMarks {
    /// Every token is a word (Glimpse's word-level tokenizer).
    EachToken,
    /// A continuation piece starts with `##` (BERT's WordPiece).
    Hashes,
    /// A new word starts with a space; spaces and punctuation stand alone (byte-level and
    /// SentencePiece BPE, shown with their spaces; a character model's letters).
    Spaces,
}

impl WordMarks {
    pub fn of(tokenizer: &Tokenizer) -> Self {
        match (tokenizer.kind(), tokenizer.as_subword().map(|t| t.kind())) {
            (TokenizerKind::Word, _) => Self::EachToken,
            (_, Some(SubwordKind::WordPiece)) => Self::Hashes,
            _ => Self::Spaces,
        }
    }
}

/// The word of every token, numbered from 0 in order: tokens of one word share a number.
/// `special[i]` marks tokens that are never part of a word (`[CLS]`, `<bos>`).
pub fn word_index(pieces: &[&str], special: &[bool], marks: WordMarks) -> Vec<usize> {
    let mut words = Vec::with_capacity(pieces.len());
    let mut word = 0;
    // Whether the token before can be continued (it is part of a word, not a space,
    // punctuation or a special token).
    let mut open = false;
    for (i, piece) in pieces.iter().enumerate() {
        let alone = special.get(i).copied().unwrap_or(false) || stands_alone(piece);
        let continues = match marks {
            WordMarks::EachToken => false,
            WordMarks::Hashes => piece.starts_with("##") && open,
            WordMarks::Spaces => open && !alone && !piece.starts_with(char::is_whitespace),
        };
        if i > 0 && !continues {
            word += 1;
        }
        words.push(word);
        open = !alone;
    }
    words
}

/// A piece with no letter or digit ("." or " " or "--"), or an escaped control character
/// (`\n`, shown with its backslash), is a word of its own.
fn stands_alone(piece: &str) -> bool {
    !piece.chars().any(char::is_alphanumeric) || piece.starts_with('\\')
}

/// The word of every token of `ids`, for `tokenizer`.
pub fn words_of(tokenizer: &Tokenizer, ids: &[u32]) -> Vec<usize> {
    let specials = tokenizer.specials();
    let special: Vec<bool> = ids
        .iter()
        .map(|&id| match tokenizer.as_subword() {
            Some(t) => t.is_special(id),
            None => [specials.pad, specials.bos, specials.eos].contains(&Some(id)),
        })
        .collect();
    let pieces: Vec<&str> = ids.iter().map(|&id| tokenizer.token(id)).collect();
    word_index(&pieces, &special, WordMarks::of(tokenizer))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(pieces: &[&str], marks: WordMarks) -> Vec<usize> {
        word_index(pieces, &vec![false; pieces.len()], marks)
    }

    #[test]
    fn wordpiece_continuations_join_their_word() {
        let pieces = [
            "[CLS]",
            "token",
            "##ization",
            "is",
            "fun",
            "##ny",
            ".",
            "[SEP]",
        ];
        let special = [true, false, false, false, false, false, false, true];
        assert_eq!(
            word_index(&pieces, &special, WordMarks::Hashes),
            [0, 1, 1, 2, 3, 3, 4, 5]
        );
        // "##" right after a special token cannot continue anything.
        assert_eq!(
            word_index(&["[CLS]", "##a"], &[true, false], WordMarks::Hashes),
            [0, 1]
        );
    }

    #[test]
    fn bpe_words_start_with_a_space() {
        let pieces = ["The", " anim", "al", " didn", "'t", " cross", ".", " It"];
        assert_eq!(words(&pieces, WordMarks::Spaces), [0, 1, 1, 2, 2, 3, 4, 5]);
        // A newline starts a word too, and a byte piece continues its character.
        assert_eq!(
            words(&["\\n", "caf", "<0xC3>", "<0xA9>"], WordMarks::Spaces),
            [0, 1, 1, 1]
        );
    }

    #[test]
    fn characters_group_between_spaces() {
        let pieces: Vec<String> = "the cat.".chars().map(String::from).collect();
        let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
        assert_eq!(words(&pieces, WordMarks::Spaces), [0, 0, 0, 1, 2, 2, 2, 3]);
    }

    #[test]
    fn word_tokens_are_words() {
        assert_eq!(words(&["le", "chat", "."], WordMarks::EachToken), [0, 1, 2]);
        assert!(words(&[], WordMarks::Spaces).is_empty());
    }
}
