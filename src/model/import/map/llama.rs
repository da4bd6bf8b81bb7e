//! Llama (and Mistral, Qwen2) onto the block template, from Hugging Face or GGUF names.

use super::{
    activation, attention, base_config, bias_rule, decoder_weights, ffn, fuse, linear, norm,
    output_matrix, unsupported, Bias, Mapped, Result,
};
use crate::model::config::{
    Extensions, Family, ModelConfig, NormKind, NormPlacement, Positional, RopePairing, RopeScaling,
};
use crate::model::import::hf_config::LlamaConfig;
use crate::model::import::hf_config::RopeScaling as HfRopeScaling;
use crate::model::import::tensors::TensorSet;
use crate::model::layers::{FfnWeights, LayerNormWeights};
use crate::model::weights::{BlockWeights, WeightMatrix};
use ndarray::Array1;

/// Tensor names of a Llama checkpoint: Hugging Face's, or a GGUF file's.
pub struct LlamaNames {
    pub embed: &'static str,
    pub norm: &'static str,
    pub head: &'static str,
    /// `(layer, part)` → name, part one of q, k, v, o, gate, up, down, attn_norm, ffn_norm.
    pub layer: fn(usize, &str) -> String,
}

pub const HF_LLAMA: LlamaNames = LlamaNames {
    embed: "embed_tokens.weight",
    norm: "norm.weight",
    head: "lm_head.weight",
    layer: |l, part| {
        let p = match part {
            "q" => "self_attn.q_proj",
            "k" => "self_attn.k_proj",
            "v" => "self_attn.v_proj",
            "o" => "self_attn.o_proj",
            "gate" => "mlp.gate_proj",
            "up" => "mlp.up_proj",
            "down" => "mlp.down_proj",
            "attn_norm" => "input_layernorm",
            _ => "post_attention_layernorm",
        };
        format!("layers.{l}.{p}")
    },
};

pub const GGUF_LLAMA: LlamaNames = LlamaNames {
    embed: "token_embd.weight",
    norm: "output_norm.weight",
    head: "output.weight",
    layer: |l, part| {
        let p = match part {
            "q" => "attn_q",
            "k" => "attn_k",
            "v" => "attn_v",
            "o" => "attn_output",
            "gate" => "ffn_gate",
            "up" => "ffn_up",
            "down" => "ffn_down",
            "attn_norm" => "attn_norm",
            _ => "ffn_norm",
        };
        format!("blk.{l}.{p}")
    },
};

/// Llama (and Mistral, Qwen2): pre-norm decoder with RMSNorm, RoPE, grouped-query attention
/// and a SwiGLU feed-forward. `gguf`: the weights are a GGUF file's (interleaved RoPE pairs).
/// All in one go (a folder's tensors; `LlamaMapping` maps a block at a time).
pub fn llama(c: &LlamaConfig, t: &mut TensorSet, name: &str, gguf: bool) -> Result<Mapped> {
    let mut mapping = LlamaMapping::new(c, t, name, gguf)?;
    while mapping.blocks_done() < mapping.blocks() {
        mapping.next_block(t)?;
    }
    mapping.finish(t)
}

/// A Llama's tensors mapped a block at a time, so that a conversion in the browser draws
/// frames between the pieces (SmolLM2's 30 blocks were one 57 ms piece): the config and the
/// embedding table, each block, then the final norm and the output matrix.
pub struct LlamaMapping {
    config: ModelConfig,
    notes: Vec<String>,
    names: &'static LlamaNames,
    /// d, query heads, key-value heads, head width, FFN width.
    dims: (usize, usize, usize, usize, usize),
    /// Q/K/V, output and FFN biases.
    biases: (Bias, Bias, Bias),
    tie: bool,
    vocab: usize,
    tok_embed: WeightMatrix,
    blocks: Vec<BlockWeights>,
}

