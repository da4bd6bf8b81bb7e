//! Links that reproduce a view: the app's state as `key=value` pairs in the URL hash
//! (`#v=1&view=attention&model=translate&…`). Reading is forgiving: an old, partial or garbage
//! hash keeps the defaults for whatever it cannot read and says so in a notice; it never panics.
//!
//! This file holds only the framing (version, view, hidden controls, presenter mode, theme,
//! notices). The shared input writes its own keys (`Workbench`), every lab its own
//! (`Lab::save`/`Lab::load`), the lessons theirs.

use crate::app::shell::themes::Theme;
use crate::app::GlimpseApp;

/// The link format's version; a newer link is read as far as this version understands it.
pub const VERSION: u32 = 1;

/// The view that is not a lab: the guided lessons beside a lab.
pub const LESSONS: &str = "lessons";

/// Controls a link can hide, for focused embeds (`hide=controls,tabs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Hidden {
    /// The left panel (model, input, layer/head).
    pub controls: bool,
    /// The top bar's tabs and model picker.
    pub tabs: bool,
}

/// The framing's own keys.
const FRAME_KEYS: [&str; 6] = ["v", "view", "present", "theme", "lang", "hide"];

/// Pairs being written, in order.
#[derive(Default)]
pub struct LinkWriter {
    pairs: Vec<(&'static str, String)>,
}

impl LinkWriter {
    pub fn put(&mut self, key: &'static str, value: impl ToString) {
        self.pairs.push((key, value.to_string()));
    }

    pub(crate) fn finish(&self) -> String {
        self.pairs
            .iter()
            .map(|(k, v)| format!("{k}={}", escape(v)))
            .collect::<Vec<_>>()
            .join("&")
    }
}

/// A parsed link: its pairs, and notices for what could not be read.
pub struct LinkReader {
    pairs: Vec<(String, String)>,
    pub notices: Vec<String>,
}

impl LinkReader {
    /// Parse a link (with or without `#`, or a whole URL). At most 128 pairs are read (the app writes about 70).
    pub fn parse(link: &str) -> Self {
        let hash = link.split_once('#').map_or(link, |(_, h)| h);
        let mut notices = Vec::new();
        let mut pairs = Vec::new();
        for part in hash.split('&').filter(|s| !s.is_empty()).take(128) {
            match part.split_once('=') {
                Some((k, v)) => pairs.push((unescape(k), unescape(v))),
                None => notices.push(crate::t!("link-not-key-value", part = short(part))),
            }
        }
        Self { pairs, notices }
    }

    /// The raw value of `key`, if the link has it.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// `key`'s value when `parse` accepts it; a notice when the link has the key but the
    /// value is refused (the caller keeps its default).
    pub fn read<T>(&mut self, key: &str, parse: impl FnOnce(&str) -> Option<T>) -> Option<T> {
        let value = self.get(key)?.to_string();
        let parsed = parse(&value);
        if parsed.is_none() {
            self.refuse(key, &value);
        }
        parsed
    }

    /// A number in `range`.
    pub fn number<T>(&mut self, key: &str, range: impl std::ops::RangeBounds<T>) -> Option<T>
    where
        T: std::str::FromStr + PartialOrd,
    {
        self.read(key, |v| v.parse::<T>().ok().filter(|x| range.contains(x)))
    }

    /// `1`/`true` or `0`/`false`.
    pub fn flag(&mut self, key: &str) -> Option<bool> {
        self.read(key, parse_bool)
    }

    /// Say that `key=value` could not be read.
    pub fn refuse(&mut self, key: &str, value: &str) {
        self.notices.push(crate::t!(
            "link-could-not-read",
            key = key,
            value = short(value)
        ));
    }

