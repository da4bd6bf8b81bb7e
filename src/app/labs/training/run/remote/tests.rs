use super::super::starting;
use super::*;
use crate::app::labs::training::run::TrainingRun;
use crate::train::tasks::TaskKind;

/// A message as the browser carries it: through its JSON.
fn carried<T: Serialize + serde::de::DeserializeOwned>(message: &T) -> T {
    serde_json::from_str(&serde_json::to_string(message).unwrap()).unwrap()
}

/// The page's state and a worker told to train `config`, as `TrainingRun::new` sets them up,
/// with the worker's first update (the step-0 state) folded in.
fn page_and_worker(config: &TrainConfig, generation: u64) -> (Progress, WorkerRun) {
    let mut page = starting(config, generation).unwrap();
    assert!(page.starting());
    let mut worker = WorkerRun::default();
    let replace = Command::Replace {
        config: config.clone(),
        generation,
    };
    fold(&mut page, worker.handle(carried(&replace)));
    assert!(!page.starting());
    (page, worker)
}

fn fold(page: &mut Progress, reply: Option<(Update, Vec<f32>)>) {
    let (update, floats) = reply.expect("the worker answered");
    apply(page, carried(&update), &floats);
}

/// Training in the worker and folding its updates in gives the page exactly the run the inline
/// engine trains: the same steps, evaluations and weights.
#[test]
fn a_worker_run_seen_through_its_messages_is_the_inline_run() {
    let config = TrainConfig::for_task(TaskKind::Reverse);
    let (mut page, mut worker) = page_and_worker(&config, 0);
    worker.handle(carried(&Command::Speed(0.05)));
    for _ in 0..3 {
        fold(&mut page, worker.handle(carried(&Command::Step)));
    }
    worker.handle(carried(&Command::Run(true)));
    assert!(worker.running());
    while page.steps < 110 {
        fold(&mut page, worker.tick());
    }
    worker.handle(carried(&Command::Run(false)));
    assert!(worker.tick().is_none(), "a paused worker trained");

    let mut inline = TrainingRun::new(&config, false, 1.0).unwrap();
    while inline.progress().steps < page.steps {
        inline.step_once();
    }
    let reference = inline.progress();
    assert_eq!(page.steps, reference.steps);
    assert_eq!(page.history, reference.history);
    assert_eq!(page.evals, reference.evals);
    assert_eq!(page.evals.len(), 2, "the evaluation at step 100 came over");
    assert_eq!(page.model.weights, reference.model.weights);
    assert!(page.steps_per_sec > 0.0);
}

#[test]
fn updates_of_a_replaced_run_are_dropped() {
    let config = TrainConfig::for_task(TaskKind::Copy);
    let (_, mut worker) = page_and_worker(&config, 0);
    let stale = worker.handle(Command::Step).unwrap();
    // The page has since reset to generation 1.
    let (mut page, _) = page_and_worker(&config, 1);
    let before = (page.steps, page.history.len(), page.model.weights.clone());
    apply(&mut page, stale.0, &stale.1);
    assert_eq!(
        (page.steps, page.history.len(), page.model.weights.clone()),
        before
    );
}

#[test]
fn weights_of_the_wrong_size_are_not_written() {
    let config = TrainConfig::for_task(TaskKind::Copy);
    let (mut page, mut worker) = page_and_worker(&config, 0);
    let (update, mut floats) = worker.handle(Command::Step).unwrap();
    let before = page.model.weights.clone();
    floats.pop();
    apply(&mut page, update, &floats);
    assert_eq!(page.steps, 1, "the step itself is still counted");
    assert_eq!(page.model.weights, before);
}

#[test]
fn a_config_the_worker_cannot_train_comes_back_as_the_error() {
    let good = TrainConfig::for_task(TaskKind::Copy);
    let mut page = starting(&good, 3).unwrap();
    page.running = true;
    let bad = TrainConfig {
        dropout: 1.5,
        ..good
    };
    let mut worker = WorkerRun::default();
    let replace = Command::Replace {
        config: bad,
        generation: 3,
    };
    fold(&mut page, worker.handle(carried(&replace)));
    let error = page.error.as_deref().unwrap_or_default();
    assert!(error.contains("dropout"), "{error}");
    assert!(!page.running);
    assert!(worker.handle(Command::Step).is_none() && worker.tick().is_none());
}

#[test]
fn the_rest_between_slices_is_the_unused_share_of_the_period() {
    let mut worker = WorkerRun::default();
    worker.handle(Command::Speed(0.25));
    assert_eq!(worker.rest_ms(), 75);
    worker.handle(Command::Speed(7.0));
    assert_eq!(worker.rest_ms(), 0);
}

/// Clipping off is an infinite threshold and a diverged run's loss is NaN; JSON has neither,
/// and a message that cannot be read back would leave the page waiting on a silent worker.
#[test]
fn infinities_and_nans_cross_the_json() {
    let config = TrainConfig {
        clip_norm: f32::INFINITY,
        ..TrainConfig::for_task(TaskKind::Copy)
    };
    let (mut page, mut worker) = page_and_worker(&config, 0);
    fold(&mut page, worker.handle(carried(&Command::Step)));
    assert_eq!(page.steps, 1, "the run with clipping off trains");
    let diverged = Update {
        history: vec![StepStats {
            loss: f32::NAN,
            grad_norm: f32::INFINITY,
            ..page.history[0]
        }],
        steps: 2,
        ..Update::default()
    };
    apply(&mut page, carried(&diverged), &[]);
    let last = page.history.last().unwrap();
    assert!(last.loss.is_nan() && last.grad_norm == f32::INFINITY);
    assert_eq!(page.steps, 2);
}
