// Every model forecast the page shows goes through here: results (and errors) are
// remembered by request, so the same request is computed once however many views
// ask for it (the forecast card, a compare row, a sweep point, an export).
import {
  isMegatron,
  type AnyForecast,
  type CapacityPlan,
  type CapacityRequest,
  type LoadRequest,
  type ModelRequest,
  type ServingForecast,
  type ServingLoadForecast,
  type ServingRequest,
} from './engine';
import type { Task } from './jobs';

// A forecast that needs a learned model fetched on demand is answered once the model is in (the
// forecaster's thread waits for it, core_worker.ts): no result here ever says "loading".
export type Result = { ok: true; f: AnyForecast } | { ok: false; error: string };
export type ServeResult = { ok: true; f: ServingForecast } | { ok: false; error: string };
export type LoadResult = { ok: true; f: ServingLoadForecast } | { ok: false; error: string };
export type CapacityResult = { ok: true; f: CapacityPlan } | { ok: false; error: string };
type AnyResult = Result | ServeResult | LoadResult | CapacityResult;

// About two full 256-point sweeps plus a comparison; a forecast is a few KB.
const CAPACITY = 600;
const results = new Map<string, AnyResult>(); // insertion order = least recently used first

// computed: core calls answered; hits: requests answered from memory.
export const memoStats = { computed: 0, hits: 0 };

// The request's identity. A custom GPU or config stands in the key as a number
// given to its JSON text, which is written out once per object (the state replaces
// them, never mutates them), not once per sweep point or per key.
const objectId = new WeakMap<object, string>();
const textId = new Map<string, string>();
function textOf(v: object): string {
  let id = objectId.get(v);
  if (id === undefined) {
    const text = JSON.stringify(v);
    id = textId.get(text) ?? `#${textId.size}`;
    textId.set(text, id);
    objectId.set(v, id);
  }
  return id;
}

// A request's key: every field it has, in name order, so a field added to a request is in its
// key without a word here (two requests differing in any field are two forecasts).
function keyOf(kind: string, r: object): string {
  const parts = [kind];
  for (const k of Object.keys(r).sort()) {
    const v = (r as Record<string, unknown>)[k];
    if (v !== undefined) parts.push(`${k}=${v !== null && typeof v === 'object' ? textOf(v) : textOfScalar(v)}`);
  }
  return parts.join('|');
}

// Strings quoted (never mistaken for a custom object's #number), numbers and switches as written.
function textOfScalar(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

function remember<R extends AnyResult>(key: string, r: R): R {
  results.set(key, r);
  if (results.size > CAPACITY) results.delete(results.keys().next().value as string);
  return r;
}

function lookup(key: string): AnyResult | undefined {
  const r = results.get(key);
  if (r) {
    memoStats.hits += 1;
    results.delete(key);
    results.set(key, r);
  }
  return r;
}

// Requests being computed: a second job asking for one (the comparison's row of the card's
// GPU while the card's forecast is on its way) waits for that answer instead of asking again.
const computing = new Map<string, Promise<AnyResult | undefined>>();

function computeOnce(key: string, compute: () => Promise<AnyResult | undefined>): Promise<AnyResult | undefined> {
  const other = computing.get(key);
  const p = (async () => (other && (await other)) || results.get(key) || compute())();
  computing.set(key, p);
  void p.finally(() => {
    if (computing.get(key) === p) computing.delete(key);
  });
  return p;
}

// A forecast to compute (jobs.ts): the core's answer (or its message) is remembered under
// `key`; a superseded call remembers nothing.
type CoreTaskCall = 'forecastModel' | 'forecastServing' | 'simulateServing' | 'planCapacity';
function coreTask(key: string, name: CoreTaskCall, request: unknown): Task {
  return {
    peek: () => lookup(key),
    run: (ask) =>
      computeOnce(key, async () => {
        const a = await ask<AnyForecast | ServingForecast | ServingLoadForecast | CapacityPlan>(name, request);
        if (!a.ok && 'superseded' in a) return undefined;
        memoStats.computed += 1;
        // the call's name says which: a model forecast or a serving one
        return remember(key, (a.ok ? { ok: true, f: a.value } : { ok: false, error: a.error }) as AnyResult);
      }),
  };
}

// The forecast view's result, from the memo. A multi-GPU step has no roofline figure of its
// own: it gets the roofline predictor's step beside it, a second remembered forecast.
// `pending`: the requests still to compute (the step's; else its roofline's, which the page
// leaves to a later job: the step shows without it until it arrives).
const withRoofline = new WeakMap<Result, { roof: Result; shown: Result }>();
export interface Shown {
  r: Result | undefined; // undefined: not computed yet
  key: Result | undefined; // the step's own result (the same until the roofline arrives)
  pending: ModelRequest[];
}

export function forecastShown(request: ModelRequest): Shown {
  const r = peek(request);
  if (!r) return { r, key: r, pending: [request] };
  // The megatron step has no roofline companion: its roofline-predictor run is not a bound.
  if (!r.ok || isMegatron(r.f) || !r.f.parallel || r.f.roofline_latency_ms !== undefined)
    return { r, key: r, pending: [] };
  const roofRequest: ModelRequest = { ...request, predictor: 'roofline' };
  const roof = request.predictor === 'roofline' ? r : peek(roofRequest);
  if (!roof) return { r, key: r, pending: [roofRequest] };
  let known = withRoofline.get(r);
  if (!known || known.roof !== roof) {
    known = { roof, shown: { ok: true, f: { ...r.f, roofline_latency_ms: roof.ok ? roof.f.latency_ms : NaN } } };
    withRoofline.set(r, known);
  }
  return { r: known.shown, key: r, pending: [] };
}

// ---- the kinds of answer ----------------------------------------------------

// One kind of answer the page asks for: its requests' keys, what the memo has of one (a use: it
// counts as recent), and the task computing it with the core call named.
function answers<Request extends object, Answer extends AnyResult>(kind: string, call: CoreTaskCall) {
  const key = (r: Request): string => keyOf(kind, r);
  return {
    key,
    peek: (r: Request, k = key(r)): Answer | undefined => lookup(k) as Answer | undefined,
    task: (r: Request): Task => coreTask(key(r), call, r),
  };
}

// Model forecasts (every view's but the serve view's), serving forecasts (its card, charts and
// comparison), simulations under load (the load sweep) and capacity plans ("GPUs for a request rate").
const model = answers<ModelRequest, Result>('model', 'forecastModel');
export const { key: requestKey, peek, task: forecastTask } = model;
const serving = answers<ServingRequest, ServeResult>('serve', 'forecastServing');
const load = answers<LoadRequest, LoadResult>('load', 'simulateServing');
const capacity = answers<CapacityRequest, CapacityResult>('capacity', 'planCapacity');
export const { key: servingKey, peek: peekServing, task: servingTask } = serving;
export const { key: loadKey, peek: peekLoad, task: loadTask } = load;
export const { key: capacityKey, peek: peekCapacity, task: capacityTask } = capacity;

export function forgetAll(): void {
  results.clear();
}
