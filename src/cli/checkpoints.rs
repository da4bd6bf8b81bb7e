//! Real checkpoints on the command line: opening a Hugging Face folder or a GGUF file with a
//! progress bar, `glimpse inspect`, and `glimpse fill-mask`.

use crate::model::import::open::{open_path, CheckpointInfo};
use crate::model::import::Progress;
use crate::model::{ForwardOptions, Model, ModelError};
use serde::Serialize;
use std::path::Path;

/// Whether `spec` names a real checkpoint: a folder with `config.json`, or a `.gguf` file.
pub fn is_checkpoint(spec: &str) -> bool {
    let path = Path::new(spec);
    path.join("config.json").is_file()
        || (path.is_file()
            && path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("gguf")))
}

/// Opens a checkpoint with a progress bar on stderr (bytes read, tensors converted).
pub fn open(spec: &str) -> Result<(Model, CheckpointInfo), ModelError> {
    let bar = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        indicatif::ProgressBar::new(0)
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {bytes}/{total_bytes} · {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let result = open_path(Path::new(spec), &mut |p: Progress| {
        bar.set_length(p.bytes_total);
        bar.set_position(p.bytes_done);
        bar.set_message(format!("{}/{} tensors", p.tensors_done, p.tensors_total));
    });
    bar.finish_and_clear();
    result
}

/// `glimpse inspect`: architecture, sizes, parameters, tokenizer, special tokens, memory.
pub fn inspect(spec: &str, as_json: bool) -> Result<String, String> {
    #[derive(Serialize)]
    struct Report<'a> {
        #[serde(flatten)]
        info: &'a CheckpointInfo,
        family: &'a str,
        layers: usize,
        heads: usize,
        kv_heads: usize,
        d_model: usize,
        d_head: usize,
        d_ff: usize,
        vocab: usize,
        max_len: usize,
        positional: &'a str,
        blocks: String,
    }
    let (model, info) = open(spec).map_err(|e| e.to_string())?;
    let c = &model.config;
    let report = Report {
        info: &info,
        family: c.family.label(),
        layers: c.n_layers,
        heads: c.n_heads,
        kv_heads: c.n_kv_heads,
        d_model: c.d_model,
        d_head: c.d_head(),
        d_ff: c.d_ff,
        vocab: c.vocab_size(),
        max_len: c.max_len,
        positional: c.positional.label(),
        blocks: format!(
            "{}; {}-norm; {:?}",
            c.extensions.summary(),
            match c.norm {
                crate::model::NormPlacement::Pre => "pre",
                crate::model::NormPlacement::Post => "post",
            },
            c.activation
        ),
    };
    if as_json {
        return serde_json::to_string_pretty(&report).map_err(|e| e.to_string());
    }
    let mb = |b: usize| b as f64 / (1 << 20) as f64;
    let mut out = format!(
        "{}\n  {}\n  format      {}\n  model_type  {}\n  layers {} · heads {} (key/value {}) · d_model {} · d_head {} · d_ff {}\n  \
         positions   {} (max {}) · blocks: {}\n  parameters  {} ({:.1} M)\n  memory      {:.1} MiB as f32 ({:.1} MiB stored)\n  tokenizer   {}\n",
        info.source,
        info.description,
        info.format,
        info.model_type,
        c.n_layers,
        c.n_heads,
        c.n_kv_heads,
        c.d_model,
        c.d_head(),
        c.d_ff,
        report.positional,
        c.max_len,
        report.blocks,
        info.parameters,
        info.parameters as f64 / 1e6,
        mb(info.memory_bytes),
        mb(info.stored_bytes),
        info.tokenizer,
    );
    for (role, id, token) in &info.special_tokens {
        out += &format!("  special     {role:<5} {id:>6}  {token}\n");
    }
    for n in &info.notes {
        out += &format!("  note        {n}\n");
    }
    if !info.unused.is_empty() {
        out += &format!("  unused      {}\n", info.unused.join(", "));
    }
    Ok(out)
}

/// `glimpse fill-mask`: the most likely tokens at each mask position of a masked-LM model.
pub fn fill_mask(model: &Model, input: &str, top: usize, as_json: bool) -> Result<String, String> {
    let slots = crate::model::mlm::fill_mask(model, input, top)?;
    if as_json {
        return serde_json::to_string(&slots).map_err(|e| e.to_string());
    }
    let mut out = String::new();
    for s in &slots {
        out += &format!("position {}:\n", s.position);
        for c in &s.candidates {
            out += &format!("  {:>7.4}  {}\n", c.probability, c.token);
        }
    }
    Ok(out)
}

/// `glimpse bench-forward --model M --tokens N [--threads K]`: the median time of the traced
/// forward pass (every intermediate kept, as the app uses it) and of the untraced one (the
/// same logits, intermediates freed layer by layer) on `N` tokens of English, JSON. The first
/// run of each is a warm-up; the two are timed alternately so a change in the machine's load
/// touches both alike.
pub fn bench_model(spec: &str, tokens: usize, runs: usize) -> Result<String, String> {
    #[derive(Serialize)]
    struct Timing {
        model: String,
        tokens: usize,
        runs: usize,
        threads: usize,
        /// The traced forward pass (the keys older scripts read).
        median_ms: f64,
        min_ms: f64,
        untraced_median_ms: f64,
        untraced_min_ms: f64,
        traced_over_untraced: f64,
        /// Floating-point operations of one forward pass, and the rate each pass reached.
        gflop: f64,
        traced_gflops: f64,
        untraced_gflops: f64,
    }
    let model = super::resolve_model(spec).map_err(|e| e.to_string())?;
    if tokens == 0 || tokens > model.config.max_len {
        return Err(format!(
            "--tokens {tokens} must be between 1 and the model's {} positions",
            model.config.max_len
        ));
    }
    // The same ordinary English the reference script feeds PyTorch, repeated to length.
    let text = "The quick brown fox jumps over the lazy dog while the students watch every \
                number of the attention computation change. "
        .repeat(tokens);
    let mut ids = model.prepare(&text, "").input;
    for side in [&mut ids.source, &mut ids.target] {
        side.truncate(tokens);
    }
    ids.source_types.truncate(tokens);
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
    let stats = |mut times: Vec<f64>| {
        times.remove(0); // the first run warms caches
        times.sort_by(f64::total_cmp);
        (times[times.len() / 2], times[0])
    };
    let ((median_ms, min_ms), (untraced_median_ms, untraced_min_ms)) =
        (stats(traced), stats(untraced));
    let gflop = crate::model::bench::model_forward_flops(&model, tokens) as f64 / 1e9;
    let round = |x: f64| (x * 1000.0).round() / 1000.0;
    let timing = Timing {
        model: model.config.name.clone(),
        tokens,
        runs: runs.max(1),
        threads: crate::model::parallel::threads(),
        median_ms: round(median_ms),
        min_ms: round(min_ms),
        untraced_median_ms: round(untraced_median_ms),
        untraced_min_ms: round(untraced_min_ms),
        traced_over_untraced: round(median_ms / untraced_median_ms),
        gflop: round(gflop),
        traced_gflops: round(gflop / (median_ms / 1e3)),
        untraced_gflops: round(gflop / (untraced_median_ms / 1e3)),
    };
    serde_json::to_string(&timing).map_err(|e| e.to_string())
}
