//! The forward-pass benchmark's cases, shared by `cargo bench --bench forward` (criterion),
//! `glimpse bench-forward` (native) and the browser's `glimpse_forward_benchmark`, so native,
//! WASM and PyTorch (`benches/torch_forward.py`) time the same models on the same tokens.

use super::{builtin, ForwardOptions, Model, ModelConfig, ModelInput, Result};
use crate::util::machine::Cpu;
use serde::Serialize;

/// Tokens in the larger configuration's input.
pub const LARGE_T: usize = 256;
/// Its name in reports.
pub const LARGE_NAME: &str = "d512-L6-H8-T256";

/// A model and the input it is timed on.
pub struct Case {
    pub name: String,
    pub model: Model,
    pub input: ModelInput,
    /// Floating-point operations of one forward pass (multiply-adds × 2), where counted.
    pub flops: Option<u64>,
}

/// Every shipped model on its example input.
pub fn shipped() -> Result<Vec<Case>> {
    builtin::BUILTINS
        .iter()
        .map(|b| {
            let model = builtin::load(b.name)?;
            let input = model.prepare(b.example_source, b.example_target).input;
            Ok(Case {
                name: b.name.to_string(),
                model,
                input,
                flops: None,
            })
        })
        .collect()
}

/// The larger configuration: the shipped LM's tokenizer and positions (RoPE), scaled to
/// d_model 512, 6 layers, 8 heads, d_ff 2048, with seeded random weights, on 256 tokens.
pub fn large() -> Result<Case> {
    let mut case = sized(512, 6, 8, LARGE_T)?;
    case.name = LARGE_NAME.into();
    Ok(case)
}

/// The shipped LM's tokenizer and positions (RoPE) at `d_model` (d_ff 4·d_model), `layers` and
/// `heads`, with seeded random weights, on `tokens` ordinary tokens.
pub fn sized(d_model: usize, layers: usize, heads: usize, tokens: usize) -> Result<Case> {
    let lm = builtin::load("lm")?.config;
    let config = ModelConfig {
        name: format!("d{d_model}-L{layers}-H{heads}"),
        d_model,
        n_heads: heads,
        n_kv_heads: heads,
        n_layers: layers,
        d_ff: 4 * d_model,
        max_len: tokens.max(1),
        ..lm
    };
    let model = Model::random(config, 7)?;
    let vocab = model.tokenizer.vocab_size();
    // Ordinary tokens (ids from 4 up) in a fixed pseudo-random order.
    let target = (0..tokens)
        .map(|i| 4 + ((i * 37 + 11) % (vocab - 4)) as u32)
        .collect();
    let flops = forward_flops(&model.config, tokens, vocab);
    Ok(Case {
        name: format!("{}-T{tokens}", model.config.name),
        model,
        input: ModelInput {
            source: Vec::new(),
            target,
            ..Default::default()
        },
        flops: Some(flops),
    })
}

/// Q/K/V/O projections, scores and the weighted sum (every T² pair, as Glimpse computes
/// them), the FFN and the output projection; multiply-adds count 2.
fn forward_flops(c: &ModelConfig, tokens: usize, vocab: usize) -> u64 {
    let (t, d, f) = (tokens as u64, c.d_model as u64, c.d_ff as u64);
    let per_layer = 2 * t * d * 4 * d + 2 * 2 * t * t * d + 2 * 2 * t * d * f;
    c.n_layers as u64 * per_layer + 2 * t * d * vocab as u64
}

/// Floating-point operations of one forward pass of a one-stack model (a real checkpoint:
/// BERT, GPT-2, Llama) over `tokens` tokens: every projection, the scores and weighted sums
/// over all T² pairs (as Glimpse computes them, masked or not), the FFN (three matrices when
/// gated) and the output head where the model has one; multiply-adds count 2.
pub fn model_forward_flops(model: &Model, tokens: usize) -> u64 {
    let c = &model.config;
    let (t, d, f) = (tokens as u64, c.d_model as u64, c.d_ff as u64);
    let (h, kv, hd) = (c.n_heads as u64, c.n_kv_heads as u64, c.d_head() as u64);
    let projections = d * (h * hd + 2 * kv * hd) + h * hd * d;
    let ffn = if c.extensions.gated_ffn { 3 } else { 2 } * d * f;
    let attention = 2 * t * h * hd; // per query: QKᵀ row and A·V row
    let per_layer = 2 * t * (projections + ffn) + 2 * t * attention;
    let w = &model.weights;
    let head = match w.lm_bias {
        Some(_) => {
            let vocab = w.output_matrix().rows() as u64;
            2 * t * d * vocab + w.mlm.as_ref().map_or(0, |_| 2 * t * d * d)
        }
        None => 0,
    };
    c.n_layers as u64 * per_layer + head
}

