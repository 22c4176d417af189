// "Best plans": api::plan_parallel (docs/parallel.md "Plan") for the forecast view's model,
// GPU, system, global batch and sequence, on request (a button), as a job off the input
// path: one planParallel call per GPU count (1, 2, 4, … up to a node), progress between
// them, the fastest configurations of all counts merged. A row's "Use" button sets the
// GPU fields to that configuration. render.ts decides when; this file computes and draws.
import { gpuById, systemById, type App } from './app';
import { byId, clear, h, setText } from './dom';
import { errorMessage, type Engine, type Plan, type PlanEntry, type PlanRequest, type SystemSpec } from './engine';
import { fmtMs, fmtNum, fmtRate } from './format';
import { CUSTOM } from './state';

export type PlanResult = { ok: true; plan: Plan; ms: number } | { ok: false; error: string };

const TOP = 10;
const PRECISION_WORDS: Record<string, string> = {
  fp32: 'FP32',
  bf16: 'BF16 mixed precision',
  fp16: 'FP16 mixed precision',
};
const plans = new Map<string, PlanResult>(); // request text -> result (few: one per button press)

// The system plans run on: the chosen one, else the catalog's built from the GPU.
export function planSystem(app: App): SystemSpec | undefined {
  const s = app.state;
  if (s.system) return systemById(app, s.system);
  const gpu = s.gpu === CUSTOM ? undefined : gpuById(app, s.gpu);
  return gpu ? app.systems.find((x) => x.gpu === gpu.id) : undefined;
}

// One request per GPU count; [] with a reason when there is no system to plan on.
export function planRequests(app: App): { requests: PlanRequest[]; why: string } {
  const s = app.state;
  const system = planSystem(app);
  if (!system)
    return { requests: [], why: 'No catalog system is built from this GPU: choose a system above to plan on.' };
  const base: PlanRequest = {
    system: system.id,
    model: s.model === CUSTOM && s.customModel ? s.customModel : s.model,
    gpu: s.gpu === CUSTOM && s.customGpu ? s.customGpu : s.gpu,
    global_batch: s.batch,
    seq: s.seq,
    predictor: s.predictor,
    top: TOP,
  };
  // The search trains every configuration in the forecast's precision (autocast when 16-bit).
  if (s.forecastPrecision !== 'fp32') base.precision = s.forecastPrecision;
  const requests: PlanRequest[] = [];
  for (let g = 1; g <= Math.max(1, system.gpus_per_node); g *= 2) requests.push({ ...base, gpus: g });
  return { requests, why: '' };
}

export function planKey(requests: PlanRequest[]): string {
  return requests.map((r) => JSON.stringify(r)).join('\n');
}

export function peekPlan(r: PlanRequest): PlanResult | undefined {
  return plans.get(JSON.stringify(r));
}

export function runPlan(engine: Engine, r: PlanRequest): PlanResult {
  const key = JSON.stringify(r);
  const t0 = performance.now();
  let result: PlanResult;
  try {
    // the page asks the eager engine's search (no "engine" field): a Plan, not a MegatronPlan
    result = { ok: true, plan: engine.planParallel(r) as Plan, ms: performance.now() - t0 };
  } catch (e) {
    result = { ok: false, error: errorMessage(e) };
  }
  plans.set(key, result);
  if (plans.size > 64) plans.delete(plans.keys().next().value as string);
  return result;
}

export function planProgress(done: number, all: number, gpus: number): string {
  return `Searching the plans: ${done} of ${all} GPU counts done, next ${gpus} GPU${gpus === 1 ? '' : 's'}…`;
}

// The merged result of every GPU count: counts summed, the fastest TOP steps.
export function renderPlans(results: PlanResult[], onUse: (e: PlanEntry) => void): void {
  const table = byId<HTMLTableElement>('plan-table');
  clear(table);
  const failed = results.filter((r): r is PlanResult & { ok: false } => !r.ok);
  const ok = results.filter((r): r is PlanResult & { ok: true } => r.ok);
  const sum = (f: (p: Plan) => number) => ok.reduce((n, r) => n + f(r.plan), 0);
  const considered = sum((p) => p.considered);
  const ms = ok.reduce((n, r) => n + r.ms, 0);
  const entries = ok
    .flatMap((r) => r.plan.by_step)
    .sort((a, b) => a.step_ms - b.step_ms)
    .slice(0, TOP);
  const status = byId('plan-status');
  setText(
    status,
    (ok.length
      ? `${considered.toLocaleString('en-US')} configurations (${sum((p) => p.does_not_divide).toLocaleString('en-US')} do not divide, ` +
        `${sum((p) => p.does_not_fit).toLocaleString('en-US')} do not fit, ${sum((p) => p.fitting).toLocaleString('en-US')} fit) ` +
        `in ${fmtMs(ms)} (${fmtRate(considered / (ms / 1000))} enumerated a second). 1F1B schedule, 25 MB gradient buckets, ` +
        `${PRECISION_WORDS[ok[0].plan.precision ?? 'fp32'] ?? ''}; fastest step first.`
      : '') + (failed.length ? ` ${failed[0].error}` : ''),
  );
  status.dataset.done = '1';
  status.dataset.considered = String(considered);
  if (!entries.length) return;
  table.append(
    h('caption', { class: 'sr-only' }, 'The fastest configurations'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['GPUs', 'dp × tp × pp', 'Micro-batches', 'ZeRO', 'Recompute', 'Step', 'Tokens/s per GPU', 'Memory', ''].map(
          (t, i) => h('th', { scope: 'col', class: i && i < 8 ? 'num' : undefined }, t),
        ),
      ),
    ),
  );
  const tbody = h('tbody');
  for (const e of entries) {
    const use = h('button', { type: 'button', class: 'secondary small' }, 'Use');
    use.addEventListener('click', () => onUse(e));
    tbody.append(
      h(
        'tr',
        { 'data-step': String(e.step_ms) },
        h('th', { scope: 'row' }, String(e.gpus)),
        h('td', { class: 'num' }, `${e.dp} × ${e.tp} × ${e.pp}`),
        h('td', { class: 'num' }, String(e.microbatches)),
        h('td', { class: 'num' }, String(e.zero)),
        h('td', { class: 'num' }, e.recompute),
        h('td', { class: 'num' }, fmtMs(e.step_ms)),
        h('td', { class: 'num' }, fmtRate(e.tokens_per_s_per_gpu)),
        h('td', { class: 'num' }, `${fmtNum(e.memory_gb)} / ${fmtNum(e.capacity_gb)} GB`),
        h('td', {}, use),
      ),
    );
  }
  table.append(tbody);
}
