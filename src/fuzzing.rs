//! Fuzz harnesses: one function per target in `fuzz/`, each taking raw bytes and driving them
//! through the same code a file, a link or a typed text reaches. They live in the library (not in
//! `fuzz/`) so that `tests/fuzz_corpus.rs` can replay every corpus file and every crash found on
//! stable Rust. None of them may panic on any input; a panic here is a bug in Glimpse, except
//! the `assert!`s below, which state properties the app promises (a link reproduces its view).

use crate::app::{link, GlimpseApp};
use crate::decode::beam::{greedy, BeamConfig, BeamSearch};
use crate::decode::{sample, ModelSource, SampleConfig, Source, TableSource};
use crate::model::heads::every_head;
use crate::model::import::gguf::{Gguf, MetaValue};
use crate::model::import::gguf_model::GgufTokenizerData;
use crate::model::import::hf_config::{Architecture, LlamaConfig};
use crate::model::import::limits::Limits;
use crate::model::import::safetensors_file::{parse_index, read_safetensors_with, ReadOptions};
use crate::model::import::tensors::{RawTensor, TensorData, TensorSet};
use crate::model::subword::{InputLimit, Overflow, SubwordError, SubwordTokenizer};
use crate::model::tokenizer::{Tokenizer, TokenizerKind, TokenizerSpec, BOS, UNK};
use crate::model::{builtin, checkpoint, ForwardOptions, Model};
use std::sync::OnceLock;

/// Splits at the first zero byte: text never needs one, so a seed is `text \0 rest`.
fn split_at_zero(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[]),
    }
}

/// `config.json \0 weights.safetensors`: loads the checkpoint as `glimpse attn --model PATH`
/// does and, when it loads, runs it like the CLI and the app. Returns the loader's verdict.
pub fn checkpoint(data: &[u8]) -> Result<(), String> {
    // The raw bytes as a weights file on their own: the safetensors parser sees every byte.
    let _ = checkpoint::read_tensors(data);
    let (config, weights) = split_at_zero(data);
    let model = checkpoint::load_bytes(&String::from_utf8_lossy(config), weights)
        .map_err(|e| e.to_string())?;
    run_model(&model);
    Ok(())
}

/// A forward pass with the trace as JSON and head statistics (the CLI's `attn`, the app's
/// explorer), then a short beam search with the key/value cache and greedy decoding without.
fn run_model(model: &Model) {
    // A short input made of the model's own vocabulary, so it reaches the layers as real ids.
    let words: Vec<&str> = model
        .tokenizer
        .spec()
        .tokens
        .iter()
        .skip(4)
        .take(3)
        .map(String::as_str)
        .collect();
    let sep = if model.tokenizer.kind() == TokenizerKind::Word {
        " "
    } else {
        ""
    };
    let text = words.join(sep);
    let prepared = model.prepare(&text, &text);
    if let Ok(trace) = model.forward(&prepared.input, &ForwardOptions::default()) {
        let _ = serde_json::to_string(&trace);
        for kind in trace.attention_kinds() {
            let _ = every_head(&trace, kind, prepared.sequence(kind));
        }
    }
    if !model.config.family.has_decoder() {
        return;
    }
    let config = BeamConfig {
        width: 2,
        alpha: 0.6,
        max_len: 4,
    };
    for use_cache in [true, false] {
        let Ok(mut source) = ModelSource::new(model.clone(), &text, 1.0, use_cache) else {
            return;
        };
        let prompt = [BOS];
        if use_cache {
            let mut beam = BeamSearch::new(&source, config, &prompt);
            let _ = beam.run(&mut source, &prompt);
        } else {
            let _ = greedy(&mut source, &prompt, config.max_len);
        }
    }
}

/// A URL hash as the browser hands it over (any text): the app opens it, draws a frame, and its
/// own link must then reproduce its state exactly.
pub fn link(data: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(data);
    let mut app = fresh_app();
    app.open_link(&text);
    let notices = app.nav.notices.clone();
    assert_reproduces(&app);
    draw_frame(&mut app);
    // Drawing may clamp a selection to the model; the link written afterwards is what a user
    // copies from the address bar.
    assert_reproduces(&app);
    notices
}

/// The app as a fresh browser tab opens it, training inside frames (no worker thread), as in
/// the browser.
fn fresh_app() -> GlimpseApp {
    let mut app = GlimpseApp::default();
    app.lab_mut::<crate::app::labs::training::TrainingLab>()
        .threaded = false;
    app
}

/// The app's link opened in a fresh app gives back the same link without a notice.
fn assert_reproduces(app: &GlimpseApp) {
    let hash = link::encode(app);
    let mut copy = fresh_app();
    let notices = link::apply(&mut copy, &hash);
    assert!(
        notices.is_empty(),
        "the app's own link {hash:?} gave notices {notices:?}"
    );
    assert_eq!(
        link::encode(&copy),
        hash,
        "the app's own link does not reproduce it"
    );
}

