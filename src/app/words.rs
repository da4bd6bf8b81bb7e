//! The app's words for names the model layer gives in English (`label()` there serves the
//! command line's JSON and the tests): the attention kinds, the head patterns, the model
//! families and the positional schemes, in the reader's language.

use crate::model::config::{Family, Positional};
use crate::model::heads::Pattern;
use crate::model::trace::AttentionKind;
use crate::t;

/// A model-layer name as the app shows it.
pub trait Words {
    fn words(&self) -> String;
}

impl Words for AttentionKind {
    fn words(&self) -> String {
        match self {
            AttentionKind::EncoderSelf => t!("names-encoder-self"),
            AttentionKind::DecoderSelf => t!("names-decoder-self"),
            AttentionKind::Cross => t!("names-cross"),
        }
    }
}

impl Words for Family {
    fn words(&self) -> String {
        match self {
            Family::Encoder => t!("names-encoder-only"),
            Family::Decoder => t!("names-decoder-only"),
            Family::EncoderDecoder => t!("names-encoder-decoder"),
        }
    }
}

impl Words for Positional {
    fn words(&self) -> String {
        match self {
            Positional::None => t!("names-positional-none"),
            Positional::Sinusoidal { .. } => t!("names-positional-sinusoidal"),
            Positional::Learned => t!("names-positional-learned"),
            // Names, the same in every language.
            Positional::Rope { .. } | Positional::Alibi => self.label().to_string(),
            Positional::Relative { .. } => t!("names-positional-relative"),
        }
    }
}

impl Words for Pattern {
    fn words(&self) -> String {
        match self {
            Pattern::SelfToken => t!("names-pattern-self"),
            Pattern::PreviousToken => t!("names-pattern-previous"),
            Pattern::NextToken => t!("names-pattern-next"),
            Pattern::FirstToken => t!("names-pattern-first"),
            Pattern::LastToken => t!("names-pattern-last"),
            Pattern::SameWord => t!("names-pattern-same-word"),
            Pattern::Broad => t!("names-pattern-broad"),
            Pattern::InductionLike => t!("names-pattern-induction"),
            Pattern::Aligned => t!("names-pattern-aligned"),
        }
    }
}

/// How a head's pattern score is computed, in one sentence for a hover text.
pub fn pattern_explained(p: Pattern) -> String {
    match p {
        Pattern::SelfToken => t!("names-pattern-self-explained"),
        Pattern::PreviousToken => t!("names-pattern-previous-explained"),
        Pattern::NextToken => t!("names-pattern-next-explained"),
        Pattern::FirstToken => t!("names-pattern-first-explained"),
        Pattern::LastToken => t!("names-pattern-last-explained"),
        Pattern::SameWord => t!("names-pattern-same-word-explained"),
        Pattern::Broad => t!("names-pattern-broad-explained"),
        Pattern::InductionLike => t!("names-pattern-induction-explained"),
        Pattern::Aligned => t!("names-pattern-aligned-explained"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In English the app's words are the model layer's own.
    #[test]
    fn english_words_are_the_model_layers_labels() {
        crate::i18n::set(crate::i18n::ENGLISH);
        for k in [
            AttentionKind::EncoderSelf,
            AttentionKind::DecoderSelf,
            AttentionKind::Cross,
        ] {
            assert_eq!(k.words(), k.label());
        }
        for f in [Family::Encoder, Family::Decoder, Family::EncoderDecoder] {
            assert_eq!(f.words(), f.label());
        }
        let patterns = [
            Pattern::SelfToken,
            Pattern::PreviousToken,
            Pattern::NextToken,
            Pattern::FirstToken,
            Pattern::LastToken,
            Pattern::SameWord,
            Pattern::Broad,
            Pattern::InductionLike,
            Pattern::Aligned,
        ];
        for p in patterns {
            assert_eq!(p.words(), p.label());
            assert_eq!(pattern_explained(p), p.explain());
        }
        for p in [
            Positional::None,
            Positional::Sinusoidal { base: 1e4 },
            Positional::Learned,
            Positional::Rope { base: 1e4 },
            Positional::Alibi,
            Positional::Relative { max_distance: 8 },
        ] {
            assert_eq!(p.words(), p.label());
        }
    }
}
