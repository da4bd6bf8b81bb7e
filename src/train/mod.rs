//! Training: the loss, the backward pass through every operation of the model (each formula
//! beside its forward's), the optimizer and schedules, the tasks, and a step-able trainer.

pub mod backward;
pub mod loss;
pub mod optim;
pub mod tasks;
pub mod trainer;

pub use backward::{example_gradients, Example};
