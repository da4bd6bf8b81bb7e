// Prepended to every kernel by kernels.rs (WGSL has no includes).

// The flat index of a thread of a 256-wide workgroup in the 2-D grid `grid` in kernels.rs lays
// out (one grid dimension holds at most 65535 groups, so large counts spill over into y).
fn thread_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * 256u;
}

// The flat index of a workgroup, for kernels that give each row a workgroup.
fn group_index(wg: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wg.x + wg.y * nwg.x;
}
