// Checks that a screenshot really shows the heatmap the app says it drew.
//
//   node web/check_shot.mjs SHOT.png PROBE.json [offsetX offsetY]
//
// PROBE.json is the app's test-hook JSON (see README / scripts): heatmap.rect is in egui points
// relative to the canvas (web) or the window's client area (native); pixels_per_point scales it to
// screen pixels; offsetX/offsetY (screen pixels) is where that canvas/client area starts in the
// screenshot. Two checks:
//   1. not blank: the screenshot has at least MIN_COLORS distinct colours;
//   2. pixels: for each heatmap cell, the pixel at the cell centre matches the probe's cell colour
//      within TOLERANCE per channel (or, when a label covers the centre, 3 of the 4 points halfway
//      to the corners do), for at least MIN_MATCH of the cells.
// Exit status 0 when both pass; 1 with a clear message otherwise; 2 on bad usage or input.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';

export const TOLERANCE = Number(process.env.SHOT_TOLERANCE ?? 12);
export const MIN_MATCH = Number(process.env.SHOT_MIN_MATCH ?? 0.95);
export const MIN_COLORS = Number(process.env.SHOT_MIN_COLORS ?? 32);

export function readPng(file) {
  return PNG.sync.read(fs.readFileSync(file));
}

export function pixelAt(png, x, y) {
  const i = (png.width * y + x) << 2;
  return [png.data[i], png.data[i + 1], png.data[i + 2], png.data[i + 3]];
}

/** How many distinct RGB colours a PNG has (counting stops past 100 000). */
export function distinctColours(png) {
  const seen = new Set();
  for (let i = 0; i < png.data.length; i += 4) {
    seen.add((png.data[i] << 16) | (png.data[i + 1] << 8) | png.data[i + 2]);
    if (seen.size > 100000) break;
  }
  return seen.size;
}

/** Validates the probe's shape; returns a list of problems (empty when fine). */
export function probeProblems(probe) {
  const problems = [];
  if (!probe || typeof probe !== 'object') return ['probe is not a JSON object'];
  const hm = probe.heatmap;
  if (!(probe.pixels_per_point > 0)) problems.push(`pixels_per_point is ${probe.pixels_per_point}`);
  if (!hm || typeof hm !== 'object') return [...problems, 'probe has no heatmap object'];
  const { rect, rows, cols, colors } = hm;
  if (!Array.isArray(rect) || rect.length !== 4 || !rect.every(Number.isFinite)) {
    problems.push(`heatmap.rect is not [x0, y0, x1, y1]: ${JSON.stringify(rect)}`);
  } else if (!(rect[2] > rect[0] && rect[3] > rect[1])) {
    problems.push(`heatmap.rect is empty: ${JSON.stringify(rect)}`);
  }
  if (!(Number.isInteger(rows) && rows > 0 && Number.isInteger(cols) && cols > 0)) {
    problems.push(`heatmap rows/cols invalid: ${rows}x${cols}`);
  } else if (!Array.isArray(colors) || colors.length !== rows ||
    !colors.every((row) => Array.isArray(row) && row.length === cols &&
      row.every((c) => Array.isArray(c) && c.length >= 3))) {
    problems.push(`heatmap.colors is not a ${rows}x${cols} array of [r,g,b]`);
  }
  return problems;
}

/**
 * Runs both checks. Returns { ok, checks: [{name, ok, detail}] }.
 * offsetX/offsetY: screen pixels from the screenshot's top-left to the canvas' top-left.
 */
