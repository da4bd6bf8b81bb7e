//! What a GGUF file says about its model beyond the tensors: the Llama config from the
//! `llama.*` metadata keys, and the tokenizer stored under `tokenizer.ggml.*` as plain data
//! for the tokenizer builder.
//!
//! Only `general.architecture = "llama"` is mapped: llama.cpp's converter stores Llama's q/k
//! rows permuted for interleaved RoPE (see `RawTensor::unpermute_gguf_rope`), while other
//! architectures (qwen2, …) are stored unpermuted with rules of their own; guessing would
//! give silently wrong attention.

use super::error::{ImportError, Result};
use super::gguf::{Gguf, MetaArray, MetaValue};
use super::hf_config::{
    caps, Activation, LlamaConfig, LlamaFlavor, Rope, RopeScaling, SpecialTokens,
};

/// Names of the tensor holding Llama 3's precomputed RoPE frequency divisors.
pub const ROPE_FREQS: &str = "rope_freqs.weight";

impl LlamaConfig {
    /// The config of a `llama` GGUF file. Tensor names stay GGUF's (`token_embd.weight`,
    /// `blk.N.attn_q.weight`, `output.weight` absent when tied); `attn_q`/`attn_k` rows are in
    /// interleaved-RoPE order and need `RawTensor::unpermute_gguf_rope` (with
    /// `num_attention_heads`, resp. `num_key_value_heads`) for Hugging Face's half-split RoPE.
    pub fn from_gguf(g: &Gguf) -> Result<LlamaConfig> {
        let arch = g.architecture()?;
        if arch != "llama" {
            return Err(ImportError::UnsupportedModelType {
                file: g.file.clone(),
                found: arch.into(),
                supported: "llama (for GGUF files)".into(),
            });
        }
        let key = |k: &str| format!("llama.{k}");
        if g.optional(&key("expert_count"), Gguf::get_u64)?
            .unwrap_or(0)
            > 0
        {
            return Err(ImportError::UnsupportedModelType {
                file: g.file.clone(),
                found: "llama with mixture-of-experts layers".into(),
                supported: "llama (for GGUF files)".into(),
            });
        }
        let hidden_size = g.get_usize(&key("embedding_length"))?;
        let heads = g.get_usize(&key("attention.head_count"))?;
        let kv_heads = match g.get(&key("attention.head_count_kv")) {
            None => heads,
            Some(MetaValue::Array(a)) => {
                same_for_all_layers(g, &key("attention.head_count_kv"), a)?
            }
            Some(_) => g.get_usize(&key("attention.head_count_kv"))?,
        };
        let head_dim = match g.optional(&key("attention.key_length"), Gguf::get_usize)? {
            Some(k) => k,
            None if heads > 0 && hidden_size % heads == 0 => hidden_size / heads,
            None => {
                return Err(config_err(
                    g,
                    format!(
                        "embedding_length {hidden_size} is not a multiple of head_count {heads}"
                    ),
                ));
            }
        };
        match g.optional(&key("attention.value_length"), Gguf::get_usize)? {
            Some(v) if v != head_dim => {
                return Err(config_err(
                    g,
                    format!("key length {head_dim} differs from value length {v}"),
                ))
            }
            _ => {}
        }
        match g.optional(&key("rope.dimension_count"), Gguf::get_usize)? {
            Some(r) if r != head_dim => {
                return Err(config_err(
                    g,
                    format!(
                        "RoPE turns {r} of each head's {head_dim} dimensions; Glimpse rotates whole heads"
                    ),
                ))
            }
            _ => {}
        }
        let vocab_size = match g.optional(&key("vocab_size"), Gguf::get_usize)? {
            Some(v) => v,
            None => match g.optional("tokenizer.ggml.tokens", Gguf::get_str_array)? {
                Some(t) => t.len(),
                None => g
                    .tensor("token_embd.weight")
                    .and_then(|t| t.shape.first().copied())
                    .ok_or_else(|| config_err(g, "the vocabulary size is given nowhere".into()))?,
            },
        };
        let theta = g
            .optional(&key("rope.freq_base"), Gguf::get_f32)?
            .unwrap_or(10000.0);
        let scaling = match g.optional(&key("rope.scaling.type"), Gguf::get_str)? {
            _ if g.tensor(ROPE_FREQS).is_some() => RopeScaling::GgufFreqFactors {
                tensor: ROPE_FREQS.into(),
            },
            None | Some("none") => RopeScaling::None,
            Some("linear") => {
                let factor = g.get_f32(&key("rope.scaling.factor"))?;
                if factor <= 0.0 {
                    return Err(config_err(
                        g,
                        format!("the RoPE scaling factor is {factor}"),
                    ));
                }
                RopeScaling::Linear { factor }
            }
            Some(other) => {
                return Err(config_err(
                    g,
                    format!(
                        "RoPE scaling \"{other}\" is not supported; Glimpse runs none, linear and Llama 3's"
                    ),
                ));
            }
        };
        let has = |name: &str| g.tensor(name).is_some();
        let attention_bias = has("blk.0.attn_q.bias");
        let special = SpecialTokens {
            bos: g.optional("tokenizer.ggml.bos_token_id", Gguf::get_u32)?,
            eos: g
                .optional("tokenizer.ggml.eos_token_id", Gguf::get_u32)?
                .into_iter()
                .collect(),
            pad: g.optional("tokenizer.ggml.padding_token_id", Gguf::get_u32)?,
            unk: g.optional("tokenizer.ggml.unknown_token_id", Gguf::get_u32)?,
            ..SpecialTokens::default()
        };
        let config = LlamaConfig {
            flavor: LlamaFlavor::Llama,
            vocab_size,
            hidden_size,
            intermediate_size: g.get_usize(&key("feed_forward_length"))?,
            num_hidden_layers: g.get_usize(&key("block_count"))?,
            num_attention_heads: heads,
            num_key_value_heads: kv_heads,
            head_dim,
            hidden_act: Activation::Silu,
            max_position_embeddings: g.get_usize(&key("context_length"))?,
            rms_norm_eps: g.get_f32(&key("attention.layer_norm_rms_epsilon"))?,
            rope: Rope { theta, scaling },
            attention_bias,
            o_proj_bias: has("blk.0.attn_output.bias"),
            mlp_bias: has("blk.0.ffn_up.bias"),
            tie_word_embeddings: !has("output.weight"),
            sliding_window: None,
            special,
            architectures: vec!["LlamaForCausalLM".into()],
        };
        config.check().map_err(|e| config_err(g, e))?;
        Ok(config)
    }
}

