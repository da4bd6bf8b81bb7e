//! GPT-2 onto the block template.

use super::{
    activation, attention, base_config, conv1d, decoder_weights, ffn, norm, output_matrix,
    unsupported, Mapped, Result,
};
use crate::model::config::{Family, NormPlacement, Positional};
use crate::model::import::hf_config::Gpt2Config;
use crate::model::import::tensors::TensorSet;
use crate::model::weights::{BlockWeights, Projection};

/// GPT-2 (`GPT2Model`, `GPT2LMHeadModel`): pre-norm decoder, learned positions, fused QKV
/// in Conv1D layout, tanh GELU, output tied to the token embeddings unless `lm_head` is there.
pub fn gpt2(c: &Gpt2Config, t: &mut TensorSet, name: &str) -> Result<Mapped> {
    if !c.scale_attn_weights || c.scale_attn_by_inverse_layer_idx {
        return Err(unsupported(
            "GPT-2 without 1/√d_head scaling, or with scale_attn_by_inverse_layer_idx, is not \
             supported: Glimpse scales every layer by 1/√d_head",
        ));
    }
    let mut notes = Vec::new();
    let (d, h, i) = (c.n_embd, c.n_head, c.n_inner);
    let mut config = base_config(
        name,
        format!("GPT-2 decoder, {} layers, {h} heads, d={d}", c.n_layer),
        Family::Decoder,
        (d, h, h, c.n_layer, i),
        c.n_positions,
        activation(c.activation_function),
        NormPlacement::Pre,
        c.layer_norm_epsilon,
        Positional::Learned,
        true,
        c.vocab_size,
        &mut notes,
    );
    let tok_embed = t.take_table("wte.weight", c.vocab_size, d)?;
    let wpe = t.take_matrix("wpe.weight", c.n_positions, d)?;
    let pos_embed = wpe.slice(ndarray::s![..config.max_len, ..]).to_owned();
    let mut blocks = Vec::with_capacity(c.n_layer);
    for l in 0..c.n_layer {
        let b = format!("h.{l}");
        let (w_qkv, b_qkv) = conv1d(t, &format!("{b}.attn.c_attn"), d, 3 * d)?;
        let o = conv1d(t, &format!("{b}.attn.c_proj"), d, d)?;
        let up = conv1d(t, &format!("{b}.mlp.c_fc"), d, i)?;
        let down = conv1d(t, &format!("{b}.mlp.c_proj"), i, d)?;
        blocks.push(BlockWeights {
            ln_attn: norm(t, &format!("{b}.ln_1"), d, true)?,
            self_attn: attention(Projection::Fused { w_qkv, b_qkv }, o),
            cross: None,
            ln_ffn: norm(t, &format!("{b}.ln_2"), d, true)?,
            ffn: ffn(up, down),
        });
    }
    let ln_f = norm(t, "ln_f", d, true)?;
    let lm_head = output_matrix(t, "lm_head.weight", c.tie_word_embeddings, c.vocab_size, d)?;
    config.tie_embeddings = lm_head.is_none();
    let weights = decoder_weights(tok_embed, Some(pos_embed), blocks, ln_f, lm_head);
    Ok(Mapped {
        config,
        weights,
        notes,
    })
}
