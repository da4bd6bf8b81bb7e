//! Where the training lab's steps run. Another thread trains while the UI thread only draws: a
//! worker thread natively, a Web Worker in the browser, both driven by the same `remote`
//! commands and answering with the same updates. Where none can start, each frame trains for a
//! slice of its time. Either way the lab reads one shared `Progress`, and the same seed trains
//! the same model.

pub mod remote;

use crate::model::ForwardOptions;
use crate::model::Model;
use crate::train::trainer::{EvalStats, Evaluation, StepStats, TrainConfig, Trainer};
use std::sync::{Arc, Mutex, MutexGuard};
use web_time::Instant;

/// Held-out examples per evaluation, and how often to evaluate.
pub const EVAL_EXAMPLES: usize = 100;
pub const EVAL_EVERY: u64 = 100;
/// The speed control is the share of each `PERIOD_MS` spent training: inside frames, the
/// milliseconds of each frame; a worker trains for that long, then rests.
pub const PERIOD_MS: f32 = 100.0;

/// What the lab draws: the run's history and a recent copy of its weights.
pub struct Progress {
    /// Bumped by every reset, so a worker still finishing an old run cannot write into a new one.
    generation: u64,
    /// The weights as of the last slice (or a worker's last update).
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

/// A trainer and the evaluation it owes.
struct Runner {
    trainer: Trainer,
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
    fn new(trainer: Trainer) -> Self {
        Self { trainer, due: None }
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

    /// Train (and evaluate when due) until `until`, recording each step in `shared`; the
    /// weights are copied there at the end. Only this thread writes to `shared` meanwhile (an
    /// inline run's, or a worker's own), so no reset can overtake a slice.
    fn slice(&mut self, until: Until, shared: &Mutex<Progress>) {
        let start = Instant::now();
        let (mut steps, mut tokens) = (0usize, 0usize);
        loop {
            let work = self.work();
            let elapsed_ms = start.elapsed().as_secs_f32() * 1000.0;
            let mut p = lock(shared);
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
                    return;
                }
            }
            // A pause takes effect after the work in flight, not at the end of the slice.
            let done = match until {
                Until::Spent(budget_ms) => elapsed_ms >= budget_ms || !p.running,
                Until::OneStep => steps >= 1 && self.due.is_none(),
            };
            if done {
                p.model.weights.clone_from(&self.trainer.model.weights);
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
                return;
            }
        }
    }
}

fn lock(shared: &Mutex<Progress>) -> MutexGuard<'_, Progress> {
    // A panic elsewhere must not take the lab down with it: the data is still readable.
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

enum Engine {
    /// Steps run inside `frame`, in the UI thread.
    Inline(Box<Runner>),
    /// Another thread (a Web Worker in the browser) builds and trains the run from
    /// `remote::Command`s; its `remote::Update`s are folded into the shared progress.
    Remote(Box<remote::Side>),
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
    let mut progress = at_step_0(trainer.model.clone(), generation);
    progress.evals.push((0, first));
    Ok((Runner::new(trainer), progress))
}

/// The lab's state for a new run whose worker computes the step-0 evaluation (its first
/// update brings it): `config` checked and its initial model built, which is cheap.
fn starting(config: &TrainConfig, generation: u64) -> Result<Progress, String> {
    let model = config
        .initial_model(config.task.name())
        .map_err(|e| e.to_string())?;
    Ok(at_step_0(model, generation))
}

fn at_step_0(model: Model, generation: u64) -> Progress {
    Progress {
        generation,
        model,
        steps: 0,
        history: Vec::new(),
        evals: Vec::new(),
        error: None,
        running: false,
        steps_per_sec: 0.0,
        tokens_per_sec: 0.0,
    }
}

impl Progress {
    /// A worker is still computing the run's step-0 state (every run is evaluated at step 0).
    pub fn starting(&self) -> bool {
        self.evals.is_empty() && self.error.is_none()
    }
}

/// Training inside frames shares each with drawing: in the browser 45 of every 100 ms keeps
/// the page at about ten frames a second or more.
const MAX_SPEED_IN_FRAMES: f32 = if cfg!(target_arch = "wasm32") {
    0.45
} else {
    1.0
};

impl TrainingRun {
    /// A run of `config` from its seed's initial weights. `threaded` puts the steps on a worker
    /// thread (a Web Worker in the browser). A config the trainer refuses is an error here,
    /// before any thread sees it.
    pub fn new(config: &TrainConfig, threaded: bool, speed: f32) -> Result<Self, String> {
        let shared = Arc::new(Mutex::new(starting(config, 0)?));
        let engine = Self::engine(&shared, config, threaded)?;
        let mut run = Self {
            shared,
            engine,
            speed,
        };
        run.set_speed(speed);
        Ok(run)
    }

