// Times examples/wasm_speed.rs in node (V8, the engine of Chromium): GFLOP/s of the kernel
// and of matrixmultiply on a transformer's shapes, best of 20 after a warm-up.
import { readFileSync } from "node:fs";
const target = process.env.CARGO_TARGET_DIR ?? "target";
const bytes = readFileSync(`${target}/wasm32-unknown-unknown/release/examples/wasm_speed.wasm`);
const { instance } = await WebAssembly.instantiate(bytes, {});
const m = instance.exports;
const shapes = [[32, 384, 1536], [128, 384, 384], [128, 384, 1536], [128, 1536, 384], [64, 576, 1536], [64, 1536, 576]];
for (const [t, k, n] of shapes) {
  m.shape(t, k, n);
  // Entries are sums of k products of numbers below 0.6: rounding stays far below 1e-3.
  const diff = m.max_difference();
  if (!(diff < 1e-3)) throw new Error(`${t}x${k}x${n}: the kernel differs from matrixmultiply by ${diff}`);
  const line = [];
  for (const name of ["kernel", "general"]) {
    for (let i = 0; i < 3; i++) m[name]();
    let best = Infinity;
    for (let i = 0; i < 20; i++) {
      const s = performance.now();
      m[name]();
      best = Math.min(best, performance.now() - s);
    }
    line.push(`${name} ${best.toFixed(3)} ms ${(2 * t * k * n / best / 1e6).toFixed(1)} GFLOP/s`);
  }
  console.log(`${t}x${k}x${n}: ${line.join(" | ")}`);
}
