// Training in the browser, as a student does it: open the Training tab, press Start, and wait
// until the reverse model reaches >= 99% exact sequences on held-out data. Clicks land on the
// real buttons (their rectangles come from the app's glimpse_controls() hook). Records the
// wall time and the gaps between animation frames (a stutter shows as a long gap), and saves
// screenshots before and after. Exit code non-zero on failure.
import fs from 'node:fs';
import path from 'node:path';
import { readPng, distinctColours } from './check_shot.mjs';
import { DIST, OUT, launchChromium, poll, recorder, serveDist, sleep, watchPage } from './harness.mjs';

const TRAIN_TIMEOUT_MS = Number(process.env.TRAIN_TIMEOUT_MS ?? 180000);
// Frames further apart than this (p95) are a visible stutter, and one gap over the second
// limit a freeze. Under software WebGL on two cores the gaps are set mostly by the rasteriser's
// share of the CPU; what the app controls is its page thread, which must never hold a task
// longer than MAX_TASK_MS while the worker trains (training inside frames held it for up to
// 437 ms a frame, and that build fails this).
const MAX_GAP_MS = Number(process.env.MAX_GAP_MS ?? 500);
const FREEZE_MS = Number(process.env.FREEZE_MS ?? 1000);
const MAX_TASK_MS = Number(process.env.MAX_TASK_MS ?? 150);

const { record, finish } = recorder('training');

async function main() {
  fs.mkdirSync(OUT, { recursive: true });
  const server = await serveDist(DIST);
  const consoleLines = [];
  const errors = [];
  let context;
  let profile;
  try {
    ({ context, profile } = await launchChromium(1));
    const page = context.pages()[0] ?? (await context.newPage());
    watchPage(page, consoleLines, errors);
    await page.goto(`http://127.0.0.1:${server.address().port}/`, { waitUntil: 'load' });
    const hook = (name) => page.evaluate((n) => {
      const f = window.wasmBindings && window.wasmBindings[n];
      return typeof f === 'function' ? f() : '';
    }, name);
    const controls = async () => JSON.parse((await hook('glimpse_controls')) || '{}');
    const centre = (r) => [(r[0] + r[2]) / 2, (r[1] + r[3]) / 2];

    const tab = await poll(async () => (await controls())['tab:training'], 60000);
    if (!record('the Training tab is drawn', !!tab)) return;
    await page.mouse.click(...centre(tab));
    const start = await poll(async () => (await controls())['training:start'], 10000);
    if (!record('the training lab opens', !!start)) return;
    await sleep(500);
    await page.mouse.move(5, 790); // keep tooltips off the views
    await page.screenshot({ path: path.join(OUT, 'training-before.png') });

    // Measure frame gaps, and the page thread's long tasks, while training runs.
    await page.evaluate(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasks.push(e.duration);
      }).observe({ type: 'longtask' });
      window.__gaps = [];
      let last = performance.now();
      const tick = (t) => { window.__gaps.push(t - last); last = t; requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
    });
    await page.mouse.click(...centre(start));
    await page.mouse.move(5, 790);
    const t0 = Date.now();
    const status = async () => JSON.parse((await hook('glimpse_training')) || '{}');
    const done = await poll(async () => {
      const s = await status();
      return s.eval_step > 0 && s.exact_match >= 0.99 ? s : null;
    }, TRAIN_TIMEOUT_MS, 200);
    const seconds = (Date.now() - t0) / 1000;
    const last = await status();
    record('reverse reaches >= 99% held-out exact match in the browser', !!done,
      `${seconds.toFixed(1)} s wall, step ${last.steps}, exact ${last.exact_match} at step ${last.eval_step} (100 held-out sequences)`);
    record('the steps run in a Web Worker, not on the page\'s thread', last.threaded === true,
      `threaded: ${last.threaded}`);
    await sleep(300);
    await page.screenshot({ path: path.join(OUT, 'training-after.png') });
    const longTasks = await page.evaluate(() => window.__longTasks);

    const gaps = (await page.evaluate(() => window.__gaps)).slice(1).sort((a, b) => a - b);
    const pct = (p) => gaps[Math.min(gaps.length - 1, Math.floor(p * gaps.length))] ?? 0;
    const maxGap = gaps[gaps.length - 1] ?? 0;
    const longest = Math.max(0, ...longTasks);
    record('no stutter while training', gaps.length > 10 && pct(0.95) < MAX_GAP_MS && maxGap < FREEZE_MS
      && longest < MAX_TASK_MS,
      `${gaps.length} frames, median ${pct(0.5).toFixed(1)} ms, p95 ${pct(0.95).toFixed(1)} ms, max ${maxGap.toFixed(1)} ms (limits: p95 ${MAX_GAP_MS}, max ${FREEZE_MS}); `
      + `page-thread tasks over 50 ms: ${longTasks.length}, longest ${longest.toFixed(0)} ms (limit ${MAX_TASK_MS})`);

    for (const f of ['training-before.png', 'training-after.png']) {
      const n = distinctColours(readPng(path.join(OUT, f)));
      record(`${f} is not blank`, n >= 32, `${n} distinct colours`);
    }
    fs.writeFileSync(path.join(OUT, 'training.json'), JSON.stringify({
      seconds, status: last, frames: gaps.length, median_ms: pct(0.5), p95_ms: pct(0.95), max_gap_ms: maxGap,
    }, null, 2));
    record('no console errors or panics', errors.length === 0, errors.slice(0, 5).join(' | '));

    // A worker that dies: the lab says why in place, the page carries on, Reset starts anew.
    await hook('glimpse_test_worker_panic');
    const crashed = await poll(async () => {
      const s = await status();
      return s.error && /worker/.test(s.error) ? s : null;
    }, 10000, 100);
    record('a crashed training worker is reported in the lab', !!crashed && !crashed.running,
      crashed ? crashed.error : JSON.stringify(await status()));
    const overlay = await page.evaluate(() => !!document.getElementById('glimpse_error'));
    record('the page carries on after the worker crashed', !overlay && !!(await controls())['training:start'],
      overlay ? 'the crash overlay covers the app' : 'still drawing');
    await page.mouse.click(...centre((await controls())['training:reset']));
    await sleep(500);
    await page.mouse.click(...centre((await controls())['training:start']));
    const again = await poll(async () => {
      const s = await status();
      return s.steps >= 20 && !s.error && s.threaded ? s : null;
    }, 30000, 200);
    record('Reset starts a new worker that trains', !!again, JSON.stringify(again ?? await status()));
  } finally {
    fs.writeFileSync(path.join(OUT, 'training-console.log'), consoleLines.join('\n'));
    await context?.close();
    server.close();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  }
}

await main().catch((e) => record('test ran', false, e.stack || String(e)));
finish();
