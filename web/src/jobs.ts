// Every forecast the page computes is a job: its core calls run on the forecaster's own
// thread (worker_client.ts), one after another, and their results go into the memo; when a
// job is done the page renders again and finds them there. A newer job for the same slot
// replaces an older one (a stale sweep never finishes, a superseded answer never shows).
// The card's job starts at once; the heavy ones (sweep, comparison, charts) start once
// typing has settled.
import type { ModelRequest } from './engine';
import { forecastTask } from './memo';
import { callCore, newJob, type CallAnswer, type Slot } from './worker_client';
import type { CoreCall } from './core_worker';

export type { Slot } from './worker_client';

// Heavy work waits until no input has arrived for this long.
export const SETTLE_MS = 150;

export interface SlotStats {
  started: number; // jobs that began their calls
  finished: number;
  cancelled: number; // replaced by a newer job (or their view left) before finishing
  slices: number; // core calls answered
  maxSliceMs: number; // the longest call, from asking to its answer
  lastMs: number; // wall time of the last finished job, first call to last answer
}

const emptyStats = (): SlotStats => ({ started: 0, finished: 0, cancelled: 0, slices: 0, maxSliceMs: 0, lastMs: 0 });
export const jobStats: Record<Slot, SlotStats> = {
  card: emptyStats(),
  sweep: emptyStats(),
  compare: emptyStats(),
  serve: emptyStats(),
  load: emptyStats(),
  capacity: emptyStats(),
  plan: emptyStats(),
  roofline: emptyStats(),
  fit: emptyStats(),
};

// A task's core call, bound to its job (what: the limit message's subject, when not the call's).
export type Ask = <T>(name: CoreCall, arg: unknown, what?: string) => Promise<CallAnswer<T>>;

// One call of a job: what the memo has (undefined when nothing), and computing it
// (undefined when the job was superseded: nothing remembered).
export interface Task {
  peek(): { ok: boolean } | undefined;
  run(ask: Ask): Promise<{ ok: boolean } | undefined>;
}

export interface JobOptions {
  stopOnError?: boolean; // the first error ends the job
  each?: () => void; // after each answered call (progress)
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

// Model forecasts not in the memo yet.
export function fill(slot: Slot, key: string, requests: ModelRequest[], stopOnError: boolean, done: () => void): void {
  fillTasks(slot, key, requests.map(forecastTask), done, { stopOnError });
}

// Runs every task not answered yet, then calls done(). Asking again for the job already
// running is a no-op; asking for another key replaces it.
export function fillTasks(slot: Slot, key: string, tasks: Task[], done: () => void, options: JobOptions = {}): void {
  if (isRunning(slot, key)) return;
  cancel(slot);
  const stats = jobStats[slot];
  const id = newJob(slot);
  let live = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  running.set(slot, {
    key,
    cancel: () => {
      live = false;
      clearTimeout(timer);
      newJob(slot); // drops this job's calls
      running.delete(slot);
    },
  });
  const ask: Ask = (name, arg, what) => callCore(slot, id, name, arg, what);
  const settled = (): Promise<void> =>
    new Promise((resolve) => {
      const wait = () => {
        const left = lastInputAt + SETTLE_MS - performance.now();
        if (left > 0) timer = setTimeout(wait, left);
        else resolve();
      };
      wait();
    });
  void (async () => {
    if (slot !== 'card') await settled();
    if (!live) return;
    const t0 = performance.now();
    stats.started += 1;
    for (const task of tasks) {
      const known = task.peek();
      let r = known;
      if (!known) {
        const t = performance.now();
        r = await task.run(ask);
        if (!live) return;
        if (!r) break; // not answered (cannot happen while live): end the job rather than wait
        stats.slices += 1;
        stats.maxSliceMs = Math.max(stats.maxSliceMs, performance.now() - t);
        options.each?.();
      }
      if (!r || (!r.ok && options.stopOnError)) break;
    }
    running.delete(slot);
    const ms = performance.now() - t0;
    stats.finished += 1;
    stats.lastMs = ms;
    finishedMs.set(key, ms);
    if (finishedMs.size > 32) finishedMs.delete(finishedMs.keys().next().value as string);
    done();
  })();
}
