//! Where the training lab's steps run. Natively a worker thread trains while the UI thread only
//! draws; in the browser a Web Worker does (`remote`), and where none can start, each frame
//! trains for a slice of its time. Either way the lab reads one shared `Progress`, and the same
//! seed trains the same model.

pub mod remote;

use crate::model::ForwardOptions;
use crate::model::Model;
use crate::train::trainer::{EvalStats, Evaluation, StepStats, TrainConfig, Trainer};
use std::sync::{Arc, Mutex, MutexGuard};
use web_time::Instant;

/// Held-out examples per evaluation, and how often to evaluate.
pub const EVAL_EXAMPLES: usize = 100;
pub const EVAL_EVERY: u64 = 100;
/// The speed control is the share of each `PERIOD_MS` spent training: in the browser, the
/// milliseconds of each frame; natively the worker trains for that long, then rests.
pub const PERIOD_MS: f32 = 100.0;
/// The worker publishes fresh weights for the probe view at most this often.
const SNAPSHOT_MS: f32 = 40.0;

/// What the lab draws: the run's history and a recent copy of its weights.
pub struct Progress {
    /// Bumped by every reset, so a worker still finishing an old run cannot write into a new one.
    generation: u64,
    /// The weights as of the last publish (at most `SNAPSHOT_MS` behind the trainer).
    pub model: Model,
    pub steps: u64,
    pub history: Vec<StepStats>,
    pub evals: Vec<(u64, EvalStats)>,
    pub error: Option<String>,
    pub running: bool,
    /// Throughput while training (rest periods excluded), smoothed over recent slices.
    pub steps_per_sec: f32,
    pub tokens_per_sec: f32,
}

/// A trainer and the run it belongs to.
struct Runner {
    trainer: Trainer,
    generation: u64,
    /// The evaluation due at the current step: it runs before any further step, an example at
    /// a time, so no frame has to hold a whole evaluation.
    due: Option<Evaluation>,
}

/// How long a slice trains.
#[derive(Clone, Copy)]
enum Until {
    /// About this many milliseconds (at least one unit of work), or until paused.
    Spent(f32),
    /// Exactly one optimisation step, with any evaluation it makes due.
    OneStep,
}

/// One unit of a slice's work.
enum Work {
    Step(crate::model::Result<StepStats>),
    /// An evaluation example; the stats once it was the last one.
    Eval(crate::model::Result<Option<EvalStats>>),
}

impl Runner {
    fn new(trainer: Trainer, generation: u64) -> Self {
        Self {
            trainer,
            generation,
            due: None,
        }
    }

    /// The next example of a due evaluation, else one optimisation step.
    fn work(&mut self) -> Work {
        let model = &self.trainer.model;
        if let Some(eval) = &mut self.due {
            let result = eval
                .next_example(model, &ForwardOptions::default())
                .map(|()| eval.is_complete().then(|| eval.finish(model)));
            if !matches!(result, Ok(None)) {
                self.due = None;
            }
            return Work::Eval(result);
        }
        let stats = self.trainer.step();
        if stats.is_ok() && self.trainer.steps_done().is_multiple_of(EVAL_EVERY) {
            let config = &self.trainer.config;
            self.due = Some(Evaluation::new(config.task, EVAL_EXAMPLES, config.seed));
        }
        Work::Step(stats)
    }

    /// Train (and evaluate when due) until `until`, publishing each step into `shared`.
    /// Returns false when the run should stop: an error, or a reset made this run stale.
    fn slice(&mut self, until: Until, shared: &Mutex<Progress>) -> bool {
        let start = Instant::now();
        let mut last_snapshot = start;
        let (mut steps, mut tokens) = (0usize, 0usize);
        loop {
            let work = self.work();
            let elapsed_ms = start.elapsed().as_secs_f32() * 1000.0;
            let mut p = lock(shared);
            if p.generation != self.generation {
                return false;
            }
            let steps_done = self.trainer.steps_done();
            match work {
                Work::Step(Ok(stats)) => {
                    steps += 1;
                    tokens += stats.tokens;
                    p.steps = steps_done;
                    p.history.push(stats);
                }
                Work::Eval(Ok(Some(stats))) => p.evals.push((steps_done, stats)),
                Work::Eval(Ok(None)) => {}
                Work::Step(Err(e)) | Work::Eval(Err(e)) => {
                    p.error = Some(e.to_string());
                    p.running = false;
                    return false;
                }
            }
            // A pause takes effect after the work in flight, not at the end of the slice.
            let done = match until {
                Until::Spent(budget_ms) => elapsed_ms >= budget_ms || !p.running,
                Until::OneStep => steps >= 1 && self.due.is_none(),
            };
            let snapshot_due = last_snapshot.elapsed().as_secs_f32() * 1000.0 >= SNAPSHOT_MS;
            if done || snapshot_due {
                p.model.weights.clone_from(&self.trainer.model.weights);
                last_snapshot = Instant::now();
            }
            if done {
                let secs = start.elapsed().as_secs_f32().max(1e-6);
                let smooth = |old: f32, new: f32| {
                    if old > 0.0 {
                        0.8 * old + 0.2 * new
                    } else {
                        new
                    }
                };
                if steps > 0 {
                    p.steps_per_sec = smooth(p.steps_per_sec, steps as f32 / secs);
                    p.tokens_per_sec = smooth(p.tokens_per_sec, tokens as f32 / secs);
                }
                return true;
            }
        }
    }
}

