//! The link compatibility table: `tests/fixtures/links.txt` holds links as this version writes
//! them (format 1), one per view, lab section and lesson, each with settings other than the
//! defaults. Every one must keep opening the state it describes, through the app's own path for
//! a link (`GlimpseApp::open_link` before the first frame, as a page load does, then frames):
//! each key's value is read back from the app's fields, and the opened state encodes back to the
//! same pairs. A change to the link format or to how labs restore themselves fails here.

use super::{encode, known_keys, unescape, VERSION};
use crate::app::labs::attention::lab::{AttentionLab, VIEWS as EXPLORER};
use crate::app::labs::attention::ExplorerView;
use crate::app::labs::contrastive::ContrastiveLab;
use crate::app::labs::cost::CostLab;
use crate::app::labs::decoding::session::{Settings, SourceKind};
use crate::app::labs::decoding::{DecodingLab, SOURCES};
use crate::app::labs::depth::DepthLab;
use crate::app::labs::heads::HeadsLab;
use crate::app::labs::masking::{modes, MaskingLab, Section as MaskSection};
use crate::app::labs::positions::{PositionsLab, Section as PosSection};
use crate::app::labs::rnn::RnnLab;
use crate::app::labs::softmax::{Part as SoftmaxPart, SoftmaxLab};
use crate::app::labs::vision::VisionLab;
use crate::app::labs::{induction::InductionLab, scoring::ScoringLab, training::TrainingLab};
use crate::app::lessons::content::LESSONS;
use crate::app::GlimpseApp;
use crate::model::{AttentionKind, Positional};
use egui_kittest::Harness;
use std::collections::BTreeMap;

/// A request a lab acts on once when the link opens (the decoding lab's `open=sampling`
/// opens that part), not state: nothing reads it back and links never write it.
const ONE_SHOT: &str = "open";

const TABLE: &str = include_str!("../../../tests/fixtures/links.txt");

/// The table's links: one a line; `#` starts a comment line.
fn links() -> Vec<&'static str> {
    TABLE
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// A link's pairs by key (values unescaped).
fn pairs(link: &str) -> BTreeMap<String, String> {
    link.split('&')
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (unescape(k), unescape(v)))
        .collect()
}

/// The app as a browser tab opens a link: the hash applied before the first frame, then a few
/// frames (lesson pages set themselves up, the first trace picks a head, labs clamp).
fn open(link: &str) -> Harness<'static, GlimpseApp> {
    let mut app = GlimpseApp::default();
    app.open_link(link);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_context_setup(GlimpseApp::style)
        .build_ui_state(|ui, app: &mut GlimpseApp| app.show(ui), app);
    h.run_steps(4);
    h
}

fn index_of<T: PartialEq>(all: &[T], x: &T) -> String {
    all.iter()
        .position(|y| y == x)
        .map_or("?".into(), |i| i.to_string())
}

