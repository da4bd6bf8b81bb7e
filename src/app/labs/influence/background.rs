//! Long analyses (a patching sweep, every head's ablation) run a step at a time off the
//! drawing: natively on a thread of their own, in the browser a few steps a frame (the page
//! has one thread until the worker of issue 36). Either way the view reads a snapshot of the
//! results so far, which fills in as they arrive, and can cancel.

use crate::analysis::{ablation::Ablation, patching::Patching, patching::Sweep};
use crate::model::Model;
use std::sync::Arc;

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
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Mutex;

    /// A job on its own thread; dropping it asks the thread to stop after its step.
    pub struct Job<T: Steps> {
        status: Arc<Mutex<Status<T::Snapshot>>>,
        stop: Arc<AtomicBool>,
    }

    impl<T: Steps> Job<T> {
        pub fn start(mut job: T, model: Arc<Model>, ctx: egui::Context) -> Self {
            let status = Arc::new(Mutex::new(Status {
                snapshot: job.snapshot(),
                progress: job.progress(),
                error: None,
                done: false,
                seconds: 0.0,
            }));
            let stop = Arc::new(AtomicBool::new(false));
            let (shared, stopped) = (status.clone(), stop.clone());
            std::thread::spawn(move || {
                let start = web_time::Instant::now();
                loop {
                    if stopped.load(Ordering::Relaxed) {
                        return;
                    }
                    let step = job.step(&model);
                    let Ok(mut s) = shared.lock() else {
                        return;
                    };
                    s.snapshot = job.snapshot();
                    s.progress = job.progress();
                    s.seconds = start.elapsed().as_secs_f64();
                    match step {
                        Ok(true) => {}
                        Ok(false) => s.done = true,
                        Err(e) => s.error = Some(e),
                    }
                    let finished = s.done || s.error.is_some();
                    drop(s);
                    ctx.request_repaint();
                    if finished {
                        return;
                    }
                }
            });
            Self { status, stop }
        }

        /// What the thread has done so far (nothing new while a frame lags behind it).
        pub fn status(&mut self) -> Option<Status<T::Snapshot>> {
            self.status.lock().ok().map(|s| s.clone())
        }
    }

    impl<T: Steps> Drop for Job<T> {
        fn drop(&mut self) {
            self.stop.store(true, Ordering::Relaxed);
        }
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::*;

    /// A job run on the page's thread a step or more a frame, within the frame's budget.
    pub struct Job<T: Steps> {
        job: T,
        model: Arc<Model>,
        status: Status<T::Snapshot>,
        start: web_time::Instant,
        ctx: egui::Context,
    }

    impl<T: Steps> Job<T> {
        pub fn start(job: T, model: Arc<Model>, ctx: egui::Context) -> Self {
            let status = Status {
                snapshot: job.snapshot(),
                progress: job.progress(),
                error: None,
                done: false,
                seconds: 0.0,
            };
            Self {
                job,
                model,
                status,
                start: web_time::Instant::now(),
                ctx,
            }
        }

        /// This frame's steps, then where the job stands.
        pub fn status(&mut self) -> Option<Status<T::Snapshot>> {
            let s = &mut self.status;
            if !s.done && s.error.is_none() {
                let budget = crate::app::models::running::FRAME_BUDGET
                    .unwrap_or(web_time::Duration::from_millis(10));
                crate::app::models::running::within(budget, || match self.job.step(&self.model) {
                    Ok(true) => true,
                    Ok(false) => {
                        s.done = true;
                        false
                    }
                    Err(e) => {
                        s.error = Some(e);
                        false
                    }
                });
                s.snapshot = self.job.snapshot();
                s.progress = self.job.progress();
                s.seconds = self.start.elapsed().as_secs_f64();
                self.ctx.request_repaint();
            }
            Some(s.clone())
        }
    }
}

pub use imp::Job;

/// Takes the job's news into `status`; a job that finished or failed is dropped (its last
/// status stays).
pub fn poll<T: Steps>(job: &mut Option<Job<T>>, status: &mut Option<Status<T::Snapshot>>) {
    if let Some(s) = job.as_mut().and_then(Job::status) {
        if s.done || s.error.is_some() {
            *job = None;
        }
        *status = Some(s);
    }
}