export function checkShot(png, probe, offsetX = 0, offsetY = 0) {
  const checks = [];

  // 1. Not blank.
  const colours = distinctColours(png);
  checks.push({
    name: 'screenshot is not blank',
    ok: colours >= MIN_COLORS,
    detail: `${colours} distinct colours (need >= ${MIN_COLORS}) in ${png.width}x${png.height}`,
  });

  // 2. Heatmap cells.
  const problems = probeProblems(probe);
  if (problems.length) {
    checks.push({ name: 'heatmap pixels match the probe', ok: false, detail: problems.join('; ') });
    return { ok: false, checks };
  }
  const ppp = probe.pixels_per_point;
  const { rect, rows, cols, colors } = probe.heatmap;
  const [x0, y0, x1, y1] = rect;
  const cw = (x1 - x0) / cols;
  const ch = (y1 - y0) / rows;
  // Screen pixel of the point at fractions (fx, fy) inside cell (r, c).
  const at = (r, c, fx, fy) => [
    Math.floor((x0 + (c + fx) * cw) * ppp + offsetX),
    Math.floor((y0 + (r + fy) * ch) * ppp + offsetY),
  ];
  const inside = ([x, y]) => x >= 0 && y >= 0 && x < png.width && y < png.height;
  const diffAt = ([x, y], want) => {
    const got = pixelAt(png, x, y);
    return { got, diff: Math.max(...[0, 1, 2].map((k) => Math.abs(got[k] - want[k]))) };
  };
  let matched = 0;
  let byQuarters = 0;
  let outside = 0;
  const mismatches = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const want = colors[r][c];
      const centre = at(r, c, 0.5, 0.5);
      if (!inside(centre)) {
        outside++;
        if (mismatches.length < 8) mismatches.push(`cell (${r},${c}) centre (${centre}) is outside the screenshot`);
        continue;
      }
      const { got, diff } = diffAt(centre, want);
      if (diff <= TOLERANCE) {
        matched++;
        continue;
      }
      // Text drawn over the cell (a value label) can cover its centre: then accept the cell when
      // at least 3 of the 4 points halfway between the centre and the corners match. (Cells
      // smaller than 4 px have no such distinct points; they are judged by the centre alone.)
      if (cw * ppp >= 4 && ch * ppp >= 4) {
        const quarters = [[0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]]
          .map(([fx, fy]) => at(r, c, fx, fy))
          .filter((p) => inside(p) && diffAt(p, want).diff <= TOLERANCE).length;
        if (quarters >= 3) {
          matched++;
          byQuarters++;
          continue;
        }
      }
      if (mismatches.length < 8) {
        mismatches.push(`cell (${r},${c}) centre (${centre}): got rgb(${got.slice(0, 3)}) want rgb(${want.slice(0, 3)}) (diff ${diff})`);
      }
    }
  }
  const total = rows * cols;
  const frac = matched / total;
  let detail = `${matched}/${total} cells (${(100 * frac).toFixed(1)}%, need ${(100 * MIN_MATCH).toFixed(0)}%) ` +
    `within ${TOLERANCE}/channel; ${rows}x${cols} cells, rect ${JSON.stringify(rect)} pt, ` +
    `pixels_per_point ${ppp}, offset (${offsetX},${offsetY})`;
  if (byQuarters) detail += `; ${byQuarters} of them by the quarter points (centre covered, e.g. by a label)`;
  if (outside) detail += `; ${outside} cell centres outside the ${png.width}x${png.height} screenshot`;
  if (mismatches.length && frac < MIN_MATCH) detail += '\n    ' + mismatches.join('\n    ');
  checks.push({ name: 'heatmap pixels match the probe', ok: frac >= MIN_MATCH, detail });

  return { ok: checks.every((c) => c.ok), checks };
}

export function printChecks(label, result) {
  for (const c of result.checks) {
    console.log(`${label}: ${c.ok ? 'PASS' : 'FAIL'} ${c.name}: ${c.detail}`);
  }
}

function main(argv) {
  if (argv.length !== 2 && argv.length !== 4) {
    console.error('usage: node web/check_shot.mjs SHOT.png PROBE.json [offsetX offsetY]');
    return 2;
  }
  const [shot, probeFile] = argv;
  const offX = argv.length === 4 ? Number(argv[2]) : 0;
  const offY = argv.length === 4 ? Number(argv[3]) : 0;
  if (!Number.isFinite(offX) || !Number.isFinite(offY)) {
    console.error(`check_shot: offsets must be numbers, got ${argv[2]} ${argv[3]}`);
    return 2;
  }
  let png;
  let probe;
  try {
    png = readPng(shot);
  } catch (e) {
    console.error(`check_shot: cannot read PNG ${shot}: ${e.message}`);
    return 2;
  }
  try {
    probe = JSON.parse(fs.readFileSync(probeFile, 'utf8'));
  } catch (e) {
    console.error(`check_shot: cannot read probe JSON ${probeFile}: ${e.message}`);
    return 2;
  }
  const result = checkShot(png, probe, offX, offY);
  printChecks(`check_shot ${path.basename(shot)}`, result);
  if (!result.ok) {
    console.error(`check_shot: FAILED: ${shot} does not show the heatmap described by ${probeFile}`);
    return 1;
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
