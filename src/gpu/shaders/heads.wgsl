// Splitting heads: columns [col_off, col_off + n·h) of a [rows, width] matrix become
// [n, rows, h], each pair of dimensions turned by RoPE when a sin/cos table is given:
// rope = 1 turns the pairs (2q, 2q + 1), rope = 2 the halves' pairs (q, q + h/2).

struct Params {
    rows: u32, width: u32, col_off: u32, n: u32,
    h: u32, rope: u32, _pad0: u32, _pad1: u32,
}

@group(0) @binding(0) var<storage, read> src: array<f32>;
// RoPE: (sin, cos) for row r and pair q at 2·(r·h/2 + q). Unused without RoPE.
@group(0) @binding(1) var<storage, read> turns: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(256, 1, 1)
fn split(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let idx = thread_index(gid, nwg);
    if (idx >= p.n * p.rows * p.h) {
        return;
    }
    let c = idx % p.h;
    let r = (idx / p.h) % p.rows;
    let head = idx / (p.h * p.rows);
    let base = r * p.width + p.col_off + head * p.h;
    if (p.rope == 0u) {
        dst[idx] = src[base + c];
        return;
    }
    let half = p.h / 2u;
    var pair = c / 2u;
    var i0 = 2u * pair;
    var first = c % 2u == 0u;
    if (p.rope == 2u) {
        pair = c % half;
        i0 = pair;
        first = c < half;
    }
    let x0 = src[base + i0];
    let x1 = src[base + select(i0 + 1u, i0 + half, p.rope == 2u)];
    let at = 2u * (r * half + pair);
    let s = turns[at];
    let co = turns[at + 1u];
    if (first) {
        dst[idx] = x0 * co - x1 * s;
    } else {
        dst[idx] = x0 * s + x1 * co;
    }
}
