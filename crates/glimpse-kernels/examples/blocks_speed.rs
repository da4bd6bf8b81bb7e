//! A decoding step's products from quantized blocks, timed: as many Q4_1 rows of 576 as
//! SmolLM2-135M's matrices hold (66 MB) and its Q8_0 output layer (30 MB), then the same
//! kinds in a matrix that stays in cache; each beside a plain read of the same bytes:
//! `cargo run --release --example blocks_speed`. The last number of a line only keeps the
//! work from being optimised away.
use glimpse_kernels::blocks::{w_x, Activations, QuantKind};
use std::time::Instant;

fn matrix(kind: QuantKind, rows: usize, cols: usize) -> Vec<u8> {
    let bytes = rows * cols / 32 * kind.block_bytes();
    let mut w: Vec<u8> = (0..bytes).map(|i| (i * 7 % 251) as u8).collect();
    // Finite f16 scales (0x2c00 = 1/16) where each block starts.
    for b in w.chunks_exact_mut(kind.block_bytes()) {
        b[0] = 0x00;
        b[1] = 0x2c;
        if kind == QuantKind::Q4_1 {
            b[2] = 0x00;
            b[3] = 0xac;
        }
    }
    w
}

fn main() {
    let cols = 576;
    let x: Vec<f32> = (0..cols).map(|i| (i % 13) as f32 * 0.1 - 0.6).collect();
    let acts = Activations::new(&x);
    for (kind, rows) in [
        (QuantKind::Q4_1, 184_320),
        (QuantKind::Q8_0, 49_152),
        (QuantKind::Q4_1, 1536),
        (QuantKind::Q8_0, 1536),
    ] {
        let w = matrix(kind, rows, cols);
        let mut y = vec![0.0f32; rows];
        let mut best = f64::MAX;
        let reps = (1 << 20) / rows + 1;
        for _ in 0..20 {
            let s = Instant::now();
            for _ in 0..reps {
                assert!(w_x(kind, &w, &acts, &mut y));
            }
            best = best.min(s.elapsed().as_secs_f64() / reps as f64);
        }
        let per_block = best * 1e9 / (rows * cols / 32) as f64;
        let mut read = f64::MAX;
        let mut total = 0u64;
        for _ in 0..20 {
            let s = Instant::now();
            total = total.wrapping_add(
                w.chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                    .fold(0u64, u64::wrapping_add),
            );
            read = read.min(s.elapsed().as_secs_f64());
        }
        let gb = w.len() as f64 / 1e9;
        println!(
            "{} {rows}x{cols}: {:.2} ms, {per_block:.2} ns a block ({:.1} GB/s); \
             plain read {:.2} ms ({:.1} GB/s) [{}]",
            kind.name(),
            best * 1e3,
            gb / best,
            read * 1e3,
            gb / read,
            total % 10 + y.iter().sum::<f32>().is_finite() as u64,
        );
    }
}
