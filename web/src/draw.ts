// Charts are drawn through here: the Chart.js chunk loads on the first drawing, after
// the first numbers are on screen (not in the first forecast's bytes), and numbers reach the
// screen without waiting for it.
import type { ChartConfiguration, ChartType } from 'chart.js';

let charts: Promise<typeof import('./charts')> | null = null;

export function preloadCharts(): void {
  if (charts) return;
  charts = import('./charts');
  // A chunk that fails before a drawing waits on it is not an unhandled rejection:
  // the drawing that comes says so in place of its chart.
  charts.catch(() => undefined);
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
    }, 0),
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
