// Every core call the page makes after boot runs here, off the page's thread (issue 33 item 5):
// core_worker.ts instances answer calls by name, one at a time. Each call is tagged with its
// slot (the part of the page asking) and job id. A newer job for a slot supersedes the older:
// its queued calls are dropped and its answers never delivered; its call still running after
// GRACE_MS is ended with its worker (a fresh one starts for the next call). A call running past
// the time limit is ended the same way and answered with a message naming what to reduce.
// Two lanes of one worker kind: the card the user is typing into never waits behind a sweep.
// While the card's worker is still loading the forecaster (boot), the card's calls are answered
// by the page's own instance instead (answerOnPageWhileLoading).
import type { CoreCall, WorkerAnswer, WorkerAsk, WorkerNote } from './core_worker';

export type Slot = 'card' | 'sweep' | 'compare' | 'serve' | 'load' | 'capacity' | 'plan' | 'roofline' | 'fit';
type Lane = 'input' | 'background';
const LANE: Record<Slot, Lane> = {
  card: 'input',
  sweep: 'background',
  compare: 'background',
  serve: 'background',
  load: 'background',
  capacity: 'background',
  plan: 'background',
  roofline: 'background',
  fit: 'background',
};

// The core's answer, its refusal (error: its message), or nothing (superseded: dropped).
export type CallAnswer<T = unknown> =
  { ok: true; value: T; ms: number } | { ok: false; error: string; limited?: true } | { ok: false; superseded: true };

// Adjustable by the tests (window.tilecastPage.worker).
export const workerSettings = {
  limitMs: 20_000, // one call (the core refuses work of more than ~1 s natively; WASM is 2-3x slower)
  graceMs: 400, // a superseded call may finish within this (ending a worker costs a reload)
};
export const workerStats = { workers: 0, calls: 0, dropped: 0, endedSuperseded: 0, endedLimit: 0, onPage: 0 };

// The page's own instance (boot.ts), already loaded for the catalog lists, answers the card's
// calls for zoo models by name (ofZooModel: bounded in cost) until the card's worker has loaded
// its instance: on a cold load the worker's compile waits for a core, so the first forecast
// would wait about half a second for it (docs/web.md, "The first forecast"). A call the page's
// instance cannot answer as it stands (it needs a learned model fetched on demand, or the
// deferred part before boot gave its bytes: a page's thread cannot fetch them synchronously) goes
// to the worker as before. Once the worker has loaded, every call runs there, so this is boot's
// work only.
type PageCall = (name: CoreCall, arg: unknown) => unknown; // Engine.callAsIs
let pageCall: PageCall | null = null;
export function answerOnPageWhileLoading(call: PageCall): void {
  pageCall = call;
}
const needsWorker = (e: unknown): boolean => {
  const missing = e as { missingModel?: unknown; missingModule?: unknown } | null;
  return typeof missing?.missingModel === 'string' || typeof missing?.missingModule === 'string';
};

// What to reduce when a call of this kind runs too long.
const REDUCE: Record<CoreCall, string> = {
  forecastModel: 'reduce the batch size, the sequence length, the micro-batches or the GPUs',
  forecastServing: 'reduce the output tokens, the prompt or the batch size',
  simulateServing: 'reduce the requests per rate, the output tokens or the prompt',
  forecastKernel: 'reduce the kernel sizes',
  planParallel: 'search fewer GPUs',
  planCapacity: 'reduce the requests per simulation, the most GPUs or the output tokens',
  validateGpu: 'shorten the GPU spec',
  validateModel: 'reduce the config (layers, sizes)',
};
const WHAT: Record<CoreCall, string> = {
  forecastModel: 'The forecast',
  forecastServing: 'The serving forecast',
  simulateServing: 'The serving simulation',
  forecastKernel: 'The kernel forecast',
  planParallel: 'The plan search',
  planCapacity: 'The capacity plan',
  validateGpu: 'Checking the GPU spec',
  validateModel: 'Checking the config',
};

