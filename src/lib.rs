//! Glimpse: an interactive explorer of attention and transformers.
//!
//! `model` is the transformer (pure computation); `app` is the egui app that draws its traces;
//! `cli` prints them as JSON.

pub mod analysis;
pub mod app;
#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
pub mod decode;
/// Fuzz harnesses (`fuzz/`), also replayed on stable by `tests/fuzz_corpus.rs`.
#[cfg(not(target_arch = "wasm32"))]
pub mod fuzzing;
#[cfg(feature = "webgpu")]
pub mod gpu;
pub mod i18n;
pub mod model;
pub mod train;
pub mod util;

/// Browser test hook: the JSON of what the app last drew (see `app::probe`).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_probe() -> String {
    app::probe::latest()
}

/// The entry of a Web Worker running this same module (`web/worker.js`, `app::worker`).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_worker_start() {
    app::worker::start();
}

/// Browser test hook: screen rectangles of named controls (see `app::probe::control`).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_controls() -> String {
    app::probe::controls()
}

/// Browser test hook: panels whose content did not fit in the last frame (see
/// `app::probe::check_fits`); `{}` when everything fit.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_overflow() -> String {
    app::probe::overflow_json()
}

/// Browser test hook: the compute path (CPU or GPU), the GPU's status and the last timings.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_compute() -> String {
    app::probe::compute()
}

/// Browser benchmark: the traced forward pass on the CPU and on WebGPU across model sizes and
/// input lengths up to `max_d_model` and `max_tokens` (`gpu::bench`); JSON like
/// `glimpse bench-gpu`.
#[cfg(all(target_arch = "wasm32", feature = "webgpu"))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub async fn glimpse_gpu_benchmark(max_d_model: u32, max_tokens: u32, runs: u32) -> String {
    let (d, t, runs) = (max_d_model as usize, max_tokens as usize, runs as usize);
    let report = match gpu::Gpu::new().await {
        Ok(g) => gpu::bench::sweep(&g, d, t, runs).await,
        Err(e) => Err(e),
    };
    match report {
        Ok(r) => serde_json::to_string(&r).unwrap_or_default(),
        Err(e) => serde_json::json!({ "error": e.to_string() }).to_string(),
    }
}

/// Browser test hook: every model the app has asked for, each ready (architecture, layers,
/// heads, parameters), loading or failed (with the reason).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_models() -> String {
    app::probe::models()
}

/// The page hands over files the user picked or dropped (`web/open_files.js`): `paths`
/// relative to what was chosen (`MiniLM/config.json`), `contents` the matching `Uint8Array`s.
/// The app opens them on its next frame.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_open_files(paths: Vec<String>, contents: js_sys::Array) {
    let bytes = contents
        .iter()
        .map(|c| js_sys::Uint8Array::new(&c).to_vec())
        .collect();
    app::models::open_dialog::hand_over(paths, bytes);
}

/// Browser test hook: the served checkpoints the model picker offers, with their sizes.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_served() -> String {
    app::probe::served()
}

/// Browser test hook: links to every view, section and lesson page, one per line.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_every_view() -> String {
    app::link::every_view().join("\n")
}

/// Browser benchmark: one forward pass of every shipped model (and, with `large`, the d512
/// configuration), timed inside the page's wasm; JSON like `glimpse bench-forward`.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_forward_benchmark(large: bool) -> String {
    match model::bench::latencies(large) {
        Ok(t) => serde_json::to_string(&t).unwrap_or_default(),
        Err(e) => serde_json::json!({ "error": e.to_string() }).to_string(),
    }
}

/// Browser benchmark: CPU milliseconds of the frames drawn since the last call.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_frame_times() -> String {
    app::probe::take_frame_times_json()
}

/// Browser test hook: panic on purpose, so the test can check the error overlay
/// (`app::shell::crash`) replaces the dead canvas.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_test_panic() {
    panic!("a panic requested by the browser test");
}

/// Browser test hook: the training lab's Web Worker panics on purpose at its next message; the
/// lab must show why and the page carry on.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_test_worker_panic() {
    app::labs::training::run::remote::request_test_panic();
}

