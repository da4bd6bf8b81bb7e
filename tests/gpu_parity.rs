//! The GPU path (`src/gpu/`, feature `webgpu`) against the CPU path: every family ×
//! positional scheme × scoring function, both norm placements, both activations, MHA / GQA /
//! MQA, every mask choice, padding, temperature, and every shipped model on its example.
//! Whole traces are compared: attention weights and output logits to 1e-4 absolute, every
//! other intermediate to 1e-4 relative (scores grow with d_head), masks and tokens exactly.
//!
//! Runs on any adapter, Mesa's lavapipe included (what CI has). Without one it says so and
//! passes, unless `GLIMPSE_REQUIRE_GPU=1` (set by `scripts/test.sh`) makes that a failure.
#![cfg(feature = "webgpu")]

mod common;

use common::config;
use glimpse::gpu::{self, Gpu, GpuError, GpuModel};
use glimpse::model::attention::MaskChoice;
use glimpse::model::config::{Activation, Family, NormPlacement, Positional, Scoring};
use glimpse::model::tokenizer::PAD;
use glimpse::model::{builtin, ForwardOptions, Model, ModelInput, Trace};
use ndarray::Array2;
use serde_json::Value;

const WEIGHTS_AND_LOGITS: f64 = 1e-4;
const INTERMEDIATES: f64 = 1e-4;

/// The limits a comparison holds the GPU to: (attention weights and logits, absolute; every
/// other intermediate, relative).
type Limits = (f64, f64);
const LIMITS: Limits = (WEIGHTS_AND_LOGITS, INTERMEDIATES);

fn gpu() -> Option<Gpu> {
    match Gpu::new_blocking() {
        Ok(g) => {
            eprintln!("GPU parity on {}", g.adapter.label());
            Some(g)
        }
        Err(e) => {
            let required = std::env::var("GLIMPSE_REQUIRE_GPU").is_ok_and(|v| v == "1");
            assert!(!required, "GLIMPSE_REQUIRE_GPU=1 but {e}");
            eprintln!(
                "SKIPPED: GPU parity needs an adapter ({e}); on Debian, apt install \
                 mesa-vulkan-drivers gives the software one (lavapipe)"
            );
            None
        }
    }
}

/// The largest differences found, by kind.
#[derive(Default, Debug)]
struct Worst {
    weights_and_logits: f64,
    relative: f64,
    values: usize,
}

/// Walks two serialized traces side by side. `key` is the field the values belong to.
fn compare(
    a: &Value,
    b: &Value,
    key: &str,
    path: &str,
    limits: Limits,
    worst: &mut Worst,
) -> Result<(), String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            let err = (x - y).abs();
            worst.values += 1;
            if matches!(key, "weights" | "logits_top") {
                worst.weights_and_logits = worst.weights_and_logits.max(err);
                if err > limits.0 || err.is_nan() {
                    return Err(format!("{path}: CPU {x} GPU {y} (error {err:e})"));
                }
            } else {
                let rel = err / x.abs().max(1.0);
                worst.relative = worst.relative.max(rel);
                if rel > limits.1 || rel.is_nan() {
                    return Err(format!("{path}: CPU {x} GPU {y} (relative error {rel:e})"));
                }
            }
            Ok(())
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Err(format!("{path}: lengths {} and {}", x.len(), y.len()));
            }
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                compare(p, q, key, &format!("{path}[{i}]"), limits, worst)?;
            }
            Ok(())
        }
        (Value::Object(x), Value::Object(y)) => {
            let (mut kx, mut ky): (Vec<_>, Vec<_>) = (x.keys().collect(), y.keys().collect());
            kx.sort();
            ky.sort();
            if kx != ky {
                return Err(format!("{path}: fields {kx:?} and {ky:?}"));
            }
            for (k, p) in x {
                let sub = if path.is_empty() && k == "logits" {
                    "logits_top"
                } else {
                    k
                };
                compare(p, &y[k], sub, &format!("{path}.{k}"), limits, worst)?;
            }
            Ok(())
        }
        _ if a == b => Ok(()),
        _ => Err(format!("{path}: {a} and {b}")),
    }
}

