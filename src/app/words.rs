//! The app's words for names the model layer gives in English (`label()` there serves the
//! command line's JSON and the tests): the attention kinds, the head patterns, the model
//! families and the positional schemes, in the reader's language.

use crate::model::builtin::BuiltinInfo;
use crate::model::config::{Family, Positional};
use crate::model::heads::Pattern;
use crate::model::trace::AttentionKind;
use crate::{i18n, t};

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

/// The model layer's fixed English sentences the app shows (a conversion's stage, why there
/// is no GPU, why a lab cannot run on a model), in the reader's language; any other text
/// (a file's own error, with its details) unchanged.
pub fn model_says(text: &str) -> String {
    // "no GPU: …" is the GPU error's own framing around its reason.
    if let Some(reason) = text.strip_prefix("no GPU: ") {
        return t!("names-no-gpu", reason = model_says(reason));
    }
    match text {
        "reading the files" => t!("names-stage-reading"),
        "copying the tensors out of the file" => t!("names-stage-copying"),
        "building the tokenizer" => t!("names-stage-tokenizer"),
        "listing the vocabulary" => t!("names-stage-vocabulary"),
        "mapping the tensors onto the model" => t!("names-stage-mapping"),
        "putting the model together" => t!("names-stage-assembling"),
        "done" => t!("names-stage-done"),
        "this browser does not offer WebGPU (navigator.gpu gave no adapter)" => {
            t!("names-no-webgpu")
        }
        "induction needs a decoder-only model: it predicts each next token from the ones before it" => {
            t!("names-induction-needs-decoder")
        }
        "waiting for the forward pass of the input" => t!("names-waiting-for-pass"),
        other => other.to_string(),
    }
}

/// A built-in model's one-line description (the message `builtin-<name>`).
pub fn builtin_description(b: &BuiltinInfo) -> String {
    let key = format!("builtin-{}", b.name);
    if i18n::has(i18n::ENGLISH, &key) {
        i18n::tr(&key, &[])
    } else {
        b.description.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every built-in model is described in every language; in English as the model says.
    #[test]
    fn every_builtin_is_described_in_every_language() {
        for b in crate::model::builtin::BUILTINS {
            let key = format!("builtin-{}", b.name);
            for lang in i18n::codes() {
                assert!(i18n::has(lang, &key), "{lang} lacks {key}");
            }
            crate::i18n::set(crate::i18n::ENGLISH);
            assert_eq!(builtin_description(b), b.description);
        }
    }

    /// In English the model layer's sentences read as it writes them; in Spanish they change.
    #[test]
    fn the_model_layers_sentences_are_translated() {
        let said = [
            "reading the files",
            "copying the tensors out of the file",
            "building the tokenizer",
            "listing the vocabulary",
            "mapping the tensors onto the model",
            "putting the model together",
            "this browser does not offer WebGPU (navigator.gpu gave no adapter)",
            "induction needs a decoder-only model: it predicts each next token from the ones before it",
            "waiting for the forward pass of the input",
        ];
        for text in said {
            i18n::set(i18n::ENGLISH);
            assert_eq!(model_says(text), text);
            i18n::set("es");
            assert_ne!(model_says(text), text);
        }
        i18n::set("es");
        assert_eq!(model_says("a file's own error"), "a file's own error");
        assert!(model_says("no GPU: building the tokenizer")
            .ends_with(&model_says("building the tokenizer")));
        i18n::set(i18n::ENGLISH);
    }

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
