//! CPU against GPU across input length and model size: the same cases (`model::bench::sized`)
//! through `Model::forward` and `gpu::forward`, each returning the whole trace. Shared by
//! `glimpse bench-gpu` (native) and the browser's `glimpse_gpu_benchmark`.

use super::{forward, Gpu, GpuError, GpuModel};
use crate::model::bench::{self, Case};
use crate::model::ForwardOptions;
use serde::Serialize;
use web_time::Instant;

/// Model sizes (d_model, layers, heads): the shipped LM's scale, and two larger ones.
pub const SIZES: &[(usize, usize, usize)] = &[(64, 2, 4), (256, 4, 4), (512, 6, 8)];
/// Input lengths.
pub const LENGTHS: &[usize] = &[16, 64, 256, 512, 1024];

/// One case timed both ways (median milliseconds of one traced forward pass).
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub model: String,
    pub d_model: usize,
    pub layers: usize,
    pub heads: usize,
    pub tokens: usize,
    pub cpu_ms: f64,
    pub gpu_ms: f64,
    /// `cpu_ms / gpu_ms`: above 1 the GPU wins.
    pub speedup: f64,
    /// The largest difference between the two paths' output logits (0 for a model without
    /// logits, such as a sentence encoder: see `max_weight_error`).
    pub max_logit_error: f32,
    /// The largest difference over the logits and every attention weight of every layer.
    pub max_weight_error: f32,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub adapter: super::AdapterSummary,
    /// The CPU the CPU side ran on.
    pub cpu: crate::util::machine::Cpu,
    pub comparisons: Vec<Comparison>,
}

/// Median of `runs` timed calls after one warm-up.
async fn median_ms<F, Fut>(runs: usize, mut call: F) -> Result<f64, GpuError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<(), GpuError>>,
{
    call().await?;
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        call().await?;
        samples.push(t.elapsed().as_secs_f64() * 1e3);
    }
    samples.sort_by(f64::total_cmp);
    Ok(samples[samples.len() / 2])
}

/// Times one case both ways.
pub async fn compare(gpu: &Gpu, case: &Case, runs: usize) -> Result<Comparison, GpuError> {
    let opts = ForwardOptions::default();
    let weights = GpuModel::upload(gpu, &case.model);
    let cpu_trace = case.model.forward(&case.input, &opts)?;
    let gpu_trace = forward(gpu, &weights, &case.model, &case.input, &opts).await?;
    let max_logit_error = cpu_trace.logit_difference(&gpu_trace);
    let max_weight_error = cpu_trace.largest_difference(&gpu_trace);
    drop((cpu_trace, gpu_trace));
    let cpu_ms = median_ms(runs, || async {
        case.model.forward(&case.input, &opts).map(drop)?;
        Ok(())
    })
    .await?;
    let gpu_ms = median_ms(runs, || async {
        forward(gpu, &weights, &case.model, &case.input, &opts)
            .await
            .map(drop)
    })
    .await?;
    let c = &case.model.config;
    Ok(Comparison {
        model: c.name.clone(),
        d_model: c.d_model,
        layers: c.n_layers,
        heads: c.n_heads,
        tokens: case.input.target.len().max(case.input.source.len()),
        cpu_ms,
        gpu_ms,
        speedup: cpu_ms / gpu_ms,
        max_logit_error,
        max_weight_error,
    })
}

/// Every size up to `max_d_model` × length up to `max_tokens`, `runs` timed runs each.
pub async fn sweep(
    gpu: &Gpu,
    max_d_model: usize,
    max_tokens: usize,
    runs: usize,
) -> Result<Report, GpuError> {
    let mut comparisons = Vec::new();
    for &(d, layers, heads) in SIZES.iter().filter(|s| s.0 <= max_d_model) {
        for &t in LENGTHS.iter().filter(|&&t| t <= max_tokens) {
            let case = bench::sized(d, layers, heads, t)?;
            comparisons.push(compare(gpu, &case, runs).await?);
        }
    }
    Ok(Report {
        adapter: gpu.adapter.clone(),
        cpu: crate::util::machine::cpu(),
        comparisons,
    })
}
