// Merging heads: [n, rows, h] back to [rows, n·h] (the heads side by side).

struct Params {
    rows: u32, n: u32, h: u32, _pad: u32,
}

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let idx = thread_index(gid, nwg);
    if (idx >= p.n * p.rows * p.h) {
        return;
    }
    let c = idx % p.h;
    let r = (idx / p.h) % p.rows;
    let head = idx / (p.h * p.rows);
    dst[r * (p.n * p.h) + head * p.h + c] = src[idx];
}
