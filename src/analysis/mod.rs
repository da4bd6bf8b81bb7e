//! What attention does, beyond where it looks: the logit lens (what each layer would predict),
//! direct logit attribution (who wrote the answer), activation patching (what restores it) and
//! attention rollout (where information flowed). Headless, on any model the forward pass runs;
//! the CLI and the Influence lab read the same results.
//!
//! The residual stream of a stack with L blocks: `resid[0]` is the input of block 0 (after the
//! embedding LayerNorm where the family has one), `resid[l]` the output of block l−1, and
//! `resid[L]` the last block's output before the final norm. All four tools work on the stack
//! that feeds the output layer (the decoder where there is one).

pub mod ablation;
pub mod attribution;
mod batched;
pub mod compare;
pub mod lens;
pub mod patching;
pub mod position_probe;
pub mod rollout;

use crate::model::trace::StackTrace;
use crate::model::{Model, ModelError, Trace};
use ndarray::Array2;

/// Why an analysis cannot run, in words a student can act on.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error("“{text}” is not one token of {model}: it splits into {pieces}; pick a single token")]
    NotOneToken {
        text: String,
        model: String,
        pieces: String,
    },
    #[error(
        "the clean and corrupted texts must have the same number of tokens: clean {clean_len} \
         [{clean}], corrupted {corrupt_len} [{corrupt}]"
    )]
    Lengths {
        clean: String,
        clean_len: usize,
        corrupt: String,
        corrupt_len: usize,
    },
    #[error("{0}")]
    Undefined(String),
    #[error(transparent)]
    Model(#[from] ModelError),
}

pub type Result<T> = std::result::Result<T, AnalysisError>;

/// The id of `text` when it is exactly one token of the model's tokenizer.
pub fn single_token(model: &Model, text: &str) -> Result<u32> {
    let ids = model.tokenizer.encode(text).ids;
    match ids.as_slice() {
        [id] => Ok(*id),
        _ => Err(AnalysisError::NotOneToken {
            text: text.to_string(),
            model: model.config.name.clone(),
            pieces: quoted(&model.tokenizer.tokens(&ids)),
        }),
    }
}

/// `“a” “b” “c”` (or `nothing` for no tokens).
pub fn quoted(tokens: &[String]) -> String {
    if tokens.is_empty() {
        return "nothing".to_string();
    }
    tokens
        .iter()
        .map(|t| format!("“{t}”"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The stack whose output the model's output layer reads (the decoder where there is one).
pub fn read_stack(trace: &Trace) -> Option<&StackTrace> {
    trace.decoder.as_ref().or(trace.encoder.as_ref())
}

/// `resid[0..=L]` of a traced stack: each block's input, then the last block's output (before
/// the final norm). Needs the blocks kept in the trace.
pub fn residual_stream(stack: &StackTrace) -> Vec<&Array2<f32>> {
    let mut resid: Vec<&Array2<f32>> = stack.blocks.iter().map(|b| &b.input).collect();
    match stack.blocks.last() {
        Some(b) => resid.push(b.output()),
        None => resid.push(&stack.embed),
    }
    resid
}

/// An error unless the model has an output layer (a sentence encoder such as MiniLM has none).
pub fn needs_output_layer(model: &Model, tool: &str) -> Result<()> {
    match model.has_output_layer() {
        true => Ok(()),
        false => Err(AnalysisError::Undefined(format!(
            "{} has no output layer (it is a sentence encoder), so {tool} has no tokens to \
             score; try a model that predicts tokens",
            model.config.name
        ))),
    }
}

#[cfg(test)]
mod tests;