/// Browser test hook: a job that panics on the threaded build's engine, which must stop alone:
/// the page carries on, on its own thread, and the Compute panel says why. False in the plain
/// build (no engine).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_test_engine_panic() -> bool {
    #[cfg(target_feature = "atomics")]
    if app::threads::pool_threads() > 0 {
        app::threads::off_page(|| panic!("a panic requested by the browser test, on the engine"));
        return true;
    }
    false
}

/// Browser test hook: the training lab's status (step, held-out accuracy, running).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_training() -> String {
    app::probe::training()
}

/// Browser test hook: passes the labs asked the model store for that are still running.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_store_passes() -> usize {
    app::probe::store_passes()
}

/// Browser test hook: the decoding lab's search (steps taken and asked for, best hypothesis,
/// greedy decoding).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_decoding() -> String {
    app::probe::decoding()
}

/// Browser test hook: the influence lab's numbers on screen (lens, attribution, patching
/// progress and time, sinks).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_influence() -> String {
    app::probe::influence()
}

/// Browser benchmark: train the reverse task's default model for `steps` steps inside this
/// call and return its throughput as JSON (`web/bench_training.mjs` calls it).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_train_benchmark(steps: u32) -> String {
    use train::tasks::TaskKind;
    use train::trainer::{measure_throughput, TrainConfig};
    match measure_throughput(TrainConfig::for_task(TaskKind::Reverse), steps as u64) {
        Ok(t) => serde_json::to_string(&t).unwrap_or_default(),
        Err(e) => serde_json::json!({ "error": e.to_string() }).to_string(),
    }
}

/// Browser benchmark: train the Vision tab's ViT on `task` (`larger`, `count`) for `steps`
/// steps inside this call (`train::vision::train::measure`, as `glimpse bench-vision`) and
/// return the timing as JSON (`web/bench_vision.mjs` calls it).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_vision_benchmark(task: String, steps: u32) -> String {
    use train::vision::VisionTask;
    let Some(task) = VisionTask::from_code(&task) else {
        return serde_json::json!({ "error": format!("unknown task {task}") }).to_string();
    };
    match train::vision::train::measure(task, 1, u64::from(steps)) {
        Ok(t) => serde_json::to_string(&t).unwrap_or_default(),
        Err(e) => serde_json::json!({ "error": e }).to_string(),
    }
}

/// Browser benchmark: open the checkpoint in `paths`/`contents` (as `glimpse_open_files` does)
/// and time its forward pass on `tokens` tokens of English (`model::bench::time_checkpoint`,
/// like `glimpse bench-forward --model`); `peak_rss_mb` is the wasm memory afterwards. JSON.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub async fn glimpse_bench_checkpoint(
    paths: Vec<String>,
    contents: js_sys::Array,
    tokens: u32,
    runs: u32,
) -> String {
    let mut files = model::import::files::CheckpointFiles::new();
    for (path, c) in paths.iter().zip(contents.iter()) {
        files.add(path, js_sys::Uint8Array::new(&c).to_vec());
    }
    drop(contents);
    // The threaded build times it on the engine, with the pool, as its passes run.
    let time = move || {
        files
            .open("benchmark", "benchmark")
            .map_err(|e| e.to_string())
            .and_then(|(m, _)| model::bench::time_checkpoint(&m, tokens as usize, runs as usize))
    };
    #[cfg(target_feature = "atomics")]
    let timed = app::threads::away(time)
        .await
        .map_err(|crash| format!("a worker stopped: {crash}"))
        .and_then(|timed| timed);
    #[cfg(not(target_feature = "atomics"))]
    let timed = time();
    match timed {
        Ok(mut t) => {
            t.peak_rss_mb = Some(wasm_memory_bytes() as f64 / 1e6);
            serde_json::to_string(&t).unwrap_or_default()
        }
        Err(e) => serde_json::json!({ "error": e }).to_string(),
    }
}

/// Browser test hook: the bytes of wasm memory this app holds now (it only grows).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn glimpse_wasm_memory() -> f64 {
    wasm_memory_bytes() as f64
}

#[cfg(target_arch = "wasm32")]
fn wasm_memory_bytes() -> usize {
    core::arch::wasm32::memory_size(0) * 65536
}
