//! Tests of the sub-word tokenizers: the fixtures against what the Python `tokenizers` package
//! made of the same texts (`tests/fixtures/tokenizers/make_fixtures.py`), display, limits, GGUF
//! metadata, every hostile file known to crash the crate, and the real checkpoints when present.

use super::*;
use serde_json::json;
use std::path::{Path, PathBuf};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tokenizers")
}

fn fixture_bytes(name: &str) -> Vec<u8> {
    std::fs::read(fixture_dir().join(format!("{name}.json"))).unwrap()
}

fn fixture(name: &str) -> SubwordTokenizer {
    SubwordTokenizer::from_bytes(&fixture_bytes(name), None).unwrap()
}

fn expected() -> Value {
    serde_json::from_slice(&std::fs::read(fixture_dir().join("expected.json")).unwrap()).unwrap()
}

fn pieces(t: &SubwordTokenizer, text: &str) -> Vec<String> {
    t.encode(text, None, false).unwrap().pieces
}

#[test]
fn fixtures_match_the_python_reference() {
    let expected = expected();
    for name in ["wordpiece", "byte_level", "sentencepiece"] {
        let t = fixture(name);
        let e = &expected[name];
        assert_eq!(
            t.vocab_size() as u64,
            e["vocab_size"].as_u64().unwrap(),
            "{name}"
        );
        let cases = e["cases"].as_array().unwrap();
        assert!(cases.len() >= 10);
        for case in cases {
            let text = case["text"].as_str().unwrap();
            let pair = case["pair"].as_str();
            let got = t.encode(text, pair, true).unwrap();
            let ids: Vec<u32> = serde_json::from_value(case["ids"].clone()).unwrap();
            let at = format!("{name} {text:?} {pair:?}");
            assert_eq!(got.ids, ids, "{at}");
            let type_ids: Vec<u32> = serde_json::from_value(case["type_ids"].clone()).unwrap();
            assert_eq!(got.type_ids, type_ids, "{at}");
            // Python reports offsets in characters, Glimpse in bytes.
            let offsets: Vec<(usize, usize)> =
                serde_json::from_value(case["offsets"].clone()).unwrap();
            let bytes = |s: &str, c: usize| s.char_indices().nth(c).map_or(s.len(), |(b, _)| b);
            let offsets: Vec<(usize, usize)> = offsets
                .iter()
                .zip(&got.sequence)
                .map(|(&(a, b), seq)| {
                    let s = if *seq == Some(1) {
                        pair.unwrap_or("")
                    } else {
                        text
                    };
                    (bytes(s, a), bytes(s, b))
                })
                .collect();
            assert_eq!(got.offsets, offsets, "{at}");
            let sequence: Vec<Option<usize>> =
                serde_json::from_value(case["sequence"].clone()).unwrap();
            assert_eq!(got.sequence, sequence, "{at}");
            let special: Vec<u32> = serde_json::from_value(case["special"].clone()).unwrap();
            // Python marks only inserted tokens; Glimpse also any special token ([UNK] here).
            let special: Vec<bool> = special
                .iter()
                .zip(&ids)
                .map(|(&s, &id)| s == 1 || t.is_special(id))
                .collect();
            assert_eq!(got.special, special, "{at}");
            assert_eq!(got.attention_mask, vec![1; ids.len()], "{at}");
            let tokens: Vec<String> = serde_json::from_value(case["tokens"].clone()).unwrap();
            let stored: Vec<String> = ids.iter().map(|&i| t.id_to_piece(i).unwrap()).collect();
            assert_eq!(stored, tokens, "{at}");
            assert_eq!(
                t.decode(&ids).unwrap(),
                case["decoded"].as_str().unwrap(),
                "{at}"
            );
            assert!(got.truncation.is_none());
        }
    }
}

#[test]
fn kinds_and_special_tokens_are_found() {
    let wp = fixture("wordpiece");
    assert_eq!(wp.kind(), SubwordKind::WordPiece);
    let id = |t: &SubwordTokenizer, s: &str| t.piece_to_id(s);
    assert_eq!(
        *wp.specials(),
        SpecialIds {
            cls: id(&wp, "[CLS]"),
            sep: id(&wp, "[SEP]"),
            mask: id(&wp, "[MASK]"),
            pad: id(&wp, "[PAD]"),
            bos: None,
            eos: None,
            unk: id(&wp, "[UNK]"),
        }
    );
    assert!(wp.specials().cls.is_some() && wp.specials().mask.is_some());
    let bl = fixture("byte_level");
    assert_eq!(bl.kind(), SubwordKind::ByteLevelBpe);
    assert_eq!(bl.specials().eos, id(&bl, "<|endoftext|>"));
    assert!(bl.specials().eos.is_some() && bl.specials().cls.is_none());
    let sp = fixture("sentencepiece");
    assert_eq!(sp.kind(), SubwordKind::SentencePieceBpe);
    assert_eq!(sp.specials().bos, id(&sp, "<s>"));
    assert_eq!(sp.specials().eos, id(&sp, "</s>"));
    assert_eq!(sp.specials().unk, id(&sp, "<unk>"));
    assert!(sp.specials().bos.is_some());
    assert_eq!(SubwordKind::ByteLevelBpe.label(), "byte-level BPE");
}

#[test]
fn wordpiece_pieces_keep_their_hashes() {
    let t = fixture("wordpiece");
    let e = t.encode("Hello, world!", None, true).unwrap();
    assert_eq!(
        e.pieces,
        ["[CLS]", "h", "##el", "##l", "##o", ",", "wor", "##l", "##d", "!", "[SEP]"]
    );
    assert_eq!(e.special.first(), Some(&true));
    // Offsets point into the text, so a view can underline "Hello" for h ##el ##l ##o.
    assert_eq!(&e.offsets[1..5], &[(0, 1), (1, 3), (3, 4), (4, 5)]);
    assert_eq!(
        t.display_piece(t.piece_to_id("##el").unwrap()).unwrap(),
        "##el"
    );
    // A typed [MASK] is one special token, not five characters.
    let m = t.encode("the [MASK] sat", None, false).unwrap();
    assert_eq!(m.pieces, ["the", "[MASK]", "sat"]);
    assert_eq!(m.special, [false, true, false]);
}

