// The GPU comparison of model forecasts: the GPUs to tick, one row each (latency and its 80%
// band, roofline or MFU, throughput, fits, footing) in two bar charts and a table. Draws what it is
// given; render.ts decides when. Loaded on demand (lazy.ts): the landing view does not draw it.
import { gpuById, gpuLabel, type App } from './app';
import { drawChart } from './draw';
import { PALETTE, markKinds } from './palette';
import { groupGpus, gpuMatches } from './catalog';
import { byId, clear, h, setText } from './dom';
import { isMegatron, type AnyForecast } from './engine';
import type { Result } from './memo';
import { fmtMs, fmtNum, fmtRate } from './format';
import { clip } from './state';
import { FOOTING_KEY, footing, footingMark } from './footing';
import { gb } from './memory_bar';
import { bandOf, rooflineOf } from './views';

export function fillCompareList(app: App, query: string, onToggle: (id: string, on: boolean) => void): void {
  const list = byId('compare-list');
  clear(list);
  for (const group of groupGpus(app.gpus.filter((g) => gpuMatches(g, query)))) {
    const fs = h('fieldset', { class: 'checkgroup' }, h('legend', {}, group.label));
    for (const g of group.items) {
      const id = `cmp-${g.id}`;
      const box = h('input', { type: 'checkbox', id, value: g.id! });
      box.addEventListener('change', () => onToggle(g.id!, box.checked));
      fs.append(h('label', { for: id, class: 'check' }, box, ` ${g.name}`));
    }
    list.append(fs);
  }
}

// Ticks the chosen GPUs (the selected one always, and it cannot be unticked)
// without rebuilding the list, so keyboard focus stays where it is.
export function markCompareList(app: App): void {
  const chosen = new Set(app.state.compare);
  for (const box of byId('compare-list').querySelectorAll<HTMLInputElement>('input[type=checkbox]')) {
    box.checked = chosen.has(box.value) || box.value === app.state.gpu;
    box.disabled = box.value === app.state.gpu;
  }
}

// The GPUs of the comparison: the selected one first, then the ticked ones.
export function compareIds(app: App): string[] {
  return [app.state.gpu, ...app.state.compare.filter((id) => id !== app.state.gpu && gpuById(app, id))];
}

export interface CompareRow {
  id: string;
  label: string;
  f?: AnyForecast;
  error?: string;
}

export function compareRow(app: App, id: string, r: Result): CompareRow {
  const label = gpuLabel(app, id);
  return r.ok ? { id, label, f: r.f } : { id, label, error: r.error };
}

// A GPU's name as a chart label: without the vendor, at most 22 characters (the
// whole name is in the tooltip), so labels fit beside the bars on a phone.
export function chartLabel(name: string, mark = ''): string {
  return clip(name.replace(/^(NVIDIA|AMD|Tesla)\s+/, ''), 22 - mark.length) + mark;
}

let compareNames: string[] = []; // the full names of the bars on screen, for tooltips

// Every GPU gets its own labelled row: the charts grow with the number of GPUs.
function sizeCompareChart(canvas: HTMLCanvasElement, rows: number, perRow: number): void {
  const box = canvas.parentElement!;
  box.style.height = `${Math.max(320, 60 + rows * perRow)}px`;
  box.dataset.rows = String(rows);
}

