//! Every shipped language is complete and well formed: the same messages as English, each with
//! the same variables; every key the code asks for exists; nothing is left in English.

use super::*;
use fluent_syntax::ast::{Entry, Expression, InlineExpression, Pattern, PatternElement};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each message of a language with the variables it uses.
fn messages(lang: &str) -> BTreeMap<String, BTreeSet<String>> {
    let (_, files) = sources().iter().find(|(c, _)| *c == lang).unwrap();
    let mut out = BTreeMap::new();
    for (file, text) in files.iter() {
        let resource = fluent_syntax::parser::parse(*text)
            .unwrap_or_else(|(_, errors)| panic!("{lang}/{file}: {errors:?}"));
        for entry in resource.body {
            match entry {
                Entry::Message(m) => {
                    let mut vars = BTreeSet::new();
                    if let Some(p) = &m.value {
                        variables(p, &mut vars);
                    }
                    assert!(
                        m.value.is_some(),
                        "{lang}/{file}: {} has no text",
                        m.id.name
                    );
                    let first = out.insert(m.id.name.to_string(), vars);
                    assert!(
                        first.is_none(),
                        "{lang}/{file}: {} defined twice",
                        m.id.name
                    );
                }
                Entry::Junk { content } => panic!("{lang}/{file}: unreadable: {content}"),
                _ => {}
            }
        }
    }
    out
}

fn variables(p: &Pattern<&str>, out: &mut BTreeSet<String>) {
    for e in &p.elements {
        if let PatternElement::Placeable { expression } = e {
            expression_variables(expression, out);
        }
    }
}

fn expression_variables(e: &Expression<&str>, out: &mut BTreeSet<String>) {
    match e {
        Expression::Inline(i) => inline_variables(i, out),
        Expression::Select { selector, variants } => {
            inline_variables(selector, out);
            for v in variants {
                variables(&v.value, out);
            }
        }
    }
}

fn inline_variables(i: &InlineExpression<&str>, out: &mut BTreeSet<String>) {
    match i {
        InlineExpression::VariableReference { id } => {
            out.insert(id.name.to_string());
        }
        InlineExpression::Placeable { expression } => expression_variables(expression, out),
        InlineExpression::FunctionReference { arguments, .. } => {
            for a in &arguments.positional {
                inline_variables(a, out);
            }
        }
        _ => {}
    }
}

#[test]
fn english_and_spanish_are_shipped() {
    assert_eq!(codes()[0], ENGLISH);
    assert!(codes().contains(&"es"), "{:?}", codes());
}

#[test]
fn every_language_has_every_message_with_the_same_variables() {
    let english = messages(ENGLISH);
    assert!(english.len() > 100, "{} messages", english.len());
    for lang in codes().into_iter().filter(|c| *c != ENGLISH) {
        let other = messages(lang);
        let missing: Vec<_> = english.keys().filter(|k| !other.contains_key(*k)).collect();
        assert!(
            missing.is_empty(),
            "{lang} lacks {} messages: {missing:?}",
            missing.len()
        );
        let extra: Vec<_> = other.keys().filter(|k| !english.contains_key(*k)).collect();
        assert!(
            extra.is_empty(),
            "{lang} has messages English lacks: {extra:?}"
        );
        for (key, vars) in &english {
            assert_eq!(
                &other[key], vars,
                "{lang}: {key} uses other variables than English"
            );
        }
    }
}

#[test]
fn every_message_formats_in_every_language() {
    for lang in codes() {
        for (key, vars) in messages(lang) {
            let args: Vec<(&str, FluentValue<'static>)> = vars
                .iter()
                .map(|v| (v.as_str(), FluentValue::from("7")))
                .collect();
            assert!(
                format_in(lang, &key, &args).is_some(),
                "{lang}: {key} does not format"
            );
        }
    }
}

/// Every `t!("key"…)` in the source names an English message.
#[test]
fn every_key_the_code_uses_exists() {
    let english = messages(ENGLISH);
    let mut used = 0;
    for (path, text) in rust_sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src")) {
        // Comments may show the macro's form with made-up keys.
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .map(|l| format!("{l}\n"))
            .collect();
        let mut pieces = code.split("t!(\"");
        let mut before = pieces.next().unwrap_or("");
        for piece in pieces {
            // `t!(` itself, not the end of `format!(` or `print!(`.
            let ours = !before.ends_with(|c: char| c.is_alphanumeric() || c == '_');
            before = piece;
            let Some(key) = piece.split('"').next().filter(|_| ours) else {
                continue;
            };
            assert!(
                english.contains_key(key),
                "{path}: t!(\"{key}\") is not in en"
            );
            used += 1;
        }
    }
    assert!(used > 100, "only {used} uses of t! found");
}

/// Messages whose keys are built at run time (lesson pages), which the source never spells.
const BUILT_KEYS: [&str; 3] = ["lesson-", "tab-", "builtin-"];

/// Every English message is used somewhere: no text a translator would translate for nothing.
#[test]
fn every_message_is_used() {
    let sources: String = rust_sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    let unused: Vec<String> = messages(ENGLISH)
        .into_keys()
        .filter(|k| !BUILT_KEYS.iter().any(|p| k.starts_with(p)))
        .filter(|k| !sources.contains(&format!("\"{k}\"")))
        .collect();
    assert!(unused.is_empty(), "messages nothing uses: {unused:?}");
}

