use super::*;
use crate::train::tasks::TaskKind;
use std::time::Duration;

/// Polls until `done` holds of the run's progress.
fn wait_until(run: &TrainingRun, done: impl Fn(&Progress) -> bool) {
    let start = Instant::now();
    while !done(&run.progress()) {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the worker made no progress"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn wait_for(run: &TrainingRun, steps: u64) {
    wait_until(run, |p| p.steps >= steps);
}

/// The worker thread trains exactly what the inline engine trains: same seed, same steps,
/// same weights.
#[test]
fn worker_and_inline_runs_agree_step_for_step() {
    let config = TrainConfig::for_task(TaskKind::Reverse);
    let mut threaded = TrainingRun::new(&config, true, 1.0).unwrap();
    assert!(threaded.threaded());
    threaded.set_running(true);
    wait_for(&threaded, 12);
    threaded.set_running(false);
    // Let a slice in flight finish, then read where it stopped.
    std::thread::sleep(Duration::from_millis(300));
    let steps = threaded.progress().steps;
    let mut inline = TrainingRun::new(&config, false, 1.0).unwrap();
    assert!(!inline.threaded());
    for _ in 0..steps {
        inline.step_once();
    }
    let (a, b) = (threaded.progress(), inline.progress());
    assert_eq!(a.steps, b.steps);
    assert_eq!(a.history, b.history);
    assert_eq!(a.model.weights, b.model.weights);
}

#[test]
fn reset_discards_the_old_run_even_mid_slice() {
    let config = TrainConfig::for_task(TaskKind::Copy);
    let mut run = TrainingRun::new(&config, true, 1.0).unwrap();
    let initial = run.progress().model.weights.clone();
    run.set_running(true);
    wait_for(&run, 3);
    run.reset(&config).unwrap();
    wait_until(&run, |p| !p.starting());
    std::thread::sleep(Duration::from_millis(300));
    let p = run.progress();
    assert_eq!(p.steps, 0, "a stale slice wrote into the new run");
    assert!(p.history.is_empty() && !p.running);
    assert_eq!(p.model.weights, initial);
    assert_eq!(p.evals.len(), 1, "the new run's evaluation at step 0");
}

/// A threaded run's step-0 evaluation is the worker's first update: the caller only checks
/// the config and builds its initial model, and shows the run as starting until then.
#[test]
fn the_worker_brings_the_step_0_evaluation() {
    let config = TrainConfig::for_task(TaskKind::Reverse);
    let threaded = TrainingRun::new(&config, true, 1.0).unwrap();
    {
        // Held, so the worker cannot publish before this looks.
        let p = threaded.progress();
        assert!(p.starting() && p.evals.is_empty(), "the caller evaluated");
    }
    wait_until(&threaded, |p| !p.starting());
    let inline = TrainingRun::new(&config, false, 1.0).unwrap();
    assert!(!inline.progress().starting());
    let (a, b) = (threaded.progress(), inline.progress());
    assert_eq!(a.evals, b.evals);
    assert_eq!(a.evals.len(), 1);
    assert_eq!(a.model.weights, b.model.weights);
    assert_eq!((a.steps, a.error.as_deref()), (0, None));
}

#[test]
fn step_once_takes_one_step() {
    let config = TrainConfig::for_task(TaskKind::Sort);
    let mut run = TrainingRun::new(&config, true, 0.5).unwrap();
    run.step_once();
    wait_for(&run, 1);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(run.progress().steps, 1);
}

#[test]
fn an_inline_frame_respects_its_budget() {
    let config = TrainConfig::for_task(TaskKind::Reverse);
    let mut run = TrainingRun::new(&config, false, 0.2).unwrap();
    run.set_running(true);
    let start = Instant::now();
    run.frame(None);
    // One step can overrun the 20 ms budget, never many: a step takes milliseconds.
    assert!(run.progress().steps >= 1);
    assert!(start.elapsed() < Duration::from_secs(2));
}

/// In the browser no frame holds a whole evaluation: it runs over several frames, before
/// any further step, and scores exactly what one evaluation of the step's weights scores.
#[test]
fn an_evaluation_spreads_over_frames_and_scores_the_same() {
    let config = TrainConfig::for_task(TaskKind::Reverse);
    let mut spread = TrainingRun::new(&config, false, 0.01).unwrap();
    for _ in 1..EVAL_EVERY {
        spread.step_once();
    }
    spread.set_running(true);
    let mut frames = 0;
    while spread.progress().evals.len() < 2 {
        spread.frame(None);
        frames += 1;
        assert!(frames < 10_000, "the evaluation never finished");
    }
    spread.set_running(false);
    assert!(
        frames > 2,
        "one frame held the whole evaluation ({frames} frames)"
    );
    // The weights at step 100, from a run stepped there one step at a time.
    let mut stepped = TrainingRun::new(&config, false, 0.01).unwrap();
    for _ in 0..EVAL_EVERY {
        stepped.step_once();
    }
    let at_100 = stepped.progress().model.clone();
    let whole =
        crate::train::trainer::evaluate(&at_100, config.task, EVAL_EXAMPLES, config.seed).unwrap();
    assert_eq!(spread.progress().evals[1], (EVAL_EVERY, whole));
    assert_eq!(stepped.progress().evals[1], (EVAL_EVERY, whole));
}

#[test]
fn a_bad_config_is_an_error_not_a_panic() {
    let config = TrainConfig {
        dropout: 1.5,
        ..TrainConfig::for_task(TaskKind::Copy)
    };
    let err = TrainingRun::new(&config, true, 0.3).err().unwrap();
    assert!(err.contains("dropout"), "{err}");
}
