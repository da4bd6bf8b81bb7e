//! Training: the loss, the backward pass through every operation of the model (each formula
//! beside its forward's), the optimizer and schedules, the tasks, and a step-able trainer;
//! language modelling on real text (`lm`) with its tokenizer trainer (`bpe`, native only).

pub mod backward;
#[cfg(not(target_arch = "wasm32"))]
pub mod bpe;
pub mod lm;
pub mod loss;
pub mod optim;
pub mod tasks;
pub mod trainer;

pub use backward::{example_gradients, Example};