/// One frame of the whole app at a laptop's window size, without a display.
fn draw_frame(app: &mut GlimpseApp) {
    let ctx = egui::Context::default();
    GlimpseApp::style(&ctx);
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1280.0, 800.0),
        )),
        ..Default::default()
    };
    // No renderer takes the textures; dropping them unapplied is deliberate.
    ctx.run_ui(input, |ui| app.show(ui))
        .drop_without_applying_deltas();
}

/// The tokenizers of every shipped model, built once (loading them is the slow part).
fn builtin_tokenizers() -> &'static [Tokenizer] {
    static TOKENIZERS: OnceLock<Vec<Tokenizer>> = OnceLock::new();
    TOKENIZERS.get_or_init(|| {
        builtin::BUILTINS
            .iter()
            .filter_map(|b| builtin::load(b.name).ok())
            .map(|m| m.tokenizer)
            .collect()
    })
}

/// `text \0 spec.json`: the text through every shipped tokenizer, and through the spec's own
/// tokenizer when the spec is valid JSON that `validate` accepts (as a config's loader does).
/// Returns the spec's verdict (`Ok` without a spec).
pub fn tokenizer(data: &[u8]) -> Result<(), String> {
    let (text, spec) = split_at_zero(data);
    let text = String::from_utf8_lossy(text);
    for t in builtin_tokenizers() {
        check_tokenizer(t, &text);
    }
    if spec.is_empty() {
        return Ok(());
    }
    let spec: TokenizerSpec = serde_json::from_slice(spec).map_err(|e| e.to_string())?;
    spec.validate().map_err(|e| e.to_string())?;
    let t = Tokenizer::new(spec).map_err(|e| e.to_string())?;
    check_tokenizer(&t, &text);
    Ok(())
}

/// What a tokenizer promises: one id per piece, in the vocabulary, unknowns counted as `<unk>`,
/// known pieces shown as themselves, and character text that decodes back to itself.
fn check_tokenizer(t: &Tokenizer, text: &str) {
    let pieces = t.pieces(text);
    let encoded = t.encode(text);
    assert_eq!(encoded.ids.len(), pieces.len());
    assert!(encoded.ids.iter().all(|&i| (i as usize) < t.vocab_size()));
    assert_eq!(
        encoded.unknown,
        encoded.ids.iter().filter(|&&i| i == UNK).count()
    );
    let shown = t.tokens(&encoded.ids);
    for ((piece, shown), &id) in pieces.iter().zip(&shown).zip(&encoded.ids) {
        assert!(id == UNK || piece == shown, "{piece:?} shown as {shown:?}");
    }
    let decoded = t.decode(&encoded.ids);
    if t.kind() == TokenizerKind::Char && encoded.unknown == 0 {
        assert_eq!(decoded, text);
    }
}

/// `text \0 tokenizer.json`: the file loaded as a real checkpoint's tokenizer (the checks, then
/// the `tokenizers` crate), and the text through it: bare, with special tokens, as a pair with
/// itself, cut to a few tokens, decoded, and each piece shown. Returns the loader's verdict.
pub fn subword(data: &[u8]) -> Result<(), String> {
    let (text, file) = split_at_zero(data);
    let text = String::from_utf8_lossy(text);
    let mut t = SubwordTokenizer::from_bytes(file, None).map_err(not_a_panic)?;
    for (pair, special) in [(None, false), (None, true), (Some(&*text), true)] {
        let e = match t.encode(&text, pair, special) {
            Ok(e) => e,
            Err(e) => {
                not_a_panic(e);
                continue;
            }
        };
        check_subword(&t, &e);
        if let Err(err) = t.decode(&e.ids) {
            not_a_panic(err);
        }
    }
    t.set_limit(Some(InputLimit {
        max_tokens: 3,
        overflow: Overflow::Truncate,
    }));
    match t.encode(&text, Some(&text), true) {
        Ok(e) => {
            assert!(e.len() <= 3, "truncated to {} tokens", e.len());
            check_subword(&t, &e);
        }
        Err(e) => {
            not_a_panic(e);
        }
    }
    Ok(())
}

/// The tokenizer's guard turns a panic of the crate into an error; for the fuzzer it is a crash.
fn not_a_panic(e: SubwordError) -> String {
    assert!(!matches!(e, SubwordError::Panicked(_)), "{e}");
    e.to_string()
}

/// One entry per token in every list, every id in the vocabulary and shown as `display_piece`.
fn check_subword(t: &SubwordTokenizer, e: &crate::model::subword::SubwordEncoding) {
    let n = e.ids.len();
    for len in [
        e.type_ids.len(),
        e.attention_mask.len(),
        e.offsets.len(),
        e.sequence.len(),
        e.special.len(),
        e.pieces.len(),
    ] {
        assert_eq!(len, n);
    }
    for (&id, piece) in e.ids.iter().zip(&e.pieces) {
        assert!(
            (id as usize) < t.vocab_size(),
            "id {id} of {}",
            t.vocab_size()
        );
        assert_eq!(t.display_piece(id).as_ref(), Some(piece));
    }
}

