//! Glimpse's numerical inner loops: the matrix product of every linear layer ([`matmul`]),
//! the softmax and activation rows ([`rows`]) and the branch-free `exp` and `erfc` they use
//! ([`approx`]), and the product read straight from quantized blocks ([`blocks`]).
//!
//! They live in their own crate so that the browser build, which optimises Glimpse for size
//! (`opt-level = "s"`, under which the compiler does not vectorise loops that need a scalar
//! remainder), still compiles them at `opt-level = 3`: in Chromium the activations and the
//! softmax had been a fifth of a BERT forward pass, running one number at a time.

pub mod approx;
pub mod blocks;
pub mod matmul;
pub mod rows;
mod wide;

pub use matmul::{x_wt, x_wt_expanded, Matrix};
