//! BERT encoders' config.json (BertModel, BertForMaskedLM).

use super::keys::{heads_divide, Keys};
use super::{bad, caps, Activation, SpecialTokens};
use crate::model::import::error::Result;

#[derive(Debug, Clone, PartialEq)]
pub struct BertConfig {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    /// hidden_size / num_attention_heads.
    pub head_dim: usize,
    pub intermediate_size: usize,
    pub hidden_act: Activation,
    pub max_position_embeddings: usize,
    pub type_vocab_size: usize,
    pub layer_norm_eps: f32,
    /// MLM decoder tied to the word embeddings (the usual case).
    pub tie_word_embeddings: bool,
    pub special: SpecialTokens,
    /// e.g. `["BertForMaskedLM"]`: tells whether an MLM head is expected.
    pub architectures: Vec<String>,
}

pub(super) fn bert(c: &Keys) -> Result<BertConfig> {
    let vocab_size = c.size("vocab_size", 30522, caps::VOCAB)?;
    let hidden_size = c.size("hidden_size", 768, caps::HIDDEN)?;
    let num_attention_heads = c.size("num_attention_heads", 12, caps::HEADS)?;
    let head_dim = heads_divide(
        hidden_size,
        num_attention_heads,
        "hidden_size",
        "num_attention_heads",
    )?;
    let position = c.string("position_embedding_type", "absolute")?;
    if position != "absolute" {
        return Err(bad(format!(
            "`position_embedding_type` is \"{position}\"; Glimpse runs BERT with absolute positions only"
        )));
    }
    if c.boolean("is_decoder", false)? || c.boolean("add_cross_attention", false)? {
        return Err(bad(
            "BERT used as a decoder (is_decoder / add_cross_attention) is not supported".into(),
        ));
    }
    Ok(BertConfig {
        vocab_size,
        hidden_size,
        num_hidden_layers: c.size("num_hidden_layers", 12, caps::LAYERS)?,
        num_attention_heads,
        head_dim,
        intermediate_size: c.size("intermediate_size", 3072, caps::INTERMEDIATE)?,
        hidden_act: c.activation("hidden_act", "gelu")?,
        max_position_embeddings: c.size("max_position_embeddings", 512, caps::POSITIONS)?,
        type_vocab_size: c.size("type_vocab_size", 2, caps::TYPE_VOCAB)?,
        layer_norm_eps: c.eps("layer_norm_eps", 1e-12)?,
        tie_word_embeddings: c.boolean("tie_word_embeddings", true)?,
        special: SpecialTokens {
            bos: c.token("bos_token_id", None)?,
            eos: c.tokens("eos_token_id", None)?,
            pad: c.token("pad_token_id", Some(0))?,
            unk: c.token("unk_token_id", None)?,
            cls: c.token("cls_token_id", None)?,
            sep: c.token("sep_token_id", None)?,
            mask: c.token("mask_token_id", None)?,
        },
        architectures: c.string_list("architectures"),
    })
}
