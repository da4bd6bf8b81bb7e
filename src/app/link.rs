//! Links that reproduce a view: the app's state as `key=value` pairs in the URL hash
//! (`#v=1&view=attention&model=translate&…`). Reading is forgiving: an old, partial or garbage
//! hash keeps the defaults for whatever it cannot read and says so in a notice; it never panics.

use super::explorer::ExplorerView;
use super::masking::{modes::MaskMode, Section as MaskSection};
use super::positions::Section as PosSection;
use super::{GlimpseApp, View};
use crate::app::decoding::session::SourceKind;
use crate::app::lessons::content as lessons;
use crate::model::{builtin, AttentionKind, Positional};
use crate::train::tasks::TaskKind;
use crate::train::trainer::TrainConfig;

/// The link format's version; a newer link is read as far as this version understands it.
pub const VERSION: u32 = 1;

/// Controls a link can hide, for focused embeds (`hide=controls,tabs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Hidden {
    /// The left panel (model, input, layer/head).
    pub controls: bool,
    /// The top bar's tabs and model picker.
    pub tabs: bool,
}

const VIEWS: [(View, &str); 7] = [
    (View::Attention, "attention"),
    (View::Masking, "masking"),
    (View::Positions, "positions"),
    (View::Decoding, "decoding"),
    (View::Scoring, "scoring"),
    (View::Training, "training"),
    (View::Lessons, "lessons"),
];
const KINDS: [(AttentionKind, &str); 3] = [
    (AttentionKind::EncoderSelf, "enc"),
    (AttentionKind::DecoderSelf, "dec"),
    (AttentionKind::Cross, "cross"),
];
const EXPLORER: [(ExplorerView, &str); 4] = [
    (ExplorerView::Head, "head"),
    (ExplorerView::Grid, "grid"),
    (ExplorerView::Lines, "lines"),
    (ExplorerView::Walkthrough, "walk"),
];
const SOURCES: [(SourceKind, &str); 3] = [
    (SourceKind::Translate, "translate"),
    (SourceKind::Lm, "lm"),
    (SourceKind::Table, "table"),
];

