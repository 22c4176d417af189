// The accuracy page: the committed report (public/accuracy.json, written by
// scripts/accuracy_report.sh) as tables and a measured-vs-forecast chart.
import { drawChart } from './draw';
import { PALETTE, markKinds } from './palette';
import { byId, clear, h, setText } from './dom';
import { fmtMs, fmtNum, fmtPct } from './format';
import { REPORT_SHAPE, shapeProblems } from './accuracy_report.js';

// The report's types, derived from its one definition (accuracy_report.js).
type Leaf = {
  string: string;
  number: number;
  boolean: boolean;
  'string|null': string | null;
  'number|null': number | null;
};
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

// A label's option (eval-e2e's `option`): a multi-GPU run (dp4, tp4, pp4_1: 4 GPUs, pipeline
// with 1 micro-batch) or a torch.compile run (fusion).
const OPTION_WORDS: Record<string, string> = { dp: 'data parallel', tp: 'tensor parallel', pp: 'pipeline parallel' };
function withOption(mode: string, option: string): string {
  if (!option) return mode;
  if (option === 'fusion') return `${mode}, torch.compile`;
  const m = /^(dp|tp|pp)(\d+)/.exec(option);
  return m ? `${mode}, ${m[2]} GPUs ${OPTION_WORDS[m[1]]}` : `${mode}, ${option}`;
}

type Cell = string | number | HTMLElement;
// A table; `numeric` lists the columns right-aligned as figures. The first column heads its row.
function table(id: string, caption: string, head: string[], rows: Cell[][], numeric: number[]): HTMLElement {
  const isNum = (i: number) => (numeric.includes(i) ? 'num' : undefined);
  // The text columns may wrap (on a phone the numbers then stay on screen).
  const t = h('table', { class: 'wrap-text', id }, h('caption', {}, caption));
  t.append(h('thead', {}, h('tr', {}, ...head.map((c, i) => h('th', { scope: 'col', class: isNum(i) }, c)))));
  const body = h('tbody');
  for (const r of rows)
    body.append(
      h(
        'tr',
        {},
        ...r.map((c, i) =>
          i === 0
            ? h('th', { scope: 'row' }, c instanceof HTMLElement ? c : String(c))
            : h('td', { class: isNum(i) }, c instanceof HTMLElement ? c : String(c)),
        ),
      ),
    );
  t.append(body);
  return h('div', { class: 'table-wrap' }, t);
}

type About = Report['e2e']['about'];
// A section: its title, then what it is (data, protocol, training, command), then its figures.
function section(id: string, about: About, ...children: HTMLElement[]): HTMLElement {
  const item = (term: string, text: string, code = false) => [
    h('dt', {}, term),
    h('dd', {}, code ? h('code', {}, text) : text),
  ];
  return h(
    'section',
    { id: `accuracy-${id}`, class: 'accuracy-section', 'aria-labelledby': `accuracy-${id}-title` },
    h('h3', { id: `accuracy-${id}-title` }, about.title),
    h(
      'dl',
      { class: 'accuracy-about hint' },
      ...item('Data', about.data),
      ...item('Protocol', about.protocol),
      ...item('Training', about.training),
      ...item('Command', about.command, true),
    ),
    ...children,
  );
}
const note = (text: string) => h('p', { class: 'hint' }, text);
const signed = (v: number) => (v > 0 ? `+${fmtPct(v)}` : fmtPct(v));
const OP_WORDS: Record<string, string> = { ln: 'layer norm' };
const opName = (op: string) => OP_WORDS[op] ?? op;

