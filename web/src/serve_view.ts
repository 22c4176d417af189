// The serve view: a serving forecast's headline numbers (time to first token, time
// per output token, tokens/s), its memory against the GPU's capacity, and two
// charts drawn from many serving forecasts (tokens/s against batch, one decode
// step against the context). Draws what it is given; render.ts decides when.
import { drawChart } from './draw';
import { PALETTE, markKinds } from './palette';
import { byId, setText } from './dom';
import type { ServingForecast, ServingRequest } from './engine';
import { fmtMs, fmtRate } from './format';
import type { ServeResult } from './memo';
import { renderCaveats, setOutput, showFooting } from './views';
import { footing } from './footing';
import { drawMemoryBar, gb } from './memory_bar';

const PRECISION_WORDS: Record<string, string> = { bf16: 'BF16', fp16: 'FP16', fp32: 'FP32' };

export function engineWords(engine: string): string {
  return engine === 'eager' ? 'PyTorch eager' : 'an optimised engine (fused kernels, CUDA graphs)';
}

export function serveTitle(f: ServingForecast): string {
  return `${f.model.name} on ${f.gpu.name}`;
}

// "batch 8 · 512 + 256 tokens · BF16 · fused · 1 GPU": the request in one line.
export function serveSetting(f: ServingForecast): string {
  const gpus = f.tp === 1 ? '1 GPU' : `${f.tp} GPUs (tensor parallel)`;
  const stored = `${f.weights ? ` · ${f.weights.toUpperCase()} weights` : ''}${f.kv_cache ? ` · ${f.kv_cache.toUpperCase()} KV cache` : ''}`;
  return `batch ${f.batch} · ${f.prompt} prompt + ${f.output} output tokens · ${PRECISION_WORDS[f.precision] ?? f.precision}${stored} · ${f.engine === 'eager' ? 'PyTorch eager' : 'optimised engine'} · ${gpus}`;
}

// The headline figures, the same for the view and the embed card (ids
// `${prefix}ttft`, `${prefix}tpot`, `${prefix}serve-tokens`).
export function showServeFigures(prefix: '' | 'embed-', f: ServingForecast): void {
  setOutput(`${prefix}ttft`, fmtMs(f.prefill_ms), f.prefill_ms);
  setOutput(`${prefix}tpot`, fmtMs(f.decode_ms_per_token), f.decode_ms_per_token);
  setOutput(`${prefix}serve-tokens`, `${fmtRate(f.tokens_per_s)} tokens/s`, f.tokens_per_s);
}

const MEMORY_PARTS = [
  ['weights_gb', 'Weights', 'weights'],
  ['kv_cache_gb', 'KV cache', 'kv_cache'],
  ['activations_gb', 'Activations', 'activations'],
  ['context_gb', 'CUDA context and workspaces', 'context'],
] as const;

// What the memory would hold past the tokens the model was trained for (nothing when within).
function beyondModel(f: ServingForecast): string {
  return f.model_context > 0 && f.max_context > f.model_context
    ? ` (beyond the model's own ${f.model_context.toLocaleString('en-US')})`
    : '';
}

// Weights, KV cache, activations and context stacked against the GPU's memory.
function renderMemory(f: ServingForecast): void {
  const m = f.memory;
  drawMemoryBar('memory-bar', 'memory-legend', MEMORY_PARTS, m);
  const fitWords = m.fits
    ? `Fits: ${gb(m.total_gb)} of ${gb(m.capacity_gb)}.`
    : `Does not fit: ${gb(m.total_gb)} is ${gb(m.total_gb - m.capacity_gb)} over the ${gb(m.capacity_gb)} of memory.`;
  const largest =
    f.max_batch > 0
      ? ` The largest batch that fits at ${f.prompt + f.output} tokens per request: ${f.max_batch}; the longest context the memory holds at batch ${f.batch}: ${f.max_context.toLocaleString('en-US')} tokens${beyondModel(f)}.`
      : ' Not even one request of this length fits.';
  setText(
    byId('memory-note'),
    fitWords + largest + ` KV cache: ${f.kv_cache_bytes_per_token.toLocaleString('en-US')} bytes per token.`,
  );
}

// "80% band 80–141 ms · " for one of the forecast's latencies ('' without a band: the roofline).
function bandWords(f: ServingForecast, ms: number): string {
  return f.band ? `80% band ${fmtMs(ms * f.band.low)}–${fmtMs(ms * f.band.high)} · ` : '';
}

export function renderServe(f: ServingForecast): void {
  const body = byId('serve-body');
  body.hidden = false;
  body.dataset.gpu = f.gpu.id || 'custom';
  body.dataset.model = f.model.id || 'custom';
  setText(byId('serve-title'), `${serveTitle(f)} — serving, ${serveSetting(f)}`);
  setText(
    byId('serve-assumptions'),
    `Forecast of ${f.batch === 1 ? 'one request' : `${f.batch} requests arriving together`}: their prefill (the time to first token), then one decode step per further token, on ${engineWords(f.engine)}. Continuous batching, queueing, paged-attention block sizes and speculative decoding are not modelled.`,
  );
  showServeFigures('', f);
  showFooting(byId('serve-footing'), footing(f));
  setText(
    byId('ttft-sub'),
    `${bandWords(f, f.prefill_ms)}prefill of ${f.batch} × ${f.prompt} tokens; whole request ${fmtMs(f.total_ms)}`,
  );
  setText(
    byId('tpot-sub'),
    `${bandWords(f, f.decode_ms_per_token)}mean decode step over ${f.output - 1} steps${f.comm_ms > 0 ? `; all-reduces ${fmtMs(f.comm_ms)} per request` : ''}`,
  );
  setText(
    byId('serve-tokens-sub'),
    `generated tokens per second during decode, the whole batch (${fmtRate(f.tokens_per_s / f.batch)} per request)`,
  );
  renderCaveats(byId('serve-caveats'), f.caveats ?? []);
  renderMemory(f);
}

