// The additive (Bahdanau) score of every head, query and key:
//   s_ij = Σ_c v_c · tanh(wq_ic + uk_jc),  wq = q Wᵀ, uk = k Uᵀ (both computed by matmul).

struct Params {
    heads: u32, tq: u32, tk: u32, h: u32,
}

@group(0) @binding(0) var<storage, read> wq: array<f32>; // [heads, tq, h]
@group(0) @binding(1) var<storage, read> uk: array<f32>; // [heads, tk, h]
@group(0) @binding(2) var<storage, read> v: array<f32>;  // [heads, h]
@group(0) @binding(3) var<storage, read_write> scores: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

// tanh without overflow for large |x|.
fn stable_tanh(x: f32) -> f32 {
    let e = exp(-2.0 * abs(x));
    return sign(x) * (1.0 - e) / (1.0 + e);
}

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let idx = thread_index(gid, nwg);
    if (idx >= p.heads * p.tq * p.tk) {
        return;
    }
    let j = idx % p.tk;
    let i = (idx / p.tk) % p.tq;
    let head = idx / (p.tk * p.tq);
    var s = 0.0;
    for (var c = 0u; c < p.h; c++) {
        let a = wq[(head * p.tq + i) * p.h + c];
        let u = uk[(head * p.tk + j) * p.h + c];
        s += v[head * p.h + c] * stable_tanh(a + u);
    }
    scores[idx] = s;
}