/// Compares the two paths' traces; returns the worst differences and the GPU's trace.
fn check(
    gpu: &Gpu,
    model: &Model,
    input: &ModelInput,
    opts: &ForwardOptions,
    what: &str,
) -> (Worst, Trace) {
    check_within(gpu, model, input, opts, what, LIMITS)
}

/// [`check`] with other limits (a deep real model's rounding grows over its 30 layers).
fn check_within(
    gpu: &Gpu,
    model: &Model,
    input: &ModelInput,
    opts: &ForwardOptions,
    what: &str,
    limits: Limits,
) -> (Worst, Trace) {
    let cpu = model
        .forward(input, opts)
        .unwrap_or_else(|e| panic!("{what}: CPU: {e}"));
    let weights = GpuModel::upload(gpu, model);
    let on_gpu: Trace = gpu::forward_blocking(gpu, &weights, model, input, opts)
        .unwrap_or_else(|e| panic!("{what}: GPU: {e}"));
    let (a, b) = (
        serde_json::to_value(&cpu).expect("CPU trace serializes"),
        serde_json::to_value(&on_gpu).expect("GPU trace serializes"),
    );
    let mut worst = Worst::default();
    if let Err(e) = compare(&a, &b, "", "", limits, &mut worst) {
        panic!("{what}: {e}");
    }
    assert!(
        worst.values > 100,
        "{what}: only {} values compared",
        worst.values
    );
    (worst, on_gpu)
}

impl Worst {
    fn merge(&mut self, other: &Worst) {
        self.weights_and_logits = self.weights_and_logits.max(other.weights_and_logits);
        self.relative = self.relative.max(other.relative);
        self.values += other.values;
    }
}

/// A small causal decoder without positions (random weights).
fn plain_decoder() -> Model {
    let c = config(
        Family::Decoder,
        Positional::None,
        NormPlacement::Pre,
        4,
        Scoring::ScaledDot,
    );
    Model::random(c, 3).expect("valid config")
}

fn ids(text: &str) -> Vec<u32> {
    text.bytes().map(|b| 4 + (b - b'a') as u32).collect()
}

fn input_for(family: Family) -> ModelInput {
    let mut target = vec![1];
    target.extend(ids("bcadefg"));
    match family {
        Family::Encoder => ModelInput {
            source: ids("jihgfedcba"),
            target: vec![],
            ..Default::default()
        },
        Family::Decoder => ModelInput {
            source: vec![],
            target,
            ..Default::default()
        },
        Family::EncoderDecoder => ModelInput {
            source: ids("abcdefghij"),
            target,
            ..Default::default()
        },
    }
}

#[test]
fn every_family_positional_scheme_and_scoring_matches_the_cpu() {
    let Some(gpu) = gpu() else { return };
    let positionals = [
        Positional::None,
        Positional::Sinusoidal { base: 10000.0 },
        Positional::Learned,
        Positional::Rope { base: 10000.0 },
        Positional::Alibi,
        Positional::Relative { max_distance: 3 },
    ];
    let families = [Family::Encoder, Family::Decoder, Family::EncoderDecoder];
    let scorings = [Scoring::ScaledDot, Scoring::Additive, Scoring::Bilinear];
    let mut n = 0;
    let mut worst = Worst::default();
    for (fi, &family) in families.iter().enumerate() {
        for (pi, &positional) in positionals.iter().enumerate() {
            for (si, &scoring) in scorings.iter().enumerate() {
                // Vary the rest so every value of each appears with every family.
                let k = fi + pi + si;
                let norm = [NormPlacement::Pre, NormPlacement::Post][k % 2];
                let kv = [4, 2, 1][k % 3];
                let mut c = config(family, positional, norm, kv, scoring);
                c.activation = [Activation::Gelu, Activation::Relu][(k / 2) % 2];
                c.tie_embeddings = k % 4 == 0;
                let model = Model::random(c, 11 + k as u64).expect("valid config");
                let what = format!("{family:?} {positional:?} {scoring:?} {norm:?} kv={kv}");
                let (w, _) = check(
                    &gpu,
                    &model,
                    &input_for(family),
                    &ForwardOptions::default(),
                    &what,
                );
                worst.merge(&w);
                n += 1;
            }
        }
    }
    assert_eq!(n, 54);
    eprintln!("54 configurations: {worst:?}");
}

