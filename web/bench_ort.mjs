// Glimpse's wasm against onnxruntime-web on the same model, in headless Chromium, one run:
//  - all-MiniLM-L6-v2's forward pass on 32 and 128 tokens of the same English (the same token
//    ids: Glimpse reports the ids it timed and onnxruntime-web is fed exactly those), Glimpse's
//    traced and untraced pass against onnxruntime-web's wasm backend (SIMD), medians, twice:
//    on 1 thread (a page that is not cross-origin isolated: Glimpse's plain build, ORT with
//    numThreads 1) and on 2 (an isolated page: Glimpse's threaded build, ORT with 2 threads);
//  - Glimpse natively on the same tokens (`glimpse bench-forward --threads 1`), for wasm ÷ native;
//  - the wasm memory the app holds after opening each real model (a fresh page each), and the
//    native peak resident memory of `bench-forward` on each.
//
//   bash scripts/fetch_models.sh && trunk build --release && cargo build --release
//   ~/.cache/glimpse/venv-ref/bin/python benches/export_onnx.py
//   npm install --prefix ~/.cache/glimpse/tools onnxruntime-web@1.30.0
//   node web/bench_ort.mjs
//
// ORT_DIR: onnxruntime-web's dist/ (default ~/.cache/glimpse/tools/node_modules/onnxruntime-web/dist);
// ONNX_MODEL: the export (default ~/.cache/glimpse/onnx/all-MiniLM-L6-v2.onnx); GLIMPSE_BIN: the
// native binary. Prints the machine first (CPU model, avx2/fma/avx512f, Chromium version) and
// keeps it in the JSON as `machine`. Writes OUT_DIR/bench_ort.json.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIST, OUT, REPO, launchChromium, machineInfo, poll, printMachine, serveDist, sleep, waitForModel } from './harness.mjs';

const CACHE = path.join(os.homedir(), '.cache', 'glimpse');
const ORT_DIR = process.env.ORT_DIR ?? path.join(CACHE, 'tools', 'node_modules', 'onnxruntime-web', 'dist');
const ONNX_MODEL = process.env.ONNX_MODEL ?? path.join(CACHE, 'onnx', 'all-MiniLM-L6-v2.onnx');
const BIN = process.env.GLIMPSE_BIN
  ?? path.join(process.env.CARGO_TARGET_DIR ?? path.join(REPO, 'target'), 'release', 'glimpse');
const MINILM = 'models/hf/all-MiniLM-L6-v2';
const MINILM_FILES = ['config.json', 'tokenizer.json', 'model.safetensors'];
const SMOL = 'models/hf/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf';
const TOKENS = [32, 128];
const RUNS = 10;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

// The CPU and browser first: figures are only comparable on the same machine.
const machine = machineInfo();
printMachine(machine);

for (const [what, p] of [['onnxruntime-web', path.join(ORT_DIR, 'ort.wasm.min.mjs')], ['the ONNX export', ONNX_MODEL],
  ['MiniLM beside the app', path.join(DIST, MINILM, 'model.safetensors')], ['the native binary', BIN]]) {
  if (!fs.existsSync(p)) {
    console.error(`bench_ort: ${what} is missing (${p}); see the commands at the top of this file`);
    process.exit(2);
  }
}

/** `glimpse bench-forward` on `threads` threads, with its peak resident memory. */
function native(model, tokens, threads = 1) {
  return JSON.parse(execFileSync(BIN, ['bench-forward', '--model', model, '--tokens', String(tokens),
    '--runs', String(RUNS), '--threads', String(threads), '--json'], { encoding: 'utf8' }));
}

/** A fresh page of the app. */
async function freshPage(context, base) {
  const page = await context.newPage();
  await page.goto(base, { waitUntil: 'load' });
  await poll(() => page.evaluate(() => !!window.wasmBindings?.glimpse_probe?.()), 60000);
  return page;
}

