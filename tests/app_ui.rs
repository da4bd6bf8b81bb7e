//! The real app driven through its widgets with egui_kittest (no display needed): what a
//! student clicks, and what the app then shows.

use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use glimpse::app::GlimpseApp;
use std::time::{Duration, Instant};

/// The app with its own fonts; kittest's default policy panics on any glyph they lack, so
/// every label drawn here is also checked for tofu.
fn app() -> Harness<'static, GlimpseApp> {
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_context_setup(GlimpseApp::style)
        .build_ui_state(
            |ui, app: &mut GlimpseApp| app.show(ui),
            GlimpseApp::default(),
        )
}

fn status(h: &Harness<'_, GlimpseApp>) -> serde_json::Value {
    h.state().training.status()
}

fn steps(h: &Harness<'_, GlimpseApp>) -> u64 {
    status(h)["steps"].as_u64().unwrap_or(0)
}

/// The weights the lab's views draw from.
fn weights(h: &Harness<'_, GlimpseApp>) -> glimpse::model::weights::Weights {
    let run = h.state().training.run.as_ref().expect("the lab has a run");
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
    // A fresh run, evaluated before any training.
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
