//! Which processor runs the app's forward pass: the CPU (`model/`) or the GPU (`gpu/`,
//! feature `webgpu`). The GPU is looked for once at start-up (WebGPU in the browser, a native
//! adapter on the desktop) and chosen by itself when it is a real GPU; a software adapter
//! (lavapipe, SwiftShader) is offered but left off, since the CPU path beats it. The user can
//! switch either way; the controls show the choice, both timings and how far they differ.
//!
//! The CPU always runs too: it gives the view a trace at once (the browser's GPU answers a
//! frame or more later) and the timing to compare with.

// Natively wgpu's handles are Send + Sync and shared with threads through `Arc`; in the
// browser (one thread) they are not, which is fine there.
#![cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]

use crate::model::{ForwardOptions, Model, ModelInput, Trace};
use crate::t;
#[cfg(feature = "webgpu")]
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Backend {
    Cpu,
    Gpu,
}

/// The state of the GPU as the UI tells it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum GpuStatus {
    /// Built without the `webgpu` feature.
    NotBuilt,
    /// Not looked for (the UI tests' apps, until they ask).
    NotLookedFor,
    Detecting,
    Unavailable(String),
    Ready {
        adapter: String,
        software: bool,
    },
}

/// What the last forward pass took, and on what.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Timing {
    /// The path chosen when this ran.
    pub asked: Backend,
    /// The path whose trace the view shows.
    pub used: Backend,
    pub cpu_ms: f64,
    pub gpu_ms: Option<f64>,
    /// Largest difference between the two paths' attention weights and logits.
    pub max_difference: Option<f32>,
    /// Why the GPU was asked but the CPU's trace is shown.
    pub fallback: Option<String>,
    /// The GPU's answer is still to come (browser).
    pub waiting: bool,
}

/// A GPU answer: which run it belongs to, its trace or why not, and its time.
#[cfg(feature = "webgpu")]
type Answer = (u64, Result<Trace, String>, f64);

#[derive(Default)]
pub struct Compute {
    /// The user's choice; `None` until they make one.
    choice: Option<Backend>,
    #[cfg(feature = "webgpu")]
    gpu: Arc<Mutex<Option<Result<crate::gpu::Gpu, String>>>>,
    #[cfg(feature = "webgpu")]
    weights: Option<Arc<crate::gpu::GpuModel>>,
    #[cfg(feature = "webgpu")]
    answer: Arc<Mutex<Option<Answer>>>,
    /// A copy of the model the GPU weights came from, for the browser's background runs.
    #[cfg(all(feature = "webgpu", target_arch = "wasm32"))]
    model: Option<Arc<Model>>,
    /// A browser GPU run is under way: one at a time, so a fast typist queues instead.
    #[cfg(feature = "webgpu")]
    busy: Arc<std::sync::atomic::AtomicBool>,
    /// Input changed while the GPU was busy: run again when it is free.
    queued: bool,
    looked_for: bool,
    /// Woken when a GPU answer arrives.
    ctx: Option<egui::Context>,
    /// Counts runs, so a late GPU answer for older input is dropped.
    run: u64,
    pub last: Option<Timing>,
}

#[cfg(feature = "webgpu")]
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs a future to completion off the frame: a thread natively, the event loop in a browser.
#[cfg(all(feature = "webgpu", not(target_arch = "wasm32")))]
fn spawn(f: impl std::future::Future<Output = ()> + Send + 'static) {
    std::thread::spawn(move || pollster::block_on(f));
}

#[cfg(all(feature = "webgpu", target_arch = "wasm32"))]
fn spawn(f: impl std::future::Future<Output = ()> + 'static) {
    wasm_bindgen_futures::spawn_local(f);
}

