//! The real app driven through its widgets with egui_kittest (no display needed): what a
//! student clicks, and what the app then shows.

use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use glimpse::app::labs::attention::lab::AttentionLab;
use glimpse::app::labs::decoding::DecodingLab;
use glimpse::app::labs::masking::MaskingLab;
use glimpse::app::labs::positions::PositionsLab;
use glimpse::app::labs::training::TrainingLab;
use glimpse::app::GlimpseApp;
use std::time::{Duration, Instant};

/// The app with its own fonts; kittest's default policy panics on any glyph they lack, so
/// every label drawn here is also checked for tofu.
fn app() -> Harness<'static, GlimpseApp> {
    app_of_size(egui::vec2(1280.0, 800.0))
}

/// The app in a window of `size` points.
fn app_of_size(size: egui::Vec2) -> Harness<'static, GlimpseApp> {
    Harness::builder()
        .with_size(size)
        .with_context_setup(GlimpseApp::style)
        .build_ui_state(
            |ui, app: &mut GlimpseApp| app.show(ui),
            GlimpseApp::default(),
        )
}

fn status(h: &Harness<'_, GlimpseApp>) -> serde_json::Value {
    h.state().lab::<TrainingLab>().status()
}

fn steps(h: &Harness<'_, GlimpseApp>) -> u64 {
    status(h)["steps"].as_u64().unwrap_or(0)
}

/// The weights the lab's views draw from.
fn weights(h: &Harness<'_, GlimpseApp>) -> glimpse::model::weights::Weights {
    let run = h
        .state()
        .lab::<TrainingLab>()
        .run
        .as_ref()
        .expect("the lab has a run");
    let w = run.progress().model.weights.clone();
    w
}

/// A fresh app on its Training tab.
fn training_tab() -> Harness<'static, GlimpseApp> {
    let mut h = app();
    h.run_steps(2);
    h.get_by_label("Training").click();
    h.run_steps(3);
    h
}

/// Draw frames until `done` holds (the worker trains in real time meanwhile).
fn frames_until(
    h: &mut Harness<'_, GlimpseApp>,
    what: &str,
    done: impl Fn(&serde_json::Value) -> bool,
) {
    let start = Instant::now();
    while !done(&status(h)) {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "timed out waiting for {what}: {}",
            status(h)
        );
        h.step();
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn training_lab_start_pause_step_reset() {
    let mut h = training_tab();
    // A fresh run, evaluated before any training (by the worker, which may still be at it).
    frames_until(&mut h, "the evaluation at step 0", |s| s["eval_step"] == 0);
    h.step();
    h.get_by_label("step 0");
    h.get_by_label_contains("held-out at step 0");
    h.get_by_label_contains("Probe input, cross-attention of the last layer");
    let initial = weights(&h);
    assert_eq!(
        status(&h)["threaded"],
        true,
        "native training runs on a worker thread"
    );

    h.get_by_label("▶ Start").click();
    h.step();
    frames_until(&mut h, "120 steps", |s| {
        s["steps"].as_u64().unwrap_or(0) >= 120
    });
    let s = status(&h);
    assert_eq!(s["running"], true);
    assert!(s["tokens_per_sec"].as_f64().unwrap() > 0.0, "{s}");
    assert_eq!(
        s["eval_step"], 100,
        "held-out evaluation every 100 steps: {s}"
    );
    h.get_by_label_contains("tokens/s (worker thread)");

    h.get_by_label("‖ Pause").click();
    h.step();
    std::thread::sleep(Duration::from_millis(300));
    h.step();
    let paused_at = steps(&h);
    std::thread::sleep(Duration::from_millis(300));
    h.step();
    assert_eq!(steps(&h), paused_at, "training went on after Pause");
    assert_eq!(status(&h)["running"], false);
    // The weights the views draw are the trainer's own at the pause, not a stale snapshot.
    assert_ne!(weights(&h), initial);

    h.get_by_label("Step").click();
    frames_until(&mut h, "one step", |s| {
        s["steps"].as_u64() == Some(paused_at + 1)
    });
    std::thread::sleep(Duration::from_millis(200));
    h.step();
    assert_eq!(steps(&h), paused_at + 1);

    h.get_by_label("Reset").click();
    h.run_steps(2);
    assert_eq!(steps(&h), 0);
    frames_until(&mut h, "the new run's evaluation", |s| s["eval_step"] == 0);
    h.step();
    h.get_by_label("step 0");
    assert_eq!(
        weights(&h),
        initial,
        "Reset returns to the same initial weights"
    );
}

#[test]
fn changing_the_task_starts_a_fresh_model_for_it() {
    let mut h = training_tab();
    h.get_by_label("task").click();
    h.run_steps(2);
    h.get_by_label("sort").click();
    h.run_steps(3);
    let s = status(&h);
    assert_eq!(s["task"], "sort");
    assert_eq!(s["steps"], 0);
    h.get_by_label_contains("model on “sort”");
}

/// What this app's head heatmap last drew (the app's own copy: tests run in parallel).
fn probe(h: &Harness<'_, GlimpseApp>) -> serde_json::Value {
    serde_json::to_value(
        h.state()
            .lab::<AttentionLab>()
            .last_probe
            .as_ref()
            .expect("a heatmap was drawn"),
    )
    .unwrap()
}

/// A fresh app on the Attention tab, its first frames drawn.
fn explorer() -> Harness<'static, GlimpseApp> {
    let mut h = app();
    h.run_steps(3);
    h
}