export function limitMessage(name: CoreCall, ms: number, what = WHAT[name]): string {
  return `${what} was stopped after ${ms / 1000} s (the page's time limit for one call): ${REDUCE[name]}.`;
}

interface Pending {
  id: number;
  slot: Slot;
  job: number;
  name: CoreCall | 'load';
  arg: unknown;
  what?: string;
  boot?: true; // the boot's load, or its warm-up: belongs to no job, never superseded
  resolve: (a: CallAnswer) => void;
}
interface Running extends Pending {
  worker: Worker;
  startedAt: number;
  timers: ReturnType<typeof setTimeout>[];
  delivered: boolean;
}
interface LaneState {
  worker: Worker | null;
  running: Running | null;
  queue: Pending[];
}

const lanes: Record<Lane, LaneState> = {
  input: { worker: null, running: null, queue: [] },
  background: { worker: null, running: null, queue: [] },
};
const currentJob = new Map<Slot, number>();
let nextId = 1;

const superseded: CallAnswer = { ok: false, superseded: true };

// Told when a worker's engine has fetched a learned model (or failed to): boot.ts asks again
// the forecasts that waited for one.
const modelListeners: (() => void)[] = [];
export function onWorkerModelsChanged(listener: () => void): void {
  modelListeners.push(listener);
}

function moduleUrl(): string {
  return new URL('tilecast/tilecast.js', document.baseURI).href;
}

function startWorker(lane: LaneState): Worker {
  const w = new Worker(new URL('./core_worker.ts', import.meta.url), { type: 'module' });
  workerStats.workers += 1;
  w.onmessage = (e: MessageEvent<WorkerAnswer | WorkerNote>) => {
    if ('modelsChanged' in e.data) {
      modelListeners.forEach((l) => l());
      return;
    }
    const r = lane.running;
    if (!r || r.worker !== w || r.id !== e.data.id) return;
    const a = e.data;
    finish(lane, a.ok ? { ok: true, value: a.value, ms: a.ms } : { ok: false, error: a.error });
  };
  w.onerror = (e) => {
    e.preventDefault();
    endWorker(lane);
    finish(lane, { ok: false, error: `The forecaster's thread failed: ${e.message || 'it could not be loaded'}` });
  };
  lane.worker = w;
  return w;
}

function endWorker(lane: LaneState): void {
  lane.worker?.terminate();
  lane.worker = null;
}

// The running call's answer (dropped when its job was superseded); the next call starts.
function finish(lane: LaneState, answer: CallAnswer): void {
  const r = lane.running;
  if (!r) return;
  r.timers.forEach(clearTimeout);
  lane.running = null;
  deliver(r, answer);
  pump(lane);
}

function deliver(p: Pending & { delivered?: boolean }, answer: CallAnswer): void {
  if (p.delivered) return;
  p.delivered = true;
  const live = currentJob.get(p.slot) === p.job;
  if (!live && !p.boot) workerStats.dropped += 1;
  p.resolve(live ? answer : superseded);
}

function pump(lane: LaneState): void {
  if (lane.running || !lane.queue.length) return;
  const p = lane.queue.shift()!;
  const worker = lane.worker ?? startWorker(lane);
  const limitMs = workerSettings.limitMs;
  const running: Running = { ...p, worker, startedAt: performance.now(), timers: [], delivered: false };
  lane.running = running;
  running.timers.push(
    setTimeout(() => {
      if (lane.running !== running) return;
      workerStats.endedLimit += 1;
      endWorker(lane);
      const name = p.name === 'load' ? 'forecastModel' : p.name;
      finish(lane, { ok: false, error: limitMessage(name, limitMs, p.what), limited: true });
    }, limitMs),
  );
  workerStats.calls += 1;
  worker.postMessage({ id: p.id, moduleUrl: moduleUrl(), name: p.name, arg: p.arg } satisfies WorkerAsk);
}

