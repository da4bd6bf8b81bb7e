//! GFLOP/s of `x_wt` on a transformer's shapes, through every kernel this CPU runs, side by
//! side: `cargo run --release --example speed`.
use glimpse_kernels::matmul::{kernels, x_wt_with};
use glimpse_kernels::Matrix;
use std::time::Instant;

fn main() {
    for &(t, k, n) in &[
        (19, 576, 1536),
        (32, 384, 1536),
        (128, 384, 384),
        (128, 384, 1536),
        (128, 1536, 384),
        (64, 576, 1536),
        (64, 1536, 576),
    ] {
        let x: Vec<f32> = (0..t * k).map(|i| (i % 7) as f32 * 0.1).collect();
        let w: Vec<f32> = (0..n * k).map(|i| (i % 5) as f32 * 0.1).collect();
        let mut y = vec![0.0f32; t * n];
        let rows: Vec<&[f32]> = x.chunks(k).collect();
        let m = Matrix {
            data: &w,
            rows: n,
            cols: k,
            stride: k,
        };
        for kernel in kernels() {
            let mut best = f64::MAX;
            for _ in 0..30 {
                let mut out: Vec<&mut [f32]> = y.chunks_mut(n).collect();
                let s = Instant::now();
                x_wt_with(kernel, &rows, m, &mut out);
                best = best.min(s.elapsed().as_secs_f64());
            }
            println!(
                "{t}x{k}x{n} {:>7}: {:.3} ms, {:.1} GFLOP/s",
                kernel.name(),
                best * 1e3,
                2.0 * (t * k * n) as f64 / best / 1e9
            );
        }
    }
}
