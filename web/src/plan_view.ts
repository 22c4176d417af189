// "Best plans": api::plan_parallel (docs/parallel.md "Plan") for the forecast view's model,
// GPU, system, global batch and sequence, on request (a button), as a job off the input
// path: one planParallel call per GPU count (1, 2, 4, … up to a node), progress between
// them, the fastest configurations of all counts merged. A row's "Use" button sets the
// GPU fields to that configuration. render.ts decides when; this file computes and draws.
import { byId, clear, h, setText } from './dom';
import type { MegatronPlan, MegatronPlanEntry, Plan, PlanEntry, PlanRequest } from './engine';
import { fmtMs, fmtNum, fmtRate } from './format';
import { cancel, fillTasks, isRunning, type Task } from './jobs';
import { renderMegatronPlan } from './megatron_plan_view';
import { TOP } from './plan_request';

// A layout's "Use" (render.ts usePlan): Megatron-Core's rows set their own fields.
export { isMegatronPlanEntry, megatronPlanPatch } from './megatron_plan_view';

export type PlanResult = { ok: true; plan: Plan | MegatronPlan; ms: number } | { ok: false; error: string };

const PRECISION_WORDS: Record<string, string> = {
  fp32: 'FP32',
  bf16: 'BF16 mixed precision',
  fp16: 'FP16 mixed precision',
};
const plans = new Map<string, PlanResult>(); // request text -> result (few: one per button press)

// Why no configuration fits, and what would, from the merged counts.
export function noneFitText(ok: Plan[], bound: number, all: number): string {
  const sum = (f: (p: Plan) => number) => ok.reduce((n, p) => n + f(p), 0);
  const considered = sum((p) => p.considered);
  const noDivide = sum((p) => p.does_not_divide);
  const noFit = sum((p) => p.does_not_fit);
  const largest = Math.max(0, ...ok.flatMap((p) => p.gpu_counts));
  const why =
    `None of the ${considered.toLocaleString('en-US')} configurations on 1 to ${largest} GPUs works: ` +
    `${noFit.toLocaleString('en-US')} need more memory per GPU than it has and ${noDivide.toLocaleString('en-US')} do not divide ` +
    '(attention heads by tensor parallelism, layers by pipeline stages, the global batch by data parallelism × micro-batches).';
  const would: string[] = [];
  if (largest < all)
    would.push(`more GPUs: raise "search up to" (now ${bound}; the system holds ${all.toLocaleString('en-US')})`);
  if (ok[0] && ok[0].precision === 'fp32') would.push('BF16 mixed precision (half the weights and activations)');
  if (noDivide > noFit) would.push('a global batch with more factors of two');
  would.push('a smaller sequence length or model');
  return `${why} What would help: ${would.join('; ')}.`;
}

export function peekPlan(r: PlanRequest): PlanResult | undefined {
  return plans.get(JSON.stringify(r));
}

// ---- the search on the forecaster's thread (issue 33 item 5: the page never freezes) ----

// One count's search: a task of the plan job (jobs.ts), its result remembered here.
function planTask(r: PlanRequest): Task {
  return {
    peek: () => peekPlan(r),
    run: async (ask) => {
      const what = `The search on ${r.gpus} GPUs`;
      const a = await ask<Plan>('planParallel', r, what);
      if (!a.ok && 'superseded' in a) return undefined;
      // the page asks the eager engine's search (no "engine" field): a Plan, not a MegatronPlan
      const result: PlanResult = a.ok ? { ok: true, plan: a.value, ms: a.ms } : { ok: false, error: a.error };
      remember(r, result);
      return result;
    },
  };
}

// Runs the requests not yet answered, one at a time; `progress` after each and at the end.
// A search for another key replaces the running one (jobs.ts: its running call is ended).
export function searchPlans(key: string, requests: PlanRequest[], progress: () => void): void {
  fillTasks('plan', key, requests.map(planTask), progress, { each: progress });
}

export function cancelPlanSearch(): void {
  cancel('plan');
}

export function planSearchRunning(key: string): boolean {
  return isRunning('plan', key);
}

function remember(r: PlanRequest, result: PlanResult): void {
  plans.set(JSON.stringify(r), result);
  if (plans.size > 64) plans.delete(plans.keys().next().value as string);
}

export function planProgress(done: number, all: number, gpus: number): string {
  return `Searching the plans: ${done} of ${all} GPU counts done, next ${gpus} GPU${gpus === 1 ? '' : 's'}…`;
}

// The merged result of every GPU count: counts summed, the fastest TOP steps. The megatron
// engine's search (one count) is drawn by megatron_plan_view.ts.
export function renderPlans(
  results: PlanResult[],
  onUse: (e: PlanEntry | MegatronPlanEntry) => void,
  bound: number,
  all: number,
  megatron = false,
): void {
  const failed = results.filter((r): r is PlanResult & { ok: false } => !r.ok);
  if (megatron) {
    const r = results.find((x): x is PlanResult & { ok: true } => x.ok);
    renderMegatronPlan(r?.plan as MegatronPlan | undefined, r?.ms ?? 0, failed[0]?.error ?? '', onUse, TOP);
    return;
  }
  const table = byId<HTMLTableElement>('plan-table');
  clear(table);
  const ok = results.filter((r): r is PlanResult & { ok: true } => r.ok).map((r) => ({ ...r, plan: r.plan as Plan })); // the eager engine's search
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
  status.dataset.largest = String(Math.max(0, ...ok.flatMap((r) => r.plan.gpu_counts)));
  const none = byId('plan-none');
  setText(
    none,
    ok.length && !entries.length
      ? noneFitText(
          ok.map((r) => r.plan),
          bound,
          all,
        )
      : '',
  );
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
