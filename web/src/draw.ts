// Charts are drawn through here: the Chart.js chunk loads on the first drawing, after
// the first numbers are on screen (not in the first forecast's bytes), and numbers reach the
// screen without waiting for it.
import type { ChartConfiguration, ChartType, LegendItem, TooltipItem } from 'chart.js';
import { afterFrame } from './dom';
import { PALETTE } from './palette';

let charts: Promise<typeof import('./charts')> | null = null;

export function preloadCharts(): void {
  if (charts) return;
  charts = import('./charts');
  // A chunk that fails before a drawing waits on it is not an unhandled rejection:
  // the drawing that comes says so in place of its chart.
  charts.catch(() => undefined);
}

const pending = new Map<HTMLCanvasElement, ChartConfiguration>();

// Numbers reach the screen first: charts are drawn right after the next frame (dom.ts
// afterFrame), all waiting canvases for one load of the chunk, and only the latest configuration
// of each canvas is drawn.
export function drawChart<T extends ChartType>(canvas: HTMLCanvasElement, config: ChartConfiguration<T>): void {
  preloadCharts();
  pending.set(canvas, config as unknown as ChartConfiguration);
  afterFrame('charts', drawPending);
}

function drawPending(): void {
  const jobs = [...pending];
  pending.clear();
  charts!.then(
    (m) => {
      for (const [c, cfg] of jobs) {
        chartFailed(c, '');
        m.drawChart(c, cfg);
      }
    },
    (e: unknown) => {
      // The numbers and tables are complete without charts; say why they are missing.
      charts = null; // the next drawing tries again
      const why = e instanceof Error ? e.message : String(e);
      for (const [c] of jobs)
        chartFailed(
          c,
          `The chart could not be loaded (${why}). The numbers and tables are complete; reload the page to try again.`,
        );
    },
  );
}

// Shows (or clears, for '') a message in place of a chart that could not be drawn.
function chartFailed(canvas: HTMLCanvasElement, message: string): void {
  const box = canvas.parentElement;
  if (!box) return;
  let note = box.querySelector<HTMLElement>('.chart-error');
  if (!message) {
    note?.remove();
    return;
  }
  if (!note) {
    note = document.createElement('p');
    note.className = 'error chart-error';
    note.setAttribute('role', 'status');
    box.prepend(note);
  }
  note.textContent = message;
}

// An 80% band on a line chart: its upper edge (`label`) filled down to its lower edge, a dataset
// of its own (BAND_LOW) that bandPlugins keeps out of the legend and the tooltip. A point without
// a band ([lo, hi] null) leaves a gap.
const BAND_LOW = '80% band, lower edge';

export function bandDatasets(label: string, bands: ([number, number] | null | undefined)[]) {
  const edge = (i: 0 | 1) => ({
    data: bands.map((b) => b?.[i] ?? null),
    borderWidth: 0,
    backgroundColor: PALETTE.band,
    pointRadius: 0,
  });
  return [
    { label, ...edge(1), fill: '+1' as const },
    { label: BAND_LOW, ...edge(0), fill: false as const },
  ];
}

// The legend and tooltip of a chart with bandDatasets(label, bands): the band's tooltip line
// gives its edges (named `word`), every other line its value, both written by `fmt`.
export function bandPlugins(
  label: string,
  bands: ([number, number] | null | undefined)[],
  fmt: (v: number) => string,
  word = label,
) {
  const line = (c: TooltipItem<'line'>) => {
    const b = bands[c.dataIndex];
    return c.dataset.label === label && b
      ? `${word}: ${fmt(b[0])}–${fmt(b[1])}`
      : `${c.dataset.label ?? ''}: ${fmt(Number(c.raw))}`;
  };
  return {
    legend: { labels: { filter: (item: LegendItem) => item.text !== BAND_LOW } },
    tooltip: { filter: (item: TooltipItem<'line'>) => item.dataset.label !== BAND_LOW, callbacks: { label: line } },
  };
}
