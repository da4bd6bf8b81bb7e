// The WebGPU path in a real browser, both ways:
//  1. Chromium with --enable-unsafe-webgpu (WebGPU on SwiftShader): the app finds the adapter,
//     offers it (a software adapter is not chosen by itself), and a click on "GPU" shows the
//     trace computed by the WGSL kernels, equal to the CPU's within 1e-4, with both timings.
//     Five edits in quick succession end on the GPU's trace of the last one, without a panic.
//     A short CPU-vs-WebGPU benchmark runs in the page (glimpse_gpu_benchmark) and its JSON
//     goes to OUT_DIR/gpu-bench-web.json.
//  2. Chromium without the flag (no WebGPU): the app says so, keeps the GPU button off and
//     runs on the CPU, with no error in the console.
// Screenshots: OUT_DIR/gpu-on.png, OUT_DIR/gpu-off.png.
//
//   node web/e2e_gpu.mjs        (after `trunk build --release`)
//   BENCH_D_MODEL=512 BENCH_TOKENS=256 node web/e2e_gpu.mjs   (the README's browser figures)

import fs from 'node:fs';
import path from 'node:path';
import { DIST, OUT, launchChromium, poll, recorder, serveDist, watchPage } from './harness.mjs';

const BENCH_TOKENS = Number(process.env.BENCH_TOKENS ?? 64);
const BENCH_D_MODEL = Number(process.env.BENCH_D_MODEL ?? 64);
const { record, finish } = recorder('gpu');

const HASH = 'v=1&view=attention&model=reverse&src=abcdefgh';

async function open(context, port) {
  const page = context.pages()[0] ?? (await context.newPage());
  const lines = [];
  const errors = [];
  watchPage(page, lines, errors);
  await page.goto(`http://127.0.0.1:${port}/#${HASH}`, { waitUntil: 'load' });
  const hook = (name, ...args) => page.evaluate(([n, a]) => window.wasmBindings[n](...a), [name, args]);
  const up = await poll(() => hook('glimpse_compute'), 90000);
  return { page, hook, up: !!up, errors };
}

const compute = async (hook) => JSON.parse((await hook('glimpse_compute')) || '{}');

/** The compute status once the search for an adapter has ended (found or not) and the first
 *  pass has landed: a pass may span frames (`pass` is then under way and `last` still empty). */
const settled = (hook) =>
  poll(async () => {
    const c = await compute(hook);
    return c.status && c.status !== 'Detecting' && c.last && !c.pass ? c : null;
  }, 30000);