#[test]
fn byte_level_pieces_show_the_bytes_they_stand_for() {
    let t = fixture("byte_level");
    assert_eq!(
        pieces(&t, "Hello, world!"),
        ["H", "e", "ll", "o", ",", " ", "wor", "l", "d", "!"]
    );
    assert_eq!(pieces(&t, "The students"), ["The", " s", "tud", "ent", "s"]);
    // é is two bytes; "aÃ" holds an `a` and the first byte of ï, "¯ve" the second byte and "ve".
    let accents = pieces(&t, "Café naïve");
    assert_eq!(accents, ["C", "af", "é", " n", "a<0xC3>", "<0xAF>ve"]);
    let emoji = pieces(&t, "Emoji 😀");
    assert_eq!(emoji, ["Em", "oji", " <0xF0><0x9F>", "<0x98>", "<0x80>"]);
    let lines = pieces(&t, "one\ntwo\n\n  x");
    assert!(lines.contains(&"\\n".to_string()), "{lines:?}");
    assert!(lines
        .iter()
        .all(|p| !p.contains('\n') && !p.contains('Ġ') && !p.contains('Ċ')));
    assert_eq!(
        pieces(&t, "Numbers 3.14159"),
        ["Num", "ber", "s", " ", "3", ".", "14", "15", "9"]
    );
    // Added tokens are shown as written.
    assert_eq!(pieces(&t, "a<|endoftext|>"), ["a", "<|endoftext|>"]);
    // Every vocabulary entry has a display form without the byte alphabet's stand-ins.
    for id in 0..t.vocab_size() as u32 {
        let shown = t.display_piece(id).unwrap();
        assert!(
            !shown.contains('Ġ') && !shown.contains('Ċ'),
            "{id}: {shown:?}"
        );
    }
}

#[test]
fn sentencepiece_pieces_show_spaces_and_bytes() {
    let t = fixture("sentencepiece");
    let e = t.encode("Hello, world!", None, true).unwrap();
    // ▁ is a space; the byte-fallback token <0x48> is the ASCII letter H.
    assert_eq!(
        e.pieces,
        ["<s>", " ", "H", "e", "ll", "o", ",", " ", "w", "or", "l", "d", "!"]
    );
    assert_eq!(
        pieces(&t, "The students"),
        [" The", " s", "tud", "ent", "s"]
    );
    let id = t.piece_to_id("<0xE2>").unwrap();
    assert_eq!(t.display_piece(id).unwrap(), "<0xE2>");
    let nl = t.piece_to_id("<0x0A>").unwrap();
    assert_eq!(t.display_piece(nl).unwrap(), "\\n");
}

#[test]
fn display_helpers() {
    assert_eq!(display::show_bytes(b"a\xE2\x82"), "a<0xE2><0x82>");
    assert_eq!(display::show_bytes("€".as_bytes()), "€");
    assert_eq!(display::show_bytes(b"\xFFx\n\x07"), "<0xFF>x\\n<0x07>");
    assert_eq!(display::escape("a\tb\r\u{85}"), "a\\tb\\r<0x85>");
    let table = display::byte_to_char();
    assert_eq!(table[b' ' as usize], 'Ġ');
    assert_eq!(table[b'\n' as usize], 'Ċ');
    assert_eq!(table[b'a' as usize], 'a');
    let distinct: HashSet<char> = table.iter().copied().collect();
    assert_eq!(distinct.len(), 256);
    assert_eq!(display::piece(SubwordKind::Bpe, "lo</w>"), "lo</w>");
}

#[test]
fn inputs_over_the_limit_are_refused_or_visibly_truncated() {
    let mut t = fixture("wordpiece");
    let text = "The students sat on the mat.";
    let full = t.encode(text, None, true).unwrap();
    assert_eq!(full.len(), 9);
    t.set_limit(Some(InputLimit {
        max_tokens: 5,
        overflow: Overflow::Refuse,
    }));
    assert_eq!(
        t.encode(text, None, true),
        Err(SubwordError::TooLong { len: 9, max: 5 })
    );
    t.set_limit(Some(InputLimit {
        max_tokens: 5,
        overflow: Overflow::Truncate,
    }));
    let cut = t.encode(text, None, true).unwrap();
    assert_eq!(cut.pieces, ["[CLS]", "the", "students", "sat", "[SEP]"]);
    assert_eq!(
        cut.truncation,
        Some(Truncation {
            original_len: 9,
            max_tokens: 5,
            dropped: [4, 0]
        })
    );
    assert_eq!(cut.ids.len(), cut.offsets.len());
    // A pair loses tokens from the longer text first.
    let pair = t
        .encode("The cat sat on the mat.", Some("On it."), true)
        .unwrap();
    assert_eq!(pair.len(), 5);
    let tr = pair.truncation.unwrap();
    assert_eq!(tr.original_len, 14);
    assert_eq!(
        pair.pieces,
        ["[CLS]", "the", "[SEP]", "on", "[SEP]"],
        "{tr:?}"
    );
    assert_eq!(tr.dropped, [6, 3]);
    assert_eq!(pair.type_ids, [0, 0, 0, 1, 1]);
    // Short input is untouched; a limit below the special tokens cannot be met.
    assert!(t.encode("hi", None, true).unwrap().truncation.is_none());
    t.set_limit(Some(InputLimit {
        max_tokens: 2,
        overflow: Overflow::Truncate,
    }));
    assert!(matches!(
        t.encode(text, None, true),
        Err(SubwordError::TooLong { .. })
    ));
    let t = t.with_limit(None);
    assert!(t.limit().is_none());
    let long = "a".repeat(MAX_TEXT_BYTES + 1);
    assert!(matches!(
        t.encode(&long, None, false),
        Err(SubwordError::TextTooLong { .. })
    ));
}

