// LayerNorm of each row (one workgroup per row), keeping the mean and variance for the trace:
//   out = (x − mean) / √(var + eps) · gamma + beta.
// RMSNorm (rms = 1) neither centres nor shifts: mean = 0, var = mean(x²),
//   out = x / √(mean(x²) + eps) · gamma.

struct Params {
    rows: u32, d: u32, eps: f32, rms: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> gamma: array<f32>;
@group(0) @binding(2) var<storage, read> beta: array<f32>;
@group(0) @binding(3) var<storage, read_write> mean_out: array<f32>;
@group(0) @binding(4) var<storage, read_write> var_out: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;
@group(0) @binding(6) var<uniform> p: Params;

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = group_index(wg, nwg);
    let live = row < p.rows;
    let base = row * p.d;
    let d = f32(p.d);

    var s = 0.0;
    if (live) {
        for (var j = lid.x; j < p.d; j += WG) {
            s += x[base + j];
        }
    }
    var mean = reduce_sum(s, lid.x) / d;
    if (p.rms == 1u) {
        mean = 0.0;
    }

    var q = 0.0;
    if (live) {
        for (var j = lid.x; j < p.d; j += WG) {
            let c = x[base + j] - mean;
            q += c * c;
        }
    }
    let variance = reduce_sum(q, lid.x) / d;
    if (!live) {
        return;
    }
    let inv_std = 1.0 / sqrt(variance + p.eps);
    for (var j = lid.x; j < p.d; j += WG) {
        let shift = select(beta[j], 0.0, p.rms == 1u);
        y[base + j] = (x[base + j] - mean) * inv_std * gamma[j] + shift;
    }
    if (lid.x == 0u) {
        mean_out[row] = mean;
        var_out[row] = variance;
    }
}
