//! A tensor living on the GPU: a storage buffer and its shape (row-major, f32).

use std::sync::Arc;
use wgpu::util::DeviceExt;

#[derive(Clone, Debug)]
pub(crate) struct Tensor {
    pub buffer: Arc<wgpu::Buffer>,
    pub shape: Vec<usize>,
}

impl Tensor {
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn rows(&self) -> usize {
        self.shape.first().copied().unwrap_or(0)
    }

    /// The last dimension (the row length of a matrix).
    pub fn cols(&self) -> usize {
        self.shape.last().copied().unwrap_or(0)
    }

    pub fn bytes(&self) -> u64 {
        self.len() as u64 * 4
    }

    /// A zero-filled tensor the kernels write into.
    pub fn empty(device: &wgpu::Device, shape: &[usize]) -> Tensor {
        let len: usize = shape.iter().product();
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            // Bindings may not be empty: a zero-sized tensor still gets 4 bytes.
            size: (len.max(1) * 4) as u64,
            usage: usage(),
            mapped_at_creation: false,
        });
        Tensor {
            buffer: Arc::new(buffer),
            shape: shape.to_vec(),
        }
    }

    pub fn from_f32(device: &wgpu::Device, data: &[f32], shape: &[usize]) -> Tensor {
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        Self::from_bytes(device, bytes, shape)
    }

    pub fn from_u32(device: &wgpu::Device, data: &[u32], shape: &[usize]) -> Tensor {
        Self::from_bytes(device, words(data), shape)
    }

    /// Any ndarray, in its logical (row-major) order.
    pub fn from_array<D: ndarray::Dimension>(
        device: &wgpu::Device,
        a: &ndarray::Array<f32, D>,
    ) -> Tensor {
        let data: Vec<f32> = a.iter().copied().collect();
        Self::from_f32(device, &data, a.shape())
    }

    fn from_bytes(device: &wgpu::Device, mut bytes: Vec<u8>, shape: &[usize]) -> Tensor {
        if bytes.is_empty() {
            bytes = vec![0; 4];
        }
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: &bytes,
            usage: usage(),
        });
        Tensor {
            buffer: Arc::new(buffer),
            shape: shape.to_vec(),
        }
    }
}

/// Little-endian bytes of 32-bit words (tensor data, kernel parameters), as WGSL reads them.
pub(crate) fn words(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn usage() -> wgpu::BufferUsages {
    wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST
}
