// From raw scores to the softmax's input, for every head, query and key:
//   scaled = score / divisor;  bias = ALiBi or relative bias;  logits = scaled + bias, or −∞
//   where the mask blocks the key.

struct Params {
    heads: u32, tq: u32, tk: u32, bias_kind: u32,
    // −∞ as bits, from the host: some WGSL compilers refuse an infinite constant.
    max_distance: u32, table_width: u32, neg_inf_bits: u32, divisor: f32,
}

@group(0) @binding(0) var<storage, read> scores: array<f32>;
@group(0) @binding(1) var<storage, read> mask: array<u32>;
// Query positions, then key positions.
@group(0) @binding(2) var<storage, read> positions: array<u32>;
// ALiBi: one slope per head. Relative: the [heads, table_width] learned table.
@group(0) @binding(3) var<storage, read> bias_params: array<f32>;
@group(0) @binding(4) var<storage, read_write> scaled: array<f32>;
@group(0) @binding(5) var<storage, read_write> bias: array<f32>;
@group(0) @binding(6) var<storage, read_write> logits: array<f32>;
@group(0) @binding(7) var<uniform> p: Params;

const BIAS_NONE: u32 = 0u;
const BIAS_ALIBI: u32 = 1u;

@compute @workgroup_size(256, 1, 1)
fn logits_of(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let idx = thread_index(gid, nwg);
    if (idx >= p.heads * p.tq * p.tk) {
        return;
    }
    let j = idx % p.tk;
    let i = (idx / p.tk) % p.tq;
    let head = idx / (p.tk * p.tq);
    let e = scores[idx] / p.divisor;
    scaled[idx] = e;
    var l = e;
    if (p.bias_kind != BIAS_NONE) {
        let qp = positions[i];
        let kp = positions[p.tq + j];
        var b: f32;
        if (p.bias_kind == BIAS_ALIBI) {
            let distance = select(qp - kp, kp - qp, kp > qp);
            b = -bias_params[head] * f32(distance);
        } else {
            let k = i32(p.max_distance);
            let offset = clamp(i32(kp) - i32(qp), -k, k) + k;
            b = bias_params[head * p.table_width + u32(offset)];
        }
        bias[idx] = b;
        l = e + b;
    }
    if (mask[i * p.tk + j] == 0u) {
        l = bitcast<f32>(p.neg_inf_bits);
    }
    logits[idx] = l;
}