export function renderCompare(app: App, rows: CompareRow[]): void {
  const ok = rows.filter((r) => r.f);
  const failed = rows.filter((r) => r.error);
  setText(byId('compare-error'), failed.map((r) => `${r.label}: ${r.error}`).join(' '));
  const labels = ok.map((r) => chartLabel(r.label, footingMark(footing(r.f!))));
  setText(byId('compare-key'), labels.some((l) => /[†‡◇]$/.test(l)) ? FOOTING_KEY : '');
  compareNames = ok.map((r) => r.label);
  // Megatron steps (every row, the engine is the state's): MFU where the roofline stands.
  const mega = ok.some((r) => isMegatron(r.f!));
  const yAxis = { ticks: { autoSkip: false } };
  const title = (items: { dataIndex: number }[]) => compareNames[items[0]?.dataIndex ?? 0] ?? '';
  sizeCompareChart(byId<HTMLCanvasElement>('compare-latency'), ok.length, 26);
  sizeCompareChart(byId<HTMLCanvasElement>('compare-throughput'), ok.length, 18);
  byId('compare-latency').dataset.labels = JSON.stringify(labels);
  // The 80% band as a floating bar beside each forecast (none for the roofline predictor).
  const bands = ok.map((r) => bandOf(r.f!));
  markKinds(byId('compare-latency'), [
    'tilecast',
    ...(bands.some((b) => b) ? (['band'] as const) : []),
    ...(mega ? [] : (['roofline'] as const)),
  ]);
  markKinds(byId('compare-throughput'), ['throughput']);
  drawChart(byId<HTMLCanvasElement>('compare-latency'), {
    type: 'bar',
    data: {
      labels,
      datasets: [
        {
          label: `${app.state.predictor} (ms)`,
          data: ok.map((r) => r.f!.latency_ms),
          backgroundColor: PALETTE.tilecast,
        },
        ...(bands.some((b) => b) ? [{ label: '80% band (ms)', data: bands, backgroundColor: PALETTE.band }] : []),
        ...(mega
          ? []
          : [
              {
                label: 'roofline only (ms)',
                data: ok.map((r) => rooflineOf(r.f!)),
                backgroundColor: PALETTE.roofline,
              },
            ]),
      ],
    },
    options: {
      indexAxis: 'y',
      plugins: {
        tooltip: {
          callbacks: {
            title,
            label: (c) =>
              Array.isArray(c.raw)
                ? `${c.dataset.label}: ${fmtMs(c.raw[0])}–${fmtMs(c.raw[1])}`
                : `${c.dataset.label}: ${fmtMs(Number(c.raw))}`,
          },
        },
      },
      scales: { x: { beginAtZero: true, title: { display: true, text: 'ms' } }, y: yAxis },
    },
  });
  drawChart(byId<HTMLCanvasElement>('compare-throughput'), {
    type: 'bar',
    data: {
      labels,
      datasets: [{ label: 'tokens/s', data: ok.map((r) => r.f!.tokens_per_s), backgroundColor: PALETTE.throughput }],
    },
    options: {
      indexAxis: 'y',
      plugins: { tooltip: { callbacks: { title, label: (c) => `${fmtRate(Number(c.raw))} tokens/s` } } },
      scales: { x: { beginAtZero: true, title: { display: true, text: 'tokens/s' } }, y: yAxis },
    },
  });
  const base = ok[0]?.f?.latency_ms;
  const table = byId<HTMLTableElement>('compare-table');
  clear(table);
  table.append(
    h('caption', { class: 'sr-only' }, 'Forecast per GPU'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...[
          'GPU',
          'Latency',
          '80% band',
          mega ? 'MFU' : 'Roofline only',
          'Samples/s',
          'Tokens/s',
          'Speed vs first',
          'Fits',
          'Footing',
        ].map((t, i) => h('th', { scope: 'col', class: i ? 'num' : undefined }, t)),
      ),
    ),
  );
  const tbody = h('tbody');
  for (const r of rows) {
    const f = r.f;
    const band = f && bandOf(f);
    tbody.append(
      h(
        'tr',
        { 'data-gpu': r.id },
        h('th', { scope: 'row' }, r.label),
        h('td', { class: 'num' }, f ? fmtMs(f.latency_ms) : '—'),
        h('td', { class: 'num' }, band ? `${fmtMs(band[0])}–${fmtMs(band[1])}` : '—'),
        h(
          'td',
          { class: 'num' },
          !f ? '—' : isMegatron(f) ? `${fmtNum(100 * f.mfu)}%` : fmtMs(f.roofline_latency_ms ?? NaN),
        ),
        h('td', { class: 'num' }, f ? fmtRate(f.samples_per_s) : '—'),
        h('td', { class: 'num' }, f ? fmtRate(f.tokens_per_s) : '—'),
        h('td', { class: 'num' }, f && base ? `${fmtNum(base / f.latency_ms)}×` : '—'),
        h(
          'td',
          { class: 'num', 'data-fits': f?.memory ? String(f.memory.fits) : '' },
          f?.memory ? (f.memory.fits ? 'yes' : `no: ${gb(f.memory.total_gb)} of ${gb(f.memory.capacity_gb)}`) : '—',
        ),
        h('td', { 'data-footing': f ? footing(f) : '' }, f ? footing(f) : '—'),
      ),
    );
  }
  table.append(tbody);
}
