//! Every view, as a screen reader finds it: no name still carries the notation a formula is
//! typed in (`_{`, `^{`, `d_k`, `10^4`), so every formula on screen was typeset and read out
//! in words.

use egui_kittest::kittest::{By, Queryable};
use std::cell::RefCell;

/// Whether `text` shows a script mark after a symbol (`W_Q`, `s_{t}`, `10^4`, `base^(…)`).
pub(crate) fn raw_notation(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    chars.windows(3).any(|w| {
        let symbol = w[0].is_alphanumeric() || matches!(w[0], ')' | 'ᵀ' | '}');
        let script = w[2].is_alphanumeric() || matches!(w[2], '{' | '(' | '−');
        matches!(w[1], '_' | '^') && symbol && script
    })
}

/// Names that are not formulas: a special token, a file or a function of the code, a
/// checkpoint's parameter (`blocks.0.attn.out_bias`).
fn exempt(text: &str) -> bool {
    [
        "out_bias",
        "Q4_",
        "Q8_",
        "<|im_",
        "_start|>",
        "_end|>",
        "rope_rotate",
        "fetch_models",
        "max_len",
        ".sh",
    ]
    .iter()
    .any(|w| text.contains(w))
}

fn raw_names(link: &str) -> Vec<String> {
    let mut h = crate::app::tests::open(link);
    h.run_steps(6);
    let found = RefCell::new(Vec::new());
    let _ = h
        .query_all(By::new().predicate(|node| {
            for text in [node.label(), node.value()].into_iter().flatten() {
                if raw_notation(&text) && !exempt(&text) {
                    found.borrow_mut().push(text);
                }
            }
            false
        }))
        .count();
    found.into_inner()
}

/// Fails with every place still showing typed notation, one per line.
fn assert_none_raw(mut found: Vec<String>) {
    found.dedup();
    assert!(
        found.is_empty(),
        "{}\n{} raw",
        found.join("\n"),
        found.len()
    );
}

#[test]
fn notation_is_recognised() {
    for raw in ["W_Q", "s_{t}", "10^4", "base^(−2p/d)", "x_i"] {
        assert!(raw_notation(raw), "{raw}");
    }
    for fine in ["W sub Q", "hᵢ", "snake _case", "a ^ b", "<|im_end|>"] {
        assert!(!raw_notation(fine) || exempt(fine), "{fine}");
    }
}

/// Every lab section and lesson page, in English, and the labs in Spanish.
#[test]
fn no_view_names_a_formula_in_its_typed_notation() {
    let mut found = Vec::new();
    for link in crate::app::link::every_view() {
        for text in raw_names(&link) {
            found.push(format!("{link}: {text}"));
        }
    }
    let labs = crate::app::labs::Labs::default();
    for link in labs.iter().flat_map(|lab| lab.sections()) {
        for text in raw_names(&format!("{link}&lang=es")) {
            found.push(format!("{link} (es): {text}"));
        }
    }
    crate::i18n::set("en");
    assert_none_raw(found);
}

/// Every step of the walkthrough, on an encoder–decoder's three kinds of attention and on two
/// decoders, names its formulas in words.
#[test]
fn no_walkthrough_step_names_a_formula_in_its_typed_notation() {
    let mut found = Vec::new();
    for (model, kinds) in [
        ("translate", &["enc", "dec", "cross"][..]),
        ("sotu-lm", &["dec"][..]),
        ("sotu-mlm", &["enc"][..]),
    ] {
        for kind in kinds {
            for step in 0..20 {
                let link = format!("view=attention&model={model}&kind={kind}&xv=walk&step={step}");
                found.extend(raw_names(&link).into_iter().map(|t| format!("{link}: {t}")));
            }
        }
    }
    assert_none_raw(found);
}