/// Three setting bytes then a table as typed in the decoding lab: temperature, beam width and
/// length, α, top-k/top-p and seed come from the bytes, in the ranges the app's controls allow.
/// Returns the parser's verdict.
pub fn beam_table(data: &[u8]) -> Result<(), String> {
    let [a, b, c, rest @ ..] = data else {
        return Err("too short".into());
    };
    let temperature = (f32::from(*a) + 1.0) / 32.0;
    let text = String::from_utf8_lossy(rest);
    let mut table = TableSource::parse(&text, temperature)?;
    let config = BeamConfig {
        width: 1 + usize::from(b % 8),
        alpha: f32::from(c % 21) / 10.0,
        max_len: 1 + usize::from(b / 8 % 30),
    };
    let prompt = [BOS];
    let mut beam = BeamSearch::new(&table, config, &prompt);
    beam.run(&mut table, &prompt)?;
    for id in beam.ranking() {
        let _ = beam.tokens(id);
    }
    // A parsed table gives every prefix a distribution, so decoding always takes a step.
    let (ids, _) = greedy(&mut table, &prompt, config.max_len)?;
    assert!(!ids.is_empty(), "greedy found no next token after <bos>");
    let cfg = SampleConfig {
        top_k: (c % 4 != 0).then_some(usize::from(c % 4)),
        top_p: (a % 3 != 0).then_some(f32::from(a % 10 + 1) / 10.0),
        seed: u64::from(*b),
        max_len: config.max_len,
    };
    let steps = sample(&mut table, &prompt, &cfg)?;
    assert!(steps
        .iter()
        .all(|s| (s.chosen as usize) < table.vocab_size()));
    Ok(())
}

/// Limits for fuzzing: the readers' checks, with memory caps a fuzzer's inputs never need.
fn fuzz_limits() -> Limits {
    Limits {
        max_total_bytes: 64 << 20,
        ..Limits::default()
    }
}

/// A GGUF file as dropped onto the app: parsed, every metadata key through the typed
/// accessors, the Llama config and tokenizer data read from it, then every tensor read and
/// dequantized whole, row by row and as dot products, and GGUF's RoPE rows reordered.
/// Returns the reader's verdict.
pub fn gguf(data: &[u8]) -> Result<(), String> {
    let limits = fuzz_limits();
    let g = Gguf::parse_with(data, "fuzz.gguf", &limits).map_err(|e| e.to_string())?;
    for (key, value) in &g.metadata {
        let _ = (
            g.get_u64(key),
            g.get_f32(key),
            g.get_str(key),
            g.get_bool(key),
        );
        if let MetaValue::Array(_) = value {
            let _ = (
                g.get_str_array(key),
                g.get_i32_array(key),
                g.get_u32_array(key),
                g.get_f32_array(key),
            );
        }
    }
    let _ = LlamaConfig::from_gguf(&g);
    let _ = GgufTokenizerData::from_gguf(&g);
    let set = g
        .read_tensors(data, &limits, &mut |_| {})
        .map_err(|e| e.to_string())?;
    check_tensors(&set);
    Ok(())
}

/// `config.json \0 weights.safetensors`: the config through `Architecture`, the weights
/// (and the raw bytes on their own, and the text as a shard index) through the safetensors
/// reader, then every tensor taken as f32. Returns the weights reader's verdict.
pub fn safetensors(data: &[u8]) -> Result<(), String> {
    let limits = fuzz_limits();
    let opts = ReadOptions {
        limits,
        ..ReadOptions::default()
    };
    let _ = read_safetensors_with(data, &opts, &mut |_| {});
    let (config, weights) = split_at_zero(data);
    let text = String::from_utf8_lossy(config);
    let _ = Architecture::from_config_json(&text);
    let _ = parse_index(&text, &limits);
    let set = read_safetensors_with(weights, &opts, &mut |_| {}).map_err(|e| e.to_string())?;
    check_tensors(&set);
    Ok(())
}

/// What a tensor set promises: values as many as the shape says, rows of quantized tensors
/// equal to the whole dequantized, and taking a tensor either fails cleanly or gives its shape.
fn check_tensors(set: &TensorSet) {
    let mut set = set.clone();
    for name in set.unused() {
        let Some(t) = set.get(&name).cloned() else {
            continue;
        };
        let expected: usize = t.shape.iter().product();
        assert_eq!(
            t.numel(),
            expected,
            "`{name}`: values do not match shape {:?}",
            t.shape
        );
        if let TensorData::Quantized(q) = &t.data {
            let all = q.dequantize();
            let mut row = vec![0.0; q.cols()];
            for r in 0..q.rows() {
                assert!(q.dequantize_row(r, &mut row).is_ok());
                assert_eq!(row[..], all[r * q.cols()..(r + 1) * q.cols()]);
                assert!(q.dot_row(r, &row).is_ok_and(f32::is_finite));
            }
        }
        for heads in [1, 2] {
            let _ = t.unpermute_gguf_rope(heads).map(RawTensor::into_f32);
        }
        if let Ok(a) = set.take_f32(&name, &t.shape) {
            assert_eq!(a.shape(), &t.shape[..]);
            assert!(a.iter().all(|x| x.is_finite()));
        }
    }
}