/// What the app's own fields hold for `key`, written as a link writes it. Kept apart from
/// `link.rs` on purpose: it is the meaning of each key, frozen, not a second copy of `encode`.
fn observed(app: &GlimpseApp, key: &str) -> String {
    let train = &app.lab::<TrainingLab>().config;
    let masking = app.lab::<MaskingLab>();
    let modes = &masking.modes;
    let d = &app.lab::<DecodingLab>().settings;
    let explorer = &app.lab::<AttentionLab>().explorer;
    let scoring = app.lab::<ScoringLab>();
    let induction = app.lab::<InductionLab>();
    let softmax = app.lab::<SoftmaxLab>();
    let cost = &app.lab::<CostLab>().sizes;
    let heads = app.lab::<HeadsLab>();
    let rnn = app.lab::<RnnLab>();
    let influence = app.lab::<crate::app::labs::influence::InfluenceLab>();
    let depth = app.lab::<DepthLab>();
    let bench = &app.bench;
    match key {
        "v" => VERSION.to_string(),
        "view" => app.nav.view.into(),
        "model" => bench.model_name.clone(),
        "src" => bench.source.clone(),
        "tgt" => bench.target.clone(),
        "kind" => match bench.sel.kind {
            AttentionKind::EncoderSelf => "enc",
            AttentionKind::DecoderSelf => "dec",
            AttentionKind::Cross => "cross",
        }
        .into(),
        "layer" => bench.sel.layer.to_string(),
        "head" => bench.sel.head.to_string(),
        "tau" => bench.temperature.to_string(),
        "xv" => match explorer.view {
            ExplorerView::Head => "head",
            ExplorerView::Grid => "grid",
            ExplorerView::Lines => "lines",
            ExplorerView::Walkthrough => "walk",
        }
        .into(),
        "pre" => (explorer.pre_softmax as u8).to_string(),
        "q" => bench.sel.query.to_string(),
        "step" => explorer.step.to_string(),
        "ms" => index_of(&MaskSection::ALL, &masking.section),
        "mm" => index_of(&modes::MaskMode::ALL, &modes.mode),
        "pads" => modes.pads.to_string(),
        "prefix" => modes.prefix.to_string(),
        "custom" => modes.custom.as_ref().map_or("-".into(), modes::encode_mask),
        "ps" => index_of(&PosSection::ALL, &app.lab::<PositionsLab>().section),
        "pm" => match app.lab::<PositionsLab>().permutation.encoder {
            crate::app::labs::positions::permutation::Encoder::Real => "real".into(),
            crate::app::labs::positions::permutation::Encoder::Toy => "toy".into(),
        },
        "pt" => app.lab::<PositionsLab>().permutation.sentence.clone(),
        "pr" => app.lab::<PositionsLab>().permutation.reordered.clone(),
        "psd" => app.lab::<PositionsLab>().sinusoidal.d.to_string(),
        "psb" => app.lab::<PositionsLab>().sinusoidal.band.to_string(),
        "psc" => app.lab::<PositionsLab>().sinusoidal.circle_t.to_string(),
        "psn" => (app.lab::<PositionsLab>().sinusoidal.notes_angles as u8).to_string(),
        "prt" if app.lab::<PositionsLab>().rope.shows_notes_example() => "notes".into(),
        "prt" => "-".into(),
        "ds" => match d.kind {
            SourceKind::Translate => "translate",
            SourceKind::Lm => "lm",
            SourceKind::Table => "table",
            SourceKind::Picked => "picked",
        }
        .into(),
        "dtext" => d.text().to_string(),
        "fmask" => app.lab::<DecodingLab>().fill_mask.text().to_string(),
        "beam" => d.width.to_string(),
        "alpha" => d.alpha.to_string(),
        "maxlen" => d.max_len.to_string(),
        "seed" => train.seed.to_string(),
        "task" => train.task.name().into(),
        "pe" => match train.positional {
            Positional::None => "none",
            Positional::Sinusoidal { base: 10000.0 } => "sinusoidal",
            Positional::Learned => "learned",
            Positional::Rope { base: 10000.0 } => "rope",
            Positional::Alibi => "alibi",
            Positional::Relative { max_distance: 8 } => "relative",
            _ => "?",
        }
        .into(),
        // The width sets the FFN too, at twice the model width.
        "width" if train.d_ff == 2 * train.d_model => train.d_model.to_string(),
        "width" => format!("d_ff {} ≠ 2·{}", train.d_ff, train.d_model),
        "sch" => train.schedule.name().into(),
        "lr" => train.schedule.peak().to_string(),
        "warm" => train.schedule.warmup().to_string(),
        "clip" if train.clip_norm.is_finite() => train.clip_norm.to_string(),
        "clip" => "0".into(),
        "ilen" => induction.len.to_string(),
        "iseed" => induction.seed.to_string(),
        "stau" => scoring.temperature.to_string(),
        "dk" => scoring.d_k.to_string(),
        "smp" => index_of(&SoftmaxPart::ALL, &softmax.part),
        "sme" => softmax.scores.clone(),
        "sms" => softmax.scale.to_string(),
        "smq" => softmax.q.clone(),
        "smk" => softmax.k.clone(),
        "smv" => softmax.v.clone(),
        "smt" => (softmax.transposed as u8).to_string(),
        "smi" => softmax.query.to_string(),
        "smj" => softmax.key.to_string(),
        "sxs" => softmax.stack_seed.to_string(),
        "cpairs" => app.lab::<ContrastiveLab>().pairs.clone(),
        "chard" => app.lab::<ContrastiveLab>().hard_negative.clone(),
        "cuse" => (app.lab::<ContrastiveLab>().use_hard as u8).to_string(),
        "ctau" => app.lab::<ContrastiveLab>().tau.to_string(),
        "vtask" => app.lab::<VisionLab>().task.code().to_string(),
        "vseed" => app.lab::<VisionLab>().seed.to_string(),
        "vtrain" => (app.lab::<VisionLab>().run.running as u8).to_string(),
        "vimg" => {
            let lab = app.lab::<VisionLab>();
            match lab.gallery {
                Some(g) => g.to_string(),
                // Four pixels a hex digit, the first pixel the highest bit.
                None => lab
                    .cells
                    .chunks(4)
                    .map(|c| {
                        let n = c.iter().fold(0, |n, &on| 2 * n + u32::from(on));
                        format!("{n:x}")
                    })
                    .collect(),
            }
        }
        "vdraw" => (app.lab::<VisionLab>().drawing as u8).to_string(),
        "vlayer" => app.lab::<VisionLab>().layer.to_string(),
        "vhead" => app
            .lab::<VisionLab>()
            .head
            .map_or("mean".to_string(), |h| h.to_string()),
        "vq" => app.lab::<VisionLab>().query.to_string(),
        "vu" => app.lab::<VisionLab>().draw_u.to_string(),
        "vsize" => {
            let [h, w, c, p] = app.lab::<VisionLab>().sizes;
            format!("{h}x{w}x{c}/{p}")
        }
        "vcw" => app.lab::<VisionLab>().cnn_weights.code(),
        "vcs" => app.lab::<VisionLab>().cnn_scale.to_string(),
        "vcq" => app.lab::<VisionLab>().cnn_query.to_string(),
        "sxc" => softmax.stack_scale.to_string(),
        "cl" => cost.l.to_string(),
        "cd" => cost.d.to_string(),
        "ck" => cost.k.to_string(),
        "cff" => cost.d_ff.to_string(),
        "ch" => cost.heads.to_string(),
        "cn" => cost.layers.to_string(),
        "cb" => cost.batch.to_string(),
        // Heads off, as `e0.1` (encoder layer 0 head 1), `d…`, `c…`, sorted, comma-separated.
        "hoff" => {
            let mut codes: Vec<String> = heads
                .off
                .iter()
                .map(|h| {
                    let k = match h.kind {
                        AttentionKind::EncoderSelf => 'e',
                        AttentionKind::DecoderSelf => 'd',
                        AttentionKind::Cross => 'c',
                    };
                    format!("{k}{}.{}", h.layer, h.head)
                })
                .collect();
            codes.sort();
            codes.join(",")
        }
        "hrank" => (heads.rank as u8).to_string(),
        "dn" => depth.layers.to_string(),
        "dseed" => depth.seed.to_string(),
        "dsec" => (depth.trained_section as u8).to_string(),
        "hsec" => heads.section.to_string(),
        "dtn" => depth.trained_layers.to_string(),
        "dwarm" => (depth.warmup as u8).to_string(),
        "dtrain" => (depth.training.running as u8).to_string(),
        "rh" => rnn.hidden.to_string(),
        "rseed" => rnn.seed.to_string(),
        "rtrain" => (rnn.running as u8).to_string(),
        "rsrc" => rnn.sentence.clone(),
        "rstep" => rnn.step.to_string(),
        "kvseed" => heads.kv_seed.max(1).to_string(),
        "kvtrain" => (heads.kv_race.running as u8).to_string(),
        "hcseed" => heads.count_seed.max(1).to_string(),
        "hctrain" => (heads.count_race.running as u8).to_string(),
        "isec" => (influence.section as u8).to_string(),
        "itgt" => influence.target.clone(),
        "icon" => influence.contrast.clone(),
        "ipos" => influence.position.map_or(String::new(), |p| p.to_string()),
        "icor" => influence.corrupt.clone(),
        "isweep" => (influence.sweep as u8).to_string(),
        "ieff" => (influence.effect as u8).to_string(),
        "iabl" => (influence.ablate as u8).to_string(),
        "lesson" => app.lessons.lesson.to_string(),
        "page" => app.lessons.page.to_string(),
        "hub" => app.store.hub(),
        "present" => (app.look.presenter as u8).to_string(),
        "theme" => app.look.theme.name().into(),
        "lang" => app.look.language.into(),
        "hide" => [
            ("controls", app.nav.hidden.controls),
            ("tabs", app.nav.hidden.tabs),
        ]
        .iter()
        .filter(|(_, on)| *on)
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(","),
        other => panic!("the table uses the key `{other}`, which this test does not know"),
    }
}

