//! Small helpers shared by every layer of the crate.

pub mod nested;
pub mod rng;