function generalizationSection(g: Report['generalization']): HTMLElement {
  return section(
    'generalization',
    g.about,
    note(`Protocol hash ${g.hash}.`),
    h('h4', {}, 'Whole models of the held-out GPUs: mean absolute error'),
    table(
      'accuracy-generalization-e2e',
      'Whole-model forecast error per fold, GPU and mode',
      ['Fold · GPU · mode', 'tilecast error', 'Roofline error', 'Signed mean', 'Worst case', 'Cases', 'Training'],
      g.e2e.map((e) => [
        `${e.fold} · ${e.gpu} · ${e.mode}`,
        fmtPct(e.mae_pct),
        fmtPct(e.roofline_mae_pct),
        signed(e.signed_mean_pct),
        fmtPct(e.max_abs_pct),
        e.n,
        e.training,
      ]),
      [1, 2, 3, 4, 5],
    ),
    h('h4', {}, 'Kernels of the held-out GPUs: mean absolute percentage error'),
    table(
      'accuracy-generalization-kernels',
      'Kernel forecast error per fold, GPU and operator family',
      ['Fold · GPU · op', 'tilecast error', 'Roofline error', 'Signed mean', 'Kernels', 'Training'],
      g.kernels.map((k) => [
        `${k.fold} · ${k.gpu} · ${opName(k.op)}`,
        fmtPct(k.mape_pct),
        fmtPct(k.roofline_mape_pct),
        signed(k.signed_mean_pct),
        k.n,
        k.training,
      ]),
      [1, 2, 3, 4],
    ),
    h('h4', {}, '80% error bands, checked on each held-out fold'),
    table(
      'accuracy-generalization-bands',
      "Share of the fold's measurements inside the 80% band, and the band's mean width",
      [
        'Fold',
        'Kernels inside',
        'Kernel band width',
        'Models inside',
        'Model band width',
        'Kernels',
        'Models',
        'Bands fitted on',
      ],
      g.bands.map((b) => [
        b.fold,
        fmtPct(b.kernel_inside_pct),
        fmtPct(b.kernel_mean_width_pct),
        fmtPct(b.e2e_inside_pct),
        fmtPct(b.e2e_mean_width_pct),
        b.kernel_n,
        b.e2e_n,
        b.fitted_on,
      ]),
      [1, 2, 3, 4, 5, 6],
    ),
  );
}

function h200Section(s: Report['h200']): HTMLElement {
  const rows: Cell[][] = [];
  const notes: HTMLElement[] = [];
  const details: HTMLElement[] = [];
  for (const run of s.runs) {
    const kernelsN = run.kernels.reduce((n, k) => n + k.n, 0);
    if (run.kernels.length)
      rows.push([
        `${run.run} (${run.precision.toUpperCase()}) · kernels, ${run.kernels.length} ops`,
        fmtPct(num(run.kernels_overall_mape_pct)),
        fmtPct(num(run.kernels_overall_roofline_mape_pct)),
        '—',
        kernelsN,
      ]);
    for (const e of run.e2e)
      rows.push([
        `${run.run} (${run.precision.toUpperCase()}) · whole models, ${withOption(e.mode, e.option)}`,
        fmtPct(e.mean_abs_error_pct),
        fmtPct(e.roofline_mean_abs_error_pct),
        fmtPct(e.max_abs_error_pct),
        e.n,
      ]);
    for (const k of run.kernels_not_evaluated)
      notes.push(note(`${run.run}: ${k.n} ${opName(k.op)} kernels not evaluated (${k.why}).`));
    if (run.labels_not_evaluated)
      notes.push(note(`${run.run}: ${run.labels_not_evaluated} whole-model labels not evaluated (see Protocol).`));
    if (run.labels_banded)
      notes.push(
        note(
          `${run.run}: ${run.labels_inside_band} of ${run.labels_banded} whole-model measurements inside the forecast's 80% band` +
            (run.precision === 'fp32' ? '.' : ` (the FP32 band carried over to ${run.precision.toUpperCase()}).`),
        ),
      );
    details.push(
      h(
        'details',
        {},
        h('summary', {}, `${run.run}: kernels per op`),
        h('p', { class: 'hint' }, h('code', {}, run.command)),
        table(
          `accuracy-h200-${run.run}`,
          `${run.run}: kernel forecast error per op`,
          ['Op', 'tilecast error', 'Roofline error', 'Kernels'],
          run.kernels.map((k) => [opName(k.op), fmtPct(k.mape_pct), fmtPct(k.roofline_mape_pct), k.n]),
          [1, 2, 3],
        ),
      ),
    );
  }
  return section(
    'h200',
    s.about,
    table(
      'accuracy-h200-table',
      'Error of the forecasts for every H200 run: kernels (MAPE) and whole models (mean absolute error)',
      ['Run · what', 'tilecast error', 'Roofline error', 'Worst case', 'Measurements'],
      rows,
      [1, 2, 3, 4],
    ),
    ...notes,
    ...details,
  );
}

