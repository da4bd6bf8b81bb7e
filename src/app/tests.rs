//! The whole app, frame by frame: a frame that changes nothing runs no forward pass, and an
//! edit of the input runs exactly one.

use super::link;
use super::positions::{PositionsLab, Section};
use super::GlimpseApp;
use crate::model::transformer::forward_passes_on_this_thread as forward_passes;
use egui_kittest::Harness;

/// Frames for a view to settle: lesson pages set themselves up, the first trace picks a head.
const SETTLE_FRAMES: usize = 6;

fn open(link: &str) -> Harness<'static, GlimpseApp> {
    let mut app = GlimpseApp::default();
    app.open_link(link);
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_context_setup(GlimpseApp::style)
        .build_ui_state(|ui, app: &mut GlimpseApp| app.show(ui), app)
}

#[test]
fn idle_frames_run_no_forward_pass_in_any_view() {
    for link in link::every_view() {
        let mut h = open(&link);
        h.run_steps(SETTLE_FRAMES);
        // The extrapolation table measures a little every frame until it is full: fill it.
        let app = h.state_mut();
        let positions = app.labs.get_mut::<PositionsLab>().unwrap();
        if positions.section == Section::Extrapolation {
            while positions.extrapolation.measure_next(&app.store) {}
            h.run_steps(2);
        }
        let before = forward_passes();
        h.run_steps(5);
        let after = forward_passes();
        assert_eq!(
            after,
            before,
            "{link}: idle frames ran {} forward passes",
            after - before
        );
    }
}

#[test]
fn an_edit_runs_exactly_one_forward_pass() {
    for view in ["attention", "scoring"] {
        let mut h = open(&format!("view={view}&model=translate"));
        h.run_steps(SETTLE_FRAMES);
        let before = forward_passes();
        h.state_mut().bench.source = "la zone".into();
        h.run_steps(3);
        let after = forward_passes();
        assert_eq!(after, before + 1, "{view}");
        let trace = h.state().bench.trace().expect("a trace");
        let tokens = &trace.encoder.as_ref().expect("an encoder").tokens;
        assert!(
            tokens.iter().any(|t| t.contains("zone")),
            "{view}: {tokens:?}"
        );
    }
}
