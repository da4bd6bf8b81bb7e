//! What a toy vocabulary lacks. Glimpse's own models know a few dozen words or characters; a
//! typed piece outside them becomes `<unk>`. The app names each such piece with the known
//! tokens closest to it (edit distance, case ignored first), so a student sees what the model
//! can read instead of a silent `<unk>`.

use super::tokenizer::{Tokenizer, TokenizerKind, SPECIALS};

/// A typed piece the vocabulary lacks, and the known tokens nearest to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Unknown {
    pub piece: String,
    pub nearest: Vec<String>,
}

/// The known tokens of a toy tokenizer (its specials left out); empty for a sub-word one,
/// which has no unknown text.
pub fn known(tokenizer: &Tokenizer) -> &[String] {
    match tokenizer.kind() {
        TokenizerKind::Subword => &[],
        _ => tokenizer
            .spec()
            .tokens
            .get(SPECIALS.len()..)
            .unwrap_or_default(),
    }
}

/// Each distinct piece of `text` the tokenizer does not know, in order, with up to `n` nearest
/// known tokens.
pub fn unknown_pieces(tokenizer: &Tokenizer, text: &str, n: usize) -> Vec<Unknown> {
    if tokenizer.kind() == TokenizerKind::Subword {
        return Vec::new();
    }
    let vocabulary = known(tokenizer);
    let mut out: Vec<Unknown> = Vec::new();
    for piece in tokenizer.pieces(text) {
        if vocabulary.contains(&piece) || out.iter().any(|u| u.piece == piece) {
            continue;
        }
        let mut ranked: Vec<(usize, &String)> = vocabulary
            .iter()
            .map(|w| (distance(&piece, w), w))
            .collect();
        // Stable: equal distances keep the vocabulary's order.
        ranked.sort_by_key(|(d, _)| *d);
        out.push(Unknown {
            nearest: ranked.iter().take(n).map(|(_, w)| (*w).clone()).collect(),
            piece,
        });
    }
    out
}

/// Levenshtein distance in characters, doubled, minus one when the two are equal but for case
/// (so "T" is nearest to "t").
fn distance(a: &str, b: &str) -> usize {
    if a.to_lowercase() == b.to_lowercase() {
        return 1;
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // One row of the edit-distance table at a time: row[j] = distance(a[..i], b[..j]).
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut diagonal = row[0];
        row[0] = i;
        for j in 1..=b.len() {
            let substitute = diagonal + usize::from(a[i - 1] != b[j - 1]);
            diagonal = row[j];
            row[j] = substitute.min(row[j] + 1).min(row[j - 1] + 1);
        }
    }
    2 * row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builtin;

    #[test]
    fn edit_distance_with_case_first() {
        assert_eq!(distance("chat", "chat"), 1);
        assert_eq!(distance("T", "t"), 1);
        assert_eq!(distance("chats", "chat"), 2);
        assert_eq!(distance("kitten", "sitting"), 6);
        assert_eq!(distance("", "ab"), 4);
    }

    #[test]
    fn the_translator_names_what_it_does_not_know() {
        let m = builtin::load("translate").unwrap();
        let u = unknown_pieces(&m.tokenizer, "le lapin noir mange la lapin", 3);
        let pieces: Vec<&str> = u.iter().map(|u| u.piece.as_str()).collect();
        assert_eq!(pieces, ["lapin", "mange"]);
        assert_eq!(u[0].nearest.len(), 3);
        assert!(u[0].nearest.iter().all(|w| known(&m.tokenizer).contains(w)));
        assert!(unknown_pieces(&m.tokenizer, "le chat noir", 3).is_empty());
    }

    #[test]
    fn a_capital_letter_is_nearest_its_small_one() {
        let m = builtin::load("lm").unwrap();
        let u = unknown_pieces(&m.tokenizer, "The cat", 2);
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].piece, "T");
        assert_eq!(u[0].nearest[0], "t");
    }

    #[test]
    fn sub_word_models_know_every_text() {
        let m = builtin::load("sotu-lm").unwrap();
        assert!(unknown_pieces(&m.tokenizer, "Zyzzyva ☃", 3).is_empty());
        assert!(known(&m.tokenizer).is_empty());
    }
}
