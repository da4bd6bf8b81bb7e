// Row-wise softmax over the allowed keys only (one workgroup per row of every head): blocked
// keys get exactly 0, and a row with no allowed key is all 0, never NaN — as on the CPU.

struct Params {
    rows: u32, tq: u32, tk: u32, _pad: u32,
}

@group(0) @binding(0) var<storage, read> logits: array<f32>;
@group(0) @binding(1) var<storage, read> mask: array<u32>;
@group(0) @binding(2) var<storage, read_write> weights: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = group_index(wg, nwg);
    let live = row < p.rows;
    let i = row % p.tq;
    let base = row * p.tk;
    // The lowest finite f32 (WGSL has no infinite constant): a row with no allowed key keeps
    // it, and then every exp below is skipped or 0, so the row is 0 as on the CPU.
    var m = bitcast<f32>(0xff7fffffu);
    if (live) {
        for (var j = lid.x; j < p.tk; j += WG) {
            if (mask[i * p.tk + j] != 0u) {
                m = max(m, logits[base + j]);
            }
        }
    }
    let row_max = reduce_max(m, lid.x);

    var sum = 0.0;
    if (live) {
        for (var j = lid.x; j < p.tk; j += WG) {
            var e = 0.0;
            if (mask[i * p.tk + j] != 0u) {
                e = exp(logits[base + j] - row_max);
            }
            weights[base + j] = e;
            sum += e;
        }
    }
    let total = reduce_sum(sum, lid.x);
    if (live && total > 0.0) {
        for (var j = lid.x; j < p.tk; j += WG) {
            weights[base + j] = weights[base + j] / total;
        }
    }
}
