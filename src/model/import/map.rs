//! Architectures mapped onto Glimpse's one block template: each function below reads a
//! checkpoint's tensors by their own names and fills the same `Weights` the textbook model
//! uses. No second transformer: BERT, GPT-2 and Llama are settings of `ModelConfig` plus a
//! renaming of tensors.
//!
//! | | BERT | GPT-2 | Llama (HF) | Llama (GGUF) |
//! |---|---|---|---|---|
//! | family | encoder | decoder | decoder | decoder |
//! | positions | learned + token types | learned | RoPE, rotate-half | RoPE, interleaved |
//! | norm | post, LayerNorm, + on embeddings | pre, LayerNorm | pre, RMSNorm | pre, RMSNorm |
//! | FFN | GELU | tanh GELU | SwiGLU | SwiGLU |
//! | Q, K, V | three Linear | one Conv1D (in × out) | three Linear, GQA | same |
//!
//! GGUF stores Llama's query and key rows in Meta's interleaved order (llama.cpp permutes
//! them), so a GGUF model turns adjacent pairs with RoPE while the Hugging Face weights turn
//! dimension p with p + d_head/2: the same attention either way.

//!
//! Each family is in its own module ([`bert`], [`gpt2`], [`llama`]); the pieces they share
//! (norms, linear layers, fused projections, the output matrix) are here.

mod bert;
mod gpt2;
mod llama;

pub use bert::bert;
pub use gpt2::gpt2;
pub use llama::{llama, LlamaMapping, LlamaNames, GGUF_LLAMA, HF_LLAMA};

use super::hf_config::Activation as HfActivation;
use super::hf_config::SpecialTokens;
use super::tensors::TensorSet;
use super::ImportError;
use crate::model::config::{
    Activation, Extensions, Family, ModelConfig, NormPlacement, Positional, Scoring, FORMAT_NAME,
    FORMAT_VERSION, MAX_LEN,
};
use crate::model::layers::{FfnWeights, LayerNormWeights};
use crate::model::tokenizer::{TokenizerKind, TokenizerSpec};
use crate::model::weight_matrix::stack_rows;
use crate::model::weights::{
    AttentionWeights, BlockWeights, Projection, ScoreWeights, StackWeights, WeightMatrix, Weights,
};
use ndarray::{concatenate, Array1, Array2, Axis};

pub(super) type Result<T> = std::result::Result<T, ImportError>;

/// A config and weights ready for `Model`, with what the mapping noticed.
pub struct Mapped {
    pub config: ModelConfig,
    pub weights: Weights,
    /// Facts a user should know (context capped, tensors ignored, …).
    pub notes: Vec<String>,
}

pub(super) fn activation(a: HfActivation) -> Activation {
    match a {
        HfActivation::Gelu => Activation::Gelu,
        HfActivation::GeluTanh => Activation::GeluTanh,
        HfActivation::Relu => Activation::Relu,
        HfActivation::Silu => Activation::Silu,
    }
}

/// A config with the textbook fields filled from a checkpoint's sizes.
#[allow(clippy::too_many_arguments)]
pub(super) fn base_config(
    name: &str,
    description: String,
    family: Family,
    (d_model, n_heads, n_kv_heads, n_layers, d_ff): (usize, usize, usize, usize, usize),
    max_positions: usize,
    activation: Activation,
    norm: NormPlacement,
    ln_eps: f32,
    positional: Positional,
    tie_embeddings: bool,
    vocab: usize,
    notes: &mut Vec<String>,
) -> ModelConfig {
    let max_len = if max_positions > MAX_LEN {
        notes.push(format!(
            "the checkpoint allows {max_positions} positions; Glimpse runs at most {MAX_LEN}"
        ));
        MAX_LEN
    } else {
        max_positions.max(1)
    };
    ModelConfig {
        format: FORMAT_NAME.into(),
        version: FORMAT_VERSION,
        name: name.into(),
        description,
        family,
        d_model,
        n_heads,
        n_kv_heads,
        n_layers,
        d_ff,
        max_len,
        activation,
        norm,
        ln_eps,
        positional,
        scoring: Scoring::ScaledDot,
        tie_embeddings,
        causal: true,
        // Placeholder pieces until the tokenizer is attached (`Model::from_checkpoint`).
        tokenizer: TokenizerSpec {
            kind: TokenizerKind::Subword,
            tokens: (0..vocab).map(|i| format!("<{i}>")).collect(),
        },
        extensions: Extensions::default(),
    }
}

pub(super) fn norm(
    t: &mut TensorSet,
    prefix: &str,
    d: usize,
    bias: bool,
) -> Result<LayerNormWeights> {
    Ok(LayerNormWeights {
        gamma: t.take_vector(&format!("{prefix}.weight"), d)?,
        beta: if bias {
            t.take_vector(&format!("{prefix}.bias"), d)?
        } else {
            Array1::zeros(d)
        },
    })
}

