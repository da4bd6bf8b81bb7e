// The packaged site (scripts/package.sh), hosted the ways a teacher would host it:
//  1. package.sh refuses bad input with a reason (no OUT, a folder that is not its own, no
//     build), packages without the real checkpoints, then again with them over its own folder;
//     the folder is self-contained (real files, no links), its URLs relative, its service
//     worker's precache list leaves out the hosts' own files;
//  (a) served by `python3 -m http.server` (no special headers) under a sub-path,
//      http://127.0.0.1:PORT/course/glimpse/: the app starts, every request stays under the
//      sub-path, the picker offers MiniLM and SmolLM2, MiniLM opens from the packaged files and
//      shows its attention; offline, a reload starts the app and MiniLM again from the service
//      worker's cache (the lecture hall without network);
//      A second copy of another build at /other/glimpse/ on the same server leaves the first
//      copy's offline cache alone;
//  (b) served at the root with the headers of the package's `_headers` applied (Netlify,
//      Cloudflare Pages): the headers arrive (application/wasm, caching, no rule sets a header
//      twice), the page is cross-origin isolated, and the same walk works under COOP/COEP;
//  (c) Apache 2.4 with the package's `.htaccess`, under the sub-path, and (d) nginx with the
//      lines docs/hosting.md gives: the headers arrive, the wasm gzipped, every precached file
//      loads, .htaccess is not served. Each only where apache2 / nginx is installed (else a SKIP line:
//      CI does not install them).
//
//   node web/e2e_package.mjs      (after `trunk build --release`, with the models fetched)
//
// Environment: DIST_DIR (the build to package, default <repo>/dist), OUT_DIR (default
// <repo>/web/out), CHROMIUM, PYTHON (default python3), APP_TIMEOUT_MS (default 60000).
// Writes OUT_DIR/package-*.log and package-*.png. Exit code non-zero on failure.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DIST, MIME, OUT, REPO, launchChromium, poll, recorder, watchPage } from './harness.mjs';

const { record, finish } = recorder('package');
const APP_TIMEOUT_MS = Number(process.env.APP_TIMEOUT_MS ?? 60000);
const PACKAGE = path.join(REPO, 'scripts', 'package.sh');
const SUB = '/course/glimpse/';
const MINILM = 'all-MiniLM-L6-v2';
const SERVED = [MINILM, 'SmolLM2-135M-Instruct.Q4_1'];
const MINILM_WEIGHTS = `models/hf/${MINILM}/model.safetensors`;
const OTHER = '/other/glimpse/';

/** The service worker's cache for a copy of the app in folder `scope` (web/pwa/sw.js). */
const cacheName = (scope, dir) =>
  `glimpse-${scope}-${/const VERSION = '([0-9a-f]+)'/.exec(fs.readFileSync(path.join(dir, 'sw.js'), 'utf8'))[1]}`;

