//! A forward pass that takes longer than a frame, run where it keeps the page drawing: in the
//! threaded browser build whole on the engine worker, with the pool's threads
//! (`app::threads`), while the page's thread reads its progress; elsewhere a slice a frame on
//! the page's thread (`model::sliced`). The store and the shared input's pass see one
//! interface either way.

use crate::model::sliced::SlicedForward;
use crate::model::{ForwardOptions, Model, ModelInput, Result, Trace};
use std::sync::Arc;
use web_time::{Duration, Instant};

pub struct PassJob {
    model: Arc<Model>,
    opts: ForwardOptions,
    steps: usize,
    how: How,
    /// Time spent computing it: the slices' (here), or the engine's own clock (away).
    computing: Duration,
}

enum How {
    /// A slice a frame, on this thread.
    Here(Box<SlicedForward>),
    /// On the engine worker.
    #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
    Away(Away),
}

#[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
type Away = crate::app::threads::AwayJob<usize, (Result<Trace>, Duration)>;

impl PassJob {
    /// Settles the input (its errors come back at once, with no pass started) and starts.
    pub fn new(model: Arc<Model>, input: &ModelInput, opts: &ForwardOptions) -> Result<Self> {
        let job = SlicedForward::new(model.clone(), input, opts)?;
        let steps = job.steps();
        #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
        let how = if crate::app::threads::engine_ready() {
            How::Away(away(job, model.pass_size(input)))
        } else {
            How::Here(Box::new(job))
        };
        #[cfg(not(all(target_arch = "wasm32", target_feature = "atomics")))]
        let how = How::Here(Box::new(job));
        Ok(Self {
            model,
            opts: opts.clone(),
            steps,
            how,
            computing: Duration::ZERO,
        })
    }

    /// This frame's share: here, steps until `budget` is spent; away, a look at whether it is
    /// done. `None` while it runs on.
    pub fn run_for(&mut self, budget: Duration) -> Result<Option<Trace>> {
        match &mut self.how {
            How::Here(job) => {
                let t0 = Instant::now();
                let step = job.run_for(budget);
                self.computing += t0.elapsed();
                step
            }
            #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
            How::Away(job) => match job.answer() {
                None => Ok(None),
                Some(Ok((answer, took))) => {
                    self.computing = took;
                    answer.map(Some)
                }
                Some(Err(crash)) => Err(crate::model::ModelError::Input(crash)),
            },
        }
    }

    /// Time spent computing so far: on this thread, the slices' sum; away, the engine's own
    /// clock once it has answered (not the frames the page took to look: a small pass can
    /// even be done before the page's next look).
    pub fn computing(&self) -> Duration {
        self.computing
    }

    /// Steps done so far (blocks, then bands of the output layer).
    pub fn steps_done(&self) -> usize {
        match &self.how {
            How::Here(job) => job.steps_done(),
            #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
            How::Away(job) => job.progress(),
        }
    }

    /// Steps in all.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// The model it runs.
    pub fn model(&self) -> &Arc<Model> {
        &self.model
    }

    /// The options it runs with.
    pub fn opts(&self) -> &ForwardOptions {
        &self.opts
    }
}

/// Hands `job` to the engine: a step at a time (so a stop is seen within a block), all of them
/// inside the pool (`parallel::in_pool`: one hand-off per pass, not per product).
#[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
fn away(mut job: SlicedForward, size: usize) -> Away {
    Away::start(0, move |report| {
        let t0 = Instant::now();
        let answer = crate::model::parallel::in_pool(size, || loop {
            if report.stopped() {
                return None;
            }
            let step = job.run_for(Duration::ZERO);
            report.progress(job.steps_done());
            match step {
                Ok(None) => continue,
                done => return done.transpose(),
            }
        });
        answer.map(|a| (a, t0.elapsed()))
    })
}
