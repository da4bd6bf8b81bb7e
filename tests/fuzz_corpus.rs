//! Replays every fuzz corpus file and every crash the fuzzers found (`fuzz/corpus/<target>/`,
//! `fuzz/regressions/<target>/`) through the harnesses in `glimpse::fuzzing`, on stable Rust:
//! CI guards each fixed crash without cargo-fuzz or nightly. See fuzz/README.md.
//!
//! `cargo test --release --test fuzz_corpus -- --ignored write_seeds` rewrites the seed inputs
//! (`fuzz/corpus/<target>/seed-*`) from the app's own models, links, texts and tables.

use glimpse::fuzzing;
use std::path::{Path, PathBuf};

type Harness = fn(&[u8]);

const TARGETS: [(&str, Harness); 7] = [
    ("checkpoint", |d| drop(fuzzing::checkpoint(d))),
    ("link", |d| drop(fuzzing::link(d))),
    ("tokenizer", |d| drop(fuzzing::tokenizer(d))),
    ("beam_table", |d| drop(fuzzing::beam_table(d))),
    ("gguf", |d| drop(fuzzing::gguf(d))),
    ("safetensors", |d| drop(fuzzing::safetensors(d))),
    ("subword", |d| drop(fuzzing::subword(d))),
];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// The files of `fuzz/<kind>/<target>/`, sorted (empty when the folder is absent).
fn files(kind: &str, target: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(fuzz_dir().join(kind).join(target))
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    out.retain(|p| p.is_file());
    out.sort();
    out
}

fn replay(kind: &str) -> usize {
    let mut total = 0;
    for (target, harness) in TARGETS {
        for path in files(kind, target) {
            let data = std::fs::read(&path).unwrap();
            // A panic names the file, so a failure here reads like the fuzzer's report.
            let outcome = std::panic::catch_unwind(|| harness(&data));
            assert!(outcome.is_ok(), "{} panicked", path.display());
            total += 1;
        }
    }
    total
}

#[test]
fn every_corpus_input_runs_without_panicking() {
    for (target, _) in TARGETS {
        assert!(
            !files("corpus", target).is_empty(),
            "fuzz/corpus/{target} is empty"
        );
    }
    let n = replay("corpus");
    println!("replayed {n} corpus inputs");
}

#[test]
fn every_crash_found_stays_fixed() {
    let n = replay("regressions");
    println!("replayed {n} regressions");
}

#[test]
fn the_seeds_reach_the_code_behind_the_parsers() {
    // Without inputs that get past the parsers, fuzzing would only ever test error paths.
    let seeds = |target| files("corpus", target);
    assert!(seeds("checkpoint")
        .iter()
        .any(|p| fuzzing::checkpoint(&std::fs::read(p).unwrap()).is_ok()));
    assert!(seeds("beam_table")
        .iter()
        .any(|p| fuzzing::beam_table(&std::fs::read(p).unwrap()).is_ok()));
    assert!(seeds("link")
        .iter()
        .any(|p| fuzzing::link(&std::fs::read(p).unwrap()).is_empty()));
    assert!(seeds("tokenizer")
        .iter()
        .any(|p| fuzzing::tokenizer(&std::fs::read(p).unwrap()).is_ok()));
    // Every GGUF and safetensors seed is a valid file: the fuzzer starts from readable ones.
    assert!(seeds("gguf")
        .iter()
        .filter(|p| p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("seed-")))
        .all(|p| fuzzing::gguf(&std::fs::read(p).unwrap()).is_ok()));
    assert!(seeds("safetensors")
        .iter()
        .any(|p| fuzzing::safetensors(&std::fs::read(p).unwrap()).is_ok()));
    assert!(seeds("subword")
        .iter()
        .any(|p| fuzzing::subword(&std::fs::read(p).unwrap()).is_ok()));
}

/// Writes the seed inputs (ignored: run by hand, see the top of this file).
#[test]
#[ignore]
fn write_seeds() {
    for (target, inputs) in seeds::all() {
        let dir = fuzz_dir().join("corpus").join(target);
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in inputs {
            std::fs::write(dir.join(format!("seed-{name}")), bytes).unwrap();
        }
    }
}

