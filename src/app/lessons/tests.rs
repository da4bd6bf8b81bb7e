//! Every page applies and draws; navigation by buttons, contents and keys.

use super::content::LESSONS;
use super::Page;
use crate::app::labs::attention::lab::AttentionLab;
use crate::app::link;
use crate::app::GlimpseApp;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;

pub(super) fn harness() -> Harness<'static, GlimpseApp> {
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_context_setup(GlimpseApp::style)
        .build_ui_state(
            |ui, app: &mut GlimpseApp| app.show(ui),
            GlimpseApp::default(),
        )
}

pub(super) fn lessons_tab() -> Harness<'static, GlimpseApp> {
    let mut h = harness();
    h.run_steps(2);
    h.get_by_label("Lessons").click();
    h.run_steps(2);
    assert_eq!(h.state().nav.view, link::LESSONS);
    h
}

/// Set the app up for `page` as opening it does (its link, then the forward pass).
pub(super) fn apply(page: &Page, app: &mut GlimpseApp) {
    let (lab, notices) = link::apply_page(app, page.link);
    assert!(notices.is_empty(), "{}: {notices:?}", page.title());
    assert_eq!(lab, Some(page.lab()), "{}", page.title());
    app.bench.refresh(&app.store);
}

/// The built-in model a page runs: its `model=`, or the decoding source's model.
/// Whether the real model a page opens (if any) is in the model cache: skipped when absent,
/// except in CI (`GLIMPSE_REQUIRE_REAL_MODELS`), where a missing one fails.
pub(super) fn real_model_here(page: &Page) -> bool {
    use crate::util::real_models;
    match page_model(page) {
        Some("all-MiniLM-L6-v2") => real_models::minilm().is_some(),
        Some("SmolLM2-135M-Instruct.Q4_1") => real_models::smollm2().is_some(),
        _ => true,
    }
}

pub(super) fn page_model(page: &Page) -> Option<&'static str> {
    let link: &'static str = page.link;
    let value = |key: &str| {
        link.split('&')
            .find_map(|p| p.strip_prefix(key)?.strip_prefix('='))
    };
    // The permutation panel's real encoder.
    if value("pm") == Some("real") {
        return Some("all-MiniLM-L6-v2");
    }
    value("model").or(match value("ds") {
        Some("translate") => Some("translate"),
        Some("lm") => Some("lm"),
        _ => None,
    })
}

#[test]
fn every_page_has_text_and_a_model_that_loads() {
    assert!(LESSONS.len() >= 6);
    for lesson in LESSONS {
        assert!(!lesson.title().is_empty());
        assert!((2..=8).contains(&lesson.pages.len()), "{}", lesson.title());
        for page in lesson.pages {
            assert!(!page.title().is_empty());
            // Display formulas aside, a page is a few paragraphs.
            let text = page
                .paragraphs()
                .into_iter()
                .filter(|p| crate::app::formulas::display_name(p).is_none());
            assert!((2..=6).contains(&text.count()), "{}", page.title());
            assert!(page.paragraphs().iter().all(|p| !p.trim().is_empty()));
            let needs_model = !matches!(
                page.lab(),
                "positions" | "training" | "softmax" | "cost" | "vision"
            ) && !page.link.contains("ds=table");
            match page_model(page) {
                // A real model served beside the app: opened (from the cache) by the next test.
                Some(name) if crate::app::models::sources::served(name).is_some() => {}
                Some(name) => {
                    crate::model::builtin::load(name)
                        .unwrap_or_else(|e| panic!("{}: {name}: {e}", page.title()));
                }
                None => assert!(!needs_model, "{} names no model", page.title()),
            }
        }
    }
}