/** package.sh with these arguments: exit status and what it printed. */
function packageSh(args) {
  const r = spawnSync('bash', [PACKAGE, ...args], { encoding: 'utf8', env: { ...process.env, GLIMPSE_SKIP_MODELS: '' } });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Every path under dir (relative), with its lstat. */
function walkFiles(dir, rel = '') {
  return fs.readdirSync(path.join(dir, rel)).flatMap((name) => {
    const p = path.join(rel, name);
    const st = fs.lstatSync(path.join(dir, p));
    return st.isDirectory() ? walkFiles(dir, p) : [{ path: p, st }];
  });
}

/** Rules of a Netlify / Cloudflare Pages `_headers` file: a path pattern (`*` matches
 * anything) followed by indented `Name: value` lines. */
function parseHeadersFile(text) {
  const rules = [];
  for (const line of text.split('\n')) {
    if (!line.trim() || line.trim().startsWith('#')) continue;
    if (!/^\s/.test(line)) {
      const re = new RegExp(`^${line.trim().split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
      rules.push({ pattern: line.trim(), re, headers: [] });
    } else {
      const m = /^\s+([^:]+):\s*(.*)$/.exec(line);
      if (!m || !rules.length) throw new Error(`_headers: cannot read line "${line}"`);
      rules.at(-1).headers.push([m[1].trim().toLowerCase(), m[2].trim()]);
    }
  }
  return rules;
}

/** A static host at the root of `site` that applies `_headers` the way Netlify does: the
 * headers of every matching rule; a header set by two rules is joined with a comma and noted
 * in `twice` (the file is written so that this never happens). */
function serveWithHeaders(site, rules, twice) {
  const server = http.createServer((req, res) => {
    const urlPath = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = path.resolve(site, '.' + (urlPath.endsWith('/') ? `${urlPath}index.html` : urlPath));
    if (!file.startsWith(site + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const headers = { 'content-type': MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream' };
    const setBy = {};
    for (const rule of rules.filter((r) => r.re.test(urlPath))) {
      for (const [name, value] of rule.headers) {
        if (setBy[name]) {
          twice.add(`${urlPath}: ${name} from ${setBy[name]} and ${rule.pattern}`);
          headers[name] = `${headers[name]}, ${value}`;
        } else {
          headers[name] = value;
        }
        setBy[name] = rule.pattern;
      }
    }
    res.writeHead(200, headers);
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** `python3 -m http.server` on `root` (the real interpreter, not a pyenv shim, so that killing
 * it stops the server); resolves with the process and its port. */
async function pythonServer(root, logFile) {
  const python = execFileSync(process.env.PYTHON ?? 'python3', ['-c', 'import sys; print(sys.executable)'],
    { encoding: 'utf8' }).trim();
  const child = spawn(python, ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', root],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  const log = fs.createWriteStream(logFile);
  child.stderr.pipe(log);
  const port = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`http.server did not start: ${out}`)), 15000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /port (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on('exit', (code) => reject(new Error(`http.server exited (${code}): ${out}`)));
  });
  return { child, port };
}

/** A TCP port free right now on 127.0.0.1 (for servers that cannot pick their own). */
async function freePort() {
  const srv = net.createServer();
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address();
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** Start a server in the foreground and wait until it answers on `port`. */
async function startServer(cmd, args, port, logFile) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const log = fs.createWriteStream(logFile);
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  let exited = null;
  child.on('exit', (code) => { exited = code; });
  const up = await poll(async () => {
    if (exited !== null) throw new Error('exited');
    await fetch(`http://127.0.0.1:${port}/`);
    return true;
  }, 15000, 100);
  if (!up) {
    child.kill();
    throw new Error(`${cmd} did not start (exit ${exited}); see ${logFile}`);
  }
  return child;
}

/** A real web server's answers for the site at `base` (ending in the sub-path): the headers a
 * host should send, every file the service worker precaches, the weights, .htaccess kept private. */
async function checkHost(label, base, site) {
  const precache = JSON.parse(/const PRECACHE = (\[[^\]]*\])/.exec(fs.readFileSync(path.join(site, 'sw.js'), 'utf8'))[1]);
  const wasm = fs.readdirSync(site).find((f) => f.endsWith('_bg.wasm'));
  const [index, w, sw, list] = await Promise.all(['', wasm, 'sw.js', 'models/served.json'].map((p) => fetch(base + p)));
  const got = {
    index: [index.status, index.headers.get('content-type'), index.headers.get('cross-origin-opener-policy'),
      index.headers.get('cross-origin-embedder-policy'), index.headers.get('cache-control')],
    wasm: [w.status, w.headers.get('content-type'), w.headers.get('cache-control'), w.headers.get('content-encoding')],
    sw: sw.headers.get('cache-control'),
    served: list.headers.get('cache-control'),
  };
  await Promise.all([index, w, sw, list].map((r) => r.arrayBuffer()));
  record(`${label}: index.html isolated and not cached, the wasm as application/wasm, gzipped, cached a year`,
    got.index[0] === 200 && /^text\/html/.test(got.index[1]) && got.index[2] === 'same-origin' && got.index[3] === 'require-corp' &&
    got.index[4] === 'no-cache' && got.wasm[0] === 200 && got.wasm[1] === 'application/wasm' &&
    /max-age=31536000/.test(got.wasm[2]) && got.wasm[3] === 'gzip' && got.sw === 'no-cache' && got.served === 'no-cache',
    JSON.stringify(got));
  const failed = [];
  for (const f of precache) {
    const r = await fetch(base + f);
    await r.arrayBuffer();
    if (r.status !== 200 || r.headers.get('cross-origin-embedder-policy') !== 'require-corp') failed.push(`${f}: ${r.status}`);
  }
  const weights = await fetch(base + MINILM_WEIGHTS, { method: 'HEAD' });
  const size = fs.statSync(path.join(site, MINILM_WEIGHTS)).size;
  // The server's own configuration stays private (the marker .glimpse-package may be read).
  const hidden = (await fetch(base + '.htaccess')).status;
  record(`${label}: every precached file and MiniLM's weights load; .htaccess is not served`,
    failed.length === 0 && weights.status === 200 && Number(weights.headers.get('content-length')) === size &&
    (hidden === 403 || hidden === 404),
    `${precache.length} files${failed.length ? `, failed: ${failed.join(', ')}` : ''}; weights HTTP ${weights.status} ` +
    `${weights.headers.get('content-length')} B; .htaccess: HTTP ${hidden}`);
}

/** (c) Apache 2.4 serving `www`, reading the package's .htaccess with the overrides Debian
 * allows in users' web folders (~user/public_html). */
async function apache(www, tmp) {
  const bin = ['/usr/sbin/apache2', '/usr/sbin/httpd'].find((b) => fs.existsSync(b));
  const mods = ['/usr/lib/apache2/modules', '/usr/lib64/httpd/modules'].find((d) => fs.existsSync(path.join(d ?? '', 'mod_headers.so')));
  if (!bin || !mods) {
    console.log('package: SKIP (c) Apache: apache2 is not installed');
    return null;
  }
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(tmp, 'apache-'));
  const load = ['mpm_event', 'authz_core', 'mime', 'dir', 'headers', 'filter', 'deflate']
    .map((m) => `LoadModule ${m}_module ${mods}/mod_${m}.so`).join('\n');
  const root = process.getuid?.() === 0 ? 'User www-data\nGroup www-data' : '';
  fs.writeFileSync(path.join(dir, 'httpd.conf'), `${load}
ServerRoot ${dir}
DefaultRuntimeDir ${dir}
PidFile ${dir}/httpd.pid
ErrorLog ${dir}/error.log
ServerName 127.0.0.1
Listen 127.0.0.1:${port}
${root}
TypesConfig /etc/mime.types
DirectoryIndex index.html
DocumentRoot ${www}
<Directory />
    AllowOverride None
    Require all denied
</Directory>
<Directory ${www}>
    AllowOverride FileInfo AuthConfig Limit Indexes
    Require all granted
</Directory>
<Files ".ht*">
    Require all denied
</Files>
`);
  const child = await startServer(bin, ['-f', path.join(dir, 'httpd.conf'), '-DFOREGROUND'], port, path.join(OUT, 'package-apache.log'));
  return { stop: () => child.kill(), base: `http://127.0.0.1:${port}${SUB}` };
}

