//! BERT onto the block template.

use super::{
    activation, attention, base_config, ffn, fuse, linear, norm, output_matrix, Bias, Mapped,
    Result,
};
use crate::model::config::{Extensions, Family, NormPlacement, OutputHead, Positional};
use crate::model::import::hf_config::BertConfig;
use crate::model::import::tensors::TensorSet;
use crate::model::weights::{BlockWeights, MlmTransform, StackWeights, Weights};

/// BERT (`BertModel`, `BertForMaskedLM`): post-norm encoder with a LayerNorm on the
/// embeddings, token types, and a masked-LM head when `cls.predictions.*` is present.
pub fn bert(c: &BertConfig, t: &mut TensorSet, name: &str) -> Result<Mapped> {
    let mut notes = Vec::new();
    let (d, h, i) = (c.hidden_size, c.num_attention_heads, c.intermediate_size);
    let hd = c.head_dim;
    let has_mlm = t.contains("cls.predictions.transform.dense.weight");
    let mut config = base_config(
        name,
        format!(
            "BERT encoder, {} layers, {h} heads, d={d}",
            c.num_hidden_layers
        ),
        Family::Encoder,
        (d, h, h, c.num_hidden_layers, i),
        c.max_position_embeddings,
        activation(c.hidden_act),
        NormPlacement::Post,
        c.layer_norm_eps,
        Positional::Learned,
        true,
        c.vocab_size,
        &mut notes,
    );
    config.extensions = Extensions {
        embed_norm: true,
        token_types: c.type_vocab_size,
        head_dim: (hd * h != d).then_some(hd),
        output: if has_mlm {
            OutputHead::MaskedLm
        } else {
            OutputHead::None
        },
        ..Extensions::default()
    };
    let p = config.max_len;
    let tok_embed = t.take_table("embeddings.word_embeddings.weight", c.vocab_size, d)?;
    let pos = t.take_matrix(
        "embeddings.position_embeddings.weight",
        c.max_position_embeddings,
        d,
    )?;
    let pos_embed = pos.slice(ndarray::s![..p, ..]).to_owned();
    let type_embed = t.take_matrix(
        "embeddings.token_type_embeddings.weight",
        c.type_vocab_size,
        d,
    )?;
    let embed_norm = norm(t, "embeddings.LayerNorm", d, true)?;
    let mut blocks = Vec::with_capacity(c.num_hidden_layers);
    for l in 0..c.num_hidden_layers {
        let a = format!("encoder.layer.{l}.attention");
        let q = linear(t, &format!("{a}.self.query"), h * hd, d, Bias::Yes)?;
        let k = linear(t, &format!("{a}.self.key"), h * hd, d, Bias::Yes)?;
        let v = linear(t, &format!("{a}.self.value"), h * hd, d, Bias::Yes)?;
        let o = linear(t, &format!("{a}.output.dense"), d, h * hd, Bias::Yes)?;
        let ln_attn = norm(t, &format!("{a}.output.LayerNorm"), d, true)?;
        let f = format!("encoder.layer.{l}");
        let up = linear(t, &format!("{f}.intermediate.dense"), i, d, Bias::Yes)?;
        let down = linear(t, &format!("{f}.output.dense"), d, i, Bias::Yes)?;
        let ln_ffn = norm(t, &format!("{f}.output.LayerNorm"), d, true)?;
        blocks.push(BlockWeights {
            ln_attn,
            self_attn: attention(fuse([q, k, v])?, o),
            cross: None,
            ln_ffn,
            ffn: ffn(up, down),
        });
    }
    let (mlm, lm_head, lm_bias) = if has_mlm {
        let (w, b) = linear(t, "cls.predictions.transform.dense", d, d, Bias::Yes)?;
        let w = w.to_f32().into_owned();
        let norm = norm(t, "cls.predictions.transform.LayerNorm", d, true)?;
        let bias = t.take_vector("cls.predictions.bias", c.vocab_size)?;
        // The decoder is the word embedding (tied) unless the file says otherwise.
        let decoder = output_matrix(
            t,
            "cls.predictions.decoder.weight",
            c.tie_word_embeddings,
            c.vocab_size,
            d,
        )?;
        // `decoder.bias` is the same parameter as `cls.predictions.bias` when saved.
        let _ = t.take_optional("cls.predictions.decoder.bias")?;
        (Some(MlmTransform { w, b, norm }), decoder, Some(bias))
    } else {
        (None, None, None)
    };
    config.tie_embeddings = lm_head.is_none();
    for ignored in ["pooler.dense.weight", "pooler.dense.bias"] {
        if t.take_optional(ignored)?.is_some() {
            notes.push(format!("`{ignored}` (the pooler) is not used by any view"));
        }
    }
    Ok(Mapped {
        config,
        weights: Weights {
            tok_embed,
            pos_embed: Some(pos_embed),
            type_embed: Some(type_embed),
            embed_norm: Some(embed_norm),
            encoder: Some(StackWeights { blocks, ln_f: None }),
            decoder: None,
            mlm,
            lm_head,
            lm_bias,
        },
        notes,
    })
}
