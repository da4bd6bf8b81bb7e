//! Every page applies and draws; navigation by buttons, contents and keys.

use super::content::LESSONS;
use super::{apply, Lab};
use crate::app::{GlimpseApp, View};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;

fn harness() -> Harness<'static, GlimpseApp> {
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_context_setup(GlimpseApp::style)
        .build_ui_state(
            |ui, app: &mut GlimpseApp| app.show(ui),
            GlimpseApp::default(),
        )
}

fn lessons_tab() -> Harness<'static, GlimpseApp> {
    let mut h = harness();
    h.run_steps(2);
    h.get_by_label("Lessons").click();
    h.run_steps(2);
    assert_eq!(h.state().view, View::Lessons);
    h
}

#[test]
fn every_page_has_text_and_a_model_that_loads() {
    assert!(LESSONS.len() >= 6);
    for lesson in LESSONS {
        assert!(!lesson.title.is_empty());
        assert!((2..=5).contains(&lesson.pages.len()), "{}", lesson.title);
        for page in lesson.pages {
            assert!(!page.title.is_empty());
            assert!((2..=6).contains(&page.paragraphs.len()), "{}", page.title);
            assert!(page.paragraphs.iter().all(|p| !p.trim().is_empty()));
            let needs_model = !matches!(page.setup.lab(), Lab::Positions | Lab::Training)
                && !matches!(
                    page.setup,
                    super::Setup::Decoding {
                        kind: crate::app::decoding::session::SourceKind::Table,
                        ..
                    }
                );
            match page.setup.model() {
                Some(name) => {
                    crate::model::builtin::load(name)
                        .unwrap_or_else(|e| panic!("{}: {name}: {e}", page.title));
                }
                None => assert!(!needs_model, "{} names no model", page.title),
            }
        }
    }
}

#[test]
fn every_setup_applies_to_a_working_app() {
    let mut app = GlimpseApp::default();
    for lesson in LESSONS {
        for page in lesson.pages {
            apply(&page.setup, &mut app);
            if let Some(name) = page
                .setup
                .model()
                .filter(|_| page.setup.lab() != Lab::Decoding)
            {
                assert_eq!(app.model_name, name, "{}", page.title);
                assert!(app.model.is_ok(), "{}", page.title);
                let ok = app.computed.as_ref().is_some_and(|c| c.result.is_ok());
                assert!(ok, "{}: forward pass failed", page.title);
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
        assert!(h.query_all_by_label(LESSONS[l].pages[p].title).count() >= 1);
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
    h.get_by_label("Contents").click();
    h.run_steps(2);
    let target = format!("5.2 {}", LESSONS[4].pages[1].title);
    h.get_by_label(&target).click();
    h.run_steps(2);
    assert_eq!((h.state().lessons.lesson, h.state().lessons.page), (4, 1));
    h.get_by_label_contains("Lesson 5 of");
    h.get_by_label_contains("page 2 of");
    assert_eq!(
        h.state().masking.section,
        crate::app::masking::Section::Batch
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

#[test]
fn a_setup_is_applied_once_so_the_student_can_change_it() {
    use crate::app::explorer::ExplorerView;
    let mut h = lessons_tab();
    assert_eq!(h.state().explorer.view, ExplorerView::Head);
    h.get_by_label("All heads").click();
    h.run_steps(2);
    assert_eq!(h.state().explorer.view, ExplorerView::Grid);
    h.get_by_label("Set this page up again").click();
    h.run_steps(2);
    assert_eq!(h.state().explorer.view, ExplorerView::Head);
}

/// The weights of the head the app has selected, on its current input.
fn selected_weights(app: &GlimpseApp) -> ndarray::Array2<f32> {
    let Some(Ok((_, trace))) = app.computed.as_ref().map(|c| &c.result) else {
        panic!("no trace");
    };
    let w = trace.weights(app.sel.kind, app.sel.layer).expect("weights");
    w.index_axis(ndarray::Axis(0), app.sel.head).to_owned()
}

/// The multi-head pages name the heads their text describes.
#[test]
fn the_head_pages_show_the_heads_they_describe() {
    use crate::model::analysis::{induction_score, previous_token_score};
    let lesson = LESSONS
        .iter()
        .find(|l| l.title == "Multi-head attention")
        .unwrap();
    let mut app = GlimpseApp::default();
    apply(&lesson.pages[1].setup, &mut app);
    let prev = previous_token_score(selected_weights(&app).view());
    assert!(prev > 0.7, "previous-token score {prev}");
    apply(&lesson.pages[2].setup, &mut app);
    // "glimpsehow" twice after <bos>: the repeat starts at 1 with period 10.
    let ind = induction_score(selected_weights(&app).view(), 1, 10);
    assert!(ind > 0.6, "induction score {ind}");
}

/// Page 1.2's text: the row that produces "european" reads "européenne", and so on.
#[test]
fn the_alignment_page_shows_the_alignment_it_describes() {
    let mut app = GlimpseApp::default();
    apply(&LESSONS[0].pages[1].setup, &mut app);
    let w = selected_weights(&app);
    let argmax = |row: usize| crate::util::argmax(w.row(row).iter().copied()).map(|(j, _)| j);
    // Rows: <bos> the european economic area; keys: la zone économique européenne.
    assert_eq!(argmax(1), Some(3), "the → européenne");
    assert_eq!(argmax(3), Some(1), "economic → zone");
}

/// Walkthrough pages open on the step their text names.
#[test]
fn walkthrough_pages_open_on_the_step_they_name() {
    use crate::app::explorer::{walkthrough, ExplorerView};
    let mut app = GlimpseApp::default();
    let expect = [
        ("Scaled dot-product attention", "÷√d_k"),
        ("Heads back together", "concat"),
        ("Add & Norm and the feed-forward layer", "W_O"),
    ];
    for (title, step) in expect {
        let page = LESSONS
            .iter()
            .flat_map(|l| l.pages)
            .find(|p| p.title == title)
            .unwrap();
        apply(&page.setup, &mut app);
        assert_eq!(app.explorer.view, ExplorerView::Walkthrough);
        let Some(Ok((_, trace))) = app.computed.as_ref().map(|c| &c.result) else {
            panic!("no trace");
        };
        let model = app.model.as_ref().unwrap();
        let chain = walkthrough::build(model, trace, &app.sel, app.temperature).unwrap();
        assert_eq!(chain.steps[app.explorer.step].title, step, "{title}");
    }
}
