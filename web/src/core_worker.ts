// The forecaster's own thread (issue 33 item 5: the page never freezes): a second instance of
// the WebAssembly forecaster, loaded on the first message, answering any core call by name
// ({id, ok, value, ms}, or {id, ok: false, error} with the core's message unchanged). It calls
// the core through engine.ts's Engine, as the page's thread would. worker_client.ts starts
// these, sends one call at a time, limits each call's time and ends a worker whose call was
// superseded or ran too long. A learned model the forecaster does not embed is fetched here, in
// this thread's engine (engine.ts withModels), and the call answers once it is in; the page is
// told ({modelsChanged: true}) so that forecasts which waited on its own instance are asked again.
import { createEngine, type Engine } from './engine';

// The calls a page may ask for (Engine's methods; the boot lists stay on the page's thread).
export const CORE_CALLS = [
  'forecastModel',
  'forecastServing',
  'simulateServing',
  'forecastKernel',
  'planParallel',
  'planCapacity',
  'validateGpu',
  'validateModel',
] as const satisfies readonly (keyof Engine)[];
export type CoreCall = (typeof CORE_CALLS)[number];

export interface WorkerAsk {
  id: number;
  moduleUrl: string; // ./tilecast/tilecast.js beside the page
  name: CoreCall | 'load'; // 'load': load the forecaster only (started early at boot)
  arg?: unknown;
}
export type WorkerAnswer =
  { id: number; ok: true; value: unknown; ms: number } | { id: number; ok: false; error: string };
// Not an answer: a learned model arrived in this thread's engine (or failed to).
export interface WorkerNote {
  modelsChanged: true;
}

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<WorkerAsk>) => void) | null;
  postMessage(message: WorkerAnswer | WorkerNote): void;
};
let engine: Promise<Engine> | null = null;

function load(moduleUrl: string): Promise<Engine> {
  return createEngine(moduleUrl).then((tc) => {
    tc.onModelsChanged(() => scope.postMessage({ modelsChanged: true }));
    return tc;
  });
}

scope.onmessage = async (e) => {
  const { id, moduleUrl, name, arg } = e.data;
  try {
    engine ??= load(moduleUrl);
    const tc = await engine;
    if (name === 'load') {
      scope.postMessage({ id, ok: true, value: null, ms: 0 });
      return;
    }
    if (!(CORE_CALLS as readonly string[]).includes(name)) throw new Error(`no core call named "${String(name)}"`);
    const t0 = performance.now();
    // models fetched on demand: the call is asked again once the model it needs is in
    const value: unknown = await tc.whenModels(() => (tc[name] as (a: unknown) => unknown)(arg));
    scope.postMessage({ id, ok: true, value, ms: performance.now() - t0 });
  } catch (err) {
    scope.postMessage({ id, ok: false, error: err instanceof Error ? err.message : String(err) });
  }
};
