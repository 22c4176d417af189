// The serve view's "Under load" panel (issue 30 item 2): the serving simulator (docs/serving-load.md)
// run at several Poisson request rates, its P50 and P99 TTFT and TPOT plotted against requests/s
// with the SLO's lines and the P99s' 80% band, the highest rate meeting the SLO said in words (and
// across the band), the simulator's assumptions beside. Builds the requests and draws what it is given; render.ts runs the jobs.
import type { App } from './app';
import { servingRequestFor } from './app';
import { cliCommand } from './cli_command';
import { bandDatasets, bandPlugins, drawChart } from './draw';
import { byId, setText } from './dom';
import type { LoadRequest, ServingForecast, ServingLoadForecast, ServingRequest } from './engine';
import { fmtMs, fmtRate } from './format';
import { PALETTE, markKinds, type Kind } from './palette';
import { renderCaveats } from './views';

// The largest rate when none is given: this many times the static forecast's capacity (past
// saturation, so the knee shows), and that capacity's batch at most 256 (vLLM's max_num_seqs on
// the A100s and GPUs under 70 GiB; the simulator's 1,024 on larger ones adds sequences the KV
// cache mostly bounds, so the headroom is taken to cover them).
export const AUTO_HEADROOM = 1.5;
export const CAPACITY_BATCH_MAX = 256;

// `v` to `digits` significant digits (the rates the page asks for and shows).
export function roundSig(v: number, digits: number): number {
  return Number(v.toPrecision(digits));
}

// The static forecast whose throughput gives the default largest rate: the batch that fits (at
// most CAPACITY_BATCH_MAX), every request prefilled together then decoded.
export function capacityRequest(app: App, f: ServingForecast): ServingRequest {
  return servingRequestFor(app, { batch: Math.max(1, Math.min(f.max_batch, CAPACITY_BATCH_MAX)) });
}

// Requests/s that static batch serves (batch / whole request time), times AUTO_HEADROOM, to two
// significant digits; 1 when the forecast gives nothing usable. A replica of `replicaGpus` GPUs
// with the experts spread over them serves that many times one GPU's (each GPU its own requests).
export function autoMaxQps(cap: ServingForecast, replicaGpus = 1): number {
  const perS = (cap.batch * 1000 * replicaGpus) / cap.total_ms;
  return Number.isFinite(perS) && perS > 0 ? roundSig(perS * AUTO_HEADROOM, 2) : 1;
}

// `points` rates evenly spaced up to maxQps (max/points, 2 max/points, ..., max), three
// significant digits each, duplicates (tiny rates) left out.
export function loadRates(maxQps: number, points: number): number[] {
  const out: number[] = [];
  for (let i = 1; i <= points; i++) {
    const r = roundSig((maxQps * i) / points, 3);
    if (r > 0 && !out.includes(r)) out.push(r);
  }
  return out;
}

// The simulation at one rate: the serve view's request (its batch left out: the scheduler batches),
// its experts over loadEp GPUs when above 1 (the core refuses a dense model, tp above 1 or an ep
// not dividing the routed experts: its message is the panel's).
export function loadRequestFor(app: App, qps: number): LoadRequest {
  const { batch: _batch, ...serving } = servingRequestFor(app);
  const r: LoadRequest = { ...serving, qps, requests: app.state.loadRequests, seed: app.state.loadSeed };
  if (app.state.loadRangeRatio > 0) r.range_ratio = app.state.loadRangeRatio;
  if (app.state.loadEp > 1) r.ep = app.state.loadEp;
  return r;
}

// The same simulation on the command line, its rate left as R (one command for every point).
export function loadCommand(r: LoadRequest): string | null {
  const request: LoadRequest | (Omit<LoadRequest, 'qps'> & { qps: string }) = { ...r, qps: 'R' };
  return cliCommand('serve', request, { tp: 1, engine: 'fused', predictor: 'tilecast' });
}

export interface LoadPoint {
  qps: number; // the asked rate
  ttft: { p50: number; p99: number };
  tpot: { p50: number; p99: number };
  e2e: { p50: number; p99: number };
  requests_per_s: number; // served
  // the 80% band of the P99s, [least, most] (the simulation's `band`; null where it has none)
  band: { ttft_p99: [number, number]; tpot_p99: [number, number] } | null;
}

export function loadPoint(qps: number, f: ServingLoadForecast): LoadPoint {
  return {
    qps,
    ttft: { p50: f.ttft_ms.p50, p99: f.ttft_ms.p99 },
    tpot: { p50: f.tpot_ms.p50, p99: f.tpot_ms.p99 },
    e2e: { p50: f.e2e_ms.p50, p99: f.e2e_ms.p99 },
    requests_per_s: f.requests_per_s,
    band: f.band ? { ttft_p99: f.band.ttft_ms.p99, tpot_p99: f.band.tpot_ms.p99 } : null,
  };
}

export interface Slo {
  ttftMs: number;
  tpotMs: number;
}

