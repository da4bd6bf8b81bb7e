//! `x_wt` beside `matrixmultiply`'s `sgemm` inside wasm: built with
//! `cargo build --release --example wasm_speed --target wasm32-unknown-unknown` and timed by
//! `node crates/glimpse-kernels/examples/wasm_speed.mjs`.
use glimpse_kernels::{x_wt, Matrix};

struct Buffers {
    t: usize,
    k: usize,
    n: usize,
    x: Vec<f32>,
    w: Vec<f32>,
    y: Vec<f32>,
}

static mut BUFFERS: Option<Buffers> = None;

#[allow(static_mut_refs)]
fn buffers() -> &'static mut Buffers {
    // SAFETY: wasm runs this module on one thread.
    unsafe { BUFFERS.as_mut().expect("call shape first") }
}

/// Sets up `x` (`t × k`), `W` (`n × k`) and `y`.
#[no_mangle]
pub extern "C" fn shape(t: usize, k: usize, n: usize) {
    let x = (0..t * k).map(|i| (i % 7) as f32 * 0.1).collect();
    let w = (0..n * k).map(|i| (i % 5) as f32 * 0.1).collect();
    // SAFETY: as in `buffers`.
    unsafe {
        BUFFERS = Some(Buffers {
            t,
            k,
            n,
            x,
            w,
            y: vec![0.0; t * n],
        });
    }
}

/// One product through the kernel; returns y[0][0] so the work is not optimised away.
#[no_mangle]
pub extern "C" fn kernel() -> f32 {
    let b = buffers();
    let rows: Vec<&[f32]> = b.x.chunks(b.k).collect();
    let mut out: Vec<&mut [f32]> = b.y.chunks_mut(b.n).collect();
    let w = Matrix {
        data: &b.w,
        rows: b.n,
        cols: b.k,
        stride: b.k,
    };
    x_wt(&rows, w, &mut out);
    b.y[0]
}

/// The same product through `matrixmultiply` (which packs both operands).
#[no_mangle]
pub extern "C" fn general() -> f32 {
    let b = buffers();
    // SAFETY: the pointers and strides describe the buffers above.
    unsafe {
        matrixmultiply::sgemm(
            b.t,
            b.k,
            b.n,
            1.0,
            b.x.as_ptr(),
            b.k as isize,
            1,
            b.w.as_ptr(),
            1,
            b.k as isize,
            0.0,
            b.y.as_mut_ptr(),
            b.n as isize,
            1,
        );
    }
    b.y[0]
}

/// The largest |kernel − matrixmultiply| over `y`, to check the wasm kernel's numbers.
#[no_mangle]
pub extern "C" fn max_difference() -> f32 {
    general();
    let reference = buffers().y.clone();
    kernel();
    let b = buffers();
    b.y.iter()
        .zip(&reference)
        .map(|(a, r)| (a - r).abs())
        .fold(0.0, f32::max)
}
