use super::*;

fn parse(text: &str) -> Result<Architecture> {
    Architecture::from_config_json(text)
}

fn llama_of(text: &str) -> LlamaConfig {
    match parse(text).unwrap() {
        Architecture::Llama(c) => c,
        other => panic!("{other:?}"),
    }
}

fn err(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

const MINILM: &str = r#"{"_name_or_path":"nreimers/MiniLM-L6-H384-uncased","architectures":["BertModel"],
        "attention_probs_dropout_prob":0.1,"gradient_checkpointing":false,"hidden_act":"gelu",
        "hidden_dropout_prob":0.1,"hidden_size":384,"initializer_range":0.02,"intermediate_size":1536,
        "layer_norm_eps":1e-12,"max_position_embeddings":512,"model_type":"bert","num_attention_heads":12,
        "num_hidden_layers":6,"pad_token_id":0,"position_embedding_type":"absolute",
        "transformers_version":"4.8.2","type_vocab_size":2,"use_cache":true,"vocab_size":30522}"#;

#[test]
fn bert_minilm_and_defaults() {
    let Architecture::Bert(c) = parse(MINILM).unwrap() else {
        panic!()
    };
    assert_eq!(
        (
            c.hidden_size,
            c.num_hidden_layers,
            c.num_attention_heads,
            c.head_dim
        ),
        (384, 6, 12, 32)
    );
    assert_eq!(
        (c.intermediate_size, c.vocab_size, c.type_vocab_size),
        (1536, 30522, 2)
    );
    assert_eq!(c.layer_norm_eps, 1e-12);
    assert_eq!(c.hidden_act, Activation::Gelu);
    assert_eq!(c.special.pad, Some(0));
    assert_eq!(c.architectures, ["BertModel"]);
    let Architecture::Bert(d) = parse(r#"{"model_type":"bert"}"#).unwrap() else {
        panic!()
    };
    assert_eq!(
        (
            d.hidden_size,
            d.num_hidden_layers,
            d.intermediate_size,
            d.max_position_embeddings
        ),
        (768, 12, 3072, 512)
    );
    assert!(d.tie_word_embeddings);
    let Architecture::Bert(m) = parse(r#"{"model_type":"bert","cls_token_id":101,"sep_token_id":102,"mask_token_id":103,"pad_token_id":null}"#).unwrap() else { panic!() };
    assert_eq!(
        (m.special.cls, m.special.sep, m.special.mask, m.special.pad),
        (Some(101), Some(102), Some(103), None)
    );
    assert!(
        err(r#"{"model_type":"bert","position_embedding_type":"relative_key"}"#)
            .contains("absolute")
    );
    assert!(err(r#"{"model_type":"bert","is_decoder":true}"#).contains("decoder"));
    assert!(
        err(r#"{"model_type":"bert","hidden_size":100,"num_attention_heads":12}"#)
            .contains("multiple")
    );
    assert!(err(r#"{"model_type":"bert","hidden_act":"quick_gelu"}"#).contains("quick_gelu"));
}

#[test]
fn gpt2_keys_aliases_and_defaults() {
    let original = r#"{"activation_function":"gelu_new","architectures":["GPT2LMHeadModel"],"attn_pdrop":0.1,
            "bos_token_id":50256,"embd_pdrop":0.1,"eos_token_id":50256,"initializer_range":0.02,
            "layer_norm_epsilon":1e-05,"model_type":"gpt2","n_ctx":1024,"n_embd":768,"n_head":12,
            "n_layer":12,"n_positions":1024,"resid_pdrop":0.1,"vocab_size":50257}"#;
    let Architecture::Gpt2(c) = parse(original).unwrap() else {
        panic!()
    };
    assert_eq!(
        (
            c.n_embd,
            c.n_head,
            c.head_dim,
            c.n_layer,
            c.n_inner,
            c.n_positions
        ),
        (768, 12, 64, 12, 3072, 1024)
    );
    assert_eq!(c.activation_function, Activation::GeluTanh);
    assert!(c.tie_word_embeddings && c.scale_attn_weights && !c.scale_attn_by_inverse_layer_idx);
    assert_eq!(
        (c.special.bos, c.special.eos.as_slice()),
        (Some(50256), &[50256][..])
    );
    let tiny = r#"{"model_type":"gpt2","hidden_size":32,"num_attention_heads":4,"num_hidden_layers":2,
            "max_position_embeddings":16,"vocab_size":99,"n_inner":null,"activation_function":"gelu_pytorch_tanh",
            "scale_attn_by_inverse_layer_idx":true}"#;
    let Architecture::Gpt2(t) = parse(tiny).unwrap() else {
        panic!()
    };
    assert_eq!(
        (t.n_embd, t.n_head, t.n_layer, t.n_positions, t.n_inner),
        (32, 4, 2, 16, 128)
    );
    assert!(t.scale_attn_by_inverse_layer_idx);
    // The default bos/eos 50256 lies outside a tiny vocabulary: kept, and `in_vocab` drops it.
    assert_eq!(t.special.bos, Some(50256));
    assert_eq!(t.special.in_vocab(99), SpecialTokens::default());
    assert!(err(r#"{"model_type":"gpt2","n_embd":64,"hidden_size":32}"#).contains("alias"));
    assert!(err(r#"{"model_type":"gpt2","n_inner":0}"#).contains("n_inner"));
    assert!(err(r#"{"model_type":"gpt2","add_cross_attention":true}"#).contains("cross"));
}

const SMOLLM2: &str = r#"{"architectures":["LlamaForCausalLM"],"attention_bias":false,"attention_dropout":0.0,
        "bos_token_id":1,"eos_token_id":2,"head_dim":64,"hidden_act":"silu","hidden_size":576,
        "initializer_range":0.041666666666666664,"intermediate_size":1536,"is_llama_config":true,
        "max_position_embeddings":8192,"mlp_bias":false,"model_type":"llama","num_attention_heads":9,
        "num_hidden_layers":30,"num_key_value_heads":3,"pad_token_id":2,"pretraining_tp":1,
        "rms_norm_eps":1e-05,"rope_interleaved":false,"rope_scaling":null,"rope_theta":100000,
        "tie_word_embeddings":true,"torch_dtype":"bfloat16","transformers_version":"4.42.3",
        "use_cache":true,"vocab_size":49152}"#;

#[test]
fn llama_smollm2_and_defaults() {
    let c = llama_of(SMOLLM2);
    assert_eq!(
        (
            c.num_hidden_layers,
            c.num_attention_heads,
            c.num_key_value_heads,
            c.head_dim
        ),
        (30, 9, 3, 64)
    );
    assert_eq!(
        (c.hidden_size, c.intermediate_size, c.vocab_size),
        (576, 1536, 49152)
    );
    assert_eq!(
        c.rope,
        Rope {
            theta: 1e5,
            scaling: RopeScaling::None
        }
    );
    assert_eq!(c.rms_norm_eps, 1e-5);
    assert!(c.tie_word_embeddings && !c.attention_bias && !c.o_proj_bias && !c.mlp_bias);
    assert_eq!(
        (c.special.bos, c.special.eos.clone(), c.special.pad),
        (Some(1), vec![2], Some(2))
    );
    let d = llama_of(r#"{"model_type":"llama"}"#);
    assert_eq!(
        (
            d.vocab_size,
            d.hidden_size,
            d.intermediate_size,
            d.num_hidden_layers
        ),
        (32000, 4096, 11008, 32)
    );
    assert_eq!(
        (d.num_key_value_heads, d.head_dim, d.max_position_embeddings),
        (32, 128, 2048)
    );
    assert_eq!((d.rms_norm_eps, d.rope.theta), (1e-6, 10000.0));
    assert!(!d.tie_word_embeddings);
    assert_eq!(
        (d.special.bos, d.special.eos.clone(), d.special.pad),
        (Some(1), vec![2], None)
    );
    // Explicit head_dim independent of hidden/heads; eos list; pad -1; attention bias on all four.
    let e = llama_of(
        r#"{"model_type":"llama","hidden_size":48,"num_attention_heads":4,"head_dim":16,
            "num_key_value_heads":2,"eos_token_id":[2,7],"pad_token_id":-1,"attention_bias":true,"mlp_bias":true,
            "vocab_size":10}"#,
    );
    assert_eq!(
        (e.head_dim, e.special.eos.clone(), e.special.pad),
        (16, vec![2, 7], None)
    );
    assert!(e.attention_bias && e.o_proj_bias && e.mlp_bias);
}

#[test]
fn llama_impossible_shapes() {
    for (text, needle) in [
        (
            r#"{"model_type":"llama","num_attention_heads":6,"num_key_value_heads":4,"hidden_size":48}"#,
            "num_key_value_heads",
        ),
        (
            r#"{"model_type":"llama","hidden_size":30,"num_attention_heads":4}"#,
            "multiple",
        ),
        (r#"{"model_type":"llama","head_dim":7}"#, "even"),
        (
            r#"{"model_type":"llama","vocab_size":1000000000000}"#,
            "vocab_size",
        ),
        (
            r#"{"model_type":"llama","num_hidden_layers":0}"#,
            "num_hidden_layers",
        ),
        (
            r#"{"model_type":"llama","num_hidden_layers":-3}"#,
            "num_hidden_layers",
        ),
        (
            r#"{"model_type":"llama","hidden_size":64.5}"#,
            "hidden_size",
        ),
        (
            r#"{"model_type":"llama","hidden_size":"64"}"#,
            "hidden_size",
        ),
        (
            r#"{"model_type":"llama","intermediate_size":18446744073709551615}"#,
            "intermediate_size",
        ),
        (r#"{"model_type":"llama","rms_norm_eps":0}"#, "rms_norm_eps"),
        (r#"{"model_type":"llama","rope_theta":-1}"#, "rope_theta"),
        (
            r#"{"model_type":"llama","tie_word_embeddings":"yes"}"#,
            "tie_word_embeddings",
        ),
        (
            r#"{"model_type":"llama","bos_token_id":"<s>"}"#,
            "bos_token_id",
        ),
        (
            r#"{"model_type":"llama","eos_token_id":[1,"x"]}"#,
            "eos_token_id",
        ),
    ] {
        let m = err(text);
        assert!(
            m.contains(needle) && m.contains("config.json"),
            "{text}: {m}"
        );
    }
}

#[test]
fn rope_scaling_v4_and_v5() {
    let llama3 = r#""factor":8.0,"low_freq_factor":1.0,"high_freq_factor":4.0,"original_max_position_embeddings":8192"#;
    let want = RopeScaling::Llama3 {
        factor: 8.0,
        low_freq_factor: 1.0,
        high_freq_factor: 4.0,
        original_max_position_embeddings: 8192,
    };
    let v4 = llama_of(&format!(
        r#"{{"model_type":"llama","rope_theta":500000.0,"rope_scaling":{{"rope_type":"llama3",{llama3}}}}}"#
    ));
    assert_eq!(
        v4.rope,
        Rope {
            theta: 5e5,
            scaling: want.clone()
        }
    );
    let v5 = llama_of(&format!(
        r#"{{"model_type":"llama","rope_parameters":{{"rope_type":"llama3","rope_theta":500000.0,{llama3}}}}}"#
    ));
    assert_eq!(v5.rope, v4.rope);
    let per_layer = llama_of(
        r#"{"model_type":"llama","rope_parameters":{"full_attention":{"rope_type":"default","rope_theta":1000.0}}}"#,
    );
    assert_eq!(
        per_layer.rope,
        Rope {
            theta: 1000.0,
            scaling: RopeScaling::None
        }
    );
    let legacy =
        llama_of(r#"{"model_type":"llama","rope_scaling":{"type":"linear","factor":2.0}}"#);
    assert_eq!(legacy.rope.scaling, RopeScaling::Linear { factor: 2.0 });
    let theta_outside = llama_of(
        r#"{"model_type":"llama","rope_theta":123.0,"rope_parameters":{"rope_type":"default"}}"#,
    );
    assert_eq!(theta_outside.rope.theta, 123.0);
    let original_top = llama_of(
        r#"{"model_type":"llama","original_max_position_embeddings":4096,"rope_scaling":{"rope_type":"llama3","factor":2.0,"low_freq_factor":1.0,"high_freq_factor":2.0}}"#,
    );
    assert!(matches!(
        original_top.rope.scaling,
        RopeScaling::Llama3 {
            original_max_position_embeddings: 4096,
            ..
        }
    ));
    for (scaling, needle) in [
        (r#"{"rope_type":"dynamic","factor":2.0}"#, "dynamic"),
        (r#"{"rope_type":"yarn","factor":2.0}"#, "yarn"),
        (r#"{"rope_type":"linear"}"#, "factor"),
        (r#"{"rope_type":"linear","factor":-1}"#, "factor"),
        (
            r#"{"rope_type":"llama3","factor":8.0,"low_freq_factor":4.0,"high_freq_factor":1.0,"original_max_position_embeddings":8192}"#,
            "low_freq_factor",
        ),
        (
            r#"{"rope_type":"llama3","factor":8.0,"low_freq_factor":1.0,"high_freq_factor":4.0}"#,
            "original_max_position_embeddings",
        ),
        (r#""linear""#, "rope_scaling"),
    ] {
        let m = err(&format!(
            r#"{{"model_type":"llama","rope_scaling":{scaling}}}"#
        ));
        assert!(m.contains(needle), "{scaling}: {m}");
    }
    let m = err(
        r#"{"model_type":"llama","rope_parameters":{"full_attention":{},"sliding_attention":{}}}"#,
    );
    assert!(m.contains("per layer type"), "{m}");
}

#[test]
fn inverse_frequencies() {
    let plain = Rope {
        theta: 10000.0,
        scaling: RopeScaling::None,
    };
    let f = plain.inv_freq(8, None).unwrap();
    assert_eq!(f.len(), 4);
    assert_eq!(f[0], 1.0);
    assert!((f[2] - 0.01).abs() < 1e-9, "{f:?}");
    let lin = Rope {
        scaling: RopeScaling::Linear { factor: 4.0 },
        ..plain.clone()
    };
    assert_eq!(lin.inv_freq(8, None).unwrap()[0], 0.25);
    // Llama 3 with O = 8, lo = 1, hi = 4: wavelengths above 8 scale by 1/F, below 2 stay,
    // between ramp. θ = 10000, head 8: wavelengths 2π, 20π, 200π, 2000π.
    let l3 = Rope {
        scaling: RopeScaling::Llama3 {
            factor: 8.0,
            low_freq_factor: 1.0,
            high_freq_factor: 4.0,
            original_max_position_embeddings: 8,
        },
        ..plain.clone()
    };
    let g = l3.inv_freq(8, None).unwrap();
    assert_eq!(g[1], f[1] / 8.0);
    assert_eq!(g[3], f[3] / 8.0);
    let s = (8.0 / (2.0 * std::f32::consts::PI) - 1.0) / 3.0;
    assert!((g[0] - ((1.0 - s) / 8.0 + s)).abs() < 1e-6, "{g:?}");
    let gg = Rope {
        scaling: RopeScaling::GgufFreqFactors {
            tensor: "rope_freqs.weight".into(),
        },
        ..plain
    };
    assert_eq!(gg.inv_freq(4, Some(&[2.0, 1.0])).unwrap(), [0.5, 0.01]);
    assert!(gg.inv_freq(4, None).is_err());
    assert!(gg.inv_freq(4, Some(&[1.0])).is_err());
}

#[test]
fn mistral_and_qwen2() {
    let m = llama_of(r#"{"model_type":"mistral","attention_bias":true}"#);
    assert_eq!(m.flavor, LlamaFlavor::Mistral);
    assert_eq!(
        (m.num_key_value_heads, m.intermediate_size, m.sliding_window),
        (8, 14336, None)
    );
    assert!(!m.attention_bias);
    let w = llama_of(r#"{"model_type":"mistral","sliding_window":4096}"#);
    assert_eq!(w.sliding_window, Some(4096));
    let q = llama_of(
        r#"{"model_type":"qwen2","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"sliding_window":4096,"use_sliding_window":false,"bos_token_id":151643,"eos_token_id":151645}"#,
    );
    assert!(q.attention_bias && !q.o_proj_bias && !q.mlp_bias);
    assert_eq!(
        (q.vocab_size, q.sliding_window, q.special.eos.clone()),
        (151936, None, vec![151645])
    );
    let d = llama_of(r#"{"model_type":"qwen2"}"#);
    assert_eq!((d.num_key_value_heads, d.special.bos), (32, None));
    assert!(
        err(r#"{"model_type":"qwen2","use_sliding_window":true}"#).contains("use_sliding_window")
    );
}

#[test]
fn unknown_and_broken_files() {
    let m = err(r#"{"model_type":"gpt_neo"}"#);
    assert!(
        m.contains("gpt_neo") && m.contains("bert, gpt2, llama, mistral, qwen2"),
        "{m}"
    );
    assert!(matches!(
        parse(r#"{"model_type":"roberta"}"#),
        Err(ImportError::UnsupportedModelType { .. })
    ));
    assert!(err(r#"{"hidden_size":3}"#).contains("no `model_type`"));
    assert!(err(r#"{"model_type":7}"#).contains("not a string"));
    assert!(err("[1]").contains("not a JSON object"));
    assert!(err("{").contains("not valid JSON"));
    assert!(err("").contains("not valid JSON"));
    let huge = format!(
        r#"{{"model_type":"bert","x":"{}"}}"#,
        "a".repeat(MAX_CONFIG_BYTES)
    );
    assert!(err(&huge).contains("bytes"));
    let deep = "[".repeat(100_000);
    assert!(parse(&deep).is_err());
}
