// A panic in the browser must not leave a dead canvas: the app's panic hook (src/app/shell/crash.rs)
// shows a readable overlay with the link that reopens the view. This test makes the app panic
// on purpose (the `glimpse_test_panic` hook) and checks the overlay, then screenshots it to
// OUT_DIR/panic-overlay.png.
//
//   node web/e2e_panic.mjs        (after `trunk build --release`)

import fs from 'node:fs';
import path from 'node:path';
import { DIST, OUT, launchChromium, poll, recorder, serveDist } from './harness.mjs';

const { record, finish } = recorder('panic');

async function main() {
  const server = await serveDist(DIST);
  const { context, profile } = await launchChromium(1);
  const logs = [];
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => logs.push(m.text()));
    const hash = 'v=1&view=attention&model=reverse&src=abcdef';
    await page.goto(`http://127.0.0.1:${server.address().port}/#${hash}`, { waitUntil: 'load' });
    const up = await poll(() => page.evaluate(() => !!window.wasmBindings?.glimpse_probe?.()), 60000);
    if (!record('the app starts', !!up)) return;
    const thrown = await page.evaluate(() => {
      try {
        window.wasmBindings.glimpse_test_panic();
        return 'returned';
      } catch (e) {
        return String(e);
      }
    });
    record('the requested panic happened', thrown !== 'returned', thrown);
    const overlay = await poll(() => page.evaluate(() => document.getElementById('glimpse_error')?.innerText ?? ''), 5000);
    record('an error overlay covers the canvas', !!overlay && /internal error/.test(overlay), JSON.stringify(overlay?.slice(0, 120)));
    record('the overlay names the panic', /requested by the browser test/.test(overlay ?? ''));
    record('the overlay gives the link back to the view', (overlay ?? '').includes('model=reverse'));
    record('the panic was logged to the console', logs.some((l) => /panicked/.test(l)));
    fs.mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: path.join(OUT, 'panic-overlay.png') });
  } catch (e) {
    record('panic test', false, e.stack || String(e));
  } finally {
    await context.close().catch(() => {});
    server.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

await main().catch((e) => record('panic test', false, e.stack || String(e)));
finish();
