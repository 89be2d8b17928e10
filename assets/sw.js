// gpu-advisor service worker: makes the app work offline after one visit.
//
// `make dist` (tools/postbuild.mjs) rewrites the BUILD line below in dist/sw.js with the list of every
// file of the build and a content hash of them all. Each build therefore has its own cache,
// "gpu-advisor-<hash>":
// - install downloads every asset into the new cache, all or nothing (cache.addAll rejects if any
//   fails, and then the old worker and its cache stay in charge);
// - activate deletes every other gpu-advisor cache, so a new deploy replaces the old cache whole;
// - fetch answers only from the current build's cache, so a page never mixes assets of two builds.
// Under `trunk serve` the list is empty: the worker then caches nothing and stays out of the way.
// All URLs are relative to this file, so the app works under any sub-path (GitHub Pages).
const BUILD = { version: 'dev', assets: [] };

const PREFIX = 'gpu-advisor-';
const CACHE = PREFIX + BUILD.version;
const PRECACHE = BUILD.assets.length > 0;
const SCOPE = new URL('./', self.location.href).href;
const INDEX = new URL('index.html', SCOPE).href;

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    if (PRECACHE) {
      const cache = await caches.open(CACHE);
      // `cache: 'reload'` skips the HTTP cache, so an old copy of a file can never enter a new cache.
      await cache.addAll(BUILD.assets.map((a) => new Request(new URL(a, SCOPE).href, { cache: 'reload' })));
    }
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    const names = await caches.keys();
    await Promise.all(names
      .filter((n) => n.startsWith(PREFIX) && (n !== CACHE || !PRECACHE))
      .map((n) => caches.delete(n)));
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (!PRECACHE || request.method !== 'GET' || !request.url.startsWith(SCOPE)) return;
  event.respondWith((async () => {
    const url = new URL(request.url);
    const path = url.origin + url.pathname;
    // The app keeps its state in the query string: every navigation to the app gets index.html.
    const isApp = request.mode === 'navigate' && (path === SCOPE || path === INDEX);
    // caches.match with cacheName, not caches.open: a worker whose cache a newer one has deleted
    // must not re-create it empty; it falls through to the network instead.
    const hit = await caches.match(isApp ? INDEX : request, { cacheName: CACHE, ignoreSearch: isApp });
    return hit || fetch(request);
  })());
});
