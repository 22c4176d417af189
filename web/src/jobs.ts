// Many forecasts at once (the batch sweep, the GPU comparison) run off the input
// path: they start once typing has settled, run in slices of a few milliseconds and
// yield between slices, so keystrokes and clicks are handled in between. Results go
// into the memo; when a job is done the page renders again and finds them there.
// A newer job for the same slot replaces an older one (a stale sweep never finishes).
import type { Engine, ModelRequest } from './engine';
import { forecast, peek } from './memo';

export type Slot = 'sweep' | 'compare' | 'serve' | 'plan' | 'roofline' | 'fit';

// A slice ends after the forecast that crosses this budget (one forecast is ~1 ms).
const SLICE_MS = 8;
// Heavy work waits until no input has arrived for this long.
export const SETTLE_MS = 150;

export interface SlotStats {
  started: number; // jobs that computed at least one forecast
  finished: number;
  cancelled: number; // replaced by a newer job before finishing
  slices: number;
  maxSliceMs: number;
  lastMs: number; // wall time of the last finished job, first slice to last
}

const emptyStats = (): SlotStats => ({ started: 0, finished: 0, cancelled: 0, slices: 0, maxSliceMs: 0, lastMs: 0 });
export const jobStats: Record<Slot, SlotStats> = {
  sweep: emptyStats(),
  compare: emptyStats(),
  serve: emptyStats(),
  plan: emptyStats(),
  roofline: emptyStats(),
  fit: emptyStats(),
};

// One forecast of a job: what the memo has (undefined when nothing), and computing it.
export interface Task {
  peek(): { ok: boolean } | undefined;
  run(): { ok: boolean };
}

interface Job {
  key: string;
  cancel(): void;
}

const running = new Map<Slot, Job>();
const finishedMs = new Map<string, number>(); // job key -> its wall time, for the sweep's status line
let lastInputAt = -Infinity;

export function noteInput(): void {
  lastInputAt = performance.now();
}

// Yields to the event loop (a message, not a clamped timer).
function nextTask(fn: () => void): () => void {
  const ch = new MessageChannel();
  let live = true;
  ch.port1.onmessage = () => {
    ch.port1.close();
    if (live) fn();
  };
  ch.port2.postMessage(null);
  return () => {
    live = false;
    ch.port1.close();
  };
}

// Stops the slot's job, if any (its view is no longer shown).
export function cancel(slot: Slot): void {
  const job = running.get(slot);
  if (!job) return;
  job.cancel();
  jobStats[slot].cancelled += 1;
}

export function isRunning(slot: Slot, key: string): boolean {
  return running.get(slot)?.key === key;
}

export function jobMs(key: string): number | undefined {
  return finishedMs.get(key);
}

// Computes every request not in the memo yet (stopping at the first error when
// stopOnError), then calls done(). Asking again for the job already running is a no-op.
export function fill(
  slot: Slot,
  key: string,
  engine: Engine,
  requests: ModelRequest[],
  stopOnError: boolean,
  done: () => void,
): void {
  const tasks = requests.map((r) => ({ peek: () => peek(r), run: () => forecast(engine, r) }));
  fillTasks(slot, key, tasks, stopOnError, done);
}

// The same for any memoised forecasts (the serve view's serving forecasts).
export function fillTasks(slot: Slot, key: string, requests: Task[], stopOnError: boolean, done: () => void): void {
  if (isRunning(slot, key)) return;
  const stats = jobStats[slot];
  const previous = running.get(slot);
  if (previous) {
    previous.cancel();
    stats.cancelled += 1;
  }
  let i = 0;
  let t0 = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopTask: (() => void) | undefined;
  const job: Job = {
    key,
    cancel: () => {
      clearTimeout(timer);
      stopTask?.();
      running.delete(slot);
    },
  };
  const slice = () => {
    // New input since the job was scheduled: wait for it to settle again.
    const wait = lastInputAt + SETTLE_MS - performance.now();
    if (wait > 0) {
      timer = setTimeout(slice, wait);
      return;
    }
    const start = performance.now();
    if (i === 0) {
      t0 = start;
      stats.started += 1;
    }
    while (i < requests.length) {
      const known = requests[i].peek();
      const r = known ?? requests[i].run();
      i += 1;
      if (!r.ok && stopOnError) {
        i = requests.length;
        break;
      }
      if (!known && performance.now() - start >= SLICE_MS) break;
    }
    const end = performance.now();
    stats.slices += 1;
    stats.maxSliceMs = Math.max(stats.maxSliceMs, end - start);
    if (i < requests.length) {
      stopTask = nextTask(slice);
      return;
    }
    running.delete(slot);
    stats.finished += 1;
    stats.lastMs = end - t0;
    finishedMs.set(key, end - t0);
    if (finishedMs.size > 32) finishedMs.delete(finishedMs.keys().next().value as string);
    done();
  };
  running.set(slot, job);
  const wait = lastInputAt + SETTLE_MS - performance.now();
  if (wait > 0) timer = setTimeout(slice, wait);
  else stopTask = nextTask(slice);
}