fn lock(shared: &Mutex<Progress>) -> MutexGuard<'_, Progress> {
    // A panic elsewhere must not take the lab down with it: the data is still readable.
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(not(target_arch = "wasm32"))]
enum Command {
    Replace(Box<Runner>),
    Run(bool),
    Step,
    Speed(f32),
}

enum Engine {
    /// Steps run inside `frame`, in the UI thread.
    Inline(Box<Runner>),
    #[cfg(not(target_arch = "wasm32"))]
    Worker(std::sync::mpsc::Sender<Command>),
    /// A Web Worker trains; its updates are folded in each frame.
    #[cfg(target_arch = "wasm32")]
    Page(Box<remote::PageSide>),
}

/// A training run the lab can start, pause, step and reset.
pub struct TrainingRun {
    shared: Arc<Mutex<Progress>>,
    engine: Engine,
    speed: f32,
}

/// A fresh trainer for `config` and its evaluation at step 0.
fn fresh(config: &TrainConfig, generation: u64) -> Result<(Runner, Progress), String> {
    let trainer = Trainer::new(config.clone(), config.task.name()).map_err(|e| e.to_string())?;
    let first = trainer.evaluate(EVAL_EXAMPLES).map_err(|e| e.to_string())?;
    let progress = Progress {
        generation,
        model: trainer.model.clone(),
        steps: 0,
        history: Vec::new(),
        evals: vec![(0, first)],
        error: None,
        running: false,
        steps_per_sec: 0.0,
        tokens_per_sec: 0.0,
    };
    Ok((Runner::new(trainer, generation), progress))
}

