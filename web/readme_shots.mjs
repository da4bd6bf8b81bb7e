// The README's pictures, taken from the release build in headless Chromium on the real models
// served beside it (run after `trunk build --release` with the models fetched):
//   node web/readme_shots.mjs            # writes docs/images/*.png (reduced to 256 colours)
// Each picture is a link the app opens as a student's pasted link would; the decoding picture
// then presses Step three times. Every shot must show the model it names, with no pass still
// running, and be more than a blank canvas.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { distinctColours, readPng } from './check_shot.mjs';
import { closeBrowser, DIST, launchChromium, poll, serveDist, sleep, watchPage } from './harness.mjs';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const IMAGES = path.join(ROOT, 'docs', 'images');
const MINILM = 'all-MiniLM-L6-v2';
const SMOLLM2 = 'SmolLM2-135M-Instruct.Q4_1';
const SHOTS = [
  { file: 'attention-minilm.png', model: MINILM, link: `view=attention&xv=head&layer=5&head=11&model=${MINILM}` },
  { file: 'heads-smollm2.png', model: SMOLLM2, link: `view=attention&xv=grid&layer=16&head=0&model=${SMOLLM2}` },
  {
    file: 'decoding-smollm2.png', model: SMOLLM2, steps: 3,
    link: `view=decoding&ds=picked&dtext=${encodeURIComponent('The capital of France is')}&beam=3&maxlen=8&model=${SMOLLM2}`,
  },
  { file: 'positions.png', link: 'view=positions&ps=0' },
  { file: 'lesson.png', size: { width: 1280, height: 720 }, link: 'view=lessons&lesson=1&page=3&present=1' },
];

const json = async (page, fn) => JSON.parse((await page.evaluate(fn)) || 'null');

/** Until the models in sight are ready and no pass is left running (twice, a few frames apart). */
async function settled(page, model) {
  if (model) {
    const ready = await poll(async () => {
      const m = (await json(page, () => window.wasmBindings.glimpse_models())) ?? [];
      return m.find((x) => x.name === model && x.state === 'ready');
    }, 180000);
    if (!ready) throw new Error(`${model} did not open`);
  }
  await poll(async () => {
    const c = (await json(page, () => window.wasmBindings.glimpse_compute())) ?? {};
    const labs = () => page.evaluate(() => window.wasmBindings.glimpse_store_passes?.() ?? 0);
    if (c.pass || await labs()) return null;
    await sleep(300);
    return (await labs()) ? null : true;
  }, 120000, 100);
  await sleep(1500);
}

async function main() {
  fs.mkdirSync(IMAGES, { recursive: true });
  const server = await serveDist(DIST);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const lines = [];
  const errors = [];
  const { context, profile } = await launchChromium(1);
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    watchPage(page, lines, errors);
    for (const shot of SHOTS) {
      await page.setViewportSize(shot.size ?? { width: 1280, height: 800 });
      await page.goto(`${base}#v=1&${shot.link}`, { waitUntil: 'load' });
      await poll(() => page.evaluate(() => window.wasmBindings?.glimpse_every_view?.()), 60000);
      await settled(page, shot.model);
      for (let i = 0; i < (shot.steps ?? 0); i++) {
        const step = (await json(page, () => window.wasmBindings.glimpse_controls()))?.['decoding:step'];
        if (!step) throw new Error('no Step button');
        await page.mouse.click((step[0] + step[2]) / 2, (step[1] + step[3]) / 2);
        await poll(async () => {
          const d = (await json(page, () => window.wasmBindings.glimpse_decoding())) ?? {};
          return (d.steps ?? 0) > i && !d.pending ? true : null;
        }, 120000, 200);
      }
      await page.mouse.move(2, 2);
      await sleep(800);
      const file = path.join(IMAGES, shot.file);
      await page.screenshot({ path: file });
      const colours = distinctColours(readPng(file));
      if (colours < 24) throw new Error(`${shot.file}: a blank canvas (${colours} colours)`);
      // 256 colours keep the text sharp at a fraction of the size.
      execFileSync('convert', [file, '-colors', '256', `PNG8:${file}`]);
      console.log(`readme_shots: ${shot.file} (${colours} colours, ${fs.statSync(file).size} bytes)`);
    }
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  } finally {
    const record = (what, ok, detail) => console.log(`readme_shots: ${ok ? 'PASS' : 'FAIL'} ${what}: ${detail}`);
    await closeBrowser({ record, errors, consoleLines: lines, logFile: path.join(ROOT, 'web', 'out', 'readme_shots.log'), context, server, profile });
  }
}

main().catch((e) => {
  console.error(`readme_shots: ${e.message}`);
  process.exit(1);
});