async function withWebGpu(port) {
  const { context, profile } = await launchChromium(1, ['--enable-unsafe-webgpu']);
  try {
    const { page, hook, up, errors } = await open(context, port);
    if (!record('with WebGPU: the app starts', up)) return;
    const found = await settled(hook);
    const ready = found?.status?.Ready;
    if (!record('with WebGPU: the adapter is found', !!ready, JSON.stringify(found?.status))) return;
    record('a software adapter is offered, not chosen by itself', ready.software ? found.backend === 'Cpu' : true, `${ready.adapter}, backend ${found.backend}`);
    const cpuProbe = JSON.parse(await hook('glimpse_probe'));
    const rects = JSON.parse((await hook('glimpse_controls')) || '{}');
    const r = rects['compute:GPU'];
    if (!record('the GPU button is drawn', !!r)) return;
    await page.mouse.click((r[0] + r[2]) / 2, (r[1] + r[3]) / 2);
    const shown = await poll(async () => {
      const c = await compute(hook);
      return c.last?.used === 'Gpu' ? c : null;
    }, 30000);
    if (!record('after the click the view shows the GPU trace', !!shown, JSON.stringify((await compute(hook)).last))) return;
    const diff = shown.last.max_difference;
    record('GPU and CPU weights and logits agree within 1e-4', typeof diff === 'number' && diff <= 1e-4, `largest difference ${diff}`);
    record('both timings are shown', shown.last.cpu_ms > 0 && shown.last.gpu_ms > 0, `CPU ${shown.last.cpu_ms.toFixed(2)} ms, GPU ${shown.last.gpu_ms.toFixed(2)} ms`);
    const gpuProbe = JSON.parse(await hook('glimpse_probe'));
    const a = cpuProbe.heatmap.values.flat();
    const b = gpuProbe.heatmap.values.flat();
    const worst = a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
    record('the heatmap drawn from the GPU trace has the same values', a.length > 0 && a.length === b.length && worst <= 1e-4, `${a.length} cells, worst ${worst}`);
    fs.mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: path.join(OUT, 'gpu-on.png') });
    // Typing fast: new input arrives while the GPU is still busy with the last one. One run at
    // a time, the latest input last, and no panic (error scopes must nest).
    const texts = ['abc', 'abcd', 'hgfe', 'abcdefg', 'badcfe'];
    for (const t of texts) {
      await page.evaluate((h) => { window.location.hash = h; }, `v=1&view=attention&model=reverse&src=${t}`);
      await new Promise((res) => setTimeout(res, 15));
    }
    const last = texts[texts.length - 1];
    const settledRun = await poll(async () => {
      const c = await compute(hook);
      const p = JSON.parse(await hook('glimpse_probe'));
      return c.last?.used === 'Gpu' && !c.last.waiting && p.input === last ? c : null;
    }, 30000);
    record('after fast edits the GPU shows the latest input', !!settledRun, JSON.stringify((await compute(hook)).last));
    record('and still agrees with the CPU', (settledRun?.last?.max_difference ?? 1) <= 1e-4);
    const t0 = Date.now();
    const bench = JSON.parse(await hook('glimpse_gpu_benchmark', BENCH_D_MODEL, BENCH_TOKENS, 3));
    const rows = bench.comparisons ?? [];
    record('the in-page CPU-vs-WebGPU benchmark runs', rows.length > 0 && !bench.error, `${rows.length} cases in ${((Date.now() - t0) / 1000).toFixed(0)} s${bench.error ? `: ${bench.error}` : ''}`);
    record('every benchmark case matches the CPU logits within 1e-4', rows.every((c) => c.max_logit_error <= 1e-4));
    fs.writeFileSync(path.join(OUT, 'gpu-bench-web.json'), JSON.stringify(bench, null, 2));
    for (const c of rows) console.log(`  ${c.model} T=${c.tokens}: CPU ${c.cpu_ms.toFixed(2)} ms, WebGPU ${c.gpu_ms.toFixed(2)} ms`);
    record('no console errors with WebGPU', errors.length === 0, errors.slice(0, 3).join(' | '));
  } finally {
    await context.close().catch(() => {});
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

async function withoutWebGpu(port) {
  const { context, profile } = await launchChromium(1);
  try {
    const { page, hook, up, errors } = await open(context, port);
    if (!record('without WebGPU: the app starts', up)) return;
    const c = await settled(hook);
    const why = c?.status?.Unavailable;
    record('without WebGPU the app says the GPU is unavailable', typeof why === 'string' && /WebGPU/.test(why), JSON.stringify(c?.status));
    record('and runs on the CPU', c?.backend === 'Cpu' && c?.last?.used === 'Cpu', JSON.stringify({ backend: c?.backend, last: c?.last, pass: c?.pass }));
    const rects = JSON.parse((await hook('glimpse_controls')) || '{}');
    const r = rects['compute:GPU'];
    if (r) await page.mouse.click((r[0] + r[2]) / 2, (r[1] + r[3]) / 2);
    await new Promise((res) => setTimeout(res, 500));
    record('clicking the disabled GPU button changes nothing', (await compute(hook)).backend === 'Cpu');
    const probe = JSON.parse(await hook('glimpse_probe'));
    record('the attention map is still drawn', probe.heatmap?.rows > 0);
    const missing = await hook('glimpse_gpu_benchmark', 64, 16, 1).then((t) => JSON.parse(t));
    record('the benchmark reports the missing WebGPU instead of failing', /WebGPU/.test(missing.error ?? ''), missing.error);
    fs.mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: path.join(OUT, 'gpu-off.png') });
    record('no console errors without WebGPU', errors.length === 0, errors.slice(0, 3).join(' | '));
  } finally {
    await context.close().catch(() => {});
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

async function main() {
  const server = await serveDist(DIST);
  const port = server.address().port;
  try {
    await withWebGpu(port);
    await withoutWebGpu(port);
  } finally {
    server.close();
  }
}

await main().catch((e) => record('gpu test', false, e.stack || String(e)));
finish();