/// One case's timing.
#[derive(Debug, Clone, Serialize)]
pub struct Latency {
    pub model: String,
    pub median_ms: f64,
    pub runs: usize,
    /// Achieved GFLOP/s, where the work is counted.
    pub gflops: Option<f64>,
    /// The CPU the case ran on.
    pub cpu: Cpu,
}

/// Median time of one forward pass of `case`: samples of `reps` back-to-back passes, `reps`
/// chosen so a sample lasts at least 5 ms (the browser's clock ticks in 0.1 ms steps), over at
/// least `min_samples` samples and `min_ms` in all.
pub fn time(case: &Case, min_samples: usize, min_ms: f64) -> Result<Latency> {
    let opts = ForwardOptions::default();
    let run = || {
        case.model
            .forward(&case.input, &opts)
            .map(std::hint::black_box)
    };
    let t0 = web_time::Instant::now();
    run()?; // warm-up, and a first estimate
    let once = t0.elapsed().as_secs_f64() * 1e3;
    let reps = ((5.0 / once.max(1e-3)).ceil() as usize).clamp(1, 10_000);
    let mut samples = Vec::new();
    let start = web_time::Instant::now();
    while samples.len() < min_samples || start.elapsed().as_secs_f64() * 1e3 < min_ms {
        let t = web_time::Instant::now();
        for _ in 0..reps {
            run()?;
        }
        samples.push(t.elapsed().as_secs_f64() * 1e3 / reps as f64);
    }
    samples.sort_by(f64::total_cmp);
    let median_ms = samples[samples.len() / 2];
    Ok(Latency {
        model: case.name.clone(),
        median_ms,
        runs: samples.len() * reps,
        gflops: case.flops.map(|f| f as f64 / (median_ms * 1e6)),
        cpu: crate::util::machine::cpu(),
    })
}

/// Every shipped model and (if `with_large`) the larger configuration, timed.
pub fn latencies(with_large: bool) -> Result<Vec<Latency>> {
    let mut out = Vec::new();
    for case in shipped()? {
        out.push(time(&case, 15, 300.0)?);
    }
    if with_large {
        out.push(time(&large()?, 5, 0.0)?);
    }
    Ok(out)
}

/// The same ordinary English the reference scripts feed PyTorch and onnxruntime-web, repeated
/// and cut to length.
pub const ENGLISH: &str = "The quick brown fox jumps over the lazy dog while the students \
                           watch every number of the attention computation change. ";

/// A real checkpoint's forward pass timed on `tokens` tokens of [`ENGLISH`]: the traced pass
/// (every intermediate kept, as the app uses it) and the untraced one (the same logits,
/// intermediates freed layer by layer). `glimpse bench-forward --model` natively and
/// `glimpse_bench_checkpoint` in the browser report it.
#[derive(Debug, Clone, Serialize)]
pub struct CheckpointTiming {
    pub model: String,
    pub tokens: usize,
    /// The token ids timed, so another engine can be fed exactly these.
    pub ids: Vec<u32>,
    pub runs: usize,
    pub threads: usize,
    /// The traced forward pass (the keys older scripts read).
    pub median_ms: f64,
    pub min_ms: f64,
    pub untraced_median_ms: f64,
    pub untraced_min_ms: f64,
    pub traced_over_untraced: f64,
    /// Floating-point operations of one forward pass, and the rate each pass reached.
    pub gflop: f64,
    pub traced_gflops: f64,
    pub untraced_gflops: f64,
    /// Natively: the process's peak resident memory (MB); in the browser: the wasm memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_rss_mb: Option<f64>,
    /// The weights' own memory (MiB): quantized blocks as stored, everything else f32.
    pub weights_mib: f64,
    /// A decoder's median time for one step with the key/value cache (one new token after the
    /// timed tokens, `Model::decode_next`), and the steps timed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_step_ms: Option<f64>,
    /// The CPU the passes ran on.
    pub cpu: Cpu,
}

/// Steps of cached decoding timed after the prompt (the first is a warm-up).
const DECODE_STEPS: usize = 9;

