// Every model forecast the page shows goes through here: results (and errors) are
// remembered by request, so the same request is computed once however many views
// ask for it (the forecast card, a compare row, a sweep point, an export).
import {
  errorMessage,
  isMegatron,
  ModelLoading,
  type Engine,
  type AnyForecast,
  type ModelRequest,
  type ServingForecast,
  type ServingRequest,
} from './engine';

// loading: the forecast waits for a learned model fetched on demand (engine.ts); forgotten when
// it arrives (forgetLoading), and not counted as computed.
export type Result = { ok: true; f: AnyForecast } | { ok: false; error: string; loading?: boolean };
export type ServeResult = { ok: true; f: ServingForecast } | { ok: false; error: string; loading?: boolean };

// About two full 256-point sweeps plus a comparison; a forecast is a few KB.
const CAPACITY = 600;
const results = new Map<string, Result | ServeResult>(); // insertion order = least recently used first

// computed: engine calls; hits: requests answered from memory.
export const memoStats = { computed: 0, hits: 0 };

// The request's identity. A custom GPU or config stands in the key as a number
// given to its JSON text, which is written out once per object (the state replaces
// them, never mutates them), not once per sweep point or per key.
const objectId = new WeakMap<object, string>();
const textId = new Map<string, string>();
function textOf(v: string | object): string {
  if (typeof v === 'string') return JSON.stringify(v);
  let id = objectId.get(v);
  if (id === undefined) {
    const text = JSON.stringify(v);
    id = textId.get(text) ?? `#${textId.size}`;
    textId.set(text, id);
    objectId.set(v, id);
  }
  return id;
}

export function requestKey(r: ModelRequest): string {
  const base = `${textOf(r.gpu)}|${textOf(r.model)}|${r.batch}|${r.seq}|${r.mode}|${r.predictor}|${r.precision ?? ''}|${r.engine ?? ''}`;
  if (r.dp === undefined) return base;
  const par = `${base}|${r.dp}x${r.tp}x${r.pp}|${r.microbatches}|${r.zero}|${r.recompute}|${r.schedule}|${r.system ?? ''}`;
  if (r.engine !== 'megatron') return par;
  return `${par}|cp${r.cp}|v${r.virtual_stages}|sp${r.sequence_parallel ? 1 : 0}|${r.attention ?? ''}|t${r.tokens ?? ''}`;
}

function remember<R extends Result | ServeResult>(key: string, r: R): R {
  results.set(key, r);
  if (results.size > CAPACITY) results.delete(results.keys().next().value as string);
  return r;
}

// The remembered result, or undefined; counts as a use.
export function peek(request: ModelRequest, key = requestKey(request)): Result | undefined {
  return lookup(key) as Result | undefined;
}

function lookup(key: string): Result | ServeResult | undefined {
  const r = results.get(key);
  if (r) {
    memoStats.hits += 1;
    results.delete(key);
    results.set(key, r);
  }
  return r;
}

// The result for a request: remembered, or computed now and remembered.
export function forecast(engine: Engine, request: ModelRequest): Result {
  const key = requestKey(request);
  const hit = peek(request, key);
  if (hit) return hit;
  memoStats.computed += 1;
  try {
    return remember(key, { ok: true, f: engine.forecastModel(request) });
  } catch (e) {
    return remember(key, failure(e));
  }
}

function failure(e: unknown): { ok: false; error: string; loading?: boolean } {
  if (!(e instanceof ModelLoading)) return { ok: false, error: errorMessage(e) };
  memoStats.computed -= 1; // asked again once the model is in
  return { ok: false, error: errorMessage(e), loading: true };
}

// The forecast view's result. A multi-GPU step has no roofline figure of its own: it
// gets the roofline predictor's step beside it, a second remembered forecast. On the
// input path (`later`) that one is left to a job when not remembered yet: `pending` is
// its request and the step shows without it until it arrives.
const withRoofline = new WeakMap<Result, { roof: Result; shown: Result }>();
export interface Shown {
  r: Result;
  key: Result; // the step's own result (the same until the roofline arrives)
  pending: ModelRequest | null;
}

export function forecastShown(engine: Engine, request: ModelRequest, later = false): Shown {
  const r = forecast(engine, request);
  // The megatron step has no roofline companion: its roofline-predictor run is not a bound.
  if (!r.ok || isMegatron(r.f) || !r.f.parallel || r.f.roofline_latency_ms !== undefined)
    return { r, key: r, pending: null };
  const roofRequest: ModelRequest = { ...request, predictor: 'roofline' };
  const roof = request.predictor === 'roofline' ? r : later ? peek(roofRequest) : forecast(engine, roofRequest);
  if (!roof) return { r, key: r, pending: roofRequest };
  let known = withRoofline.get(r);
  if (!known || known.roof !== roof) {
    known = { roof, shown: { ok: true, f: { ...r.f, roofline_latency_ms: roof.ok ? roof.f.latency_ms : NaN } } };
    withRoofline.set(r, known);
  }
  return { r: known.shown, key: r, pending: null };
}

// ---- serving forecasts (the serve view), in the same memory ----------------

export function servingKey(r: ServingRequest): string {
  return `serve|${textOf(r.gpu)}|${textOf(r.model)}|${r.prompt}|${r.output}|${r.batch}|${r.tp}|${r.precision}|${r.engine}|${r.predictor}`;
}

export function peekServing(request: ServingRequest, key = servingKey(request)): ServeResult | undefined {
  return lookup(key) as ServeResult | undefined;
}

export function forecastServing(engine: Engine, request: ServingRequest): ServeResult {
  const key = servingKey(request);
  const hit = peekServing(request, key);
  if (hit) return hit;
  memoStats.computed += 1;
  try {
    return remember(key, { ok: true, f: engine.forecastServing(request) } as ServeResult);
  } catch (e) {
    return remember(key, failure(e) as ServeResult);
  }
}

export function forgetAll(): void {
  results.clear();
}

// The results that waited for a model (a model arrived, or failed to: asked again).
export function forgetLoading(): void {
  for (const [key, r] of [...results]) if (!r.ok && r.loading) results.delete(key);
}