#[test]
fn decode_checks_ids() {
    let t = fixture("byte_level");
    assert_eq!(t.decode(&[]).unwrap(), "");
    let ids = t.encode("Café 😀\n", None, false).unwrap().ids;
    assert_eq!(t.decode(&ids).unwrap(), "Café 😀\n");
    assert_eq!(
        t.decode(&[1, 400]),
        Err(SubwordError::BadId {
            id: 400,
            vocab: 400
        })
    );
    assert!(t.decode(&[u32::MAX]).is_err());
    assert!(t.display_piece(400).is_none());
}

#[test]
fn the_model_vocabulary_must_hold_every_id() {
    let bytes = fixture_bytes("wordpiece");
    assert!(SubwordTokenizer::from_bytes(&bytes, Some(285)).is_ok());
    let e = SubwordTokenizer::from_bytes(&bytes, Some(284)).unwrap_err();
    assert!(matches!(e, SubwordError::VocabMismatch(_)), "{e}");
    assert!(e.to_string().contains("284"), "{e}");
}

/// A small WordPiece `tokenizer.json` in BERT's shape, to break in the tests below.
fn bert_like() -> Value {
    json!({
        "version": "1.0",
        "truncation": {"direction": "Right", "max_length": 4, "strategy": "LongestFirst", "stride": 0},
        "padding": null,
        "added_tokens": [
            {"id": 0, "content": "[PAD]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
            {"id": 1, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
            {"id": 2, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
            {"id": 3, "content": "[SEP]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
            {"id": 4, "content": "[MASK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}
        ],
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {
                "[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}
            }
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
        "model": {
            "type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
            "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, "hello": 5, ",": 6, "world": 7, "!": 8,
                      "un": 9, "##believ": 10, "##able": 11, "cafe": 12}
        }
    })
}

fn load(v: &Value) -> Result<SubwordTokenizer> {
    SubwordTokenizer::from_bytes(&serde_json::to_vec(v).unwrap(), None)
}

#[test]
fn a_bert_like_file_loads_and_its_truncation_is_not_applied_silently() {
    let t = load(&bert_like()).unwrap();
    let e = t
        .encode("Hello, world! Unbelievable café", None, true)
        .unwrap();
    assert_eq!(e.ids, [2, 5, 6, 7, 8, 9, 10, 11, 12, 3]);
    assert_eq!(
        e.pieces,
        ["[CLS]", "hello", ",", "world", "!", "un", "##believ", "##able", "cafe", "[SEP]"]
    );
    assert_eq!(
        t.decode(&e.ids).unwrap(),
        "[CLS] hello, world! unbelievable cafe [SEP]"
    );
    let p = t.encode("hello", Some("world"), true).unwrap();
    assert_eq!(p.ids, [2, 5, 3, 7, 3]);
    assert_eq!(p.type_ids, [0, 0, 0, 1, 1]);
    assert_eq!(p.sequence, [None, Some(0), None, Some(1), None]);
    assert_eq!(t.specials().cls, Some(2));
    assert_eq!(t.specials().sep, Some(3));
    assert_eq!(t.specials().unk, Some(1));
    // Bare ids without special tokens.
    assert_eq!(t.encode("hello", None, false).unwrap().ids, [5]);
}

/// A small BPE `tokenizer.json` with the given vocabulary, merges and model options.
fn bpe(vocab: Value, merges: Value, extra: Value) -> Value {
    let mut model = json!({"type": "BPE", "vocab": vocab, "merges": merges});
    if let (Some(m), Some(x)) = (model.as_object_mut(), extra.as_object()) {
        for (k, v) in x {
            m.insert(k.clone(), v.clone());
        }
    }
    json!({"version": "1.0", "added_tokens": [], "model": model})
}

fn with(mut base: Value, key: &str, value: Value) -> Value {
    if let Some(m) = base.as_object_mut() {
        m.insert(key.into(), value);
    }
    base
}

fn template(single: Value, specials: Value) -> Value {
    json!({
        "type": "TemplateProcessing",
        "single": single,
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": specials,
    })
}

fn added(id: u32, content: &str, lstrip: bool, rstrip: bool) -> Value {
    json!({"id": id, "content": content, "single_word": false, "lstrip": lstrip, "rstrip": rstrip,
           "normalized": false, "special": false})
}

/// Files that make `tokenizers` 0.23 panic when loaded or used (REAL_MODELS.md §5 and found while
/// reading its code); each is refused by the checks with a message.
fn crashing_files() -> Vec<(&'static str, Value, &'static [&'static str])> {
    let a_b = json!([["a", "b"]]);
    vec![
        (
            "merge joined longer than any vocab token",
            bpe(json!({"a": 0, "b": 1}), a_b.clone(), json!({})),
            &["ab"],
        ),
        (
            "merge right part shorter than the prefix",
            bpe(
                json!({"a": 0, "b": 1, "ab": 2}),
                a_b,
                json!({"continuing_subword_prefix": "##"}),
            ),
            &["ab"],
        ),
        (
            "template special token missing",
            with(
                bert_like(),
                "post_processor",
                template(
                    json!([{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}]),
                    json!({}),
                ),
            ),
            &["hello"],
        ),
        (
            "single template with $B",
            with(
                bert_like(),
                "post_processor",
                template(json!([{"Sequence": {"id": "B", "type_id": 0}}]), json!({})),
            ),
            &["hello"],
        ),
        (
            "Strip decoder cutting from the end",
            with(
                bert_like(),
                "decoder",
                json!({"type": "Strip", "content": "!", "start": 0, "stop": 2}),
            ),
            &["!"],
        ),
        (
            "FixedLength of 0",
            with(
                bert_like(),
                "pre_tokenizer",
                json!({"type": "FixedLength", "length": 0}),
            ),
            &["hello"],
        ),
        (
            "rstrip token followed by a whitespace token",
            with(
                bert_like(),
                "added_tokens",
                json!([added(13, "x", false, true), added(14, " ", true, false)]),
            ),
            &["x  "],
        ),
    ]
}

/// Runs what the app would run, on the crate alone.
fn crate_alone(v: &Value, texts: &[&str]) -> std::thread::Result<()> {
    let bytes = serde_json::to_vec(v).unwrap();
    catch_unwind(|| {
        if let Ok(t) = Tokenizer::from_bytes(&bytes) {
            for text in texts {
                if let Ok(e) = t.encode(*text, true) {
                    let _ = t.decode(e.get_ids(), false);
                }
            }
        }
    })
}

#[test]
fn files_that_crash_the_crate_are_refused_before_it_sees_them() {
    for (what, file, texts) in crashing_files() {
        // The crate on its own really does panic: the checks are what keeps the page alive.
        assert!(
            crate_alone(&file, texts).is_err(),
            "{what}: the crate no longer panics"
        );
        let e = load(&file).unwrap_err();
        assert!(
            matches!(e, SubwordError::Invalid(_) | SubwordError::Unsupported(_)),
            "{what}: {e}"
        );
    }
}

#[test]
fn other_hostile_files_are_errors_with_messages() {
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "prefix cut inside a UTF-8 character",
            bpe(
                json!({"a": 0, "a€": 1, "a\u{82}\u{ac}": 2, "\u{82}\u{ac}": 3}),
                json!([["a", "a€"]]),
                json!({"continuing_subword_prefix": "é"}),
            ),
            "does not start with the continuing-subword prefix",
        ),
        (
            "merge part not in the vocabulary",
            bpe(json!({"a": 0, "ab": 1}), json!([["a", "b"]]), json!({})),
            "\"b\" is not in the vocabulary",
        ),
        (
            "legacy merge line of three parts",
            bpe(
                json!({"a": 0, "b": 1, "ab": 2}),
                json!(["a b c"]),
                json!({}),
            ),
            "is not two tokens",
        ),
        (
            "mixed merge forms",
            bpe(
                json!({"a": 0, "b": 1, "ab": 2}),
                json!(["a b", ["a", "b"]]),
                json!({}),
            ),
            "mix",
        ),
        (
            "duplicate ids",
            bpe(
                json!({"a": 1, "b": 1, "ab": 2}),
                json!([["a", "b"]]),
                json!({}),
            ),
            "id 1 is given to both",
        ),
        (
            "absurd id",
            bpe(
                json!({"a": 4294967295u64, "b": 1, "ab": 2}),
                json!([["a", "b"]]),
                json!({}),
            ),
            "\"a\" has id 4294967295, not an integer below 16777216",
        ),
        (
            "negative id",
            bpe(json!({"a": -1, "b": 1, "ab": 2}), json!([]), json!({})),
            "\"a\" has id -1, not an integer below",
        ),
        (
            "empty vocabulary",
            bpe(json!({}), json!([]), json!({})),
            "is empty",
        ),
        (
            "BPE dropout",
            bpe(json!({"a": 0}), json!([]), json!({"dropout": 0.1})),
            "dropout",
        ),
        (
            "unk token not in the vocabulary",
            bpe(json!({"a": 0}), json!([]), json!({"unk_token": "<unk>"})),
            "unk_token",
        ),
        (
            "Unigram",
            json!({"model": {"type": "Unigram", "vocab": [["a", 0.0]], "unk_id": 0}}),
            "Unigram",
        ),
        (
            "WordLevel",
            json!({"model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"}}),
            "WordLevel",
        ),
        ("no model", json!({"version": "1.0"}), "has no `model`"),
        ("not an object", json!([1, 2, 3]), "expected a JSON object"),
        (
            "unknown version",
            with(bert_like(), "version", json!("2.0")),
            "version",
        ),
        (
            "Precompiled normalizer",
            with(
                bert_like(),
                "normalizer",
                json!({"type": "Precompiled", "precompiled_charsmap": "AAAA"}),
            ),
            "Precompiled",
        ),
        (
            "unknown pre-tokenizer",
            with(bert_like(), "pre_tokenizer", json!({"type": "Mystery"})),
            "unknown pre-tokenizer `Mystery`",
        ),
        (
            "component without a type",
            with(bert_like(), "decoder", json!({"prefix": "##"})),
            "has no `type`",
        ),
        (
            "CTC decoder",
            with(
                bert_like(),
                "decoder",
                json!({"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": true}),
            ),
            "CTC",
        ),
        (
            "template ids and tokens of different lengths",
            with(
                bert_like(),
                "post_processor",
                template(
                    json!([{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}]),
                    json!({"[CLS]": {"id": "[CLS]", "ids": [2, 3], "tokens": ["[CLS]"]}}),
                ),
            ),
            "differ in length",
        ),
        (
            "template special id outside the vocabulary",
            with(
                bert_like(),
                "post_processor",
                template(
                    json!([{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}]),
                    json!({"[CLS]": {"id": "[CLS]", "ids": [99], "tokens": ["[CLS]"]}}),
                ),
            ),
            "special token id 99 is not in the vocabulary",
        ),
        (
            "Roberta processor with a huge id",
            with(
                bert_like(),
                "post_processor",
                json!({"type": "RobertaProcessing", "sep": ["</s>", 4000000000u64], "cls": ["<s>", 0],
                       "trim_offsets": true, "add_prefix_space": true}),
            ),
            "absurdly large",
        ),
        (
            "two processors adding specials",
            with(
                bert_like(),
                "post_processor",
                json!({"type": "Sequence", "processors": [
                    {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]},
                    {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]}]}),
            ),
            "more than one post-processor",
        ),
        (
            "added token with an id the crate would not give it",
            with(
                bert_like(),
                "added_tokens",
                json!([added(99, "<new>", false, false)]),
            ),
            "would give it id 13",
        ),
        (
            "huge WordPiece word limit",
            {
                let mut v = bert_like();
                v["model"]["max_input_chars_per_word"] = json!(1u64 << 40);
                v
            },
            "max_input_chars_per_word",
        ),
        (
            "WordPiece unk not in the vocabulary",
            {
                let mut v = bert_like();
                v["model"]["unk_token"] = json!("<unk>");
                v
            },
            "unk_token",
        ),
        (
            "sequences nested too deeply",
            with(
                bert_like(),
                "normalizer",
                json!({"type": "Sequence", "normalizers": [{"type": "Sequence", "normalizers": [
                    {"type": "Sequence", "normalizers": [{"type": "Sequence", "normalizers": [
                        {"type": "Sequence", "normalizers": []}]}]}]}]}),
            ),
            "nested too deeply",
        ),
        (
            "Metaspace replacement of two characters",
            with(
                bert_like(),
                "pre_tokenizer",
                json!({"type": "Metaspace", "replacement": "ab", "prepend_scheme": "always", "split": true}),
            ),
            "exactly one character",
        ),
    ];
    for (what, file, needle) in cases {
        let e = load(&file).unwrap_err();
        assert!(e.to_string().contains(needle), "{what}: {e}");
    }
}