/** (d) nginx with the lines docs/hosting.md gives (its ```nginx block: the map for the http
 * block, then the location), the folder and the sub-path put in. */
async function nginx(www, tmp) {
  if (!fs.existsSync('/usr/sbin/nginx')) {
    console.log('package: SKIP (d) nginx: nginx is not installed');
    return null;
  }
  const docs = fs.readFileSync(path.join(REPO, 'docs', 'hosting.md'), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(docs)?.[1];
  const at = block ? block.search(/^location /m) : -1;
  if (at < 0) {
    record('(d) docs/hosting.md has the nginx lines (a map, then a location)', false, 'no ```nginx block with a location');
    return null;
  }
  const fill = (t) => t.replaceAll('/srv/www', www).replaceAll('/glimpse/', SUB);
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(tmp, 'nginx-'));
  const temps = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `${t}_temp_path ${dir}/${t};`).join('\n  ');
  fs.writeFileSync(path.join(dir, 'nginx.conf'), `${process.getuid?.() === 0 ? 'user www-data;' : ''}
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  ${temps}
${fill(block.slice(0, at))}
  server {
    listen 127.0.0.1:${port};
${fill(block.slice(at))}
  }
}
`);
  const child = await startServer('/usr/sbin/nginx', ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', path.join(dir, 'nginx.conf')],
    port, path.join(OUT, 'package-nginx.log'));
  return { stop: () => child.kill(), base: `http://127.0.0.1:${port}${SUB}` };
}

