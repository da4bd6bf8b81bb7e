// Benchmark (not a test): training throughput of the reverse task in the browser's wasm, the
// same model, batch and optimiser as `glimpse train --task reverse` natively and
// benches/torch_train_reverse.py in PyTorch. Calls the app's glimpse_train_benchmark(steps)
// export, which trains inside one call (no drawing in between), RUNS times after a warm-up.
//   node web/bench_training.mjs            (after `trunk build --release`)
// Prints the machine first (CPU model, avx2/fma/avx512f, Chromium version); writes
// OUT_DIR/bench_training.json with it, every run and the browser's user agent.
import fs from 'node:fs';
import path from 'node:path';
import { OUT, machineInfo, openBenchmarkPage, printMachine } from './harness.mjs';

const STEPS = Number(process.env.STEPS ?? 400);
const RUNS = Number(process.env.RUNS ?? 3);

// The CPU and browser first: figures are only comparable on the same machine.
const machine = machineInfo();
printMachine(machine);

const { page, close } = await openBenchmarkPage('glimpse_train_benchmark');
try {
  const run = (steps) => page.evaluate((n) => JSON.parse(window.wasmBindings.glimpse_train_benchmark(n)), steps);
  await run(20); // warm-up: compile paths, grow the heap
  const rates = [];
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await run(STEPS);
    if (r.error) throw new Error(r.error);
    rates.push(r.tokens_per_second);
    runs.push(r);
    console.log(`run ${i + 1}: ${r.steps} steps, ${r.tokens} tokens in ${r.seconds.toFixed(2)} s = ${r.tokens_per_second.toFixed(0)} tokens/s`);
  }
  const ua = await page.evaluate(() => navigator.userAgent);
  console.log(`browser (${ua.match(/Chrome\/[\d.]+/)?.[0] ?? ua}): ${Math.min(...rates).toFixed(0)} - ${Math.max(...rates).toFixed(0)} tokens/s over ${RUNS} runs of ${STEPS} steps`);
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(path.join(OUT, 'bench_training.json'),
    JSON.stringify({ machine, user_agent: ua, steps: STEPS, runs }, null, 2));
  console.log(`wrote ${path.join(OUT, 'bench_training.json')}`);
} finally {
  await close();
}