#[test]
fn broken_json_and_oversized_files_are_errors() {
    let good = serde_json::to_vec(&bert_like()).unwrap();
    for cut in [0, 1, good.len() / 3, good.len() / 2, good.len() - 1] {
        let e = SubwordTokenizer::from_bytes(&good[..cut], None).unwrap_err();
        assert!(matches!(e, SubwordError::Json(_)), "{cut}: {e}");
    }
    for garbage in [
        &b"\xFF\xFE\x00"[..],
        b"not json",
        b"{\"model\": }",
        b"null",
        b"42",
    ] {
        assert!(SubwordTokenizer::from_bytes(garbage, None).is_err());
    }
    let deep = "[".repeat(100_000);
    assert!(matches!(
        SubwordTokenizer::from_bytes(deep.as_bytes(), None),
        Err(SubwordError::Json(_))
    ));
    let big = vec![b' '; MAX_FILE_BYTES + 1];
    assert!(matches!(
        SubwordTokenizer::from_bytes(&big, None),
        Err(SubwordError::TooLarge { .. })
    ));
    // A file whose ids exceed the model is refused even when the file itself is fine.
    let e = SubwordTokenizer::from_bytes(&good, Some(5)).unwrap_err();
    assert!(matches!(e, SubwordError::VocabMismatch(_)), "{e}");
}

