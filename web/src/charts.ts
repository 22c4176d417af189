// Chart.js with only the pieces the page uses registered (tree-shaken).
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
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

export const COLORS = {
  tilecast: '#2f6fdb',
  roofline: '#9aa5b8',
  accent: '#e0762b',
  kinds: ['#2f6fdb', '#7b5cd6', '#d6569a', '#e0762b', '#3aa17e', '#8a94a6'],
};

const charts = new Map<HTMLCanvasElement, Chart>();

// Creates the chart on first use, afterwards swaps its data and options in place.
export function drawChart<T extends ChartType>(canvas: HTMLCanvasElement, config: ChartConfiguration<T>): Chart {
  const existing = charts.get(canvas);
  if (existing && (existing.config as { type?: string }).type === config.type) {
    existing.data = config.data as never;
    existing.options = (config.options ?? {}) as never;
    existing.update('none');
    return existing;
  }
  existing?.destroy();
  const chart = new Chart(canvas, config as ChartConfiguration);
  charts.set(canvas, chart);
  return chart;
}