export function showServeError(r: ServeResult & { ok: false }, model: { architecture?: string } | undefined): void {
  const encoder = /bert|switch/i.test(model?.architecture ?? '') || /is an encoder/.test(r.error);
  setText(
    byId('serve-error'),
    encoder
      ? `No serving forecast: this is an encoder model, which does not generate tokens (${r.error})`
      : `No serving forecast: ${r.error}`,
  );
}

// ---- charts ----------------------------------------------------------------

// Batch sizes of the throughput chart: powers of two up to the largest batch that
// fits (at least the request's own batch), at most 512, and the request's batch.
export function chartBatches(f: ServingForecast): number[] {
  const top = Math.min(512, Math.max(f.max_batch, f.batch, 1));
  const out = new Set<number>();
  for (let b = 1; b <= top; b *= 2) out.add(b);
  out.add(f.batch);
  return [...out].sort((a, b) => a - b);
}

// Contexts of the decode chart: powers of two from 128 to the longest context that
// fits at this batch (at least the request's own), at most 131,072.
export function chartContexts(f: ServingForecast): number[] {
  const top = Math.min(1 << 17, Math.max(f.max_context, f.prompt + f.output, 128));
  const out = new Set<number>();
  for (let c = 128; c <= top; c *= 2) out.add(c);
  return [...out].sort((a, b) => a - b);
}

// One decode step at `context` cached tokens: a request of that prompt and two output
// tokens has exactly one decode step, at that context.
export function contextRequest(base: ServingRequest, context: number): ServingRequest {
  return { ...base, prompt: context, output: 2 };
}

export interface ServePoints {
  batch: { x: number; tokens_per_s: number; fits: boolean }[];
  context: { x: number; decode_ms: number; beyond: boolean }[];
}

// True when the forecast's caveats say the sequence is longer than the model's
// position table (the API's workload caveat): the cost of running it, shown dashed.
export function beyondPositions(f: ServingForecast): boolean {
  return (f.caveats ?? []).some((c) => /was built for \(\d+ positions\)/.test(c));
}

export function renderServeCharts(p: ServePoints): void {
  const batchCanvas = byId<HTMLCanvasElement>('serve-batch-chart');
  batchCanvas.dataset.points = String(p.batch.length);
  markKinds(batchCanvas, ['throughput', 'unfit']);
  drawChart(batchCanvas, {
    type: 'line',
    data: {
      labels: p.batch.map((q) => String(q.x)),
      datasets: [
        {
          label: 'tokens/s (fits in memory)',
          data: p.batch.map((q) => (q.fits ? q.tokens_per_s : null)),
          borderColor: PALETTE.throughput,
          backgroundColor: PALETTE.throughput,
        },
        {
          label: 'tokens/s (does not fit)',
          data: p.batch.map((q) => (q.fits ? null : q.tokens_per_s)),
          borderColor: PALETTE.unfit,
          backgroundColor: PALETTE.unfit,
          borderDash: [4, 3],
        },
      ],
    },
    options: {
      interaction: { mode: 'index', intersect: false },
      plugins: { tooltip: { callbacks: { label: (c) => `${fmtRate(Number(c.raw))} tokens/s` } } },
      scales: {
        x: { title: { display: true, text: 'batch size' } },
        y: { beginAtZero: true, title: { display: true, text: 'generated tokens/s' } },
      },
    },
  });
  const contextCanvas = byId<HTMLCanvasElement>('serve-context-chart');
  contextCanvas.dataset.points = String(p.context.length);
  contextCanvas.dataset.beyond = String(p.context.filter((q) => q.beyond).length);
  markKinds(contextCanvas, ['decode', 'beyond']);
  drawChart(contextCanvas, {
    type: 'line',
    data: {
      labels: p.context.map((q) => q.x.toLocaleString('en-US')),
      datasets: [
        {
          label: 'one decode step (ms)',
          data: p.context.map((q) => (q.beyond ? null : q.decode_ms)),
          borderColor: PALETTE.decode,
          backgroundColor: PALETTE.decode,
        },
        {
          label: "beyond the model's positions",
          data: p.context.map((q, i) => (q.beyond || p.context[i + 1]?.beyond ? q.decode_ms : null)),
          borderColor: PALETTE.beyond,
          backgroundColor: PALETTE.beyond,
          borderDash: [4, 3],
        },
      ],
    },
    options: {
      interaction: { mode: 'index', intersect: false },
      plugins: { tooltip: { callbacks: { label: (c) => fmtMs(Number(c.raw)) } } },
      scales: {
        x: { title: { display: true, text: 'tokens in the KV cache' } },
        y: { beginAtZero: true, title: { display: true, text: 'ms' } },
      },
    },
  });
}
