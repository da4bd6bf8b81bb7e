// Walks every view, lab section and lesson page of the web build in headless Chromium, in six
// rooms: a laptop (1280 × 800), a projector in presenter mode (1280 × 720), a tablet
// (768 × 1024), the laptop at 200 % zoom (640 × 400 CSS pixels), and the laptop and 200 % again
// in Spanish (`lang=es`). Each view is opened the way a shared link opens it in an open tab (only the
// hash changes) and screenshotted to OUT_DIR/walk/<room>/. Fails on any console error, page
// error or panic, on a blank view, and on any panel whose content the app reports clipped
// (`glimpse_overflow`, from `app::probe::check_fits`).
//
//   node web/e2e_walk.mjs        (after `trunk build --release`)

import fs from 'node:fs';
import path from 'node:path';
import { distinctColours, readPng } from './check_shot.mjs';
import { closeBrowser, DIST, launchChromium, OUT, poll, recorder, serveDist, sleep, watchPage } from './harness.mjs';

const WALK_OUT = path.join(OUT, 'walk');

const { record, finish } = recorder('walk');

const ROOMS = [
  { name: 'laptop', size: { width: 1280, height: 800 }, extra: '' },
  { name: 'projector', size: { width: 1280, height: 720 }, extra: '&present=1' },
  { name: 'tablet', size: { width: 768, height: 1024 }, extra: '' },
  // The laptop at 200 % browser zoom: half the CSS pixels each way.
  { name: 'zoom200', size: { width: 640, height: 400 }, extra: '' },
  // Spanish, whose words run longer than English: on the laptop and at 200 %.
  { name: 'es-laptop', size: { width: 1280, height: 800 }, extra: '&lang=es' },
  { name: 'es-zoom200', size: { width: 640, height: 400 }, extra: '&lang=es' },
];

// `GLIMPSE_ROOMS=es-laptop,es-zoom200 node web/e2e_walk.mjs` walks only the rooms named.
const ONLY = process.env.GLIMPSE_ROOMS?.split(',');

// Views that compute over several frames (the extrapolation curve, the KV-cache timing).
const SLOW = /ps=6|ds=translate/;

async function main() {
  const server = await serveDist(DIST);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const consoleLines = [];
  const errors = [];
  const { context, profile } = await launchChromium(1);
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    watchPage(page, consoleLines, errors);
    await page.goto(base, { waitUntil: 'load' });
    const ready = await poll(() => page.evaluate(() => window.wasmBindings?.glimpse_every_view?.()), 60000);
    if (!record('the app starts and lists its views', !!ready)) return;
    const views = ready.split('\n');
    for (const room of ROOMS.filter((r) => !ONLY || ONLY.includes(r.name))) {
      await page.setViewportSize(room.size);
      const dir = path.join(WALK_OUT, room.name);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
      const clipped = [];
      const blank = [];
      const scrolled = [];
      for (const [i, view] of views.entries()) {
        const hash = `v=1&${view}${room.extra}`;
        await page.evaluate((h) => { window.location.hash = h; }, hash);
        // The app rewrites the hash to its full form once it has opened the view.
        await poll(() => page.evaluate(() => window.location.hash.includes('&src=')), 5000, 50);
        await page.mouse.move(2, room.size.height - 2);
        await sleep(SLOW.test(view) ? 2500 : 600);
        // A real model's pass runs over several frames under a "computing…" box: wait it out,
        // so the screenshot shows the view's numbers, not the box over its header.
        await poll(async () => {
          const c = JSON.parse((await page.evaluate(() => window.wasmBindings.glimpse_compute?.() ?? '{}')) || '{}');
          return !c.pass;
        }, 30000, 100);
        const file = path.join(dir, `${String(i).padStart(2, '0')}-${view.replace(/[^a-z0-9]+/gi, '_')}.png`);
        await page.screenshot({ path: file });
        if (distinctColours(readPng(file)) < 24) blank.push(view);
        const over = JSON.parse((await page.evaluate(() => window.wasmBindings.glimpse_overflow())) || '{}');
        // A panel that scrolls is usable; one that clips hides part of the view.
        const clip = Object.entries(over).filter(([panel]) => !panel.endsWith('(scrolls)'));
        const scroll = Object.entries(over).filter(([panel]) => panel.endsWith('(scrolls)'));
        if (clip.length) clipped.push(`${view}: ${JSON.stringify(Object.fromEntries(clip))}`);
        if (scroll.length) scrolled.push(`${view}: ${JSON.stringify(Object.fromEntries(scroll))}`);
      }
      record(`${room.name}: all ${views.length} views drawn`, blank.length === 0, blank.join(', '));
      console.log(`walk: ${room.name}: ${scrolled.length} views scroll (wide tables or long pages)${scrolled.length ? `:\n    ${scrolled.join('\n    ')}` : ''}`);
      record(`${room.name}: nothing clipped`, clipped.length === 0, clipped.length ? `\n    ${clipped.join('\n    ')}` : '');
    }
    await sleep(500);
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