#[test]
fn clicking_a_thumbnail_in_the_grid_opens_that_head() {
    let mut h = explorer();
    h.get_by_label("All heads").click();
    h.run_steps(2);
    h.get_by_label("layer 0 mean of heads");
    h.get_by_label_contains("What each head does");
    h.get_by_label("layer 0 head 3").click();
    h.run_steps(2);
    let app = h.state();
    assert_eq!((app.bench.sel.layer, app.bench.sel.head), (0, 3));
    assert_eq!(
        app.lab::<AttentionLab>().explorer.view,
        glimpse::app::labs::attention::ExplorerView::Head
    );
    h.get_by_label("layer 0 · head 3 · cross-attention");
}

#[test]
fn hovering_a_cell_shows_its_tokens_and_exact_value() {
    let mut h = explorer();
    let sel = h.state().bench.sel;
    let context = sel.describe();
    let rect = h.get_by_label(&format!("heatmap {context}")).rect();
    let probe = probe(&h);
    let cells = &probe["heatmap"]["rect"];
    let (left, top, right, bottom) = (
        cells[0].as_f64().unwrap() as f32,
        cells[1].as_f64().unwrap() as f32,
        cells[2].as_f64().unwrap() as f32,
        cells[3].as_f64().unwrap() as f32,
    );
    assert!(rect.contains(egui::pos2(left + 1.0, top + 1.0)));
    let (rows, cols) = (
        probe["heatmap"]["rows"].as_u64().unwrap() as usize,
        probe["heatmap"]["cols"].as_u64().unwrap() as usize,
    );
    // The cell at query 1, key 2.
    let (r, c) = (1, 2);
    let at = egui::pos2(
        left + (c as f32 + 0.5) * (right - left) / cols as f32,
        top + (r as f32 + 0.5) * (bottom - top) / rows as f32,
    );
    h.event(egui::Event::PointerMoved(at));
    // Tooltips wait for the pointer to rest.
    for _ in 0..60 {
        h.step();
    }
    let value = probe["heatmap"]["values"][r][c].as_f64().unwrap();
    h.get_by_label_contains(&format!("value {value:.6}"));
    h.get_by_label_contains("query 1 “the” → key 2 “économique”");
    // The tooltip names the layer and head too (besides the heading and the heatmap itself).
    let tooltip = format!("“économique”\nvalue {value:.6}\n{context}");
    h.get_by_label_contains(&tooltip);
}

