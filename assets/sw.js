// qscope's service worker: after one visit the whole site — the app, its built-in lessons, the
// book (docs/) and the quantizer reference (reference/) — works offline, for a classroom whose
// Wi-Fi fails. crates/app/src/offline.rs registers it; scripts/offline.mjs writes dist/sw.js from
// this file after the build, with VERSION (a hash of every file) and FILES (every file of dist/,
// by its path from here) filled in.
//
// - install: every file into a cache named by VERSION, at once, then take over (skipWaiting);
// - activate: control the open pages, and drop caches older than the one before (a page still
//   running the previous version keeps finding its files);
// - fetch: a GET of this site is answered from this version's cache (then an older one's),
//   `dir/` as `dir/index.html`; anything else, or a miss, goes to the network, unchanged.
//
// A new build changes VERSION, so sw.js's bytes change and the browser installs it on the next
// visit; the page after that runs the new version.

const VERSION = 'unbuilt';
const FILES = [];

const PREFIX = 'qscope-';
const CACHE = PREFIX + VERSION;
const META = PREFIX + 'versions';

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(FILES.map((f) => new Request(f, { cache: 'reload' }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      // The versions this browser ran, oldest first, in a cache of their own.
      const meta = await caches.open(META);
      const seen = (await (await meta.match('versions'))?.json().catch(() => null)) ?? [];
      const keep = [...seen.filter((c) => c !== CACHE), CACHE].slice(-2);
      const stale = (await caches.keys()).filter((k) => k.startsWith(PREFIX) && k !== META && !keep.includes(k));
      await Promise.all(stale.map((k) => caches.delete(k)));
      await meta.put('versions', new Response(JSON.stringify(keep), { headers: { 'content-type': 'application/json' } }));
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname.endsWith('/')) url.pathname += 'index.html';
  url.search = '';
  url.hash = '';
  // This version's copy first; an older version's (a page still running it); else the network.
  event.respondWith(
    caches
      .open(CACHE)
      .then((cache) => cache.match(url.href))
      .then((hit) => hit ?? caches.match(url.href))
      .then((hit) => hit ?? fetch(request)),
  );
});
