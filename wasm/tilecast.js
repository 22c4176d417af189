// The JavaScript face of the WebAssembly forecaster: JSON text or plain objects
// in, parsed objects out; a failed call throws a TilecastError carrying the C++
// message unchanged. The instance stays usable after any error.
//
// The module comes in two files (scripts/split_wasm.mjs, docs/web.md "The deferred part"):
// tilecast_wasm.wasm, the functions the page's first forecast runs, and
// tilecast_wasm.deferred.wasm, every other. The first call that reaches the deferred code loads
// it, synchronously, inside the call: from the bytes given ahead (provideDeferred), else read
// from disk in Node or fetched with a synchronous request in a worker. Where none of these can be
// done (the page's own thread before the bytes were given, since a document cannot fetch bytes
// synchronously; or offline before the file was ever fetched) the call throws a TilecastError
// with missingModule 'deferred'.
import createTilecastModule from './tilecast_wasm.mjs';

// missingModel: the learned model the call needs and this build does not embed (the site
// serves it as models/<id>.json beside this file: pass that text to loadModel, then ask again).
export class TilecastError extends Error {
  constructor(message, missingModel, missingModule) {
    super(message);
    this.name = 'TilecastError';
    if (missingModel) this.missingModel = missingModel;
    if (missingModule) this.missingModule = missingModule;
  }
}

// Every call, by its argument: none (the catalog lists) or one request.
const NO_ARG = ['listGpus', 'listModels', 'listSystems'];
const ONE_ARG = [
  'validateGpu',
  'forecastKernel',
  'validateModel',
  'forecastModel',
  'validateSystem',
  'forecastCollective',
  'forecastServing',
  'planParallel',
  'planCapacity',
  'loadModel',
];
// What Emscripten's loader says each time it loads the deferred part (kept off the console).
const LOADER_NOTES = /^(placeholder function called|instantiated deferred module)/;

function requestText(request) {
  const text = typeof request === 'string' ? request : JSON.stringify(request);
  if (typeof text !== 'string') throw new TilecastError('request must be JSON text or an object');
  return text;
}

function unwrap(envelope) {
  if (!envelope || envelope.ok !== true) {
    throw new TilecastError(
      envelope && typeof envelope.error === 'string' ? envelope.error : 'unknown error',
      envelope && typeof envelope.missing_model === 'string' ? envelope.missing_model : undefined,
    );
  }
  return envelope.json;
}

const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';
const isPageThread = typeof window === 'object' && typeof document === 'object';

// The deferred part's bytes at `file` (the URL Emscripten's loader gives, beside the .wasm).
function readDeferred(file, fs) {
  if (fs) return fs.readFileSync(new URL(file));
  const xhr = new XMLHttpRequest();
  xhr.open('GET', file, false);
  xhr.responseType = 'arraybuffer';
  xhr.send(null);
  if (xhr.status !== 200) throw new Error(`HTTP ${xhr.status} ${xhr.statusText}`.trim());
  return new Uint8Array(xhr.response);
}

// options are passed to the Emscripten factory (e.g. {locateFile} or {wasmBinary}).
// In Node the .wasm files beside this file are read from disk: Emscripten 3.1.6's loader
// is built for the web only (its Node path needs CommonJS globals an ES module lacks).
export async function createTilecast(options = {}) {
  const settings = { ...options };
  const fs = isNode ? await import('node:fs') : null;
  if (fs && !settings.wasmBinary) settings.wasmBinary = fs.readFileSync(new URL('./tilecast_wasm.wasm', import.meta.url));
  let deferredLoaded = false;
  let deferredBytes = null; // the deferred part's bytes, given ahead (provideDeferred)
  let deferredFailure = null; // why the running call could not load the deferred part
  settings.loadSplitModule = (file, imports) => {
    let module;
    try {
      if (!deferredBytes && isPageThread)
        throw new Error("a browser's page thread cannot fetch it synchronously: ask from a worker");
      module = new WebAssembly.Module(deferredBytes ?? readDeferred(file, fs));
    } catch (e) {
      deferredBytes = null; // bytes that did not compile are not tried again
      deferredFailure = `the forecaster's deferred part (${file.split('/').pop()}) could not be loaded: ${e?.message ?? e}`;
      throw new TilecastError(deferredFailure, undefined, 'deferred');
    }
    new WebAssembly.Instance(module, imports);
    deferredLoaded = true;
    deferredBytes = null;
  };
  const printErr = settings.printErr ?? ((line) => console.warn(line));
  settings.printErr = (line) => {
    if (!LOADER_NOTES.test(String(line))) printErr(line);
  };
  const m = await createTilecastModule(settings);
  // A call during which the deferred part could not be loaded fails saying so, whatever the
  // core made of the hook's exception (it may unwind to here or be caught as an internal error).
  const run = (call) => {
    deferredFailure = null;
    let outcome;
    try {
      outcome = { envelope: call() };
    } catch (e) {
      outcome = { thrown: e };
    }
    if (deferredFailure) throw new TilecastError(deferredFailure, undefined, 'deferred');
    if ('thrown' in outcome) throw outcome.thrown;
    return unwrap(outcome.envelope);
  };
  const text = {};
  for (const name of NO_ARG) text[name] = () => run(() => m[name]());
  for (const name of ONE_ARG) text[name] = (request) => run(() => m[name](requestText(request)));
  const tc = {
    version: m.version(),
    // where the deferred part lives, for a front end that fetches it ahead (e.g. to keep it offline)
    deferredUrl: new URL('./tilecast_wasm.deferred.wasm', import.meta.url).href,
    // The deferred part's bytes (an ArrayBuffer or a typed array, fetched from deferredUrl), kept
    // until a call needs that part: how a browser page's own thread can load it.
    provideDeferred(bytes) {
      if (!deferredLoaded) deferredBytes = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    },
    // whether the deferred part is in (for the tests and the benchmarks)
    get deferredLoaded() {
      return deferredLoaded;
    },
    // The same calls returning the JSON text exactly as the core wrote it.
    text,
  };
  for (const name of [...NO_ARG, ...ONE_ARG]) tc[name] = (request) => JSON.parse(text[name](request));
  return tc;
}