#[test]
fn the_softmax_toggle_switches_to_scores() {
    let mut h = explorer();
    let colors = |h: &Harness<'_, GlimpseApp>| probe(h)["heatmap"]["colors"].clone();
    let before = colors(&h);
    h.get_by_label("before softmax (scaled scores)").click();
    h.run_steps(2);
    assert!(h.state().lab::<AttentionLab>().explorer.pre_softmax);
    // The name a screen reader hears, the formula in words.
    h.get_by_label_contains(&glimpse::app::widgets::math_text::spoken(
        "Softmax input: QKᵀ/√d_k",
    ));
    assert_ne!(colors(&h), before, "the heatmap still shows the weights");
    h.get_by_label("after softmax (weights)").click();
    h.run_steps(2);
    assert!(!h.state().lab::<AttentionLab>().explorer.pre_softmax);
    assert_eq!(colors(&h), before);
}

#[test]
fn the_walkthrough_steps_with_buttons_and_arrow_keys() {
    let mut h = explorer();
    h.get_by_label("Walkthrough").click();
    h.run_steps(2);
    h.get_by_label_contains("Step 1 of 16");
    h.get_by_label("Next ▶").click();
    h.run_steps(2);
    h.get_by_label_contains(&glimpse::app::widgets::math_text::spoken(
        "Step 2 of 16: Q = X W_Qᵀ",
    ));
    h.key_press(egui::Key::ArrowRight);
    h.run_steps(2);
    h.get_by_label_contains("Step 3 of 16: S = QKᵀ");
    h.key_press(egui::Key::ArrowLeft);
    h.run_steps(2);
    assert_eq!(h.state().lab::<AttentionLab>().explorer.step, 1);
    // Jump to A·V and pick a query: its weighted sum is written out.
    h.get_by_label("A·V").click();
    h.run_steps(2);
    h.get_by_label("2 european").click();
    h.run_steps(2);
    assert_eq!(h.state().bench.sel.query, 2);
    h.get_by_label_contains("o2(“european”) = ");
}

/// The walkthrough follows the input: another sentence typed while it is open is the one
/// it steps through (the workbench keeps each new trace where the last one was, so the
/// trace's address cannot tell them apart).
#[test]
fn the_walkthrough_follows_a_new_sentence() {
    let mut h = explorer();
    h.get_by_label("Walkthrough").click();
    h.run_steps(2);
    h.get_by_label("A·V").click();
    h.run_steps(2);
    h.get_by_label("2 european").click();
    h.run_steps(2);
    h.get_by_label_contains("o2(“european”) = ");
    h.get_by_label("Target (decoder, after <bos>)")
        .set_text_value_accesskit("the area european");
    h.run_steps(4);
    h.get_by_label("3 european").click();
    h.run_steps(2);
    h.get_by_label_contains("o3(“european”) = ");
    assert!(h.query_by_label("2 european").is_none());
}

#[test]
fn the_head_view_toggles_heads() {
    let mut h = explorer();
    h.get_by_label("Head view").click();
    h.run_steps(2);
    h.get_by_label("■ head 0").click();
    h.run_steps(2);
    assert_eq!(
        h.state().lab::<AttentionLab>().explorer.heads_shown.first(),
        Some(&false)
    );
    assert!(h.state().lab::<AttentionLab>().explorer.heads_shown[1..]
        .iter()
        .all(|&on| on));
}

#[test]
fn the_scoring_lab_scores_the_selected_query() {
    let mut h = explorer();
    h.get_by_label("Scoring").click();
    h.run_steps(3);
    h.get_by_label_contains(&format!("{}, query 0", h.state().bench.sel.describe()));
}

#[test]
fn a_long_input_is_cut_with_a_notice_and_drawn_as_one_texture() {
    let mut h = explorer();
    h.get_by_label("model").click();
    h.run_steps(2);
    // The list is long: the entry may be scrolled out of view, so click it by its name.
    h.get_by_label("lm").click_accesskit();
    h.run_steps(3);
    // Picking by accesskit leaves the list open, and with the tab bar on two rows it covers
    // the input panel: close it as a click elsewhere would.
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    let long = "attention is all you need. ".repeat(8);
    h.get_by_label("Text").click();
    h.run_steps(1);
    h.get_by_label("Text").type_text(&long);
    h.run_steps(3);
    let max_len = glimpse::model::builtin::load("lm").unwrap().config.max_len;
    // Typed after the example text: <bos> + more characters than the model takes.
    h.get_by_label_contains("token(s) past the model's limit");
    let p = probe(&h);
    assert_eq!(p["model"], "lm");
    assert_eq!(p["heatmap"]["rows"], max_len);
    assert_eq!(
        p["heatmap"]["textured"], true,
        "{max_len}² cells should be one texture"
    );
}

