// The batch sweep: the forecast at every batch size up to the largest asked (Megatron-Core's
// global batch in steps of its layout), latency with its 80% band and the roofline, throughput, the
// batches that do not fit marked. Draws what it is given; render.ts decides when. Loaded on demand
// (lazy.ts): the landing view does not draw it.
import { requestFor, type App } from './app';
import { bandDatasets, bandPlugins, drawChart } from './draw';
import { PALETTE, markKinds } from './palette';
import { byId } from './dom';
import type { ModelRequest } from './engine';
import type { Result } from './memo';
import { fmtMs } from './format';
import { isMegatronState } from './state';
import { bandOf, rooflineOf } from './views';

// The sweep's batches and their requests (the view and its export): 1, 2, … sweepMax; Megatron-Core's
// global batch is dp × micro-batches × the micro-batch size, so it steps by dp × m.
export function sweepRequests(app: App): { batches: number[]; requests: ModelRequest[] } {
  const s = app.state;
  const step = isMegatronState(s) ? s.dp * s.microbatches : 1;
  const batches = Array.from({ length: s.sweepMax }, (_, i) => (i + 1) * step);
  return { batches, requests: batches.map((b) => requestFor(app, undefined, b)) };
}

export interface SweepPoint {
  batch: number;
  latency_ms: number;
  band: [number, number] | null; // the 80% band; null for the roofline predictor
  roofline_ms: number;
  samples_per_s: number;
  fits: boolean; // in the GPU's memory (the core's memory.fits)
}

// The first batch of the sweep that does not fit in memory, or 0 when every one does.
export function firstUnfit(points: SweepPoint[]): number {
  return points.find((p) => !p.fits)?.batch ?? 0;
}

// The sweep's points from results for `batches` (1, 2, …; the megatron engine's multiples of
// dp × micro-batches): up to the first error.
export function sweepPoints(results: Result[], batches: number[]): { points: SweepPoint[]; error: string } {
  const points: SweepPoint[] = [];
  for (const [i, r] of results.entries()) {
    if (!r.ok) return { points, error: `Batch ${batches[i]}: ${r.error}` };
    points.push({
      batch: batches[i],
      latency_ms: r.f.latency_ms,
      band: bandOf(r.f),
      roofline_ms: rooflineOf(r.f),
      samples_per_s: r.f.samples_per_s,
      fits: r.f.memory?.fits ?? true,
    });
  }
  return { points, error: '' };
}

const SWEEP_BAND = '80% band (ms)';

export function renderSweep(app: App, points: SweepPoint[]): void {
  const roofline = points.some((p) => Number.isFinite(p.roofline_ms));
  const xTitle = isMegatronState(app.state) ? 'global batch (sequences per step)' : 'batch size';
  const labels = points.map((p) => String(p.batch));
  const bands = points.map((p) => p.band);
  const hasBand = bands.some((b) => b);
  byId('sweep-latency').dataset.band = hasBand ? '1' : '0';
  const unfit = firstUnfit(points);
  byId('sweep-latency').dataset.firstUnfit = String(unfit);
  markKinds(byId('sweep-latency'), [
    'tilecast',
    ...(roofline ? (['roofline'] as const) : []),
    ...(unfit ? (['unfit'] as const) : []),
    ...(hasBand ? (['band'] as const) : []),
  ]);
  markKinds(byId('sweep-throughput'), ['throughput']);
  drawChart(byId<HTMLCanvasElement>('sweep-latency'), {
    type: 'line',
    data: {
      labels,
      datasets: [
        {
          label: `${app.state.predictor} (ms)`,
          data: points.map((p) => p.latency_ms),
          borderColor: PALETTE.tilecast,
          backgroundColor: PALETTE.tilecast,
          pointRadius: 0,
        },
        ...(roofline
          ? [
              {
                label: 'roofline only (ms)',
                data: points.map((p) => p.roofline_ms),
                borderColor: PALETTE.roofline,
                backgroundColor: PALETTE.roofline,
                pointRadius: 0,
                borderDash: [4, 3],
              },
            ]
          : []),
        // the batches that do not fit in memory, drawn over the line in the error colour
        ...(unfit
          ? [
              {
                label: 'does not fit in memory (ms)',
                data: points.map((p) => (p.fits ? null : p.latency_ms)),
                borderColor: PALETTE.unfit,
                backgroundColor: PALETTE.unfit,
                pointRadius: 2,
                borderWidth: 3,
              },
            ]
          : []),
        // the 80% band
        ...(hasBand ? bandDatasets(SWEEP_BAND, bands) : []),
      ],
    },
    options: {
      interaction: { mode: 'index', intersect: false },
      plugins: bandPlugins(SWEEP_BAND, bands, fmtMs, '80% band'),
      scales: {
        x: { title: { display: true, text: xTitle } },
        y: { beginAtZero: true, title: { display: true, text: 'ms' } },
      },
    },
  });
  drawChart(byId<HTMLCanvasElement>('sweep-throughput'), {
    type: 'line',
    data: {
      labels,
      datasets: [
        {
          label: 'samples/s',
          data: points.map((p) => p.samples_per_s),
          borderColor: PALETTE.throughput,
          backgroundColor: PALETTE.throughput,
          pointRadius: 0,
        },
      ],
    },
    options: {
      interaction: { mode: 'index', intersect: false },
      scales: {
        x: { title: { display: true, text: xTitle } },
        y: { beginAtZero: true, title: { display: true, text: 'samples/s' } },
      },
    },
  });
}
