// Chart.js with only the pieces the page uses registered (tree-shaken). Loaded
// as its own chunk (see draw.ts) so the first forecast does not wait for it.
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Filler,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  ScatterController,
  Tooltip,
  type ChartConfiguration,
  type ChartType,
} from 'chart.js';

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  Filler,
  LinearScale,
  LogarithmicScale,
  LineController,
  LineElement,
  PointElement,
  ScatterController,
  Tooltip,
  Legend,
);

Chart.defaults.animation = false;
Chart.defaults.maintainAspectRatio = false;
Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
Chart.defaults.color = '#3b4252';

const charts = new Map<HTMLCanvasElement, Chart>();

// Creates the chart on first use; afterwards updates its labels and data in place
// (the options of a chart never change after creation), which keeps redraws cheap.
export function drawChart<T extends ChartType>(canvas: HTMLCanvasElement, config: ChartConfiguration<T>): Chart {
  const existing = charts.get(canvas);
  const datasets = config.data.datasets;
  if (
    existing &&
    (existing.config as { type?: string }).type === config.type &&
    existing.data.datasets.length === datasets.length
  ) {
    existing.data.labels = config.data.labels as unknown[];
    datasets.forEach((d, i) => {
      const target = existing.data.datasets[i];
      target.data = d.data as never;
      target.label = d.label;
    });
    existing.update('none');
    return existing;
  }
  existing?.destroy();
  const chart = new Chart(canvas, config as ChartConfiguration);
  charts.set(canvas, chart);
  return chart;
}