/** The app at `url` in a fresh Chromium: it starts, offers the real checkpoints, opens MiniLM
 * from the site, and (with `offline`) starts again offline. Checks prefixed with `label`. */
async function walk(label, url, options = {}) {
  // A walk that breaks is one failure: the other hosts are still checked.
  await walkIn(label, url, options).catch((e) => record(`${label}: the walk ran`, false, e.stack || String(e)));
}

async function walkIn(label, url, { offline = false, isolated = false, secondCopy = null }) {
  const origin = new URL(url).origin;
  const prefix = new URL(url).pathname;
  const lines = [];
  const errors = [];
  const requests = [];
  const { context, profile } = await launchChromium(1);
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    watchPage(page, lines, errors);
    page.on('response', (r) => requests.push({ url: r.url(), status: r.status(), sw: r.fromServiceWorker() }));
    const call = (fn) => page.evaluate((f) => window.wasmBindings?.[f]?.() ?? '', fn);
    const probe = async () => JSON.parse((await call('glimpse_probe')) || 'null');
    const model = async (name) => JSON.parse((await call('glimpse_models')) || '[]').find((m) => m.name === name);
    const minilmShown = () => poll(async () => {
      const m = await model(MINILM);
      const p = await probe();
      return m?.state === 'ready' && p?.model === MINILM && p.heatmap?.rows > 0 ? { m, p } : m?.state === 'failed' ? { m } : null;
    }, 120000);

    const t0 = Date.now();
    const resp = await page.goto(url, { waitUntil: 'load', timeout: APP_TIMEOUT_MS });
    const started = await poll(probe, APP_TIMEOUT_MS);
    if (!record(`${label}: the app starts at ${url}`, resp?.ok() && !!started,
      `HTTP ${resp?.status()}, first frame after ${((Date.now() - t0) / 1000).toFixed(1)} s`)) return;

    const offered = JSON.parse((await poll(async () => {
      const s = await call('glimpse_served');
      return s && s !== '[]' ? s : null;
    }, 20000)) || '[]');
    record(`${label}: the picker offers both real models`,
      SERVED.every((n) => offered.some((o) => o.name === n && o.bytes > 1e6)), JSON.stringify(offered));

    await page.evaluate((m) => { window.location.hash = `v=1&view=attention&model=${m}`; }, MINILM);
    let shown = await minilmShown();
    const weights = requests.find((r) => r.url === `${origin}${prefix}${MINILM_WEIGHTS}`);
    record(`${label}: MiniLM opens from the packaged files and shows its attention`,
      shown?.m?.state === 'ready' && shown.m.layers === 6 && shown.m.heads === 12 && !!shown.p && weights?.status === 200,
      `${JSON.stringify(shown?.m, ['state', 'architecture', 'layers', 'heads', 'error'])}; heatmap ${shown?.p?.heatmap?.rows}×${shown?.p?.heatmap?.cols}; ` +
      `${MINILM_WEIGHTS}: ${weights ? `HTTP ${weights.status}` : 'never requested'}`);
    await page.screenshot({ path: path.join(OUT, `package-${label}.png`) });

    // Relative URLs: nothing may be asked of the host outside the folder the site is in.
    const outside = requests.filter((r) => r.url.startsWith(origin) && !r.url.startsWith(origin + prefix));
    record(`${label}: every request stays under ${prefix}`, outside.length === 0 && requests.length > 5,
      outside.length ? outside.slice(0, 5).map((r) => `${r.url} (HTTP ${r.status})`).join(', ') : `${requests.length} requests`);

    const coi = await page.evaluate(() => self.crossOriginIsolated);
    record(`${label}: ${isolated ? 'cross-origin isolated (SharedArrayBuffer available)' : 'not isolated without the headers, and it does not need to be'}`,
      coi === isolated && (await page.evaluate(() => typeof SharedArrayBuffer === 'function')) === isolated,
      `crossOriginIsolated ${coi}`);

    if (offline) {
      const sw = await poll(() => page.evaluate(() => navigator.serviceWorker?.controller?.scriptURL ?? ''), 30000);
      record(`${label}: the service worker controls the page from the sub-path`, sw === `${origin}${prefix}sw.js`, sw || 'none');
      await context.setOffline(true);
      const before = requests.length;
      const t1 = Date.now();
      await page.reload({ waitUntil: 'load', timeout: APP_TIMEOUT_MS });
      shown = await minilmShown();
      const fromNet = requests.slice(before).filter((r) => !r.sw);
      record(`${label}: offline, a reload starts the app and MiniLM again from the service worker`,
        shown?.m?.state === 'ready' && !!shown.p && fromNet.every((r) => !r.url.startsWith(origin)),
        `${((Date.now() - t1) / 1000).toFixed(1)} s; ${requests.length - before} responses, ` +
        `${fromNet.length} not from the worker${fromNet.length ? `: ${fromNet.slice(0, 3).map((r) => r.url).join(', ')}` : ''}`);
      // The worker adds COOP and COEP to what it serves: a host without them gets threads from
      // the second visit (web/pwa/sw.js).
      const again = await page.evaluate(() => ({ isolated: self.crossOriginIsolated, threads: window.glimpseModule?.threads }));
      record(`${label}: under the service worker the page is cross-origin isolated and loads the threaded build`,
        again.isolated === true && again.threads === true, JSON.stringify(again));
      await context.setOffline(false);
    }
    if (secondCopy) {
      // Another build in another folder of the same server (two teachers on one university
      // server): its worker must not delete this copy's cache.
      const mine = cacheName(prefix, secondCopy.site);
      await page.goto(secondCopy.url, { waitUntil: 'load', timeout: APP_TIMEOUT_MS });
      const other = await poll(() => page.evaluate(() => navigator.serviceWorker?.controller?.scriptURL ?? ''), 30000);
      const theirs = cacheName(new URL(secondCopy.url).pathname, secondCopy.dir);
      const kept = await poll(async () => {
        const keys = await page.evaluate(() => caches.keys());
        if (!keys.includes(theirs)) return null;
        const n = await page.evaluate(async (c) => (await (await caches.open(c)).keys()).length, mine);
        return keys.includes(mine) && n > 5 ? { keys, n } : null;
      }, 30000);
      record(`${label}: a second copy of another build on the same server keeps to its own cache`,
        other === `${secondCopy.url}sw.js` && mine !== theirs && !!kept,
        `worker ${other || 'none'}; caches ${JSON.stringify(kept?.keys ?? await page.evaluate(() => caches.keys()))}, ${kept?.n ?? 0} entries in ${mine}`);
    }
    record(`${label}: no console errors, page errors or panics`, errors.length === 0, errors.slice(0, 5).join(' | '));
  } finally {
    fs.writeFileSync(path.join(OUT, `package-${label}-console.log`), lines.join('\n') + '\n');
    await context.close().catch(() => {});
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

async function main() {
  fs.mkdirSync(OUT, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-package-'));
  const www = path.join(tmp, 'www');
  const site = path.join(www, ...SUB.split('/').filter(Boolean));
  const servers = [];
  try {
    // 1. The script, on bad input and for real.
    let r = packageSh([]);
    record('package.sh without OUT fails and says why', r.status !== 0 && /no OUT folder/.test(r.out), r.out.trim().split('\n').at(-1));
    const foreign = path.join(tmp, 'notes');
    fs.mkdirSync(foreign);
    fs.writeFileSync(path.join(foreign, 'lesson.txt'), 'mine');
    r = packageSh(['--dist', DIST, foreign]);
    record('package.sh refuses a folder that is not empty and not its own, and leaves it alone',
      r.status !== 0 && /not empty/.test(r.out) && fs.readdirSync(foreign).join() === 'lesson.txt',
      r.out.trim().split('\n').at(-1));
    r = packageSh(['--dist', path.join(tmp, 'nowhere'), site]);
    record('package.sh refuses a missing build with the way out', r.status !== 0 && /build first/.test(r.out) && !fs.existsSync(site),
      r.out.trim().split('\n').at(-1));

    let t0 = Date.now();
    r = packageSh(['--dist', DIST, '--no-models', site]);
    const small = r.status === 0 ? walkFiles(site).reduce((s, f) => s + f.st.size, 0) : 0;
    record('package.sh --no-models writes the app alone',
      r.status === 0 && fs.readFileSync(path.join(site, 'models', 'served.json'), 'utf8').trim() === '[]' &&
      !fs.existsSync(path.join(site, 'models', 'hf')) && small > 1e6 && small < 50e6,
      r.status === 0 ? `${(small / 1e6).toFixed(1)} MB in ${((Date.now() - t0) / 1000).toFixed(1)} s` : r.out);

    t0 = Date.now();
    r = packageSh(['--dist', DIST, site]);
    if (!record('package.sh writes the site again over its own folder, with the real models', r.status === 0,
      `${((Date.now() - t0) / 1000).toFixed(1)} s${r.status ? `: ${r.out}` : ''}`)) return;
    console.log(r.out.split('\n').filter((l) => /package\.sh:|^\[glimpse.*\] {2}/.test(l)).join('\n'));
    const files = walkFiles(site);
    const bytes = files.reduce((s, f) => s + f.st.size, 0);
    const links = files.filter((f) => f.st.isSymbolicLink());
    record('the folder is self-contained: real files, no links', links.length === 0 && files.every((f) => f.st.isFile()),
      `${files.length} files, ${(bytes / 1e6).toFixed(1)} MB${links.length ? `; links: ${links.map((f) => f.path).join(', ')}` : ''}`);
    const served = JSON.parse(fs.readFileSync(path.join(site, 'models', 'served.json'), 'utf8'));
    const sizes = served.map(([name, n]) => {
      const dir = name === MINILM ? MINILM : 'SmolLM2-135M-Instruct';
      const onDisk = files.filter((f) => f.path.startsWith(path.join('models', 'hf', dir) + path.sep)).reduce((s, f) => s + f.st.size, 0);
      return { name, listed: n, onDisk };
    });
    record('both real models are packaged, at their listed sizes',
      SERVED.every((n) => sizes.some((s) => s.name === n && s.listed > 1e6 && s.listed === s.onDisk)), JSON.stringify(sizes));
    const html = fs.readFileSync(path.join(site, 'index.html'), 'utf8');
    const rooted = [...html.matchAll(/\b(?:src|href)=["']\/[^"']*/g)].map((m) => m[0]);
    const imports = [...html.matchAll(/from ['"]([^'"]+)['"]/g)].map((m) => m[1]);
    record('index.html uses relative URLs only', /<base [^>]*href="\.\/"/.test(html) && rooted.length === 0 &&
      imports.length > 0 && imports.every((u) => u.startsWith('./')), `imports ${imports.join(', ')}; rooted: ${rooted.join(', ') || 'none'}`);
    const precache = JSON.parse(/const PRECACHE = (\[[^\]]*\])/.exec(fs.readFileSync(path.join(site, 'sw.js'), 'utf8'))[1]);
    const hostFiles = ['_headers', '.htaccess', '.nojekyll', '.glimpse-package'];
    record('the host files are there and the service worker never precaches them',
      hostFiles.every((f) => fs.existsSync(path.join(site, f))) && precache.includes('index.html') &&
      precache.includes('models/served.json') && precache.some((f) => f.endsWith('.wasm')) &&
      !precache.some((f) => hostFiles.includes(f) || f.startsWith('models/hf/')),
      `${precache.length} files precached`);
    // .htaccess: its long-caching pattern must name exactly Trunk's hashed files of this build.
    const htaccess = fs.readFileSync(path.join(site, '.htaccess'), 'utf8');
    const pattern = /<FilesMatch "([^"]*\(js\|wasm\)[^"]*)">/.exec(htaccess)?.[1];
    const top = fs.readdirSync(site);
    const hashed = pattern ? top.filter((f) => new RegExp(pattern).test(f)) : [];
    record('.htaccess: wasm type, isolation headers, and its cache rule matches the hashed .js and .wasm only',
      /AddType application\/wasm \.wasm/.test(htaccess) && /Cross-Origin-Opener-Policy "same-origin"/.test(htaccess) &&
      /Cross-Origin-Embedder-Policy "require-corp"/.test(htaccess) && hashed.some((f) => f.endsWith('_bg.wasm')) &&
      hashed.some((f) => /^glimpse-[0-9a-f]{1,16}\.js$/.test(f)) && hashed.some((f) => /^[0-9a-f]{1,16}-loader\.js$/.test(f)) &&
      hashed.every((f) => /(-[0-9a-f]{1,16}(_bg)?|^[0-9a-f]{1,16}-\w+)\.(js|wasm)$/.test(f)) &&
      !hashed.includes('sw.js') && !hashed.includes('open_files.js'), `matches ${hashed.join(', ')}`);

    // (a) A plain static server, the site under a sub-path: a university web space, a laptop.
    const py = await pythonServer(www, path.join(OUT, 'package-http-server.log'));
    servers.push(() => py.child.kill());
    const noSlash = await fetch(`http://127.0.0.1:${py.port}${SUB.replace(/\/$/, '')}`, { redirect: 'manual' });
    record('(a) the folder without its final slash redirects to it', noSlash.status === 301 &&
      new URL(noSlash.headers.get('location'), `http://127.0.0.1:${py.port}`).pathname === SUB,
      `HTTP ${noSlash.status} -> ${noSlash.headers.get('location')}`);
    // A second copy, another build (a changed index.html, its own worker version), without the
    // real models (the walk never opens them there).
    const other = path.join(www, ...OTHER.split('/').filter(Boolean));
    fs.cpSync(site, other, { recursive: true, filter: (src) => !src.includes(`${path.sep}hf`) });
    const otherIndex = path.join(other, 'index.html');
    fs.writeFileSync(otherIndex, fs.readFileSync(otherIndex, 'utf8').replace('</head>', '<!-- another build -->\n</head>'));
    execFileSync('bash', [path.join(REPO, 'scripts', 'pwa.sh'), other], { stdio: 'ignore' });
    await walk('subpath', `http://127.0.0.1:${py.port}${SUB}`,
      { offline: true, secondCopy: { url: `http://127.0.0.1:${py.port}${OTHER}`, site, dir: other } });

    // (b) A host that applies `_headers`, at the root as Netlify and Cloudflare Pages serve.
    const rules = parseHeadersFile(fs.readFileSync(path.join(site, '_headers'), 'utf8'));
    const twice = new Set();
    const host = await serveWithHeaders(site, rules, twice);
    servers.push(() => host.close());
    const base = `http://127.0.0.1:${host.address().port}/`;
    const head = async (p) => (await fetch(base + p)).headers;
    const wasm = top.find((f) => f.endsWith('_bg.wasm'));
    const [index, w, sw, list] = await Promise.all(['', wasm, 'sw.js', 'models/served.json'].map(head));
    const got = {
      index: [index.get('cross-origin-opener-policy'), index.get('cross-origin-embedder-policy'), index.get('cache-control')],
      wasm: [w.get('content-type'), w.get('cache-control')],
      sw: sw.get('cache-control'),
      served: list.get('cache-control'),
    };
    record('(b) _headers: isolation, application/wasm, a year for hashed files, no-cache for index.html, sw.js, served.json',
      got.index.join() === 'same-origin,require-corp,no-cache' && got.wasm[0] === 'application/wasm' &&
      /max-age=31536000/.test(got.wasm[1]) && /immutable/.test(got.wasm[1]) && got.sw === 'no-cache' && got.served === 'no-cache',
      JSON.stringify(got));
    await walk('headers', base, { isolated: true });
    record('(b) _headers never sets one header twice for a path (hosts would join them)', twice.size === 0, [...twice].slice(0, 3).join('; '));

    // (c), (d): real web servers, where installed; the files they read must be world-readable.
    fs.chmodSync(tmp, 0o755);
    const ap = await apache(www, tmp);
    if (ap) {
      servers.push(ap.stop);
      await checkHost('(c) Apache with .htaccess', ap.base, site);
    }
    const ng = await nginx(www, tmp);
    if (ng) {
      servers.push(ng.stop);
      await checkHost('(d) nginx with the lines of docs/hosting.md', ng.base, site);
    }
  } finally {
    for (const stop of servers) stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main().catch((e) => record('the test ran', false, e.stack || String(e)));
finish();
