// How long the page's thread is held while a real model opens and its views are walked: the
// measurement of issue 36's first goal ("no long task over 50 ms from navigation until
// SmolLM2 is open and drawn, none while switching through every view on it"). A benchmark,
// not a test: it prints the long tasks (`PerformanceObserver` 'longtask': over 50 ms) by
// phase (opening, the first view, then each view on the model) and writes
// OUT_DIR/longtasks.json.
//
//   node web/bench_longtasks.mjs [MODEL]   (after `trunk build --release` with the models cached;
//                                           MODEL: a served name, SmolLM2-135M-Instruct.Q4_1 by default)
//
// PROFILE=1 also records the page's CPU profile and prints, for each long task, the functions
// that held it (web/longtask_profile.mjs); run it on `bash scripts/web_names.sh DIR`'s copy of
// the build (DIST_DIR=DIR) to see the wasm's functions by name.

import fs from 'node:fs';
import path from 'node:path';
import {
  closeBrowser, DIST, launchChromium, machineInfo, observeLongTasks, OUT, poll, printMachine, recorder, serveDist, settle,
  SHARED_VIEWS, sleep, watchPage, withModel,
} from './harness.mjs';
import { attribute, startProfile } from './longtask_profile.mjs';

const MODEL = process.argv[2] ?? 'SmolLM2-135M-Instruct.Q4_1';
const SIZE = { width: 1280, height: 800 };

const { record, finish } = recorder('longtasks');
const json = async (page, fn) => JSON.parse((await page.evaluate(fn)) || 'null');

/** Long tasks that began at or after `since` (ms on the page's clock), and the page's now. */
async function tasksSince(page, since) {
  return page.evaluate((t0) => ({
    tasks: window.__longTasks.filter(([start]) => start >= t0),
    now: performance.now(),
  }), since);
}

const summary = (tasks) => ({
  count: tasks.length,
  longest_ms: Math.round(Math.max(0, ...tasks.map(([, d]) => d))),
  total_ms: Math.round(tasks.reduce((s, [, d]) => s + d, 0)),
});

/** Waits until the page computes nothing, then lets it draw. */
async function quiet(page) {
  await settle(page, 120000);
  await sleep(800);
}

async function main() {
  const server = await serveDist(DIST);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const consoleLines = [];
  const errors = [];
  const { context, profile } = await launchChromium(1);
  const machine = machineInfo();
  printMachine(machine);
  const out = { model: MODEL, machine, phases: [] };
  try {
    await context.addInitScript(observeLongTasks);
    const page = context.pages()[0] ?? (await context.newPage());
    // PROFILE=1: the page's CPU profile, cut at each long task (on a page of the same origin
    // first, so the profile spans the app's start; its favicon's 404 is not the app's).
    let stopProfile = null;
    if (process.env.PROFILE === '1') {
      await page.goto(`${base}manifest.webmanifest`);
      stopProfile = await startProfile(context, page);
    }
    watchPage(page, consoleLines, errors);
    await page.setViewportSize(SIZE);
    // Phase 1: from navigation until the model is open and its first view drawn, as a link
    // to it opens (the files come from the served folder, as on a first visit).
    await page.goto(`${base}#v=1&view=attention&model=${MODEL}`, { waitUntil: 'load' });
    const ready = await poll(async () => {
      const m = (await json(page, () => window.wasmBindings?.glimpse_models?.())) ?? [];
      return m.find((x) => x.name === MODEL && x.state !== 'loading');
    }, 180000, 100);
    if (!record(`${MODEL} opens`, ready?.state === 'ready', `${ready?.state} ${ready?.error ?? ''}`)) return;
    // The conversion's frames as the app timed them: which piece held the page longest.
    out.conversion = ready.conversion_frames ?? [];
    for (const f of out.conversion.filter((f) => f.longest_piece_ms > 50)) {
      console.log(`longtasks: conversion piece over 50 ms: ${f.longest_piece} ${f.longest_piece_ms.toFixed(0)} ms`);
    }
    const opened = await page.evaluate(() => performance.now());
    await quiet(page);
    const drawn = await tasksSince(page, 0);
    const before = drawn.tasks.filter(([s]) => s < opened);
    const after = drawn.tasks.filter(([s]) => s >= opened);
    out.phases.push({ phase: 'navigation until the model is open', ...summary(before), tasks: before });
    out.phases.push({ phase: 'its first view computed and drawn', ...summary(after), tasks: after });
    // Phase 2: every view on the shared model, each opened by its link (only the hash changes).
    const every = (await page.evaluate(() => window.wasmBindings.glimpse_every_view())) ?? '';
    const views = every.split('\n').filter((v) => SHARED_VIEWS.test(v));
    record('the views on the shared model are listed', views.length >= 10, `${views.length} views`);
    for (const view of views) {
      const link = withModel(view, MODEL);
      const t0 = await page.evaluate(() => performance.now());
      await page.evaluate((h) => { window.location.hash = h; }, `v=1&${link}`);
      await poll(() => page.evaluate(() => window.location.hash.includes('&src=')), 5000, 50);
      await quiet(page);
      const { tasks } = await tasksSince(page, t0);
      out.phases.push({ phase: view.replace(/&src=.*/, ''), ...summary(tasks), tasks });
    }
    if (stopProfile) {
      const profiled = await stopProfile(page);
      // DevTools opens it (Performance, load profile); pageZeroUs maps the page's clock onto it.
      fs.mkdirSync(OUT, { recursive: true });
      fs.writeFileSync(path.join(OUT, 'longtasks.cpuprofile'), JSON.stringify(profiled.profile));
      out.profile_page_zero_us = profiled.pageZeroUs;
      for (const p of out.phases) {
        p.profile = attribute(profiled, p.tasks);
        for (const t of p.profile) {
          console.log(`longtasks: ${p.phase}: task at ${t.start} ms, ${t.duration} ms\n  self:   ${t.self?.join('\n          ')}\n  inside: ${t.inside?.join('\n          ')}`);
        }
      }
    }
    const all = out.phases.flatMap((p) => p.tasks);
    out.all = summary(all);
    for (const p of out.phases) {
      console.log(`longtasks: ${String(p.count).padStart(3)} over 50 ms, longest ${String(p.longest_ms).padStart(4)} ms, ${String(p.total_ms).padStart(5)} ms in all: ${p.phase}`);
    }
    console.log(`longtasks: in all ${out.all.count} long tasks, the longest ${out.all.longest_ms} ms, ${out.all.total_ms} ms (${machine.cpu})`);
    record('the measurement ran', out.phases.length > 2);
  } catch (e) {
    record('measurement', false, e.stack || String(e));
  } finally {
    fs.mkdirSync(OUT, { recursive: true });
    fs.writeFileSync(path.join(OUT, 'longtasks.json'), JSON.stringify(out, null, 1));
    await closeBrowser({
      record, errors, consoleLines, logFile: path.join(OUT, 'longtasks-console.log'), context, server, profile,
    });
  }
}

await main().catch((e) => record('measurement', false, e.stack || String(e)));
finish();