impl Compute {
    /// Looks for a GPU in the background; `ctx` is asked to repaint when the answer is in.
    pub fn look_for_gpu(&mut self, ctx: &egui::Context) {
        if self.looked_for {
            return;
        }
        self.looked_for = true;
        self.ctx = Some(ctx.clone());
        #[cfg(feature = "webgpu")]
        {
            let slot = self.gpu.clone();
            let ctx = ctx.clone();
            spawn(async move {
                let found = crate::gpu::Gpu::new()
                    .await
                    .map_err(|e| crate::app::words::model_says(&e.to_string()));
                if let Ok(g) = &found {
                    log::info!("GPU compute: {}", g.adapter.label());
                }
                *lock(&slot) = Some(found);
                ctx.request_repaint();
            });
        }
        #[cfg(not(feature = "webgpu"))]
        let _ = ctx;
    }

    pub fn status(&self) -> GpuStatus {
        #[cfg(feature = "webgpu")]
        {
            if !self.looked_for {
                return GpuStatus::NotLookedFor;
            }
            match &*lock(&self.gpu) {
                None => GpuStatus::Detecting,
                Some(Err(e)) => GpuStatus::Unavailable(e.clone()),
                Some(Ok(g)) => GpuStatus::Ready {
                    adapter: g.adapter.label(),
                    software: g.adapter.software,
                },
            }
        }
        #[cfg(not(feature = "webgpu"))]
        GpuStatus::NotBuilt
    }

    /// The path the next run takes.
    pub fn backend(&self) -> Backend {
        match (self.choice, self.status()) {
            (Some(Backend::Gpu), GpuStatus::Ready { .. }) => Backend::Gpu,
            (
                None,
                GpuStatus::Ready {
                    software: false, ..
                },
            ) => Backend::Gpu,
            _ => Backend::Cpu,
        }
    }

    pub fn choose(&mut self, backend: Backend) {
        self.choice = Some(backend);
    }

    /// True once the choice changed what the view should show: the caller runs again.
    pub fn wants_rerun(&self) -> bool {
        let changed = self
            .last
            .as_ref()
            .is_some_and(|t| t.asked != self.backend());
        #[cfg(feature = "webgpu")]
        let free = !self.busy.load(std::sync::atomic::Ordering::Acquire);
        #[cfg(not(feature = "webgpu"))]
        let free = true;
        changed || (self.queued && free)
    }

    /// Runs the forward pass: the CPU always, the GPU too when it is the chosen path. Returns
    /// the trace to show now (the GPU's natively; in a browser the CPU's, until `poll`).
    pub fn forward(
        &mut self,
        model: &Model,
        input: &ModelInput,
        opts: &ForwardOptions,
    ) -> crate::model::Result<Trace> {
        let t0 = web_time::Instant::now();
        let cpu = model.forward(input, opts);
        let cpu_ms = t0.elapsed().as_secs_f64() * 1e3;
        self.cpu_done(model, input, opts, cpu, cpu_ms)
    }

    /// The CPU's pass is done (at once, or in slices over several frames taking `cpu_ms` in
    /// all): records its time, and runs the GPU when it is the chosen path.
    pub fn cpu_done(
        &mut self,
        model: &Model,
        input: &ModelInput,
        opts: &ForwardOptions,
        cpu: crate::model::Result<Trace>,
        cpu_ms: f64,
    ) -> crate::model::Result<Trace> {
        self.run += 1;
        let asked = self.backend();
        self.queued = false;
        self.last = Some(Timing {
            asked,
            used: Backend::Cpu,
            cpu_ms,
            gpu_ms: None,
            max_difference: None,
            fallback: None,
            waiting: false,
        });
        let cpu = cpu?;
        #[cfg(feature = "webgpu")]
        if asked == Backend::Gpu {
            return Ok(self.run_gpu(model, input, opts, cpu));
        }
        #[cfg(not(feature = "webgpu"))]
        let _ = (model, input, opts);
        Ok(cpu)
    }

