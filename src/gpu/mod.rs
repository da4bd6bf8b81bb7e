//! The GPU path (feature `webgpu`): the same forward pass as `model::Model::forward`, run as
//! wgpu compute shaders (WGSL in `shaders/`), returning the same `Trace`. WebGPU in the
//! browser; Vulkan, Metal or DX12 natively (Mesa's lavapipe where there is no GPU).
//!
//! The host side mirrors `model/transformer.rs` step by step; only the arithmetic moves to
//! the GPU. Everything is recorded into one command buffer, and the trace is read back once.

// Natively wgpu's handles are Send + Sync and shared with threads through `Arc`; in the
// browser (one thread) they are not, which is fine there.
#![cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]

pub mod bench;
mod forward;
mod kernels;
mod readback;
mod tensor;
mod weights;

pub use forward::forward;

/// `forward` natively, blocking until the trace is read back.
#[cfg(not(target_arch = "wasm32"))]
pub fn forward_blocking(
    gpu: &Gpu,
    weights: &GpuModel,
    model: &crate::model::Model,
    input: &crate::model::ModelInput,
    opts: &crate::model::ForwardOptions,
) -> Result<crate::model::Trace, GpuError> {
    pollster::block_on(forward(gpu, weights, model, input, opts))
}
pub use weights::GpuModel;

use kernels::Kernels;
use std::fmt;
use std::sync::Arc;

/// Why the GPU path cannot run; the caller falls back to the CPU and shows this.
#[derive(Debug, Clone, PartialEq)]
pub enum GpuError {
    /// No WebGPU in this browser, or no adapter natively.
    NoAdapter(String),
    /// The adapter was found but refused a device.
    Device(String),
    /// Something the GPU path does not do (it is told to the user, then the CPU runs it).
    Unsupported(String),
    /// Bad input, exactly as the CPU path would report it.
    Model(crate::model::ModelError),
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::NoAdapter(m) => write!(f, "no GPU: {m}"),
            GpuError::Device(m) => write!(f, "GPU error: {m}"),
            GpuError::Unsupported(m) => write!(f, "not on the GPU: {m}"),
            GpuError::Model(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for GpuError {}

impl From<crate::model::ModelError> for GpuError {
    fn from(e: crate::model::ModelError) -> Self {
        GpuError::Model(e)
    }
}

/// What the UI and the benchmarks say about the adapter.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AdapterSummary {
    pub name: String,
    pub backend: String,
    pub device_type: String,
    /// A CPU implementation (lavapipe, SwiftShader, WARP): correct, not fast.
    pub software: bool,
}

impl AdapterSummary {
    fn of(info: &wgpu::AdapterInfo) -> Self {
        let software = info.device_type == wgpu::DeviceType::Cpu
            || ["llvmpipe", "lavapipe", "swiftshader"]
                .iter()
                .any(|s| info.name.to_lowercase().contains(s));
        Self {
            // Browsers keep the adapter's name to themselves.
            name: [&info.name, &info.driver, &info.driver_info]
                .into_iter()
                .find(|s| !s.is_empty())
                .cloned()
                .unwrap_or_else(|| "WebGPU adapter".into()),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            software,
        }
    }

    pub fn label(&self) -> String {
        let kind = if self.software { ", software" } else { "" };
        format!("{} ({}{kind})", self.name, self.backend)
    }
}

/// A device with the compiled kernels. Clones share the device.
#[derive(Clone)]
pub struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    kernels: Arc<Kernels>,
    pub adapter: AdapterSummary,
    /// Largest buffer one binding may hold, in bytes.
    max_binding: u64,
}

impl fmt::Debug for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Gpu({})", self.adapter.label())
    }
}

impl Gpu {
    /// Finds an adapter (preferring a discrete GPU), opens a device with its full limits and
    /// compiles the kernels. In a browser without WebGPU this is an error, never a panic.
    pub async fn new() -> Result<Gpu, GpuError> {
        #[cfg(target_arch = "wasm32")]
        if !wgpu::util::is_browser_webgpu_supported().await {
            return Err(GpuError::NoAdapter(
                "this browser does not offer WebGPU (navigator.gpu gave no adapter)".into(),
            ));
        }
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::NoAdapter(e.to_string()))?;
        let summary = AdapterSummary::of(&adapter.get_info());
        let limits = adapter.limits();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("glimpse compute"),
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::Device(e.to_string()))?;
        // wgpu's default handler panics; errors are caught by scopes around each forward.
        device.on_uncaptured_error(Arc::new(|e| log::error!("GPU: {e}")));
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let kernels = Kernels::new(&device);
        if let Some(e) = scope.pop().await {
            return Err(GpuError::Device(format!(
                "the kernels did not compile: {e}"
            )));
        }
        let max_binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        Ok(Gpu {
            device,
            queue,
            kernels: Arc::new(kernels),
            adapter: summary,
            max_binding,
        })
    }

    /// `Gpu::new` natively, blocking until it is ready.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new_blocking() -> Result<Gpu, GpuError> {
        pollster::block_on(Self::new())
    }
}