/// A translated message of three words or more that reads exactly as the English one was
/// almost certainly forgotten. Formulas and names may stay as they are: listed here.
const SAME_IN_EVERY_LANGUAGE: &[&str] = &[
    // Lesson titles that are the tokens or the sentence a model reads.
    "lesson-page-d-4-i-can-buy",
    "lesson-page-je-suis-tudiant-b-2",
];

#[test]
fn nothing_is_left_in_english() {
    for lang in codes().into_iter().filter(|c| *c != ENGLISH) {
        let (_, files) = sources().iter().find(|(c, _)| *c == lang).unwrap();
        let mut same = Vec::new();
        let (english, other) = (texts(ENGLISH), texts(lang));
        for (key, b) in &other {
            let a = english.get(key).cloned().unwrap_or_default();
            let words = a
                .split_whitespace()
                .filter(|w| w.chars().all(char::is_alphabetic))
                .count();
            if a == *b && words >= 3 && !SAME_IN_EVERY_LANGUAGE.contains(&key.as_str()) {
                same.push(key);
            }
        }
        assert!(
            same.is_empty(),
            "{lang} ({} files) left in English: {same:?}",
            files.len()
        );
    }
}

/// Each message's text as written in the file (placeables left out).
fn texts(lang: &str) -> BTreeMap<String, String> {
    let (_, files) = sources().iter().find(|(c, _)| *c == lang).unwrap();
    let mut out = BTreeMap::new();
    for (_, text) in files.iter() {
        let resource = fluent_syntax::parser::parse(*text).unwrap_or_else(|(r, _)| r);
        for entry in resource.body {
            if let Entry::Message(m) = entry {
                let mut s = String::new();
                for e in m.value.iter().flat_map(|p| &p.elements) {
                    if let PatternElement::TextElement { value } = e {
                        s.push_str(value);
                    }
                }
                out.insert(m.id.name.to_string(), s);
            }
        }
    }
    out
}

fn rust_sources(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            out.extend(rust_sources(&path));
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push((
                path.display().to_string(),
                std::fs::read_to_string(&path).unwrap(),
            ));
        }
    }
    out
}

#[test]
fn the_readers_language_is_matched_by_its_primary_tag() {
    assert_eq!(supported("es-MX"), Some("es"));
    assert_eq!(supported("es_ES.UTF-8"), Some("es"));
    assert_eq!(supported("EN-gb"), Some("en"));
    assert_eq!(supported("xx"), None);
    assert_eq!(preferred(["fr-FR", "es-419", "en"]), "es");
    assert_eq!(preferred(["fr-FR"]), ENGLISH);
}

#[test]
fn a_message_reads_in_the_current_language_and_falls_back_to_english() {
    let before = current();
    assert_eq!(set("es"), "es");
    let spanish = crate::t!("language-name");
    assert_eq!(
        set("zz"),
        "es",
        "an unshipped language leaves the current one"
    );
    assert_eq!(set("en"), "en");
    let english = crate::t!("language-name");
    assert_eq!((english.as_str(), spanish.as_str()), ("English", "Español"));
    // An unknown key shows itself rather than nothing.
    assert_eq!(tr("no-such-message", &[]), "no-such-message");
    set(before);
}

#[test]
fn numbers_come_out_as_the_caller_wrote_them() {
    for lang in codes() {
        set(lang);
        let s = crate::t!(
            "lessons-position",
            lesson = 2usize,
            lessons = 12usize,
            page = 3usize,
            pages = 4usize
        );
        for n in ["2", "12", "3", "4"] {
            assert!(s.contains(n), "{lang}: {s}");
        }
    }
    set(ENGLISH);
}

/// The digits a message writes, in order of size: a translation shows the same figures.
fn digits(text: &str) -> Vec<String> {
    let mut runs: Vec<String> = text
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    runs.sort();
    runs
}

#[test]
fn every_translation_writes_the_same_numbers() {
    for lang in codes().into_iter().filter(|c| *c != ENGLISH) {
        let (english, other) = (texts(ENGLISH), texts(lang));
        let differ: Vec<String> = english
            .iter()
            .filter(|(key, a)| other.get(*key).is_some_and(|b| digits(a) != digits(b)))
            .map(|(key, a)| format!("{key}\n  en: {a}\n  {lang}: {}", other[key]))
            .collect();
        assert!(
            differ.is_empty(),
            "other figures in {lang}:\n{}",
            differ.join("\n")
        );
    }
}

#[test]
fn the_warm_up_message_chooses_a_plural_form_in_every_language() {
    let (key, arg) = PLURAL_WARM_UP;
    for lang in codes() {
        let one = format_in(lang, key, &[(arg, Arg::into_value(1_usize))]);
        let two = format_in(lang, key, &[(arg, Arg::into_value(2_usize))]);
        assert!(
            one.is_some() && two.is_some(),
            "{lang}: {key} does not format"
        );
        assert_ne!(one, two, "{lang}: {key} reads the same for 1 and 2");
        assert!(
            two.is_some_and(|t| t.contains('2')),
            "{lang}: {key} has no plural form"
        );
    }
}