function crossSection(id: string, s: Report['fp16_cross_gpu'] | Report['amd_cross_gpu']): HTMLElement {
  const withNet = 'overall' in s;
  const head = ['Trained on → forecast · op', 'tilecast error', 'Roofline error', 'Rows'];
  if (withNet) head.push('Learned GEMM net');
  const rows = s.rows.map((r) => {
    const row: Cell[] = [
      `${r.train_gpu} → ${r.test_gpu} · ${opName(r.op)}`,
      fmtPct(r.mape_pct),
      fmtPct(r.roofline_mape_pct),
      r.n,
    ];
    if ('learned_gemm_mape_pct' in r)
      row.push(r.learned_gemm_mape_pct === null ? '—' : fmtPct(r.learned_gemm_mape_pct));
    return row;
  });
  const overall = 'overall' in s ? s.overall : [];
  const bands = 'bands' in s ? s.bands : [];
  return section(
    id,
    s.about,
    ...overall.map((o) => note(`All rows, ${o.train_gpu} → ${o.test_gpu}: tilecast ${fmtPct(o.mape_pct)}.`)),
    ...bands.map((b) =>
      note(
        `${b.train_gpu} → ${b.test_gpu}: ${fmtPct(b.inside_pct)} of ${b.n} kernels inside their forecast's 80% band (mean width ${fmtPct(b.mean_width_pct)} of the forecast).`,
      ),
    ),
    table(
      `accuracy-${id}-table`,
      'Forecast error per operator on the GPU held out of training',
      head,
      rows,
      withNet ? [1, 2, 3, 4] : [1, 2, 3],
    ),
  );
}

function servingSection(s: Report['serving']): HTMLElement {
  return section(
    'serving',
    s.about,
    ...s.summary.map((x) =>
      note(`${x.rows}: ${x.n} rows, median absolute error ${fmtPct(num(x.median_abs_error_pct))}.`),
    ),
    table(
      'accuracy-serving-table',
      'Published serving figures and the tilecast serve forecast for the same setup',
      [
        'Row · metric',
        'tilecast ÷ published',
        'Published',
        'tilecast',
        'Setup',
        'Engine as modelled',
        'Training',
        'Source',
      ],
      s.rows.map((r) => [
        `${r.id} · ${r.metric}`,
        `${r.ratio.toFixed(2)}×`,
        fmtNum(r.published),
        fmtNum(r.tilecast),
        `${r.model} on ${r.gpu}, ${r.precision}, ${r.ep > 1 ? `DEP ${r.ep}` : `TP ${r.tp}`}, ${r.load}, ${r.prompt} + ${r.output} tokens` +
          (r.fits ? '' : ' (does not fit, says tilecast)'),
        r.faithful ? 'yes' : `no: ${r.differs}`,
        r.training,
        h('a', { href: r.source_url, rel: 'noopener' }, r.source),
      ]),
      [1, 2, 3],
    ),
  );
}

function parallelSection(s: Report['parallel']): HTMLElement {
  const x = s.summary;
  return section(
    'parallel',
    s.about,
    note(
      `Per-layer forward and backward (Table 4): worst ${fmtPct(num(x.table4_max_abs_error_pct))}; iteration times ` +
        `(${x.table5_rows} rows): worst ${fmtPct(num(x.table5_max_abs_error_pct))}, mean absolute ` +
        `${fmtPct(num(x.table5_mae_pct))}; MFU (${x.mfu_rows} rows): worst ${fmtNum(num(x.mfu_max_abs_error_points))} points; ` +
        `every configuration that ran the whole model fits in memory: ${x.all_fit ? 'yes' : 'no'}.`,
    ),
    table(
      'accuracy-parallel-table',
      'Published Megatron-LM figures and the tilecast forecast of the same configuration',
      ['Model · measure', 'Error', 'Published', 'tilecast', 'Setup', 'Source'],
      s.rows.map((r) => [
        `${r.model} · ${r.measure}`,
        r.error_unit === '%' ? signed(r.error) : `${r.error > 0 ? '+' : ''}${fmtNum(r.error)} points`,
        fmtNum(r.published),
        fmtNum(r.tilecast),
        r.setup,
        r.table,
      ]),
      [1, 2, 3],
    ),
  );
}

function fp16Section(s: Report['fp16']): HTMLElement {
  return section(
    'fp16',
    s.about,
    ...s.overall.map((o) => note(`All rows, ${o.gpu}: tilecast ${fmtPct(o.mape_pct)}.`)),
    table(
      'accuracy-fp16-table',
      'FP16 operator forecast error per GPU and operator',
      ['GPU · op', 'tilecast error', 'Roofline error', 'Rows', 'Training'],
      s.groups.map((g) => [`${g.gpu} · ${g.op}`, fmtPct(g.mape_pct), fmtPct(g.roofline_mape_pct), g.n, g.training]),
      [1, 2, 3],
    ),
  );
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
  const cases = r.e2e.cases;
  const groups = r.kernels.groups;
  // Out-of-architecture figures first, then GPUs held out of training, then published runs, then
  // the training GPUs themselves (in distribution).
  const sections = [
    generalizationSection(r.generalization),
    h200Section(r.h200),
    crossSection('fp16-cross-gpu', r.fp16_cross_gpu),
    crossSection('amd-cross-gpu', r.amd_cross_gpu),
    servingSection(r.serving),
    parallelSection(r.parallel),
    e2eSection(r),
    kernelsSection(r),
    fp16Section(r.fp16),
  ];
  // Which architectures any evaluation measured, and which none did (forecasts for them extrapolate).
  const coverage = h(
    'p',
    { id: 'accuracy-coverage', class: 'hint' },
    `Architectures measured by these evaluations: ${r.measured_architectures}. ` +
      (r.unmeasured_architectures.length
        ? `Not measured by any: ${r.unmeasured_architectures.map((u) => `${u.architecture} (${u.gpus})`).join('; ')}; ` +
          'forecasts for them are extrapolations.'
        : 'Every architecture of the GPU catalog is measured.'),
  );
  body.append(coverage, ...sections);
  setText(
    status,
    `${sections.length} evaluations, out-of-architecture figures first; on NeuSight's GPUs ${cases.length} ` +
      `whole-model measurements and ${groups.reduce((n, g) => n + (g.n || 0), 0)} kernel measurements` +
      (r.tilecast_version ? `, forecast by tilecast ${r.tilecast_version}.` : '.'),
  );
}