#[test]
fn clicking_the_mask_makes_a_custom_mask_and_a_blocked_row_is_explained() {
    use glimpse::app::labs::masking::modes::{decode_mask, encode_mask, MaskMode};
    let mut h = explorer();
    h.get_by_label("Masking").click();
    h.run_steps(3);
    h.get_by_label("causal").click();
    h.run_steps(2);
    assert_eq!(h.state().lab::<MaskingLab>().modes.mode, MaskMode::Causal);
    // translate's decoder: <bos> + 4 words + 2 <pad> appended.
    let t = 7;
    let rect = h.get_by_label("mask M").rect();
    let cell = (rect.height() - 16.0) / t as f32;
    let (i, j) = (1, 4); // above the diagonal: blocked by the causal mask
    let at = egui::pos2(
        rect.left() + 70.0 + (j as f32 + 0.5) * cell,
        rect.top() + 16.0 + (i as f32 + 0.5) * cell,
    );
    h.event(egui::Event::PointerMoved(at));
    h.event(egui::Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: Default::default(),
    });
    h.event(egui::Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: Default::default(),
    });
    h.run_steps(3);
    let modes = &h.state().lab::<MaskingLab>().modes;
    assert_eq!(modes.mode, MaskMode::Custom);
    let custom = modes.custom.clone().expect("a custom mask");
    assert_eq!(custom.dim(), (t, t));
    assert!(custom[[i, j]], "the clicked cell is now allowed");
    assert!(
        !custom[[i, j + 1]] && custom[[i, i]],
        "the rest is still causal"
    );
    // The mask's code round-trips, as a link would carry it.
    let code = encode_mask(&custom);
    h.get_by_label(&code);
    assert_eq!(decode_mask(&code).unwrap(), custom);

    h.get_by_label("block every key of query row 0").click();
    h.run_steps(3);
    h.get_by_label_contains("Query row 0 (“<bos>”) has no visible key");
}

#[test]
fn the_padding_mask_toggle_changes_what_the_batch_shows() {
    let mut h = explorer();
    h.get_by_label("Masking").click();
    h.run_steps(2);
    h.get_by_label("Padding in a batch").click();
    h.run_steps(3);
    assert!(
        h.query_all_by_label_contains("most weight on <pad>: 0.0000")
            .count()
            >= 3
    );
    h.get_by_label("padding mask").click();
    h.run_steps(3);
    assert!(!h.state().lab::<MaskingLab>().batch.mask_padding);
    assert_eq!(
        h.query_all_by_label_contains("most weight on <pad>: 0.0000")
            .count(),
        0
    );
}

#[test]
fn every_positions_section_opens() {
    let mut h = explorer();
    h.get_by_label("Positions").click();
    h.run_steps(3);
    for section in [
        "Naive (t, t/N)",
        "Learned table",
        "ALiBi & relative",
        "RoPE",
        "Why at all: reorder",
        "Longer than trained",
        "Sinusoidal",
    ] {
        h.get_by_label(section).click();
        h.run_steps(3);
        assert_eq!(h.state().lab::<PositionsLab>().section.label(), section);
    }
    // The learned table refuses positions past its end with a message.
    h.get_by_label("Learned table").click();
    h.run_steps(2);
    h.state_mut().lab_mut::<PositionsLab>().learned.position = 55;
    h.run_steps(2);
    h.get_by_label_contains("position 55: the table has 40 rows");
}

#[test]
fn the_decoding_tab_steps_a_beam_search() {
    let mut h = explorer();
    h.get_by_label("Decoding").click();
    h.run_steps(3);
    h.get_by_label("typed table").click();
    h.run_steps(2);
    h.get_by_label("Step ▶").click();
    h.run_steps(2);
    h.get_by_label("Step ▶").click();
    h.run_steps(2);
    assert_eq!(h.state().lab::<DecodingLab>().steps(), 2);
    h.get_by_label_contains("step 2 of");
    h.get_by_label("Run to end").click();
    h.run_steps(3);
    assert!(h.state().lab::<DecodingLab>().done());
    h.get_by_label_contains("best: a cat <eos>");
}

