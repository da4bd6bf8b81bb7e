//! Decoding: where next-token probabilities come from (a model, with or without its key/value
//! cache, or a table a teacher types), beam search recorded as a tree, and sampling.

pub mod beam;
pub mod sample;
pub mod source;
pub mod table;

pub use beam::{BeamConfig, BeamSearch, Node, NodeState};
pub use sample::{sample, SampleConfig, SampleStep, Sampler};
pub use source::{ModelSource, Pass, Passed, Source};
pub use table::TableSource;