#[test]
fn every_page_link_applies_to_a_working_app() {
    let mut app = GlimpseApp::default();
    for lesson in LESSONS {
        for page in lesson.pages.iter().filter(|p| real_model_here(p)) {
            apply(page, &mut app);
            let lab = app.labs.by_id(page.lab()).expect("the page names a lab");
            if lab.uses_shared_input() {
                let name = page_model(page).expect("a model for the shared input");
                assert_eq!(app.bench.model_name, name, "{}", page.title());
                assert!(app.bench.model.is_ok(), "{}", page.title());
                assert!(
                    app.bench.trace().is_some(),
                    "{}: forward pass failed",
                    page.title()
                );
            }
        }
    }
}

#[test]
fn next_walks_through_every_page() {
    let mut h = lessons_tab();
    h.get_by_label_contains("Lesson 1 of");
    h.get_by_label_contains("page 1 of");
    let total: usize = LESSONS.iter().map(|l| l.pages.len()).sum();
    for _ in 1..total {
        let before = (h.state().lessons.lesson, h.state().lessons.page);
        h.get_by_label("Next").click();
        h.run_steps(2);
        let (l, p) = (h.state().lessons.lesson, h.state().lessons.page);
        assert_ne!((l, p), before);
        let here = format!("Lesson {} of {} · page {} of", l + 1, LESSONS.len(), p + 1);
        h.get_by_label_contains(&here);
        // The title as a screen reader hears it (a formula in it read in words).
        let title = crate::app::widgets::math_text::spoken(&LESSONS[l].pages[p].title());
        assert!(h.query_all_by_label(&title).count() >= 1, "{title}");
        // The page's lab is the one drawn, set up as the page says.
        assert_eq!(h.state().lessons.applied, Some((l, p)));
    }
    assert!(h.state().lessons.is_last());
    h.get_by_label("Previous").click();
    h.run_steps(2);
    assert!(!h.state().lessons.is_last());
}

#[test]
fn the_second_page_says_so() {
    let mut h = lessons_tab();
    h.get_by_label("Next").click();
    h.run_steps(2);
    h.get_by_label_contains("page 2 of");
}

#[test]
fn contents_jumps_to_a_page() {
    let mut h = lessons_tab();
    // Tall enough for the whole list down to lesson 5 under the top bar's rows.
    h.set_size(egui::vec2(1280.0, 1100.0));
    h.run_steps(2);
    h.get_by_label("Contents").click();
    h.run_steps(2);
    let target = format!("5.2 {}", LESSONS[4].pages[1].title());
    h.get_by_label(&target).click();
    h.run_steps(2);
    assert_eq!((h.state().lessons.lesson, h.state().lessons.page), (4, 1));
    h.get_by_label_contains("Lesson 5 of");
    h.get_by_label_contains("page 2 of");
    assert_eq!(
        h.state()
            .lab::<crate::app::labs::masking::MaskingLab>()
            .section,
        crate::app::labs::masking::Section::Batch
    );
}

#[test]
fn page_keys_move_between_pages() {
    let mut h = lessons_tab();
    h.key_press(egui::Key::PageDown);
    h.run_steps(2);
    h.get_by_label_contains("page 2 of");
    h.key_press(egui::Key::PageUp);
    h.run_steps(2);
    h.get_by_label_contains("page 1 of");
}

/// A keyboard user has a button focused (the Lessons tab they pressed): the page keys still
/// turn the page.
#[test]
fn page_keys_work_while_a_button_has_the_focus() {
    let mut h = lessons_tab();
    h.get_by_label("Lessons").focus();
    h.run_steps(2);
    assert!(h.get_by_label("Lessons").is_focused());
    h.key_press(egui::Key::PageDown);
    h.run_steps(2);
    h.get_by_label_contains("page 2 of");
}

#[test]
fn a_setup_is_applied_once_so_the_student_can_change_it() {
    use crate::app::labs::attention::ExplorerView;
    let mut h = lessons_tab();
    assert_eq!(
        h.state().lab::<AttentionLab>().explorer.view,
        ExplorerView::Head
    );
    h.get_by_label("All heads").click();
    h.run_steps(2);
    assert_eq!(
        h.state().lab::<AttentionLab>().explorer.view,
        ExplorerView::Grid
    );
    h.get_by_label("Set this page up again").click();
    h.run_steps(2);
    assert_eq!(
        h.state().lab::<AttentionLab>().explorer.view,
        ExplorerView::Head
    );
}

