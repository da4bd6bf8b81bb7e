//! The lab driven through its UI with kittest.

use super::session::SourceKind;
use super::DecodingLab;
use egui_kittest::kittest::{NodeT, Queryable};
use egui_kittest::Harness;

fn harness(lab: DecodingLab) -> Harness<'static, DecodingLab> {
    let store = crate::app::models::store::ModelStore::default();
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_context_setup(crate::app::GlimpseApp::style)
        .build_ui_state(move |ui, s: &mut DecodingLab| s.draw(ui, &store), lab)
}

fn textbook() -> DecodingLab {
    let mut lab = DecodingLab::default();
    lab.settings.kind = SourceKind::Table;
    lab.settings.width = 2;
    lab
}

#[test]
fn textbook_steps_to_the_end_and_back() {
    let mut h = harness(textbook());
    h.run_steps(2);
    h.get_by_label_contains("step 0 of");
    h.get_by_label("Step ▶").click();
    h.run_steps(2);
    h.get_by_label_contains("step 1 of");
    h.key_press(egui::Key::ArrowRight);
    h.run_steps(2);
    h.get_by_label_contains("step 2 of");
    h.get_by_label("Step ▶").click();
    h.run_steps(2);
    h.get_by_label_contains("step 3 of 3 (done)");
    h.get_by_label_contains("best: a cat <eos>");
    h.get_by_label_contains("greedy decoding: the cat <eos>");
    let search = h.state().current().unwrap();
    let best = search.beam.ranking()[0];
    assert_eq!(search.hypothesis(best), "a cat <eos>");
    h.get_by_label("◀ Back").click();
    h.run_steps(2);
    h.get_by_label_contains("step 2 of");
    assert_eq!(h.state().steps(), 2);
    h.key_press(egui::Key::ArrowLeft);
    h.run_steps(2);
    assert_eq!(h.state().steps(), 1);
}

#[test]
fn a_changed_setting_starts_again() {
    let mut h = harness(textbook());
    h.run_steps(2);
    h.get_by_label("Run to end").click();
    h.run_steps(2);
    assert!(h.state().done());
    h.state_mut().settings.width = 3;
    h.run_steps(2);
    assert_eq!(h.state().steps(), 0);
}

#[test]
fn clicking_a_translation_node_shows_its_attention() {
    let mut h = harness(DecodingLab::default());
    h.run_steps(2);
    h.get_by_label("Run to end").click();
    h.run_steps(2);
    h.get_by_label_contains("(done)");
    h.get_by_label_contains("best: the european economic area <eos>");
    let best = h.state().current().unwrap().beam.ranking()[0];
    h.get_by_label_contains(&format!("node {best} "))
        .click_accesskit();
    h.run_steps(3);
    assert_eq!(h.state().selected, Some(best));
    h.get_by_label_contains("heatmap decoder self-attention");
    h.get_by_label_contains("heatmap cross-attention");
}

#[test]
fn the_same_seed_samples_the_same_text() {
    let mut lab = DecodingLab::default();
    lab.settings.kind = SourceKind::Lm;
    lab.sampling.temperature = 1.2;
    lab.sampling.seed = 7;
    let mut h = harness(lab);
    h.run_steps(2);
    h.get_by_label("Sampling").click();
    h.run_steps(2);
    let draw = |h: &mut Harness<'static, DecodingLab>, seed| {
        h.state_mut().sampling.seed = seed;
        h.run_steps(1);
        h.get_by_label("sample").click_accesskit();
        h.run_steps(2);
        let run = h.state().sampling.result.clone().unwrap().unwrap();
        assert_eq!(run.seed, seed);
        run
    };
    let (a, b, c) = (draw(&mut h, 7), draw(&mut h, 7), draw(&mut h, 8));
    assert_eq!(a, b);
    assert_ne!(a.text, c.text);
    h.get_by_label_contains("seed 8:");
}