async function main() {
  const minilmDir = path.join(DIST, MINILM);
  const result = { machine, runs: RUNS, minilm: [], memory: {} };
  // onnxruntime-web and the ONNX file are served beside the app, by an isolated server (threads)
  // and one that is not (one thread).
  const mounts = { '/ort/': ORT_DIR, '/onnx/model.onnx': ONNX_MODEL };
  const server = await serveDist(DIST, mounts, { isolated: true });
  const plainServer = await serveDist(DIST, mounts, { isolated: false });
  const base = `http://127.0.0.1:${server.address().port}/`;
  const plainBase = `http://127.0.0.1:${plainServer.address().port}/`;
  const { context, profile } = await launchChromium(1);
  try {
    // Memory first, each model in a fresh page of the app: what a student's tab holds.
    for (const [name, hash] of [['app, no real model', ''],
      ['all-MiniLM-L6-v2', '#v=1&view=attention&model=all-MiniLM-L6-v2'],
      ['SmolLM2-135M-Instruct.Q4_1', '#v=1&view=attention&model=SmolLM2-135M-Instruct.Q4_1']]) {
      const page = await context.newPage();
      await page.goto(base + hash, { waitUntil: 'load' });
      await poll(() => page.evaluate(() => !!window.wasmBindings?.glimpse_probe?.()), 60000);
      if (hash) {
        const ready = await waitForModel(page, name, 300000);
        if (!ready) throw new Error(`${name} did not open in the app`);
        await sleep(2000); // its first trace drawn
      }
      const bytes = await page.evaluate(() => window.wasmBindings.glimpse_wasm_memory());
      result.memory[name] = { wasm_mb: bytes / 1e6 };
      await page.close();
    }
    for (const [name, model, tokens] of [['all-MiniLM-L6-v2', minilmDir, 128],
      ['SmolLM2-135M-Instruct.Q4_1', path.join(DIST, SMOL), 64]]) {
      result.memory[name].native_peak_rss_mb = native(model, tokens).peak_rss_mb;
      result.memory[name].native_tokens = tokens;
    }

    for (const threads of [1, 2]) {
    const page = await freshPage(context, threads === 1 ? plainBase : base);
    for (const tokens of TOKENS) {
      const glimpse = JSON.parse(await page.evaluate(async ({ dir, files, tokens, runs }) => {
        const contents = await Promise.all(files.map(async (f) => new Uint8Array(await (await fetch(`${dir}/${f}`)).arrayBuffer())));
        return window.wasmBindings.glimpse_bench_checkpoint(files, contents, tokens, runs);
      }, { dir: MINILM, files: MINILM_FILES, tokens, runs: RUNS }));
      if (glimpse.error) throw new Error(`Glimpse's benchmark failed: ${glimpse.error}`);
      if (glimpse.threads !== threads) throw new Error(`Glimpse ran on ${glimpse.threads} threads, not ${threads}`);
      const ort = await page.evaluate(async ({ ids, runs, threads }) => {
        const ort = await import('/ort/ort.wasm.min.mjs');
        ort.env.wasm.wasmPaths = '/ort/';
        ort.env.wasm.numThreads = threads;
        const session = window.__ortSession ??= await ort.InferenceSession.create('/onnx/model.onnx', {
          executionProviders: ['wasm'], graphOptimizationLevel: 'all',
        });
        const t = ids.length;
        const feeds = {
          input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, t]),
          attention_mask: new ort.Tensor('int64', new BigInt64Array(t).fill(1n), [1, t]),
          token_type_ids: new ort.Tensor('int64', new BigInt64Array(t), [1, t]),
        };
        const times = [];
        let hidden;
        for (let i = 0; i < runs + 1; i++) {
          const t0 = performance.now();
          const out = await session.run(feeds);
          times.push(performance.now() - t0);
          hidden = out.last_hidden_state;
        }
        times.shift(); // warm-up
        return { times, dims: hidden.dims, first: Array.from(hidden.data.slice(0, 4)) };
      }, { ids: glimpse.ids, runs: RUNS, threads });
      const nat = native(minilmDir, tokens, threads);
      const row = {
        threads,
        tokens,
        glimpse_wasm_traced_ms: glimpse.median_ms,
        glimpse_wasm_untraced_ms: glimpse.untraced_median_ms,
        ort_wasm_ms: median(ort.times),
        glimpse_native_traced_ms: nat.median_ms,
        glimpse_native_untraced_ms: nat.untraced_median_ms,
        gflop: glimpse.gflop,
        ort_output_dims: ort.dims,
      };
      row.ort_over_glimpse_traced = row.ort_wasm_ms / row.glimpse_wasm_traced_ms;
      row.ort_over_glimpse_untraced = row.ort_wasm_ms / row.glimpse_wasm_untraced_ms;
      row.wasm_over_native = row.glimpse_wasm_traced_ms / row.glimpse_native_traced_ms;
      result.minilm.push(row);
    }
    await page.close();
    }
  } finally {
    await context.close().catch(() => {});
    server.close();
    plainServer.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }

  const f = (x) => x.toFixed(1).padStart(7);
  console.log(`all-MiniLM-L6-v2 forward in Chromium, medians of ${RUNS} (ms; GFLOP/s in brackets)`);
  console.log('threads tokens  Glimpse wasm traced  untraced   onnxruntime-web   ort ÷ Glimpse (traced)   Glimpse native   wasm ÷ native');
  for (const r of result.minilm) {
    const g = (ms) => `${f(ms)} (${(r.gflop / ms * 1e3).toFixed(1)})`;
    console.log(`${String(r.threads).padStart(7)} ${String(r.tokens).padStart(6)}  ${g(r.glimpse_wasm_traced_ms)}  ${g(r.glimpse_wasm_untraced_ms)}  ${g(r.ort_wasm_ms)}   ${r.ort_over_glimpse_traced.toFixed(2).padStart(8)}×   ${f(r.glimpse_native_traced_ms)}   ${r.wasm_over_native.toFixed(2)}×`);
  }
  console.log('memory (MB): wasm memory in the app after opening the model / native peak RSS of bench-forward');
  for (const [name, m] of Object.entries(result.memory)) {
    console.log(`  ${name.padEnd(28)} ${m.wasm_mb.toFixed(0).padStart(5)}${m.native_peak_rss_mb ? ` / ${m.native_peak_rss_mb.toFixed(0)} (${m.native_tokens} tokens)` : ''}`);
  }
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(path.join(OUT, 'bench_ort.json'), JSON.stringify(result, null, 2));
}

await main();
