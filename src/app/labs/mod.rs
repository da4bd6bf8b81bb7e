//! One file per lab.

pub mod training;
