// Batched, strided matrix product: C[b] = A[b / a_group] · B[b / b_group] (+ bias per column).
// Strides let the same kernel read a weight matrix transposed (linear layers: x · Wᵀ), keys
// transposed (scores: Q · Kᵀ) and a key/value head shared by a group of query heads (GQA).
// Each 16×16 workgroup computes a 64×64 tile of C, 4×4 outputs per thread, staging 64×16 of A
// and 16×64 of B in workgroup memory per step along k.

struct Params {
    m: u32, n: u32, k: u32, _pad0: u32,
    a_bs: u32, a_rs: u32, a_cs: u32, a_group: u32,
    _pad1: u32, b_bs: u32, b_ks: u32, b_ns: u32,
    b_group: u32, has_bias: u32, _pad2: u32, _pad3: u32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

const TILE: u32 = 64u;
const KT: u32 = 16u;
var<workgroup> a_tile: array<f32, 1024>; // [TILE][KT]
var<workgroup> b_tile: array<f32, 1024>; // [KT][TILE]

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let batch = wg.z;
    let row0 = wg.y * TILE;
    let col0 = wg.x * TILE;
    let a_base = (batch / p.a_group) * p.a_bs;
    let b_base = (batch / p.b_group) * p.b_bs;
    let t = lid.y * 16u + lid.x;
    // Rows lid.y + 16·i, columns lid.x + 16·j: four vec4 accumulators (no indexed arrays,
    // which some compilers keep in memory instead of registers).
    var acc0 = vec4<f32>(0.0);
    var acc1 = vec4<f32>(0.0);
    var acc2 = vec4<f32>(0.0);
    var acc3 = vec4<f32>(0.0);
    for (var k0 = 0u; k0 < p.k; k0 += KT) {
        for (var e = 0u; e < 4u; e++) {
            let idx = t + e * 256u;
            let r = idx / KT;
            let kk = idx % KT;
            let gr = row0 + r;
            let gk = k0 + kk;
            var v = 0.0;
            if (gr < p.m && gk < p.k) {
                v = a[a_base + gr * p.a_rs + gk * p.a_cs];
            }
            a_tile[idx] = v;
            // Walk B along its contiguous dimension: k for a transposed weight or keys.
            var kb = idx / TILE;
            var cb = idx % TILE;
            if (p.b_ks == 1u) {
                kb = idx % KT;
                cb = idx / KT;
            }
            let gkb = k0 + kb;
            let gc = col0 + cb;
            var w = 0.0;
            if (gkb < p.k && gc < p.n) {
                w = b[b_base + gkb * p.b_ks + gc * p.b_ns];
            }
            b_tile[kb * TILE + cb] = w;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < KT; kk++) {
            let bb = kk * TILE + lid.x;
            let bv = vec4<f32>(b_tile[bb], b_tile[bb + 16u], b_tile[bb + 32u], b_tile[bb + 48u]);
            acc0 = fma(vec4<f32>(a_tile[lid.y * KT + kk]), bv, acc0);
            acc1 = fma(vec4<f32>(a_tile[(lid.y + 16u) * KT + kk]), bv, acc1);
            acc2 = fma(vec4<f32>(a_tile[(lid.y + 32u) * KT + kk]), bv, acc2);
            acc3 = fma(vec4<f32>(a_tile[(lid.y + 48u) * KT + kk]), bv, acc3);
        }
        workgroupBarrier();
    }
    store(batch, row0 + lid.y, col0 + lid.x, acc0);
    store(batch, row0 + lid.y + 16u, col0 + lid.x, acc1);
    store(batch, row0 + lid.y + 32u, col0 + lid.x, acc2);
    store(batch, row0 + lid.y + 48u, col0 + lid.x, acc3);
}

fn store(batch: u32, gr: u32, c0: u32, v: vec4<f32>) {
    if (gr >= p.m) {
        return;
    }
    for (var j = 0u; j < 4u; j++) {
        let gc = c0 + 16u * j;
        if (gc < p.n) {
            var x = v[j];
            if (p.has_bias != 0u) {
                x += bias[gc];
            }
            c[(batch * p.m + gr) * p.n + gc] = x;
        }
    }
}
