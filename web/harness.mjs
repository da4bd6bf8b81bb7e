// Shared by the browser tests: Chromium flags, a static server for dist/, console watching.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { fileURLToPath } from 'node:url';

/** The repository, the web build the tests serve (DIST_DIR, default dist/) and where they write
 * screenshots and reports (OUT_DIR, default web/out/). */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = path.resolve(process.env.DIST_DIR ?? path.join(REPO, 'dist'));
export const OUT = path.resolve(process.env.OUT_DIR ?? path.join(REPO, 'web', 'out'));

/** The browser the tests drive: Debian's Chromium unless CHROMIUM names another. */
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

// Flags verified with Debian's Chromium (TOOLCHAIN.md). Playwright adds --headless itself and
// refuses --user-data-dir in args: the fresh profile goes to launchPersistentContext instead.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Content types by extension, as a static host sends them. */
export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.safetensors': 'application/octet-stream',
  '.onnx': 'application/octet-stream',
};

/** Whether the test server makes its pages cross-origin isolated (COOP + COEP, as
 * scripts/package.sh tells hosts to), so the app loads its threaded build: on unless
 * GLIMPSE_ISOLATED=0, which serves the plain one-thread build's conditions. */
export const ISOLATED = process.env.GLIMPSE_ISOLATED !== '0';

/** A tiny static server for DIST on 127.0.0.1 and a free port. `mounts` serves more from
 * outside DIST: URL prefix ending in '/' → a folder, exact URL path → a file. */
export function serveDist(DIST, mounts = {}, { isolated = ISOLATED } = {}) {
  const server = http.createServer((req, res) => {
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (rel.endsWith('/')) rel += 'index.html';
    let root = DIST;
    const mount = Object.keys(mounts).find((m) => (m.endsWith('/') ? rel.startsWith(m) : rel === m));
    if (mount && !mount.endsWith('/')) {
      root = path.dirname(mounts[mount]);
      rel = '/' + path.basename(mounts[mount]);
    } else if (mount) {
      root = path.resolve(mounts[mount]);
      rel = '/' + rel.slice(mount.length);
    }
    const file = path.resolve(root, '.' + rel);
    if (file !== root && !file.startsWith(root + path.sep)) {
      res.writeHead(403).end();
      return;
    }
    fs.readFile(file, (err, body) => {
      if (err) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      // With its length, as static hosts send it: the app reserves a download's memory once.
      res.writeHead(200, {
        'content-type': MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
        'content-length': body.length,
        'cache-control': 'no-store',
        ...(isolated
          ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' }
          : {}),
      });
      res.end(body);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/** Collect console lines; errors, panics, failed requests and HTTP errors go to `errors`. */
export function watchPage(page, consoleLines, errors) {
  page.on('console', (msg) => {
    const line = `[${msg.type()}] ${msg.text()}`;
    consoleLines.push(line);
    if (msg.type() === 'error' || /panicked/.test(msg.text())) errors.push(line);
  });
  page.on('pageerror', (err) => {
    const line = `[pageerror] ${err.stack || err.message}`;
    consoleLines.push(line);
    errors.push(line);
  });
  page.on('requestfailed', (req) => {
    const why = req.failure()?.errorText ?? '';
    const line = `[requestfailed] ${req.url()}: ${why}`;
    consoleLines.push(line);
    // ERR_ABORTED is the browser cancelling a request because the test navigated or reloaded
    // the page (the service worker's precache, a download in flight), not a failure.
    if (why !== 'net::ERR_ABORTED') errors.push(line);
  });
  page.on('response', (resp) => {
    if (resp.status() >= 400) {
      const line = `[http ${resp.status()}] ${resp.url()}`;
      consoleLines.push(line);
      errors.push(line);
    }
  });

}

/** Debian's Chromium, headless, on a fresh profile (returned for removal), 1280×800 at `scale`;
 * `extraArgs` such as `--enable-unsafe-webgpu` (WebGPU on SwiftShader). */
export async function launchChromium(scale = 1, extraArgs = [], locale = 'en-US') {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    // Emulation alone (deviceScaleFactor) leaves ResizeObserver's devicePixelContentBoxSize in
    // CSS pixels, so egui would draw a 1x buffer stretched 2x; force the real scale factor too.
    args: [...CHROMIUM_ARGS, `--force-device-scale-factor=${scale}`, ...extraArgs],
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: scale,
    // The browser's language (navigator.languages), which the app speaks when it ships it.
    locale,
  }).catch((e) => {
    // No browser, no profile left behind in /tmp.
    fs.rmSync(profile, { recursive: true, force: true });
    throw e;
  });
  return { context, profile };
}

/** What a benchmark figure depends on, to print at its start and keep in its JSON: the CPU
 * model and the SIMD features the kernels choose from at run time (AVX2, FMA, AVX-512F; null
 * where /proc/cpuinfo is unreadable), the cores, the load average (other jobs change timings by
 * a third) and the Chromium version. */
export function machineInfo() {
  let cpuinfo = '';
  try {
    cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    // Not Linux: the model from Node, the flags unknown.
  }
  const flagLine = /^flags\s*:(.*)$/m.exec(cpuinfo)?.[1];
  const flags = new Set((flagLine ?? '').trim().split(/\s+/));
  const has = (f) => (flagLine === undefined ? null : flags.has(f));
  let chromium = 'unknown';
  try {
    chromium = execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8', timeout: 30000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch (e) {
    chromium = `unknown (${CHROMIUM} --version failed: ${e.message.split('\n')[0]})`;
  }
  // A virtual machine may name its CPU only "Intel(R) Xeon(R) Processor": the family and model
  // numbers still tell the generation.
  const field = (name) => new RegExp(`^${name}\\s*:\\s*(.+)$`, 'm').exec(cpuinfo)?.[1]?.trim();
  return {
    cpu: field('model name') ?? os.cpus()[0]?.model ?? 'unknown',
    cpu_id: cpuinfo ? `${field('vendor_id')} family ${field('cpu family')} model ${field('model')} stepping ${field('stepping')}` : null,
    avx2: has('avx2'),
    fma: has('fma'),
    avx512f: has('avx512f'),
    cores: os.cpus().length,
    loadavg: os.loadavg().map((l) => Number(l.toFixed(2))),
    chromium,
    date: new Date().toISOString(),
  };
}

/** machineInfo() as one line, for the top of a benchmark's output. */
export function printMachine(m) {
  const flag = (name) => `${name} ${m[name] === null ? '?' : m[name] ? 'yes' : 'no'}`;
  console.log(`machine: ${m.cpu}${m.cpu_id ? ` [${m.cpu_id}]` : ''} (${flag('avx2')}, ${flag('fma')}, ${flag('avx512f')}), ${m.cores} cores, ` +
    `load ${m.loadavg.join(' ')}; ${m.chromium}`);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Poll fn until it returns something truthy or time runs out; an exception (a page
 * navigating away mid-evaluate) counts as not yet. */
// Waits until the app reports model `name` open (`glimpse_models()`); its entry, or
// undefined after `timeoutMs`.
export async function waitForModel(page, name, timeoutMs) {
  return poll(async () => {
    const models = JSON.parse((await page.evaluate(() => window.wasmBindings?.glimpse_models?.() ?? 'null')) || '[]');
    return models.find((m) => m.name === name && m.state === 'ready');
  }, timeoutMs);
}

export async function poll(fn, timeoutMs, intervalMs = 250) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    let v;
    try {
      v = await fn();
    } catch {
      v = undefined;
    }
    if (v || Date.now() > end) return v;
    await sleep(intervalMs);
  }
}

/** Runs in the page before the app (`context.addInitScript`): every long task (over 50 ms) on
 * the page's thread from the first script on, [start, duration] in ms, in `window.__longTasks`. */
export function observeLongTasks() {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]);
  }).observe({ type: 'longtask', buffered: true });
}

