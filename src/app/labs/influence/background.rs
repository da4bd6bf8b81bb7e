//! Long analyses (a patching sweep, every head's ablation) run a step at a time off the
//! drawing: natively on a thread of their own; in the browser, where the page has one thread
//! until the worker of issue 36, as a task that gives the thread back to the browser after
//! every step. Either way the view reads a snapshot of the results so far, which fills in as
//! they arrive, and can cancel.

use crate::analysis::{ablation::Ablation, patching::Patching, patching::Sweep};
use crate::model::Model;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// An analysis that advances a step at a time, with what a view shows of it.
pub trait Steps: Send + 'static {
    type Snapshot: Clone + Send + 'static;
    /// Runs the next step; false once done.
    fn step(&mut self, model: &Model) -> Result<bool, String>;
    fn progress(&self) -> (usize, usize);
    fn snapshot(&self) -> Self::Snapshot;
}

impl Steps for Sweep {
    type Snapshot = Patching;
    fn step(&mut self, model: &Model) -> Result<bool, String> {
        Sweep::step(self, model).map_err(|e| e.to_string())
    }
    fn progress(&self) -> (usize, usize) {
        Sweep::progress(self)
    }
    fn snapshot(&self) -> Patching {
        self.result.clone()
    }
}

/// Every head's ablation effect so far, `[block][head]`, and the unablated logit difference.
#[derive(Debug, Clone)]
pub struct Effects {
    pub ld: f64,
    pub effects: Vec<Vec<f64>>,
}

impl Steps for Ablation {
    type Snapshot = Effects;
    fn step(&mut self, model: &Model) -> Result<bool, String> {
        Ablation::step(self, model).map_err(|e| e.to_string())
    }
    fn progress(&self) -> (usize, usize) {
        Ablation::progress(self)
    }
    fn snapshot(&self) -> Effects {
        Effects {
            ld: self.ld,
            effects: self.effects.clone(),
        }
    }
}

/// Where a job stands, as a view draws it.
#[derive(Debug, Clone)]
pub struct Status<S> {
    pub snapshot: S,
    pub progress: (usize, usize),
    pub error: Option<String>,
    pub done: bool,
    /// Seconds from the start to the last step.
    pub seconds: f64,
    /// Seconds of the longest step so far: in the browser, the longest the job held the page.
    pub longest_step: f64,
}

/// A job under way; dropping it asks it to stop after its step.
pub struct Job<T: Steps> {
    status: Arc<Mutex<Status<T::Snapshot>>>,
    stop: Arc<AtomicBool>,
}

impl<T: Steps> Job<T> {
    /// Starts `job`: natively on a thread of its own; in the browser as a task on the page's
    /// thread that yields to the browser after every step (a step is at most half a block of
    /// the model over one unit of rows), so the page draws and answers meanwhile and the job does
    /// not wait for frames.
    pub fn start(job: T, model: Arc<Model>, ctx: egui::Context) -> Self {
        let status = Arc::new(Mutex::new(Status {
            snapshot: job.snapshot(),
            progress: job.progress(),
            error: None,
            done: false,
            seconds: 0.0,
            longest_step: 0.0,
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let runner = Runner {
            job,
            model,
            status: status.clone(),
            stop: stop.clone(),
            ctx,
            start: web_time::Instant::now(),
        };
        #[cfg(not(target_arch = "wasm32"))]
        std::thread::spawn(move || {
            let mut runner = runner;
            while runner.step() {}
        });
        #[cfg(target_arch = "wasm32")]
        wasm_bindgen_futures::spawn_local(async move {
            let mut runner = runner;
            while runner.step() {
                crate::app::worker::yield_to_browser().await;
            }
        });
        Self { status, stop }
    }

    /// What the job has done so far.
    pub fn status(&self) -> Option<Status<T::Snapshot>> {
        self.status.lock().ok().map(|s| s.clone())
    }
}

impl<T: Steps> Drop for Job<T> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The job's side: runs it a step at a time and publishes where it stands.
struct Runner<T: Steps> {
    job: T,
    model: Arc<Model>,
    status: Arc<Mutex<Status<T::Snapshot>>>,
    stop: Arc<AtomicBool>,
    ctx: egui::Context,
    start: web_time::Instant,
}

impl<T: Steps> Runner<T> {
    /// One step and its news; false once the job is done, failed or no longer wanted.
    fn step(&mut self) -> bool {
        if self.stop.load(Ordering::Relaxed) {
            return false;
        }
        let began = web_time::Instant::now();
        let step = self.job.step(&self.model);
        let took = began.elapsed().as_secs_f64();
        let Ok(mut s) = self.status.lock() else {
            return false;
        };
        s.longest_step = s.longest_step.max(took);
        s.snapshot = self.job.snapshot();
        s.progress = self.job.progress();
        s.seconds = self.start.elapsed().as_secs_f64();
        match step {
            Ok(true) => {}
            Ok(false) => s.done = true,
            Err(e) => s.error = Some(e),
        }
        let finished = s.done || s.error.is_some();
        drop(s);
        self.ctx.request_repaint();
        !finished
    }
}

/// Takes the job's news into `status`; a job that finished or failed is dropped (its last
/// status stays).
pub fn poll<T: Steps>(job: &mut Option<Job<T>>, status: &mut Option<Status<T::Snapshot>>) {
    if let Some(s) = job.as_ref().and_then(Job::status) {
        if s.done || s.error.is_some() {
            *job = None;
        }
        *status = Some(s);
    }
}