export function meetsSlo(p: LoadPoint, slo: Slo): boolean {
  return p.ttft.p99 <= slo.ttftMs && p.tpot.p99 <= slo.tpotMs;
}

// The rates' words under expert parallelism ('' without): they are the whole replica's.
export function replicaWords(ep: number): string {
  return ep > 1
    ? ` The rates are the replica's: requests/s to all ${ep} GPUs together, the experts spread over them.`
    : '';
}

// The highest rate of the sweep below which every rate meets the SLO at P99 (0: not even the
// lowest), and the sentence saying it.
export function sloVerdict(points: LoadPoint[], slo: Slo): { maxQps: number; words: string } {
  const target = `P99 TTFT ≤ ${fmtMs(slo.ttftMs)} and P99 TPOT ≤ ${fmtMs(slo.tpotMs)}`;
  const firstMiss = points.findIndex((p) => !meetsSlo(p, slo));
  const rate = (p: LoadPoint) => `${fmtRate(p.qps)} requests/s`;
  if (firstMiss === -1) {
    const last = points[points.length - 1];
    return {
      maxQps: last?.qps ?? 0,
      words: `Every rate simulated meets the SLO (${target}), up to ${last ? rate(last) : '—'}: raise the largest rate to find where it stops.`,
    };
  }
  const miss = points[firstMiss];
  const why = [
    miss.ttft.p99 > slo.ttftMs ? `P99 TTFT is ${fmtMs(miss.ttft.p99)}` : '',
    miss.tpot.p99 > slo.tpotMs ? `P99 TPOT is ${fmtMs(miss.tpot.p99)}` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  if (firstMiss === 0)
    return {
      maxQps: 0,
      words: `No rate simulated meets the SLO (${target}): at the lowest, ${rate(miss)}, ${why}. Lower the largest rate, or loosen the SLO.`,
    };
  const best = points[firstMiss - 1];
  return {
    maxQps: best.qps,
    words: `Meets the SLO (${target}) up to ${rate(best)} of the rates simulated; at ${rate(miss)} ${why}.`,
  };
}

// The SLO's verdict across the 80% band: the highest rate meeting it at P99 with every step at the
// band's slow edge and at its fast edge (each the rule of sloVerdict on that edge's P99s), and the
// sentence; null when a point has no band.
export function sloBandVerdict(
  points: LoadPoint[],
  slo: Slo,
): { slowQps: number; fastQps: number; words: string } | null {
  if (!points.length || points.some((p) => !p.band)) return null;
  const edge = (i: 0 | 1): LoadPoint[] =>
    points.map((p) => ({
      ...p,
      ttft: { ...p.ttft, p99: p.band!.ttft_p99[i] },
      tpot: { ...p.tpot, p99: p.band!.tpot_p99[i] },
    }));
  const slowQps = sloVerdict(edge(1), slo).maxQps;
  const fastQps = sloVerdict(edge(0), slo).maxQps;
  const rate = (q: number) => (q > 0 ? `${fmtRate(q)} requests/s` : 'none of the rates');
  const words =
    slowQps === fastQps
      ? ` Across the 80% band (every step at its slow or fast edge) the same: ${rate(slowQps)}.`
      : ` Across the 80% band: ${rate(slowQps)} with every step at its slow edge, ${rate(fastQps)} at its fast edge.`;
  return { slowQps, fastQps, words };
}

// What the simulation assumed, from its answer (one rate's: they share every setting but the rate).
// The requests' lengths as the simulation drew them.
function lengthsText(f: ServingLoadForecast): string {
  const p = f.prompt ?? '?',
    o = f.output ?? '?';
  if (!f.range_ratio) return `every one ${p} prompt and ${o} output tokens`;
  const pct = Math.round(f.range_ratio * 100);
  return `prompts and outputs drawn uniform within ±${pct} % of ${p} and ${o} tokens (vLLM's random dataset, range ratio ${f.range_ratio})`;
}

// The replica simulated: one GPU, tp GPUs in tensor parallel, or (the response's ep, present only
// above 1) ep GPUs each running its own requests with the routed experts spread over them.
function replicaText(f: ServingLoadForecast): string {
  if (f.ep && f.ep > 1)
    return `${f.ep} GPUs, each running its own requests (attention data parallel) and 1/${f.ep} of the routed experts, two all-to-alls per MoE layer (GPU 0's share simulated, the GPUs alike)`;
  return f.tp === 1 ? 'one GPU' : `${f.tp} GPUs in tensor parallel`;
}

export function loadAssumptions(f: ServingLoadForecast, command: string | null): string {
  const gpus = replicaText(f);
  const rates =
    f.ep && f.ep > 1
      ? `Requests/s on the axis are the rates asked of the whole replica (all ${f.ep} GPUs), as are its throughput and requests/s served; TTFT and TPOT as vLLM's benchmark measures them.`
      : `Requests/s on the axis are the rates asked; TTFT and TPOT as vLLM's benchmark measures them.`;
  const scheduler =
    f.scheduler === 'continuous'
      ? "vLLM v1's scheduler (continuous batching, chunked prefill, preemption by recompute when the KV cache is full)"
      : `the ${f.scheduler} scheduler`;
  return (
    `Each rate: ${f.requests.toLocaleString('en-US')} requests arriving as a Poisson stream (seed ${f.seed}), ${lengthsText(f)}, on one replica of ${gpus}; ${f.ep && f.ep > 1 ? 'on each GPU ' : ''}${scheduler}, at most ${f.max_seqs} sequences and ${f.max_batch_tokens.toLocaleString('en-US')} tokens a step, a KV cache of ${f.kv_blocks.toLocaleString('en-US')} blocks of ${f.block_tokens} tokens (${Math.round(f.gpu_memory_utilization * 100)} % of the memory). ` +
    rates +
    (command ? ` Each point is \`${command}\`.` : '')
  );
}

type Metric = 'ttft' | 'tpot';
function drawLoadChart(id: string, metric: Metric, points: LoadPoint[], sloMs: number, ep: number): void {
  const canvas = byId<HTMLCanvasElement>(id);
  const [p99Kind, p50Kind]: [Kind, Kind] = metric === 'ttft' ? ['prefill', 'prefill_p50'] : ['decode', 'decode_p50'];
  const name = metric === 'ttft' ? 'TTFT' : 'TPOT';
  canvas.dataset.points = String(points.length);
  canvas.dataset.slo = String(sloMs);
  const band = points.every((p) => p.band);
  // the P99's 80% band at each point (none when a point has none)
  const bands = band ? points.map((p) => (metric === 'ttft' ? p.band!.ttft_p99 : p.band!.tpot_p99)) : [];
  const bandLabel = `80% band of P99 ${name}`;
  markKinds(canvas, [p99Kind, p50Kind, 'slo', ...(band ? (['band'] as const) : [])]);
  drawChart(canvas, {
    type: 'line',
    data: {
      labels: points.map((p) => fmtRate(p.qps)),
      datasets: [
        {
          label: `P99 ${name}`,
          data: points.map((p) => p[metric].p99),
          borderColor: PALETTE[p99Kind],
          backgroundColor: PALETTE[p99Kind],
        },
        {
          label: `P50 ${name}`,
          data: points.map((p) => p[metric].p50),
          borderColor: PALETTE[p50Kind],
          backgroundColor: PALETTE[p50Kind],
        },
        {
          label: `SLO ${fmtMs(sloMs)}`,
          data: points.map(() => sloMs),
          borderColor: PALETTE.slo,
          backgroundColor: PALETTE.slo,
          borderDash: [6, 4],
          pointRadius: 0,
        },
        // the P99's 80% band
        ...(band ? bandDatasets(bandLabel, bands) : []),
      ],
    },
    options: {
      interaction: { mode: 'index', intersect: false },
      plugins: bandPlugins(bandLabel, bands, fmtMs),
      scales: {
        x: { title: { display: true, text: ep > 1 ? `requests/s (the replica's ${ep} GPUs)` : 'requests/s' } },
        // TTFT grows by orders of magnitude once requests queue: a log axis keeps the low rates readable.
        y:
          metric === 'ttft'
            ? { type: 'logarithmic', title: { display: true, text: 'ms (log scale)' } }
            : { beginAtZero: true, title: { display: true, text: 'ms' } },
      },
    },
  });
}

// The plot, the verdict and the points (data-sweep: the exact numbers, for tests and tools); `ep`
// the replica's expert-parallel GPUs as the simulation answered (1 without).
export function renderLoad(points: LoadPoint[], slo: Slo, ep: number): void {
  byId('load-charts').hidden = false;
  drawLoadChart('load-ttft-chart', 'ttft', points, slo.ttftMs, ep);
  drawLoadChart('load-tpot-chart', 'tpot', points, slo.tpotMs, ep);
  const verdict = sloVerdict(points, slo);
  const across = sloBandVerdict(points, slo);
  const box = byId('load-verdict');
  setText(box, verdict.words + (across?.words ?? '') + replicaWords(ep));
  box.dataset.maxQps = String(verdict.maxQps);
  if (across) box.dataset.bandQps = `${across.slowQps},${across.fastQps}`;
  else delete box.dataset.bandQps;
  byId('load-panel').dataset.sweep = JSON.stringify(points);
}

export function renderLoadAssumptions(f: ServingLoadForecast, command: string | null): void {
  setText(byId('load-assumptions'), loadAssumptions(f, command));
  renderCaveats(byId('load-caveats'), f.caveats ?? []);
}

// Nothing to plot (an error): the charts and words of an earlier sweep go (a plot of other inputs
// beside the refusal would read as this one's).
export function clearLoad(): void {
  byId('load-charts').hidden = true;
  setText(byId('load-verdict'), '');
  setText(byId('load-assumptions'), '');
  renderCaveats(byId('load-caveats'), []);
  delete byId('load-panel').dataset.sweep;
  delete byId('load-verdict').dataset.maxQps;
  delete byId('load-verdict').dataset.bandQps;
}
