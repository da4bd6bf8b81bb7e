//! Training: the loss, the backward pass through every operation of the model (each formula
//! beside its forward's), the optimizer and schedules, the tasks, a step-able trainer and
//! what switching heads off costs a trained model (`ablation`);
//! language modelling on real text (`lm`) with its tokenizer trainer (`bpe`, native only).

pub mod ablation;
pub mod backward;
#[cfg(not(target_arch = "wasm32"))]
pub mod bpe;
pub mod compare;
pub mod depth;
pub mod evaluation;
pub mod exposure;
pub mod lm;
pub mod loss;
pub mod mlm;
pub mod optim;
pub mod rnn;
pub mod tasks;
pub mod trainer;
pub mod vision;

pub use backward::{example_gradients, Example};
