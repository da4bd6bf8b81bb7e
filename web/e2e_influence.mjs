// The Influence lab in headless Chromium on SmolLM2 (served beside the release build), as a
// student opens it from a lesson's links: the logit lens, the attribution, the whole patching
// sweep (timed: the figure in docs/benchmarks.md) and attention against ablation, with the
// page's long tasks while the sweep and the ablation run (a step is half a block of the model
// over at most 16 rows: the page stays responsive; PerformanceObserver 'longtask') and the
// longest step, which the job measures itself. Each view's
// numbers are read from the app's probe and checked against the native analysis's (the
// lessons' tests), and each view is photographed:
//   node web/e2e_influence.mjs            # screenshots in web/out/
//   node web/e2e_influence.mjs --readme   # also docs/images/influence-*.png (256 colours)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { distinctColours, readPng } from './check_shot.mjs';
import { closeBrowser, DIST, launchChromium, machineInfo, observeLongTasks, OUT, poll, printMachine, recorder, REPO, serveDist, sleep, waitForModel, watchPage } from './harness.mjs';

const SMOLLM2 = 'SmolLM2-135M-Instruct.Q4_1';
const q = encodeURIComponent;
const IOI = `src=${q('When Mary and John went to the store, John gave a drink to')}&itgt=${q(' Mary')}&icon=${q(' John')}`;
const CORRUPT = `icor=${q('When Mary and John went to the store, Mary gave a drink to')}`;
const VIEWS = [
  {
    file: 'influence-lens.png', key: 'lens',
    link: `view=influence&isec=0&model=${SMOLLM2}&src=${q('The Eiffel Tower is in the city of')}&itgt=${q(' Paris')}`,
    ready: (s) => s.lens,
    check: (s, record) => {
      const p = s.lens.target_p;
      record('lens: " Paris" is the top token from depth 29', s.lens.settles_at === 29, `from ${s.lens.settles_at}`);
      record('lens: p(" Paris") at the output is 0.656 (native)', Math.abs(p[p.length - 1] - 0.656158) < 1e-3, `${p[p.length - 1]}`);
    },
  },
  {
    file: 'influence-attribution.png', key: 'attribution',
    link: `view=influence&isec=1&model=${SMOLLM2}&${IOI}`,
    ready: (s) => s.attribution,
    check: (s, record) => {
      const a = s.attribution;
      record('attribution: the shares add up to the logit difference', Math.abs(a.sum - a.logit_diff) < 1e-3, `${a.sum} vs ${a.logit_diff}`);
      record('attribution: logit(" Mary") - logit(" John") is 6.120 (native)', Math.abs(a.logit_diff - 6.11959) < 1e-2, `${a.logit_diff}`);
      record('attribution: head 23.3 is the largest contributor', a.top[0][0] === 'head 23.3', JSON.stringify(a.top[0]));
    },
  },
  {
    file: 'influence-patching.png', key: 'patching',
    running: (s) => s.patching && s.patching.progress[0] < s.patching.progress[1],
    longestStep: (s) => s.patching.longest_step_ms,
    link: `view=influence&isec=2&isweep=1&model=${SMOLLM2}&${IOI}&${CORRUPT}`,
    ready: (s) => s.patching?.done && s.patching,
    check: (s, record) => {
      const p = s.patching;
      record('patching: all 690 patches ran', p.progress[0] === 690 && p.progress[1] === 690, JSON.stringify(p.progress));
      record('patching: head 23.3 restores 0.584 (native)', Math.abs(p.heads[23][3] - 0.58380) < 1e-2, `${p.heads[23][3]}`);
      record('patching: block 0 at the second " John" restores 1', Math.abs(p.resid[0][9] - 1) < 1e-3, `${p.resid[0][9]}`);
      console.log(`e2e_influence: the sweep took ${p.seconds.toFixed(1)} s in Chromium (${machineInfo().cpu})`);
    },
  },
  {
    file: 'influence-compare.png', key: 'compare',
    running: (s) => s.compare?.effect === 'ablation effect' && !s.compare.complete,
    longestStep: (s) => s.compare.longest_step_ms,
    link: `view=influence&isec=3&ieff=1&model=${SMOLLM2}&${IOI}`,
    ready: (s) => s.compare?.effect === 'ablation effect' && s.compare.complete && s.compare,
    check: (s, record) => {
      record('compare: the sentence names head 11.1 and head 23.3', /Head 11\.1 puts 0\.86/.test(s.compare.sentence), s.compare.sentence);
      record('compare: every one of the 270 heads is compared', /Over 270 heads/.test(s.compare.sentence), s.compare.sentence);
      record('compare: 82 sinks', (s.sinks ?? []).length === 82, `${(s.sinks ?? []).length}`);
    },
  },
  {
    // Through the lessons view, in a new page as a student opens it (a link that changes only
    // the fragment would keep the page and its last sweep): the lesson page applies its own
    // link and draws the lab beside its text, and the numbers its text quotes are the lab's
    // (src/app/lessons/influence.rs). This sweep has 990 patches, the other 690.
    file: 'influence-lesson-induction.png', key: 'lesson "Induction, causally"', notReadme: true, fresh: true,
    link: 'view=lessons&lesson=10&page=3',
    running: (s) => s.patching?.progress[1] === 990 && !s.patching.done,
    longestStep: (s) => s.patching.longest_step_ms,
    ready: (s) => s.patching?.progress[1] === 990 && s.patching.done && s.patching,
    check: (s, record) => {
      const p = s.patching;
      const last = p.resid[18].length - 1;
      const near = (x, want) => Math.abs(x - want) < 5e-3;
      record('lesson: head 16.0 restores 0.44, head 18.6 0.18', near(p.heads[16][0], 0.44) && near(p.heads[18][6], 0.18), `${p.heads[16][0]}, ${p.heads[18][6]}`);
      record('lesson: " copper" matters at " velvet" in block 17 (0.53), at the last position from block 18 (0.74)', near(p.resid[17][12], 0.53) && near(p.resid[18][last], 0.74), `${p.resid[17][12]}, ${p.resid[18][last]}`);
    },
  },
];

