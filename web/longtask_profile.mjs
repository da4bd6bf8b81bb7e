// Where each long task of the page's thread went: a CPU profile of the page (CDP `Profiler`)
// recorded while web/bench_longtasks.mjs runs (`PROFILE=1`), its samples cut at every long
// task and summed by function. Function names in the wasm need a build that keeps them:
// `bash scripts/web_names.sh DIR` writes one (docs/benchmarks.md, responsiveness).

/** Starts the profiler on `page` (before it navigates to the app: the same origin keeps the
 * renderer, so the profile spans the app's start). Returns `stop(page)`, which ends it and
 * gives the profile with `pageZeroUs`: the page's `performance.now()` zero on the profile's
 * clock, found from a marker function busy for 30 ms, whose first sample is its start. */
export async function startProfile(context, page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
  await cdp.send('Profiler.start');
  return async function stop(livePage) {
    const markedAt = await livePage.evaluate(
      '(function glimpseProfileMark() { const t = performance.now(); while (performance.now() < t + 30) {} return t; })()',
    );
    const { profile } = await cdp.send('Profiler.stop');
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    let t = profile.startTime;
    let markUs = null;
    const times = profile.timeDeltas.map((d) => (t += d));
    const up = parents(profile);
    for (let i = 0; i < profile.samples.length && markUs === null; i += 1) {
      for (let at = profile.samples[i]; at !== undefined; at = up.get(at)) {
        if (byId.get(at).callFrame.functionName === 'glimpseProfileMark') markUs = times[i];
      }
    }
    return { profile, times, pageZeroUs: markUs === null ? null : markUs - markedAt * 1000 };
  };
}

function parents(profile) {
  const up = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) up.set(c, n.id);
  return up;
}

const IDLE = new Set(['(idle)', '(program)', '(root)', '(garbage collector)']);

/** For each long task `[start, duration]` (page ms): the functions that held it, by self time
 * and by time inside them (the frames named as the code names them), the top `n` of each. */
export function attribute({ profile, times, pageZeroUs }, tasks, n = 8) {
  if (pageZeroUs === null) return tasks.map(() => ({ note: 'no marker in the profile' }));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const up = parents(profile);
  const name = (id) => {
    const f = byId.get(id).callFrame;
    return f.functionName || `(anonymous ${f.url.split('/').pop()}:${f.lineNumber})`;
  };
  const top = (m, count = n) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, count)
    .map(([k, us]) => `${(us / 1000).toFixed(1)} ms ${k.slice(0, 140)}`);
  return tasks.map(([start, duration]) => {
    const from = pageZeroUs + start * 1000;
    const to = from + duration * 1000;
    const self = new Map();
    const inside = new Map();
    for (let i = 0; i < profile.samples.length; i += 1) {
      if (times[i] < from || times[i] > to) continue;
      const dt = (times[i + 1] ?? times[i]) - times[i];
      const id = profile.samples[i];
      if (IDLE.has(name(id))) continue;
      self.set(name(id), (self.get(name(id)) ?? 0) + dt);
      const seen = new Set();
      for (let at = id; at !== undefined; at = up.get(at)) {
        const k = name(at);
        if (seen.has(k) || IDLE.has(k)) continue;
        seen.add(k);
        inside.set(k, (inside.get(k) ?? 0) + dt);
      }
    }
    return { start: Math.round(start), duration: Math.round(duration), self: top(self), inside: top(inside, n * 3) };
  });
}
