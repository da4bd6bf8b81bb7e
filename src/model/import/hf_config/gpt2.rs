//! GPT-2's config.json: `n_*` keys or their `hidden_size`-style aliases.

use super::keys::{heads_divide, Keys};
use super::{bad, caps, Activation, SpecialTokens};
use crate::model::import::error::Result;

#[derive(Debug, Clone, PartialEq)]
pub struct Gpt2Config {
    pub vocab_size: usize,
    pub n_positions: usize,
    pub n_embd: usize,
    pub n_layer: usize,
    pub n_head: usize,
    pub head_dim: usize,
    /// `n_inner`, 4·n_embd when null.
    pub n_inner: usize,
    pub activation_function: Activation,
    pub layer_norm_epsilon: f32,
    /// Divide scores by √head_dim.
    pub scale_attn_weights: bool,
    /// Also divide layer i's scores by i + 1.
    pub scale_attn_by_inverse_layer_idx: bool,
    /// Changes only rounding (upcasts to f32, which Glimpse always uses).
    pub reorder_and_upcast_attn: bool,
    pub tie_word_embeddings: bool,
    pub special: SpecialTokens,
    pub architectures: Vec<String>,
}

pub(super) fn gpt2(c: &Keys) -> Result<Gpt2Config> {
    let vocab_size = c.size("vocab_size", 50257, caps::VOCAB)?;
    let n_embd = c.size_alias(&["n_embd", "hidden_size"], 768, caps::HIDDEN)?;
    let n_head = c.size_alias(&["n_head", "num_attention_heads"], 12, caps::HEADS)?;
    let head_dim = heads_divide(n_embd, n_head, "n_embd", "n_head")?;
    let n_inner = match c.get("n_inner") {
        None => n_embd
            .checked_mul(4)
            .filter(|&i| i <= caps::INTERMEDIATE)
            .ok_or_else(|| bad("4 × n_embd is too large".into()))?,
        Some(_) => c.size("n_inner", 0, caps::INTERMEDIATE)?,
    };
    if c.boolean("add_cross_attention", false)? {
        return Err(bad(
            "GPT-2 with cross-attention (add_cross_attention) is not supported".into(),
        ));
    }
    Ok(Gpt2Config {
        vocab_size,
        n_positions: c.size_alias(
            &["n_positions", "max_position_embeddings"],
            1024,
            caps::POSITIONS,
        )?,
        n_embd,
        n_layer: c.size_alias(&["n_layer", "num_hidden_layers"], 12, caps::LAYERS)?,
        n_head,
        head_dim,
        n_inner,
        activation_function: c.activation("activation_function", "gelu_new")?,
        layer_norm_epsilon: c.eps("layer_norm_epsilon", 1e-5)?,
        scale_attn_weights: c.boolean("scale_attn_weights", true)?,
        scale_attn_by_inverse_layer_idx: c.boolean("scale_attn_by_inverse_layer_idx", false)?,
        reorder_and_upcast_attn: c.boolean("reorder_and_upcast_attn", false)?,
        tie_word_embeddings: c.boolean("tie_word_embeddings", true)?,
        special: SpecialTokens {
            bos: c.token("bos_token_id", Some(50256))?,
            eos: c.tokens("eos_token_id", Some(50256))?,
            pad: c.token("pad_token_id", None)?,
            unk: c.token("unk_token_id", None)?,
            ..SpecialTokens::default()
        },
        architectures: c.string_list("architectures"),
    })
}
