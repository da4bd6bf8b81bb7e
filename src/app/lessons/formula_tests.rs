//! The pages' formulas: display formulas exist in every language and are read in words, and
//! no paragraph shows a brace or a caret of the notation it is typed in.

use super::content::LESSONS;
use crate::app::formulas;
use crate::app::widgets::math_text::{parse, Piece};
use egui_kittest::kittest::Queryable;

/// The names of the display formulas on every page, in order.
fn display_names() -> Vec<Vec<String>> {
    LESSONS
        .iter()
        .flat_map(|l| l.pages)
        .map(|page| {
            page.paragraphs()
                .iter()
                .filter_map(|p| formulas::display_name(p).map(str::to_string))
                .collect()
        })
        .collect()
}

/// Every `$$name$$` names a formula, and a translation shows the same formulas on the same
/// pages as English.
#[test]
fn every_display_formula_exists_and_is_shown_in_every_language() {
    crate::i18n::set("en");
    let english = display_names();
    let all: Vec<&String> = english.iter().flatten().collect();
    assert!(all.len() >= 12, "{all:?}");
    for name in [
        "attention",
        "softmax",
        "sinusoidal",
        "infonce",
        "layer-norm",
    ] {
        assert!(all.iter().any(|n| *n == name), "{name} is on no page");
    }
    for name in &all {
        assert!(formulas::get(name).is_some(), "no formula {name:?}");
    }
    for lang in crate::i18n::codes() {
        crate::i18n::set(lang);
        assert_eq!(display_names(), english, "{lang}");
    }
    crate::i18n::set("en");
}

/// Once typeset, no page title or paragraph shows the notation it is typed in: no `_{`, `^{`
/// or `^(`, no brace, no caret and no underscore after a symbol.
#[test]
fn no_page_shows_a_brace_or_a_caret() {
    for lang in crate::i18n::codes() {
        crate::i18n::set(lang);
        for page in LESSONS.iter().flat_map(|l| l.pages) {
            let texts = std::iter::once(page.title()).chain(
                page.paragraphs()
                    .into_iter()
                    .filter(|p| formulas::display_name(p).is_none()),
            );
            for text in texts {
                for piece in parse(&text) {
                    let (Piece::Text(s)
                    | Piece::Sub(s)
                    | Piece::Sup(s)
                    | Piece::Inner { text: s, .. }) = piece;
                    let raw = s.contains(['{', '}', '^'])
                        || s.split('_').skip(1).count() > 0 && !s.contains("<|im_");
                    assert!(!raw, "{lang} {}: {s:?} in {text:?}", page.title());
                }
            }
        }
    }
    crate::i18n::set("en");
}

/// The scaled dot-product page draws Attention(Q, K, V) as a display formula, and a screen
/// reader finds it in words, in English and in Spanish.
#[test]
fn a_display_formula_is_read_in_words_on_its_page() {
    for (lang, words) in [
        (
            "en",
            "Attention(Q, K, V) = softmax(QK super T over square root of d sub k) V",
        ),
        (
            "es",
            "Attention(Q, K, V) = softmax(QK superíndice T entre raíz cuadrada de d subíndice k) V",
        ),
    ] {
        let mut h = crate::app::tests::open(&format!("view=lessons&lesson=1&page=1&lang={lang}"));
        h.run_steps(3);
        h.get_by_label(words);
        assert_eq!(h.query_all_by_label_contains("$$").count(), 0, "{lang}");
    }
    crate::i18n::set("en");
}
