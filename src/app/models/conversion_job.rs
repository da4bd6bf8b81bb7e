//! A checkpoint's conversion (`model::import::Conversion`) as steps (`app::stepped`): in the
//! threaded browser build whole on the engine worker, while the page's thread reads its stage
//! for the progress bar; elsewhere a few pieces a frame on the page's thread. The `tokenizers`
//! crate's build is one call of 60–300 ms in a browser: only the engine can take it off the
//! page. A trained built-in is built from its fetched files the same way, in one step.

use crate::app::stepped::{Stepped, Steps};
use crate::model::builtin::{self, TrainedFiles};
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
/// done, a crashed worker's reason as an import error. For conversions and built-ins alike.
pub fn poll<T, S: Steps<Output = Result<T>>>(job: &mut Stepped<S>) -> Option<Result<T>> {
    job.poll()
        .map(|answer| answer.unwrap_or_else(|crash| Err(ModelError::Import(crash))))
}

/// A trained built-in made from its fetched files (5-50 ms each in a browser, a dozen
/// arriving together at the start).
pub struct BuiltinLoad {
    name: String,
    files: Option<TrainedFiles>,
}

impl Steps for BuiltinLoad {
    type Output = Result<Model>;
    type Progress = ();

    fn step(&mut self) -> Option<Self::Output> {
        Some(match self.files.take() {
            Some(files) => builtin::load_files(&files),
            None => builtin::load(&self.name),
        })
    }

    fn progress(&self) {}
}

/// Starts building the built-in `name` from the files fetched for it. The files are taken on
/// this thread: the engine never touches the page's store of fetched files.
pub fn load_builtin(name: &str) -> Stepped<BuiltinLoad> {
    Stepped::new(BuiltinLoad {
        name: name.to_string(),
        files: builtin::trained_files(name),
    })
}
