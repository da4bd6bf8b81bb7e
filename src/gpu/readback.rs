//! Reading tensors back: each is copied into a mappable staging buffer in the same command
//! buffer as the kernels, then all are mapped at once. In the browser the maps resolve on the
//! event loop (so this is async); natively the device is polled until they have.

use super::tensor::Tensor;
use super::GpuError;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// Which tensors to read, each once however often the trace uses it.
#[derive(Default)]
pub(crate) struct Reads {
    tensors: Vec<Tensor>,
}

/// A tensor's place among the reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot(usize);

impl Reads {
    pub fn add(&mut self, t: &Tensor) -> Slot {
        if let Some(i) = self
            .tensors
            .iter()
            .position(|r| Arc::ptr_eq(&r.buffer, &t.buffer))
        {
            return Slot(i);
        }
        self.tensors.push(t.clone());
        Slot(self.tensors.len() - 1)
    }

    /// Records the copies, submits everything and asks for the maps; `Pending::wait` then
    /// waits for the data.
    pub fn submit(
        self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        mut encoder: wgpu::CommandEncoder,
    ) -> Pending {
        let staging: Vec<wgpu::Buffer> = self
            .tensors
            .iter()
            .map(|t| {
                let size = t.bytes().max(4);
                let s = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("readback"),
                    size,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                encoder.copy_buffer_to_buffer(&t.buffer, 0, &s, 0, size);
                s
            })
            .collect();
        queue.submit([encoder.finish()]);
        let waits: Vec<MapWait> = staging
            .iter()
            .map(|s| {
                let wait = MapWait::default();
                let done = wait.0.clone();
                s.map_async(wgpu::MapMode::Read, .., move |r| {
                    let mut state = done.lock().unwrap_or_else(|e| e.into_inner());
                    state.0 = Some(r.is_ok());
                    if let Some(w) = state.1.take() {
                        w.wake();
                    }
                });
                wait
            })
            .collect();
        Pending {
            tensors: self.tensors,
            staging,
            waits,
        }
    }
}

/// Submitted work whose results are being mapped.
pub(crate) struct Pending {
    tensors: Vec<Tensor>,
    staging: Vec<wgpu::Buffer>,
    waits: Vec<MapWait>,
}

impl Pending {
    pub async fn wait(self, device: &wgpu::Device) -> Result<Values, GpuError> {
        let Pending {
            tensors,
            staging,
            waits,
        } = self;
        #[cfg(not(target_arch = "wasm32"))]
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::Device(e.to_string()))?;
        let mut data = Vec::with_capacity(staging.len());
        #[cfg(target_arch = "wasm32")]
        let _ = device;
        for ((s, t), wait) in staging.iter().zip(&tensors).zip(waits) {
            if !wait.await {
                return Err(GpuError::Device("a result could not be read back".into()));
            }
            let view = s
                .get_mapped_range(..)
                .map_err(|e| GpuError::Device(e.to_string()))?;
            let values: Vec<f32> = view
                .chunks_exact(4)
                .take(t.len())
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            drop(view);
            s.unmap();
            data.push((values, t.shape.clone()));
        }
        Ok(Values { data })
    }
}

/// Everything read back, by slot.
pub(crate) struct Values {
    data: Vec<(Vec<f32>, Vec<usize>)>,
}

impl Values {
    fn get<D: ndarray::Dimension>(&self, s: Slot) -> ndarray::Array<f32, D> {
        let (v, shape) = &self.data[s.0];
        ndarray::ArrayD::from_shape_vec(shape.clone(), v.clone())
            .ok()
            .and_then(|a| a.into_dimensionality::<D>().ok())
            .unwrap_or_else(|| ndarray::Array::from_elem(D::zeros(D::NDIM.unwrap_or(1)), 0.0))
    }
    pub fn a1(&self, s: Slot) -> ndarray::Array1<f32> {
        self.get(s)
    }
    pub fn a2(&self, s: Slot) -> ndarray::Array2<f32> {
        self.get(s)
    }
    pub fn a3(&self, s: Slot) -> ndarray::Array3<f32> {
        self.get(s)
    }
}

/// Resolves when a map callback has run: `true` if the buffer was mapped.
#[derive(Default)]
struct MapWait(Arc<Mutex<(Option<bool>, Option<Waker>)>>);

impl Future for MapWait {
    type Output = bool;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<bool> {
        let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match state.0 {
            Some(ok) => Poll::Ready(ok),
            None => {
                state.1 = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}
