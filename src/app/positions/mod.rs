//! The positional-encoding lab: every scheme's mathematics, drawn with the functions the
//! model runs (`model::position`), beside the attention of a trained model that uses it.

pub mod naive;
pub mod rope;
pub mod sinusoidal;
