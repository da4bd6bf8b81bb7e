//! Training end to end: the hand-written backward pass, AdamW and the task generators must
//! together make a model learn. Not a timed test: it asserts what was learned.

use glimpse::train::optim::Schedule;
use glimpse::train::tasks::TaskKind;
use glimpse::train::trainer::{TrainConfig, Trainer};

#[test]
fn reverse_task_learns() {
    let mut cfg = TrainConfig::for_task(TaskKind::Reverse);
    cfg.schedule = Schedule::WarmupCosine {
        peak: 3e-3,
        floor: 1e-4,
        warmup: 50,
        total: 400,
    };
    let mut t = Trainer::new(cfg, "reverse-test").unwrap();
    let before = t.evaluate(100).unwrap();
    let first = t.step().unwrap().loss;
    for _ in 0..400 {
        t.step().unwrap();
    }
    let after = t.evaluate(100).unwrap();
    let last = t.history.iter().rev().take(20).map(|s| s.loss).sum::<f32>() / 20.0;
    println!("reverse: loss {first:.3} -> {last:.3}; held-out token accuracy {:.3} -> {:.3}, exact {:.3} -> {:.3}",
        before.token_accuracy, after.token_accuracy, before.exact_match, after.exact_match);
    assert!(
        last < 0.5 * first,
        "training loss fell only from {first} to {last}"
    );
    assert!(
        after.token_accuracy > before.token_accuracy + 0.3,
        "{before:?} -> {after:?}"
    );
}
