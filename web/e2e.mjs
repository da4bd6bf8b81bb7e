// Real-browser test of the web build: serves dist/, opens it in headless Chromium (software
// WebGL2 via SwiftShader), waits for the app's test hook, screenshots and checks the pixels.
//
//   node web/e2e.mjs            (run from anywhere; `trunk build --release` first)
//
// Environment: DIST_DIR (default <repo>/dist), OUT_DIR (default <repo>/web/out),
// CHROMIUM (default /usr/bin/chromium), PROBE_TIMEOUT_MS (default 60000),
// DEVICE_SCALE_FACTOR (default 1).
// Writes OUT_DIR/browser.png, browser-probe.json, browser-console.log.
// Fails on any console error, any page error, any message containing 'panicked', a failed
// request, a probe that never arrives, or a screenshot that does not show the probe's heatmap.

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { checkShot, distinctColours, readPng } from './check_shot.mjs';
import { closeBrowser, DIST, ISOLATED, launchChromium, OUT, poll, serveDist, watchPage } from './harness.mjs';

const PROBE_TIMEOUT_MS = Number(process.env.PROBE_TIMEOUT_MS ?? 60000);
// 1 by default; 2 (or 1.5) checks the points -> pixels scaling (pixels_per_point) end to end.
const DEVICE_SCALE_FACTOR = Number(process.env.DEVICE_SCALE_FACTOR ?? 1);

