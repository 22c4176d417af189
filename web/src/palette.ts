// The page's colours, one per kind of thing drawn, written once: every chart, memory bar,
// legend and timeline takes its colour from here by kind, so a colour means one thing across
// the views (the optimizer's step and its states are one kind; the bubble is the bubble on the
// breakdown and the timeline). No two kinds share a colour (calc.test checks it on the page).
export const PALETTE = {
  // series of a chart
  tilecast: '#2f6fdb', // the learned forecast
  roofline: '#9aa5b8', // the roofline bound
  throughput: '#e0762b',
  band: 'rgba(47, 111, 219, 0.18)', // the 80% band around the learned forecast
  unfit: '#b3261e', // forecasts that do not fit in the GPU's memory
  // serving: time to first token (the prefill), one decode step, a context beyond the model's positions
  prefill: '#0369a1',
  decode: '#be185d',
  beyond: '#a8a29e',
  // serving under load: the median (P50) beside the P99 (prefill, decode above) and the SLO's line
  prefill_p50: '#7dd3fc',
  decode_p50: '#f9a8d4',
  slo: '#111827',
  // time by kind of operation (the eager and compiled engines' breakdown)
  gemm: '#1e3a8a',
  attention_bmm: '#7b5cd6',
  softmax: '#d6569a',
  norm: '#3aa17e',
  elementwise: '#c9a227',
  memory: '#6b7280',
  communication: '#0f766e', // and the timeline's other communication
  bubble: '#f6d5d1', // the pipeline's idle time
  // the Megatron-Core step's parts, and the timeline's streams of the same kind
  compute: '#60a5fa',
  recompute: '#c4b5fd',
  tp_comm: '#2dd4bf',
  pp_comm: '#8a5a44', // pipeline sends
  dp_comm: '#166534', // data-parallel gradients (and ZeRO's gathers)
  optimizer: '#d4a72c', // the optimizer's step and its states in memory
  forward: '#3730a3',
  backward: '#9a3412',
  // memory per GPU
  weights: '#475569',
  gradients: '#84cc16',
  activations: '#a21caf',
  workspace: '#fdba74',
  context: '#cbd5e1', // the CUDA context
  kv_cache: '#0ea5e9',
  // the per-operator bound analysis: where an operator sits on the roofline
  compute_bound: '#b45309',
  memory_bound: '#0e7490',
} as const;

export type Kind = keyof typeof PALETTE;

// Marks an element with the kinds it draws and their colours (data-kind-colors, for tests and tools).
export function markKinds(el: HTMLElement, kinds: readonly Kind[]): void {
  el.dataset.kindColors = JSON.stringify(Object.fromEntries(kinds.map((k) => [k, PALETTE[k]])));
}
