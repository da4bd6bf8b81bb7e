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

use super::hf_config::{Activation as HfActivation, BertConfig, Gpt2Config, LlamaConfig};
use super::hf_config::{RopeScaling as HfRopeScaling, SpecialTokens};
use super::tensors::TensorSet;
use super::ImportError;
use crate::model::config::{
    Activation, Extensions, Family, ModelConfig, NormKind, NormPlacement, OutputHead, Positional,
    RopePairing, RopeScaling, Scoring, FORMAT_NAME, FORMAT_VERSION, MAX_LEN,
};
use crate::model::layers::{FfnWeights, LayerNormWeights};
use crate::model::tokenizer::{TokenizerKind, TokenizerSpec};
use crate::model::weights::{
    AttentionWeights, BlockWeights, MlmTransform, Projection, ScoreWeights, StackWeights,
    VocabTable, Weights,
};
use ndarray::{concatenate, Array1, Array2, Axis};

type Result<T> = std::result::Result<T, ImportError>;

/// A config and weights ready for `Model`, with what the mapping noticed.
pub struct Mapped {
    pub config: ModelConfig,
    pub weights: Weights,
    /// Facts a user should know (context capped, tensors ignored, …).
    pub notes: Vec<String>,
}

fn activation(a: HfActivation) -> Activation {
    match a {
        HfActivation::Gelu => Activation::Gelu,
        HfActivation::GeluTanh => Activation::GeluTanh,
        HfActivation::Relu => Activation::Relu,
        HfActivation::Silu => Activation::Silu,
    }
}

/// A config with the textbook fields filled from a checkpoint's sizes.
#[allow(clippy::too_many_arguments)]
fn base_config(
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

fn norm(t: &mut TensorSet, prefix: &str, d: usize, bias: bool) -> Result<LayerNormWeights> {
    Ok(LayerNormWeights {
        gamma: t.take_vector(&format!("{prefix}.weight"), d)?,
        beta: if bias {
            t.take_vector(&format!("{prefix}.bias"), d)?
        } else {
            Array1::zeros(d)
        },
    })
}

/// A `Linear`'s weight `[out, in]` and bias (zeros when the layer has none).
fn linear(
    t: &mut TensorSet,
    prefix: &str,
    out: usize,
    inp: usize,
    bias: Bias,
) -> Result<(Array2<f32>, Array1<f32>)> {
    let w = t.take_matrix(&format!("{prefix}.weight"), out, inp)?;
    let b_name = format!("{prefix}.bias");
    let b = match bias {
        Bias::Yes => t.take_vector(&b_name, out)?,
        Bias::No => Array1::zeros(out),
    };
    Ok((w, b))
}

#[derive(Clone, Copy)]
enum Bias {
    Yes,
    No,
}

/// GPT-2's Conv1D: weight stored `[in, out]` (x·W), so it is transposed into `[out, in]`.
fn conv1d(
    t: &mut TensorSet,
    prefix: &str,
    inp: usize,
    out: usize,
) -> Result<(Array2<f32>, Array1<f32>)> {
    let w = t.take_matrix(&format!("{prefix}.weight"), inp, out)?;
    let b = t.take_vector(&format!("{prefix}.bias"), out)?;
    Ok((w.t().to_owned(), b))
}

/// Rows of Q, then K, then V: the fused projection the attention splits into heads.
fn fuse(parts: [(Array2<f32>, Array1<f32>); 3]) -> Result<Projection> {
    let [(wq, bq), (wk, bk), (wv, bv)] = parts;
    let shape_err = |e: ndarray::ShapeError| ImportError::Usage(format!("fusing Q, K, V: {e}"));
    Ok(Projection::Fused {
        w_qkv: concatenate(Axis(0), &[wq.view(), wk.view(), wv.view()]).map_err(shape_err)?,
        b_qkv: concatenate(Axis(0), &[bq.view(), bk.view(), bv.view()]).map_err(shape_err)?,
    })
}

fn attention(projection: Projection, (w_o, b_o): (Array2<f32>, Array1<f32>)) -> AttentionWeights {
    AttentionWeights {
        projection,
        w_o,
        b_o,
        score: ScoreWeights::Dot,
        rel_bias: None,
    }
}

fn ffn(up: (Array2<f32>, Array1<f32>), down: (Array2<f32>, Array1<f32>)) -> FfnWeights {
    FfnWeights {
        w1: up.0,
        b1: up.1,
        w2: down.0,
        b2: down.1,
        gate: None,
    }
}

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

/// An untied output matrix, or `None` when the file has none or the config ties it to the
/// token embeddings (then any copy in the file is the same matrix).
fn output_matrix(
    t: &mut TensorSet,
    name: &str,
    tied: bool,
    vocab: usize,
    d: usize,
) -> Result<Option<VocabTable>> {
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
fn decoder_weights(
    tok_embed: VocabTable,
    pos_embed: Option<Array2<f32>>,
    blocks: Vec<BlockWeights>,
    ln_f: LayerNormWeights,
    lm_head: Option<VocabTable>,
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
    tok_embed: VocabTable,
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

fn unsupported(reason: &str) -> ImportError {
    ImportError::Config {
        file: "config.json".into(),
        reason: reason.into(),
    }
}

/// A bias the config says is there must be there; otherwise the layer has none.
fn bias_rule(present: bool) -> Bias {
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
