//! One file per lab.

pub mod scoring;
pub mod training;
pub mod training_run;