fn name_of<T: PartialEq + Copy>(table: &[(T, &'static str)], v: T) -> &'static str {
    table.iter().find(|(x, _)| *x == v).map_or("", |(_, n)| n)
}

fn value_of<T: Copy>(table: &[(T, &'static str)], name: &str) -> Option<T> {
    table.iter().find(|(_, n)| *n == name).map(|(v, _)| *v)
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
    let mut p: Vec<(&str, String)> = vec![
        ("v", VERSION.to_string()),
        ("view", name_of(&VIEWS, app.view).into()),
        ("model", app.model_name.clone()),
        ("src", app.source.clone()),
        ("tgt", app.target.clone()),
        ("kind", name_of(&KINDS, app.sel.kind).into()),
        ("layer", app.sel.layer.to_string()),
        ("head", app.sel.head.to_string()),
        ("tau", app.temperature.to_string()),
        ("xv", name_of(&EXPLORER, app.explorer.view).into()),
        ("pre", (app.explorer.pre_softmax as u8).to_string()),
        ("q", app.explorer.query.to_string()),
        ("step", app.explorer.step.to_string()),
    ];
    let m = &app.masking;
    p.push((
        "ms",
        MaskSection::ALL
            .iter()
            .position(|s| *s == m.section)
            .unwrap_or(0)
            .to_string(),
    ));
    p.push((
        "mm",
        MaskMode::ALL
            .iter()
            .position(|x| *x == m.modes.mode)
            .unwrap_or(0)
            .to_string(),
    ));
    p.push(("pads", m.modes.pads.to_string()));
    p.push(("prefix", m.modes.prefix.to_string()));
    if let Some(c) = &m.modes.custom {
        p.push(("custom", super::masking::modes::encode_mask(c)));
    }
    p.push((
        "ps",
        PosSection::ALL
            .iter()
            .position(|s| *s == app.positions.section)
            .unwrap_or(0)
            .to_string(),
    ));
    let d = &app.decoding.settings;
    p.push(("ds", name_of(&SOURCES, d.kind).into()));
    p.push(("beam", d.width.to_string()));
    p.push(("alpha", d.alpha.to_string()));
    p.push(("maxlen", d.max_len.to_string()));
    p.push(("seed", app.training.config.seed.to_string()));
    p.push(("task", app.training.config.task.name().into()));
    p.push(("pe", positional_name(app.training.config.positional).into()));
    p.push(("width", app.training.config.d_model.to_string()));
    p.push(("stau", app.scoring.temperature.to_string()));
    p.push(("dk", app.scoring.d_k.to_string()));
    p.push(("lesson", app.lessons.lesson.to_string()));
    p.push(("page", app.lessons.page.to_string()));
    let mut hide = Vec::new();
    if app.hidden.controls {
        hide.push("controls");
    }
    if app.hidden.tabs {
        hide.push("tabs");
    }
    if !hide.is_empty() {
        p.push(("hide", hide.join(",")));
    }
    if app.presenter {
        p.push(("present", "1".into()));
    }
    if app.light {
        p.push(("theme", "light".into()));
    }
    p.iter()
        .map(|(k, v)| format!("{k}={}", escape(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// A link (without `v=`) to every view, lab section and lesson page, for tests that must
/// visit them all: the UI tests and the browser's presenter walk (`glimpse_every_view`).
pub fn every_view() -> Vec<String> {
    let mut links: Vec<String> = EXPLORER
        .iter()
        .map(|(_, xv)| format!("view=attention&model=translate&xv={xv}"))
        .collect();
    links.extend(
        (0..MaskSection::ALL.len()).map(|s| format!("view=masking&model=translate&ms={s}")),
    );
    links.extend((0..PosSection::ALL.len()).map(|s| format!("view=positions&ps={s}")));
    links.extend(SOURCES.iter().map(|(_, d)| format!("view=decoding&ds={d}")));
    links.push("view=scoring".into());
    links.push("view=training".into());
    for (l, lesson) in lessons::LESSONS.iter().enumerate() {
        links.extend((0..lesson.pages.len()).map(|p| format!("view=lessons&lesson={l}&page={p}")));
    }
    links
}

/// Apply a link (with or without `#`, or a whole URL) to the app. Returns notices for
/// anything that could not be read; what could be read is applied.
pub fn apply(app: &mut GlimpseApp, link: &str) -> Vec<String> {
    let hash = link.split_once('#').map_or(link, |(_, h)| h);
    let mut notices = Vec::new();
    let mut pairs: Vec<(String, String)> = Vec::new();
    for part in hash.split('&').filter(|s| !s.is_empty()).take(64) {
        match part.split_once('=') {
            Some((k, v)) => pairs.push((unescape(k), unescape(v))),
            None => notices.push(format!("ignored `{}` (not key=value)", short(part))),
        }
    }
    let get = |k: &str| {
        pairs
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    match get("v").map(str::parse::<u32>) {
        Some(Ok(v)) if v > VERSION => notices.push(format!(
            "this link comes from a newer Glimpse (format {v}); reading what this version understands"
        )),
        Some(Err(_)) => notices.push("the link's version is unreadable; reading it anyway".into()),
        _ => {}
    }
    let mut bad = |k: &str, v: &str| {
        notices.push(format!("could not read {k}={}: kept the default", short(v)))
    };
    // The model first: choosing one resets its example text and the selection.
    if let Some(m) = get("model") {
        if builtin::info(m).is_some() {
            app.select_model(m);
        } else {
            bad("model", m);
        }
    }
    if let Some(v) = get("src") {
        app.source = v.chars().take(4000).collect();
    }
    if let Some(v) = get("tgt") {
        app.target = v.chars().take(4000).collect();
    }
    macro_rules! read {
        ($key:literal, $parse:expr, $set:expr) => {
            if let Some(v) = get($key) {
                match $parse(v) {
                    Some(x) => $set(x),
                    None => bad($key, v),
                }
            }
        };
    }
    read!("view", |v| value_of(&VIEWS, v), |x| app.view = x);
    read!("kind", |v| value_of(&KINDS, v), |x| app.sel.kind = x);
    read!(
        "layer",
        |v: &str| v.parse::<usize>().ok().filter(|&l| l < 64),
        |x| app.sel.layer = x
    );
    read!(
        "head",
        |v: &str| v.parse::<usize>().ok().filter(|&h| h < 64),
        |x| {
            app.sel.head = x;
            // The link names its head: the first trace must not swap in the sharpest one.
            app.pick_head = false;
        }
    );
    read!(
        "tau",
        |v: &str| v.parse::<f32>().ok().filter(|t| (0.05..=5.0).contains(t)),
        |x| app.temperature = x
    );
    read!("xv", |v| value_of(&EXPLORER, v), |x| app.explorer.view = x);
    read!("pre", parse_bool, |x| app.explorer.pre_softmax = x);
    read!(
        "q",
        |v: &str| v.parse::<usize>().ok().filter(|&q| q < 4096),
        |x| app.explorer.query = x
    );
    read!(
        "step",
        |v: &str| v.parse::<usize>().ok().filter(|&s| s < 64),
        |x| app.explorer.step = x
    );
    read!(
        "ms",
        |v: &str| v
            .parse::<usize>()
            .ok()
            .and_then(|i| MaskSection::ALL.get(i).copied()),
        |x| app.masking.section = x
    );
    read!(
        "mm",
        |v: &str| v
            .parse::<usize>()
            .ok()
            .and_then(|i| MaskMode::ALL.get(i).copied()),
        |x| app.masking.modes.mode = x
    );
    read!(
        "pads",
        |v: &str| v.parse::<usize>().ok().filter(|&p| p <= 6),
        |x| app.masking.modes.pads = x
    );
    read!(
        "prefix",
        |v: &str| v.parse::<usize>().ok().filter(|&p| p <= 12),
        |x| app.masking.modes.prefix = x
    );
    read!(
        "custom",
        |v| super::masking::modes::decode_mask(v).ok(),
        |x| app.masking.modes.custom = Some(x)
    );
    read!(
        "ps",
        |v: &str| v
            .parse::<usize>()
            .ok()
            .and_then(|i| PosSection::ALL.get(i).copied()),
        |x| app.positions.section = x
    );
    read!("ds", |v| value_of(&SOURCES, v), |x| app
        .decoding
        .settings
        .kind = x);
    read!(
        "beam",
        |v: &str| v.parse::<usize>().ok().filter(|w| (1..=8).contains(w)),
        |x| app.decoding.settings.width = x
    );
    read!(
        "alpha",
        |v: &str| v.parse::<f32>().ok().filter(|a| (0.0..=2.0).contains(a)),
        |x| app.decoding.settings.alpha = x
    );
    read!(
        "maxlen",
        |v: &str| v.parse::<usize>().ok().filter(|m| (1..=30).contains(m)),
        |x| app.decoding.settings.max_len = x
    );
    read!("task", TaskKind::from_name, |x| {
        // The task's own defaults first; the seed and the rest of the link come after.
        app.training.config = TrainConfig::for_task(x);
    });
    read!("seed", |v: &str| v.parse::<u64>().ok(), |x| app
        .training
        .config
        .seed = x);
    read!("pe", positional_from_name, |x| app
        .training
        .config
        .positional = x);
    read!(
        "width",
        |v: &str| v.parse::<usize>().ok().filter(|w| [16, 32, 64].contains(w)),
        |x| {
            app.training.config.d_model = x;
            app.training.config.d_ff = 2 * x;
        }
    );
    read!(
        "stau",
        |v: &str| v.parse::<f32>().ok().filter(|t| (0.05..=20.0).contains(t)),
        |x| app.scoring.temperature = x
    );
    read!(
        "dk",
        |v: &str| v
            .parse::<usize>()
            .ok()
            .filter(|d| d.is_power_of_two() && (2..=512).contains(d)),
        |x| app.scoring.d_k = x
    );
    // A lesson and a page that exist (the page checked against the lesson read).
    read!(
        "lesson",
        |v: &str| v
            .parse::<usize>()
            .ok()
            .filter(|&l| l < lessons::LESSONS.len()),
        |x| {
            app.lessons.lesson = x;
            app.lessons.page = 0;
        }
    );
    let pages = lessons::LESSONS[app.lessons.lesson.min(lessons::LESSONS.len() - 1)]
        .pages
        .len();
    read!(
        "page",
        |v: &str| v.parse::<usize>().ok().filter(|&p| p < pages),
        |x| app.lessons.page = x
    );
    read!("present", parse_bool, |x| app.presenter = x);
    read!(
        "theme",
        |v| match v {
            "light" => Some(true),
            "dark" => Some(false),
            _ => None,
        },
        |x| app.light = x
    );
    if let Some(v) = get("hide") {
        app.hidden = Hidden::default();
        for part in v.split(',') {
            match part {
                "controls" => app.hidden.controls = true,
                "tabs" => app.hidden.tabs = true,
                "" => {}
                other => bad("hide", other),
            }
        }
    }
    for (k, _) in &pairs {
        if !KEYS.contains(&k.as_str()) {
            notices.push(format!("ignored unknown key `{}`", short(k)));
        }
    }
    app.computed = None;
    notices
}

/// Every key a link may hold.
const KEYS: [&str; 34] = [
    "lesson", "page", "task", "pe", "width", "stau", "dk", "v", "view", "model", "src", "tgt",
    "kind", "layer", "head", "tau", "xv", "pre", "q", "step", "ms", "mm", "pads", "prefix",
    "custom", "ps", "ds", "beam", "alpha", "maxlen", "seed", "present", "theme", "hide",
];

/// The training lab's positional schemes by name.
const SCHEMES: [(&str, Positional); 6] = [
    ("none", Positional::None),
    ("sinusoidal", Positional::Sinusoidal { base: 10000.0 }),
    ("learned", Positional::Learned),
    ("rope", Positional::Rope { base: 10000.0 }),
    ("alibi", Positional::Alibi),
    ("relative", Positional::Relative { max_distance: 8 }),
];

fn positional_name(p: Positional) -> &'static str {
    SCHEMES
        .iter()
        .find(|(_, s)| *s == p)
        .map_or("sinusoidal", |(n, _)| n)
}

fn positional_from_name(v: &str) -> Option<Positional> {
    SCHEMES.iter().find(|(n, _)| *n == v).map(|(_, s)| *s)
}

fn parse_bool(v: &str) -> Option<bool> {
    match v {
        "1" | "true" => Some(true),
        "0" | "false" => Some(false),
        _ => None,
    }
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

    #[test]
    fn a_link_reproduces_the_view() {
        let mut app = GlimpseApp::default();
        app.select_model("reverse");
        app.view = View::Masking;
        app.source = "abc".into();
        app.sel.layer = 0;
        app.sel.head = 3;
        app.masking.modes.mode = MaskMode::Prefix;
        app.masking.modes.prefix = 2;
        app.presenter = true;
        app.hidden.controls = true;
        let link = encode(&app);
        let mut fresh = GlimpseApp::default();
        let notices = apply(&mut fresh, &format!("https://example.org/glimpse/#{link}"));
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(encode(&fresh), link);
        assert_eq!(fresh.view, View::Masking);
        assert_eq!(fresh.model_name, "reverse");
        assert_eq!(fresh.sel.head, 3);
        assert!(fresh.presenter && fresh.hidden.controls && !fresh.hidden.tabs);
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
                assert_eq!(app.view, View::Attention);
                assert_eq!(app.model_name, "translate");
            }
            if garbage.is_empty() || garbage == "#" || garbage == "&&&" {
                assert_eq!(encode(&app), default, "{garbage:?}");
            }
        }
    }
}