fn config_err(g: &Gguf, reason: String) -> ImportError {
    ImportError::Config {
        file: g.file.clone(),
        reason,
    }
}

/// A per-layer array that must hold one value (Glimpse gives every layer the same heads).
fn same_for_all_layers(g: &Gguf, key: &str, a: &MetaArray) -> Result<usize> {
    let values = a.integers().unwrap_or_default();
    match values.first() {
        Some(&first) if values.iter().all(|&v| v == first) => {
            usize::try_from(first).map_err(|_| config_err(g, format!("`{key}` holds {first}")))
        }
        _ => Err(config_err(
            g,
            format!("`{key}` varies by layer (or is empty); Glimpse needs one value"),
        )),
    }
}

/// The tokenizer stored in a GGUF file, as plain data (REAL_MODELS.md §7).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GgufTokenizerData {
    /// `tokenizer.ggml.model`: "gpt2" is byte-level BPE, "llama" SentencePiece, …
    pub model: String,
    /// `tokenizer.ggml.pre`: names the pre-tokenizer regex ("smollm", "llama-bpe", …).
    pub pre: Option<String>,
    pub tokens: Vec<String>,
    /// Per token: 1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte.
    pub token_type: Option<Vec<i32>>,
    /// SentencePiece scores.
    pub scores: Option<Vec<f32>>,
    /// BPE merges as "left right".
    pub merges: Option<Vec<String>>,
    pub bos: Option<u32>,
    pub eos: Option<u32>,
    pub unk: Option<u32>,
    pub pad: Option<u32>,
    pub sep: Option<u32>,
    pub mask: Option<u32>,
    pub add_bos_token: Option<bool>,
    pub add_eos_token: Option<bool>,
    pub add_space_prefix: Option<bool>,
    pub chat_template: Option<String>,
}