// The card's lane: the id, slot and call running there now, or null (read by the tests, which
// must know a slow call is still running when their keystrokes arrive).
export function inputLaneCall(): { id: number; slot: Slot; name: CoreCall | 'load' } | null {
  const r = lanes.input.running;
  return r ? { id: r.id, slot: r.slot, name: r.name } : null;
}

// A new job for the slot: the older one's calls are dropped (its running one ended after the grace).
export function newJob(slot: Slot): number {
  const job = (currentJob.get(slot) ?? 0) + 1;
  currentJob.set(slot, job);
  for (const lane of Object.values(lanes)) {
    lane.queue = lane.queue.filter((p) => {
      if (p.slot !== slot) return true;
      deliver(p, superseded);
      return false;
    });
    const r = lane.running;
    if (r && r.slot === slot && !r.delivered && !r.boot) {
      deliver(r, superseded);
      const left = r.startedAt + workerSettings.graceMs - performance.now();
      const end = () => {
        if (lane.running !== r) return;
        workerStats.endedSuperseded += 1;
        endWorker(lane);
        finish(lane, superseded);
      };
      if (left <= 0) end();
      else r.timers.push(setTimeout(end, left));
    }
  }
  return job;
}

// One core call for the slot's job; answered `superseded` when a newer job replaced it.
export function callCore<T = unknown>(
  slot: Slot,
  job: number,
  name: CoreCall,
  arg: unknown,
  what?: string,
): Promise<CallAnswer<T>> {
  return new Promise((resolve) => {
    const p: Pending = { id: nextId++, slot, job, name, arg, what, resolve: resolve as (a: CallAnswer) => void };
    if (currentJob.get(slot) !== job) {
      deliver(p, superseded);
      return;
    }
    const lane = lanes[LANE[slot]];
    if (lane === lanes.input && workerLoading(lane) && ofZooModel(arg)) runOnPage(p, lane);
    else {
      lane.queue.push(p);
      pump(lane);
    }
  });
}

// A request for a zoo model by name: its forecast takes at most about 0.15 s (DeepSeek-V3's
// training step, cold); a pasted config or a model by its sizes may take up to the core's work
// budget, so it waits for the worker.
function ofZooModel(arg: unknown): boolean {
  return typeof (arg as { model?: unknown } | null)?.model === 'string';
}

function workerLoading(lane: LaneState): boolean {
  return pageCall !== null && lane.running?.name === 'load' && lane.queue.every((q) => q.boot);
}

// Answers on the page's instance, in a task of its own (the inputs drawn first), unless the
// worker has loaded meanwhile or the call needs it.
function runOnPage(p: Pending, lane: LaneState): void {
  setTimeout(() => {
    if (currentJob.get(p.slot) !== p.job) return deliver(p, superseded);
    if (pageCall && workerLoading(lane)) {
      const t0 = performance.now();
      try {
        const value = pageCall(p.name as CoreCall, p.arg);
        workerStats.onPage += 1;
        deliver(p, { ok: true, value, ms: performance.now() - t0 });
        // The same call on the worker once it has loaded, its answer unused: its first forecast
        // builds the learned models, so the user's first keystroke does not wait for that.
        if (!lane.queue.length) lane.queue.push({ ...p, id: nextId++, boot: true, resolve: () => undefined });
        return;
      } catch (e) {
        if (!needsWorker(e)) {
          workerStats.onPage += 1;
          return deliver(p, { ok: false, error: e instanceof Error ? e.message : String(e) });
        }
      }
    }
    lane.queue.push(p);
    pump(lane);
  }, 0);
}

// Starts the card's worker loading the forecaster now (boot), so the first forecast waits less.
export function warmUp(): void {
  const lane = lanes.input;
  if (lane.worker || lane.running) return;
  const slot: Slot = 'card';
  const job = currentJob.get(slot) ?? 0;
  currentJob.set(slot, job);
  lane.queue.unshift({ id: nextId++, slot, job, name: 'load', arg: null, boot: true, resolve: () => undefined });
  pump(lane);
}