/// Numbers compare as numbers (`0.50` and `0.5` are the same temperature).
fn same(key: &str, got: &str, want: &str) -> bool {
    match key {
        "tau" | "alpha" | "stau" | "sms" | "sxc" | "ctau" | "vu" | "vcs" | "lr" | "clip" => {
            got.parse::<f32>().ok() == want.parse::<f32>().ok()
        }
        "present" => (got == "1") == (want == "1" || want == "true"),
        _ => got == want,
    }
}

#[test]
fn every_link_in_the_table_opens_the_state_it_describes() {
    let mut failures = Vec::new();
    // Keys added after a link was written come back at a fresh app's value.
    let fresh = pairs(&encode(&GlimpseApp::default()));
    for link in links() {
        // A model downloaded from a hub or URL opens only in the browser (web/e2e_models.mjs
        // follows such a link against a local mirror): natively the link is read, without
        // frames, in which the download would fail and the app fall back to its first model.
        let (harness, plain);
        let app = if link.contains("model=hf%3A") || link.contains("model=url%3A") {
            let mut app = GlimpseApp::default();
            app.open_link(link);
            plain = app;
            &plain
        } else {
            harness = open(link);
            harness.state()
        };
        if !app.nav.notices.is_empty() {
            failures.push(format!("{link}\n  notices: {:?}", app.nav.notices));
        }
        let want = pairs(link);
        for (key, value) in want.iter().filter(|(k, _)| *k != ONE_SHOT) {
            let got = observed(app, key);
            if !same(key, &got, value) {
                failures.push(format!(
                    "{link}\n  {key}: the link says {value:?}, the app has {got:?}"
                ));
            }
        }
        let back = pairs(&encode(app));
        let keys: std::collections::BTreeSet<&String> = want
            .keys()
            .chain(back.keys())
            .filter(|k| *k != ONE_SHOT)
            .collect();
        for key in keys {
            let (w, b) = (want.get(key), back.get(key));
            let equal = match (w, b) {
                (Some(w), Some(b)) => same(key, b, w),
                // The decoding text came later, and its default is the one of the link's source.
                (None, Some(b)) if key == "dtext" => {
                    let kind = app.lab::<DecodingLab>().settings.kind;
                    let fresh = Settings {
                        kind,
                        ..Settings::default()
                    };
                    fresh.text() == b
                }
                (None, Some(b)) => fresh.get(key).is_some_and(|f| same(key, b, f)),
                _ => false,
            };
            if !equal {
                failures.push(format!("{link}\n  encodes back {key}={b:?}, not {w:?}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_table_covers_every_view_section_lesson_and_key() {
    let table: Vec<BTreeMap<String, String>> = links().into_iter().map(pairs).collect();
    let has = |view: &str, key: &str, value: &str| {
        table
            .iter()
            .any(|p| p["view"] == view && p.get(key).is_some_and(|v| v == value))
    };
    let app = GlimpseApp::default();
    let views = app.labs.iter().map(|l| l.id()).chain(["lessons"]);
    for view in views {
        assert!(table.iter().any(|p| p["view"] == view), "no link to {view}");
    }
    for (_, xv) in EXPLORER {
        assert!(has("attention", "xv", xv), "no link to the explorer's {xv}");
    }
    for s in 0..MaskSection::ALL.len() {
        assert!(
            has("masking", "ms", &s.to_string()),
            "no masking section {s}"
        );
    }
    for s in 0..PosSection::ALL.len() {
        assert!(
            has("positions", "ps", &s.to_string()),
            "no positions section {s}"
        );
    }
    for (_, ds) in SOURCES {
        assert!(has("decoding", "ds", ds), "no decoding source {ds}");
    }
    for l in 0..LESSONS.len() {
        assert!(
            has("lessons", "lesson", &l.to_string()),
            "no link to lesson {l}"
        );
    }
    // Every key, somewhere with a value other than a fresh app's.
    let default = pairs(&encode(&app));
    for key in known_keys(&app)
        .iter()
        .filter(|k| !["v", ONE_SHOT].contains(*k))
    {
        let differs = table
            .iter()
            .any(|p| p.get(*key).is_some_and(|v| default.get(*key) != Some(v)));
        assert!(differs, "no link sets `{key}` to anything but its default");
    }
}
