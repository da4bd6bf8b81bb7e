// What a screen reader finds in the web build, in headless Chromium: the page's accessibility
// tree (CDP Accessibility.getFullAXTree, what assistive technology is given) names every tab,
// the sentence's text field, the sliders and the tokens on screen; a screen reader's actions
// (a click on a tab, a new value for the sentence) reach the app; Tab moves the app's focus and
// the canvas points at the focused element; a heatmap is a table of its weights, and the
// keyboard walks its cells, said by a live region; a plot is a summary and a table; `?` lists
// every shortcut; a lesson and a beam search are done with the keyboard alone; and axe-core finds
// no serious or critical violation on any view of the every-view walk.
//   node web/e2e_a11y.mjs                   (after `trunk build --release`)
//   GLIMPSE_LANG=es node web/e2e_a11y.mjs   the same in a Chromium whose language is Spanish:
//                                           every name is looked for in Spanish
//                                           (assets/locales/es), and the page must say lang=es
import fs from 'node:fs';
import path from 'node:path';
import { pixelAt, readPng } from './check_shot.mjs';
import { closeBrowser, DIST, launchChromium, OUT, poll, recorder, REPO, serveDist, sleep, watchPage } from './harness.mjs';
import { numbered, translator } from './locale.mjs';

const AXE = fs.readFileSync(path.join(REPO, 'web', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const LAYER = '#glimpse_a11y';
// The language the browser asks for, and so the app's; names are looked for in it.
const LANG = process.env.GLIMPSE_LANG || 'en';
const T = translator(LANG);
const BROWSER_LOCALE = { en: 'en-US', es: 'es-ES' }[LANG] ?? LANG;
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The accessibility tree as [role, name, value, focused] rows, ignored nodes left out.
async function axTree(cdp) {
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  return nodes
    .filter((n) => !n.ignored)
    .map((n) => ({
      role: n.role?.value ?? '',
      name: n.name?.value ?? '',
      value: n.value?.value ?? '',
      focused: (n.properties ?? []).some((p) => p.name === 'focused' && p.value.value),
    }));
}

// A node of `role` named `name` (each a string to match exactly, or a RegExp).
const matches = (want, got) => (typeof want === 'string' ? got === want : want.test(got));
const has = (tree, role, name) => tree.some((n) => matches(role, n.role) && matches(name, n.name));

async function main() {
  const { record, finish } = recorder(LANG === 'en' ? 'e2e_a11y' : `e2e_a11y (${LANG})`);
  const server = await serveDist(DIST);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const consoleLines = [];
  const errors = [];
  const { context, profile } = await launchChromium(1, [], BROWSER_LOCALE);
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    watchPage(page, consoleLines, errors);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${base}#v=1&view=attention`, { waitUntil: 'load' });
    const views = await poll(() => page.evaluate(() => window.wasmBindings?.glimpse_every_view?.()), 60000);
    if (!record('the app starts', !!views)) return;
    const cdp = await context.newCDPSession(page);
    await cdp.send('Accessibility.enable');
    // The language comes from the browser: the page says which, for a screen reader's voice.
    // The app sets it when eframe has started it, which may follow the test hooks.
    const said = await poll(() => page.evaluate((l) => document.documentElement.lang === l, LANG), 5000, 100);
    const htmlLang = said ? LANG : await page.evaluate(() => document.documentElement.lang);
    record(`the app speaks the browser's language (<html lang=${LANG}>)`, htmlLang === LANG, htmlLang);
    const tabs = ['shell-tab-lessons', 'tab-attention', 'tab-heads', 'tab-influence', 'tab-training'].map((k) => T.say(k));
    let tree = await poll(async () => {
      const t = await axTree(cdp);
      // The view's controls arrive once the model has run (a frame or two after the tabs), its
      // weights and their table once the pass is back from the engine worker (frames later).
      return tabs.every((name) => has(t, 'button', name)) && has(t, 'slider', T.say('workbench-layer'))
        && has(t, 'StaticText', T.like('attention-head-readout')) && has(t, 'table', /./) && t;
    }, 30000, 250);
    if (!record('the tabs are buttons a screen reader names', !!tree, tabs.join(', '))) tree = await axTree(cdp);
    const named = tree.filter((n) => n.name).length;
    record('the tree is more than the canvas', named >= 40, `${tree.length} nodes, ${named} named`);
    record('the open tab is pressed', await page.locator(`${LAYER} [role=button][aria-label="${T.say('tab-attention')}"]`).getAttribute('aria-pressed') === 'true');
    // The default model translates: the encoder's sentence and the decoder's, named by their labels.
    const source = tree.find((n) => n.role === 'textbox' && n.name === T.say('workbench-source'));
    record('the source sentence is a named text field with its words', /économique/.test(source?.value ?? ''), JSON.stringify(source));
    // The view's sliders, and the left panel's divider ("Resize panel") as a range too.
    const sliders = tree.filter((n) => n.role === 'slider');
    record('the sliders are named ranges', sliders.length > 0 && sliders.every((s) => s.name), JSON.stringify(sliders.slice(0, 4)));
    record('the weights are read as text', has(tree, 'StaticText', T.like('attention-head-readout')) && has(tree, 'StaticText', /0\.\d\d/));
    // The heatmap's numbers as a table: its tokens the headers, its weights the cells.
    record('the heatmap is a table with the tokens as headers', has(tree, 'table', new RegExp(escape(T.say('widgets-heatmap-caption', { what: '', row_axis: T.say('attention-axis-query'), column_axis: T.say('attention-axis-key') }).replace(/^:\s*/, ''))))
      && has(tree, 'columnheader', /économique/) && has(tree, 'rowheader', /european/) && tree.filter((n) => n.role === 'cell').length >= 16);

    // Another head keeps the heatmap's shape and changes its numbers: the table is rewritten
    // in place (the same cells), and reads as the table a fresh page builds for that head.
    const tables = (p) => p.evaluate((l) => [...document.querySelectorAll(`${l} table`)].map((t) => t.textContent).join('\n'), LAYER);
    const before = await tables(page);
    await page.evaluate((l) => { for (const c of document.querySelectorAll(`${l} table td`)) c.dataset.kept = '1'; }, LAYER);
    const other = 'v=1&view=attention&head=3';
    await page.evaluate((h) => { window.location.hash = h; }, other);
    const after = await poll(async () => { const t = await tables(page); return t !== before && t; }, 15000, 200);
    const kept = await page.evaluate((l) => [...document.querySelectorAll(`${l} table td`)].some((c) => c.dataset.kept === '1'), LAYER);
    const anew = await context.newPage();
    await anew.setViewportSize({ width: 1280, height: 800 });
    await anew.goto(`${base}#${other}`, { waitUntil: 'load' });
    const same = await poll(async () => (await tables(anew)) === (await tables(page)), 30000, 250);
    record('a table whose numbers change is rewritten in place and reads as one built anew', !!after && kept && !!same,
      `changed ${!!after}, same cells ${kept}, as a fresh page's ${!!same}`);
    await anew.close();

    // A screen reader's click on a tab: the DOM element gets a click event, the app opens it.
    await page.locator(`${LAYER} [role=button][aria-label="${T.say('shell-tab-lessons')}"]`).dispatchEvent('click');
    const opened = await poll(() => page.evaluate(() => window.location.hash.includes('view=lessons')), 10000, 100);
    record('a click on the mirrored "Lessons" tab opens the lessons', !!opened);
    await page.locator(`${LAYER} [role=button][aria-label="${T.say('tab-attention')}"]`).dispatchEvent('click');
    await poll(() => page.evaluate(() => window.location.hash.includes('view=attention')), 10000, 100);

    // A screen reader typing into the decoder's field: the app's input becomes it.
    const typed = 'the european area';
    const target = page.locator(`${LAYER} input[type=text][aria-label="${T.say('workbench-target')}"]`);
    if (record('the decoder\'s sentence is an <input> in the page', await target.count() === 1)) {
      await target.evaluate((el, v) => { el.value = v; el.dispatchEvent(new Event('input', { bubbles: true })); }, typed);
      const changed = await poll(() => page.evaluate((t) => decodeURIComponent(window.location.hash).includes(t), typed), 10000, 100);
      record('a new value for the field is the app\'s new sentence', !!changed);
      const after = await poll(async () => {
        const t = await axTree(cdp);
        return t.some((n) => n.role === 'textbox' && n.value === typed) && t;
      }, 10000, 250);
      record('the field reads the new sentence', !!after);
      // What a student types is text in the layer, never markup (its elements are made from
      // markup in one parse): a tag typed into the sentence is read out as typed.
      const hostile = 'the <b>zone</b> & "area"';
      const put = (v) => target.evaluate((el, x) => { el.value = x; el.dispatchEvent(new Event('input', { bubbles: true })); }, v);
      await put(hostile);
      const literal = await poll(() => page.evaluate(({ layer, piece }) => [...document.querySelectorAll(`${layer} p`)]
        .map((p) => p.textContent).find((t) => t.includes(piece) && t.includes('<unk>')), { layer: LAYER, piece: '“<b>zone</b>”' }), 10000, 100);
      const tags = await page.locator(`${LAYER} b`).count();
      record('typed markup is read as text, not made into elements', !!literal && tags === 0, `${literal ?? 'not found'}; <b> elements: ${tags}`);
      await put(typed);
      await poll(() => page.evaluate((t) => decodeURIComponent(window.location.hash).includes(t), typed), 10000, 100);
    }

    // Tab on the canvas moves egui's focus; the canvas names the focused element.
    await page.locator('#glimpse_canvas').focus();
    await page.keyboard.press('Tab');
    const active = await poll(() => page.evaluate(() => {
      const id = document.getElementById('glimpse_canvas').getAttribute('aria-activedescendant');
      const el = id && document.getElementById(id);
      return el && (el.getAttribute('aria-label') || el.textContent);
    }), 5000, 100);
    record('Tab focuses a control and the canvas points at it', !!active, active ?? '');

    // The keyboard in the heatmap: Tab to it, arrows to a cell, which a live region says;
    // Enter picks the cell's row as the query, as a click does.
    await page.goto(`${base}#v=1&view=attention`, { waitUntil: 'load' });
    await poll(() => page.evaluate(() => window.wasmBindings?.glimpse_every_view?.()), 60000);
    await page.locator('#glimpse_canvas').focus();
    const focusedName = () => page.evaluate(() => {
      const id = document.getElementById('glimpse_canvas').getAttribute('aria-activedescendant');
      return (id && document.getElementById(id)?.getAttribute('aria-label')) || '';
    });
    // Tab until the focused element's name passes `test`. Each press waits for the page to
    // name the new focus (a frame or two later), so the name read is the focus now.
    const tabTo = async (test, most = 150) => {
      for (let i = 0; i < most; i++) {
        const before = await focusedName();
        if (test(before)) return true;
        await page.keyboard.press('Tab');
        await poll(async () => (await focusedName()) !== before, 1000, 30);
      }
      return test(await focusedName());
    };
    const reached = await tabTo((n) => n.startsWith(T.say('widgets-heatmap-name', { context: '' }).trim()), 200);
    if (record('Tab reaches the heatmap', reached)) {
      for (const key of ['ArrowDown', 'ArrowDown', 'ArrowRight']) {
        await page.keyboard.press(key);
        await sleep(60);
      }
      // query 2 “european”, key 1 “zone”, value 0.xx, in the page's language.
      const cell = new RegExp(escape(T.say('widgets-heatmap-cell', {
        row_axis: T.say('attention-axis-query'), row: 2, row_token: 'european',
        column_axis: T.say('attention-axis-key'), column: 1, column_token: 'zone',
        value: T.say('widgets-heatmap-value', { value: '0.00' }),
      })).replace('0\\.00', '0\\.\\d\\d'));
      const keyOne = `${T.say('attention-axis-key')} 1`;
      const said = await poll(() => page.evaluate(([sel, k]) => {
        const t = document.querySelector(`${sel} [aria-live=polite]`)?.textContent ?? '';
        return t.includes(k) && t;
      }, [LAYER, keyOne]), 5000, 100);
      const now = await page.evaluate((sel) => [...document.querySelectorAll(`${sel} [aria-live]`)].map((e) => e.textContent).join(' | '), LAYER);
      record('the live region says the cell: query 2 "european", key 1 "zone", its weight', cell.test(said || ''), `${said || ''} (live regions: ${now}; focused: ${await focusedName()})`);
      await page.keyboard.press('Enter');
      const picked = await poll(() => page.evaluate(() => /[&#]q=2(&|$)/.test(window.location.hash)), 5000, 100);
      record('Enter makes the row the query', !!picked);
    }

    // A plot in words: its one-sentence summary, and its numbers as a table.
    await page.evaluate(() => { window.location.hash = 'v=1&view=cost'; });
    const plotted = await poll(async () => {
      const t = await axTree(cdp);
      const title = T.say('cost-plot-title');
      const summary = t.find((n) => n.name.startsWith(`${title}: “${T.say('cost-series-attention')}`));
      return summary && has(t, 'table', T.say('widgets-plot-caption', { title })) && summary.name;
    }, 10000, 250);
    record('a plot is read as a sentence and a table of its numbers', !!plotted, plotted || '');

    // The high-contrast theme from a link: the ground turns black as soon as the view opens
    // (the frame is laid out again with the new colours, with no input needed).
    await page.evaluate(() => { window.location.hash = 'v=1&view=cost&theme=contrast'; });
    await sleep(800);
    const shot = path.join(OUT, 'e2e_a11y_contrast.png');
    await page.screenshot({ path: shot });
    const png = readPng(shot);
    const corners = [[2, 2], [1277, 2], [2, 797], [1277, 797]].map(([x, y]) => pixelAt(png, x, y).slice(0, 3));
    const black = corners.filter((c) => c.every((v) => v === 0)).length;
    record('theme=contrast paints a black ground', black >= 3, `corners ${JSON.stringify(corners)}`);

    // The keyboard alone, from a fresh page: `?` lists the shortcuts, Escape closes the list.
    const fresh = async (hash) => {
      await page.goto(`${base}#${hash}`, { waitUntil: 'load' });
      await poll(() => page.evaluate(() => window.wasmBindings?.glimpse_every_view?.()), 60000);
      await page.locator('#glimpse_canvas').focus();
      await sleep(300);
    };
    const shortcutsShown = async () => has(await axTree(cdp), /heading|StaticText/, T.say('shortcuts-title'));
    await fresh('v=1&view=attention');
    await page.keyboard.press('Shift+Slash');
    const listed = await poll(shortcutsShown, 5000, 200);
    await page.keyboard.press('Escape');
    const closed = await poll(async () => !(await shortcutsShown()), 5000, 200);
    record('? lists every shortcut and Escape closes the list', !!listed && !!closed);

    // A whole lesson by keyboard: Tab to the Lessons tab, Enter, then Page Down through every
    // page of the first lesson to the second lesson's first page.
    const hashHas = (re) => poll(() => page.evaluate((src) => new RegExp(src).test(window.location.hash), re.source), 5000, 100);
    if (record('Tab reaches the Lessons tab', await tabTo((n) => n === T.say('shell-tab-lessons')))) {
      await page.keyboard.press('Enter');
      const inLessons = await hashHas(/view=lessons/);
      // "lesson.page" from the address bar, which the app keeps in step with the view.
      const where = () => page.evaluate(() => {
        const h = window.location.hash;
        return `${h.match(/[&#]lesson=(\d+)/)?.[1] ?? 0}.${h.match(/[&#]page=(\d+)/)?.[1] ?? 0}`;
      });
      let at = await where();
      const seen = [at];
      for (let i = 0; i < 12 && at !== '1.0'; i++) {
        await page.keyboard.press('PageDown');
        const next = await poll(async () => { const w = await where(); return w !== at && w; }, 3000, 50);
        if (!next) break;
        at = next;
        seen.push(at);
      }
      // 0.0, 0.1, …, 0.last, then 1.0: each page of the first lesson once, in order.
      const inOrder = seen.every((w, i) => i === 0 || w === (i < seen.length - 1 ? `0.${i}` : '1.0'));
      record('a whole lesson by Enter and Page Down alone', !!inLessons && seen[0] === '0.0' && at === '1.0' && inOrder && seen.length >= 3, `pages: ${seen.join(' → ')}`);
    }

    // A beam search by keyboard: Tab to the Decoding tab, Enter, Escape (the tab lets go of
    // the focus), → until the search is done; then Tab to the tree and ← to a box's parent.
    await fresh('v=1&view=attention&model=translate');
    if (record('Tab reaches the Decoding tab', await tabTo((n) => n === T.say('tab-decoding')))) {
      await page.keyboard.press('Enter');
      await hashHas(/view=decoding/);
      await page.keyboard.press('Escape');
      let finished = false;
      for (let i = 0; i < 30 && !finished; i++) {
        await page.keyboard.press('ArrowRight');
        await sleep(250);
        finished = has(await axTree(cdp), /StaticText|paragraph/, T.like('decoding-step-done'));
      }
      record('→ alone runs the beam search to the end', finished);
      // A box past the first step, so it has a parent.
      const boxStep = numbered(LANG, 'decoding-node-name', 'step');
      const step = (n) => Number((n || '').match(boxStep)?.[1]);
      const onBox = await tabTo((n) => step(n) >= 1, 200);
      const from = await focusedName();
      let to = from;
      if (onBox) {
        await page.keyboard.press('ArrowLeft');
        to = await poll(async () => { const n = await focusedName(); return n !== from && n; }, 3000, 100);
      }
      record('Tab reaches the beam tree and ← goes to the parent box', onBox && step(to) === step(from) - 1, `${from} → ${to}`);
    }

    // axe-core on every view: no serious or critical violation.
    const bad = [];
    const bare = [];
    for (const view of views.split('\n')) {
      await page.evaluate((h) => { window.location.hash = h; }, `v=1&${view}`);
      await poll(() => page.evaluate(() => window.location.hash.includes('&src=')), 5000, 50);
      await sleep(400);
      await page.evaluate(AXE);
      const found = await page.evaluate(async () => {
        const r = await window.axe.run(document, { resultTypes: ['violations'] });
        return r.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')} ${n.html.slice(0, 100)} ${n.failureSummary?.replace(/\s+/g, ' ').slice(0, 160)}`).join(' | ')}`);
      });
      if (found.length) bad.push(`${view}: ${found.join('; ')}`);
      // Every view's words and controls are in the page, not only the tabs (16 elements).
      const mirrored = await page.evaluate((sel) => document.querySelectorAll(`${sel} [id^='a11y-']`).length, LAYER);
      if (mirrored < 25) bare.push(`${view}: ${mirrored} elements`);
    }
    record('every view mirrors its words and controls (25 elements or more)', bare.length === 0, bare.join(', '));
    record(`axe-core: no serious or critical violation on ${views.split('\n').length} views`, bad.length === 0, `\n    ${bad.join('\n    ')}`);
    await sleep(300);
  } catch (e) {
    record('e2e_a11y', false, e.stack || String(e));
  } finally {
    await closeBrowser({ record, errors, consoleLines, logFile: path.join(OUT, 'e2e_a11y.log'), context, server, profile });
  }
  finish();
}

await main();
