//! The mirror of the real app's frames: what a screen reader finds in the browser is what
//! these frames' AccessKit trees flatten to, and what it does comes back as the action requests
//! the page queues.

use super::mirror::{flatten, Element, Kind, Mirror};
use crate::app::{link, GlimpseApp};
use egui::accesskit::{Action, ActionData, ActionRequest, NodeId, TreeId};

/// The app on a plain egui context with AccessKit on, as the web plugin runs it.
struct Page {
    ctx: egui::Context,
    app: GlimpseApp,
    events: Vec<egui::Event>,
}

impl Page {
    fn open(link: &str) -> Self {
        let ctx = egui::Context::default();
        ctx.enable_accesskit();
        GlimpseApp::style(&ctx);
        let mut app = GlimpseApp::default();
        app.open_link(link);
        Self {
            ctx,
            app,
            events: Vec::new(),
        }
    }

    /// Runs `frames` frames at 1280×800 and flattens the last one's tree at `zoom`.
    fn frames(&mut self, frames: usize, zoom: f32) -> Mirror {
        let mut mirror = Mirror::default();
        for _ in 0..frames {
            let input = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(
                    egui::Pos2::ZERO,
                    egui::vec2(1280.0, 800.0),
                )),
                events: std::mem::take(&mut self.events),
                ..Default::default()
            };
            let app = &mut self.app;
            let mut out = self.ctx.run_ui(input, |ui| app.show(ui));
            // No renderer here to take the frame's textures.
            out.textures_delta.clear();
            let update = out
                .platform_output
                .accesskit_update
                .expect("AccessKit is on");
            mirror = flatten(&update, zoom);
        }
        mirror
    }

    fn act(&mut self, target: &Element, action: Action, data: Option<ActionData>) {
        self.events
            .push(egui::Event::AccessKitActionRequest(ActionRequest {
                action,
                target_tree: TreeId::ROOT,
                target_node: NodeId(target.id),
                data,
            }));
    }

    fn press(&mut self, key: egui::Key) -> Mirror {
        for pressed in [true, false] {
            self.events.push(egui::Event::Key {
                key,
                physical_key: None,
                pressed,
                repeat: false,
                modifiers: egui::Modifiers::NONE,
            });
        }
        self.frames(2, 1.0)
    }
}

/// The mirror's elements of one kind.
fn of_kind(mirror: &Mirror, kind: impl Fn(&Kind) -> bool) -> Vec<&Element> {
    mirror.elements.iter().filter(|e| kind(&e.kind)).collect()
}

/// The rows of the view's one table.
fn table_rows(mirror: &Mirror) -> &Vec<Vec<super::mirror::Cell>> {
    let tables = of_kind(mirror, |k| matches!(k, Kind::Table { .. }));
    assert_eq!(tables.len(), 1, "{:?}", mirror.elements);
    let Kind::Table { rows } = &tables[0].kind else {
        unreachable!()
    };
    rows
}

fn named<'a>(mirror: &'a Mirror, name: &str) -> Vec<&'a Element> {
    mirror.elements.iter().filter(|e| e.name == name).collect()
}

fn button<'a>(mirror: &'a Mirror, name: &str) -> &'a Element {
    let found = named(mirror, name);
    let buttons: Vec<_> = found
        .into_iter()
        .filter(|e| e.kind == Kind::Control { role: "button" })
        .collect();
    assert_eq!(buttons.len(), 1, "one button named {name:?}: {buttons:?}");
    buttons[0]
}

#[test]
fn every_tab_is_a_named_button_with_its_state_and_a_click_opens_it() {
    let mut page = Page::open("v=1&view=attention");
    let mirror = page.frames(4, 1.0);
    let titles: Vec<String> = std::iter::once("Lessons".to_string())
        .chain(page.app.labs.iter().map(|l| l.title()))
        .collect();
    assert!(titles.len() > 10, "{titles:?}");
    for title in &titles {
        let tab = button(&mirror, title);
        assert!(tab.rect[2] > 0.0 && tab.rect[3] > 0.0, "{title}: {tab:?}");
        assert!(tab.rect[1] < 60.0, "{title} is in the top bar: {tab:?}");
    }
    let open = button(&mirror, "Attention");
    assert_eq!(open.on, Some(true));
    let lessons = button(&mirror, "Lessons").clone();
    assert_eq!(lessons.on, Some(false));
    // A screen reader's click on the Lessons tab opens the lessons, as a mouse click would.
    page.act(&lessons, Action::Click, None);
    let mirror = page.frames(3, 1.0);
    assert_eq!(page.app.nav.view, link::LESSONS);
    assert_eq!(button(&mirror, "Lessons").on, Some(true));
    assert_eq!(button(&mirror, "Attention").on, Some(false));
}

