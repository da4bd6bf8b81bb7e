// Glimpse's service worker (template: scripts/pwa.sh fills in the version and the file list
// from the build and writes dist/sw.js; never serve this file as it is).
//
// - install: precache the app shell (index.html, Trunk's hashed .js and _bg.wasm, manifest,
//   icons) into a cache named after this copy's folder and the build's content hash, then take
//   over at once.
// - activate: delete this copy's caches of every other version, claim the open pages (the page
//   reloads once on controllerchange, so a new deploy is picked up without a second visit).
// - fetch: index.html (navigations) network-first with the cached copy as the offline fallback,
//   so an online visit always gets the newest index.html and the hashed files it names; every
//   other same-origin GET cache-first (Trunk's file names change with their contents).
// - isolation: what it serves carries COOP + COEP, so a page it controls is cross-origin
//   isolated and loads the threaded build even from a host that cannot send headers (from
//   the second visit on: the first page was loaded before the worker existed).
const VERSION = '__GLIMPSE_VERSION__';
const PRECACHE = __GLIMPSE_PRECACHE__;
// URLs relative to this script, so a build served from a sub-path works.
const INDEX = new URL('index.html', self.location).href;
const SCOPE = new URL('./', self.location).href;
// Caches belong to the origin, not the folder: with the folder's path in the name, two copies
// on one server (https://uni.example/~a/glimpse/ and ~b/glimpse/) never delete each other's.
const PREFIX = `glimpse-${new URL(SCOPE).pathname}-`;
const CACHE = `${PREFIX}${VERSION}`;
// Caches of builds from before the path was in the name.
const LEGACY = /^glimpse-[0-9a-f]{16}$/;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) =>
        cache.addAll(PRECACHE.map((f) => new Request(new URL(f, self.location), { cache: 'reload' }))),
      )
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys
        .filter((k) => (k.startsWith(PREFIX) && k !== CACHE) || LEGACY.test(k))
        .map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

function isIndex(request) {
  if (request.mode === 'navigate') return true;
  const url = new URL(request.url);
  url.search = '';
  url.hash = '';
  return url.href === INDEX || url.href === SCOPE;
}

async function networkFirst(request) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request, { cache: 'no-store' });
    if (response.ok) await cache.put(INDEX, response.clone());
    return response;
  } catch (err) {
    const cached = await cache.match(INDEX);
    if (cached) return cached;
    throw err;
  }
}

async function cacheFirst(request) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(request, { ignoreSearch: true });
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok && response.type === 'basic') await cache.put(request, response.clone());
  return response;
}

/** `response` with the two headers that make the page cross-origin isolated (a host that
 * sends them already is left as it is). */
function isolated(response) {
  if (!response || response.type === 'opaque' || response.type === 'opaqueredirect' ||
      response.headers.get('cross-origin-embedder-policy')) {
    return response;
  }
  const headers = new Headers(response.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET' || !request.url.startsWith(SCOPE)) return;
  event.respondWith((isIndex(request) ? networkFirst(request) : cacheFirst(request)).then(isolated));
});