#[test]
fn a_bad_table_line_is_shown_not_a_panic() {
    let mut lab = textbook();
    lab.settings.table_text = "<bos> -> the 0.5\n<bos> the cat 0.4".into();
    let mut h = harness(lab);
    h.run_steps(2);
    h.get_by_label_contains("line 2:");
    h.get_by_label("Step ▶").click();
    h.key_press(egui::Key::ArrowRight);
    h.run_steps(2);
    assert!(h.state().search.as_ref().unwrap().is_err());
}

#[test]
fn the_kv_cache_section_compares_both_runs() {
    let mut h = harness(DecodingLab::default());
    h.run_steps(2);
    h.get_by_label("KV cache").click();
    h.run_steps(2);
    h.get_by_label_contains("Same tokens with and without the cache");
}

#[test]
fn playing_steps_on_its_own() {
    let mut h = harness(textbook());
    h.run_steps(2);
    h.key_press(egui::Key::Space);
    h.run_steps(1);
    assert!(h.state().playing);
    h.state_mut().last_tick = -1.0;
    h.run_steps(1);
    assert!(h.state().steps() >= 1);
}

#[test]
fn keys_go_to_a_focused_text_box_and_typing_restarts() {
    let mut lab = DecodingLab::default();
    lab.settings.kind = SourceKind::Lm;
    let mut h = harness(lab);
    h.run_steps(2);
    h.get_by_label("Step ▶").click();
    h.run_steps(2);
    assert_eq!(h.state().steps(), 1);
    let prompt = "text for the LM to continue:";
    h.get_by_role_and_label(egui::accesskit::Role::TextInput, prompt)
        .focus();
    h.run_steps(2);
    h.key_press(egui::Key::ArrowRight);
    h.run_steps(2);
    assert_eq!(
        h.state().steps(),
        1,
        "the arrow moved the cursor, not the search"
    );
    h.get_by_role_and_label(egui::accesskit::Role::TextInput, prompt)
        .type_text("s");
    h.run_steps(2);
    assert_eq!(h.state().settings.lm_text, "the cat s");
    assert_eq!(h.state().steps(), 0);
}

/// On a model the store runs a slice a frame (the browser's way with SmolLM2), the selected
/// node's pass shows its progress and Cancel; cancelled, it stays so (nothing computed) until
/// Run again; then the heatmaps come, drawn from exactly the whole pass's numbers.
#[test]
fn a_sliced_attention_pass_can_be_cancelled_and_ends_as_the_whole_pass() {
    use crate::app::models::store::ModelStore;
    use crate::model::{AttentionKind, ModelInput};
    let store = std::rc::Rc::new(ModelStore::default());
    let model = store.get("translate").unwrap();
    let params = crate::model::weights::parameter_count(&model.config);
    store.slice_passes(web_time::Duration::ZERO, params);
    let frame_store = store.clone();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_context_setup(crate::app::GlimpseApp::style)
        .build_ui_state(
            move |ui, s: &mut DecodingLab| {
                frame_store.take_arrivals();
                s.draw(ui, &frame_store);
            },
            DecodingLab::default(),
        );
    h.run_steps(2);
    h.get_by_label("Run to end").click();
    h.run_steps(2);
    h.get_by_label_contains("(done)");
    let best = h.state().current().unwrap().beam.ranking()[0];
    h.get_by_label_contains(&format!("node {best} "))
        .click_accesskit();
    h.run_steps(1);
    h.get_by_label_contains("computing translate: step");
    assert_eq!(store.passes_under_way(), 1);
    // Below the fold of the test's window: clicked as a screen reader would.
    h.get_by_label("Cancel").click_accesskit();
    h.run_steps(1);
    let passes = crate::model::transformer::forward_passes_on_this_thread();
    h.run_steps(5);
    h.get_by_label_contains("cancelled: translate's pass");
    assert_eq!(store.passes_under_way(), 0);
    assert_eq!(
        crate::model::transformer::forward_passes_on_this_thread(),
        passes,
        "a cancelled pass started again"
    );
    h.get_by_label("Run again").click_accesskit();
    let mut frames = 0;
    while h
        .query_by_label_contains("heatmap cross-attention")
        .is_none()
    {
        h.run_steps(1);
        frames += 1;
        assert!(frames < 100, "still computing after {frames} frames");
    }
    // A block a frame: the encoder's and the decoder's.
    assert!(frames > 2 * model.config.n_layers, "{frames} frames");
    let lab = h.state_mut();
    let search = lab.search.as_ref().unwrap().as_ref().unwrap();
    let shown = lab.attention.trace(&store, search, best).unwrap().clone();
    let shown = shown.unwrap();
    let input = ModelInput {
        source: search.built.encoder.clone(),
        target: search.prefix(best),
        ..Default::default()
    };
    let whole = model.forward(&input, &Default::default()).unwrap();
    assert_eq!(shown.logits, whole.logits);
    for kind in [AttentionKind::DecoderSelf, AttentionKind::Cross] {
        let layer = model.config.n_layers - 1;
        assert_eq!(
            shown.attention(kind, layer).unwrap().weights,
            whole.attention(kind, layer).unwrap().weights
        );
    }
}