#[test]
fn f_toggles_presenter_mode_and_a_link_can_hide_the_controls() {
    let mut h = explorer();
    assert!(h.query_by_label_contains("toy French").is_some());
    h.key_press(egui::Key::F);
    h.run_steps(2);
    assert!(h.state().look.presenter);
    assert_eq!(h.ctx.zoom_factor(), 1.5);
    assert!(
        h.query_by_label_contains("toy French").is_none(),
        "presenter mode drops the blurb"
    );
    h.key_press(egui::Key::F);
    h.run_steps(2);
    assert!(!h.state().look.presenter);
    assert_eq!(h.ctx.zoom_factor(), 1.0);
    h.state_mut()
        .open_link("#view=attention&model=reverse&src=abcd&hide=controls,tabs&zzz=1");
    h.run_steps(3);
    assert!(
        h.query_by_label("Source (encoder)").is_none(),
        "the controls are hidden"
    );
    assert!(
        h.query_by_label("Training").is_none(),
        "the tabs are hidden"
    );
    h.get_by_label_contains("ignored unknown key `zzz`");
    assert_eq!(
        h.state()
            .lab::<AttentionLab>()
            .last_probe
            .as_ref()
            .unwrap()
            .model,
        "reverse"
    );
}

#[test]
fn the_beam_tree_a_layer_a_mask_and_training_curves_export() {
    let dir = std::env::temp_dir().join(format!("glimpse-export-ui-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Only this test in this binary exports, so setting the variable here is safe.
    unsafe { std::env::set_var("GLIMPSE_EXPORT_DIR", &dir) };
    let mut h = explorer();
    h.get_by_label("All heads").click();
    h.run_steps(2);
    h.get_by_label("export view ▾").click();
    h.run_steps(2);
    h.get_by_label("layer as JSON").click();
    h.run_steps(2);
    let layer = dir.join("glimpse-translate-cross-attention-L1-all-heads.json");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&layer).unwrap()).unwrap();
    assert_eq!(v["weights"].as_array().unwrap().len(), 4, "four heads");
    h.get_by_label("Decoding").click();
    h.run_steps(3);
    h.get_by_label("Run to end").click();
    h.run_steps(3);
    h.get_by_label("export view ▾").click();
    h.run_steps(2);
    h.get_by_label("beam tree as JSON").click();
    h.run_steps(2);
    let tree: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("glimpse-beam-tree.json")).unwrap())
            .unwrap();
    assert!(tree["nodes"].as_array().unwrap().len() > 3);

    // The masking lab's A matrix: blocked cells are empty, every visible row sums to 1.
    h.get_by_label("Masking").click();
    h.run_steps(3);
    h.get_by_label("export view ▾").click();
    h.run_steps(2);
    h.get_by_label("A (weights) as CSV").click();
    h.run_steps(2);
    let csv = std::fs::read_to_string(dir.join("glimpse-masking-translate.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert!(rows.len() > 2, "{csv}");
    let blocked = rows
        .iter()
        .flat_map(|r| &r[1..])
        .filter(|c| c.is_empty())
        .count();
    assert!(blocked > 0, "the causal + padding mask blocks cells: {csv}");
    for r in &rows {
        let sum: f32 = r[1..].iter().filter_map(|c| c.parse::<f32>().ok()).sum();
        assert!((sum - 1.0).abs() < 1e-5, "row {} sums to {sum}", r[0]);
    }

    // The training lab's curves: one CSV row per step taken.
    h.get_by_label("Training").click();
    h.run_steps(3);
    for taken in 1..=3 {
        h.get_by_label("Step").click();
        h.step();
        frames_until(&mut h, "a step", |s| s["steps"].as_u64() == Some(taken));
    }
    h.get_by_label("export view ▾").click();
    h.run_steps(2);
    h.get_by_label("loss per step as CSV").click();
    h.run_steps(2);
    let csv = std::fs::read_to_string(dir.join("glimpse-training-reverse-steps.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "step,loss,learning_rate,grad_norm,tokens");
    assert!(steps(&h) >= 3, "three steps taken");
    assert_eq!(lines.len() - 1, steps(&h) as usize, "{csv}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Open every view in a window of `size` and collect the panels whose content was clipped.
fn clipped_views(size: egui::Vec2, extra: &str) -> Vec<String> {
    let mut clipped = Vec::new();
    for link in glimpse::app::link::every_view() {
        let mut h = app_of_size(size);
        let link = format!("v=1&{link}{extra}");
        let notices = glimpse::app::link::apply(h.state_mut(), &link);
        assert!(notices.is_empty(), "{link}: {notices:?}");
        h.run_steps(4);
        let mut over = glimpse::app::probe::overflow(&h.ctx);
        over.retain(|panel, _| !panel.ends_with("(scrolls)"));
        if !over.is_empty() {
            clipped.push(format!("{link}: {over:?}"));
        }
    }
    clipped
}

/// Fails with the list of clipped views, if any, in a window of `size`.
fn assert_every_view_fits(size: egui::Vec2, extra: &str, room: &str) {
    let clipped = clipped_views(size, extra);
    assert!(
        clipped.is_empty(),
        "clipped {room}:\n{}",
        clipped.join("\n")
    );
}

#[test]
fn every_view_fits_a_projector_in_presenter_mode() {
    assert_every_view_fits(egui::vec2(1280.0, 720.0), "&present=1", "at 1280×720");
}

#[test]
fn every_view_fits_a_tablet() {
    assert_every_view_fits(egui::vec2(768.0, 1024.0), "", "at 768×1024");
}

/// Browser zoom at 200 % on a 1280×800 laptop leaves the page 640×400 CSS pixels: every
/// view must still fit, scrolling where it must.
#[test]
fn every_view_fits_at_200_percent_zoom() {
    assert_every_view_fits(
        egui::vec2(640.0, 400.0),
        "",
        "at 640×400 (1280×800 at 200 %)",
    );
}

#[test]
fn a_window_too_small_for_a_view_is_reported_as_clipped() {
    // The check above must be able to fail: a phone-sized window cannot hold the explorer.
    let clipped = clipped_views(egui::vec2(320.0, 240.0), "&present=1");
    assert!(!clipped.is_empty(), "nothing reported clipped at 320×240");
}

/// A lesson page by its title, as a link fragment.
fn lesson_link(title: &str) -> String {
    for (l, lesson) in glimpse::app::lessons::content::LESSONS.iter().enumerate() {
        if let Some(p) = lesson.pages.iter().position(|p| p.title() == title) {
            return format!("v=1&view=lessons&lesson={l}&page={p}");
        }
    }
    panic!("no lesson page titled {title}");
}

#[test]
fn the_training_and_sampling_lessons_open_their_labs() {
    let mut h = app();
    glimpse::app::link::apply(
        h.state_mut(),
        &lesson_link("Cross-entropy and teacher forcing"),
    );
    h.run_steps(3);
    h.get_by_label("▶ Start").click();
    h.step();
    frames_until(&mut h, "training from the lesson", |s| {
        s["steps"].as_u64().unwrap_or(0) >= 5
    });
    assert_eq!(status(&h)["task"], "reverse");

    glimpse::app::link::apply(
        h.state_mut(),
        &lesson_link("Sampling: temperature, top-k, top-p"),
    );
    h.run_steps(3);
    // The page opened the Sampling panel: its controls are on screen.
    assert!(h.query_all_by_label("sampling temperature").count() > 0);
    glimpse::app::link::apply(h.state_mut(), &lesson_link("The KV cache"));
    h.run_steps(3);
    h.get_by_label_contains("Same tokens with and without the cache");
}

/// The explorer on `text` as the translate model's source, replacing what the field held
/// (as a paste would), after a few frames.
fn explorer_on(text: &str) -> Harness<'static, GlimpseApp> {
    let mut h = app();
    // Emoji are not in the app's fonts: egui draws a box for them (its default, which the app
    // keeps); kittest's own default would panic instead.
    h.ctx
        .set_missing_glyph_policy(egui::epaint::text::MissingGlyphPolicy::Tofu);
    h.run_steps(2);
    h.get_by_label("Source (encoder)")
        .set_text_value_accesskit(text);
    h.run_steps(3);
    h
}

#[test]
fn empty_emoji_and_huge_input_keep_the_app_working_with_a_message() {
    // Empty: nothing to attend over, said plainly; the app keeps drawing.
    let h = explorer_on("");
    h.get_by_label_contains("type at least one token");
    // Emoji outside the vocabulary become <unk>, each named with the nearest known words.
    let h = explorer_on("🙂 la zone 🚀");
    h.get_by_label_contains("“🙂” is not in its vocabulary (read as <unk>); nearest:");
    h.get_by_label_contains("“🚀” is not in its vocabulary (read as <unk>); nearest:");
    // 100 000 characters: cut at the model's limit with a notice, still drawn.
    let h = explorer_on(&"la zone ".repeat(12_500));
    h.get_by_label_contains("token(s) past the model's limit");
    assert!(probe(&h)["heatmap"]["rows"].as_u64().unwrap_or(0) > 0);
}

/// The compute section's JSON (`Compute::summary`).
fn compute(h: &Harness<'_, GlimpseApp>) -> serde_json::Value {
    h.state().bench.compute.summary()
}

#[test]
fn the_compute_section_shows_the_cpu_timing_without_a_gpu() {
    let mut h = explorer();
    let c = compute(&h);
    assert_eq!(c["backend"], "Cpu", "{c}");
    assert_eq!(c["last"]["used"], "Cpu", "{c}");
    assert!(
        c["last"]["cpu_ms"].as_f64().is_some_and(|ms| ms > 0.0),
        "{c}"
    );
    // The GPU was never looked for here, so its button is disabled and says why.
    h.get_by_label("GPU").click();
    h.run_steps(2);
    assert_eq!(compute(&h)["backend"], "Cpu");
    assert!(h.query_by_label_contains("shown: CPU").is_some());
}

/// Switching to the GPU (Mesa's lavapipe in CI) shows its trace, equal to the CPU's, with both
/// timings; switching back shows the CPU's.
#[cfg(feature = "webgpu")]
#[test]
fn the_gpu_toggle_switches_the_path_and_the_numbers_stay() {
    let mut h = explorer();
    let ctx = h.ctx.clone();
    h.state_mut().bench.compute.look_for_gpu(&ctx);
    let start = Instant::now();
    while compute(&h)["status"] == "Detecting" {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no answer from the GPU"
        );
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = compute(&h)["status"].clone();
    if status.get("Ready").is_none() {
        assert!(
            std::env::var("GLIMPSE_REQUIRE_GPU").is_err(),
            "GLIMPSE_REQUIRE_GPU=1 but {status}"
        );
        eprintln!("SKIPPED: no GPU adapter ({status})");
        return;
    }
    let cpu_probe = probe(&h);
    h.get_by_label("GPU").click();
    h.run_steps(3);
    let c = compute(&h);
    assert_eq!(c["backend"], "Gpu", "{c}");
    assert_eq!(c["last"]["used"], "Gpu", "{c}");
    assert!(
        c["last"]["gpu_ms"].as_f64().is_some_and(|ms| ms > 0.0),
        "{c}"
    );
    let diff = c["last"]["max_difference"].as_f64().expect("compared");
    assert!(diff <= 1e-4, "GPU and CPU differ by {diff}");
    assert!(h.query_by_label_contains("shown: GPU").is_some());
    // The heatmap drawn from the GPU's trace shows the same weights.
    let gpu_probe = probe(&h);
    let (a, b) = (
        &cpu_probe["heatmap"]["values"],
        &gpu_probe["heatmap"]["values"],
    );
    assert!(a.is_array(), "{cpu_probe}");
    for (x, y) in a.as_array().unwrap().iter().zip(b.as_array().unwrap()) {
        for (p, q) in x.as_array().unwrap().iter().zip(y.as_array().unwrap()) {
            assert!((p.as_f64().unwrap() - q.as_f64().unwrap()).abs() <= 1e-4);
        }
    }
    h.get_by_label("CPU").click();
    h.run_steps(3);
    assert_eq!(compute(&h)["last"]["used"], "Cpu");
}
