// The accuracy page: the committed report (public/accuracy.json, written by
// scripts/accuracy_report.sh) as tables and a measured-vs-forecast chart.
import { drawChart } from './draw';
import { PALETTE, markKinds } from './palette';
import { byId, clear, h, setText } from './dom';
import { fmtMs, fmtPct } from './format';
import { REPORT_SHAPE, shapeProblems } from './accuracy_report.js';

// The report's types, derived from its one definition (accuracy_report.js).
type Leaf = { string: string; number: number; 'string|null': string | null; 'number|null': number | null };
type Of<S> = S extends keyof Leaf
  ? Leaf[S]
  : S extends readonly [infer E]
    ? Of<E>[]
    : { -readonly [K in keyof S]: Of<S[K]> };
export type Report = Of<typeof REPORT_SHAPE>;

let report: Promise<Report> | null = null;

// Fetched once (right after the first forecast, so the page works offline later).
export function loadReport(): Promise<Report> {
  if (!report) {
    report = fetch(new URL('accuracy.json', document.baseURI).href).then((r) => {
      if (!r.ok) throw new Error(`the report could not be loaded (HTTP ${r.status})`);
      return r.json().then((json: unknown) => {
        const problems = shapeProblems(json);
        if (problems.length) throw new Error(`the report is not in the shape this page reads (${problems[0]})`);
        return json as Report;
      });
    });
    report.catch(() => (report = null));
  }
  return report;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : NaN);

// The GPUs the kernel models were trained on (the NVIDIA weights' and the AMD weights'
// trained_on); every other GPU in the report was never used for training or tuning.
const TRAINED_ON = new Set([
  'NVIDIA A100-PCIE-40GB',
  'Tesla P100-PCIE-16GB',
  'Tesla P4',
  'Tesla T4',
  'Tesla V100-PCIE-32GB',
  'AMD Instinct MI100',
  'AMD Instinct MI210',
]);
// A label's option (eval-e2e's `option`): a multi-GPU run (dp4, tp4, pp4_1: 4 GPUs, pipeline
// with 1 micro-batch) or a torch.compile run (fusion).
const OPTION_WORDS: Record<string, string> = { dp: 'data parallel', tp: 'tensor parallel', pp: 'pipeline parallel' };
function withOption(mode: string, option: string): string {
  if (!option) return mode;
  if (option === 'fusion') return `${mode}, torch.compile`;
  const m = /^(dp|tp|pp)(\d+)/.exec(option);
  return m ? `${mode}, ${m[2]} GPUs ${OPTION_WORDS[m[1]]}` : `${mode}, ${option}`;
}
const gpuName = (gpu: string): string => (TRAINED_ON.has(gpu) ? gpu : `${gpu} (not used in training)`);

function table(caption: string, head: string[], rows: (string | number)[][], numericFrom = 1): HTMLElement {
  // The text columns may wrap (on a phone the numbers then stay on screen).
  const t = h('table', { class: 'wrap-text' }, h('caption', {}, caption));
  t.append(
    h(
      'thead',
      {},
      h('tr', {}, ...head.map((c, i) => h('th', { scope: 'col', class: i >= numericFrom ? 'num' : undefined }, c))),
    ),
  );
  const body = h('tbody');
  for (const r of rows)
    body.append(
      h(
        'tr',
        {},
        ...r.map((c, i) =>
          i === 0
            ? h('th', { scope: 'row' }, String(c))
            : h('td', { class: i >= numericFrom ? 'num' : undefined }, String(c)),
        ),
      ),
    );
  t.append(body);
  return h('div', { class: 'table-wrap' }, t);
}

// Log axes labelled at powers of ten only (1, 10, 100 ms…), never rotated: the
// default 1-2-5 labels overlap on a narrow chart.
const logTicks = {
  maxRotation: 0,
  autoSkip: true,
  callback: (v: number | string) => {
    const x = Number(v);
    const p = Math.log10(x);
    return Math.abs(p - Math.round(p)) < 1e-9 ? (x >= 1000 ? `${x / 1000} s` : `${x} ms`) : '';
  },
};

let rendered = false;
let rendering: Promise<void> | null = null;

// Draws the page once (a call while it is loading waits for that one).
export function renderAccuracy(): Promise<void> {
  if (rendered) return Promise.resolve();
  rendering ??= draw().finally(() => (rendering = null));
  return rendering;
}

