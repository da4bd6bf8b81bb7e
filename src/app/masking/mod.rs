//! The masking lab: causal, padding, prefix-LM and custom masks switched live on the real
//! models, padding in a batch, the three families side by side, and teacher forcing.

pub mod families;
pub mod teacher;