    #[cfg(feature = "webgpu")]
    fn run_gpu(
        &mut self,
        model: &Model,
        input: &ModelInput,
        opts: &ForwardOptions,
        cpu: Trace,
    ) -> Trace {
        let Some(Ok(gpu)) = lock(&self.gpu).clone() else {
            return cpu;
        };
        if self.weights.as_ref().is_none_or(|w| !w.holds(model)) {
            self.weights = Some(Arc::new(crate::gpu::GpuModel::upload(&gpu, model)));
            #[cfg(target_arch = "wasm32")]
            {
                self.model = Some(Arc::new(model.clone()));
            }
        }
        let Some(weights) = self.weights.clone() else {
            return cpu;
        };
        #[cfg(not(target_arch = "wasm32"))]
        {
            let t0 = web_time::Instant::now();
            let result = crate::gpu::forward_blocking(&gpu, &weights, model, input, opts);
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            self.accept((self.run, result.map_err(|e| e.to_string()), ms), cpu)
        }
        #[cfg(target_arch = "wasm32")]
        {
            use std::sync::atomic::Ordering;
            if let Some(t) = self.last.as_mut() {
                t.waiting = true;
            }
            let Some(model) = self.model.clone() else {
                return cpu;
            };
            if self.busy.swap(true, Ordering::AcqRel) {
                self.queued = true;
                return cpu;
            }
            let (input, opts) = (input.clone(), opts.clone());
            let (slot, run, ctx) = (self.answer.clone(), self.run, self.ctx.clone());
            let busy = self.busy.clone();
            spawn(async move {
                let t0 = web_time::Instant::now();
                let result = crate::gpu::forward(&gpu, &weights, &model, &input, &opts).await;
                let ms = t0.elapsed().as_secs_f64() * 1e3;
                *lock(&slot) = Some((run, result.map_err(|e| e.to_string()), ms));
                busy.store(false, Ordering::Release);
                if let Some(ctx) = ctx {
                    ctx.request_repaint();
                }
            });
            cpu
        }
    }

    /// Takes in a GPU answer: its trace if it matches (and belongs to this run), else the
    /// CPU's with the reason.
    #[cfg(feature = "webgpu")]
    fn accept(&mut self, (run, result, ms): Answer, cpu: Trace) -> Trace {
        let Some(t) = self.last.as_mut().filter(|_| run == self.run) else {
            return cpu;
        };
        t.waiting = false;
        t.gpu_ms = Some(ms);
        match result {
            Ok(gpu) => {
                t.max_difference = Some(cpu.largest_difference(&gpu));
                t.used = Backend::Gpu;
                gpu
            }
            Err(e) => {
                t.fallback = Some(e);
                cpu
            }
        }
    }

    /// A GPU answer that arrived since the last frame (browser), replacing `current` (the
    /// CPU's trace of the same run). `None` when there is nothing new.
    pub fn poll(&mut self, current: &Trace) -> Option<Trace> {
        #[cfg(feature = "webgpu")]
        {
            let answer = lock(&self.answer).take()?;
            if answer.0 != self.run {
                return None;
            }
            let cpu = current.clone();
            let t = self.accept(answer, cpu);
            (self.last.as_ref()?.used == Backend::Gpu).then_some(t)
        }
        #[cfg(not(feature = "webgpu"))]
        {
            let _ = current;
            None
        }
    }

    /// The status, the path and the last timing as JSON (the browser test reads it).
    pub fn summary(&self) -> serde_json::Value {
        let (threads, away) = cpu_threads();
        serde_json::json!({
            "status": self.status(),
            "backend": self.backend(),
            "last": self.last,
            "threads": threads,
            "off_page": away,
            "threads_text": cpu_threads_text(),
        })
    }