    /// The engine for the run in `shared` (its generation, paused; `set_speed` follows):
    /// another thread's when `threaded` and one starts, which computes the step-0 state, else
    /// this thread's with the step-0 state computed here.
    fn engine(
        shared: &Arc<Mutex<Progress>>,
        config: &TrainConfig,
        threaded: bool,
    ) -> Result<Engine, String> {
        let generation = lock(shared).generation;
        if threaded {
            match remote::Side::spawn(shared) {
                Ok(side) => {
                    side.send(remote::Command::Replace {
                        config: config.clone(),
                        generation,
                    });
                    return Ok(Engine::Remote(Box::new(side)));
                }
                // No thread or no worker (a page without Trunk's links, an old browser).
                Err(e) => log::warn!("glimpse: training in frames: {e}"),
            }
        }
        let (runner, progress) = fresh(config, generation)?;
        *lock(shared) = progress;
        Ok(Engine::Inline(Box::new(runner)))
    }

    /// Commands for a run on another thread; an inline run is driven directly.
    fn send(&mut self, command: remote::Command) {
        if let Engine::Remote(side) = &mut self.engine {
            side.send(command);
        }
    }

    fn crashed(&self) -> bool {
        matches!(&self.engine, Engine::Remote(side) if side.crashed())
    }

    /// Whether steps run off the UI thread.
    pub fn threaded(&self) -> bool {
        matches!(self.engine, Engine::Remote(_))
    }

    /// Back to the initial weights of `config`'s seed; the run is paused.
    pub fn reset(&mut self, config: &TrainConfig) -> Result<(), String> {
        let generation = lock(&self.shared).generation + 1;
        if let Engine::Inline(r) = &mut self.engine {
            let (runner, progress) = fresh(config, generation)?;
            **r = runner;
            *lock(&self.shared) = progress;
            return Ok(());
        }
        *lock(&self.shared) = starting(config, generation)?;
        if self.crashed() {
            // A crashed worker answers nothing: the new run gets a new one.
            self.engine = Self::engine(&self.shared, config, true)?;
            self.set_speed(self.speed);
            return Ok(());
        }
        self.send(remote::Command::Run(false));
        self.send(remote::Command::Replace {
            config: config.clone(),
            generation,
        });
        Ok(())
    }

    pub fn progress(&self) -> MutexGuard<'_, Progress> {
        lock(&self.shared)
    }

    pub fn running(&self) -> bool {
        lock(&self.shared).running
    }

    pub fn set_running(&mut self, on: bool) {
        if on && self.crashed() {
            // Nothing would train; the lab shows why, and Reset starts a new worker.
            return;
        }
        lock(&self.shared).running = on;
        self.send(remote::Command::Run(on));
    }

    /// Pause and take exactly one optimisation step.
    pub fn step_once(&mut self) {
        self.set_running(false);
        match &mut self.engine {
            Engine::Inline(r) => {
                r.slice(Until::OneStep, &self.shared);
            }
            Engine::Remote(side) => side.send(remote::Command::Step),
        }
    }

    /// Share of the time spent training, in (0, 1]: what the lab asked for, within
    /// `max_speed`.
    pub fn speed(&self) -> f32 {
        self.speed
    }

    /// The most `speed` can be: less inside the browser's frames, which also draw the page.
    pub fn max_speed(&self) -> f32 {
        match self.engine {
            Engine::Inline(_) => MAX_SPEED_IN_FRAMES,
            Engine::Remote(_) => 1.0,
        }
    }

    pub fn set_speed(&mut self, speed: f32) {
        self.speed = speed.clamp(0.01, self.max_speed());
        self.send(remote::Command::Speed(self.speed));
    }

    /// Called once per frame: an inline run trains its slice here; another thread's updates
    /// are folded in, and `ctx` is asked for a frame when the next one arrives.
    pub fn frame(&mut self, ctx: Option<&egui::Context>) {
        match &mut self.engine {
            Engine::Inline(r) => {
                if lock(&self.shared).running {
                    r.slice(Until::Spent(self.speed * PERIOD_MS), &self.shared);
                }
            }
            Engine::Remote(side) => side.receive(&self.shared, ctx),
        }
    }
}

#[cfg(test)]
mod tests;
