//! The training run on another thread. The lab sends `Command`s; the other side builds the run
//! (its step-0 evaluation included) and answers each slice with an `Update`: the steps and
//! evaluations since the last one and the current weights (as floats beside the JSON,
//! transferred). Its loop trains `speed · PERIOD_MS`, rests the remainder of the period, and
//! answers commands between slices.
//!
//! `WorkerRun` and `apply` are plain Rust, the same on both sides of both carriers: natively a
//! thread and a channel (`thread`), in the browser a Web Worker and its JSON messages
//! (`PageSide`, `app::worker`). `Side` is the lab's end of whichever this build has.

use super::{fresh, lock, Progress, Runner, Until, PERIOD_MS};
use crate::train::trainer::{EvalStats, StepStats, TrainConfig};
use serde::{Deserialize, Serialize};
use std::sync::Mutex;

#[cfg(not(target_arch = "wasm32"))]
mod thread;
#[cfg(not(target_arch = "wasm32"))]
pub use thread::ThreadSide as Side;
#[cfg(target_arch = "wasm32")]
pub use PageSide as Side;

/// The job's name in worker messages.
pub const JOB: &str = "train";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Command {
    /// Start over from `config`'s initial weights, paused; updates then carry `generation`,
    /// the first one the step-0 evaluation and weights.
    Replace {
        config: TrainConfig,
        generation: u64,
    },
    Run(bool),
    Step,
    Speed(f32),
    /// The browser test's request to crash the worker (`glimpse_test_worker_panic`).
    Panic,
}

/// What one slice changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Update {
    pub generation: u64,
    pub steps: u64,
    /// Steps and evaluations since the previous update.
    pub history: Vec<StepStats>,
    pub evals: Vec<(u64, EvalStats)>,
    pub error: Option<String>,
    pub steps_per_sec: f32,
    pub tokens_per_sec: f32,
}

/// The worker's side: the run it trains and what the lab has already been sent.
pub struct WorkerRun {
    run: Option<(Box<Runner>, Mutex<Progress>)>,
    generation: u64,
    speed: f32,
    sent_history: usize,
    sent_evals: usize,
}

impl Default for WorkerRun {
    fn default() -> Self {
        Self {
            run: None,
            generation: 0,
            speed: 0.3,
            sent_history: 0,
            sent_evals: 0,
        }
    }
}

impl WorkerRun {
    /// Obey `command`; an update (and the weights, in `visit` order) when it changed the run.
    pub fn handle(&mut self, command: Command) -> Option<(Update, Vec<f32>)> {
        match command {
            Command::Replace { config, generation } => {
                self.generation = generation;
                match fresh(&config, generation) {
                    Ok((runner, progress)) => {
                        // The lab has only the config: the first update brings the step-0
                        // evaluation and weights.
                        (self.sent_history, self.sent_evals) = (0, 0);
                        self.run = Some((Box::new(runner), Mutex::new(progress)));
                        Some(self.update())
                    }
                    Err(e) => {
                        self.run = None;
                        Some((self.failed(e), Vec::new()))
                    }
                }
            }
            Command::Run(on) => {
                if let Some((_, progress)) = &self.run {
                    lock(progress).running = on;
                }
                None
            }
            Command::Speed(s) => {
                self.speed = s.clamp(0.01, 1.0);
                None
            }
            Command::Panic => panic!("a worker panic requested by the browser test"),
            Command::Step => {
                let (runner, progress) = self.run.as_mut()?;
                lock(progress).running = false;
                runner.slice(Until::OneStep, progress);
                Some(self.update())
            }
        }
    }

    pub fn running(&self) -> bool {
        self.run.as_ref().is_some_and(|(_, p)| lock(p).running)
    }

    /// Train one slice if running.
    pub fn tick(&mut self) -> Option<(Update, Vec<f32>)> {
        if !self.running() {
            return None;
        }
        let budget = self.speed * PERIOD_MS;
        let (runner, progress) = self.run.as_mut()?;
        runner.slice(Until::Spent(budget), progress);
        Some(self.update())
    }

    /// How long to rest after a slice, in milliseconds.
    pub fn rest_ms(&self) -> i32 {
        ((1.0 - self.speed).max(0.0) * PERIOD_MS) as i32
    }

    fn update(&mut self) -> (Update, Vec<f32>) {
        let Some((_, progress)) = &self.run else {
            return (self.failed(String::new()), Vec::new());
        };
        let p = lock(progress);
        let update = Update {
            generation: self.generation,
            steps: p.steps,
            history: p.history[self.sent_history.min(p.history.len())..].to_vec(),
            evals: p.evals[self.sent_evals.min(p.evals.len())..].to_vec(),
            error: p.error.clone(),
            steps_per_sec: p.steps_per_sec,
            tokens_per_sec: p.tokens_per_sec,
        };
        let mut floats = Vec::with_capacity(p.model.weights.len());
        p.model
            .weights
            .visit(&mut |_, view| floats.extend(view.iter().copied()));
        self.sent_history = p.history.len();
        self.sent_evals = p.evals.len();
        (update, floats)
    }

    fn failed(&self, error: String) -> Update {
        Update {
            generation: self.generation,
            error: Some(error),
            ..Update::default()
        }
    }
}

