//! Caps on what a checkpoint file may ask for, and the progress a reader reports. Every count
//! and size read from a file is checked against these (and against the bytes actually present)
//! before anything is allocated from it.

/// What a reader accepts. The defaults take any real model Glimpse can hope to run and refuse
/// files that only a bug or an attacker would write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Size of one file read whole into memory.
    pub max_file_bytes: u64,
    /// Bytes of tensor values held in memory after conversion (f16 and bf16 double to f32).
    pub max_total_bytes: u64,
    /// Tensors in one file (Llama 3 405B has about 1,100).
    pub max_tensors: usize,
    /// Dimensions of one tensor (GGUF allows 4).
    pub max_rank: usize,
}

/// 2 GiB in the browser (a 32-bit address space holding the file too), 32 GiB natively.
#[cfg(target_arch = "wasm32")]
const MEMORY: u64 = 2 << 30;
#[cfg(not(target_arch = "wasm32"))]
const MEMORY: u64 = 32 << 30;

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_file_bytes: MEMORY,
            max_total_bytes: MEMORY,
            max_tensors: 65_536,
            max_rank: 8,
        }
    }
}

/// Reported after each tensor is converted, for a progress bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    /// Which file of how many (shards; 0 of 1 for a single file).
    pub file_index: usize,
    pub file_count: usize,
    /// Tensor bytes of this file converted so far, out of all of them.
    pub bytes_done: u64,
    pub bytes_total: u64,
    pub tensors_done: usize,
    pub tensors_total: usize,
}

impl Progress {
    /// Fraction of this file done, 0..=1.
    pub fn fraction(&self) -> f32 {
        if self.bytes_total == 0 {
            1.0
        } else {
            (self.bytes_done as f64 / self.bytes_total as f64) as f32
        }
    }
}