#[test]
fn masks_padding_and_temperature_match_the_cpu() {
    let Some(gpu) = gpu() else { return };
    for family in [Family::Encoder, Family::Decoder, Family::EncoderDecoder] {
        let c = config(
            family,
            Positional::Alibi,
            NormPlacement::Pre,
            2,
            Scoring::ScaledDot,
        );
        let model = Model::random(c, 5).expect("valid config");
        let mut input = input_for(family);
        // Padding at the end of both sides.
        input.source.extend([PAD, PAD]);
        input.target.extend([PAD]);
        let main_len = if family.has_decoder() {
            input.target.len()
        } else {
            input.source.len()
        };
        let custom = Array2::from_shape_fn((main_len, main_len), |(i, j)| (i + j) % 3 != 0);
        let choices = [
            MaskChoice::Default,
            MaskChoice::None,
            MaskChoice::Causal,
            MaskChoice::Prefix(3),
            MaskChoice::Custom(custom),
        ];
        for choice in choices {
            for (mask_padding, temperature) in [(true, 1.0), (false, 0.35), (true, 3.0)] {
                let cross_mask = if family == Family::EncoderDecoder {
                    choice.clone()
                } else {
                    MaskChoice::Default
                };
                let cross_mask = match cross_mask {
                    // A custom cross mask must be target × source.
                    MaskChoice::Custom(_) => MaskChoice::Custom(Array2::from_shape_fn(
                        (input.target.len(), input.source.len()),
                        |(i, j)| j != i,
                    )),
                    other => other,
                };
                let opts = ForwardOptions {
                    temperature,
                    self_mask: choice.clone(),
                    cross_mask,
                    mask_padding,
                    dropout: None,
                    heads_off: Vec::new(),
                    interventions: Vec::new(),
                };
                let what = format!("{family:?} {choice:?} pad={mask_padding} τ={temperature}");
                check(&gpu, &model, &input, &opts, &what);
            }
        }
    }
}

#[test]
fn every_shipped_model_matches_the_cpu_on_its_example() {
    let Some(gpu) = gpu() else { return };
    for b in builtin::BUILTINS {
        let model = builtin::load(b.name).expect("shipped model loads");
        let input = model.prepare(b.example_source, b.example_target).input;
        let (w, _) = check(&gpu, &model, &input, &ForwardOptions::default(), b.name);
        eprintln!("{}: {w:?}", b.name);
    }
}

#[test]
fn a_fully_masked_row_is_zero_on_the_gpu_too() {
    let Some(gpu) = gpu() else { return };
    let model = plain_decoder();
    let input = input_for(Family::Decoder);
    let t = input.target.len();
    let mut mask = Array2::from_elem((t, t), true);
    mask.row_mut(2).fill(false);
    let opts = ForwardOptions {
        self_mask: MaskChoice::Custom(mask),
        ..Default::default()
    };
    let (_, trace) = check(&gpu, &model, &input, &opts, "a row with no key");
    let w = trace.decoder.as_ref().unwrap().blocks[0]
        .self_attn
        .inner
        .weights
        .clone();
    assert!(w
        .outer_iter()
        .all(|head| head.row(2).iter().all(|&x| x == 0.0)));
}

#[test]
fn what_the_gpu_cannot_do_is_an_error_not_a_panic() {
    let Some(gpu) = gpu() else { return };
    let model = plain_decoder();
    let weights = GpuModel::upload(&gpu, &model);
    let input = input_for(Family::Decoder);
    // Bad input: the CPU path's own message.
    let empty = ModelInput::default();
    let e = gpu::forward_blocking(&gpu, &weights, &model, &empty, &Default::default());
    assert!(matches!(e, Err(GpuError::Model(_))), "{e:?}");
    // Training's dropout stays on the CPU.
    let opts = ForwardOptions {
        dropout: Some(glimpse::model::Dropout::new(0.1, 1)),
        ..Default::default()
    };
    let e = gpu::forward_blocking(&gpu, &weights, &model, &input, &opts);
    assert!(matches!(e, Err(GpuError::Unsupported(_))), "{e:?}");
    // Another model's weights.
    let other = builtin::load("lm").expect("shipped");
    let e = gpu::forward_blocking(&gpu, &weights, &other, &input, &Default::default());
    assert!(matches!(e, Err(GpuError::Unsupported(_))), "{e:?}");
}