mod seeds {
    use glimpse::app::{link, GlimpseApp};
    use glimpse::decode::table::TEXTBOOK;
    use glimpse::model::config::{FORMAT_NAME, FORMAT_VERSION};
    use glimpse::model::tokenizer::{TokenizerKind, TokenizerSpec};
    use glimpse::model::{
        builtin, checkpoint, Activation, Family, Model, ModelConfig, NormPlacement, Positional,
        Scoring,
    };

    type Inputs = Vec<(String, Vec<u8>)>;

    pub fn all() -> Vec<(&'static str, Inputs)> {
        vec![
            ("checkpoint", checkpoints()),
            ("link", links()),
            ("tokenizer", texts()),
            ("beam_table", tables()),
            ("gguf", gguf_files()),
            ("safetensors", safetensors_files()),
            ("subword", subwords()),
        ]
    }

    /// Small GGUF files: a whole tiny Llama with its tokenizer and every tensor type Glimpse
    /// reads, every metadata value type, and a 64-byte alignment.
    fn gguf_files() -> Inputs {
        use glimpse::model::import::gguf::{GgmlType, MetaArray, MetaValue};
        use glimpse::model::import::gguf_writer::GgufWriter;
        let u = MetaValue::U32;
        let strings = |v: &[&str]| {
            MetaValue::Array(MetaArray::Str(v.iter().map(|s| s.to_string()).collect()))
        };
        let mut llama = GgufWriter::new();
        llama
            .meta("general.architecture", MetaValue::Str("llama".into()))
            .meta("llama.block_count", u(1))
            .meta("llama.context_length", u(8))
            .meta("llama.embedding_length", u(32))
            .meta("llama.feed_forward_length", u(32))
            .meta("llama.attention.head_count", u(2))
            .meta("llama.attention.head_count_kv", u(1))
            .meta(
                "llama.attention.layer_norm_rms_epsilon",
                MetaValue::F32(1e-5),
            )
            .meta("llama.rope.freq_base", MetaValue::F32(1e5))
            .meta("tokenizer.ggml.model", MetaValue::Str("gpt2".into()))
            .meta("tokenizer.ggml.tokens", strings(&["<s>", "a", "b", "ab"]))
            .meta(
                "tokenizer.ggml.token_type",
                MetaValue::Array(MetaArray::I32(vec![3, 1, 1, 1])),
            )
            .meta("tokenizer.ggml.merges", strings(&["a b"]))
            .meta("tokenizer.ggml.bos_token_id", u(0))
            .meta("tokenizer.ggml.add_bos_token", MetaValue::Bool(false));
        // f16 scale 1.0 (0x3c00) or 0.5 (0x3800), then the block's quants.
        let q8: Vec<u8> = [vec![0, 0x3c], (0..32).collect()].concat();
        let q4_0: Vec<u8> = [vec![0, 0x38], (0..16).collect()].concat();
        let q4_1: Vec<u8> = [vec![0, 0x38, 0, 0xbc], (0..16).collect()].concat();
        llama
            .tensor_bytes("token_embd.weight", &[4, 32], GgmlType::Q8_0, q8.repeat(4))
            .tensor_bytes(
                "blk.0.attn_q.weight",
                &[32, 32],
                GgmlType::Q4_0,
                q4_0.repeat(32),
            )
            .tensor_bytes(
                "blk.0.attn_k.weight",
                &[16, 32],
                GgmlType::Q4_1,
                q4_1.repeat(16),
            )
            .tensor_f16("blk.0.attn_norm.weight", &[32], &[1.0; 32])
            .tensor_bf16("blk.0.ffn_norm.weight", &[32], &[1.0; 32])
            .tensor_f32("output_norm.weight", &[32], &[1.0; 32]);
        let mut values = GgufWriter::new();
        values
            .meta("u8", MetaValue::U8(1))
            .meta("i8", MetaValue::I8(-1))
            .meta("u16", MetaValue::U16(2))
            .meta("i16", MetaValue::I16(-2))
            .meta("i32", MetaValue::I32(-3))
            .meta("u64", MetaValue::U64(4))
            .meta("i64", MetaValue::I64(-4))
            .meta("f64", MetaValue::F64(0.5))
            .meta("text", MetaValue::Str("é".into()))
            .meta(
                "nested",
                MetaValue::Array(MetaArray::Array(vec![
                    MetaArray::U8(vec![1]),
                    MetaArray::F64(vec![2.0]),
                ])),
            )
            .tensor_f32("t", &[1, 2], &[1.0, 2.0]);
        let mut aligned = GgufWriter::new();
        aligned
            .meta("general.alignment", u(64))
            .tensor_f32("a", &[3], &[1.0, 2.0, 3.0])
            .tensor_f16("b", &[2], &[1.0, -1.0]);
        vec![
            ("llama".into(), llama.to_bytes()),
            ("values".into(), values.to_bytes()),
            ("aligned".into(), aligned.to_bytes()),
        ]
    }

