// Every view that works on the shared model, at real size: the two real checkpoints served
// beside the app (all-MiniLM-L6-v2: BERT, 6 × 12 heads; SmolLM2-135M-Instruct Q4_1: Llama,
// 30 × 9 heads), each downloaded, opened and walked view by view the way a pasted link opens it
// (only the hash changes), at laptop size (1280 × 800). Screenshots go to
// OUT_DIR/walk-real/<model>/. Fails when a model does not open with its layers × heads, on a
// blank view, a panel the app reports clipped (`glimpse_overflow`, from
// `app::probe::check_fits`), a view that shows another model than the one linked, a heatmap
// drawn with fewer rows than the shared input has tokens, and any console error or panic.
//
//   node web/e2e_walk_real.mjs        (after `trunk build --release` with the models cached)

import fs from 'node:fs';
import path from 'node:path';
import { distinctColours, readPng } from './check_shot.mjs';
import { closeBrowser, DIST, launchChromium, OUT, poll, recorder, serveDist, settle, SHARED_VIEWS, sleep, watchPage, withModel } from './harness.mjs';

const WALK_OUT = path.join(OUT, 'walk-real');
const SIZE = { width: 1280, height: 800 };

const { record, finish } = recorder('walk-real');

// What each served checkpoint must open as.
const EXPECT = {
  'all-MiniLM-L6-v2': { layers: 6, heads: 12, family: /encoder/i },
  'SmolLM2-135M-Instruct.Q4_1': { layers: 30, heads: 9, family: /decoder/i },
};


const json = async (page, fn) => JSON.parse((await page.evaluate(fn)) || 'null');

// A long input (about 60 tokens on either tokenizer): its heatmap must thin its labels.
const LONG = 'In the beginning the students read the whole paragraph aloud, then each of them ' +
  'pointed at the word that the head was looking at, and the teacher wrote the weights on the ' +
  'board so that everybody in the back row could see them too.';

const centre = ([x0, y0, x1, y1]) => [(x0 + x1) / 2, (y0 + y1) / 2];

/** Click like a hand does: hover, press, release, each in its own frame of the app. */
async function press(page, rect) {
  // Generous pauses: the Head view on MiniLM (12 heads × 169 lines) draws slowly on SwiftShader.
  await page.mouse.move(...centre(rect));
  await sleep(200);
  await page.mouse.down();
  await sleep(120);
  await page.mouse.up();
}

/** Open the view's export menu and take every item it offers (PNG first); each must give a
 * download that is a PNG, a JSON document or CSV text. Returns problems, and the files saved. */
