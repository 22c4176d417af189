// Charts are drawn through here: the Chart.js chunk loads in parallel with the
// forecaster, and numbers reach the screen without waiting for it.
import type { ChartConfiguration, ChartType } from 'chart.js';

export const COLORS = {
  tilecast: '#2f6fdb',
  roofline: '#9aa5b8',
  accent: '#e0762b',
  kinds: ['#2f6fdb', '#7b5cd6', '#d6569a', '#e0762b', '#3aa17e', '#8a94a6'],
};

let charts: Promise<typeof import('./charts')> | null = null;

export function preloadCharts(): void {
  charts ??= import('./charts');
}

const pending = new Map<HTMLCanvasElement, ChartConfiguration>();
let scheduled = false;

// Numbers reach the screen first: charts are drawn right after the next frame, and
// only the latest configuration of each canvas is drawn.
export function drawChart<T extends ChartType>(canvas: HTMLCanvasElement, config: ChartConfiguration<T>): void {
  preloadCharts();
  pending.set(canvas, config as unknown as ChartConfiguration);
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() =>
    setTimeout(() => {
      scheduled = false;
      const jobs = [...pending];
      pending.clear();
      void charts!.then((m) => {
        for (const [c, cfg] of jobs) m.drawChart(c, cfg);
      });
    }, 0),
  );
}
