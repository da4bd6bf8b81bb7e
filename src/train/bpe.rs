//! Training a byte-level BPE tokenizer (GPT-2's scheme) with the `tokenizers` crate, written as
//! a `tokenizer.json` that `model::subword` reads like any checkpoint's. Native only: the
//! browser opens tokenizers, it never trains them.

use crate::model::{ModelError, Result};
use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::{BpeTrainer, BPE};
use tokenizers::models::TrainerWrapper;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::{AddedToken, Tokenizer};

/// The one special token: separates documents in training and starts every evaluated text.
/// `model::subword` recognises it by name as the end-of-sequence token.
pub const END_OF_TEXT: &str = "<|endoftext|>";

/// A byte-level BPE of `vocab_size` ids (the 256 byte symbols, `<|endoftext|>` and the merges)
/// learnt from `texts`; returns the `tokenizer.json` text. Every byte has a symbol, so no
/// text ever maps to an unknown token. Deterministic for the same texts.
pub fn train_byte_level_bpe<'a>(
    texts: impl Iterator<Item = &'a str> + Send,
    vocab_size: usize,
) -> Result<String> {
    let err = |what: &str, e: tokenizers::Error| ModelError::Input(format!("{what}: {e}"));
    let alphabet = ByteLevel::alphabet();
    if vocab_size < alphabet.len() + 1 {
        return Err(ModelError::Config(format!(
            "a byte-level BPE needs at least {} ids (256 bytes and {END_OF_TEXT}), got {vocab_size}",
            alphabet.len() + 1
        )));
    }
    let mut trainer: TrainerWrapper = BpeTrainer::builder()
        .vocab_size(vocab_size)
        .min_frequency(2)
        .show_progress(false)
        .initial_alphabet(alphabet.into_iter().collect())
        .special_tokens(vec![AddedToken::from(END_OF_TEXT, true)])
        .build()
        .into();
    let mut tok = Tokenizer::new(BPE::default());
    // No prefix space: a text's first word is split as written. Offsets trimmed, GPT-2's regex.
    tok.with_pre_tokenizer(Some(ByteLevel::new(false, true, true)));
    tok.with_decoder(Some(ByteLevelDecoder::default()));
    tok.train(&mut trainer, texts)
        .map_err(|e| err("training the tokenizer", e))?;
    tok.to_string(false)
        .map_err(|e| err("writing tokenizer.json", e))
}

/// `tokenizer_json` with `<mask>` added after its last id, unless it has one already. The mask
/// swallows the space before it (`lstrip`, as RoBERTa's does), so a typed "the <mask> of"
/// hides one token, " state" with its space, as training hid it.
pub fn with_mask_token(tokenizer_json: &str) -> Result<String> {
    use super::mlm::MASK_TOKEN;
    let err = |what: &str, e: tokenizers::Error| ModelError::Input(format!("{what}: {e}"));
    let mut tok: Tokenizer = tokenizer_json
        .parse()
        .map_err(|e| err("reading tokenizer.json", e))?;
    if tok.token_to_id(MASK_TOKEN).is_none() {
        tok.add_special_tokens([AddedToken::from(MASK_TOKEN, true).lstrip(true)])
            .map_err(|e| err("adding the mask token", e))?;
    }
    tok.to_string(false)
        .map_err(|e| err("writing tokenizer.json", e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::subword::SubwordTokenizer;

    const TEXT: &str = "The Congress shall have power to lay and collect taxes. \
        The Congress shall assemble at least once in every year. \
        The President shall, from time to time, give to the Congress information of the state \
        of the Union, and recommend to their consideration such measures as he shall judge \
        necessary and expedient.";

    #[test]
    fn the_trained_file_opens_in_glimpse_and_round_trips() {
        let json = train_byte_level_bpe(TEXT.split(". "), 300).unwrap();
        let t = SubwordTokenizer::from_bytes(json.as_bytes(), Some(300)).unwrap();
        assert_eq!(t.vocab_size(), 300);
        assert_eq!(t.specials().eos, t.piece_to_id(END_OF_TEXT));
        // Text it never saw, with bytes outside ASCII: every byte has a symbol.
        for s in [
            TEXT,
            "Zebras über naïve café — 1776!",
            "  two  spaces\nand a line",
        ] {
            let e = t.encode(s, None, false).unwrap();
            assert_eq!(t.decode(&e.ids).unwrap(), s);
            assert!(e.ids.iter().all(|&i| (i as usize) < 300));
        }
        // Merges were learnt: the frequent word is one piece (with its leading space).
        let e = t.encode(" Congress", None, false).unwrap();
        assert_eq!(e.ids.len(), 1, "{:?}", e.pieces);
        // The same texts give the same file.
        assert_eq!(train_byte_level_bpe(TEXT.split(". "), 300).unwrap(), json);
    }

    #[test]
    fn the_mask_token_hides_one_word_with_its_space() {
        let json = with_mask_token(&train_byte_level_bpe(TEXT.split(". "), 300).unwrap()).unwrap();
        let t = SubwordTokenizer::from_bytes(json.as_bytes(), Some(301)).unwrap();
        let mask = t.specials().mask.unwrap();
        assert_eq!(mask, 300, "appended after the last id");
        let plain = t.encode("of the Congress shall", None, false).unwrap();
        let masked = t.encode("of the <mask> shall", None, false).unwrap();
        assert_eq!(plain.ids.len(), masked.ids.len(), "{:?}", masked.pieces);
        let at = plain.ids.iter().zip(&masked.ids).position(|(a, b)| a != b);
        assert_eq!(masked.ids[at.unwrap()], mask);
        assert_eq!(with_mask_token(&json).unwrap(), json, "added once");
    }

    #[test]
    fn too_small_a_vocabulary_is_refused() {
        assert!(train_byte_level_bpe(TEXT.split(". "), 100).is_err());
    }
}