    /// The choice and the timings, in the controls panel.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let status = self.status();
        let backend = self.backend();
        ui.horizontal_wrapped(|ui| {
            ui.label(t!("workbench-compute-on"));
            let cpu = ui
                .selectable_label(backend == Backend::Cpu, "CPU")
                .on_hover_text(t!("workbench-cpu-hover"));
            crate::app::probe::control("compute:CPU", cpu.rect);
            if cpu.clicked() {
                self.choose(Backend::Cpu);
            }
            let ready = matches!(status, GpuStatus::Ready { .. });
            let gpu = ui
                .add_enabled(
                    ready,
                    egui::Button::selectable(backend == Backend::Gpu, "GPU"),
                )
                .on_hover_text(t!("workbench-gpu-hover"))
                .on_disabled_hover_text(status_text(&status));
            crate::app::probe::control("compute:GPU", gpu.rect);
            if gpu.clicked() {
                self.choose(Backend::Gpu);
            }
        });
        ui.weak(status_text(&status));
        ui.weak(cpu_threads_text());
        if let Some(t) = &self.last {
            ui.weak(timing_text(t));
            if let Some(why) = &t.fallback {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    t!("workbench-gpu-fallback", why = why),
                );
            }
        }
    }
}

/// Threads the CPU path uses here, and whether its long passes run off the page's thread.
fn cpu_threads() -> (usize, bool) {
    #[cfg(not(target_arch = "wasm32"))]
    return (crate::model::parallel::threads(), true);
    #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
    return match crate::app::threads::pool_threads() {
        0 => (1, false),
        n => (n, crate::app::threads::engine_ready()),
    };
    #[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
    (1, false)
}

/// The CPU path's threads in words; in the browser with one thread, why only one.
pub fn cpu_threads_text() -> String {
    let (threads, away) = cpu_threads();
    #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
    if let Some(why) = crate::app::threads::crashed() {
        return t!("workbench-cpu-worker-stopped", why = why);
    }
    if cfg!(target_arch = "wasm32") && !away {
        let isolated = js_sys_isolated();
        return if cfg!(target_feature = "atomics") && isolated {
            t!("workbench-cpu-threads-starting")
        } else if isolated {
            t!("workbench-cpu-one-thread-no-build")
        } else {
            t!("workbench-cpu-one-thread-not-isolated")
        };
    }
    if cfg!(target_arch = "wasm32") {
        t!("workbench-cpu-threads-away", threads = threads)
    } else {
        t!("workbench-cpu-threads", threads = threads)
    }
}

/// Whether the page may share memory with workers (`crossOriginIsolated`); natively true.
fn js_sys_isolated() -> bool {
    #[cfg(target_arch = "wasm32")]
    return js_sys::Reflect::get(&js_sys::global(), &"crossOriginIsolated".into())
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    #[cfg(not(target_arch = "wasm32"))]
    true
}

pub fn status_text(status: &GpuStatus) -> String {
    match status {
        GpuStatus::NotBuilt => t!("workbench-gpu-not-built"),
        GpuStatus::NotLookedFor => t!("workbench-gpu-not-looked-for"),
        GpuStatus::Detecting => t!("workbench-gpu-detecting"),
        GpuStatus::Unavailable(why) => t!("workbench-gpu-unavailable", why = why),
        GpuStatus::Ready {
            adapter,
            software: true,
        } => t!("workbench-gpu-software", adapter = adapter),
        GpuStatus::Ready { adapter, .. } => format!("GPU: {adapter}"),
    }
}

pub fn timing_text(t: &Timing) -> String {
    let used = match t.used {
        Backend::Cpu => "CPU",
        Backend::Gpu => "GPU",
    };
    let ms = format!("{:.2}", t.cpu_ms);
    let mut s = t!("workbench-timing-shown", used = used, ms = ms);
    if t.waiting {
        s += " · ";
        s += &t!("workbench-timing-gpu-running");
    }
    if let Some(g) = t.gpu_ms {
        s += &format!(" · GPU {g:.2} ms");
    }
    if let Some(d) = t.max_difference {
        s += " · ";
        s += &t!(
            "workbench-timing-difference",
            difference = format!("{d:.1e}")
        );
    }
    s
}
