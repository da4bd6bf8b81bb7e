// Benchmark (not a test): the Vision tab's ViT training in the browser's wasm, the same loop as
// `glimpse bench-vision` natively (train::vision::train::measure). Calls the app's
// glimpse_vision_benchmark(task, steps) export, which trains inside one call (no drawing in
// between) from a fresh model, seed 1, RUNS times after a short warm-up.
//   node web/bench_vision.mjs              (after `trunk build --release`)
//   TASK=count STEPS=400 node web/bench_vision.mjs
// Prints the machine first (CPU model, avx2/fma/avx512f, Chromium version); writes
// OUT_DIR/bench_vision.json with it, every run and the browser's user agent.
import fs from 'node:fs';
import path from 'node:path';
import { OUT, machineInfo, openBenchmarkPage, printMachine } from './harness.mjs';

const TASK = process.env.TASK ?? 'larger';
const STEPS = Number(process.env.STEPS ?? (TASK === 'count' ? 400 : 1600));
const RUNS = Number(process.env.RUNS ?? 2);

const machine = machineInfo();
printMachine(machine);

const { page, close } = await openBenchmarkPage('glimpse_vision_benchmark');
try {
  const run = (steps) => page.evaluate(([t, n]) => JSON.parse(window.wasmBindings.glimpse_vision_benchmark(t, n)),
    [TASK, steps]);
  await run(10); // warm-up: compile paths, grow the heap
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await run(STEPS);
    if (r.error) throw new Error(r.error);
    runs.push(r);
    console.log(`run ${i + 1}: ${TASK}, ${r.steps} steps in ${r.seconds.toFixed(2)} s = ${r.steps_per_second.toFixed(1)} steps/s, held out ${(100 * r.held_out_accuracy).toFixed(1)} %`);
  }
  const ua = await page.evaluate(() => navigator.userAgent);
  const secs = runs.map((r) => r.seconds);
  console.log(`browser (${ua.match(/Chrome\/[\d.]+/)?.[0] ?? ua}): ${Math.min(...secs).toFixed(1)} - ${Math.max(...secs).toFixed(1)} s for ${STEPS} steps of ${TASK}`);
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(path.join(OUT, 'bench_vision.json'),
    JSON.stringify({ machine, user_agent: ua, task: TASK, steps: STEPS, runs }, null, 2));
  console.log(`wrote ${path.join(OUT, 'bench_vision.json')}`);
} finally {
  await close();
}
