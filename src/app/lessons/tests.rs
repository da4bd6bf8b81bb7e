//! Every page applies and draws; navigation by buttons, contents and keys.

use super::content::LESSONS;
use super::Page;
use crate::app::labs::attention::lab::AttentionLab;
use crate::app::labs::decoding::session::Settings;
use crate::app::link;
use crate::app::GlimpseApp;
use crate::util::grouped;
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
fn real_model_here(page: &Page) -> bool {
    use crate::util::real_models;
    match page_model(page) {
        Some("all-MiniLM-L6-v2") => real_models::minilm().is_some(),
        Some("SmolLM2-135M-Instruct.Q4_1") => real_models::smollm2().is_some(),
        _ => true,
    }
}

fn page_model(page: &Page) -> Option<&'static str> {
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
            assert!(
                (2..=6).contains(&page.paragraphs().len()),
                "{}",
                page.title()
            );
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
        assert!(h.query_all_by_label(&LESSONS[l].pages[p].title()).count() >= 1);
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
fn selected_weights(app: &GlimpseApp) -> ndarray::Array2<f32> {
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
fn found(app: &GlimpseApp, pattern: crate::model::heads::Pattern) -> crate::model::heads::Found {
    let stats = app.bench.stats().expect("head statistics");
    crate::model::heads::best_heads(stats)
        .into_iter()
        .find(|f| f.pattern == pattern)
        .unwrap_or_else(|| panic!("no head for {pattern:?}"))
}

/// The pages on MiniLM name the heads, weights and scores the model gives on their sentence.
#[test]
fn the_minilm_pages_show_what_they_say() {
    use crate::model::heads::Pattern;
    if crate::util::real_models::minilm().is_none() {
        return;
    }
    let mut app = GlimpseApp::default();
    let title = "Every token sees every token";
    apply(page(title), &mut app);
    for (pattern, at) in [
        (Pattern::PreviousToken, (0, 2)),
        (Pattern::FirstToken, (4, 5)),
        (Pattern::NextToken, (1, 8)),
    ] {
        let f = found(&app, pattern);
        assert_eq!((f.layer, f.head), at, "{pattern:?}");
        says(title, f.score);
    }

    // "it" (row 10) reads "animal" (2), not "street" (8); with "wide" it reads neither.
    let title = "What does \"it\" read?";
    apply(page(title), &mut app);
    let w = selected_weights(&app);
    assert_eq!(app.bench.sel.query, 10);
    assert_eq!(
        app.bench.trace().unwrap().encoder.as_ref().unwrap().tokens[10],
        "it"
    );
    says(title, w[[10, 2]]);
    says(title, w[[10, 8]]);
    app.bench.source = app.bench.source.replace("tired", "wide");
    app.bench.refresh(&app.store);
    let w = selected_weights(&app);
    says(title, w[[10, 2]]);
    says(title, w[[10, 8]]);
    let most = crate::util::argmax(w.row(10).iter().copied()).unwrap().0;
    assert_eq!(most, 0, "most of it goes to [CLS]");

    // "bank" (5) → "river" (8) and back.
    let title = "Relevance is not symmetric";
    apply(page(title), &mut app);
    let w = selected_weights(&app);
    says(title, w[[5, 8]]);
    says(title, w[[8, 5]]);
    assert!(w[[5, 8]] > 3.0 * w[[8, 5]]);

    // "the dog bit the man" against "the man bit the dog", positions off and on: the panel
    // the page opens reads the sentences from the link.
    let title = "Who bit whom?";
    apply(page(title), &mut app);
    use crate::app::labs::positions::{permutation, PositionsLab};
    let panel = &app.labs.get_mut::<PositionsLab>().unwrap().permutation;
    assert_eq!(panel.encoder, permutation::Encoder::Real);
    let (sentence, reordered) = (panel.sentence.clone(), panel.reordered.clone());
    assert_eq!(reordered, "the man bit the dog");
    let on = app.store.get(permutation::REAL_MODEL).unwrap();
    let off = permutation::without_positions(&on);
    let a = permutation::compare_sentences(&off, &sentence, &reordered).unwrap();
    let b = permutation::compare_sentences(&on, &sentence, &reordered).unwrap();
    let text = page_text(title);
    for cosine in [a.sentence_cosine, b.sentence_cosine] {
        let number = format!("{cosine:.4}");
        assert!(
            text.contains(&number),
            "{title}: the text does not say {number}"
        );
    }
    let dog = b.tokens.iter().position(|t| t == "dog").unwrap();
    let most = crate::util::argmax(b.row_change.iter().copied()).unwrap().0;
    assert_eq!(most, dog, "\"dog\" changes most");
    says(title, b.row_change[dog]);

    let title = "A previous-token head";
    apply(page(title), &mut app);
    let f = found(&app, Pattern::PreviousToken);
    assert_eq!((f.layer, f.head), (0, 2));
    says(title, f.score);
    let f = found(&app, Pattern::SameWord);
    assert_eq!((f.layer, f.head), (0, 2));
    says(title, f.score);
    // The outlined row is "##bel", all on "un" before it.
    let q = app.bench.sel.query;
    let trace = app.bench.trace().unwrap();
    let tokens = &trace.attention(app.bench.sel.kind, 0).unwrap().query_tokens;
    assert_eq!(
        (tokens[q - 1].as_str(), tokens[q].as_str()),
        ("un", "##bel")
    );
    let w = selected_weights(&app);
    assert_eq!(
        crate::util::argmax(w.row(q).iter().copied()).unwrap().0,
        q - 1
    );
    says(title, w[[q, q - 1]]);
}

/// The toy induction page: the repeat model's head copies from the first "glimpsehow".
#[test]
fn the_toy_induction_page_shows_its_head() {
    use crate::model::analysis::induction_score;
    let mut app = GlimpseApp::default();
    apply(page("An induction head"), &mut app);
    // "glimpsehow" twice after <bos>: the repeat starts at 1 with period 10.
    let w = selected_weights(&app);
    let ind = induction_score(w.view(), 1, 10);
    assert!(ind > 0.6, "induction score {ind}");
    // The outlined query, the second "l" (12), looks most at the "i" after the first "l" (3).
    assert_eq!(app.bench.sel.query, 12);
    assert_eq!(crate::util::argmax(w.row(12).iter().copied()).unwrap().0, 3);
    let letters = app
        .bench
        .model
        .as_ref()
        .unwrap()
        .tokenizer
        .spec()
        .tokens
        .len()
        - 4;
    assert_eq!(
        letters, 26,
        "the text says its vocabulary is the 26 letters"
    );
}

/// The multi-head page on sotu-lm names the heads the classifier finds.
#[test]
fn the_sotu_lm_grid_page_shows_what_it_says() {
    use crate::model::heads::Pattern;
    let mut app = GlimpseApp::default();
    let title = "Many heads, same cost";
    apply(page(title), &mut app);
    assert_eq!(app.bench.model_name, "sotu-lm");
    for (pattern, at) in [
        (Pattern::PreviousToken, (1, 1)),
        (Pattern::SameWord, (1, 0)),
    ] {
        let f = found(&app, pattern);
        assert_eq!((f.layer, f.head), at, "{pattern:?}");
        assert!(f.clear);
        says(title, f.score);
    }
    // The caption of layer 1, head 1 is its strongest pattern: own word.
    let label = app.bench.stats().unwrap()[1][1].label.unwrap();
    assert_eq!(label.pattern, Pattern::SameWord);
    says(title, label.score);
}

/// The induction page: SmolLM2 copies the second copy with a head in layer 18; sotu-lm
/// does not copy at all.
#[test]
fn the_induction_page_shows_what_it_says() {
    use crate::model::induction::repeated_random;
    let title = "Induction on real words";
    let text = page_text(title);
    let sotu = crate::model::builtin::load("sotu-lm").unwrap();
    let run = repeated_random(&sotu, 20, 1).unwrap();
    says(title, run.first_half);
    says(title, run.second_half);
    assert!(run.best_head().unwrap().2 < 0.05, "{:?}", run.best_head());
    assert!(text.contains("above 0.05"));
    if crate::util::real_models::smollm2().is_none() {
        return;
    }
    let mut app = GlimpseApp::default();
    apply(page(title), &mut app);
    assert_eq!(app.bench.model_name, "SmolLM2-135M-Instruct.Q4_1");
    let lab = app.lab::<crate::app::labs::induction::InductionLab>();
    assert_eq!((lab.len, lab.seed), (20, 1));
    let model = app.store.get("SmolLM2-135M-Instruct.Q4_1").unwrap();
    let run = repeated_random(&model, 20, 1).unwrap();
    says(title, run.first_half);
    says(title, run.second_half);
    let (layer, head, score) = run.best_head().unwrap();
    assert_eq!((layer, head), (18, 6));
    says(title, score);
}

/// SmolLM2's induction-like head on prose: the classifier's pick, and the weight the page
/// names from the second " Herm" (and the other repeats) to the piece after the first.
#[test]
fn the_names_page_shows_its_induction_head() {
    use crate::model::heads::Pattern;
    if crate::util::real_models::smollm2().is_none() {
        return;
    }
    let title = "Names come back";
    let mut app = GlimpseApp::default();
    apply(page(title), &mut app);
    let f = found(&app, Pattern::InductionLike);
    assert_eq!((f.layer, f.head), (17, 5));
    says(title, f.score);
    assert_eq!(
        (app.bench.sel.layer, app.bench.sel.head, app.bench.sel.query),
        (17, 5, 18)
    );
    let tokens = app
        .bench
        .trace()
        .unwrap()
        .decoder
        .as_ref()
        .unwrap()
        .tokens
        .clone();
    let w = selected_weights(&app);
    // (query, the piece after its first occurrence): " Herm" → "ione", " Gr" → "anger",
    // " Harry" → " Potter".
    for (query, after) in [(" Herm", "ione"), (" Gr", "anger"), (" Harry", " Potter")] {
        let second = tokens.iter().rposition(|t| t == query).unwrap();
        let first = tokens.iter().position(|t| t == query).unwrap();
        assert!(second > first, "{query} repeats");
        assert_eq!(tokens[first + 1], after);
        let row = w.row(second);
        says(title, row[first + 1]);
        let most = crate::util::argmax(row.iter().copied()).unwrap().0;
        match query {
            " Harry" => assert_eq!(most, 0, "the first token takes most"),
            _ => assert_eq!(most, first + 1, "{query}: the piece after takes most"),
        }
    }
    assert_eq!(tokens.iter().rposition(|t| t == " Herm"), Some(18));
}

/// The beam search of `glimpse beam` on `model` with the decoding lab's settings at α.
fn beam_report(model: &str, settings: &Settings, alpha: f32) -> serde_json::Value {
    let out = crate::cli::beam::beam(crate::cli::beam::BeamArgs {
        model: Some(model),
        table: None,
        input: settings.text(),
        beam: settings.width,
        alpha,
        max_len: settings.max_len,
        temperature: 1.0,
        json: true,
    })
    .unwrap();
    serde_json::from_str(&out).unwrap()
}

/// A ranked hypothesis's text, its special tokens left out.
fn text_of(v: &serde_json::Value) -> String {
    v["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .filter(|t| !t.starts_with("<|"))
        .collect()
}

/// SmolLM2 in its chat format: the short answer wins at α = 0, a longer one at α = 1, and
/// greedy takes neither.
#[test]
fn length_normalisation_changes_the_winner_as_the_page_says() {
    let Some(path) = crate::util::real_models::smollm2() else {
        return;
    };
    let title = "Length normalisation on a real model";
    let mut app = GlimpseApp::default();
    apply(page(title), &mut app);
    let settings = app
        .lab::<crate::app::labs::decoding::DecodingLab>()
        .settings
        .clone();
    assert_eq!(
        (settings.width, settings.alpha, settings.max_len),
        (3, 1.0, 12)
    );
    assert!(settings.text().contains("Name a colour."));
    let text = page_text(title);
    let model = path.to_str().unwrap();
    let plain = beam_report(model, &settings, 0.0);
    let normalised = beam_report(model, &settings, 1.0);
    let (short, long) = (&plain["ranking"][0], &normalised["ranking"][0]);
    assert_ne!(text_of(short), text_of(long));
    for (winner, what) in [(short, "α = 0"), (long, "α = 1")] {
        let words = text_of(winner);
        assert!(text.contains(words.trim()), "{what}: {words}");
        let written = format!("−{:.2}", -winner["log_prob"].as_f64().unwrap());
        assert!(
            text.contains(&written),
            "{what}: the text does not say {written}"
        );
    }
    assert!(text.contains(&format!("−{:.2}", -long["score"].as_f64().unwrap())));
    assert!(text.contains(&format!(
        "{} tokens",
        long["tokens"].as_array().unwrap().len()
    )));
    let greedy = text_of(&normalised["greedy"]);
    assert!(text.contains(greedy.trim()), "greedy: {greedy}");
}

/// The English decoding page: beam search beats greedy on the whole sentence.
#[test]
fn greedy_and_beam_disagree_as_the_page_says() {
    let title = "Greedy and beam disagree on English";
    let mut app = GlimpseApp::default();
    apply(page(title), &mut app);
    let d = &app
        .lab::<crate::app::labs::decoding::DecodingLab>()
        .settings;
    assert_eq!((d.width, d.max_len), (3, 12));
    let prompt = d.text().to_string();
    assert_eq!(prompt, "The state of the Union is");
    let report = beam_report("sotu-lm", d, d.alpha);
    let best = &report["ranking"][0];
    let greedy = &report["greedy"];
    let page = page_text(title);
    assert!(
        page.contains(text_of(best).split('.').next().unwrap()),
        "{}",
        text_of(best)
    );
    assert!(
        page.contains(text_of(greedy).split('.').next().unwrap()),
        "{}",
        text_of(greedy)
    );
    for lp in [
        best["log_prob"].as_f64().unwrap(),
        greedy["log_prob"].as_f64().unwrap(),
    ] {
        let written = format!("−{:.1}", -lp);
        assert!(page.contains(&written), "the text does not say {written}");
    }
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

/// The paragraphs of the page titled `title`, joined.
pub(super) fn page_text(title: &str) -> String {
    page(title).paragraphs().join(" ")
}

/// `35333.6` → `35,300`: a wavelength as the text rounds it, to the nearest hundred.
fn hundreds(x: f64) -> String {
    let h = (x / 100.0).round() as u64 * 100;
    format!("{},{:03}", h / 1000, h % 1000)
}

/// The slowest sinusoidal band at the widths the page names is what `model::position`
/// computes; 2π·10000 is only the limit.
#[test]
fn the_sinusoidal_page_states_the_wavelengths_the_model_computes() {
    use crate::model::position::sinusoidal_wavelength;
    let text = page_text("Sinusoidal encodings");
    let translate = crate::model::builtin::load("translate").unwrap();
    let lab = crate::app::labs::positions::sinusoidal::SinusoidalPanel::default();
    for (d, what) in [
        (translate.config.d_model, "the translation model"),
        (lab.d, "the lab's default"),
    ] {
        let slowest = sinusoidal_wavelength(d / 2 - 1, d, 10000.0);
        let said = format!("{} positions at d = {d}", hundreds(slowest));
        let said_short = format!("{} at d = {d} ({what})", hundreds(slowest));
        assert!(
            text.contains(&said) || text.contains(&said_short),
            "{said}: {text}"
        );
    }
    assert_eq!(hundreds(sinusoidal_wavelength(15, 32, 10000.0)), "35,300");
    let limit = 2.0 * std::f64::consts::PI * 10000.0;
    assert!(
        text.contains(&format!("2π·10000 ≈ {}", hundreds(limit))),
        "{text}"
    );
    assert!(sinusoidal_wavelength(0, 32, 10000.0) == 2.0 * std::f64::consts::PI);
}

/// The Add & Norm page shows `translate`: its norm placement and d_ff are what the text says.
#[test]
fn the_norm_page_describes_the_model_it_shows() {
    let text = page_text("Add & Norm and the feed-forward layer");
    let page = page("Add & Norm and the feed-forward layer");
    let m = crate::model::builtin::load(page_model(page).unwrap()).unwrap();
    assert_eq!(m.config.norm, crate::model::NormPlacement::Pre);
    assert!(text.contains("on the right is pre-norm"), "{text}");
    let said = format!(
        "d_ff = {} = {}·d_model",
        m.config.d_ff,
        m.config.d_ff / m.config.d_model
    );
    assert_eq!(m.config.d_ff % m.config.d_model, 0);
    assert!(text.contains(&said), "{said}: {text}");
}

/// Top-p keeps the smallest set of likeliest tokens reaching at least p, as the page says.
#[test]
fn top_p_keeps_the_smallest_set_reaching_at_least_p() {
    let text = page_text("Sampling: temperature, top-k, top-p");
    assert!(text.contains("add up to at least p"), "{text}");
    let log_probs: Vec<f32> = [0.5f32, 0.3, 0.2].iter().map(|p| p.ln()).collect();
    // 0.5 < 0.6 ≤ 0.5 + 0.3: two tokens, whose sum passes p rather than equalling it.
    let kept = crate::decode::sample::kept_set(&log_probs, None, Some(0.6));
    assert_eq!(kept.len(), 2);
}

/// The KV cache page: a decoder key depends on its token, the earlier ones and the source,
/// never on later tokens.
#[test]
fn a_causal_key_depends_on_itself_earlier_tokens_and_the_source() {
    use crate::model::{AttentionKind, ForwardOptions};
    let text = page_text("The KV cache");
    assert!(
        text.contains("the token itself and the ones before it"),
        "{text}"
    );
    let m = crate::model::builtin::load("translate").unwrap();
    let keys = |src: &str, tgt: &str| {
        let input = m.prepare(src, tgt).input;
        let trace = m.forward(&input, &ForwardOptions::default()).unwrap();
        let layer = m.config.n_layers - 1;
        trace
            .attention(AttentionKind::DecoderSelf, layer)
            .unwrap()
            .k
            .clone()
    };
    let short = keys("la zone économique", "the economic");
    let long = keys("la zone économique", "the economic area");
    let n = short.len_of(ndarray::Axis(1));
    let same = long.slice(ndarray::s![.., ..n, ..]);
    let diff = (&same - &short).iter().fold(0f32, |a, x| a.max(x.abs()));
    assert!(
        diff < 1e-5,
        "a later token changed an earlier key by {diff}"
    );
    // The last layer's keys read the source through the first layer's cross-attention.
    let other = keys("la zone européenne", "the economic");
    let moved = (&other - &short).iter().fold(0f32, |a, x| a.max(x.abs()));
    assert!(moved > 1e-3, "the source did not reach the keys: {moved}");
}

/// The softmax pages state the weights, entropies and gradients the lab computes for them.
#[test]
fn the_softmax_pages_show_what_they_say() {
    use crate::app::labs::softmax::{maths, SoftmaxLab};
    let mut app = GlimpseApp::default();
    let title = "Softmax by hand";
    apply(page(title), &mut app);
    let s = maths::softmax_steps(&app.lab::<SoftmaxLab>().scaled_scores().unwrap());
    for w in &s.weights {
        says(title, *w);
    }
    says(title, s.entropy_bits);
    says(title, s.max_entropy_bits);

    let title = "When softmax saturates";
    apply(page(title), &mut app);
    let lab = app.lab::<SoftmaxLab>();
    let text = page_text(title);
    let soft = maths::softmax_steps(&maths::parse_vector(&lab.scores).unwrap());
    let hard = maths::softmax_steps(&lab.scaled_scores().unwrap());
    assert_eq!(lab.scale, 10.0);
    for w in &soft.weights {
        says(title, *w);
    }
    for w in &hard.weights {
        assert!(text.contains(&format!("{w:.5}")), "{title}: no {w:.5}");
    }
    let (g_soft, g_hard) = (soft.largest_gradient(), hard.largest_gradient());
    assert!(
        text.contains(&format!("{g_soft:.3}")),
        "{title}: no {g_soft:.3}"
    );
    assert!(
        text.contains(&format!("{g_hard:.6}")),
        "{title}: no {g_hard:.6}"
    );
    let ratio = ((g_soft / g_hard) / 100.0).round() as u32 * 100;
    let ratio = format!("{},{:03}", ratio / 1000, ratio % 1000);
    assert!(
        text.contains(&format!("about {ratio} times")),
        "{title}: not {ratio}"
    );

    let title = "Q, K and V by hand";
    apply(page(title), &mut app);
    let lab = app.lab::<SoftmaxLab>();
    let text = page_text(title);
    let [q, k, v] = lab.matrices().unwrap();
    let a = maths::attention_steps(&q, &k, &v).unwrap();
    let row: Vec<String> = a.scores.row(0).iter().map(|x| x.to_string()).collect();
    assert!(
        text.contains(&format!("[{}]", row.join(", "))),
        "{title}: QKᵀ row"
    );
    for w in a.weights.row(0) {
        says(title, *w);
    }
    for c in a.context.row(0) {
        says(title, *c);
    }
    assert_eq!(lab.key, 1);
    says(title, a.received()[lab.key]);
}

/// The cost page states what the calculator computes at the notes' sizes.
#[test]
fn the_cost_page_states_the_calculators_numbers() {
    use crate::app::labs::cost::{maths, CostLab};
    let mut app = GlimpseApp::default();
    let title = "The cost calculator";
    apply(page(title), &mut app);
    let text = page_text(title);
    let sizes = app.lab::<CostLab>().sizes;
    for c in maths::layer_costs(&sizes) {
        assert!(
            text.contains(&maths::count(c.mixing)),
            "{title}: {}",
            c.name
        );
    }
    let long = maths::Sizes { l: 10_000, ..sizes };
    let [attn, rnn, _] = maths::layer_costs(&long);
    assert!(text.contains(&maths::count(attn.mixing)));
    assert!(text.contains(&maths::count(rnn.mixing)));
    let m = maths::memory(&sizes);
    assert!(text.contains(&maths::grouped(m.rnn)));
    assert!(text.contains(&maths::grouped(m.attention)));
    // The whole attention layer: projections, scores and weighted sum, beyond the RNN's L·D².
    let w = maths::attention_work(&sizes);
    let layer = w.projections + w.scores + w.weighted_sum;
    assert!(text.contains(&format!("4·L·D² = {}", maths::count(w.projections))));
    assert!(text.contains(&format!("{} in all", maths::count(layer))));
    // Against the whole RNN layer: the recurrence and the input projection, 2·L·D², and an
    // LSTM's four gates, 8·L·D².
    let [_, rnn, _] = maths::layer_costs(&sizes);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        format!("2·L·D² = {}", maths::count(2 * rnn.mixing)),
        format!(
            "attention does {:.1} times",
            layer as f64 / (2 * rnn.mixing) as f64
        ),
        format!(
            "8·L·D² = {}, more than attention's",
            maths::count(8 * rnn.mixing)
        ),
    ] {
        assert!(flat.contains(&said), "{title} does not say {said:?}");
    }
    assert!(8 * rnn.mixing > layer && layer > 2 * rnn.mixing);
}

/// "Without warmup" states what the trainer does with its settings: the same run trained here
/// step for step as the lab trains it (same config, same seed), with and without warmup.
#[test]
fn the_warmup_page_states_what_training_gives() {
    use crate::app::labs::training::TrainingLab;
    use crate::train::optim::Schedule;
    use crate::train::trainer::Trainer;
    let title = "Without warmup";
    let mut app = GlimpseApp::default();
    apply(page(title), &mut app);
    let config = app.lab::<TrainingLab>().config.clone();
    assert_eq!(config.schedule.warmup(), 0);
    let text = page_text(title);
    let run = |warmup: u64, peak: f32| {
        let mut c = config.clone();
        c.schedule = Schedule::shaped("cosine", peak, warmup, c.d_model, 3000).unwrap();
        let mut t = Trainer::new(c, "warmup-page").unwrap();
        for _ in 0..600 {
            t.step().unwrap();
        }
        let loss = t.history.iter().rev().take(50).map(|s| s.loss).sum::<f32>() / 50.0;
        let grad = t.history.iter().map(|s| s.grad_norm).fold(0.0f32, f32::max);
        (loss, t.evaluate(100).unwrap().exact_match, grad)
    };
    let high = config.schedule.peak();
    let (cold, cold_exact, cold_grad) = run(0, high);
    let (warm, warm_exact, warm_grad) = run(200, high);
    println!(
        "without warmup: loss {cold:.3}, exact {cold_exact:.2}, largest gradient {cold_grad:.1}"
    );
    println!(
        "with warmup 200: loss {warm:.3}, exact {warm_exact:.2}, largest gradient {warm_grad:.1}"
    );
    // The direction the notes claim, with a wide margin.
    assert!(cold > 3.0 * warm, "{cold} against {warm}");
    assert!(warm_exact > cold_exact + 0.5);
    // And the numbers the page states.
    for x in [cold, warm] {
        says(title, x);
    }
    assert!(cold_exact == 0.0 && text.contains("no held-out sequence"));
    assert!(text.contains(&format!("{:.0} % of sequences", 100.0 * warm_exact)));
    for g in [cold_grad, warm_grad] {
        assert!(text.contains(&format!("{g:.1}")), "{title}: no {g:.1}");
    }
    // "At the default peak of 3·10⁻³ this small model learns as well without warmup."
    let (plain, plain_exact, _) = run(0, 3e-3);
    let (eased, eased_exact, _) = run(200, 3e-3);
    println!("at 3e-3: without warmup loss {plain:.3}, exact {plain_exact:.2}; with warmup loss {eased:.3}, exact {eased_exact:.2}");
    assert!(text.contains("default peak of 3·10⁻³"));
    assert!(plain <= 1.5 * eased && plain_exact + 0.15 >= eased_exact);
}

/// The worked-examples lesson: the weights and the beam search the pages describe are what the
/// labs compute for the pages' settings.
#[test]
fn the_worked_examples_show_the_notes_numbers() {
    use crate::app::labs::decoding::session::{replay, Models};
    use crate::app::labs::decoding::DecodingLab;
    use crate::app::labs::softmax::{maths, SoftmaxLab};
    let mut app = GlimpseApp::default();

    let title = "0.45, 0.45, 0.05, 0.05";
    apply(page(title), &mut app);
    let s = maths::softmax_steps(&app.lab::<SoftmaxLab>().scaled_scores().unwrap());
    let shown: Vec<String> = s.weights.iter().map(|w| format!("{w:.5}")).collect();
    assert_eq!(shown, ["0.45000", "0.45000", "0.05000", "0.05000"]);
    assert!(page_text(title).contains("0.45, 0.45, 0.05"));

    let title = "softmax([0, 2, 1])";
    apply(page(title), &mut app);
    for w in maths::softmax_steps(&app.lab::<SoftmaxLab>().scaled_scores().unwrap()).weights {
        says(title, w);
    }

    let title = "[START] Big cat";
    apply(page(title), &mut app);
    let trace = app.bench.trace().expect("the decoder's trace");
    let tokens = &trace
        .attention(crate::model::AttentionKind::DecoderSelf, 0)
        .expect("decoder self-attention")
        .query_tokens;
    assert_eq!(tokens, &["<bos>", "big", "cat"]);
    let layers = app.bench.model.as_ref().unwrap().config.n_layers;
    for layer in 0..layers {
        let w = trace
            .weights(crate::model::AttentionKind::DecoderSelf, layer)
            .unwrap();
        for head in w.outer_iter() {
            assert_eq!(head[[0, 0]], 1.0, "[START] reads only itself");
            for i in 0..3 {
                for j in i + 1..3 {
                    assert_eq!(head[[i, j]], 0.0, "layer {layer}: above the diagonal");
                }
                assert!((head.row(i).sum() - 1.0).abs() < 1e-6);
            }
        }
    }
    assert!(page_text(title).contains("1.00 then zeros"));

    let title = "d = 4: I Can Buy";
    apply(page(title), &mut app);
    let panel = &app
        .lab::<crate::app::labs::positions::PositionsLab>()
        .sinusoidal;
    assert_eq!(panel.d, 4);
    let pe = crate::model::position::sinusoidal(&[0, 1, 2], panel.d, panel.base);
    let text = page_text(title);
    for row in pe.rows() {
        let v: Vec<String> = row
            .iter()
            .map(|x| format!("{x:.2}").replace('-', "−"))
            .collect();
        // Written as the page writes them: "[0.84, 0.54, 0.01, 1.00]"; t = 0 as [0, 1, 0, 1].
        let plain: Vec<String> = v.iter().map(|x| x.trim_end_matches(".00").into()).collect();
        let ok = text.contains(&format!("[{}]", v.join(", ")))
            || text.contains(&format!("[{}]", plain.join(", ")));
        assert!(ok, "{title}: no {v:?}");
    }
    for k in 0..2 {
        let w = crate::model::position::sinusoidal_wavelength(k, panel.d, panel.base);
        assert!(
            text.contains(&format!("{w:.2}")),
            "{title}: no wavelength {w:.2}"
        );
    }

    let title = "RoPE on \"the dog slept\"";
    apply(page(title), &mut app);
    let rope = &app.lab::<crate::app::labs::positions::PositionsLab>().rope;
    assert!(rope.shows_notes_example());
    let out = crate::app::labs::positions::rope::maths::table_rotate(
        &rope.table,
        &rope.table_positions,
        rope.table_base,
    )
    .unwrap();
    let text = page_text(title);
    for row in &out {
        let v: Vec<String> = row
            .iter()
            .map(|x| format!("{x:.3}").replace('-', "−"))
            .collect();
        assert!(
            text.contains(&format!("[{}]", v.join(", "))),
            "{title}: no {v:?}"
        );
    }
    // "Set the first position to 0 and "the" does not move at all."
    let mut at_zero = rope.table_positions.clone();
    at_zero[0] = 0;
    let moved = crate::app::labs::positions::rope::maths::table_rotate(
        &rope.table,
        &at_zero,
        rope.table_base,
    )
    .unwrap();
    assert_eq!(moved[0], rope.table[0]);

    let title = "Je suis étudiant, B = 2";
    apply(page(title), &mut app);
    let settings = app.lab::<DecodingLab>().settings.clone();
    assert_eq!(settings.text(), super::content::JE_SUIS_TABLE);
    assert_eq!(settings.width, 2);
    let models = Models::from_store(&app.store);
    let text = page_text(title);
    let p = |s: &crate::app::labs::decoding::session::Search, n: usize| s.beam.nodes[n].cum.exp();
    for (steps, kept) in [
        (1, [("I", 0.60), ("Me", 0.30)]),
        (2, [("I am", 0.54), ("Me too", 0.18)]),
        (3, [("I am a", 0.378), ("I am …", 0.108)]),
    ] {
        let s = replay(&settings, &models, steps).unwrap();
        let mut live: Vec<(String, f32)> = s
            .beam
            .live()
            .into_iter()
            .map(|n| (s.hypothesis(n), p(&s, n)))
            .collect();
        live.sort_by(|a, b| b.1.total_cmp(&a.1));
        assert_eq!(live.len(), 2, "step {steps}: {live:?}");
        for ((got, gp), (want, wp)) in live.iter().zip(kept) {
            assert_eq!(got, want, "step {steps}");
            assert!((gp - wp).abs() < 1e-4, "step {steps}: {got} {gp}");
            assert!(text.contains(&format!("({wp})")) || text.contains(&format!("({wp:.2})")));
        }
        if steps == 3 {
            // "Me too"'s best continuation, pruned at this step.
            let best = s
                .beam
                .nodes
                .iter()
                .filter(|n| s.hypothesis(n.id).starts_with("Me too "))
                .map(|n| n.cum.exp())
                .fold(0.0f32, f32::max);
            assert!((best - 0.054).abs() < 1e-4, "{best}");
            assert!(text.contains("only 0.054"));
        }
    }
    let mut s = replay(&settings, &models, 0).unwrap();
    s.run_to_end();
    let best = s.beam.ranking()[0];
    assert_eq!(s.hypothesis(best), "I am a student <eos>");
    let cum = s.beam.nodes[best].cum;
    assert!(text.contains(&format!("{:.4}", cum.exp())));
    assert!(text.contains(&format!("{cum:.3}").replace('-', "−")));
    assert_eq!(
        s.greedy.as_ref().unwrap().as_ref().unwrap().0.join(" "),
        "I am a student <eos>"
    );

    let title = "L = 100, D = 512";
    apply(page(title), &mut app);
    let text = page_text(title);
    let sizes = app.lab::<crate::app::labs::cost::CostLab>().sizes;
    for c in crate::app::labs::cost::maths::layer_costs(&sizes) {
        assert!(text.contains(&crate::app::labs::cost::maths::count(c.mixing)));
    }
    let w = crate::app::labs::cost::maths::attention_work(&sizes);
    assert!(text.contains(&crate::app::labs::cost::maths::count(w.projections)));
}

/// The output-layer page's numbers: sotu-lm's output matrix is its 4,096 × 192 embedding, and
/// after "The state of the Union is" the walkthrough's softmax over the vocabulary puts " the"
/// first.
#[test]
fn the_output_layer_page_states_what_sotu_lm_computes() {
    use crate::app::labs::attention::walkthrough;
    let text = page_text("From the last layer to a word");
    let mut app = GlimpseApp::default();
    apply(page("From the last layer to a word"), &mut app);
    let model = app.bench.model.as_ref().unwrap().clone();
    assert!(model.config.tie_embeddings && model.weights.lm_head.is_none());
    let (v, d) = model.weights.tok_embed.dim();
    assert!(
        text.contains(&format!("{} × {d}", grouped(v as u128))),
        "{text}"
    );
    assert!(text.contains(&grouped((v * d) as u128)), "{text}");
    let trace = app.bench.trace().expect("a trace");
    let chain = walkthrough::build(&model, trace, &app.bench.sel, 1.0).unwrap();
    let softmax = chain
        .steps
        .iter()
        .find(|s| s.title == "softmax (vocab)")
        .unwrap();
    let last = trace.logits.nrows() - 1;
    let best = crate::util::argmax(trace.logits.row(last).iter().copied())
        .unwrap()
        .0;
    let word = model.tokenizer.token(best as u32);
    assert!(
        text.contains(&format!("most likely next token is \"{word}\"")),
        "{word:?}"
    );
    assert!(
        softmax.explain.contains(&format!("is → {word}")),
        "{}",
        softmax.explain
    );
}

/// The heads-off page's numbers are what the translator gives: every cross-attention head off
/// breaks greedy decoding, and the ranking removes the stated number of heads within 1 point.
#[test]
fn the_heads_off_page_states_what_switching_heads_off_costs() {
    use crate::model::{AttentionKind, HeadId};
    use crate::train::ablation::{every_head, score, Measure, Plan};
    use crate::train::tasks::TaskKind;
    let text = page_text("Switching heads off");
    let model = crate::model::builtin::load("translate").unwrap();
    let measure = Measure::Task(TaskKind::Translate);
    let cross: Vec<HeadId> = every_head(&model)
        .into_iter()
        .filter(|h| h.kind == AttentionKind::Cross)
        .collect();
    let blind = score(&model, &measure, &cross).unwrap();
    let full = score(&model, &measure, &[]).unwrap();
    assert_eq!(full.exact, Some(1.0));
    let right = (blind.exact.unwrap() * 48.0).round() as usize;
    let mut plan = Plan::new(full, every_head(&model));
    while !plan.done() {
        plan.step(&model, &measure).unwrap();
    }
    let removable = plan.removable(0.01);
    assert!(
        text.contains(&format!("gets {right} of them right")),
        "{right}: {text}"
    );
    assert!(
        text.contains(&format!("Yet {removable} of its 24 heads")),
        "{removable}"
    );
}

/// The GQA page's cache sizes come from SmolLM2's config.
#[test]
fn the_grouped_query_page_states_smollm2s_cache() {
    let Some(path) = crate::util::real_models::smollm2() else {
        assert!(std::env::var_os("GLIMPSE_REQUIRE_REAL_MODELS").is_none());
        return;
    };
    let (model, _) = crate::model::import::open::open_path(&path, &mut |_| {}).unwrap();
    let c = &model.config;
    let text = page_text("Nine query heads, three caches");
    let (kv, q, h) = (c.n_kv_heads, c.n_heads, c.d_head());
    assert!(text.contains(&format!("{q} query heads share {kv} key/value heads")));
    assert!(text.contains(&format!("each of its {} layers", c.n_layers)));
    assert!(text.contains(&format!(
        "2 · {kv} · {h} = {}",
        grouped((2 * kv * h) as u128)
    )));
    assert!(text.contains(&format!("2 · {q} · {h} = {}", grouped((2 * q * h) as u128))));
}

/// The depth page's figures are the depth probe's: 4,096 paths for six encoder blocks, post-norm's
/// stream at √d, and where each placement's gradients are largest.
#[test]
fn the_depth_page_states_what_the_probe_measures() {
    use crate::model::config::NormPlacement;
    use crate::train::depth::{at_init, residual_paths};
    let text = page_text("Deep stacks: pre-norm and post-norm");
    assert!(text.contains(&format!(
        "{} for the original encoder's six blocks",
        grouped(residual_paths(6) as u128)
    )));
    // A decoder block has three residual sub-layers: 2^(3·6) paths through six of them.
    assert!(text.contains(&format!("2¹⁸ = {}", grouped(1u128 << 18))));
    let pre = at_init(12, NormPlacement::Pre, 1).unwrap();
    let post = at_init(12, NormPlacement::Post, 1).unwrap();
    let min = post.gradients.iter().copied().fold(f32::INFINITY, f32::min);
    let (post_last, pre_first, pre_last) = (
        *post.gradients.last().unwrap(),
        pre.gradients[0],
        *pre.gradients.last().unwrap(),
    );
    // Post-norm's largest gradient is at the top; pre-norm's falls from bottom to top.
    assert_eq!(
        crate::util::argmax(post.gradients.iter().copied())
            .unwrap()
            .0,
        11
    );
    assert!(pre.gradients.windows(2).filter(|w| w[1] < w[0]).count() >= 10);
    for (what, v) in [
        ("GRAD_POST_LAST there", post_last),
        ("GRAD_POST_MIN at the", min),
        ("GRAD_PRE_FIRST at the first", pre_first),
        ("GRAD_PRE_LAST at the last", pre_last),
    ] {
        let (_, rest) = what.split_once(' ').unwrap();
        assert!(text.contains(&format!("{v:.2} {rest}")), "{what}: {v:.2}");
    }
    // The trained model under the plots: pre-norm, its stream growing block by block.
    let mut app = GlimpseApp::default();
    apply(page("Deep stacks: pre-norm and post-norm"), &mut app);
    let model = app.bench.model.as_ref().unwrap();
    assert_eq!(model.config.norm, NormPlacement::Pre);
    let norms =
        crate::train::depth::stream_norms(app.bench.trace().unwrap().decoder.as_ref().unwrap());
    assert!(norms.windows(2).all(|w| w[1] > w[0]), "{norms:?}");
}

/// The cross-attention page: the translator's alignment head is named by the classifier.
#[test]
fn the_cross_attention_page_names_its_alignment_head() {
    use crate::model::heads::Pattern;
    use crate::model::AttentionKind;
    let mut app = GlimpseApp::default();
    let title = "Cross-attention";
    apply(page(title), &mut app);
    let f = found(&app, Pattern::Aligned);
    assert_eq!((f.layer, f.head), (1, 2));
    assert!(f.clear);
    says(title, f.score);
    // Not the diagonal: the row of each target word peaks off it.
    let trace = app.bench.trace().unwrap();
    let w = trace.weights(AttentionKind::Cross, 1).unwrap();
    let head = w.index_axis(ndarray::Axis(0), 2);
    let off = head
        .rows()
        .into_iter()
        .enumerate()
        .skip(1)
        .filter(|(i, row)| {
            let top = (0..row.len()).max_by(|&a, &b| row[a].total_cmp(&row[b]));
            top != Some(i - 1)
        })
        .count();
    assert!(off >= 2, "only {off} target words peak off the diagonal");
}

/// The masked-language page: the link fills the blank it quotes on sotu-mlm, the first
/// candidate and its probability are the model's, and the held-out figures are the recipe's.
#[test]
fn the_masked_language_page_states_what_sotu_mlm_fills_in() {
    let title = "Pre-training by filling blanks";
    let text = page_text(title);
    let mut app = GlimpseApp::default();
    apply(page(title), &mut app);
    assert_eq!(app.bench.model_name, "sotu-mlm");
    let sentence = app
        .lab::<crate::app::labs::decoding::DecodingLab>()
        .fill_mask
        .text()
        .to_string();
    assert!(text.contains(&format!("“{sentence}”")), "{sentence}");
    let model = app.bench.model.as_ref().unwrap().clone();
    let slots = crate::model::mlm::fill_mask(&model, &sentence, 3).unwrap();
    let best = &slots[0].candidates[0];
    assert!(
        text.contains(&format!(
            "“{}” comes first with p = {:.2}",
            best.token, best.probability
        )),
        "{:?} {}",
        best.token,
        best.probability
    );
    let recipe: serde_json::Value =
        serde_json::from_str(include_str!("../../../assets/models/sotu-mlm.recipe.json")).unwrap();
    let held = &recipe["held_out"];
    let accuracy = held["top1_accuracy"].as_f64().unwrap() * 100.0;
    assert!(
        text.contains(&format!("{accuracy:.0} % of the time")),
        "{accuracy}"
    );
    for (what, key) in [
        ("model", "model"),
        ("bigram", "bigram_kneser_ney"),
        ("unigram", "unigram"),
    ] {
        let ppl = held[key]["perplexity"].as_f64().unwrap();
        assert!(text.contains(&format!("{ppl:.1}")), "{what}: {ppl:.1}");
    }
    // The page's comparison holds: the model's perplexity is below the bigram's.
    assert!(
        held["model"]["perplexity"].as_f64() < held["bigram_kneser_ney"]["perplexity"].as_f64()
    );
}

/// The next page: at the blank's row, the named head puts the stated weight on a token to the
/// blank's right, which a causal mask would hide.
#[test]
fn the_blank_reads_to_its_right_as_the_page_says() {
    let title = "The blank reads both ways";
    let mut app = GlimpseApp::default();
    apply(page(title), &mut app);
    assert_eq!(app.bench.model_name, "sotu-mlm");
    let trace = app.bench.trace().expect("a trace");
    let tokens = &trace.encoder.as_ref().unwrap().tokens;
    let q = app.bench.sel.query;
    assert_eq!(tokens[q], "<mask>");
    let row = selected_weights(&app).row(q).to_vec();
    let (key, w) = crate::util::argmax(row.iter().copied()).unwrap();
    assert!(key > q, "the strongest key is to the right of the blank");
    let text = page_text(title);
    assert!(
        text.contains(&format!("on “{}”", tokens[key])),
        "{}",
        tokens[key]
    );
    says(title, w);
    let sel = app.bench.sel;
    assert!(text.contains(&format!("layer {}, head {}", sel.layer, sel.head)));
}

/// Every page reads in every shipped language, paragraph for paragraph as in English.
#[test]
fn every_page_is_translated_paragraph_for_paragraph() {
    for lang in crate::i18n::codes() {
        for lesson in LESSONS {
            crate::i18n::set(crate::i18n::ENGLISH);
            let english: Vec<(String, usize)> = lesson
                .pages
                .iter()
                .map(|p| (p.title(), p.paragraphs().len()))
                .collect();
            crate::i18n::set(lang);
            for (page, (title, count)) in lesson.pages.iter().zip(&english) {
                assert!(crate::i18n::has(
                    lang,
                    &format!("lesson-page-{}-text", page.id)
                ));
                assert_eq!(page.paragraphs().len(), *count, "{lang}: {title}");
                assert!(!page.title().is_empty() && !lesson.title().is_empty());
            }
        }
    }
    crate::i18n::set(crate::i18n::ENGLISH);
}