#[test]
fn the_input_is_text_fields_and_a_new_value_from_the_page_is_the_new_input() {
    let mut page = Page::open("v=1&view=attention");
    let mirror = page.frames(4, 1.0);
    // The default model translates: the encoder's sentence and the decoder's, each named by
    // the label above it.
    let field = |m: &Mirror, name: &str| -> Element {
        let found: Vec<&Element> = named(m, name)
            .into_iter()
            .filter(|e| matches!(e.kind, Kind::Text { .. }))
            .collect();
        assert_eq!(found.len(), 1, "{name}: {:?}", m.elements);
        found[0].clone()
    };
    let source = field(&mirror, "Source (encoder)");
    assert!(matches!(&source.kind, Kind::Text { value, .. } if value.contains("économique")));
    let target = field(&mirror, "Target (decoder, after <bos>)");
    let typed = "the european area";
    page.act(
        &target,
        Action::SetValue,
        Some(ActionData::Value(typed.into())),
    );
    let mirror = page.frames(3, 1.0);
    let target = field(&mirror, "Target (decoder, after <bos>)");
    assert_eq!(
        target.kind,
        Kind::Text {
            multiline: false,
            value: typed.into()
        }
    );
    // The app took it: the link it writes carries the new sentence.
    let link = link::encode(&page.app);
    assert!(link.contains(&link::escape(typed)), "{link}");
}

#[test]
fn sliders_are_ranges_a_screen_reader_can_set() {
    let mut page = Page::open("v=1&view=attention");
    let mirror = page.frames(4, 1.0);
    let sliders = of_kind(&mirror, |k| matches!(k, Kind::Slider { .. }));
    assert!(!sliders.is_empty(), "{:?}", mirror.elements);
    for s in &sliders {
        let Kind::Slider {
            min, max, value, ..
        } = s.kind
        else {
            unreachable!()
        };
        assert!(min < max && (min..=max).contains(&value), "{s:?}");
        assert!(!s.name.is_empty(), "every slider has a name: {s:?}");
    }
}

#[test]
fn places_follow_the_zoom_and_the_focus_is_named() {
    let mut page = Page::open("v=1&view=attention");
    let at_1 = page.frames(4, 1.0);
    let at_2 = page.frames(1, 2.0);
    let a = button(&at_1, "Lessons");
    let b = button(&at_2, "Lessons");
    for i in 0..4 {
        assert!((b.rect[i] - 2.0 * a.rect[i]).abs() < 1e-3, "{a:?} {b:?}");
    }
    // Tab moves egui's focus; the mirror names the focused element (the canvas points at it).
    let mirror = page.press(egui::Key::Tab);
    let focus = mirror.focus.expect("Tab focuses a control");
    assert!(mirror
        .elements
        .iter()
        .any(|e| e.id == focus && !e.name.is_empty()));
}

#[test]
fn a_heatmap_is_read_as_a_table_of_its_weights() {
    let mut page = Page::open("v=1&view=attention");
    let mirror = page.frames(4, 1.0);
    let rows = table_rows(&mirror);
    let caption = &of_kind(&mirror, |k| matches!(k, Kind::Table { .. }))[0].name;
    assert!(
        caption.contains("a query in each row, a key in each column"),
        "{caption}"
    );
    // The header row: the corner, then the four source tokens of the default sentence.
    let head: Vec<&str> = rows[0].iter().map(|c| c.text.as_str()).collect();
    assert!(rows[0].iter().all(|c| c.header));
    assert_eq!(head.len(), 5, "{head:?}");
    assert!(head[3].contains("économique"), "{head:?}");
    // Each row: its query token, then its weights, which sum to 1 (rounded to 0.01 each).
    assert!(rows.len() > 2);
    for row in &rows[1..] {
        assert!(
            row[0].header && !row[1..].iter().any(|c| c.header),
            "{row:?}"
        );
        let sum: f64 = row[1..]
            .iter()
            .map(|c| c.text.parse::<f64>().unwrap())
            .sum();
        assert!(
            (sum - 1.0).abs() <= 0.005 * (row.len() - 1) as f64,
            "{row:?}"
        );
    }
    // On a causal model the weights above the diagonal read "masked".
    let mut page = Page::open("v=1&view=attention&model=lm");
    let mirror = page.frames(4, 1.0);
    let rows = table_rows(&mirror);
    assert_eq!(rows[1][2].text, "masked", "{:?}", rows[1]);
    assert_ne!(rows[2][2].text, "masked", "{:?}", rows[2]);
}

