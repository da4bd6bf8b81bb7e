//! Training: the loss, the backward pass through every operation of the model, and (to come)
//! the optimizer, schedules, tasks and a step-able trainer.

pub mod backward;
pub mod loss;
pub mod optim;
pub mod tasks;
pub mod trainer;

pub use backward::{example_gradients, Example};
