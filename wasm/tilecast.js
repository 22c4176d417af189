// The JavaScript face of the WebAssembly forecaster: JSON text or plain objects
// in, parsed objects out; a failed call throws a TilecastError carrying the C++
// message unchanged. The instance stays usable after any error.
import createTilecastModule from './tilecast_wasm.mjs';

// missingModel: the learned model the call needs and this build does not embed (the site
// serves it as models/<id>.json beside this file: pass that text to loadModel, then ask again).
export class TilecastError extends Error {
  constructor(message, missingModel) {
    super(message);
    this.name = 'TilecastError';
    if (missingModel) this.missingModel = missingModel;
  }
}

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

// options are passed to the Emscripten factory (e.g. {locateFile} or {wasmBinary}).
// In Node the .wasm beside this file is read from disk: Emscripten 3.1.6's loader
// is built for the web only (its Node path needs CommonJS globals an ES module lacks).
export async function createTilecast(options = {}) {
  const settings = { ...options };
  if (isNode && !settings.wasmBinary) {
    const fs = await import('node:fs');
    settings.wasmBinary = fs.readFileSync(new URL('./tilecast_wasm.wasm', import.meta.url));
  }
  const m = await createTilecastModule(settings);
  const call = (fn, request) => unwrap(fn(requestText(request)));
  const list = (fn) => unwrap(fn());
  return {
    version: m.version(),
    listGpus: () => JSON.parse(list(m.listGpus)),
    validateGpu: (spec) => JSON.parse(call(m.validateGpu, spec)),
    forecastKernel: (request) => JSON.parse(call(m.forecastKernel, request)),
    listModels: () => JSON.parse(list(m.listModels)),
    validateModel: (config) => JSON.parse(call(m.validateModel, config)),
    forecastModel: (request) => JSON.parse(call(m.forecastModel, request)),
    listSystems: () => JSON.parse(list(m.listSystems)),
    validateSystem: (spec) => JSON.parse(call(m.validateSystem, spec)),
    forecastCollective: (request) => JSON.parse(call(m.forecastCollective, request)),
    forecastServing: (request) => JSON.parse(call(m.forecastServing, request)),
    planParallel: (request) => JSON.parse(call(m.planParallel, request)),
    planCapacity: (request) => JSON.parse(call(m.planCapacity, request)),
    loadModel: (request) => JSON.parse(call(m.loadModel, request)),
    // The same calls returning the JSON text exactly as the core wrote it.
    text: {
      listGpus: () => list(m.listGpus),
      validateGpu: (spec) => call(m.validateGpu, spec),
      forecastKernel: (request) => call(m.forecastKernel, request),
      listModels: () => list(m.listModels),
      validateModel: (config) => call(m.validateModel, config),
      forecastModel: (request) => call(m.forecastModel, request),
      listSystems: () => list(m.listSystems),
      validateSystem: (spec) => call(m.validateSystem, spec),
      forecastCollective: (request) => call(m.forecastCollective, request),
      forecastServing: (request) => call(m.forecastServing, request),
      planParallel: (request) => call(m.planParallel, request),
      planCapacity: (request) => call(m.planCapacity, request),
      loadModel: (request) => call(m.loadModel, request),
    },
  };
}