const results = [];
function record(name, ok, detail = '') {
  results.push({ name, ok, detail });
  console.log(`browser: ${ok ? 'PASS' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
  return ok;
}

async function main() {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) {
    record('dist/ has a build', false, `${DIST}/index.html missing: run \`trunk build --release\` first`);
    return;
  }
  fs.mkdirSync(OUT, { recursive: true });
  for (const f of ['browser.png', 'browser-probe.json', 'browser-console.log']) {
    fs.rmSync(path.join(OUT, f), { force: true });
  }

  const server = await serveDist(DIST);
  const url = `http://127.0.0.1:${server.address().port}/`;
  const consoleLines = [];
  const errors = [];
  let context;
  let profile;

  try {
    ({ context, profile } = await launchChromium(DEVICE_SCALE_FACTOR));
    const page = context.pages()[0] ?? (await context.newPage());

    // Listen before navigating so nothing from start-up is missed.
    watchPage(page, consoleLines, errors);
    // What the page itself downloads from the app's folder (the first download).
    const fetched = new Set();
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.origin === new URL(url).origin) fetched.add(u.pathname.slice(1) || 'index.html');
    });

    const t0 = Date.now();
    const resp = await page.goto(url, { waitUntil: 'load', timeout: 60000 });
    if (!record('page loads', resp?.ok() ?? false, `${url} -> HTTP ${resp?.status()}`)) return;

    // The hook returns "" until the first heatmap is drawn.
    const probeOf = () => page.evaluate(() => {
      const b = window.wasmBindings;
      return b && typeof b.glimpse_probe === 'function' ? b.glimpse_probe() : null;
    });
    let probeText = '';
    let hookSeen = false;
    while (Date.now() - t0 < PROBE_TIMEOUT_MS) {
      const p = await probeOf();
      if (p !== null) hookSeen = true;
      if (p) {
        probeText = p;
        break;
      }
      if (errors.some((e) => /panicked|pageerror/.test(e))) break; // the app is dead
      await page.waitForTimeout(250);
    }
    const waited = ((Date.now() - t0) / 1000).toFixed(1);
    if (!record('app draws a heatmap (glimpse_probe() non-empty)', probeText !== '',
      probeText ? `after ${waited}s` : hookSeen
        ? `glimpse_probe() still "" after ${waited}s`
        : `window.wasmBindings.glimpse_probe missing after ${waited}s`)) return;

    // The loading screen's progress bar followed the WebAssembly download to its end.
    const progress = await page.evaluate(() => window.glimpseLoadProgress ?? []);
    const last = progress[progress.length - 1];
    record('the loading screen showed the download progress', progress.length > 1 && !!last && last.current === last.total && last.total > 1e6,
      last ? `${progress.length} updates, last ${last.current} of ${last.total} bytes` : 'no progress events');

    // Let a few frames reach the screen, then screenshot. If the layout moved between the probe
    // reads around the screenshot, take it again so the probe matches what is in the picture.
    const settle = () => page.evaluate(() => new Promise((done) => {
      let n = 0;
      const tick = () => (++n >= 3 ? done() : requestAnimationFrame(tick));
      requestAnimationFrame(tick);
    }));
    const layoutOf = (t) => {
      try {
        const j = JSON.parse(t);
        return JSON.stringify([j.pixels_per_point, j.heatmap?.rect, j.heatmap?.rows, j.heatmap?.cols]);
      } catch {
        return t;
      }
    };
    for (let attempt = 0; attempt < 5; attempt++) {
      await settle();
      const before = await probeOf();
      await page.screenshot({ path: path.join(OUT, 'browser.png'), scale: 'device' });
      const after = await probeOf();
      probeText = after || before || probeText;
      if (layoutOf(before) === layoutOf(after)) break;
      await page.waitForTimeout(500);
    }
    fs.writeFileSync(path.join(OUT, 'browser-probe.json'), probeText + '\n');

    let probe;
    try {
      probe = JSON.parse(probeText);
    } catch (e) {
      record('probe is valid JSON', false, `${e.message}: ${probeText.slice(0, 200)}`);
      return;
    }
    record('probe is valid JSON', true,
      `model ${probe.model}, layer ${probe.layer}, head ${probe.head}, frames ${probe.frames}, ` +
      `pixels_per_point ${probe.pixels_per_point}, ${probe.heatmap?.rows}x${probe.heatmap?.cols} cells`);

    // The trained built-ins are files beside the app, fetched once it has started.
    const models = await poll(async () => {
      const m = JSON.parse(await page.evaluate(() => window.wasmBindings.glimpse_models() || '[]'));
      return m.length >= 12 && m.every((x) => x.state !== 'loading') ? m : null;
    }, 30000).catch(() => null);
    const translate = models?.find((m) => m.name === 'translate');
    record('the built-in models are fetched beside the app and reported by glimpse_models()',
      !!models && models.every((m) => m.state === 'ready') && translate?.layers === 2,
      models ? `${models.length} models, translate: ${translate?.family}, ${translate?.layers} layers, ${translate?.heads} heads, ${translate?.parameters} parameters` : 'still loading after 30 s');
    // The page's own html, js and wasm (the service worker's precache comes after the start).
    const first = [...fetched].filter((f) => /\.(wasm|js|html)$/.test(f) && f !== 'sw.js' &&
      fs.existsSync(path.join(DIST, f)));
    const firstGz = first.reduce((n, f) => n + zlib.gzipSync(fs.readFileSync(path.join(DIST, f)), { level: 9 }).length, 0);
    record('the first download (html, js, wasm) is at most 3 MB gzipped', firstGz <= 3e6 && first.some((f) => f.endsWith('.wasm')),
      `${(firstGz / 1e6).toFixed(2)} MB gzipped: ${first.join(', ')}`);

    // Threads: this server makes the page cross-origin isolated (as scripts/package.sh tells
    // hosts to), so it loads the threaded build, and its passes run off the page's thread.
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const threaded = await poll(async () => {
      const c = JSON.parse(await page.evaluate(() => window.wasmBindings.glimpse_compute()));
      return c.threads === Math.min(Math.max(cores, 1), 8) && c.off_page ? c : null;
    }, 30000).catch(() => null);
    const picked = await page.evaluate(() => window.glimpseModule);
    record('an isolated page loads the threaded build and computes on a pool of one thread per core, off its own thread',
      ISOLATED ? !!threaded && picked?.threads === true : picked?.threads === false,
      `${picked?.wasm}; compute: ${threaded ? `${threaded.threads} threads, off the page` : 'not started'}; ${cores} cores` +
      (ISOLATED ? '' : ' (GLIMPSE_ISOLATED=0: the plain build was expected)'));

    const loadingGone = await page.evaluate(() => {
      const el = document.getElementById('loading_text');
      return !el || el.offsetParent === null || getComputedStyle(el).display === 'none' ||
        getComputedStyle(el).visibility === 'hidden';
    });
    record('loading text is hidden', loadingGone);

    const canvas = await page.evaluate(() => {
      const c = document.getElementById('glimpse_canvas');
      if (!c) return null;
      const r = c.getBoundingClientRect();
      const dpr = window.devicePixelRatio;
      return { x: r.left * dpr, y: r.top * dpr, w: c.width, h: c.height, dpr };
    });
    if (!record('canvas #glimpse_canvas exists', canvas !== null,
      canvas ? `${canvas.w}x${canvas.h} px at (${canvas.x},${canvas.y}), devicePixelRatio ${canvas.dpr}` : '')) return;

    const result = checkShot(readPng(path.join(OUT, 'browser.png')), probe, canvas.x, canvas.y);
    for (const c of result.checks) record(c.name, c.ok, c.detail);

    // Every explorer view and the scoring lab, as a student opens them: click the real tab
    // (rectangles from the glimpse_controls() hook), screenshot, check it is not blank.
    const controls = async () => JSON.parse((await page.evaluate(() => window.wasmBindings.glimpse_controls())) || '{}');
    const views = [
      ['view:All heads', 'view-grid.png'],
      ['view:Head view', 'view-lines.png'],
      ['view:Walkthrough', 'view-walkthrough.png'],
      ['step:A·V', 'view-walkthrough-av.png'],
      ['tab:scoring', 'view-scoring.png'],
      ['tab:masking', 'mask-causal-padding.png'],
      ['mask:none', 'mask-none.png'],
      ['mask:causal', 'mask-causal.png'],
      ['mask:padding', 'mask-padding.png'],
      ['mask:prefix-LM', 'mask-prefix.png'],
      ['mask:custom (click M)', 'mask-custom.png'],
      ['masking:Padding in a batch', 'mask-batch.png'],
      ['masking:Three families', 'mask-families.png'],
      ['masking:Teacher forcing', 'mask-teacher.png'],
      ['tab:positions', 'pos-sinusoidal.png'],
      ['positions:Naive (t, t/N)', 'pos-naive.png'],
      ['positions:Learned table', 'pos-learned.png'],
      ['positions:ALiBi & relative', 'pos-bias.png'],
      ['positions:RoPE', 'pos-rope.png'],
      ['positions:Why at all: reorder', 'pos-permutation.png'],
      ['positions:Longer than trained', 'pos-extrapolation.png'],
      ['tab:decoding', 'decode-start.png'],
      ['decoding:step', 'decode-step1.png'],
      ['decoding:step', 'decode-step2.png'],
      ['decoding:step', 'decode-step3.png'],
      ['decoding:typed table', 'decode-table-start.png'],
      ['decoding:step', 'decode-table-step1.png'],
      ['decoding:step', 'decode-table-step2.png'],
      ['tab:lessons', 'lesson-first-page.png'],
    ];
    for (const [name, file] of views) {
      const r = (await controls())[name];
      if (!record(`${name} is drawn`, !!r)) continue;
      await page.mouse.click((r[0] + r[2]) / 2, (r[1] + r[3]) / 2);
      await page.mouse.move(5, 790);
      // The extrapolation plot is measured live, a few cells per frame.
      await page.waitForTimeout(name === 'positions:Longer than trained' ? 6000 : 700);
      await page.screenshot({ path: path.join(OUT, file), scale: 'device' });
      const n = distinctColours(readPng(path.join(OUT, file)));
      record(`${file} is not blank`, n >= 32, `${n} distinct colours`);
      if (name === 'tab:scoring' || name === 'masking:Teacher forcing') {
        const back = (await controls())['tab:attention'];
        if (back) await page.mouse.click((back[0] + back[2]) / 2, (back[1] + back[3]) / 2);
      }
    }

    // Deep links: open the app on a link and check the view it reproduces, in the probe (model,
    // input, layer, head) and in the pixels (the heatmap drawn is the one the probe describes).
    // The last two are a projector (1280 × 720, presenter mode) and a tablet (768 px wide).
    const links = [
      ['link-reverse.png', 'v=1&view=attention&model=reverse&src=abcdefgh&tgt=hgfedcba&kind=cross&layer=1&head=0',
        { model: 'reverse', input: 'abcdefgh', layer: 1, head: 0 }],
      ['link-lm.png', 'v=1&view=attention&model=lm&src=the%20cat%20sat&kind=dec&layer=0&head=2',
        { model: 'lm', input: 'the cat sat', layer: 0, head: 2 }],
      ['presenter-1280x720.png', 'v=1&view=attention&model=translate&kind=cross&layer=1&head=2&present=1',
        { model: 'translate', layer: 1, head: 2 }, { width: 1280, height: 720 }],
      ['tablet-768.png', 'v=1&view=attention&model=copy&src=jabbed&tgt=jabbed&kind=cross&layer=1&head=0',
        { model: 'copy', layer: 1, head: 0 }, { width: 768, height: 1024 }],
    ];
    for (const [file, hash, want, size] of links) {
      if (size) await page.setViewportSize(size);
      await page.goto(`http://127.0.0.1:${server.address().port}/#${hash}`, { waitUntil: 'load' });
      await page.reload({ waitUntil: 'load' });
      let got = null;
      for (let i = 0; i < 120 && !got; i++) {
        await page.waitForTimeout(250);
        const text = await page.evaluate(() => window.wasmBindings?.glimpse_probe?.() ?? '');
        try {
          const p = JSON.parse(text);
          if (p.model === want.model) got = p;
        } catch { /* not drawn yet */ }
      }
      const same = !!got && Object.entries(want).every(([k, v]) => got[k] === v);
      record(`deep link ${file} reproduces its view`, same, got ? `model ${got.model}, input "${got.input}", layer ${got.layer}, head ${got.head}` : 'no probe');
      if (!got) continue;
      await page.mouse.move(5, 790);
      await page.waitForTimeout(500);
      await page.screenshot({ path: path.join(OUT, file), scale: 'device' });
      const probeNow = JSON.parse(await page.evaluate(() => window.wasmBindings.glimpse_probe()));
      const shot = checkShot(readPng(path.join(OUT, file)), probeNow, canvas.x, canvas.y);
      for (const c of shot.checks) record(`${file}: ${c.name}`, c.ok, c.detail);
    }

    // A job that panics on the engine stops that worker alone: the Compute panel says so, no
    // crash overlay covers the app, and a new input is computed on the page's own thread.
    if (ISOLATED) {
      const sent = await page.evaluate(() => window.wasmBindings.glimpse_test_engine_panic());
      const stopped = await poll(async () => {
        const c = JSON.parse(await page.evaluate(() => window.wasmBindings.glimpse_compute()));
        return c.off_page === false ? c : null;
      }, 15000, 100).catch(() => null);
      await page.goto(`http://127.0.0.1:${server.address().port}/#v=1&view=attention&model=lm&src=a%20dog%20ran`, { waitUntil: 'load' });
      const after = await poll(async () => {
        const p = JSON.parse((await page.evaluate(() => window.wasmBindings.glimpse_probe())) || 'null');
        return p?.input === 'a dog ran' ? p : null;
      }, 15000).catch(() => null);
      const overlay = await page.evaluate(() => !!document.getElementById('glimpse_error'));
      // The worker's own report of the panic it was asked for is expected, not a failure.
      const asked = (e) => /requested by the browser test, on the engine/.test(e);
      const unexpected = errors.filter((e) => !asked(e));
      errors.splice(0, errors.length, ...unexpected);
      record('a panic on the engine stops that worker alone: said in the Compute panel, and the page computes on',
        sent && !!stopped && /worker/.test(stopped.threads_text) && !overlay && !!after,
        `${stopped?.threads_text ?? 'no change'}; overlay ${overlay}; new input drawn: ${!!after}`);
    }

    // A host that sends no COOP/COEP (and no service worker yet): the page is not isolated, so
    // it loads the plain build, draws, and the Compute panel says why it has one thread.
    const plain = await serveDist(DIST, {}, { isolated: false });
    try {
      const other = await context.newPage();
      watchPage(other, consoleLines, errors);
      await other.goto(`http://127.0.0.1:${plain.address().port}/#v=1&view=attention&model=lm&ctl=1`, { waitUntil: 'load' });
      const drawn = await poll(() => other.evaluate(() => window.wasmBindings?.glimpse_probe?.() || null), 60000);
      const state = await other.evaluate(() => ({
        isolated: self.crossOriginIsolated, module: window.glimpseModule, compute: window.wasmBindings.glimpse_compute(),
      }));
      const c = JSON.parse(state.compute);
      record('a page that is not isolated loads the one-thread build, draws, and runs on its own thread',
        !!drawn && !state.isolated && state.module?.threads === false && c.threads === 1 && c.off_page === false,
        `isolated ${state.isolated}, ${state.module?.wasm}, compute: ${c.threads} thread(s), off the page ${c.off_page}`);
      await other.close();
    } finally {
      plain.close();
    }

    // Give late errors (from the frames after the screenshot) a moment to show up.
    await page.waitForTimeout(1000);
  } catch (e) {
    record('browser run', false, e.stack || String(e));
  } finally {
    await closeBrowser({
      record, errors, consoleLines, logFile: path.join(OUT, 'browser-console.log'), context, server, profile,
    });
  }
}

await main().catch((e) => record('browser run', false, e.stack || String(e)));
const failed = results.filter((r) => !r.ok).length;
console.log(`browser: ${results.length - failed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