impl TrainingRun {
    /// A run of `config` from its seed's initial weights. `threaded` puts the steps on a worker
    /// thread (a Web Worker in the browser).
    pub fn new(config: &TrainConfig, threaded: bool, speed: f32) -> Result<Self, String> {
        let (runner, progress) = fresh(config, 0)?;
        let shared = Arc::new(Mutex::new(progress));
        let engine = Self::engine(config, runner, threaded, &shared, speed);
        // Training inside frames shares each with drawing: 45 of every 100 ms keeps the page
        // at about ten frames a second or more.
        let speed = if cfg!(target_arch = "wasm32") && matches!(engine, Engine::Inline(_)) {
            speed.min(0.45)
        } else {
            speed
        };
        Ok(Self {
            shared,
            engine,
            speed,
        })
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn engine(
        _: &TrainConfig,
        runner: Runner,
        threaded: bool,
        shared: &Arc<Mutex<Progress>>,
        speed: f32,
    ) -> Engine {
        if !threaded {
            return Engine::Inline(Box::new(runner));
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let shared = Arc::clone(shared);
        let spawned = std::thread::Builder::new()
            .name("glimpse-training".into())
            .spawn(move || worker(&shared, &rx));
        match spawned {
            Ok(_) => {
                // The channel cannot be closed yet: the worker holds its end.
                let _ = tx.send(Command::Speed(speed));
                let _ = tx.send(Command::Replace(Box::new(runner)));
                Engine::Worker(tx)
            }
            // No thread available: train inside frames instead.
            Err(_) => Engine::Inline(Box::new(runner)),
        }
    }

    #[cfg(target_arch = "wasm32")]
    fn engine(
        config: &TrainConfig,
        runner: Runner,
        threaded: bool,
        _: &Arc<Mutex<Progress>>,
        speed: f32,
    ) -> Engine {
        if !threaded {
            return Engine::Inline(Box::new(runner));
        }
        match remote::PageSide::spawn(config, runner.generation, speed) {
            Ok(side) => Engine::Page(Box::new(side)),
            Err(e) => {
                // No worker (a page without Trunk's links, an old browser): train in frames.
                log::warn!("glimpse: training in frames: {e}");
                Engine::Inline(Box::new(runner))
            }
        }
    }

    /// Whether steps run off the UI thread.
    pub fn threaded(&self) -> bool {
        !matches!(self.engine, Engine::Inline(_))
    }

    /// Back to the initial weights of `config`'s seed; the run is paused.
    pub fn reset(&mut self, config: &TrainConfig) -> Result<(), String> {
        let generation = lock(&self.shared).generation + 1;
        let (runner, progress) = fresh(config, generation)?;
        *lock(&self.shared) = progress;
        #[cfg(target_arch = "wasm32")]
        if matches!(&self.engine, Engine::Page(side) if side.crashed()) {
            // A crashed worker answers nothing: the new run gets a new one.
            self.engine = Self::engine(config, runner, true, &self.shared, self.speed);
            return Ok(());
        }
        match &mut self.engine {
            Engine::Inline(r) => **r = runner,
            #[cfg(not(target_arch = "wasm32"))]
            Engine::Worker(tx) => {
                let _ = tx.send(Command::Run(false));
                let _ = tx.send(Command::Replace(Box::new(runner)));
            }
            #[cfg(target_arch = "wasm32")]
            Engine::Page(side) => {
                side.send(&remote::Command::Run(false));
                side.send(&remote::Command::Replace {
                    config: config.clone(),
                    generation,
                });
            }
        }
        Ok(())
    }

    pub fn progress(&self) -> MutexGuard<'_, Progress> {
        lock(&self.shared)
    }

    pub fn running(&self) -> bool {
        lock(&self.shared).running
    }

    pub fn set_running(&mut self, on: bool) {
        #[cfg(target_arch = "wasm32")]
        if on && matches!(&self.engine, Engine::Page(side) if side.crashed()) {
            // Nothing would train; the lab shows why, and Reset starts a new worker.
            return;
        }
        lock(&self.shared).running = on;
        #[cfg(not(target_arch = "wasm32"))]
        if let Engine::Worker(tx) = &self.engine {
            let _ = tx.send(Command::Run(on));
        }
        #[cfg(target_arch = "wasm32")]
        if let Engine::Page(side) = &self.engine {
            side.send(&remote::Command::Run(on));
        }
    }

    /// Pause and take exactly one optimisation step.
    pub fn step_once(&mut self) {
        self.set_running(false);
        match &mut self.engine {
            Engine::Inline(r) => {
                r.slice(Until::OneStep, &self.shared);
            }
            #[cfg(not(target_arch = "wasm32"))]
            Engine::Worker(tx) => {
                let _ = tx.send(Command::Step);
            }
            #[cfg(target_arch = "wasm32")]
            Engine::Page(side) => side.send(&remote::Command::Step),
        }
    }

    /// Share of the time spent training, in (0, 1].
    pub fn speed(&self) -> f32 {
        self.speed
    }

    pub fn set_speed(&mut self, speed: f32) {
        self.speed = speed.clamp(0.01, 1.0);
        #[cfg(not(target_arch = "wasm32"))]
        if let Engine::Worker(tx) = &self.engine {
            let _ = tx.send(Command::Speed(self.speed));
        }
        #[cfg(target_arch = "wasm32")]
        if let Engine::Page(side) = &self.engine {
            side.send(&remote::Command::Speed(self.speed));
        }
    }

    /// Called once per frame: an inline run trains its slice here; a Web Worker's updates are
    /// folded in (and `ctx` is asked for a frame when the next one arrives).
    pub fn frame(&mut self, ctx: Option<&egui::Context>) {
        match &mut self.engine {
            Engine::Inline(r) => {
                if lock(&self.shared).running {
                    r.slice(Until::Spent(self.speed * PERIOD_MS), &self.shared);
                }
            }
            #[cfg(not(target_arch = "wasm32"))]
            Engine::Worker(_) => {}
            #[cfg(target_arch = "wasm32")]
            Engine::Page(side) => side.receive(&self.shared, ctx),
        }
        let _ = ctx;
    }
}

/// The worker: waits for commands while paused; while running, trains `speed · PERIOD_MS`,
/// then rests for the rest of the period (answering commands meanwhile). Ends when the lab
/// drops its end of the channel.
#[cfg(not(target_arch = "wasm32"))]
fn worker(shared: &Mutex<Progress>, rx: &std::sync::mpsc::Receiver<Command>) {
    use std::sync::mpsc::RecvTimeoutError;
    use std::time::Duration;
    let mut runner: Option<Box<Runner>> = None;
    let (mut running, mut speed) = (false, 0.3f32);
    loop {
        let command = if running {
            let rest = Duration::from_secs_f32((1.0 - speed).max(0.0) * PERIOD_MS / 1000.0);
            match rx.recv_timeout(rest) {
                Ok(c) => Some(c),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        } else {
            match rx.recv() {
                Ok(c) => Some(c),
                Err(_) => return,
            }
        };
        match command {
            Some(Command::Replace(r)) => runner = Some(r),
            Some(Command::Run(on)) => running = on,
            Some(Command::Speed(s)) => speed = s,
            Some(Command::Step) => {
                running = false;
                if let Some(r) = runner.as_mut() {
                    r.slice(Until::OneStep, shared);
                }
            }
            None => {
                if let Some(r) = runner.as_mut() {
                    if !r.slice(Until::Spent(speed * PERIOD_MS), shared) {
                        running = false;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::tasks::TaskKind;
    use std::time::Duration;

    fn wait_for(run: &TrainingRun, steps: u64) {
        let start = Instant::now();
        while run.progress().steps < steps {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the worker made no progress"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
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
        std::thread::sleep(Duration::from_millis(300));
        let p = run.progress();
        assert_eq!(p.steps, 0, "a stale slice wrote into the new run");
        assert!(p.history.is_empty() && !p.running);
        assert_eq!(p.model.weights, initial);
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
            crate::train::trainer::evaluate(&at_100, config.task, EVAL_EXAMPLES, config.seed)
                .unwrap();
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
}
