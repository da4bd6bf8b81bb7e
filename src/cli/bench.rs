//! `glimpse bench-forward`, `bench-gpu` and `bench-vision`: timings as JSON on stdout, each naming the
//! CPU it ran on (`cpu`), and that CPU as a line on stderr for whoever watches the run.

use super::{checkpoints, use_threads};
use crate::util::machine::announce as announce_cpu;

/// `bench-forward`: every shipped model (and the larger configuration unless `no_large`), or
/// one model with `--model`.
pub(super) fn bench_forward(
    model: Option<&str>,
    no_large: bool,
    (tokens, runs): (usize, usize),
    threads: Option<usize>,
    f32: bool,
) -> Result<String, String> {
    use_threads(threads)?;
    announce_cpu();
    match model {
        Some(model) => checkpoints::bench_model(model, tokens, runs, f32),
        None => {
            let timings = crate::model::bench::latencies(!no_large).map_err(|e| e.to_string())?;
            serde_json::to_string_pretty(&timings).map_err(|e| e.to_string())
        }
    }
}

/// `bench-vision`: the Vision tab's training, timed from a fresh model.
pub(super) fn bench_vision(task: &str, steps: Option<u64>, seed: u64) -> Result<String, String> {
    use crate::train::vision::VisionTask;
    let task = VisionTask::from_code(task)
        .ok_or_else(|| format!("unknown --task `{task}`; one of larger, count"))?;
    let steps = steps.unwrap_or(task.steps());
    if !(1..=100_000).contains(&steps) || seed == 0 {
        return Err(format!(
            "--steps {steps} must be 1 to 100000 and --seed {seed} positive"
        ));
    }
    announce_cpu();
    let timing = crate::train::vision::train::measure(task, seed, steps)?;
    let mut json = serde_json::to_value(&timing).map_err(|e| e.to_string())?;
    json["task"] = task.code().into();
    json["cpu"] = serde_json::to_value(crate::util::machine::cpu()).map_err(|e| e.to_string())?;
    serde_json::to_string_pretty(&json).map_err(|e| e.to_string())
}

/// `bench-gpu`: the sweep of sizes and lengths, or one model with `--model`.
pub(super) fn bench_gpu(
    max_d_model: usize,
    max_tokens: usize,
    runs: usize,
    model: Option<&str>,
    tokens: usize,
) -> Result<String, String> {
    announce_cpu();
    match model {
        Some(model) => gpu_model(model, tokens, runs),
        None => gpu_sweep(max_d_model, max_tokens, runs),
    }
}

#[cfg(feature = "webgpu")]
fn gpu_sweep(max_d_model: usize, max_tokens: usize, runs: usize) -> Result<String, String> {
    use crate::gpu::{bench, Gpu};
    let gpu = Gpu::new_blocking().map_err(|e| e.to_string())?;
    eprintln!("timing on {}", gpu.adapter.label());
    let report = pollster::block_on(bench::sweep(&gpu, max_d_model, max_tokens, runs))
        .map_err(|e| e.to_string())?;
    serde_json::to_string_pretty(&report).map_err(|e| e.to_string())
}

#[cfg(not(feature = "webgpu"))]
fn gpu_sweep(_: usize, _: usize, _: usize) -> Result<String, String> {
    Err("this glimpse was built without the `webgpu` feature".into())
}

/// CPU against GPU on one model (a real checkpoint) and `tokens` tokens of English.
#[cfg(feature = "webgpu")]
fn gpu_model(spec: &str, tokens: usize, runs: usize) -> Result<String, String> {
    use crate::gpu::{bench, Gpu};
    let model = super::resolve_model(spec).map_err(|e| e.to_string())?;
    let input = crate::model::bench::english_input(&model, tokens)?;
    let gpu = Gpu::new_blocking().map_err(|e| e.to_string())?;
    eprintln!("timing {} on {}", model.config.name, gpu.adapter.label());
    let case = crate::model::bench::Case {
        name: model.config.name.clone(),
        model,
        input,
        flops: None,
    };
    let comparison =
        pollster::block_on(bench::compare(&gpu, &case, runs)).map_err(|e| e.to_string())?;
    let report = bench::Report {
        adapter: gpu.adapter.clone(),
        cpu: crate::util::machine::cpu(),
        comparisons: vec![comparison],
    };
    serde_json::to_string_pretty(&report).map_err(|e| e.to_string())
}

#[cfg(not(feature = "webgpu"))]
fn gpu_model(_: &str, _: usize, _: usize) -> Result<String, String> {
    Err("this glimpse was built without the `webgpu` feature".into())
}
