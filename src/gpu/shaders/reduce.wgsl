// Workgroup-wide reductions for the kernels that give each row a 64-thread workgroup
// (softmax, LayerNorm); prepended after common.wgsl. Every thread of the workgroup must call
// them, and every thread gets the result.

const WG: u32 = 64u;
var<workgroup> partial: array<f32, 64>;
var<workgroup> shared_value: f32;

fn reduce_sum(v: f32, lane: u32) -> f32 {
    partial[lane] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s /= 2u) {
        if (lane < s) {
            partial[lane] += partial[lane + s];
        }
        workgroupBarrier();
    }
    if (lane == 0u) {
        shared_value = partial[0];
    }
    return workgroupUniformLoad(&shared_value);
}

fn reduce_max(v: f32, lane: u32) -> f32 {
    partial[lane] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s /= 2u) {
        if (lane < s) {
            partial[lane] = max(partial[lane], partial[lane + s]);
        }
        workgroupBarrier();
    }
    if (lane == 0u) {
        shared_value = partial[0];
    }
    return workgroupUniformLoad(&shared_value);
}
