//! The shared input's forward pass spread over frames. A browser tab draws and computes on
//! one thread, and a 30-block model takes longer than a frame, so the pass runs a slice of
//! blocks per frame (`model::sliced`) while the page keeps drawing (the progress line that
//! says how far it is, with Cancel, is `pass_answer::progress_line`). Also the frame's budget
//! the store and the labs slice their own passes by.

use crate::app::models::pass_job::PassJob;
use crate::model::{ForwardOptions, Model, PreparedInput, Trace};
use std::sync::Arc;
use web_time::{Duration, Instant};

/// How long a frame may compute in the browser before it draws: a 60 Hz frame is 16.7 ms, and
/// the drawing needs the rest.
#[cfg(target_arch = "wasm32")]
pub const FRAME_BUDGET: Option<Duration> = Some(Duration::from_millis(10));
/// Natively the pass runs in one go: with every core it takes a frame or two even on the real
/// models (tests set a budget to run the browser's way).
#[cfg(not(target_arch = "wasm32"))]
pub const FRAME_BUDGET: Option<Duration> = None;

/// Units of work until `budget` is spent (at least one) or `unit` says none is left: the labs
/// that compute a pass or a token at a time spend a frame's share this way.
pub fn within(budget: Duration, mut unit: impl FnMut() -> bool) {
    let start = Instant::now();
    while unit() && start.elapsed() < budget {}
}

/// A pass under way, for input `K` (what it was started from).
pub struct Running<K> {
    pub key: K,
    pub prepared: PreparedInput,
    job: PassJob,
    /// Frames it has had so far.
    pub frames: usize,
}

impl<K> Running<K> {
    /// Settles the input (its errors come back at once, with no pass started).
    pub fn start(
        key: K,
        model: Arc<Model>,
        prepared: PreparedInput,
        opts: ForwardOptions,
    ) -> crate::model::Result<Self> {
        let job = PassJob::new(model, &prepared.input, &opts)?;
        Ok(Self {
            key,
            prepared,
            job,
            frames: 0,
        })
    }

    /// This frame's share: blocks until `budget` is spent or the pass is done. `None` while
    /// it runs on; then the whole pass and the milliseconds spent computing it.
    pub fn advance(&mut self, budget: Duration) -> Option<(crate::model::Result<Trace>, f64)> {
        let result = self.job.run_for(budget);
        self.frames += 1;
        let ms = self.job.computing().as_secs_f64() * 1e3;
        match result {
            Ok(None) => None,
            Ok(Some(trace)) => Some((Ok(trace), ms)),
            Err(e) => Some((Err(e), ms)),
        }
    }

    /// The model and options the pass runs with.
    pub fn model(&self) -> (&Arc<Model>, &ForwardOptions) {
        (self.job.model(), self.job.opts())
    }

    /// Steps done and steps in all (blocks, then bands of the output layer).
    pub fn progress(&self) -> (usize, usize) {
        (self.job.steps_done(), self.job.steps())
    }
}