impl LlamaMapping {
    /// The config from the checkpoint's, and the embedding table taken; no block yet.
    pub fn new(c: &LlamaConfig, t: &mut TensorSet, name: &str, gguf: bool) -> Result<Self> {
        let mut notes = Vec::new();
        let (d, h, kv, hd, i) = (
            c.hidden_size,
            c.num_attention_heads,
            c.num_key_value_heads,
            c.head_dim,
            c.intermediate_size,
        );
        let scaling = match &c.rope.scaling {
            HfRopeScaling::None => None,
            HfRopeScaling::Linear { factor } => Some(RopeScaling::Linear { factor: *factor }),
            HfRopeScaling::Llama3 {
                factor,
                low_freq_factor,
                high_freq_factor,
                original_max_position_embeddings,
            } => Some(RopeScaling::Llama3 {
                factor: *factor,
                low_freq_factor: *low_freq_factor,
                high_freq_factor: *high_freq_factor,
                original_max: *original_max_position_embeddings as f32,
            }),
            HfRopeScaling::GgufFreqFactors { tensor } => {
                return Err(unsupported(&format!(
                    "RoPE frequency factors stored as a tensor (`{tensor}`, Llama 3.1 GGUF files) \
                     are not supported yet"
                )))
            }
        };
        // Within its window a sliding-window model attends exactly like full attention, so the
        // context is capped at the window rather than computed differently.
        let mut positions = c.max_position_embeddings;
        if let Some(w) = c.sliding_window.filter(|&w| w < positions) {
            notes.push(format!(
                "the context is capped at the {w}-token sliding window, where attention is exact"
            ));
            positions = w;
        }
        let names = if gguf { &GGUF_LLAMA } else { &HF_LLAMA };
        let head_present = t.contains(names.head);
        let mut config = base_config(
            name,
            format!(
                "Llama-architecture decoder, {} layers, {h} query / {kv} key-value heads, d={d}",
                c.num_hidden_layers
            ),
            Family::Decoder,
            (d, h, kv, c.num_hidden_layers, i),
            positions,
            activation(c.hidden_act),
            NormPlacement::Pre,
            c.rms_norm_eps,
            Positional::Rope { base: c.rope.theta },
            !head_present || c.tie_word_embeddings,
            c.vocab_size,
            &mut notes,
        );
        config.extensions = Extensions {
            norm_kind: NormKind::RmsNorm,
            gated_ffn: true,
            head_dim: (hd * h != d).then_some(hd),
            rope_pairing: if gguf {
                RopePairing::Interleaved
            } else {
                RopePairing::Half
            },
            rope_scaling: scaling,
            ..Extensions::default()
        };
        let tok_embed = t.take_table(names.embed, c.vocab_size, d)?;
        Ok(Self {
            config,
            notes,
            names,
            dims: (d, h, kv, hd, i),
            biases: (
                bias_rule(c.attention_bias),
                bias_rule(c.o_proj_bias),
                bias_rule(c.mlp_bias),
            ),
            tie: c.tie_word_embeddings,
            vocab: c.vocab_size,
            tok_embed,
            blocks: Vec::with_capacity(c.num_hidden_layers),
        })
    }

    /// Blocks the model has.
    pub fn blocks(&self) -> usize {
        self.config.n_layers
    }

    /// Blocks mapped so far.
    pub fn blocks_done(&self) -> usize {
        self.blocks.len()
    }

    /// Maps the next block (its Q, K and V fused into one projection).
    pub fn next_block(&mut self, t: &mut TensorSet) -> Result<()> {
        let (d, h, kv, hd, i) = self.dims;
        let (qkv_bias, o_bias, mlp_bias) = self.biases;
        let (l, layer) = (self.blocks.len(), self.names.layer);
        let q = linear(t, &layer(l, "q"), h * hd, d, qkv_bias)?;
        let k = linear(t, &layer(l, "k"), kv * hd, d, qkv_bias)?;
        let v = linear(t, &layer(l, "v"), kv * hd, d, qkv_bias)?;
        let o = linear(t, &layer(l, "o"), d, h * hd, o_bias)?;
        let gate = linear(t, &layer(l, "gate"), i, d, mlp_bias)?;
        let up = linear(t, &layer(l, "up"), i, d, mlp_bias)?;
        let down = linear(t, &layer(l, "down"), d, i, mlp_bias)?;
        self.blocks.push(BlockWeights {
            ln_attn: norm(t, &layer(l, "attn_norm"), d, false)?,
            self_attn: attention(fuse([q, k, v])?, o),
            cross: None,
            ln_ffn: norm(t, &layer(l, "ffn_norm"), d, false)?,
            ffn: FfnWeights {
                gate: Some(gate),
                ..ffn(up, down)
            },
        });
        Ok(())
    }

    /// The final norm and the output matrix, after every block.
    pub fn finish(self, t: &mut TensorSet) -> Result<Mapped> {
        let Self {
            mut config,
            notes,
            names,
            dims: (d, ..),
            tie,
            vocab,
            tok_embed,
            blocks,
            ..
        } = self;
        let ln_f = LayerNormWeights {
            gamma: t.take_vector(names.norm, d)?,
            beta: Array1::zeros(d),
        };
        let lm_head = output_matrix(t, names.head, tie, vocab, d)?;
        config.tie_embeddings = lm_head.is_none();
        let weights = decoder_weights(tok_embed, None, blocks, ln_f, lm_head);
        Ok(Mapped {
            config,
            weights,
            notes,
        })
    }
}