    /// The link's keys.
    fn keys(&self) -> impl Iterator<Item = &str> {
        self.pairs.iter().map(|(k, _)| k.as_str())
    }
}

/// A name from a table of (value, name) pairs, and back.
pub fn name_of<T: PartialEq + Copy>(table: &[(T, &'static str)], v: T) -> &'static str {
    table.iter().find(|(x, _)| *x == v).map_or("", |(_, n)| n)
}

pub fn value_of<T: Copy>(table: &[(T, &'static str)], name: &str) -> Option<T> {
    table.iter().find(|(_, n)| *n == name).map(|(v, _)| *v)
}

/// The position of `x` in `all` (a section written as its index), and back.
pub fn index_of<T: PartialEq>(all: &[T], x: &T) -> usize {
    all.iter().position(|y| y == x).unwrap_or(0)
}

pub fn at_index<T: Copy>(all: &[T], v: &str) -> Option<T> {
    v.parse::<usize>().ok().and_then(|i| all.get(i).copied())
}

pub fn parse_bool(v: &str) -> Option<bool> {
    match v {
        "1" | "true" => Some(true),
        "0" | "false" => Some(false),
        _ => None,
    }
}

/// Percent-encode everything but unreserved characters (RFC 3986).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The inverse of `escape`; malformed escapes are kept as they are, invalid UTF-8 replaced.
pub fn unescape(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The app's state as a hash (without the leading `#`).
pub fn encode(app: &GlimpseApp) -> String {
    let mut w = LinkWriter::default();
    w.put("v", VERSION);
    w.put("view", app.nav.view);
    app.bench.save(&mut w, &app.store);
    for lab in app.labs.iter() {
        lab.save(&mut w);
    }
    app.lessons.save(&mut w);
    let hidden = app.nav.hidden;
    let hide: Vec<&str> = [("controls", hidden.controls), ("tabs", hidden.tabs)]
        .iter()
        .filter(|(_, on)| *on)
        .map(|(n, _)| *n)
        .collect();
    if !hide.is_empty() {
        w.put("hide", hide.join(","));
    }
    if app.look.presenter {
        w.put("present", 1);
    }
    if app.look.theme != Theme::default() {
        w.put("theme", app.look.theme.name());
    }
    if app.look.language != crate::i18n::ENGLISH {
        w.put("lang", app.look.language);
    }
    w.finish()
}

/// A link (without `v=`) to every view, lab section and lesson page, for tests that must
/// visit them all: the UI tests and the browser's presenter walk (`glimpse_every_view`).
pub fn every_view() -> Vec<String> {
    let labs = crate::app::labs::Labs::default();
    let mut links: Vec<String> = labs.iter().flat_map(|lab| lab.sections()).collect();
    links.extend(crate::app::lessons::every_page());
    links
}

/// Apply a link (with or without `#`, or a whole URL) to the app. Returns notices for
/// anything that could not be read; what could be read is applied.
pub fn apply(app: &mut GlimpseApp, link: &str) -> Vec<String> {
    // The notices are in the language the link opens the app in.
    let language = LinkReader::parse(link)
        .get("lang")
        .and_then(crate::i18n::supported);
    crate::i18n::set(language.unwrap_or(app.look.language));
    let mut r = LinkReader::parse(link);
    match r.get("v").map(str::parse::<u32>) {
        Some(Ok(v)) if v > VERSION => r.notices.push(crate::t!("link-newer", version = v)),
        Some(Err(_)) => r.notices.push(crate::t!("link-version-unreadable")),
        _ => {}
    }
    // The shared input first: choosing a model resets its example text and the selection.
    app.bench.load(&mut r, &app.store);
    for lab in app.labs.iter_mut() {
        lab.load(&mut r);
    }
    app.lessons.load(&mut r);
    let views: Vec<&'static str> = std::iter::once(LESSONS)
        .chain(app.labs.iter().map(|l| l.id()))
        .collect();
    if let Some(v) = r.read("view", |v| views.iter().find(|id| **id == v).copied()) {
        app.nav.view = v;
    }
    if let Some(x) = r.flag("present") {
        app.look.presenter = x;
    }
    if let Some(theme) = r.read("theme", Theme::from_name) {
        app.look.theme = theme;
    }
    if let Some(language) = r.read("lang", crate::i18n::supported) {
        app.look.language = language;
    }
    if let Some(v) = r.get("hide").map(str::to_string) {
        app.nav.hidden = Hidden::default();
        for part in v.split(',') {
            match part {
                "controls" => app.nav.hidden.controls = true,
                "tabs" => app.nav.hidden.tabs = true,
                "" => {}
                other => r.refuse("hide", other),
            }
        }
    }
    let known = known_keys(app);
    let unknown: Vec<String> = r
        .keys()
        .filter(|k| !known.contains(k))
        .map(|k| crate::t!("link-unknown-key", key = short(k)))
        .collect();
    r.notices.extend(unknown);
    r.notices
}

/// Apply a lesson page's link to the shared input and to the lab it names (set up from its
/// defaults), leaving the rest of the app (the open tab, other labs) as it is. Returns the
/// lab's id and any notices.
pub fn apply_page(app: &mut GlimpseApp, fragment: &str) -> (Option<&'static str>, Vec<String>) {
    let mut r = LinkReader::parse(fragment);
    app.bench.load(&mut r, &app.store);
    let view = r.get("view").map(str::to_string);
    let lab = app
        .labs
        .iter_mut()
        .find(|l| Some(l.id()) == view.as_deref());
    let id = lab.map(|lab| {
        // The lab starts from its defaults, so nothing an earlier page or the student changed
        // (another section, a slider) leaks into this page; then the page's own keys.
        if let Some(fresh) = crate::app::labs::Labs::default().by_id(lab.id()) {
            let mut defaults = LinkWriter::default();
            fresh.save(&mut defaults);
            lab.load(&mut LinkReader::parse(&defaults.finish()));
        }
        lab.load(&mut r);
        lab.id()
    });
    if id.is_none() {
        r.refuse("view", view.as_deref().unwrap_or(""));
    }
    (id, r.notices)
}

/// Every key a link may hold.
pub fn known_keys(app: &GlimpseApp) -> Vec<&'static str> {
    let mut keys: Vec<&'static str> = FRAME_KEYS.to_vec();
    keys.extend(crate::app::workbench::Workbench::KEYS);
    keys.extend(app.labs.iter().flat_map(|l| l.keys().iter().copied()));
    keys.extend(crate::app::lessons::Lessons::KEYS);
    keys
}

/// At most 40 characters of something a user pasted, for a notice.
fn short(s: &str) -> String {
    let mut t: String = s.chars().take(40).collect();
    if s.chars().count() > 40 {
        t.push('…');
    }
    t
}

#[cfg(test)]
mod compat;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::labs::masking::{modes::MaskMode, MaskingLab};

    #[test]
    fn escaping_round_trips_any_text() {
        for s in [
            "la zone économique européenne",
            "a&b=c#d%e+f",
            "",
            "<bos> ␣ ✗ 日本",
            "%zz%4",
        ] {
            assert_eq!(unescape(&escape(s)), s);
        }
        assert_eq!(unescape("%41%zz%"), "A%zz%");
    }

    /// A lesson page sets its lab up from the defaults plus its own keys: what an earlier page
    /// or the student changed does not leak into it.
    #[test]
    fn a_lesson_page_starts_its_lab_from_the_defaults() {
        let mut app = GlimpseApp::default();
        let masking = app.lab_mut::<MaskingLab>();
        masking.modes.mode = MaskMode::Prefix;
        masking.modes.prefix = 2;
        let (id, notices) = apply_page(&mut app, "view=masking&model=reverse&pads=3");
        assert_eq!((id, notices.len()), (Some("masking"), 0), "{notices:?}");
        let (now, fresh) = (&app.lab::<MaskingLab>().modes, MaskingLab::default().modes);
        assert_eq!((now.mode, now.prefix), (fresh.mode, fresh.prefix));
        assert_ne!(fresh.pads, 3);
        assert_eq!(now.pads, 3);
    }

    /// Texts and choices a lab writes only when they differ from its defaults (the decoding
    /// table, the fill-in sentence, the permutation panel's real encoder) are reset too: a
    /// review found the typed-table page showing the table a later page had typed.
    #[test]
    fn a_lesson_page_resets_what_links_leave_out() {
        use crate::app::labs::decoding::DecodingLab;
        use crate::app::labs::positions::{permutation::Encoder, PositionsLab};
        let mut app = GlimpseApp::default();
        let decoding = app.lab_mut::<DecodingLab>();
        decoding.settings.table_text = "<bos> -> I 0.6, Me 0.4".into();
        decoding.fill_mask.set_text("a <mask> left over".into());
        app.lab_mut::<PositionsLab>().permutation.encoder = Encoder::Real;
        apply_page(&mut app, "view=decoding&ds=table&beam=1");
        let d = app.lab::<DecodingLab>();
        assert_eq!(d.settings.table_text, crate::decode::table::TEXTBOOK);
        assert_eq!(d.fill_mask.text(), "");
        apply_page(&mut app, "view=positions&ps=5");
        let p = &app.lab::<PositionsLab>().permutation;
        assert_eq!(p.encoder, Encoder::Toy);
    }

    #[test]
    fn a_link_reproduces_the_view() {
        let mut app = GlimpseApp::default();
        app.bench.select_model(&app.store, "reverse");
        app.nav.view = "masking";
        app.bench.source = "abc".into();
        app.bench.sel.layer = 0;
        app.bench.sel.head = 3;
        let masking = app.lab_mut::<MaskingLab>();
        masking.modes.mode = MaskMode::Prefix;
        masking.modes.prefix = 2;
        app.look.presenter = true;
        app.nav.hidden.controls = true;
        let link = encode(&app);
        let mut fresh = GlimpseApp::default();
        let notices = apply(&mut fresh, &format!("https://example.org/glimpse/#{link}"));
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(encode(&fresh), link);
        assert_eq!(fresh.nav.view, "masking");
        assert_eq!(fresh.bench.model_name, "reverse");
        assert_eq!(fresh.bench.sel.head, 3);
        assert!(fresh.look.presenter && fresh.nav.hidden.controls && !fresh.nav.hidden.tabs);
    }

    #[test]
    fn garbage_keeps_defaults_with_notices_and_never_panics() {
        let default = encode(&GlimpseApp::default());
        for garbage in [
            "",
            "#",
            "&&&",
            "#v=999&view=nowhere&layer=-1&head=x&tau=NaN&beam=0&model=nope&custom=3x3:zz&hide=everything&zzz=1",
            "%%%%",
            "view",
            "#model=%FF%FE&src=%E2%28%A1",
            &"a=b&".repeat(1000),
        ] {
            let mut app = GlimpseApp::default();
            let notices = apply(&mut app, garbage);
            if garbage.contains("nowhere") {
                assert!(notices.iter().any(|n| n.contains("newer Glimpse")));
                assert!(notices.iter().any(|n| n.contains("view=nowhere")));
                assert!(notices.iter().any(|n| n.contains("unknown key `zzz`")));
                assert_eq!(app.nav.view, "attention");
                assert_eq!(app.bench.model_name, "translate");
            }
            if garbage.is_empty() || garbage == "#" || garbage == "&&&" {
                assert_eq!(encode(&app), default, "{garbage:?}");
            }
        }
    }
}
