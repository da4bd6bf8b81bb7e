use super::*;

#[test]
fn reset_returns_to_the_same_initial_weights() {
    let mut lab = TrainingLab {
        threaded: false,
        ..Default::default()
    };
    lab.reset();
    let run = lab.run.as_mut().unwrap();
    let initial = run.progress().model.weights.clone();
    run.step_once();
    run.step_once();
    assert_eq!(run.progress().steps, 2);
    assert_ne!(run.progress().model.weights, initial);
    lab.reset();
    let p = lab.run.as_ref().unwrap().progress();
    assert_eq!(p.model.weights, initial);
    assert_eq!(p.steps, 0);
}

#[test]
fn a_new_schedule_keeps_the_last_runs_curves_to_compare() {
    let mut lab = TrainingLab {
        threaded: false,
        ..Default::default()
    };
    lab.reset();
    assert!(lab.previous.is_none(), "nothing to compare with yet");
    let run = lab.run.as_mut().unwrap();
    for _ in 0..3 {
        run.step_once();
    }
    let losses: Vec<f64> = run
        .progress()
        .history
        .iter()
        .map(|s| s.loss as f64)
        .collect();
    let norms: Vec<f64> = run
        .progress()
        .history
        .iter()
        .map(|s| (s.grad_norm as f64).log10())
        .collect();
    let old = describe(&lab.config);
    assert!(
        old.starts_with("cosine · warmup 200 · peak 3.0e-3 · clip 1"),
        "{old}"
    );
    lab.config.schedule = Schedule::shaped("constant", 1e-2, 0, 32, SCHEDULE_STEPS).unwrap();
    lab.config.clip_norm = f32::INFINITY;
    lab.reset();
    let prev = lab.previous.as_ref().expect("the old run's curves");
    assert_eq!(prev.label, old);
    let kept: Vec<f64> = prev.loss.iter().map(|p| p[1]).collect();
    assert_eq!(kept, losses);
    let kept_norms: Vec<f64> = prev.grad_norm.iter().map(|p| p[1]).collect();
    assert_eq!(kept_norms, norms, "kept as the plot draws them: log₁₀");
    assert!(describe(&lab.config).starts_with("constant · no warmup · peak 1.0e-2 · no clipping"));
    // A run reset before any step leaves the comparison as it was.
    lab.reset();
    assert_eq!(lab.previous.as_ref().unwrap().label, old);
}

#[test]
fn schedule_links_round_trip_and_bad_values_are_refused() {
    let mut lab = TrainingLab::default();
    let mut r = LinkReader::parse("sch=noam&lr=0.002&warm=400&clip=0");
    lab.load(&mut r);
    assert!(r.notices.is_empty(), "{:?}", r.notices);
    assert_eq!(lab.config.schedule.name(), "noam");
    assert!((lab.config.schedule.peak() - 2e-3).abs() < 1e-8);
    assert_eq!(lab.config.schedule.warmup(), 400);
    assert!(lab.config.clip_norm.is_infinite());
    let mut r = LinkReader::parse("sch=linear&lr=5&warm=-1&clip=1000");
    lab.load(&mut r);
    assert_eq!(r.notices.len(), 4, "{:?}", r.notices);
    assert_eq!(lab.config.schedule.name(), "noam");
}

#[test]
fn a_refused_config_shows_its_reason() {
    let mut lab = TrainingLab::default();
    lab.config.dropout = 2.0;
    lab.reset();
    assert!(lab.run.is_none());
    assert!(lab.status()["error"].as_str().unwrap().contains("dropout"));
}

#[test]
fn long_curves_are_averaged_in_chunks() {
    let pts = chunk_means((0..1000).map(|i| (i as f64, (i % 2) as f64)), 1000, 400);
    assert_eq!(pts.len(), 334); // chunks of 3
    assert_eq!(pts[0], [1.0, 1.0 / 3.0]);
    let short = chunk_means((0..10).map(|i| (i as f64, 1.0)), 10, 400);
    assert_eq!(short.len(), 10);
}