#[test]
fn the_keyboard_walks_a_heatmap_cell_by_cell_and_enter_opens_the_row() {
    let mut page = Page::open("v=1&view=attention");
    let mut mirror = page.frames(4, 1.0);
    // Tab through the controls to the heatmap.
    let is_heatmap = |m: &Mirror| {
        m.elements.iter().any(|e| {
            Some(e.id) == m.focus
                && e.kind == Kind::Control { role: "img" }
                && e.name.starts_with("heatmap")
        })
    };
    for _ in 0..80 {
        if is_heatmap(&mirror) {
            break;
        }
        mirror = page.press(egui::Key::Tab);
    }
    assert!(is_heatmap(&mirror), "Tab never reached the heatmap");
    page.press(egui::Key::ArrowDown);
    page.press(egui::Key::ArrowDown);
    mirror = page.press(egui::Key::ArrowRight);
    let live: Vec<&Element> = mirror.elements.iter().filter(|e| e.live).collect();
    assert_eq!(live.len(), 1, "{:?}", mirror.elements);
    let said = &live[0].name;
    // The cell (2, 1): the table's row 2 (after its header row), column 1 (after the row's
    // header), and the same value.
    let rows = table_rows(&mirror);
    assert!(said.contains("query 2 “european”"), "{said}");
    assert!(
        said.contains(&format!(
            "key 1 {}",
            rows[0][2].text.split_once(' ').unwrap().1
        )),
        "{said} / {:?}",
        rows[0]
    );
    assert!(
        said.ends_with(&format!("value {}", rows[3][2].text)),
        "{said} / {:?}",
        rows[3]
    );
    // Home and End move along the row; Enter opens the row's query as a click does.
    mirror = page.press(egui::Key::End);
    let said = &mirror.elements.iter().find(|e| e.live).unwrap().name;
    assert!(said.contains("key 3 "), "{said}");
    page.press(egui::Key::Enter);
    assert_eq!(page.app.bench.sel.query, 2);
}

/// A plot is an image named by its one-sentence summary, with its numbers as a table. On the
/// Cost tab the numbers follow the closed forms: log(L²·D) = 2·log L + log D and
/// log(L·D²) = log L + 2·log D.
#[test]
fn a_plot_is_summarised_and_its_numbers_are_a_table() {
    let mut page = Page::open("v=1&view=cost");
    let mirror = page.frames(4, 1.0);
    let title = "log₁₀ multiply-adds per layer for mixing";
    let summary = mirror
        .elements
        .iter()
        .find(|e| e.name.starts_with(&format!("{title}: ")))
        .unwrap_or_else(|| panic!("no summary: {:?}", mirror.elements));
    for line in [
        "“self-attention L²·D”",
        "“recurrent L·D²”",
        "log₁₀ L now at",
    ] {
        assert!(summary.name.contains(line), "{}", summary.name);
    }
    let table = of_kind(&mirror, |k| matches!(k, Kind::Table { .. }))
        .into_iter()
        .find(|t| t.name == format!("{title}, the numbers"))
        .expect("the plot's table");
    let Kind::Table { rows } = &table.kind else {
        unreachable!()
    };
    let head: Vec<&str> = rows[0].iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        head[..3],
        ["log₁₀ L", "self-attention L²·D", "recurrent L·D²"]
    );
    assert!(rows.len() > 10 && rows.len() <= crate::app::widgets::plot_words::MAX_ROWS + 1);
    let number = |c: &super::mirror::Cell| c.text.parse::<f64>().unwrap();
    let log_d: Vec<f64> = rows[1..]
        .iter()
        .map(|r| number(&r[1]) - 2.0 * number(&r[0]))
        .collect();
    // Three significant figures: values up to 13 round by at most 0.05.
    for (row, d) in rows[1..].iter().zip(&log_d) {
        assert!((d - log_d[0]).abs() < 0.06, "{row:?}");
        let recurrent = number(&row[0]) + 2.0 * log_d[0];
        assert!((number(&row[2]) - recurrent).abs() < 0.1, "{row:?}");
    }
}

/// Every control Tab reaches, through the top bar, the controls and the view, is named: a
/// screen reader never lands on a nameless stop.
#[test]
fn every_stop_of_the_tab_order_is_named() {
    for link in ["v=1&view=attention", "v=1&view=decoding&ds=table"] {
        let mut page = Page::open(link);
        page.frames(4, 1.0);
        let mut nameless = Vec::new();
        let mut stops = 0;
        for _ in 0..70 {
            let mirror = page.press(egui::Key::Tab);
            let Some(focus) = mirror.focus else {
                let node = page.ctx.memory(|m| m.focused());
                nameless.push(format!("no element ({node:?})"));
                continue;
            };
            stops += 1;
            let named = mirror
                .elements
                .iter()
                .any(|e| e.id == focus && !e.name.is_empty());
            if !named {
                let node = page.ctx.memory(|m| m.focused());
                nameless.push(format!("{focus} ({node:?})"));
            }
        }
        assert!(stops > 40, "{link}: {stops} stops");
        assert!(nameless.is_empty(), "{link}: nameless stops {nameless:?}");
    }
}
