//! A checkpoint's conversion (`model::import::Conversion`) run where it keeps the page drawing:
//! in the threaded browser build whole on the engine worker, while the page's thread reads its
//! stage for the progress bar; elsewhere a few pieces a frame on the page's thread. The
//! `tokenizers` crate's build is one call of 60–300 ms in a browser: only the engine can take it
//! off the page.

use crate::model::import::open::CheckpointInfo;
use crate::model::import::{CheckpointFiles, Conversion, Stage};
use crate::model::{Model, Result};

pub struct ConversionJob {
    how: How,
}

enum How {
    Here(Conversion),
    #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
    Away(crate::app::threads::AwayJob<Stage, Result<(Model, CheckpointInfo)>>),
}

impl ConversionJob {
    /// Nothing is done until the first `step` here; away it starts at once.
    pub fn new(files: CheckpointFiles, name: &str, source: &str) -> Self {
        let conversion = Conversion::new(files, name, source);
        #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
        if crate::app::threads::engine_ready() {
            let first = conversion.stage();
            let mut conversion = conversion;
            let job = crate::app::threads::AwayJob::start(first, move |report| loop {
                if report.stopped() {
                    return None;
                }
                if let Some(done) = conversion.step() {
                    return Some(done);
                }
                report.progress(conversion.stage());
            });
            return Self {
                how: How::Away(job),
            };
        }
        Self {
            how: How::Here(conversion),
        }
    }

    /// Where it stands.
    pub fn stage(&self) -> Stage {
        match &self.how {
            How::Here(c) => c.stage(),
            #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
            How::Away(job) => job.progress(),
        }
    }

    /// Here, one piece of the work; away, a look at whether it is done. The model (or why it
    /// cannot be opened) once it is.
    pub fn step(&mut self) -> Option<Result<(Model, CheckpointInfo)>> {
        match &mut self.how {
            How::Here(c) => c.step(),
            #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
            How::Away(job) => job
                .answer()
                .map(|a| a.unwrap_or_else(|crash| Err(crate::model::ModelError::Import(crash)))),
        }
    }

    /// Whether it runs off the page's thread (one look a frame is enough then).
    pub fn is_away(&self) -> bool {
        !matches!(self.how, How::Here(_))
    }
}
