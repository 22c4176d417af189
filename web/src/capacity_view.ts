// The serve view's "GPUs for a request rate" panel (issue 30 item 2; docs/serving-load.md
// "Capacity"): the capacity plan for the serve view's model, GPU, lengths, precision and
// quantization at the request rate typed, within the SLO and with the requests per simulation,
// seed and length spread of the "Under load" panel: each tensor-parallel size's fewest replicas,
// the best first, and why an option meets nothing. Builds the request, draws what it is given;
// render.ts runs the job.
import type { App } from './app';
import { gpuLabel, servingRequestFor } from './app';
import { cliCommand } from './cli_command';
import { byId, clear, h, setText } from './dom';
import type { CapacityOption, CapacityPlan, CapacityRequest } from './engine';
import type { CapacityResult } from './memo';
import type { State } from './state';
import { fmtMs, fmtRate, fmtSi } from './format';
import { renderCaveats } from './views';

// The plan's request: the serving simulation's (its TP, engine and batch left out: the plan tries
// TP sizes and replicas of the fused engine, batching as the scheduler does).
export function capacityPlanRequest(app: App): CapacityRequest {
  const s = app.state;
  const { batch: _batch, tp: _tp, engine: _engine, ...serving } = servingRequestFor(app);
  return {
    ...serving,
    qps: s.capacityQps,
    requests: s.loadRequests,
    seed: s.loadSeed,
    ...(s.loadRangeRatio > 0 && { range_ratio: s.loadRangeRatio }),
    slo_ttft_ms: s.sloTtftMs,
    slo_tpot_ms: s.sloTpotMs,
    max_gpus: s.capacityMaxGpus,
    ...(s.capacityPrice > 0 && { price_per_gpu_hour: s.capacityPrice }),
  };
}

// Why no plan is asked for ('' when one is): no rate to plan for, or the eager engine (the plan
// simulates the fused engine's continuous batching).
export function capacityIdle(s: Readonly<State>): string {
  if (s.capacityQps <= 0) return 'Type a request rate to find the fewest GPUs serving it within the SLO above.';
  if (s.engine !== 'fused')
    return 'The capacity plan simulates the optimised engine (continuous batching): choose that engine above to plan.';
  return '';
}

export function capacityCommand(r: CapacityRequest): string | null {
  return cliCommand('capacity', r, { predictor: 'tilecast' });
}

// A price in dollars, as every capacity view writes it.
export const money = (v: number): string => `$${fmtRate(v)}`;

// An option's parallel layout, short ("TP 2", "EP 8": a mixture's experts over 8 GPUs, each its
// own requests) and in words.
export function layoutOf(o: Pick<CapacityOption, 'tp' | 'ep'>): string {
  return o.ep ? `EP ${o.ep}` : `TP ${o.tp}`;
}
function layoutWords(o: Pick<CapacityOption, 'tp' | 'ep'>): string {
  if (o.ep) return `${o.ep} GPUs, the experts spread over them, each GPU its own requests`;
  return o.tp === 1 ? 'one GPU' : `${o.tp} GPUs in tensor parallel`;
}

// The plan in one sentence: the best option, or that none meets and the first reason.
export function capacityVerdict(app: App, plan: CapacityPlan): string {
  const slo = `P99 TTFT ≤ ${fmtMs(plan.slo.ttft_ms)} and P99 TPOT ≤ ${fmtMs(plan.slo.tpot_ms)}`;
  const b = plan.best;
  if (!b) {
    const why = plan.options.find((o) => o.why)?.why;
    return `No option up to ${plan.max_gpus} GPUs serves ${fmtRate(plan.qps)} requests/s with ${slo}${why ? `: ${why}` : ''}.`;
  }
  const layout = b.replicas === 1 ? `one replica` : `${b.replicas} replicas`;
  const cost = b.price_per_hour !== undefined ? `, ${money(b.price_per_hour)} an hour` : '';
  return `${b.gpus} × ${gpuLabel(app, b.gpu)} (${layout} of ${layoutWords(b)}${cost}) serve ${fmtRate(plan.qps)} requests/s with ${slo}: P99 TTFT ${fmtMs(b.ttft_p99_ms)}, P99 TPOT ${fmtMs(b.tpot_p99_ms)}.${replicasBandWords(b)}`;
}

// The best option's replicas across the 80% band (every step at the band's fast and slow edge);
// '' without one (the roofline predictor, or past the work budget).
export function replicasBandWords(b: Pick<CapacityOption, 'replicas_band'>): string {
  if (!b.replicas_band) return '';
  const [fast, slow] = b.replicas_band;
  const most = slow === null ? 'more than the GPUs allowed' : String(slow);
  return fast === slow
    ? ` Across the 80% band the same: ${fast} replica${fast === 1 ? '' : 's'}.`
    : ` Across the 80% band: ${fast} to ${most} replicas (every step at the band's fast or slow edge).`;
}

