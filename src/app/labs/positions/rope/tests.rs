//! The panel drawn headless: every section, the table's editing, the animation, the model view.

use super::*;
use egui_kittest::kittest::Queryable;

fn harness() -> egui_kittest::Harness<'static, RopePanel> {
    let store = crate::app::models::store::ModelStore::default();
    egui_kittest::Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_context_setup(crate::app::GlimpseApp::style)
        .build_ui_state(
            move |ui, p: &mut RopePanel| p.ui(ui, &store),
            RopePanel::default(),
        )
}

#[test]
fn the_panel_draws_every_section() {
    let mut h = harness();
    h.run_steps(3);
    h.check_accessibility();
    h.get_by_label_contains("RoPE: rotary position embedding");
    h.get_by_role_and_label(egui::accesskit::Role::Slider, "query position i");
    h.get_by_role_and_label(egui::accesskit::Role::Slider, "key position j");
    let p = RopePanel::default();
    let s = pair_score(p.q, p.k, p.i, p.j, p.pair, p.d_head, p.base);
    h.get_by_label_contains(&format!("score qᵢᵀ kⱼ (both rotated)           = {s:.4}"));
    h.get_by_label_contains(&format!("offset j − i =   3 only) = {s:.4}"));
    h.get_by_label_contains("They agree");
    h.get_by_label_contains("heatmap RoPE angles");
    h.get_by_label("glimpse pe --kind rope --positions 0,1,2 --apply rows.json");
    h.get_by_label("[[1.0,0.0,1.0,0.0],[1.0,0.0,1.0,0.0],[1.0,0.0,1.0,0.0]]");
    h.get_by_label_contains("heatmap repeat · layer 1 · head 0");
    h.get_by_label_contains("rotates q and k with RoPE, base 10000");
}

#[test]
fn editing_the_table_updates_the_rotation() {
    let mut h = harness();
    h.run_steps(3);
    // Token 2 at position 2: (2.5, 0) turns by 2 rad in pair 0.
    let y1 = format!("{:.4}", 2.5 * 2f32.sin());
    assert!(h.query_all_by_label_contains(&y1).next().is_none());
    h.state_mut().table[2][0] = 2.5;
    h.run_steps(2);
    let want = table_rotate(&h.state().table, &[0, 1, 2], 10000.0).unwrap();
    assert_eq!(format!("{:.4}", want[2][1]), y1);
    h.get_by_label(&y1);
    h.get_by_label_contains("[1.0,0.0,1.0,0.0],[2.5,0.0,1.0,0.0]]");
    // An extra token and pair through the buttons.
    // The buttons are below the first screen: click them through AccessKit.
    h.get_by_label("+ token").click_accesskit();
    h.run_steps(2);
    h.get_by_label("+ pair").click_accesskit();
    h.run_steps(2);
    assert_eq!(h.state().table.len(), 4);
    assert_eq!(h.state().table[0].len(), 6);
    assert_eq!(h.state().table_positions, vec![0, 1, 2, 3]);
    h.get_by_label("glimpse pe --kind rope --positions 0,1,2,3 --apply rows.json");
}

#[test]
fn animation_moves_both_positions_and_keeps_the_score() {
    let mut h = harness();
    h.run_steps(2);
    let (i0, j0) = (h.state().i, h.state().j);
    h.state_mut().animate = true;
    h.run_steps(8);
    let (i, j) = (h.state().i, h.state().j);
    assert!(i > i0, "i stayed at {i}");
    assert_eq!(j as i64 - i as i64, j0 as i64 - i0 as i64);
    let p = RopePanel::default();
    let s = pair_score(p.q, p.k, i0, j0, p.pair, p.d_head, p.base);
    h.get_by_label_contains(&format!("(both rotated)           = {s:.4}"));
}

#[test]
fn the_model_view_follows_text_layer_and_head() {
    let mut h = harness();
    h.run_steps(3);
    h.state_mut().text = "abcabc".into();
    h.state_mut().layer = 0;
    h.state_mut().head = 3;
    h.run_steps(2);
    h.get_by_label_contains("heatmap repeat · layer 0 · head 3");
    assert_eq!(
        h.state().trace.as_ref().map(|t| t.text.as_str()),
        Some("abcabc")
    );
    h.state_mut().text = "ABC".into();
    h.run_steps(2);
    h.get_by_label_contains("not in the model's alphabet");
}