/// A `Linear`'s weight `[out, in]` (kept in its blocks when the file quantized it) and bias
/// (zeros when the layer has none).
pub(super) fn linear(
    t: &mut TensorSet,
    prefix: &str,
    out: usize,
    inp: usize,
    bias: Bias,
) -> Result<(WeightMatrix, Array1<f32>)> {
    let w = t.take_table(&format!("{prefix}.weight"), out, inp)?;
    let b_name = format!("{prefix}.bias");
    let b = match bias {
        Bias::Yes => t.take_vector(&b_name, out)?,
        Bias::No => Array1::zeros(out),
    };
    Ok((w, b))
}

#[derive(Clone, Copy)]
pub(super) enum Bias {
    Yes,
    No,
}

/// GPT-2's Conv1D: weight stored `[in, out]` (x·W), so it is transposed into `[out, in]`.
pub(super) fn conv1d(
    t: &mut TensorSet,
    prefix: &str,
    inp: usize,
    out: usize,
) -> Result<(WeightMatrix, Array1<f32>)> {
    let w = t.take_matrix(&format!("{prefix}.weight"), inp, out)?;
    let b = t.take_vector(&format!("{prefix}.bias"), out)?;
    Ok((WeightMatrix::F32(w.t().to_owned()), b))
}

/// Rows of Q, then K, then V: the fused projection the attention splits into heads (blocks
/// of one kind stay blocks).
pub(super) fn fuse(parts: [(WeightMatrix, Array1<f32>); 3]) -> Result<Projection> {
    let [(wq, bq), (wk, bk), (wv, bv)] = parts;
    let shape_err = |e: ndarray::ShapeError| ImportError::Usage(format!("fusing Q, K, V: {e}"));
    Ok(Projection::Fused {
        w_qkv: stack_rows(&[wq, wk, wv])?,
        b_qkv: concatenate(Axis(0), &[bq.view(), bk.view(), bv.view()]).map_err(shape_err)?,
    })
}

pub(super) fn attention(
    projection: Projection,
    (w_o, b_o): (WeightMatrix, Array1<f32>),
) -> AttentionWeights {
    AttentionWeights {
        projection,
        w_o,
        b_o,
        score: ScoreWeights::Dot,
        rel_bias: None,
    }
}

pub(super) fn ffn(
    up: (WeightMatrix, Array1<f32>),
    down: (WeightMatrix, Array1<f32>),
) -> FfnWeights {
    FfnWeights {
        w1: up.0,
        b1: up.1,
        w2: down.0,
        b2: down.1,
        gate: None,
    }
}

/// An untied output matrix, or `None` when the file has none or the config ties it to the
/// token embeddings (then any copy in the file is the same matrix).
pub(super) fn output_matrix(
    t: &mut TensorSet,
    name: &str,
    tied: bool,
    vocab: usize,
    d: usize,
) -> Result<Option<WeightMatrix>> {
    if !t.contains(name) {
        return Ok(None);
    }
    if tied {
        // Taken (and checked finite) so it is not reported as unused.
        t.take(name)?;
        return Ok(None);
    }
    Ok(Some(t.take_table(name, vocab, d)?))
}

/// A decoder-only model's weights: no encoder, no token types, an output without bias.
pub(super) fn decoder_weights(
    tok_embed: WeightMatrix,
    pos_embed: Option<Array2<f32>>,
    blocks: Vec<BlockWeights>,
    ln_f: LayerNormWeights,
    lm_head: Option<WeightMatrix>,
) -> Weights {
    let vocab = tok_embed.rows();
    Weights {
        tok_embed,
        pos_embed,
        type_embed: None,
        embed_norm: None,
        encoder: None,
        decoder: Some(StackWeights {
            blocks,
            ln_f: Some(ln_f),
        }),
        mlm: None,
        lm_head,
        lm_bias: Some(Array1::zeros(vocab)),
    }
}

pub(super) fn unsupported(reason: &str) -> ImportError {
    ImportError::Config {
        file: "config.json".into(),
        reason: reason.into(),
    }
}

/// A bias the config says is there must be there; otherwise the layer has none.
pub(super) fn bias_rule(present: bool) -> Bias {
    if present {
        Bias::Yes
    } else {
        Bias::No
    }
}

/// Special ids from config.json, for tokenizers that do not name them.
pub fn config_specials(s: &SpecialTokens) -> crate::model::subword::SpecialIds {
    crate::model::subword::SpecialIds {
        cls: s.cls,
        sep: s.sep,
        mask: s.mask,
        pad: s.pad,
        bos: s.bos,
        eos: s.eos.first().copied(),
        unk: s.unk,
    }
}