// An option's row (the plan's GPU is the serve view's: not repeated); one that meets nothing has
// the reason on a row of its own beneath.
function optionRows(o: CapacityOption, best: boolean, priced: boolean, columns: number): HTMLTableRowElement[] {
  const cells = [
    h('td', { class: 'num' }, layoutOf(o)),
    h('td', { class: 'num' }, o.meets ? o.replicas : '—'),
    h('td', { class: 'num' }, o.gpus > 0 ? (o.meets ? o.gpus : `${o.gpus} tried`) : '—'),
    h('td', { class: 'num' }, o.ttft_p99_ms > 0 ? fmtMs(o.ttft_p99_ms) : '—'),
    h('td', { class: 'num' }, o.tpot_p99_ms > 0 ? fmtMs(o.tpot_p99_ms) : '—'),
    h('td', { class: 'num' }, o.tokens_per_gpu_hour !== undefined ? fmtSi(o.tokens_per_gpu_hour) : '—'),
    ...(priced
      ? [
          h('td', { class: 'num' }, o.price_per_hour !== undefined ? money(o.price_per_hour) : '—'),
          h('td', { class: 'num' }, o.tokens_per_dollar !== undefined ? fmtSi(o.tokens_per_dollar) : '—'),
        ]
      : []),
  ];
  const row = h('tr', { class: best ? 'best' : '', 'data-meets': String(o.meets) }, ...cells);
  if (o.meets) return [row];
  const why = `${layoutOf(o)}: ${o.why ?? 'the SLO is missed'}`;
  return [row, h('tr', { class: 'why' }, h('td', { colspan: columns }, why))];
}

// The verdict, the options' table (data-plan: the exact answer, for tests and tools), what the
// plan assumed and its caveats.
export function renderCapacity(app: App, plan: CapacityPlan, command: string | null): void {
  const priced = plan.options.some((o) => o.price_per_hour !== undefined) || app.state.capacityPrice > 0;
  setText(byId('capacity-verdict'), capacityVerdict(app, plan));
  const head = byId('capacity-head');
  clear(head);
  const names = ['Layout', 'Replicas', 'GPUs', 'P99 TTFT', 'P99 TPOT', 'Tokens per GPU-hour'];
  if (priced) names.push('Per hour', 'Tokens per $');
  head.append(h('tr', {}, ...names.map((n) => h('th', { scope: 'col' }, n))));
  const body = byId('capacity-body');
  clear(body);
  for (const [i, o] of plan.options.entries())
    body.append(...optionRows(o, i === 0 && plan.best !== null, priced, names.length));
  byId('capacity-table').hidden = false;
  byId('capacity-panel').dataset.plan = JSON.stringify(plan);
  const lengths = plan.range_ratio
    ? `prompts and outputs uniform within ±${Math.round(plan.range_ratio * 100)} % of ${plan.prompt} and ${plan.output} tokens`
    : `${plan.prompt} prompt and ${plan.output} output tokens each`;
  setText(
    byId('capacity-assumptions'),
    `Each option: tensor-parallel sizes that divide the model's heads (and for a mixture of experts, its experts over 2, 4 or 8 GPUs), the fewest replicas whose P99 TTFT and TPOT meet the SLO, each replica a simulation of ${plan.requests.toLocaleString('en-US')} requests (${lengths}) arriving as a Poisson stream at ${fmtRate(plan.qps)} requests/s ÷ replicas, load spread evenly; ${plan.simulations} simulations. Ranked by ${priced ? 'price an hour' : 'GPUs'}, those meeting the SLO first.` +
      (command ? ` The same plan: \`${command}\`.` : ''),
  );
  renderCaveats(byId('capacity-caveats'), plan.caveats ?? []);
}

// A comparison's column heading: the rate and SLO the plans are for (set in the serve view).
export function capacityColumn(s: Readonly<State>): string {
  return `GPUs for ${fmtRate(s.capacityQps)} req/s (P99 TTFT ≤ ${fmtMs(s.sloTtftMs)}, TPOT ≤ ${fmtMs(s.sloTpotMs)})`;
}

// A GPU's plan in a comparison's cell: its best option's GPUs (TP x replicas), none up to the most
// GPUs, the core's refusal, or that it is on its way.
export function capacityCell(plan: CapacityResult | undefined): { text: string; gpus: string; title?: string } {
  if (!plan) return { text: '…', gpus: '' };
  if (!plan.ok) return { text: '—', gpus: '', title: plan.error };
  const b = plan.f.best;
  if (!b) return { text: `none ≤ ${plan.f.max_gpus}`, gpus: '0', title: plan.f.options.find((o) => o.why)?.why };
  return { text: `${b.gpus} (${layoutOf(b)} × ${b.replicas})`, gpus: String(b.gpus) };
}

// Nothing to show (no rate, an error): an earlier plan's table and words go.
export function clearCapacity(): void {
  byId('capacity-table').hidden = true;
  clear(byId('capacity-body'));
  setText(byId('capacity-verdict'), '');
  setText(byId('capacity-assumptions'), '');
  clear(byId('capacity-caveats'));
  delete byId('capacity-panel').dataset.plan;
}