async function exportAll(page, dir, prefix, encoder) {
  const controls = async () => (await json(page, () => window.wasmBindings.glimpse_controls())) ?? {};
  const problems = [];
  const saved = [];
  const menu = (await controls()).export;
  if (!menu) return { problems: ['no export menu'], saved };
  await press(page, menu);
  const items = await poll(async () => {
    const c = await controls();
    const names = Object.keys(c).filter((k) => k.startsWith('export:'));
    return names.length ? names : null;
  }, 3000, 50);
  if (!items) return { problems: ['the export menu did not open'], saved };
  for (const item of items) {
    if (item !== items[0]) {
      // Each item closes the menu: wait until it has, then open it again.
      await poll(async () => !Object.keys(await controls()).some((k) => k.startsWith('export:')), 3000, 50);
      await press(page, (await controls()).export ?? menu);
    }
    // A menu's first frame only measures it (egui's sizing pass): wait until the item stays put.
    const rect = await poll(async () => {
      const a = (await controls())[item];
      await sleep(120);
      const b = (await controls())[item];
      return a && b && a.every((v, k) => Math.abs(v - b[k]) < 0.5) ? b : null;
    }, 3000, 30);
    if (!rect) {
      problems.push(`${item}: not in the menu`);
      continue;
    }
    const download = page.waitForEvent('download', { timeout: /PNG/.test(item) ? 15000 : 5000 }).catch(() => null);
    await press(page, rect);
    let d = await download;
    if (!d && encoder && /candidates/.test(item)) {
      // An encoder fills in blanks instead of a beam tree; MiniLM has no masked-LM head, so
      // there are no candidates either, and the app says so instead of a file.
      console.log(`walk-real: ${prefix}: ${item}: nothing to export without a masked-LM head (expected)`);
      continue;
    }
    if (!d && /ranking/.test(item)) {
      // Heads off exports its ranking once the student has ranked the heads (minutes on
      // SmolLM2): before that the app says there is nothing to export yet.
      console.log(`walk-real: ${prefix}: ${item}: nothing ranked yet (expected)`);
      continue;
    }
    for (let attempt = 0; !d && attempt < 3; attempt++) {
      // A click can land while the page is busy drawing a heavy frame (the Head view on
      // SwiftShader): try the item again, up to three more times.
      await poll(async () => !Object.keys(await controls()).some((k) => k.startsWith('export:')), 3000, 50);
      if (!Object.keys(await controls()).some((k) => k.startsWith('export:'))) {
        await press(page, (await controls()).export ?? menu);
      }
      const again = await poll(async () => (await controls())[item], 3000, 50);
      if (again) {
        await sleep(300 * (attempt + 1));
        const retry = page.waitForEvent('download', { timeout: /PNG/.test(item) ? 15000 : 5000 }).catch(() => null);
        await press(page, (await controls())[item] ?? again);
        d = await retry;
      }
    }
    if (!d) {
      problems.push(`${item}: no download`);
      continue;
    }
    const file = path.join(dir, `${prefix}-${d.suggestedFilename()}`);
    await d.saveAs(file);
    const bytes = fs.readFileSync(file);
    const ext = path.extname(file);
    const ok = ext === '.png' ? bytes.length > 1000 && bytes.subarray(1, 4).toString() === 'PNG'
      : ext === '.json' ? (() => { try { JSON.parse(bytes.toString()); return true; } catch { return false; } })()
        : bytes.length > 0 && !bytes.includes(0);
    if (!ok) problems.push(`${item}: ${path.basename(file)} is not a valid ${ext} (${bytes.length} bytes)`);
    saved.push(path.basename(file));
  }
  await page.mouse.move(2, SIZE.height - 2);
  return { problems, saved };
}

