//! Every word the app shows, in the reader's language, through Project Fluent.
//!
//! The texts live in `assets/locales/<code>/*.ftl`, one folder per language, embedded at build
//! time (`build.rs`). English (`en`) is complete by definition and is the fallback: a message
//! missing from another language is shown in English. `t!("key")` or `t!("key", n = 3, word =
//! text)` looks a message up in the current language.
//!
//! Numbers are passed already formatted (as strings) wherever the app chose the digits, so a
//! translation shows exactly the figures the English page shows ("0.45" stays "0.45").
//! Integers may be passed as numbers, for plural forms.
//!
//! The current language is per thread: the app sets it at the start of every frame, so tests
//! running side by side in one process can each use their own.

use fluent_bundle::types::{FluentNumber, FluentNumberOptions};
use fluent_bundle::{FluentArgs, FluentBundle, FluentResource, FluentValue};
use std::cell::Cell;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/locales.rs"));
}

/// The language every other one falls back to.
pub const ENGLISH: &str = "en";

/// The shipped languages: `(code, [(file name, Fluent text)])`, sorted by code.
pub fn sources() -> &'static [(&'static str, &'static [(&'static str, &'static str)])] {
    embedded::LOCALES
}

/// The codes of the shipped languages, English first.
pub fn codes() -> Vec<&'static str> {
    let mut codes: Vec<&'static str> = sources().iter().map(|(c, _)| *c).collect();
    codes.sort_by_key(|c| (*c != ENGLISH, *c));
    codes
}

/// The shipped language that serves a requested one: `es-MX` and `es_ES.UTF-8` give `es`.
pub fn supported(requested: &str) -> Option<&'static str> {
    let lower = requested.trim().to_ascii_lowercase();
    let primary = lower.split(['-', '_', '.']).next().unwrap_or("");
    codes().into_iter().find(|c| *c == lower || *c == primary)
}

/// The first of the reader's preferred languages that is shipped, else English.
pub fn preferred<'a>(requested: impl IntoIterator<Item = &'a str>) -> &'static str {
    requested.into_iter().find_map(supported).unwrap_or(ENGLISH)
}

type Bundle = FluentBundle<FluentResource>;

thread_local! {
    static BUNDLES: Vec<(&'static str, Bundle)> = build_bundles();
    static CURRENT: Cell<&'static str> = const { Cell::new(ENGLISH) };
}

/// Parses every language's texts now (10-15 ms in a browser) instead of inside the first call
/// that needs one: the web start does it in a task of its own, before eframe's. A language's
/// plural rules are built the first time one of its messages chooses a form by a number
/// (6-7 ms each in a browser: Fluent matches the language against every locale it knows), so
/// one such message is formatted here in each language too.
pub fn warm_up() {
    let (key, arg) = PLURAL_WARM_UP;
    for (code, _) in sources() {
        let _ = format_in(code, key, &[(arg, Arg::into_value(2_usize))]);
    }
}

/// A message that chooses its words by a number (`[one]` / `*[other]`), and its variable.
const PLURAL_WARM_UP: (&str, &str) = ("workbench-cpu-threads", "threads");

fn build_bundles() -> Vec<(&'static str, Bundle)> {
    sources()
        .iter()
        .map(|(code, files)| {
            let id = code.parse().unwrap_or_default();
            let mut bundle = FluentBundle::new(vec![id]);
            // No Unicode isolation marks around arguments: egui would draw them as boxes.
            bundle.set_use_isolating(false);
            for (_, text) in files.iter() {
                // A file with a syntax error still gives its readable messages (the tests
                // refuse any error); a key defined twice keeps its first text.
                let resource = FluentResource::try_new(text.to_string()).unwrap_or_else(|(r, _)| r);
                let _ = bundle.add_resource(resource);
            }
            (*code, bundle)
        })
        .collect()
}

/// The language of this thread's texts.
pub fn current() -> &'static str {
    CURRENT.with(Cell::get)
}

/// Use `code` (or the shipped language that serves it) from now on, on this thread; an
/// unshipped language leaves the current one. Returns the language in use.
pub fn set(code: &str) -> &'static str {
    if let Some(found) = supported(code) {
        CURRENT.with(|c| c.set(found));
    }
    current()
}

/// A value for a message's variable (`t!("key", name = value)`).
pub trait Arg {
    fn into_value(self) -> FluentValue<'static>;
}

impl Arg for String {
    fn into_value(self) -> FluentValue<'static> {
        FluentValue::from(self)
    }
}

impl Arg for &String {
    fn into_value(self) -> FluentValue<'static> {
        FluentValue::from(self.clone())
    }
}

impl Arg for &str {
    fn into_value(self) -> FluentValue<'static> {
        FluentValue::from(self.to_string())
    }
}

/// Integers go in as numbers, so a translation can choose a plural form by them. (Fractions
/// are formatted by the caller, with the digits the English text shows.)
macro_rules! integer_arg {
    ($($t:ty),*) => {$(
        impl Arg for $t {
            fn into_value(self) -> FluentValue<'static> {
                FluentValue::Number(FluentNumber::new(self as f64, FluentNumberOptions::default()))
            }
        }
    )*};
}
integer_arg!(usize, u8, u16, u32, u64, i32, i64);

/// The message `key` in the current language, else in English, else `key` itself (the tests
/// make sure every key the code uses exists in English).
pub fn tr(key: &str, args: &[(&str, FluentValue<'static>)]) -> String {
    let lang = current();
    format_in(lang, key, args)
        .or_else(|| format_in(ENGLISH, key, args))
        .unwrap_or_else(|| key.to_string())
}

/// The message `key` in `lang`, if that language has it and it formats without error.
pub fn format_in(lang: &str, key: &str, args: &[(&str, FluentValue<'static>)]) -> Option<String> {
    BUNDLES.with(|bundles| {
        let (_, bundle) = bundles.iter().find(|(c, _)| *c == lang)?;
        let pattern = bundle.get_message(key)?.value()?;
        let mut fluent_args = FluentArgs::new();
        for (name, value) in args {
            fluent_args.set(*name, value.clone());
        }
        let mut errors = Vec::new();
        let text = bundle.format_pattern(pattern, Some(&fluent_args), &mut errors);
        errors.is_empty().then(|| text.into_owned())
    })
}

/// Whether `lang` defines `key` (with a value).
pub fn has(lang: &str, key: &str) -> bool {
    BUNDLES.with(|bundles| {
        bundles
            .iter()
            .find(|(c, _)| *c == lang)
            .and_then(|(_, b)| b.get_message(key))
            .is_some_and(|m| m.value().is_some())
    })
}

/// `t!("key")`, `t!("key", name = value, …)`: the message in the current language.
#[macro_export]
macro_rules! t {
    ($key:literal) => {
        $crate::i18n::tr($key, &[])
    };
    ($key:literal, $($name:ident = $value:expr),+ $(,)?) => {
        $crate::i18n::tr($key, &[$((stringify!($name), $crate::i18n::Arg::into_value($value))),+])
    };
}

#[cfg(test)]
mod tests;