/// The weights of the head the app has selected, on its current input.
pub(super) fn selected_weights(app: &GlimpseApp) -> ndarray::Array2<f32> {
    let trace = app.bench.trace().expect("a trace");
    let sel = app.bench.sel;
    let w = trace.weights(sel.kind, sel.layer).expect("weights");
    w.index_axis(ndarray::Axis(0), sel.head).to_owned()
}

/// The page titled `title`.
pub(super) fn page(title: &str) -> &'static Page {
    LESSONS
        .iter()
        .flat_map(|l| l.pages)
        .find(|p| p.title() == title)
        .unwrap_or_else(|| panic!("no page {title}"))
}

/// `x` as the text writes it, to two decimals; the page must say it.
pub(super) fn says(title: &str, x: f32) {
    let text = page_text(title);
    let number = format!("{x:.2}");
    assert!(
        text.contains(&number),
        "{title}: the text does not say {number}"
    );
}

/// The head the classifier finds for `pattern` on the app's current input and attention.
pub(super) fn found(
    app: &GlimpseApp,
    pattern: crate::model::heads::Pattern,
) -> crate::model::heads::Found {
    let stats = app.bench.stats().expect("head statistics");
    crate::model::heads::best_heads(stats)
        .into_iter()
        .find(|f| f.pattern == pattern)
        .unwrap_or_else(|| panic!("no head for {pattern:?}"))
}

/// Page 1.2's text: the row that produces "european" reads "européenne", and so on.
#[test]
fn the_alignment_page_shows_the_alignment_it_describes() {
    let mut app = GlimpseApp::default();
    apply(&LESSONS[0].pages[1], &mut app);
    let w = selected_weights(&app);
    let argmax = |row: usize| crate::util::argmax(w.row(row).iter().copied()).map(|(j, _)| j);
    // Rows: <bos> the european economic area; keys: la zone économique européenne.
    assert_eq!(argmax(1), Some(3), "the → européenne");
    assert_eq!(argmax(3), Some(1), "economic → zone");
}

/// Walkthrough pages open on the step their text names.
#[test]
fn walkthrough_pages_open_on_the_step_they_name() {
    use crate::app::labs::attention::{walkthrough, ExplorerView};
    let mut app = GlimpseApp::default();
    let expect = [
        ("Scaled dot-product attention", "÷√d_k"),
        ("Heads back together", "concat"),
        ("Add & Norm and the feed-forward layer", "x + attn"),
        ("From the last layer to a word", "logits"),
    ];
    for (title, step) in expect {
        apply(page(title), &mut app);
        let explorer = &app.lab::<AttentionLab>().explorer;
        assert_eq!(explorer.view, ExplorerView::Walkthrough);
        let trace = app.bench.trace().expect("a trace");
        let model = app.bench.model.as_ref().unwrap();
        let chain = walkthrough::build(model, trace, &app.bench.sel, app.bench.temperature);
        assert_eq!(chain.unwrap().steps[explorer.step].title, step, "{title}");
    }
}

/// "This page runs the model at τ = 0.3, sharper than it was trained": the temperature the page's
/// link sets, below the 1 the app otherwise runs at.
#[test]
fn the_temperature_page_runs_at_the_temperature_it_names() {
    let title = "Temperature and entropy";
    let mut app = GlimpseApp::default();
    let trained = app.bench.temperature;
    assert_eq!(trained, 1.0);
    apply(page(title), &mut app);
    let tau = app.bench.temperature;
    assert!(tau < trained, "{tau}");
    let said = format!("runs the model at τ = {tau}, sharper");
    assert!(page_text(title).contains(&said), "{said}");
}

/// The paragraphs of the page titled `title`, joined.
pub(super) fn page_text(title: &str) -> String {
    page(title).paragraphs().join(" ")
}
