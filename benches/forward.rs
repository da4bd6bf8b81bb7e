//! Forward-pass latency: every shipped model on its example input, and a larger decoder
//! (d_model 512, 6 layers, 8 heads, d_ff 2048, T = 256) with its achieved FLOP/s, beside this
//! core's measured f32 peak (a register-only FMA loop); and the CPU path against the GPU path.
//!
//!   cargo bench --bench forward            (-- gpu: the GPU comparison only)
//!
//! Writes every model timed (config and weights) and its input to
//! `$TMPDIR/glimpse-bench-forward/`, so `benches/torch_forward.py` times PyTorch on exactly the
//! same weights and tokens.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use glimpse::model::{bench, checkpoint, ForwardOptions};
use std::hint::black_box;
use std::path::PathBuf;

fn out_dir() -> PathBuf {
    let dir = std::env::temp_dir().join("glimpse-bench-forward");
    std::fs::create_dir_all(&dir).expect("bench output directory");
    dir
}

fn ids(input: &glimpse::model::ModelInput) -> serde_json::Value {
    serde_json::json!({ "source": input.source, "target": input.target })
}

fn shipped(c: &mut Criterion) {
    let mut inputs = serde_json::Map::new();
    let mut group = c.benchmark_group("forward");
    let opts = ForwardOptions::default();
    for case in bench::shipped().expect("shipped models load") {
        inputs.insert(case.name.clone(), ids(&case.input));
        checkpoint::save_path(&case.model, &out_dir().join(&case.name)).expect("save a model");
        group.bench_function(&case.name, |b| {
            b.iter(|| {
                case.model
                    .forward(black_box(&case.input), &opts)
                    .expect("forward")
            })
        });
    }
    group.finish();
    let text = serde_json::to_string_pretty(&inputs).expect("inputs as JSON");
    std::fs::write(out_dir().join("inputs.json"), text).expect("write inputs.json");
}

fn large(c: &mut Criterion) {
    let case = bench::large().expect("the larger model");
    checkpoint::save_path(&case.model, &out_dir().join("large")).expect("save the large model");
    let text = ids(&case.input).to_string();
    std::fs::write(out_dir().join("large-input.json"), text).expect("write large-input.json");
    let mut group = c.benchmark_group("forward-large");
    group.sample_size(10);
    group.throughput(Throughput::Elements(case.flops.unwrap_or(0)));
    let opts = ForwardOptions::default();
    group.bench_function(bench::LARGE_NAME, |b| {
        b.iter(|| {
            case.model
                .forward(black_box(&case.input), &opts)
                .expect("forward")
        })
    });
    group.finish();
}

/// This core's f32 peak as measured: 12 independent 8-lane FMA chains that never touch
/// memory (enough in flight to fill both FMA pipes). Throughput counts 2 flops per lane.
#[cfg(target_arch = "x86_64")]
fn peak(c: &mut Criterion) {
    if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")) {
        return;
    }
    const ITERS: u64 = 100_000;
    let mut group = c.benchmark_group("peak");
    group.throughput(Throughput::Elements(ITERS * 12 * 8 * 2));
    group.bench_function("fma-avx2-f32", |bench| {
        // SAFETY: the features were detected above.
        bench.iter(|| unsafe { fma_chains(black_box(ITERS)) })
    });
    group.finish();
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn fma_chains(iters: u64) -> f32 {
    use std::arch::x86_64::*;
    // Opaque constants, so the compiler cannot fold the chains away.
    let a = _mm256_set1_ps(black_box(0.999_9));
    let b = _mm256_set1_ps(black_box(1e-4));
    let mut acc = [_mm256_set1_ps(black_box(1.0)); 12];
    for _ in 0..iters {
        for x in acc.iter_mut() {
            *x = _mm256_fmadd_ps(*x, a, b);
        }
    }
    let mut sum = _mm256_setzero_ps();
    for x in acc {
        sum = _mm256_add_ps(sum, x);
    }
    let mut lanes = [0f32; 8];
    _mm256_storeu_ps(lanes.as_mut_ptr(), sum);
    black_box(lanes.iter().sum())
}

#[cfg(not(target_arch = "x86_64"))]
fn peak(_: &mut Criterion) {}

/// The same traced forward pass on the CPU and on the GPU (feature `webgpu`; whatever adapter
/// wgpu finds, lavapipe here) at T = 64, 256 and 1024 for the d64 model, and T = 64 for d512.
/// `glimpse bench-gpu` sweeps every size and length and prints the speed-ups as JSON.
#[cfg(feature = "webgpu")]
fn gpu(c: &mut Criterion) {
    use glimpse::gpu::{self, Gpu, GpuModel};
    let device = match Gpu::new_blocking() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("gpu benchmark skipped: {e}");
            return;
        }
    };
    eprintln!("gpu-vs-cpu: the GPU is {}", device.adapter.label());
    let mut group = c.benchmark_group("gpu-vs-cpu");
    group.sample_size(10);
    let opts = ForwardOptions::default();
    for (d, layers, heads, t) in [
        (64, 2, 4, 64),
        (64, 2, 4, 256),
        (64, 2, 4, 1024),
        (512, 6, 8, 64),
    ] {
        let case = bench::sized(d, layers, heads, t).expect("a benchmark model");
        let weights = GpuModel::upload(&device, &case.model);
        group.bench_function(format!("{}/cpu", case.name), |b| {
            b.iter(|| {
                case.model
                    .forward(black_box(&case.input), &opts)
                    .expect("forward")
            })
        });
        group.bench_function(format!("{}/gpu", case.name), |b| {
            b.iter(|| {
                gpu::forward_blocking(
                    &device,
                    &weights,
                    &case.model,
                    black_box(&case.input),
                    &opts,
                )
                .expect("GPU forward")
            })
        });
    }
    group.finish();
}

#[cfg(not(feature = "webgpu"))]
fn gpu(_: &mut Criterion) {}

/// The CPU first, on stderr, so the figures below can be attributed to a machine.
fn announce_cpu(_: &mut Criterion) {
    glimpse::util::machine::announce();
}

criterion_group!(benches, announce_cpu, shipped, large, peak, gpu);
criterion_main!(benches);
