//! The transformer: pure computation over ndarray. Knows nothing of the UI.

pub mod analysis;
/// `exp` and `erfc` without branches, from `glimpse-kernels` (the forward pass's row loops).
pub use glimpse_kernels::approx;
pub mod attention;
pub mod bench;
pub mod builtin;
pub mod checkpoint;
pub mod config;
pub mod dropout;
pub mod error;
pub mod heads;
pub mod import;
pub mod induction;
pub mod layers;
pub mod mlm;
pub mod parallel;
pub mod position;
pub mod sliced;
pub mod softmax;
pub mod subword;
pub mod tokenizer;
pub mod trace;
pub mod transformer;
pub mod vocabulary;
pub mod weight_matrix;
pub mod weights;
pub mod words;

pub use attention::MaskChoice;
pub use config::{Activation, Family, ModelConfig, NormPlacement, Positional, Scoring};
pub use dropout::Dropout;
pub use error::{ModelError, Result};
pub use trace::{AttentionKind, Trace};
pub use transformer::{ForwardOptions, HeadId, Intervention, Model, ModelInput, PreparedInput};
