//! One file per lab.

pub mod training;
pub mod training_run;