/// Every component the checks accept, in one file: each must load and run in the crate.
#[test]
fn every_accepted_component_loads_and_runs() {
    let mut v = bert_like();
    v["normalizer"] = json!({"type": "Sequence", "normalizers": [
        {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": true, "lowercase": true},
        {"type": "Strip", "strip_left": true, "strip_right": true},
        {"type": "StripAccents"}, {"type": "NFC"}, {"type": "NFD"}, {"type": "NFKC"}, {"type": "NFKD"},
        {"type": "Lowercase"}, {"type": "Nmt"},
        {"type": "Replace", "pattern": {"String": "  "}, "content": " "},
        {"type": "Replace", "pattern": {"Regex": "\\d+"}, "content": "0"},
        {"type": "Prepend", "prepend": "x"}
    ]});
    v["pre_tokenizer"] = json!({"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": "\\s+"}, "behavior": "Removed", "invert": false},
        {"type": "Punctuation", "behavior": "Isolated"},
        {"type": "Digits", "individual_digits": true},
        {"type": "WhitespaceSplit"}, {"type": "Whitespace"}, {"type": "UnicodeScripts"},
        {"type": "CharDelimiterSplit", "delimiter": "-"},
        {"type": "FixedLength", "length": 8},
        {"type": "BertPreTokenizer"}
    ]});
    v["decoder"] = json!({"type": "Sequence", "decoders": [
        {"type": "WordPiece", "prefix": "##", "cleanup": true},
        {"type": "Replace", "pattern": {"String": "x"}, "content": "y"},
        {"type": "ByteFallback"}, {"type": "Fuse"},
        {"type": "Strip", "content": " ", "start": 1, "stop": 0},
        {"type": "BPEDecoder", "suffix": "</w>"}
    ]});
    v["post_processor"] = json!({"type": "Sequence", "processors": [
        {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": true},
        {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]}
    ]});
    let t = load(&v).unwrap();
    for text in ["Hello, world! 123 café", "", "  ", "a-b-c", "😀\n\t"] {
        let e = t.encode(text, Some("world"), true).unwrap();
        t.decode(&e.ids).unwrap();
    }
    // The byte-level and Metaspace components, on a BPE model.
    let mut v = bpe(
        json!({"a": 0, "b": 1, "ab": 2, "▁": 3, "Ġ": 4}),
        json!([["a", "b"]]),
        json!({"byte_fallback": true, "fuse_unk": true, "ignore_merges": true}),
    );
    v["normalizer"] = json!({"type": "ByteLevel"});
    v["pre_tokenizer"] = json!({"type": "Sequence", "pretokenizers": [
        {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true},
        {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}
    ]});
    v["decoder"] = json!({"type": "Sequence", "decoders": [
        {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true},
        {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}
    ]});
    v["post_processor"] = json!({"type": "RobertaProcessing", "sep": ["b", 1], "cls": ["a", 0],
                                 "trim_offsets": true, "add_prefix_space": true});
    let t = load(&v).unwrap();
    assert_eq!(t.kind(), SubwordKind::ByteLevelBpe);
    for text in ["ab ab", "", "x y", "é"] {
        let e = t.encode(text, Some("ab"), true).unwrap();
        t.decode(&e.ids).unwrap();
    }
}