    /// `config.json \0 weights.safetensors` for each family, F32/F16/BF16 tensors and a buffer
    /// to skip, and a shard index on its own.
    fn safetensors_files() -> Inputs {
        use safetensors::tensor::TensorView;
        use safetensors::Dtype;
        let file = |tensors: &[(&str, Dtype, Vec<usize>, Vec<u8>)]| {
            let views: Vec<(String, TensorView)> = tensors
                .iter()
                .map(|(n, d, s, b)| (n.to_string(), TensorView::new(*d, s.clone(), b).unwrap()))
                .collect();
            safetensors::serialize(views, None).unwrap()
        };
        let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let weights = file(&[
            (
                "bert.embeddings.word_embeddings.weight",
                Dtype::F32,
                vec![2, 2],
                f32s(&[1.0, 2.0, 3.0, 4.0]),
            ),
            (
                "bert.embeddings.position_ids",
                Dtype::I64,
                vec![1, 2],
                vec![0; 16],
            ),
            (
                "cls.predictions.bias",
                Dtype::F16,
                vec![2],
                vec![0, 0x3c, 0, 0xc0],
            ),
            (
                "h.0.ln_1.weight",
                Dtype::BF16,
                vec![2],
                vec![0x80, 0x3f, 0, 0],
            ),
        ]);
        let with_config = |config: &str| {
            let mut out = config.as_bytes().to_vec();
            out.push(0);
            out.extend(&weights);
            out
        };
        vec![
            ("bert".into(), with_config(r#"{"model_type":"bert","hidden_size":4,"num_attention_heads":2,"vocab_size":2}"#)),
            ("gpt2".into(), with_config(r#"{"model_type":"gpt2","n_embd":4,"n_head":2,"n_layer":1,"vocab_size":2}"#)),
            ("llama3".into(), with_config(r#"{"model_type":"llama","hidden_size":8,"num_attention_heads":2,"num_key_value_heads":1,"rope_scaling":{"rope_type":"llama3","factor":8.0,"low_freq_factor":1.0,"high_freq_factor":4.0,"original_max_position_embeddings":8}}"#)),
            ("index".into(), br#"{"metadata":{},"weight_map":{"a":"model-00001-of-00002.safetensors","b":"model-00002-of-00002.safetensors"}}"#.to_vec()),
        ]
    }

    /// A text through each sub-word fixture (tests/fixtures/tokenizers): WordPiece, byte-level
    /// BPE and SentencePiece-style BPE, as `text \0 tokenizer.json`.
    fn subwords() -> Inputs {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tokenizers");
        ["wordpiece", "byte_level", "sentencepiece"]
            .into_iter()
            .map(|name| {
                let mut bytes = "The [MASK] sat: café déjà vu 😀\n  3.14 <|endoftext|><s>"
                    .as_bytes()
                    .to_vec();
                bytes.push(0);
                bytes.extend(std::fs::read(dir.join(format!("{name}.json"))).unwrap());
                (name.to_string(), bytes)
            })
            .collect()
    }

    /// The smallest model of a kind: every tensor present, each a few numbers.
    fn tiny(
        family: Family,
        positional: Positional,
        scoring: Scoring,
        kind: TokenizerKind,
    ) -> ModelConfig {
        let tokenizer = match kind {
            TokenizerKind::Char => TokenizerSpec::with_symbols(kind, "ab ".chars()),
            TokenizerKind::Word | TokenizerKind::Subword => {
                TokenizerSpec::with_symbols(TokenizerKind::Word, ["la", "zone", "."])
            }
        };
        ModelConfig {
            format: FORMAT_NAME.into(),
            version: FORMAT_VERSION,
            name: "tiny".into(),
            description: String::new(),
            family,
            d_model: 4,
            n_heads: 2,
            n_kv_heads: 1,
            n_layers: 1,
            d_ff: 4,
            max_len: 6,
            activation: Activation::Gelu,
            norm: NormPlacement::Pre,
            ln_eps: 1e-5,
            positional,
            scoring,
            tie_embeddings: false,
            causal: true,
            tokenizer,
            extensions: Default::default(),
        }
    }

    /// `config \0 weights`, the config compact (fewer bytes for the fuzzer to wade through).
    fn checkpoint_bytes(cfg: ModelConfig, seed: u64) -> Vec<u8> {
        let model = Model::random(cfg, seed).unwrap();
        let (_, weights) = checkpoint::save_bytes(&model).unwrap();
        let mut out = serde_json::to_vec(&model.config).unwrap();
        out.push(0);
        out.extend(weights);
        out
    }

    fn checkpoints() -> Inputs {
        use Family::*;
        use Positional as P;
        let char = TokenizerKind::Char;
        let mut post = tiny(
            Encoder,
            P::Sinusoidal { base: 100.0 },
            Scoring::Additive,
            char,
        );
        post.norm = NormPlacement::Post;
        post.activation = Activation::Relu;
        let mut tied = tiny(
            EncoderDecoder,
            P::Learned,
            Scoring::Bilinear,
            TokenizerKind::Word,
        );
        tied.tie_embeddings = true;
        let mut nomask = tiny(Decoder, P::Alibi, Scoring::ScaledDot, char);
        nomask.causal = false;
        nomask.n_kv_heads = 2;
        let configs = [
            (
                "decoder-rope",
                tiny(Decoder, P::Rope { base: 10000.0 }, Scoring::ScaledDot, char),
            ),
            ("encoder-sinusoidal-additive", post),
            ("encdec-learned-bilinear-tied", tied),
            ("decoder-alibi-nomask", nomask),
            (
                "encdec-relative",
                tiny(
                    EncoderDecoder,
                    P::Relative { max_distance: 2 },
                    Scoring::ScaledDot,
                    char,
                ),
            ),
        ];
        configs
            .into_iter()
            .enumerate()
            .map(|(i, (name, cfg))| (name.to_string(), checkpoint_bytes(cfg, i as u64)))
            .collect()
    }

    /// Links the app writes for each view and a few models, and some it must refuse politely.
    fn links() -> Inputs {
        let mut out = Vec::new();
        let views = [
            "attention",
            "masking",
            "positions",
            "decoding",
            "scoring",
            "training",
            "lessons",
        ];
        let models = ["translate", "repeat", "demo-encoder"];
        for (i, view) in views.iter().enumerate() {
            let mut app = GlimpseApp::default();
            let opened = format!(
                "view={view}&model={}&hide=controls",
                models[i % models.len()]
            );
            link::apply(&mut app, &opened);
            out.push((format!("view-{view}"), link::encode(&app).into_bytes()));
        }
        for (name, text) in [
            ("url", "https://example.org/glimpse/#v=1&view=attention&model=reverse&src=abcdefgh&tgt=hgfedcba&kind=cross&layer=1&head=0"),
            ("custom-mask", "view=masking&mm=5&custom=3x3:c98"),
            ("garbage", "#v=999&view=nowhere&layer=-1&head=x&tau=NaN&beam=0&model=nope&zzz=1"),
            ("escapes", "#model=%FF%FE&src=%E2%28%A1&tgt=%"),
        ] {
            out.push((name.to_string(), text.as_bytes().to_vec()));
        }
        out
    }

    /// Each shipped model's example text, and texts with tokenizer specs after a zero byte.
    fn texts() -> Inputs {
        let mut out: Inputs = builtin::BUILTINS
            .iter()
            .map(|b| {
                (
                    b.name.to_string(),
                    format!("{} {}", b.example_source, b.example_target).into_bytes(),
                )
            })
            .collect();
        let spec = |kind, symbols: &[&str]| {
            serde_json::to_vec(&TokenizerSpec::with_symbols(kind, symbols.iter().copied())).unwrap()
        };
        for (name, text, spec) in [
            (
                "char-spec",
                "ab<bos>c é",
                spec(TokenizerKind::Char, &["a", "b", "é", " "]),
            ),
            (
                "word-spec",
                "Je suis étudiant. <unk>",
                spec(TokenizerKind::Word, &["je", "suis", "."]),
            ),
        ] {
            let mut bytes = text.as_bytes().to_vec();
            bytes.push(0);
            bytes.extend(spec);
            out.push((name.to_string(), bytes));
        }
        out
    }

    /// The decoding lab's textbook table and a few other tables, after the three setting bytes.
    fn tables() -> Inputs {
        [
            ("textbook", TEXTBOOK),
            (
                "comments",
                "# a comment\n\nthe -> cat 2, <eos> 1\n<bos> -> the 1\n",
            ),
            (
                "deep",
                "<bos> -> a 1, b 1\n<bos> a -> a 1, b 1, <eos> 1\n<bos> a a -> a 1e-30, <eos> 0\n",
            ),
        ]
        .into_iter()
        .map(|(name, text)| {
            let mut bytes = vec![31, 8 * 5 + 2, 6];
            bytes.extend(text.as_bytes());
            (name.to_string(), bytes)
        })
        .collect()
    }
}

/// The bytes of `fuzz/regressions/<target>/<name>`.
fn regression(target: &str, name: &str) -> Vec<u8> {
    std::fs::read(fuzz_dir().join("regressions").join(target).join(name)).unwrap()
}

#[test]
fn a_token_repeated_in_a_table_row_is_refused_by_name() {
    // Found by the fuzzer: `eos> 1e-30, eos> 0` in one row, the second entry silently replaced
    // the first, leaving <bos> without any next token.
    let e = fuzzing::beam_table(&regression("beam_table", "repeated-token-in-row")).unwrap_err();
    assert!(
        e.contains("line 1: `eos>` appears twice in this row"),
        "{e}"
    );
}

#[test]
fn a_table_row_of_huge_weights_is_still_a_distribution() {
    // 1e308 + 1e308 overflowed to ∞, so normalising turned every probability into 0.
    assert_eq!(
        fuzzing::beam_table(&regression("beam_table", "huge-weights")),
        Ok(())
    );
}

#[test]
fn tokenizer_files_that_crash_the_tokenizers_crate_are_refused() {
    // Each of these panics inside the `tokenizers` crate (two found by generating files from the
    // accepted components); the checks in src/model/subword refuse them first.
    for (name, words) in [
        (
            "added-token-normalized-to-nothing",
            "becomes empty once normalized",
        ),
        ("zero-width-replace", "can match empty text"),
        ("merge-longer-than-any-token", "not in the vocabulary"),
        ("merge-shorter-than-prefix", "continuing-subword prefix"),
        ("template-names-missing-token", "is not in special_tokens"),
        ("rstrip-token-then-space-token", "starts with whitespace"),
        ("strip-decoder-past-the-token", "Strip decoder"),
        ("fixed-length-zero", "`length` is 0"),
    ] {
        let e = fuzzing::subword(&regression("subword", name)).unwrap_err();
        assert!(e.contains(words), "{name}: {e}");
    }
}