impl GgufTokenizerData {
    /// Reads and checks the tokenizer fields: a vocabulary of sane size, per-token arrays as
    /// long as it, and special ids inside it.
    pub fn from_gguf(g: &Gguf) -> Result<GgufTokenizerData> {
        let meta = |key: &str, reason: String| ImportError::Metadata {
            file: g.file.clone(),
            key: key.into(),
            reason,
        };
        let tokens = g.get_str_array("tokenizer.ggml.tokens")?.to_vec();
        if tokens.is_empty() || tokens.len() > caps::VOCAB {
            return Err(meta(
                "tokenizer.ggml.tokens",
                format!("holds {} tokens", tokens.len()),
            ));
        }
        let n = tokens.len();
        let token_type = g.optional("tokenizer.ggml.token_type", Gguf::get_i32_array)?;
        let scores = g.optional("tokenizer.ggml.scores", Gguf::get_f32_array)?;
        for (key, len) in [
            (
                "tokenizer.ggml.token_type",
                token_type.as_ref().map(Vec::len),
            ),
            ("tokenizer.ggml.scores", scores.as_ref().map(Vec::len)),
        ] {
            if let Some(len) = len.filter(|&l| l != n) {
                return Err(meta(key, format!("has {len} entries for {n} tokens")));
            }
        }
        let id = |key: &str| -> Result<Option<u32>> {
            let v = g.optional(key, Gguf::get_u32)?;
            match v {
                Some(i) if i as usize >= n => {
                    Err(meta(key, format!("is {i}, outside the {n} tokens")))
                }
                _ => Ok(v),
            }
        };
        let flag = |key: &str| g.optional(key, Gguf::get_bool);
        Ok(GgufTokenizerData {
            model: g.get_str("tokenizer.ggml.model")?.to_string(),
            pre: g
                .optional("tokenizer.ggml.pre", Gguf::get_str)?
                .map(String::from),
            merges: g
                .optional("tokenizer.ggml.merges", Gguf::get_str_array)?
                .map(<[String]>::to_vec),
            tokens,
            token_type,
            scores,
            bos: id("tokenizer.ggml.bos_token_id")?,
            eos: id("tokenizer.ggml.eos_token_id")?,
            unk: id("tokenizer.ggml.unknown_token_id")?,
            pad: id("tokenizer.ggml.padding_token_id")?,
            sep: id("tokenizer.ggml.seperator_token_id")?
                .or(id("tokenizer.ggml.separator_token_id")?),
            mask: id("tokenizer.ggml.mask_token_id")?,
            add_bos_token: flag("tokenizer.ggml.add_bos_token")?,
            add_eos_token: flag("tokenizer.ggml.add_eos_token")?,
            add_space_prefix: flag("tokenizer.ggml.add_space_prefix")?,
            chat_template: g
                .optional("tokenizer.chat_template", Gguf::get_str)?
                .map(String::from),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::import::gguf::GgmlType;
    use crate::model::import::gguf_writer::GgufWriter;

    fn tiny() -> GgufWriter {
        let mut w = GgufWriter::new();
        let tokens: Vec<String> = ["<unk>", "<s>", "</s>", "a", "b", "ab"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        w.meta("general.architecture", MetaValue::Str("llama".into()))
            .meta("llama.block_count", MetaValue::U32(2))
            .meta("llama.context_length", MetaValue::U32(64))
            .meta("llama.embedding_length", MetaValue::U32(64))
            .meta("llama.feed_forward_length", MetaValue::U32(96))
            .meta("llama.attention.head_count", MetaValue::U32(4))
            .meta("llama.attention.head_count_kv", MetaValue::U32(2))
            .meta(
                "llama.attention.layer_norm_rms_epsilon",
                MetaValue::F32(1e-5),
            )
            .meta("llama.rope.freq_base", MetaValue::F32(1e5))
            .meta("llama.rope.dimension_count", MetaValue::U32(16))
            .meta("tokenizer.ggml.model", MetaValue::Str("gpt2".into()))
            .meta("tokenizer.ggml.pre", MetaValue::Str("smollm".into()))
            .meta(
                "tokenizer.ggml.tokens",
                MetaValue::Array(MetaArray::Str(tokens)),
            )
            .meta(
                "tokenizer.ggml.token_type",
                MetaValue::Array(MetaArray::I32(vec![2, 3, 3, 1, 1, 1])),
            )
            .meta(
                "tokenizer.ggml.merges",
                MetaValue::Array(MetaArray::Str(vec!["a b".into()])),
            )
            .meta("tokenizer.ggml.bos_token_id", MetaValue::U32(1))
            .meta("tokenizer.ggml.eos_token_id", MetaValue::U32(2))
            .meta("tokenizer.ggml.unknown_token_id", MetaValue::U32(0))
            .meta("tokenizer.ggml.padding_token_id", MetaValue::U32(2))
            .meta("tokenizer.ggml.add_bos_token", MetaValue::Bool(false))
            .meta(
                "tokenizer.chat_template",
                MetaValue::Str("{{ messages }}".into()),
            );
        w.tensor_f32("token_embd.weight", &[6, 64], &[0.0; 384]);
        w
    }

    fn parsed(w: &GgufWriter) -> Gguf {
        Gguf::parse(&w.to_bytes()).unwrap()
    }

    #[test]
    fn llama_config_from_metadata() {
        let c = LlamaConfig::from_gguf(&parsed(&tiny())).unwrap();
        assert_eq!(
            (c.num_hidden_layers, c.hidden_size, c.intermediate_size),
            (2, 64, 96)
        );
        assert_eq!(
            (c.num_attention_heads, c.num_key_value_heads, c.head_dim),
            (4, 2, 16)
        );
        assert_eq!((c.vocab_size, c.max_position_embeddings), (6, 64));
        assert_eq!(
            c.rope,
            Rope {
                theta: 1e5,
                scaling: RopeScaling::None
            }
        );
        assert_eq!(c.rms_norm_eps, 1e-5);
        assert!(c.tie_word_embeddings && !c.attention_bias);
        assert_eq!(
            (
                c.special.bos,
                c.special.eos.clone(),
                c.special.pad,
                c.special.unk
            ),
            (Some(1), vec![2], Some(2), Some(0))
        );
    }

    #[test]
    fn tensors_decide_ties_biases_and_llama3_rope() {
        let mut w = tiny();
        w.tensor_f32("output.weight", &[6, 64], &[0.0; 384])
            .tensor_f32("blk.0.attn_q.bias", &[64], &[0.0; 64])
            .tensor_f32(ROPE_FREQS, &[8], &[1.0; 8])
            .meta("llama.vocab_size", MetaValue::U64(6))
            .meta("llama.attention.key_length", MetaValue::U32(16));
        let c = LlamaConfig::from_gguf(&parsed(&w)).unwrap();
        assert!(!c.tie_word_embeddings && c.attention_bias && !c.o_proj_bias);
        assert_eq!(
            c.rope.scaling,
            RopeScaling::GgufFreqFactors {
                tensor: ROPE_FREQS.into()
            }
        );
        let mut w = tiny();
        w.meta("llama.rope.scaling.type", MetaValue::Str("linear".into()))
            .meta("llama.rope.scaling.factor", MetaValue::F32(4.0));
        assert_eq!(
            LlamaConfig::from_gguf(&parsed(&w)).unwrap().rope.scaling,
            RopeScaling::Linear { factor: 4.0 }
        );
        let mut w = tiny();
        w.meta("llama.attention.head_count_kv", MetaValue::U32(2));
        // A duplicate key: the writer writes both, the reader refuses.
        assert!(Gguf::parse(&w.to_bytes()).is_err());
        // Per-layer head counts are accepted when every layer has the same.
        let w = with(
            "llama.attention.head_count_kv",
            MetaValue::Array(MetaArray::U16(vec![2, 2])),
        );
        assert_eq!(
            LlamaConfig::from_gguf(&parsed(&w))
                .unwrap()
                .num_key_value_heads,
            2
        );
    }

    fn without(key: &str) -> GgufWriter {
        let full = tiny();
        let g = parsed(&full);
        let mut w = GgufWriter::new();
        for (k, v) in &g.metadata {
            if k != key {
                w.meta(k, v.clone());
            }
        }
        w.tensor_f32("token_embd.weight", &[6, 64], &[0.0; 384]);
        w
    }

    fn with(key: &str, value: MetaValue) -> GgufWriter {
        let mut w = without(key);
        w.meta(key, value);
        w
    }

    #[test]
    fn bad_metadata_is_named() {
        for key in [
            "llama.block_count",
            "llama.embedding_length",
            "llama.attention.layer_norm_rms_epsilon",
            "general.architecture",
        ] {
            let e = LlamaConfig::from_gguf(&parsed(&without(key))).unwrap_err();
            assert!(e.to_string().contains(key), "{key}: {e}");
        }
        let cases = [
            with("general.architecture", MetaValue::Str("qwen2".into())),
            with("llama.attention.head_count_kv", MetaValue::U32(3)),
            with(
                "llama.attention.head_count_kv",
                MetaValue::Array(MetaArray::U32(vec![2, 1])),
            ),
            with("llama.rope.dimension_count", MetaValue::U32(8)),
            with("llama.rope.scaling.type", MetaValue::Str("yarn".into())),
            with("llama.expert_count", MetaValue::U32(8)),
            with("llama.block_count", MetaValue::U64(1 << 40)),
            with("llama.block_count", MetaValue::I32(-1)),
            with("llama.embedding_length", MetaValue::U32(63)),
            with(
                "llama.attention.layer_norm_rms_epsilon",
                MetaValue::F32(f32::NAN),
            ),
            with("llama.rope.freq_base", MetaValue::Str("1e4".into())),
            with("llama.attention.head_count", MetaValue::U32(0)),
        ];
        for w in cases {
            let g = parsed(&w);
            assert!(LlamaConfig::from_gguf(&g).is_err(), "{:?}", g.metadata);
        }
        let e = LlamaConfig::from_gguf(&parsed(&with(
            "general.architecture",
            MetaValue::Str("qwen2".into()),
        )))
        .unwrap_err();
        assert!(
            e.to_string().contains("qwen2") && e.to_string().contains("llama"),
            "{e}"
        );
    }

    #[test]
    fn tokenizer_fields() {
        let t = GgufTokenizerData::from_gguf(&parsed(&tiny())).unwrap();
        assert_eq!(
            (t.model.as_str(), t.pre.as_deref()),
            ("gpt2", Some("smollm"))
        );
        assert_eq!(t.tokens.len(), 6);
        assert_eq!(t.token_type.as_deref(), Some(&[2, 3, 3, 1, 1, 1][..]));
        assert_eq!(t.merges.as_deref(), Some(&["a b".to_string()][..]));
        assert_eq!(
            (t.bos, t.eos, t.unk, t.pad),
            (Some(1), Some(2), Some(0), Some(2))
        );
        assert_eq!((t.add_bos_token, t.add_eos_token), (Some(false), None));
        assert_eq!(t.chat_template.as_deref(), Some("{{ messages }}"));
        assert_eq!(t.scores, None);
        for (w, key) in [
            (
                with("tokenizer.ggml.bos_token_id", MetaValue::U32(6)),
                "bos_token_id",
            ),
            (
                with(
                    "tokenizer.ggml.token_type",
                    MetaValue::Array(MetaArray::I32(vec![1])),
                ),
                "token_type",
            ),
            (
                with(
                    "tokenizer.ggml.scores",
                    MetaValue::Array(MetaArray::F32(vec![0.0; 7])),
                ),
                "scores",
            ),
            (
                with(
                    "tokenizer.ggml.tokens",
                    MetaValue::Array(MetaArray::Str(vec![])),
                ),
                "tokens",
            ),
            (
                with(
                    "tokenizer.ggml.tokens",
                    MetaValue::Array(MetaArray::U32(vec![1])),
                ),
                "tokens",
            ),
            (without("tokenizer.ggml.model"), "tokenizer.ggml.model"),
            (
                with("tokenizer.ggml.add_bos_token", MetaValue::U8(1)),
                "add_bos_token",
            ),
        ] {
            let e = GgufTokenizerData::from_gguf(&parsed(&w)).unwrap_err();
            assert!(e.to_string().contains(key), "{key}: {e}");
        }
    }

    #[test]
    fn quantized_gguf_round_trip_through_config() {
        // A whole tiny model in Q8_0 with its config: what the lead's mapping will see.
        let mut w = tiny();
        let block: Vec<u8> = [vec![0, 0x3c], vec![1; 32]].concat();
        w.tensor_bytes(
            "blk.0.attn_q.weight",
            &[64, 64],
            GgmlType::Q8_0,
            block.repeat(64 * 2),
        );
        let bytes = w.to_bytes();
        let g = Gguf::parse(&bytes).unwrap();
        let c = LlamaConfig::from_gguf(&g).unwrap();
        let set = g
            .read_tensors(&bytes, &Default::default(), &mut |_| {})
            .unwrap();
        let q = set.get("blk.0.attn_q.weight").unwrap();
        assert_eq!(q.shape, [c.num_attention_heads * c.head_dim, c.hidden_size]);
        let hf = q.unpermute_gguf_rope(c.num_attention_heads).unwrap();
        assert!(hf.is_quantized());
    }

    /// The SmolLM2 GGUF's metadata, when another task has fetched it.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn real_smollm2_metadata_when_present() {
        let Some(path) = crate::util::real_models::smollm2() else {
            return;
        };
        let bytes = std::fs::read(&path).unwrap();
        let g = Gguf::parse(&bytes).unwrap();
        let c = LlamaConfig::from_gguf(&g).unwrap();
        assert_eq!(
            (
                c.num_hidden_layers,
                c.num_attention_heads,
                c.num_key_value_heads
            ),
            (30, 9, 3)
        );
        assert_eq!(
            (c.hidden_size, c.intermediate_size, c.vocab_size, c.head_dim),
            (576, 1536, 49152, 64)
        );
        assert_eq!(
            (c.rope.theta, c.rms_norm_eps, c.max_position_embeddings),
            (1e5, 1e-5, 8192)
        );
        assert!(c.tie_word_embeddings);
        let t = GgufTokenizerData::from_gguf(&g).unwrap();
        assert_eq!(
            (t.model.as_str(), t.pre.as_deref()),
            ("gpt2", Some("smollm"))
        );
        assert_eq!(
            (t.tokens.len(), t.merges.as_ref().map(Vec::len)),
            (49152, Some(48900))
        );
        assert_eq!(
            (t.bos, t.eos, t.unk, t.pad, t.add_bos_token),
            (Some(1), Some(2), Some(0), Some(2), Some(false))
        );
    }
}