function e2eSection(r: Report): HTMLElement {
  const cases = r.e2e.cases;
  const canvas = h('canvas', {
    role: 'img',
    'aria-label': 'Scatter chart of forecast against measured latency, log scales',
  });
  const el = section(
    'e2e',
    r.e2e.about,
    table(
      'accuracy-e2e-summary',
      'Mean absolute error of the forecast against the measured latency, per GPU and mode',
      ['GPU · mode', 'tilecast error', 'Roofline error', 'Worst case', 'Cases', 'Training'],
      r.e2e.summary.map((s) => [
        `${s.gpu} · ${withOption(s.mode, s.option)}`,
        fmtPct(num(s.mean_abs_error_pct)),
        fmtPct(num(s.roofline_mean_abs_error_pct)),
        fmtPct(num(s.max_abs_error_pct)),
        s.n,
        s.training,
      ]),
      [1, 2, 3, 4],
    ),
    h('h4', {}, 'Measured vs forecast'),
    h('div', { class: 'chart-box tall' }, canvas),
    h('h4', {}, 'Every whole-model measurement'),
    table(
      'accuracy-e2e-cases',
      'Measured latency with the tilecast and roofline forecasts and their errors',
      // The errors right after what was measured, so they fit a phone's width.
      ['GPU · workload', 'tilecast error', 'Roofline error', 'Measured', 'tilecast', 'Roofline only', 'Training'],
      cases.map((c) => [
        `${c.gpu} · ${c.model} · ${withOption(c.mode, c.option)} · batch ${c.batch} · seq ${c.seq}`,
        fmtPct(num(c.tilecast_error_pct)),
        fmtPct(num(c.roofline_error_pct)),
        fmtMs(num(c.measured_ms)),
        fmtMs(num(c.tilecast_ms)),
        fmtMs(num(c.roofline_ms)),
        c.training,
      ]),
      [1, 2, 3, 4, 5],
    ),
  );
  // The chart is drawn once its canvas is in the page.
  queueMicrotask(() => drawScatter(canvas, cases));
  return el;
}

function drawScatter(canvas: HTMLElement, cases: Report['e2e']['cases']): void {
  if (!cases.length) return;
  const pts = (key: 'tilecast_ms' | 'roofline_ms') =>
    cases
      .filter((c) => num(c[key]) > 0 && num(c.measured_ms) > 0)
      .map((c) => ({ x: c.measured_ms as number, y: c[key] as number }));
  const all = cases.map((c) => num(c.measured_ms)).filter((v) => v > 0);
  const lo = Math.min(...all) / 2,
    hi = Math.max(...all) * 2;
  markKinds(canvas, ['tilecast', 'roofline']);
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
}

function kernelsSection(r: Report): HTMLElement {
  const k = r.kernels;
  return section(
    'kernels',
    k.about,
    note(
      `Overall: tilecast ${fmtPct(num(k.overall_mape_pct))}, roofline only ${fmtPct(num(k.roofline_overall_mape_pct))}.`,
    ),
    table(
      'accuracy-kernels-table',
      "Kernel forecast error per GPU and operator on NeuSight's test shapes",
      ['GPU · op', 'tilecast error', 'Roofline error', 'Kernels', 'Training', 'Shapes also in its training rows'],
      k.groups.map((g) => [
        `${g.gpu} · ${opName(g.op)}`,
        fmtPct(num(g.mape_pct)),
        fmtPct(num(g.roofline_mape_pct)),
        g.n,
        g.training,
        `${g.shapes_in_training} of ${g.n}`,
      ]),
      [1, 2, 3, 5],
    ),
  );
}