async function draw(): Promise<void> {
  const status = byId('accuracy-status');
  const body = byId('accuracy-body');
  setText(status, 'Loading the accuracy report…');
  let r: Report;
  try {
    r = await loadReport();
  } catch (e) {
    setText(status, `The accuracy report is not available: ${e instanceof Error ? e.message : e}.`);
    return;
  }
  rendered = true;
  clear(body);
  const cases = r.e2e?.cases ?? [];
  const summary = r.e2e?.summary ?? [];
  const groups = r.kernels?.groups ?? [];
  if (!cases.length && !groups.length) {
    setText(status, 'The accuracy report is empty: run scripts/accuracy_report.sh to generate it.');
    return;
  }
  setText(
    status,
    `${cases.length} whole-model measurements and ${groups.reduce((n, g) => n + (g.n || 0), 0)} kernel measurements` +
      (r.tilecast_version ? `, forecast by tilecast ${r.tilecast_version}.` : '.'),
  );
  if (summary.length) {
    body.append(
      h('h3', {}, 'Whole models: mean absolute error'),
      table(
        'Mean absolute error of the forecast against the measured latency, per GPU and mode',
        ['GPU', 'Mode', 'Cases', 'tilecast error', 'Roofline error'],
        summary.map((s) => [
          gpuName(s.gpu),
          withOption(s.mode, s.option),
          s.n,
          fmtPct(num(s.mean_abs_error_pct)),
          fmtPct(num(s.roofline_mean_abs_error_pct)),
        ]),
        2,
      ),
    );
  }
  if (cases.length) {
    const canvas = h('canvas', {
      role: 'img',
      'aria-label': 'Scatter chart of forecast against measured latency, log scales',
    });
    body.append(h('h3', {}, 'Measured vs forecast'), h('div', { class: 'chart-box tall' }, canvas));
    const pts = (key: 'tilecast_ms' | 'roofline_ms') =>
      cases
        .filter((c) => num(c[key]) > 0 && num(c.measured_ms) > 0)
        .map((c) => ({ x: c.measured_ms as number, y: c[key] as number }));
    const all = cases.map((c) => num(c.measured_ms)).filter((v) => v > 0);
    const lo = Math.min(...all) / 2,
      hi = Math.max(...all) * 2;
    markKinds(canvas as HTMLElement, ['tilecast', 'roofline']);
    drawChart(canvas as HTMLCanvasElement, {
      type: 'scatter',
      data: {
        datasets: [
          { label: 'tilecast', data: pts('tilecast_ms'), backgroundColor: PALETTE.tilecast, pointRadius: 3 },
          { label: 'roofline only', data: pts('roofline_ms'), backgroundColor: PALETTE.roofline, pointRadius: 3 },
          {
            type: 'line',
            label: 'exact',
            data: [
              { x: lo, y: lo },
              { x: hi, y: hi },
            ],
            borderColor: '#c0c6d2',
            borderDash: [4, 4],
            pointRadius: 0,
          } as never,
        ],
      },
      options: {
        scales: {
          x: { type: 'logarithmic', title: { display: true, text: 'measured (ms)' }, ticks: logTicks },
          y: { type: 'logarithmic', title: { display: true, text: 'forecast (ms)' }, ticks: logTicks },
        },
        plugins: {
          tooltip: {
            callbacks: {
              label: (c) =>
                `${c.dataset.label}: measured ${fmtMs((c.raw as { x: number }).x)}, forecast ${fmtMs((c.raw as { y: number }).y)}`,
            },
          },
        },
      },
      // The picture's description names the axis labels drawn (screen readers; tests).
      plugins: [
        {
          id: 'describeAxes',
          afterUpdate: (chart) => {
            const shown = (axis: 'x' | 'y') =>
              chart.scales[axis].ticks.map((t) => String(t.label ?? '')).filter((l) => l !== '');
            canvas.setAttribute(
              'aria-label',
              `Scatter chart of forecast against measured latency, log scales; measured axis: ${shown('x').join(', ')}; forecast axis: ${shown('y').join(', ')}`,
            );
          },
        },
      ],
    });
    body.append(
      h('h3', {}, 'Every whole-model measurement'),
      table(
        'Measured latency with the tilecast and roofline forecasts and their errors',
        // The errors right after what was measured, so they fit a phone's width.
        ['GPU', 'Workload', 'tilecast error', 'Roofline error', 'Measured', 'tilecast', 'Roofline only'],
        cases.map((c) => [
          gpuName(c.gpu),
          `${c.model} · ${withOption(c.mode, c.option)} · batch ${c.batch} · seq ${c.seq}`,
          fmtPct(num(c.tilecast_error_pct)),
          fmtPct(num(c.roofline_error_pct)),
          fmtMs(num(c.measured_ms)),
          fmtMs(num(c.tilecast_ms)),
          fmtMs(num(c.roofline_ms)),
        ]),
        2,
      ),
    );
  }
  if (groups.length) {
    const overall = r.kernels?.overall_mape_pct;
    const roofOverall = r.kernels?.roofline_overall_mape_pct;
    body.append(
      h('h3', {}, 'Single kernels: mean absolute percentage error'),
      h(
        'p',
        { class: 'hint' },
        `Overall: tilecast ${fmtPct(num(overall))}, roofline only ${fmtPct(num(roofOverall))}.`,
      ),
      table(
        'Kernel forecast error per GPU and operator (held-out test set)',
        ['GPU', 'Operator', 'Kernels', 'tilecast error', 'Roofline error'],
        groups.map((g) => [gpuName(g.gpu), g.op, g.n, fmtPct(num(g.mape_pct)), fmtPct(num(g.roofline_mape_pct))]),
        2,
      ),
    );
  }
}