/// The lab's side: fold an update into its `Progress`. Updates from a run the lab has since
/// replaced are dropped, and so are weights of the wrong size.
pub fn apply(p: &mut Progress, update: Update, floats: &[f32]) {
    if update.generation != p.generation {
        return;
    }
    p.steps = update.steps;
    p.history.extend(update.history);
    p.evals.extend(update.evals);
    p.steps_per_sec = update.steps_per_sec;
    p.tokens_per_sec = update.tokens_per_sec;
    if let Some(e) = update.error {
        p.error = Some(e);
        p.running = false;
    }
    if floats.len() == p.model.weights.len() {
        let mut at = 0;
        p.model.weights.visit_mut(&mut |_, mut view| {
            for x in view.iter_mut() {
                *x = floats[at];
                at += 1;
            }
        });
    }
}

/// The page's end of the Web Worker (browser only).
#[cfg(target_arch = "wasm32")]
pub struct PageSide {
    worker: crate::app::worker::PageWorker,
    /// Asked for a frame when an update arrives; set by the lab each frame.
    wake: std::rc::Rc<std::cell::RefCell<Option<egui::Context>>>,
    /// The worker stopped; a reset starts a new one.
    crashed: std::cell::Cell<bool>,
}

#[cfg(target_arch = "wasm32")]
impl PageSide {
    /// A worker waiting for its first `Command::Replace`, or why there is none. Its updates
    /// are folded in by `receive`, each frame.
    pub fn spawn(_: &std::sync::Arc<Mutex<Progress>>) -> Result<Self, String> {
        let wake = std::rc::Rc::new(std::cell::RefCell::new(None::<egui::Context>));
        let waker = std::rc::Rc::clone(&wake);
        let worker = crate::app::worker::PageWorker::spawn(
            JOB,
            Box::new(move || {
                if let Some(ctx) = &*waker.borrow() {
                    ctx.request_repaint();
                }
            }),
        )?;
        Ok(Self {
            worker,
            wake,
            crashed: std::cell::Cell::new(false),
        })
    }

    pub fn crashed(&self) -> bool {
        self.crashed.get()
    }

    pub fn send(&self, command: Command) {
        match serde_json::to_string(&command) {
            Ok(json) => self.worker.post(&json),
            Err(e) => log::warn!("glimpse: training command not sent: {e}"),
        }
    }

    /// Fold in what arrived; a crashed worker's reason becomes the run's error.
    pub fn receive(&self, shared: &Mutex<Progress>, ctx: Option<&egui::Context>) {
        if let Some(ctx) = ctx {
            *self.wake.borrow_mut() = Some(ctx.clone());
        }
        if TEST_PANIC.take() {
            self.send(Command::Panic);
        }
        for incoming in self.worker.drain() {
            let mut p = lock(shared);
            match incoming {
                crate::app::worker::Incoming::Message { json, floats } => {
                    match serde_json::from_str::<Update>(&json) {
                        Ok(update) => apply(&mut p, update, &floats),
                        Err(e) => log::warn!("glimpse: unreadable training update: {e}"),
                    }
                }
                // The panic's own words come first; the browser's error event after them.
                crate::app::worker::Incoming::Crashed(_) if self.crashed.get() => {}
                crate::app::worker::Incoming::Crashed(reason) => {
                    self.crashed.set(true);
                    p.error = Some(crate::t!("training-worker-crashed", reason = reason));
                    p.running = false;
                }
            }
        }
    }
}

#[cfg(target_arch = "wasm32")]
thread_local! {
    static TEST_PANIC: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The next frame sends the worker `Command::Panic`.
#[cfg(target_arch = "wasm32")]
pub fn request_test_panic() {
    TEST_PANIC.set(true);
}

// ---- Inside the worker (browser only) ----

#[cfg(target_arch = "wasm32")]
thread_local! {
    static IN_WORKER: std::cell::RefCell<WorkerRun> = std::cell::RefCell::new(WorkerRun::default());
    /// A slice is already waiting on a timer.
    static SCHEDULED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A command from the page, in the worker.
#[cfg(target_arch = "wasm32")]
pub fn in_worker(json: &str) {
    let command = match serde_json::from_str::<Command>(json) {
        Ok(c) => c,
        Err(e) => {
            log::warn!("glimpse worker: unreadable training command: {e}");
            return;
        }
    };
    if let Some(reply) = IN_WORKER.with_borrow_mut(|run| run.handle(command)) {
        send(reply);
    }
    schedule(0);
}

#[cfg(target_arch = "wasm32")]
fn send((update, floats): (Update, Vec<f32>)) {
    match serde_json::to_string(&update) {
        Ok(json) => crate::app::worker::reply(JOB, &json, &floats),
        Err(e) => log::warn!("glimpse worker: training update not sent: {e}"),
    }
}

/// Train the next slice after `ms`, unless one is already due or the run is paused.
#[cfg(target_arch = "wasm32")]
fn schedule(ms: i32) {
    if SCHEDULED.get() || !IN_WORKER.with_borrow(WorkerRun::running) {
        return;
    }
    SCHEDULED.set(true);
    crate::app::worker::after(ms, || {
        SCHEDULED.set(false);
        let (reply, rest) = IN_WORKER.with_borrow_mut(|run| (run.tick(), run.rest_ms()));
        if let Some(reply) = reply {
            send(reply);
        }
        schedule(rest);
    });
}

#[cfg(test)]
mod tests;
