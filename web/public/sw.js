// Keeps the calculator usable offline, reload included. Every same-origin GET goes
// to the network first and a copy is kept; without a network the copy answers.
// The page sends the files it loaded before this worker took control.
const CACHE = 'tilecast';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

function sameOrigin(url) {
  try {
    return new URL(url).origin === self.location.origin;
  } catch {
    return false;
  }
}

self.addEventListener('message', (event) => {
  const urls = Array.isArray(event.data?.cache) ? event.data.cache.filter((u) => typeof u === 'string' && sameOrigin(u)) : [];
  event.waitUntil(
    caches.open(CACHE).then((cache) =>
      Promise.all(urls.map((u) => cache.match(u).then((hit) => hit ?? cache.add(u)).catch(() => undefined))),
    ),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || !sameOrigin(request.url)) return;
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok && response.type === 'basic') {
          const copy = response.clone();
          event.waitUntil(caches.open(CACHE).then((cache) => cache.put(request, copy)));
        }
        return response;
      })
      .catch(() =>
        caches
          .match(request, { ignoreSearch: request.mode === 'navigate' })
          .then((hit) => hit ?? Response.error()),
      ),
  );
});
