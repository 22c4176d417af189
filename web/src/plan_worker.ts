// The plan search's own thread: a second instance of the forecaster, loaded on the first
// search, answering one planParallel request per message ({ok, plan, ms} or {ok:false, error}
// with the core's message). plan_view.ts starts it, limits each call's time and ends it when
// a newer search replaces the running one.
import { createEngine, type Engine, type PlanRequest } from './engine';

interface Ask {
  moduleUrl: string; // ./tilecast/tilecast.js beside the page
  request: PlanRequest;
}

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<Ask>) => void) | null;
  postMessage(message: unknown): void;
};
let engine: Promise<Engine> | null = null;

scope.onmessage = async (e) => {
  const { moduleUrl, request } = e.data;
  try {
    engine ??= createEngine(moduleUrl);
    const tc = await engine;
    const t0 = performance.now();
    const plan = await tc.whenModels(() => tc.planParallel(request)); // models fetched on demand
    scope.postMessage({ ok: true, plan, ms: performance.now() - t0 });
  } catch (err) {
    scope.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) });
  }
};
