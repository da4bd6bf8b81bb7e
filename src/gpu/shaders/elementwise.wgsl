// Element-wise steps of a block: the residual sum and the FFN's activation (times the up
// branch `b` in a gated FFN: SwiGLU's silu(gate) ⊙ up).

struct Params {
    n: u32, kind: u32, _pad0: u32, _pad1: u32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

const ADD: u32 = 0u;
const RELU: u32 = 1u;
const GELU: u32 = 2u;
const SILU_TIMES: u32 = 3u;
const GELU_TANH: u32 = 4u;

// erf after Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7).
fn erf(x: f32) -> f32 {
    let z = abs(x);
    let t = 1.0 / (1.0 + 0.3275911 * z);
    let poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741
        + t * (-1.453152027 + t * 1.061405429))));
    return sign(x) * (1.0 - poly * exp(-z * z));
}

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let idx = thread_index(gid, nwg);
    if (idx >= p.n) {
        return;
    }
    let z = a[idx];
    if (p.kind == ADD) {
        out[idx] = z + b[idx];
    } else if (p.kind == RELU) {
        out[idx] = max(z, 0.0);
    } else if (p.kind == GELU) {
        out[idx] = z * 0.5 * (1.0 + erf(z * 0.70710678118654752));
    } else if (p.kind == SILU_TIMES) {
        // SiLU(z) = z · σ(z) = z / (1 + e^(−z)), times the up branch.
        out[idx] = z / (1.0 + exp(-z)) * b[idx];
    } else {
        // ½z(1 + tanh(√(2/π)(z + 0.044715z³))), GPT-2's GELU.
        out[idx] = 0.5 * z * (1.0 + tanh(0.7978845608028654 * (z + 0.044715 * z * z * z)));
    }
}
