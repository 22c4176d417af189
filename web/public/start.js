// Starts loading the WebAssembly forecaster as soon as the HTML is parsed, before
// the page's main bundle runs (src/engine.ts picks up this promise).
const engine = import('./tilecast/tilecast.js').then((m) => m.createTilecast());
engine.catch(() => undefined); // reported by the page when it awaits the promise
window.tilecastEngine = engine;
