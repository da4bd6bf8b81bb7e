// The web build's performance figures, measured in headless Chromium with performance.now():
//  - the bundle (wasm + js) raw and gzipped, and the built-in models fetched after start;
//  - time from navigation to the first interactive frame (the app's first drawn heatmap);
//  - forward latency of every shipped model and the d512 configuration in wasm, beside the
//    native binary's `glimpse bench-forward` run just before (same code, same inputs);
//  - the app's CPU time per frame of the "All heads" grid of the largest shipped model (`lm`,
//    a 100-token input) while the pointer moves over it (eframe's cpu_usage per frame), and of
//    SmolLM2's 270 heads when the build serves the real models;
//  - SmolLM2's decoding step with the key/value cache (tokens/s) in wasm and natively.
//
//   node web/bench_web.mjs        (after `trunk build --release` and `cargo build --release`)
//
// Prints the machine first (CPU model, avx2/fma/avx512f, Chromium version) and keeps it in the
// JSON as `machine`. Writes OUT_DIR/bench_web.json. GLIMPSE_BIN: the native binary (default
// $CARGO_TARGET_DIR/release/glimpse).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { DIST, OUT, REPO, launchChromium, machineInfo, poll, printMachine, serveDist, sleep, waitForModel } from './harness.mjs';

const SMOL = 'models/hf/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf';
const BIN = process.env.GLIMPSE_BIN
  ?? path.join(process.env.CARGO_TARGET_DIR ?? path.join(REPO, 'target'), 'release', 'glimpse');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};

/** The app's CPU time per frame while the pointer moves over the grid on screen for 120 moves:
 * median and worst, printed under `label`. */
async function gridFrameTimes(page, label) {
  await page.evaluate(() => window.wasmBindings.glimpse_frame_times());
  for (let i = 0; i < 120; i++) {
    await page.mouse.move(300 + (i % 40) * 12, 200 + (i % 7) * 30);
    await sleep(30);
  }
  const frames = JSON.parse(await page.evaluate(() => window.wasmBindings.glimpse_frame_times()));
  console.log(`head grid (${label}), CPU per frame in Chromium: median ${median(frames).toFixed(2)} ms, max ${Math.max(...frames).toFixed(2)} ms over ${frames.length} frames`);
  return { frames: frames.length, median: median(frames), max: Math.max(...frames) };
}

function bundle() {
  const files = fs.readdirSync(DIST).filter((f) => /\.(wasm|js)$/.test(f) && f !== 'sw.js');
  let raw = 0;
  let gz = 0;
  for (const f of files) {
    const bytes = fs.readFileSync(path.join(DIST, f));
    raw += bytes.length;
    gz += zlib.gzipSync(bytes, { level: 9 }).length;
  }
  // The trained built-in models, fetched by the app after it starts (not part of the first
  // download before the first frame).
  const dir = path.join(DIST, 'models');
  let models_raw = 0;
  let models_gz = 0;
  // Files only: models/hf/ holds the real checkpoints, downloaded only when chosen.
  const entries = fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : [];
  for (const f of entries.filter((e) => e.isFile()).map((e) => e.name)) {
    const bytes = fs.readFileSync(path.join(dir, f));
    models_raw += bytes.length;
    models_gz += zlib.gzipSync(bytes, { level: 9 }).length;
  }
  const html = fs.readFileSync(path.join(DIST, 'index.html'));
  const html_gz = zlib.gzipSync(html, { level: 9 }).length;
  return { files, raw_bytes: raw, gzip_bytes: gz, html_gzip_bytes: html_gz, models_raw_bytes: models_raw, models_gzip_bytes: models_gz };
}

