// The compare view for serving (the serve view's workload on each GPU): time to first token,
// time per output token, tokens/s, whether it fits and the largest batch that does. Draws
// what it is given; render.ts decides when.
import { drawChart } from './draw';
import { PALETTE, markKinds } from './palette';
import { byId, clear, h, setText } from './dom';
import { fmtMs, fmtRate } from './format';
import { gb } from './memory_bar';
import type { CapacityResult, ServeResult } from './memo';
import { chartLabel } from './views';
import { FOOTING_KEY, footing, footingMark } from './footing';
import { capacityCell } from './capacity_view';

// A GPU's capacity plan as a cell (data-capacity-gpus: its best option's GPUs, 0 when none meets).
function capacityTd(plan: CapacityResult | undefined): HTMLTableCellElement {
  const c = capacityCell(plan);
  return h('td', { class: 'num', 'data-capacity-gpus': c.gpus, title: c.title }, c.text);
}

export interface ServeRow {
  id: string;
  label: string;
  r: ServeResult;
  plan?: CapacityResult; // the GPU's capacity plan, when a rate to plan for is set (undefined: on its way)
}

// `capacity`: the heading of the capacity plans' column (absent: no rate to plan for, no column).
export function renderCompareServing(rows: ServeRow[], predictor: string, capacity?: string): void {
  const ok = rows.filter((x) => x.r.ok);
  const failed = rows.filter((x) => !x.r.ok);
  setText(byId('compare-error'), failed.map((x) => `${x.label}: ${x.r.ok ? '' : x.r.error}`).join(' '));
  const fs = ok.map((x) => (x.r.ok ? x.r.f : null)!);
  // A serving forecast that does not fit is marked ✗ (and its throughput bar red).
  const labels = ok.map((x, i) => chartLabel(x.label, footingMark(footing(fs[i])) + (fs[i].memory.fits ? '' : ' ✗')));
  setText(byId('compare-key'), `${FOOTING_KEY} ✗ does not fit in the GPU's memory.`);
  const latency = byId<HTMLCanvasElement>('compare-latency');
  latency.dataset.labels = JSON.stringify(labels);
  latency.parentElement!.style.height = `${Math.max(320, 60 + ok.length * 26)}px`;
  markKinds(latency, ['prefill', 'decode']);
  markKinds(byId('compare-throughput'), ['throughput', 'unfit']);
  drawChart(latency, {
    type: 'bar',
    data: {
      labels,
      datasets: [
        {
          label: `time to first token (${predictor}, ms)`,
          data: fs.map((f) => f.prefill_ms),
          backgroundColor: PALETTE.prefill,
        },
        {
          label: 'time per output token (ms)',
          data: fs.map((f) => f.decode_ms_per_token),
          backgroundColor: PALETTE.decode,
        },
      ],
    },
    options: {
      indexAxis: 'y',
      plugins: { tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${fmtMs(Number(c.raw))}` } } },
      scales: { x: { beginAtZero: true, title: { display: true, text: 'ms' } } },
    },
  });
  drawChart(byId<HTMLCanvasElement>('compare-throughput'), {
    type: 'bar',
    data: {
      labels,
      datasets: [
        {
          label: 'generated tokens/s',
          data: fs.map((f) => f.tokens_per_s),
          backgroundColor: fs.map((f) => (f.memory.fits ? PALETTE.throughput : PALETTE.unfit)),
        },
      ],
    },
    options: {
      indexAxis: 'y',
      plugins: { tooltip: { callbacks: { label: (c) => `${fmtRate(Number(c.raw))} tokens/s` } } },
      scales: { x: { beginAtZero: true, title: { display: true, text: 'tokens/s' } } },
    },
  });
  const table = byId<HTMLTableElement>('compare-table');
  clear(table);
  table.append(
    h('caption', { class: 'sr-only' }, 'Serving forecast per GPU'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...[
          'GPU',
          'Time to first token',
          'its 80% band',
          'Time per token',
          'Tokens/s',
          'Memory',
          'Fits',
          'Largest batch',
          'Footing',
          ...(capacity ? [capacity] : []),
        ].map((t, i) => h('th', { scope: 'col', class: i ? 'num' : undefined }, t)),
      ),
    ),
  );
  const tbody = h('tbody');
  for (const x of rows) {
    const f = x.r.ok ? x.r.f : null;
    tbody.append(
      h(
        'tr',
        {
          'data-gpu': x.id,
          'data-fits': f ? String(f.memory.fits) : '',
          'data-ttft': f ? String(f.prefill_ms) : '',
          'data-tpot': f ? String(f.decode_ms_per_token) : '',
          'data-tokens': f ? String(f.tokens_per_s) : '',
          'data-band': f?.band ? `${f.band.low},${f.band.high}` : '',
          'data-max-batch': f ? String(f.max_batch) : '',
        },
        h('th', { scope: 'row' }, x.label),
        h('td', { class: 'num' }, f ? fmtMs(f.prefill_ms) : '—'),
        // the 80% band of the time to first token (none for the roofline predictor)
        h(
          'td',
          { class: 'num' },
          f?.band ? `${fmtMs(f.prefill_ms * f.band.low)}–${fmtMs(f.prefill_ms * f.band.high)}` : '—',
        ),
        h('td', { class: 'num' }, f ? fmtMs(f.decode_ms_per_token) : '—'),
        h('td', { class: 'num' }, f ? fmtRate(f.tokens_per_s) : '—'),
        h('td', { class: 'num' }, f ? `${gb(f.memory.total_gb)} / ${gb(f.memory.capacity_gb)}` : '—'),
        h('td', { class: 'num' }, f ? (f.memory.fits ? 'yes' : 'no') : '—'),
        h('td', { class: 'num' }, f ? String(f.max_batch) : '—'),
        h('td', { 'data-footing': f ? footing(f) : '' }, f ? footing(f) : '—'),
        capacity ? capacityTd(x.plan) : null,
      ),
    );
  }
  table.append(tbody);
}