/** The listed views that draw the shared model (the others show built-in or lab models of
 * their own), as `glimpse_every_view()` lists them. */
export const SHARED_VIEWS = /^view=(attention|masking|scoring)|ps=7|ds=picked|hsec=0|dsec=0/;

/** A listed view's link opened on model `name` (the listed links name the built-in model their
 * view opens with). */
export function withModel(view, name) {
  return /(^|&)model=/.test(view) ? view.replace(/(^|&)model=[^&]*/, `$1model=${name}`) : `${view}&model=${name}`;
}

/** Waits until no pass of the shared input or of a lab's own (the store's) is under way on the
 * page, asked twice a few frames apart (a batch asks for its next pass the frame after one
 * ends); gives up after `timeoutMs`. */
export async function settle(page, timeoutMs = 60000) {
  const json = async (fn) => JSON.parse((await page.evaluate(fn)) || 'null');
  return poll(async () => {
    const c = (await json(() => window.wasmBindings.glimpse_compute())) ?? {};
    const labs = () => page.evaluate(() => window.wasmBindings.glimpse_store_passes?.() ?? 0);
    if (c.pass || await labs()) return null;
    await sleep(200);
    return (await labs()) ? null : true;
  }, timeoutMs, 100);
}

/** The end of a browser session: no console error, page error or panic may have been seen
 * (recorded), the console is kept in `logFile`, and the browser, server and profile go. */
export async function closeBrowser({ record, errors, consoleLines, logFile, context, server, profile }) {
  record('no console errors, page errors or panics', errors.length === 0,
    errors.length ? `\n    ${errors.slice(0, 20).join('\n    ')}` : `${consoleLines.length} console lines`);
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  fs.writeFileSync(logFile, consoleLines.join('\n') + '\n');
  if (context) await context.close().catch(() => {});
  server.close();
  if (profile) fs.rmSync(profile, { recursive: true, force: true });
}

/** PASS/FAIL lines prefixed with `prefix`; `finish` prints the tally and exits non-zero on any
 * failure (or when nothing was checked). */
export function recorder(prefix) {
  const results = [];
  const record = (name, ok, detail = '') => {
    results.push(ok);
    console.log(`${prefix}: ${ok ? 'PASS' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
    return ok;
  };
  const finish = () => {
    const failed = results.filter((ok) => !ok).length;
    console.log(`${prefix}: ${results.length - failed} passed, ${failed} failed`);
    process.exit(failed === 0 && results.length > 0 ? 0 : 1);
  };
  return { record, finish };
}

/** A benchmark's page: DIST served, Chromium at scale 1, the app loaded until its wasm export
 * `name` can be called. `close()` shuts the browser and the server down. */
export async function openBenchmarkPage(name) {
  const server = await serveDist(DIST);
  const { context, profile } = await launchChromium(1);
  const close = async () => {
    await context.close();
    server.close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`http://127.0.0.1:${server.address().port}/`, { waitUntil: 'load' });
    await page.waitForFunction((n) => typeof window.wasmBindings?.[n] === 'function', name,
      { timeout: 60000 });
    return { page, close };
  } catch (e) {
    await close();
    throw e;
  }
}
