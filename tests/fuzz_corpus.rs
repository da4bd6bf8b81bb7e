//! Replays every fuzz corpus file and every crash the fuzzers found (`fuzz/corpus/<target>/`,
//! `fuzz/regressions/<target>/`) through the harnesses in `glimpse::fuzzing`, on stable Rust:
//! CI guards each fixed crash without cargo-fuzz or nightly. See fuzz/README.md.
//!
//! `cargo test --release --test fuzz_corpus -- --ignored write_seeds` rewrites the seed inputs
//! (`fuzz/corpus/<target>/seed-*`) from the app's own models, links, texts and tables.

use glimpse::fuzzing;
use std::path::{Path, PathBuf};

type Harness = fn(&[u8]);

const TARGETS: [(&str, Harness); 5] = [
    ("checkpoint", |d| drop(fuzzing::checkpoint(d))),
    ("link", |d| drop(fuzzing::link(d))),
    ("tokenizer", |d| drop(fuzzing::tokenizer(d))),
    ("beam_table", |d| drop(fuzzing::beam_table(d))),
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
            ("subword", subwords()),
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
            TokenizerKind::Word => TokenizerSpec::with_symbols(kind, ["la", "zone", "."]),
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