/// The beam tree by keyboard: once a box has the focus, ← goes to its parent, → to its child
/// drawn highest, ↓ and ↑ along its step, and the search does not step meanwhile.
#[test]
fn the_arrows_walk_the_beam_tree_from_a_focused_box() {
    let mut h = harness(textbook());
    h.run_steps(2);
    h.get_by_label("Run to end").click();
    h.run_steps(2);
    let beam = h.state().current().unwrap().beam.clone();
    let steps = h.state().steps();
    let best = beam.ranking()[0];
    let parent = beam.nodes[best].parent.unwrap();
    h.get_by_label_contains(&format!("node {best} ")).focus();
    h.run_steps(2);
    let press = |h: &mut Harness<'static, DecodingLab>, key| {
        h.key_press(key);
        h.run_steps(2);
        h.state().selected
    };
    assert_eq!(press(&mut h, egui::Key::ArrowLeft), Some(parent));
    assert!(h
        .get_by_label_contains(&format!("node {parent} "))
        .is_focused());
    // Right goes back down to one of the parent's children, the one drawn highest.
    let cells = super::layout::layout(&beam);
    let child = press(&mut h, egui::Key::ArrowRight).unwrap();
    assert_eq!(beam.nodes[child].parent, Some(parent));
    let mut siblings = beam.nodes.iter().filter(|n| n.parent == Some(parent));
    assert!(siblings.all(|n| cells[n.id].row >= cells[child].row));
    // Down then up (or up then down, at the bottom) returns to the same box; the box between
    // is the nearest one in the same step.
    let nearest = |below: bool| {
        (0..cells.len())
            .filter(|&i| cells[i].col == cells[child].col && i != child)
            .filter(|&i| (cells[i].row > cells[child].row) == below)
            .min_by(|&x, &y| {
                let d = |i: usize| (cells[i].row - cells[child].row).abs();
                d(x).total_cmp(&d(y))
            })
    };
    let (there, back, below) = match nearest(true) {
        Some(_) => (egui::Key::ArrowDown, egui::Key::ArrowUp, true),
        None => (egui::Key::ArrowUp, egui::Key::ArrowDown, false),
    };
    let expected = nearest(below).expect("two boxes in the step");
    assert_eq!(press(&mut h, there), Some(expected));
    assert_eq!(press(&mut h, back), Some(child));
    assert_eq!(
        h.state().steps(),
        steps,
        "the arrows walked the tree, not the search"
    );
    // Every box's name carries its numbers.
    let name = format!("node {best} ");
    let node = h.get_by_label_contains(&name);
    let label = node.accesskit_node().label().unwrap_or_default();
    assert!(
        label.contains("cumulative") && label.contains("finished"),
        "{label}"
    );
}