async function main() {
  const server = await serveDist(DIST);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const consoleLines = [];
  const errors = [];
  const { context, profile } = await launchChromium(1);
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    watchPage(page, consoleLines, errors);
    await page.setViewportSize(SIZE);
    await page.goto(base, { waitUntil: 'load' });
    const every = await poll(() => page.evaluate(() => window.wasmBindings?.glimpse_every_view?.()), 60000);
    if (!record('the app starts and lists its views', !!every)) return;
    const views = every.split('\n').filter((v) => SHARED_VIEWS.test(v));
    views.push(`view=attention&xv=head&src=${encodeURIComponent(LONG)}`);
    record('the views on the shared model are listed', views.length >= 10, `${views.length} views`);
    const served = (await poll(async () => {
      const s = await json(page, () => window.wasmBindings.glimpse_served());
      return s?.length ? s : null;
    }, 20000)) ?? [];
    const names = served.map((s) => s.name);
    if (!record('both real checkpoints are served', Object.keys(EXPECT).every((n) => names.includes(n)),
      names.join(', '))) return;
    for (const [name, want] of Object.entries(EXPECT)) {
      const dir = path.join(WALK_OUT, name);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
      const t0 = Date.now();
      await page.evaluate((h) => { window.location.hash = h; }, `v=1&view=attention&model=${name}`);
      const ready = await poll(async () => {
        const m = (await json(page, () => window.wasmBindings.glimpse_models())) ?? [];
        return m.find((x) => x.name === name && x.state !== 'loading');
      }, 120000);
      if (!record(`${name}: downloaded and opened (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
        ready?.state === 'ready', JSON.stringify(ready))) continue;
      record(`${name}: ${want.layers} layers × ${want.heads} heads`,
        ready.layers === want.layers && ready.heads === want.heads && want.family.test(ready.family),
        `${ready.family} ${ready.layers} × ${ready.heads}`);
      const blank = [];
      const clipped = [];
      const scrolled = [];
      const wrong = [];
      const exports = [];
      const labels = [];
      for (const [i, view] of views.entries()) {
        const link = withModel(view, name);
        await page.evaluate((h) => { window.location.hash = h; }, `v=1&${link}`);
        // The app rewrites the hash to its full form once it has opened the view.
        await poll(() => page.evaluate(() => window.location.hash.includes('&src=')), 5000, 50);
        await page.mouse.move(2, SIZE.height - 2);
        // A pass of SmolLM2 runs a slice per frame (seconds on a long input): wait until it has
        // landed, then let the view redraw.
        await sleep(300);
        // The labs' own passes (the masking lab's padded batch: six of them) run the same way.
        await settle(page);
        await sleep(1200);
        const stem = `${String(i).padStart(2, '0')}-${link.replace(/&?model=[^&]*/, '').replace(/&src=.*/, '_long').replace(/[^a-z0-9]+/gi, '_')}`;
        const file = path.join(dir, `${stem}.png`);
        await page.screenshot({ path: file });
        if (distinctColours(readPng(file)) < 24) blank.push(view);
        const over = (await json(page, () => window.wasmBindings.glimpse_overflow())) ?? {};
        const clip = Object.entries(over).filter(([panel]) => !panel.endsWith('(scrolls)'));
        const scroll = Object.entries(over).filter(([panel]) => panel.endsWith('(scrolls)'));
        if (clip.length) clipped.push(`${view}: ${JSON.stringify(Object.fromEntries(clip))}`);
        if (scroll.length) scrolled.push(`${view}: ${JSON.stringify(Object.fromEntries(scroll))}`);
        const shown = new URLSearchParams(await page.evaluate(() => window.location.hash.slice(1))).get('model');
        if (shown !== name) wrong.push(`${view}: the link reads model=${shown}`);
        if (view.startsWith('view=attention')) {
          const probe = await json(page, () => window.wasmBindings.glimpse_probe());
          if (probe?.model !== name) wrong.push(`${view}: probe shows ${probe?.model}`);
          if (view.includes('&src=')) {
            const rows = probe?.heatmap?.rows ?? 0;
            const [x0, y0, x1, y1] = probe?.heatmap?.rect ?? [0, 0, 0, 0];
            // Every token gets a row, and the map is big enough to read (cells ≥ 6 points).
            if (!(rows >= 45 && (y1 - y0) / rows >= 6 && (x1 - x0) / rows >= 6)) {
              labels.push(`long input: ${rows} rows in ${(x1 - x0).toFixed(0)} × ${(y1 - y0).toFixed(0)} points`);
            }
          }
        }
        const { problems, saved } = await exportAll(page, dir, stem, /encoder/.test(ready.family));
        if (problems.length) exports.push(`${view}: ${problems.join('; ')}`);
        else console.log(`walk-real: ${name}: ${view.slice(0, 40)}: exported ${saved.join(', ')}`);
      }
      record(`${name}: all ${views.length} views drawn`, blank.length === 0, blank.join(', '));
      record(`${name}: every view shows ${name}`, wrong.length === 0, wrong.join('; '));
      record(`${name}: a ${LONG.split(' ').length}-word input gets one readable row per token`, labels.length === 0, labels.join('; '));
      record(`${name}: every export menu item gives a valid file`, exports.length === 0,
        exports.length ? `\n    ${exports.join('\n    ')}` : '');
      console.log(`walk-real: ${name}: ${scrolled.length} views scroll${scrolled.length ? `:\n    ${scrolled.join('\n    ')}` : ''}`);
      record(`${name}: nothing clipped`, clipped.length === 0, clipped.length ? `\n    ${clipped.join('\n    ')}` : '');
    }
    await sleep(300);
  } catch (e) {
    record('walk', false, e.stack || String(e));
  } finally {
    await closeBrowser({
      record, errors, consoleLines, logFile: path.join(WALK_OUT, 'console.log'), context, server, profile,
    });
  }
}

await main().catch((e) => record('walk', false, e.stack || String(e)));
finish();