async function main() {
  // The CPU and browser first: figures are only comparable on the same machine.
  const machine = machineInfo();
  printMachine(machine);
  const result = { machine, bundle: bundle() };
  const b = result.bundle;
  console.log(`bundle: ${(b.raw_bytes / 1e6).toFixed(2)} MB raw, ${(b.gzip_bytes / 1e6).toFixed(2)} MB gzipped (${b.files.join(', ')}); with index.html ${((b.gzip_bytes + b.html_gzip_bytes) / 1e6).toFixed(2)} MB gzipped before the first frame`);
  console.log(`built-in models fetched after start: ${(b.models_raw_bytes / 1e6).toFixed(2)} MB raw, ${(b.models_gzip_bytes / 1e6).toFixed(2)} MB gzipped`);

  console.log(`native: ${BIN} bench-forward`);
  result.native_forward = JSON.parse(execFileSync(BIN, ['bench-forward'], { encoding: 'utf8' }));

  const server = await serveDist(DIST);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const { context, profile } = await launchChromium(1);
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    // First interactive frame: three cold loads (fresh cache each: new page, no service worker
    // yet on the first; the server sends no-store).
    const firsts = [];
    for (let i = 0; i < 3; i++) {
      await page.goto('about:blank');
      await page.goto(base, { waitUntil: 'commit' });
      const at = await poll(() => page.evaluate(() => (window.wasmBindings?.glimpse_probe?.() ? performance.now() : 0)), 60000, 10);
      firsts.push(at);
    }
    result.first_frame_ms = firsts;
    console.log(`first interactive frame: ${firsts.map((t) => t.toFixed(0)).join(', ')} ms after navigation`);

    // Every built-in has arrived: the app fetches the small ones once it has started, and
    // sotu-lm and sotu-mlm (2.8 MB each) when first chosen, so choose them.
    for (const name of ['sotu-lm', 'sotu-mlm']) {
      await page.evaluate((n) => { window.location.hash = `v=1&view=attention&model=${n}`; }, name);
      await poll(() => page.evaluate((n) => {
        const m = JSON.parse(window.wasmBindings.glimpse_models() || '[]');
        return m.some((x) => x.name === n && x.state === 'ready')
          && m.length >= 13 && m.every((x) => x.state !== 'loading');
      }, name), 60000);
    }
    const wasm = JSON.parse(await page.evaluate(() => window.wasmBindings.glimpse_forward_benchmark(true)));
    if (!Array.isArray(wasm)) throw new Error(`the wasm benchmark failed: ${JSON.stringify(wasm)}`);
    result.wasm_forward = wasm;
    console.log('forward (median ms)        native      wasm   wasm/native');
    for (const w of wasm) {
      const n = result.native_forward.find((x) => x.model === w.model);
      const gf = w.gflops ? `  (${n.gflops.toFixed(1)} / ${w.gflops.toFixed(1)} GFLOP/s)` : '';
      console.log(`  ${w.model.padEnd(22)} ${n.median_ms.toFixed(3).padStart(9)} ${w.median_ms.toFixed(3).padStart(9)}   ${(w.median_ms / n.median_ms).toFixed(2)}×${gf}`);
    }

    // The grid of the largest shipped model on a 100-character input.
    const text = encodeURIComponent('attention is all you need. '.repeat(4).slice(0, 100));
    await page.goto(`${base}#v=1&view=attention&model=lm&src=${text}&kind=dec&xv=grid`, { waitUntil: 'load' });
    await poll(() => page.evaluate(() => window.wasmBindings?.glimpse_probe?.()), 60000);
    await sleep(1000);
    result.grid_frame_ms = await gridFrameTimes(page, 'lm, 100 tokens');

    // The same grid at a real model's size: SmolLM2's 270 heads (when the build serves it).
    const served = JSON.parse((await page.evaluate(() => window.wasmBindings.glimpse_served())) || '[]');
    if (served.some((m) => m.name === 'SmolLM2-135M-Instruct.Q4_1')) {
      const sentence = encodeURIComponent('The cat sat on the mat because it was tired, and the dog slept by the door.');
      await page.evaluate((h) => { window.location.hash = h; }, `v=1&view=attention&model=SmolLM2-135M-Instruct.Q4_1&src=${sentence}&kind=dec&xv=grid`);
      await waitForModel(page, 'SmolLM2-135M-Instruct.Q4_1', 180000);
      await sleep(3000);
      result.grid_270_frame_ms = await gridFrameTimes(page, 'SmolLM2, 270 heads, 19 tokens');
    }

    // Generation with the key/value cache: one decoding step of SmolLM2 after a 16-token
    // prompt, in wasm (the loader the app uses) beside the native binary on one thread.
    if (served.some((m) => m.name === 'SmolLM2-135M-Instruct.Q4_1')) {
      const gguf = path.join(DIST, SMOL);
      const wasm = JSON.parse(await page.evaluate(async (f) => {
        const c = new Uint8Array(await (await fetch(f)).arrayBuffer());
        return window.wasmBindings.glimpse_bench_checkpoint([f.split('/').pop()], [c], 16, 3);
      }, SMOL));
      if (wasm.error) throw new Error(`the SmolLM2 benchmark failed: ${wasm.error}`);
      const native = JSON.parse(execFileSync(BIN, ['bench-forward', '--model', gguf, '--tokens', '16',
        '--runs', '3', '--threads', '1', '--json'], { encoding: 'utf8' }));
      result.smollm2_decode = { wasm_step_ms: wasm.decode_step_ms, native_step_ms: native.decode_step_ms,
        wasm_prefill16_ms: wasm.untraced_median_ms, native_prefill16_ms: native.untraced_median_ms };
      const d = result.smollm2_decode;
      console.log(`SmolLM2 decoding step with the KV cache (median ms): native ${d.native_step_ms.toFixed(1)} `
        + `(${(1e3 / d.native_step_ms).toFixed(1)} tokens/s), wasm ${d.wasm_step_ms.toFixed(1)} `
        + `(${(1e3 / d.wasm_step_ms).toFixed(1)} tokens/s), ${(d.wasm_step_ms / d.native_step_ms).toFixed(2)}×; `
        + `16-token prefill untraced: native ${d.native_prefill16_ms.toFixed(1)}, wasm ${d.wasm_prefill16_ms.toFixed(1)}`);
    }
  } finally {
    await context.close().catch(() => {});
    server.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(path.join(OUT, 'bench_web.json'), JSON.stringify(result, null, 2));
}

await main();