const json = async (page, fn) => JSON.parse((await page.evaluate(fn)) || 'null');

// The most a task may hold the page while a sweep runs, and the longest step of the job.
// Here the steps (half a block over at most 16 rows) take at most 41 ms (patching) and 77 ms
// (ablation), and the longest task while they run 68-102 ms (the drawing and the browser's own
// work share the 2 cores); a quarter of the half-second steps of the first build.
const LONGEST_TASK_MS = 250;
const LONGEST_STEP_MS = 100;

async function main() {
  const readme = process.argv.includes('--readme');
  const { record, finish } = recorder('e2e_influence');
  printMachine(machineInfo());
  fs.mkdirSync(OUT, { recursive: true });
  const server = await serveDist(DIST);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const lines = [];
  const errors = [];
  const { context, profile } = await launchChromium(1);
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    watchPage(page, lines, errors);
    await page.setViewportSize({ width: 1280, height: 800 });
    await context.addInitScript(observeLongTasks);
    for (const view of VIEWS) {
      if (view.fresh) await page.goto('about:blank');
      await page.goto(`${base}#v=1&${view.link}`, { waitUntil: 'load' });
      const ready = await waitForModel(page, SMOLLM2, 180000);
      if (!record(`${view.key}: ${SMOLLM2} opens`, !!ready)) continue;
      const started = Date.now();
      // Long tasks count from the first poll that sees the job under way (the two traced
      // passes before it are the store's, sliced a frame at a time: issue 36's to move).
      let since = null;
      const status = await poll(async () => {
        const s = (await json(page, () => window.wasmBindings.glimpse_influence())) ?? {};
        if (since === null && view.running?.(s)) since = await page.evaluate(() => performance.now());
        return view.ready(s) && s;
      }, 400000, 500);
      if (!record(`${view.key}: the view computes its numbers`, !!status, `${((Date.now() - started) / 1000).toFixed(1)} s`)) continue;
      view.check(status, record);
      if (view.running) {
        const tasks = await page.evaluate((t0) => window.__longTasks.filter(([start]) => start >= t0), since ?? 0);
        const longest = Math.max(0, ...tasks.map(([, d]) => d));
        record(`${view.key}: no task holds the page over ${LONGEST_TASK_MS} ms while it runs`, longest <= LONGEST_TASK_MS, `${tasks.length} long tasks, the longest ${longest.toFixed(0)} ms (${machineInfo().cpu})`);
        const step = view.longestStep(status);
        record(`${view.key}: no step of the job is longer than ${LONGEST_STEP_MS} ms`, step > 0 && step <= LONGEST_STEP_MS, `the longest ${step?.toFixed(1)} ms (${machineInfo().cpu})`);
      }
      await page.mouse.move(2, 2);
      await sleep(1200);
      const file = path.join(OUT, view.file);
      await page.screenshot({ path: file });
      const colours = distinctColours(readPng(file));
      record(`${view.key}: the screenshot is more than a blank canvas`, colours >= 24, `${colours} colours`);
      if (readme && !view.notReadme) {
        const dest = path.join(REPO, 'docs', 'images', view.file);
        execFileSync('convert', [file, '-colors', '256', `PNG8:${dest}`]);
        console.log(`e2e_influence: wrote ${dest} (${fs.statSync(dest).size} bytes)`);
      }
    }
  } finally {
    await closeBrowser({ record, errors, consoleLines: lines, logFile: path.join(OUT, 'e2e_influence.log'), context, server, profile });
  }
  finish();
}

main().catch((e) => {
  console.error(`e2e_influence: ${e.message}`);
  process.exit(1);
});