/// The real checkpoints on the GPU against the CPU: all-MiniLM-L6-v2 (a BERT: embedding
/// LayerNorm and token types from the CPU's lookup, no output head) and SmolLM2-135M (a Llama:
/// RMSNorm, SwiGLU, grouped-query attention, RoPE). They skip without the real models unless
/// `GLIMPSE_REQUIRE_REAL_MODELS=1`. Then the committed small checkpoints of each family's
/// conventions, and a head size the kernels lack, refused with the reason.
#[test]
fn the_real_checkpoints_run_on_the_gpu_and_what_does_not_says_why() {
    let Some(gpu) = gpu() else { return };
    let open = glimpse::model::import::open::open_path;
    if let Some(dir) = glimpse::util::real_models::minilm() {
        let (model, _) = open(&dir, &mut |_| {}).expect("MiniLM opens");
        let input = model
            .prepare(
                "The animal did not cross the street because it was too tired.",
                "",
            )
            .input;
        let (w, trace) = check(&gpu, &model, &input, &ForwardOptions::default(), "MiniLM");
        eprintln!("all-MiniLM-L6-v2: {w:?}");
        let stack = trace.encoder.as_ref().expect("an encoder");
        assert!(stack.token_types.is_some() && stack.embed_norm.is_some());
        assert_eq!(stack.blocks.len(), 6);
        assert_eq!(trace.logits.ncols(), 0, "a sentence encoder has no logits");
    }
    if let Some(file) = glimpse::util::real_models::smollm2() {
        let (model, _) = open(&file, &mut |_| {}).expect("SmolLM2 opens");
        let input = model.prepare("The capital of France is", "").input;
        let opts = ForwardOptions::default();
        let (w, trace) = check_within(
            &gpu,
            &model,
            &input,
            &opts,
            "SmolLM2",
            (WEIGHTS_AND_LOGITS, 1e-3),
        );
        eprintln!("SmolLM2-135M: {w:?}");
        let stack = trace.decoder.as_ref().expect("a decoder");
        assert_eq!(stack.blocks.len(), 30);
        assert!(
            stack.blocks[0].ffn.inner.up.is_some(),
            "the gated FFN's up branch"
        );
        let next = trace.logits.row(trace.logits.nrows() - 1);
        let best = (0..next.len())
            .max_by(|&a, &b| next[a].total_cmp(&next[b]))
            .unwrap();
        assert_eq!(model.tokenizer.tokens(&[best as u32])[0], " Paris");
    }
    // The committed small checkpoints of every family's conventions: GPT-2 (tanh GELU,
    // learned positions), Llama folders (rotate-half RoPE, grouped-query attention, Llama 3's
    // RoPE scaling, biases, tied output), BERT with and without its masked-LM head.
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hf");
    for name in [
        "gpt2",
        "llama-gqa",
        "llama3-rope",
        "llama-bias",
        "llama-mha-tied",
        "bert-base",
        "bert-mlm",
    ] {
        let (model, _) = open(&fixtures.join(name), &mut |_| {}).expect("the fixture opens");
        let input = model.prepare("The cat sat on the mat.", "").input;
        let (w, _) = check(&gpu, &model, &input, &ForwardOptions::default(), name);
        eprintln!("{name}: {w:?}");
    }
    // What the kernels lack is refused with the reason: a head size other than d / heads.
    let (model, _) = open(&fixtures.join("llama-odd"), &mut |_| {}).expect("llama-odd opens");
    let weights = GpuModel::upload(&gpu, &model);
    let input = model.prepare("The cat sat", "").input;
    match gpu::forward_blocking(&gpu, &weights, &model, &input, &Default::default()) {
        Err(GpuError::Unsupported(why)) => assert!(why.contains("head_dim 12"), "{why}"),
        other => panic!("head_dim 12 on the GPU: {:?}", other.map(|_| "a trace")),
    }
}
