//! A checkpoint's conversion (`model::import::Conversion`) as steps (`app::stepped`): in the
//! threaded browser build whole on the engine worker, while the page's thread reads its stage
//! for the progress bar; elsewhere a few pieces a frame on the page's thread. The `tokenizers`
//! crate's build is one call of 60–300 ms in a browser: only the engine can take it off the
//! page.

use crate::app::stepped::{Stepped, Steps};
use crate::model::import::open::CheckpointInfo;
use crate::model::import::{CheckpointFiles, Conversion, Stage};
use crate::model::{Model, ModelError, Result};

pub type ConversionJob = Stepped<Conversion>;

impl Steps for Conversion {
    type Output = Result<(Model, CheckpointInfo)>;
    type Progress = Stage;

    fn step(&mut self) -> Option<Self::Output> {
        Conversion::step(self)
    }

    fn progress(&self) -> Stage {
        self.stage()
    }
}

/// Starts converting `files`; away it starts at once, here nothing runs before the first poll.
pub fn start(files: CheckpointFiles, name: &str, source: &str) -> ConversionJob {
    Stepped::new(Conversion::new(files, name, source))
}

/// One piece of the work here, a look away: the model (or why it cannot be opened) once it is
/// done, a crashed worker's reason as an import error.
pub fn poll(job: &mut ConversionJob) -> Option<Result<(Model, CheckpointInfo)>> {
    job.poll()
        .map(|answer| answer.unwrap_or_else(|crash| Err(ModelError::Import(crash))))
}