/// The median time of one cached decoding step after `prompt`, feeding the prompt's own
/// tokens again (the values do not change the work); `None` for a model without a decoder.
fn decode_step_ms(model: &Model, prompt: &[u32]) -> std::result::Result<Option<f64>, String> {
    if !model.config.family.has_decoder() || prompt.is_empty() {
        return Ok(None);
    }
    let opts = ForwardOptions::default();
    let err = |e: super::ModelError| e.to_string();
    let mut state = model.start_decoding(&[], &opts).map_err(err)?;
    model.prefill(&mut state, prompt, &opts).map_err(err)?;
    let room = model.config.max_len.saturating_sub(prompt.len());
    let mut times: Vec<f64> = Vec::new();
    for &t in prompt.iter().cycle().take(DECODE_STEPS.min(room)) {
        let start = web_time::Instant::now();
        let logits = model.decode_next(&mut state, t, &opts).map_err(err)?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
        drop(std::hint::black_box(logits));
    }
    if times.len() < 2 {
        return Ok(None);
    }
    Ok(Some(after_warm_up(times).0))
}

/// The median and the fastest of `times` (at least two) without the first, which warms caches.
fn after_warm_up(mut times: Vec<f64>) -> (f64, f64) {
    times.remove(0);
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[0])
}

/// `tokens` tokens of the benchmarks' English text, tokenized by `model` (its special tokens
/// included), the input every checkpoint benchmark times.
pub fn english_input(model: &Model, tokens: usize) -> std::result::Result<ModelInput, String> {
    if tokens == 0 || tokens > model.config.max_len {
        return Err(format!(
            "--tokens {tokens} must be between 1 and the model's {} positions",
            model.config.max_len
        ));
    }
    let mut ids = model.prepare(&ENGLISH.repeat(tokens), "").input;
    for side in [&mut ids.source, &mut ids.target] {
        side.truncate(tokens);
    }
    ids.source_types.truncate(tokens);
    Ok(ids)
}

/// Time `runs` traced and untraced passes of `model` on `tokens` tokens (after one warm-up of
/// each; the two alternate so a change in the machine's load touches both alike).
pub fn time_checkpoint(
    model: &Model,
    tokens: usize,
    runs: usize,
) -> std::result::Result<CheckpointTiming, String> {
    let ids = english_input(model, tokens)?;
    let opts = ForwardOptions::default();
    let (mut traced, mut untraced) = (Vec::new(), Vec::new());
    for _ in 0..runs.max(1) + 1 {
        let start = web_time::Instant::now();
        let trace = model.forward(&ids, &opts).map_err(|e| e.to_string())?;
        traced.push(start.elapsed().as_secs_f64() * 1e3);
        drop(std::hint::black_box(trace));
        let start = web_time::Instant::now();
        let logits = model
            .forward_logits(&ids, &opts)
            .map_err(|e| e.to_string())?;
        untraced.push(start.elapsed().as_secs_f64() * 1e3);
        drop(std::hint::black_box(logits));
    }
    let ((median_ms, min_ms), (untraced_median_ms, untraced_min_ms)) =
        (after_warm_up(traced), after_warm_up(untraced));
    let gflop = model_forward_flops(model, tokens) as f64 / 1e9;
    let round = |x: f64| (x * 1000.0).round() / 1000.0;
    let timed = if ids.source.is_empty() {
        ids.target
    } else {
        ids.source
    };
    let decode_step = decode_step_ms(model, &timed)?;
    Ok(CheckpointTiming {
        model: model.config.name.clone(),
        tokens,
        ids: timed,
        runs: runs.max(1),
        threads: super::parallel::threads(),
        median_ms: round(median_ms),
        min_ms: round(min_ms),
        untraced_median_ms: round(untraced_median_ms),
        untraced_min_ms: round(untraced_min_ms),
        traced_over_untraced: round(median_ms / untraced_median_ms),
        gflop: round(gflop),
        traced_gflops: round(gflop / (median_ms / 1e3)),
        untraced_gflops: round(gflop / (untraced_median_ms / 1e3)),
        peak_rss_mb: None,
        weights_mib: round(model.weights.memory_bytes() as f64 / (1024.0 * 1024.0)),
        decode_step_ms: decode_step.map(round),
        cpu: crate::util::machine::cpu(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A decoder's checkpoint timing carries its cached decoding step; an encoder's does not.
    #[test]
    fn a_decoder_is_timed_per_decoding_step_and_an_encoder_is_not() {
        let lm = builtin::load("sotu-lm").unwrap();
        let t = time_checkpoint(&lm, 8, 1).unwrap();
        assert!(t.decode_step_ms.is_some_and(|ms| ms > 0.0), "{t:?}");
        let encoder = builtin::load("sotu-mlm").unwrap();
        let t = time_checkpoint(&encoder, 8, 1).unwrap();
        assert_eq!(t.decode_step_ms, None);
    }
}
