//! Real checkpoints on the command line: opening a Hugging Face folder or a GGUF file with a
//! progress bar, `glimpse inspect`, and `glimpse fill-mask`.

use crate::model::import::open::{open_path, CheckpointInfo};
use crate::model::import::Progress;
use crate::model::{Model, ModelError};
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
         positions   {} (max {}) · blocks: {}\n  parameters  {} ({:.1} M)\n  memory      {:.1} MiB opened ({:.1} MiB stored)\n  tokenizer   {}\n",
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

/// `glimpse bench-forward --model M --tokens N [--threads K] [--f32]`: the median time of the
/// traced and the untraced forward pass on `N` tokens of English
/// (`model::bench::time_checkpoint`), with the process's peak memory, JSON. `expand`: a
/// quantized file's matrices expanded to f32 first.
pub fn bench_model(spec: &str, tokens: usize, runs: usize, expand: bool) -> Result<String, String> {
    let mut model = super::resolve_model(spec).map_err(|e| e.to_string())?;
    if expand {
        model.weights.expand_quantized();
    }
    let mut timing = crate::model::bench::time_checkpoint(&model, tokens, runs)?;
    timing.peak_rss_mb = peak_rss_mb();
    serde_json::to_string(&timing).map_err(|e| e.to_string())
}

/// This process's peak resident memory so far (Linux's `VmHWM`), in MB.
fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some((kib * 1024.0 / 1e5).round() / 10.0)
}