/// The byte-level fixture rewritten as GGUF metadata (tokens in id order, merges as "a b").
fn gguf_from_fixture(pre: &str) -> GgufVocabulary {
    let v: Value = serde_json::from_slice(&fixture_bytes("byte_level")).unwrap();
    let vocab = v["model"]["vocab"].as_object().unwrap();
    let mut tokens = vec![String::new(); vocab.len()];
    for (t, id) in vocab {
        tokens[id.as_u64().unwrap() as usize] = t.clone();
    }
    let merges = v["model"]["merges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| format!("{} {}", m[0].as_str().unwrap(), m[1].as_str().unwrap()))
        .collect();
    let eot = tokens.iter().position(|t| t == "<|endoftext|>").unwrap() as u32;
    let token_types = (0..tokens.len())
        .map(|i| if i as u32 == eot { 3 } else { 1 })
        .collect();
    GgufVocabulary {
        model: "gpt2".into(),
        pre: Some(pre.into()),
        tokens,
        token_types,
        merges,
        bos: Some(eot),
        eos: Some(eot),
        unk: None,
        pad: None,
        add_bos: false,
        add_eos: false,
    }
}

#[test]
fn gguf_metadata_gives_the_same_tokenizer_as_its_json() {
    let json = fixture("byte_level");
    let data = gguf_from_fixture("gpt2");
    let gguf = SubwordTokenizer::from_gguf(&data, Some(data.tokens.len())).unwrap();
    assert_eq!(gguf.kind(), SubwordKind::ByteLevelBpe);
    assert_eq!(gguf.vocab_size(), json.vocab_size());
    for case in expected()["byte_level"]["cases"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        let a = json.encode(text, None, true).unwrap();
        let b = gguf.encode(text, None, true).unwrap();
        assert_eq!(a.ids, b.ids, "{text:?}");
        assert_eq!(a.pieces, b.pieces, "{text:?}");
        assert_eq!(gguf.decode(&b.ids).unwrap(), text);
    }
    assert_eq!(gguf.specials().eos, data.eos);
    // The control token is matched whole.
    let e = gguf.encode("a<|endoftext|>", None, false).unwrap();
    assert_eq!(e.ids.last().copied(), data.eos);
    assert_eq!(e.special, [false, true]);
}

#[test]
fn gguf_pre_tokenizer_names_choose_the_split() {
    let text = "x:    2024";
    let gpt2 = SubwordTokenizer::from_gguf(&gguf_from_fixture("gpt-2"), None).unwrap();
    let smollm = SubwordTokenizer::from_gguf(&gguf_from_fixture("smollm"), None).unwrap();
    // GPT-2 keeps a space with the number; the StarCoder family isolates every digit first.
    assert_eq!(pieces(&gpt2, text), ["x", ":", "  ", " ", " 20", "24"]);
    assert_eq!(
        pieces(&smollm, text),
        ["x", ":", "  ", "  ", "2", "0", "2", "4"]
    );
    for pre in ["llama-bpe", "qwen2", "default", "dbrx"] {
        let t = SubwordTokenizer::from_gguf(&gguf_from_fixture(pre), None).unwrap();
        let e = t.encode("Hello, world! 3.14159 😀\n", None, false).unwrap();
        assert_eq!(
            t.decode(&e.ids).unwrap(),
            "Hello, world! 3.14159 😀\n",
            "{pre}"
        );
    }
    let llama = SubwordTokenizer::from_gguf(&gguf_from_fixture("llama3"), None).unwrap();
    // Llama 3 cuts digits in groups of three: no token spans the third and fourth digit.
    let e = llama.encode("12345", None, false).unwrap();
    assert!(
        e.offsets.iter().all(|&(a, b)| b <= 3 || a >= 3),
        "{:?}",
        e.pieces
    );
    assert_eq!(e.pieces.concat(), "12345");
}

#[test]
fn gguf_bos_and_eos_follow_the_flags() {
    let mut data = gguf_from_fixture("gpt2");
    data.add_bos = true;
    data.add_eos = true;
    let t = SubwordTokenizer::from_gguf(&data, None).unwrap();
    let eot = data.eos.unwrap();
    let e = t.encode("ab", None, true).unwrap();
    assert_eq!(e.ids.first(), Some(&eot));
    assert_eq!(e.ids.last(), Some(&eot));
    assert_eq!(e.sequence.first(), Some(&None));
    let p = t.encode("a", Some("b"), true).unwrap();
    assert_eq!(p.ids.len(), 6);
    assert_eq!(p.type_ids, [0, 0, 0, 1, 1, 1]);
    assert_eq!(t.encode("ab", None, false).unwrap().ids.len(), 1);
}

#[test]
fn bad_gguf_metadata_is_an_error() {
    let good = gguf_from_fixture("gpt2");
    let n = good.tokens.len() as u32;
    let cases: Vec<(&str, GgufVocabulary, &str)> = vec![
        (
            "SentencePiece model",
            GgufVocabulary {
                model: "llama".into(),
                ..good.clone()
            },
            "only \"gpt2\"",
        ),
        (
            "unknown pre-tokenizer",
            GgufVocabulary {
                pre: Some("klingon".into()),
                ..good.clone()
            },
            "GGUF pre-tokenizer `klingon`",
        ),
        (
            "no tokens",
            GgufVocabulary {
                tokens: vec![],
                token_types: vec![],
                ..good.clone()
            },
            "0 tokens",
        ),
        (
            "token types of another length",
            GgufVocabulary {
                token_types: vec![1; 3],
                ..good.clone()
            },
            "token types",
        ),
        (
            "merge of three parts",
            GgufVocabulary {
                merges: vec!["a b c".into()],
                ..good.clone()
            },
            "is not two tokens",
        ),
        (
            "merge of tokens not in the vocabulary",
            GgufVocabulary {
                merges: vec!["zz qq".into()],
                ..good.clone()
            },
            "not in the vocabulary",
        ),
        (
            "bos beyond the tokens",
            GgufVocabulary {
                bos: Some(n),
                ..good.clone()
            },
            "bos id",
        ),
        (
            "add_bos without a bos",
            GgufVocabulary {
                bos: None,
                add_bos: true,
                ..good.clone()
            },
            "no bos id",
        ),
        (
            "duplicate token",
            GgufVocabulary {
                tokens: {
                    let mut t = good.tokens.clone();
                    t[5] = t[6].clone();
                    t
                },
                ..good.clone()
            },
            "appears twice",
        ),
    ];
    for (what, data, needle) in cases {
        let e = SubwordTokenizer::from_gguf(&data, None).unwrap_err();
        assert!(e.to_string().contains(needle), "{what}: {e}");
    }
    let e = SubwordTokenizer::from_gguf(&good, Some(10)).unwrap_err();
    assert!(matches!(e, SubwordError::VocabMismatch(_)), "{e}");
}

#[test]
fn errors_convert_to_model_errors() {
    use crate::model::ModelError;
    let e: ModelError = SubwordError::TooLong { len: 9, max: 5 }.into();
    assert_eq!(e, ModelError::TooLong { len: 9, max: 5 });
    let e: ModelError = SubwordError::Invalid("x".into()).into();
    assert!(e.to_string().contains("invalid tokenizer file: x"));
}

/// The real checkpoints, fetched by the reference scripts into `$GLIMPSE_MODELS` (default
/// `~/.cache/glimpse/models`); each test says so and passes when its files are absent.

#[test]
fn minilm_encodes_like_the_reference() {
    let Some(path) = crate::util::real_models::cached("all-MiniLM-L6-v2/tokenizer.json") else {
        return;
    };
    let t = SubwordTokenizer::from_bytes(&std::fs::read(path).unwrap(), Some(30522)).unwrap();
    assert_eq!(t.kind(), SubwordKind::WordPiece);
    assert_eq!(t.vocab_size(), 30522);
    // From the Python `tokenizers` package on the same file (its padding to 128 left out).
    let cases: [(&str, &[u32]); 6] = [
        ("Hello, world!", &[101, 7592, 1010, 2088, 999, 102]),
        (
            "The capital of France is Paris.",
            &[101, 1996, 3007, 1997, 2605, 2003, 3000, 1012, 102],
        ),
        (
            "Café déjà vu 😀 naïve",
            &[101, 7668, 2139, 3900, 24728, 100, 15743, 102],
        ),
        (
            "Numbers: 3.14159, 42 and 2024.",
            &[
                101, 3616, 1024, 1017, 1012, 15471, 28154, 1010, 4413, 1998, 16798, 2549, 1012, 102,
            ],
        ),
        (
            "The [MASK] sat on the mat.",
            &[101, 1996, 103, 2938, 2006, 1996, 13523, 1012, 102],
        ),
        (
            "Zebras quixotically jump!",
            &[101, 29145, 2015, 21864, 2595, 20214, 3973, 5376, 999, 102],
        ),
    ];
    for (text, ids) in cases {
        assert_eq!(t.encode(text, None, true).unwrap().ids, ids, "{text:?}");
    }
    let e = t.encode("Café déjà vu 😀 naïve", None, true).unwrap();
    assert_eq!(
        e.pieces,
        ["[CLS]", "cafe", "de", "##ja", "vu", "[UNK]", "naive", "[SEP]"]
    );
    let p = t.encode("The cat sat.", Some("On the mat."), true).unwrap();
    assert_eq!(
        p.ids,
        [101, 1996, 4937, 2938, 1012, 102, 2006, 1996, 13523, 1012, 102]
    );
    assert_eq!(p.type_ids, [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
    let s = t.specials();
    assert_eq!(
        (s.cls, s.sep, s.mask, s.pad, s.unk),
        (Some(101), Some(102), Some(103), Some(0), Some(100))
    );
}

/// Reads the tokenizer keys of a GGUF file: enough for this test (Glimpse's GGUF reader is
/// elsewhere). Returns `None` on anything unexpected.
fn read_gguf_tokenizer(bytes: &[u8]) -> Option<GgufVocabulary> {
    enum V {
        Int(i64),
        Bool(bool),
        Str(String),
        List(Vec<V>),
        Other,
    }
    struct R<'a>(&'a [u8]);
    impl R<'_> {
        fn take(&mut self, n: usize) -> Option<&[u8]> {
            let (a, b) = (self.0.get(..n)?, self.0.get(n..)?);
            self.0 = b;
            Some(a)
        }
        fn u32(&mut self) -> Option<u32> {
            Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
        }
        fn u64(&mut self) -> Option<u64> {
            Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
        }
        fn string(&mut self) -> Option<String> {
            let n = usize::try_from(self.u64()?).ok()?;
            String::from_utf8(self.take(n)?.to_vec()).ok()
        }
        fn value(&mut self, kind: u32) -> Option<V> {
            let size = |k| match k {
                0 | 1 | 7 => 1,
                2 | 3 => 2,
                4..=6 => 4,
                _ => 8,
            };
            Some(match kind {
                8 => V::Str(self.string()?),
                9 => {
                    let inner = self.u32()?;
                    let n = usize::try_from(self.u64()?).ok()?;
                    let mut list = Vec::with_capacity(n.min(1 << 20));
                    for _ in 0..n {
                        list.push(self.value(inner)?);
                    }
                    V::List(list)
                }
                7 => V::Bool(self.take(1)?[0] != 0),
                0 | 2 | 4 | 10 => {
                    let b = self.take(size(kind))?;
                    let mut w = [0u8; 8];
                    w[..b.len()].copy_from_slice(b);
                    V::Int(i64::from_le_bytes(w))
                }
                5 => V::Int(i64::from(i32::from_le_bytes(
                    self.take(4)?.try_into().ok()?,
                ))),
                1 | 3 | 6 | 11 | 12 => {
                    self.take(size(kind))?;
                    V::Other
                }
                _ => return None,
            })
        }
    }
    let mut r = R(bytes);
    if r.take(4)? != b"GGUF" {
        return None;
    }
    r.u32()?;
    r.u64()?;
    let n_kv = r.u64()?;
    let mut data = GgufVocabulary::default();
    for _ in 0..n_kv {
        let key = r.string()?;
        let kind = r.u32()?;
        let value = r.value(kind)?;
        let strings = |v: &V| match v {
            V::List(l) => l
                .iter()
                .map(|x| match x {
                    V::Str(s) => Some(s.clone()),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>(),
            _ => None,
        };
        let id = |v: &V| match v {
            V::Int(i) => u32::try_from(*i).ok(),
            _ => None,
        };
        match (key.as_str(), &value) {
            ("tokenizer.ggml.model", V::Str(s)) => data.model = s.clone(),
            ("tokenizer.ggml.pre", V::Str(s)) => data.pre = Some(s.clone()),
            ("tokenizer.ggml.tokens", v) => data.tokens = strings(v)?,
            ("tokenizer.ggml.merges", v) => data.merges = strings(v)?,
            ("tokenizer.ggml.token_type", V::List(l)) => {
                data.token_types = l
                    .iter()
                    .map(|x| match x {
                        V::Int(i) => i32::try_from(*i).ok(),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()?
            }
            ("tokenizer.ggml.bos_token_id", v) => data.bos = id(v),
            ("tokenizer.ggml.eos_token_id", v) => data.eos = id(v),
            ("tokenizer.ggml.unknown_token_id", v) => data.unk = id(v),
            ("tokenizer.ggml.padding_token_id", v) => data.pad = id(v),
            ("tokenizer.ggml.add_bos_token", V::Bool(b)) => data.add_bos = *b,
            ("tokenizer.ggml.add_eos_token", V::Bool(b)) => data.add_eos = *b,
            _ => {}
        }
    }
    Some(data)
}

#[test]
fn smollm2_gguf_encodes_like_its_own_tokenizer() {
    let Some(path) = crate::util::real_models::smollm2() else {
        return;
    };
    use std::io::Read;
    let mut head = Vec::new();
    // The metadata comes first; 32 MiB holds it with room to spare.
    std::fs::File::open(path)
        .unwrap()
        .take(32 << 20)
        .read_to_end(&mut head)
        .unwrap();
    let data = read_gguf_tokenizer(&head).unwrap();
    assert_eq!(data.pre.as_deref(), Some("smollm"));
    let t = SubwordTokenizer::from_gguf(&data, Some(49152)).unwrap();
    assert_eq!(t.vocab_size(), 49152);
    // From the Python `tokenizers` package on the file's vocabulary and merges with SmolLM2's own
    // pre-tokenizer (Digits, then ByteLevel), which llama.cpp's "smollm" reproduces.
    let cases: [(&str, &[u32]); 8] = [
        ("Hello, world!", &[19556, 28, 905, 17]),
        (
            "The capital of France is Paris.",
            &[504, 3575, 282, 4649, 314, 7042, 30],
        ),
        (
            "Café déjà vu 😀 naïve",
            &[
                51, 1939, 2756, 32564, 90, 16739, 386, 101, 40303, 218, 15486, 46494,
            ],
        ),
        (
            "Line one\nline two\n\n  indented",
            &[11907, 582, 198, 1311, 827, 8866, 641, 6574],
        ),
        (
            "Numbers: 3.14159, 42 and 2024.",
            &[
                39006, 42, 216, 35, 30, 33, 36, 33, 37, 41, 28, 216, 36, 34, 284, 216, 34, 32, 34,
                36, 30,
            ],
        ),
        ("<|im_start|>user\nHi<|im_end|>", &[1, 4093, 198, 26843, 2]),
        (
            "unbelievably internationalization",
            &[419, 23282, 102, 1756, 3113, 1237],
        ),
        // transformers, reading the GGUF, ignores "smollm" and gives [104, 42, 333, 216, 34] here.
        ("x:    2", &[104, 42, 289, 34]),
    ];
    for (text, ids) in cases {
        let e = t.encode(text, None, true).unwrap();
        assert_eq!(e.ids, ids, "{text:?}");
        assert_eq!(t.decode(&e.ids).unwrap(), text);
    }
    let e = t.encode("Café 😀\nok", None, false).unwrap();
    assert_eq!(
        e.pieces,
        ["C", "af", "é", " <0xF0><0x9F><0x98>", "<0x80>", "\\n", "ok"]
    );
    assert_eq!(t.specials().bos, Some(1));
    assert_eq!(t.specials().eos, Some(2));
    assert!(t.is_special(1) && !t.is_special(19556));
}

#[test]
fn tokenizers_can_be_shared_between_threads() {
    fn shareable<T: Send + Sync + Clone>() {}
    shareable::<SubwordTokenizer>();
}
