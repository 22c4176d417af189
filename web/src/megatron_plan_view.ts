// The megatron engine's layout search on the page (api::plan_parallel with "engine": "megatron",
// docs/megatron.md "Plan"): the status line and the table of its fastest layouts, and the state
// a chosen layout sets (its request, one, of the GPUs to split: plan_request.ts). plan_view.ts runs
// it as it runs the eager search (the worker, the job).
import { byId, clear, h, setText } from './dom';
import type { MegatronPlan, MegatronPlanEntry } from './engine';
import { fmtMs, fmtNum, fmtRate } from './format';
import type { State } from './state';

const TITLES: Record<string, string> = {
  'dp × tp × pp × cp': 'data × tensor × pipeline × context parallelism; ep: experts over that many data-parallel ranks',
  Virtual: 'virtual pipeline stages per rank (interleaved 1F1B)',
  'Micro-batches': 'micro-batches per step per data-parallel replica × micro-batch size',
  Recompute: 'recomputation; SP: with sequence parallelism',
  Memory: 'per GPU (all these fit)',
};
const PRECISION_NAME: Record<string, string> = { bf16: 'BF16', fp16: 'FP16', fp8: 'FP8 GEMMs', fp32: 'FP32' };

// The state a layout of the table sets (its GPUs box), and the number fields to show it in.
export function megatronPlanPatch(e: MegatronPlanEntry): {
  patch: Partial<State>;
  fields: [string, number][];
} {
  return {
    patch: {
      dp: e.dp,
      trainTp: e.tp,
      pp: e.pp,
      cp: e.cp,
      ep: e.ep,
      virtualStages: e.virtual_stages,
      microbatches: e.microbatches,
      sequenceParallel: e.sequence_parallel,
      recompute: e.recompute,
      // the search's optimizer: distributed, its gradient reduction overlapped (the core's defaults)
      distributedOptimizer: true,
      overlapGradReduce: true,
    },
    fields: [
      ['dp', e.dp],
      ['train-tp', e.tp],
      ['pp', e.pp],
      ['cp', e.cp],
      ['ep', e.ep],
      ['vpp', e.virtual_stages],
      ['microbatches', e.microbatches],
    ],
  };
}

export function isMegatronPlanEntry(e: object): e is MegatronPlanEntry {
  return 'virtual_stages' in e;
}

// The status line and the table: the core's ranking (fastest step first), as it answers.
export function renderMegatronPlan(
  plan: MegatronPlan | undefined,
  ms: number,
  error: string,
  onUse: (e: MegatronPlanEntry) => void,
  top: number,
): void {
  const table = byId<HTMLTableElement>('plan-table');
  clear(table);
  const status = byId('plan-status');
  const p = plan;
  const forecast = p ? p.considered - p.does_not_divide : 0;
  setText(
    status,
    (p
      ? `${p.considered.toLocaleString('en-US')} layouts of ${p.gpus.toLocaleString('en-US')} GPUs (${p.does_not_divide.toLocaleString('en-US')} do not divide, ` +
        `${p.does_not_fit.toLocaleString('en-US')} do not fit, ${p.fitting.toLocaleString('en-US')} fit): the ${forecast.toLocaleString('en-US')} that divide ` +
        `forecast in ${fmtMs(ms)} (${fmtRate(forecast / (ms / 1000))} a second). Megatron-Core, ${PRECISION_NAME[p.precision] ?? p.precision}, ` +
        `${p.attention === 'flash' ? 'FlashAttention' : 'fused-softmax attention'}, distributed optimizer, 1F1B (interleaved with virtual stages); fastest step first.`
      : '') + (error ? ` ${error}` : ''),
  );
  status.dataset.done = '1';
  status.dataset.considered = String(p?.considered ?? 0);
  status.dataset.largest = String(p?.gpus ?? 0);
  status.dataset.forecast = String(forecast); // bench/plan_page_bench.mjs reads these two
  status.dataset.ms = String(ms);
  setText(
    byId('plan-none'),
    p && !p.by_step.length
      ? `None of the ${p.considered.toLocaleString('en-US')} layouts of ${p.gpus} GPUs works: ${p.does_not_fit.toLocaleString('en-US')} need more memory per GPU than it has and ${p.does_not_divide.toLocaleString('en-US')} do not divide (heads by tensor parallelism, the sequence by context parallelism, the global batch by data parallelism). What would help: more GPUs (the field above), FP8 or a smaller micro-batch, a smaller sequence length or model.`
      : '',
  );
  if (!p?.by_step.length) return;
  const heads = ['dp × tp × pp × cp', 'Virtual', 'Micro-batches', 'Recompute'];
  table.append(
    h('caption', { class: 'sr-only' }, 'The fastest Megatron-Core layouts'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...[...heads, 'Step', 'Tokens/s/GPU', 'MFU', 'Memory', ''].map((t, i) =>
          h('th', { scope: 'col', class: i && i < 8 ? 'num' : undefined, title: TITLES[t] }, t),
        ),
      ),
    ),
  );
  const tbody = h('tbody');
  for (const e of p.by_step.slice(0, top)) {
    const use = h('button', { type: 'button', class: 'secondary small' }, 'Use');
    use.addEventListener('click', () => onUse(e));
    tbody.append(
      h(
        'tr',
        { 'data-step': String(e.step_ms), 'data-mfu': String(e.mfu) },
        h('th', { scope: 'row' }, `${e.dp} × ${e.tp} × ${e.pp} × ${e.cp}${e.ep > 1 ? `, ep ${e.ep}` : ''}`),
        h('td', { class: 'num' }, String(e.virtual_stages)),
        h('td', { class: 'num' }, `${e.microbatches} × ${e.microbatch_size}`),
        h('td', { class: 'num' }, e.sequence_parallel ? `${e.recompute}, SP` : e.recompute),
        h('td', { class: 'num' }, fmtMs(e.step_ms)),
        h('td', { class: 'num' }, fmtRate(e.tokens_per_s_per_gpu)),
        h('td', { class: 'num' }, `${fmtNum(100 * e.mfu)}%`),
        h('td', { class: 'num', title: `of ${fmtNum(e.capacity_gb)} GB` }, `${fmtNum(e.memory_gb)} GB`),
        h('td', {}, use),
      ),
    );
  }
  table.append(tbody);
}
