// The compare view for serving (the serve view's workload on each GPU): time to first token,
// time per output token, tokens/s, whether it fits and the largest batch that does. Draws
// what it is given; render.ts decides when.
import { drawChart } from './draw';
import { PALETTE, markKinds } from './palette';
import { byId, clear, h, setText } from './dom';
import { fmtMs, fmtRate } from './format';
import { gb } from './memory_bar';
import type { CapacityResult, ServeResult } from './memo';
import { chartLabel } from './compare_view';
import { FOOTING_KEY, footing, footingMark } from './footing';
import { capacityCell, layoutOf, money } from './capacity_view';

// A GPU's capacity plan as a cell (data-capacity-gpus: its best option's GPUs, 0 when none meets;
// data-price-per-hour: its price an hour, when priced).
function capacityTd(plan: CapacityResult | undefined): HTMLTableCellElement {
  const c = capacityCell(plan);
  const best = plan?.ok ? plan.f.best : null;
  const perHour = best?.price_per_hour;
  return h(
    'td',
    { class: 'num', 'data-capacity-gpus': c.gpus, 'data-price-per-hour': perHour, title: c.title },
    perHour !== undefined ? `${c.text} · ${money(perHour)}/h` : c.text,
  );
}

// A GPU's price per GPU-hour, typed in its row (empty: the serve view's price, if any).
function priceTd(x: ServeRow, general: number): HTMLTableCellElement {
  return h(
    'td',
    { class: 'num' },
    h('input', {
      type: 'text',
      inputmode: 'decimal',
      class: 'gpu-price',
      size: 7,
      'data-gpu': x.id,
      'aria-label': `Price per GPU-hour of ${x.label} ($)`,
      value: x.price > 0 ? String(x.price) : '',
      placeholder: general > 0 ? String(general) : '$',
    }),
  );
}

export interface ServeRow {
  id: string;
  label: string;
  r: ServeResult;
  plan?: CapacityResult; // the GPU's capacity plan, when a rate to plan for is set (undefined: on its way)
  price: number; // its own price per GPU-hour (0: none typed)
}

// The capacity plans' columns: their heading, the rate planned for and the serve view's price.
export interface CapacityColumns {
  heading: string;
  qps: number;
  price: number;
}

// The cheapest GPU meeting the SLO among the priced plans (the first of equal prices), or why none
// is named.
function cheapest(rows: ServeRow[], c: CapacityColumns): { id?: string; text: string } {
  const priced = rows.flatMap((x) => {
    const b = x.plan?.ok ? x.plan.f.best : null;
    return b && b.price_per_hour !== undefined ? [{ x, b, perHour: b.price_per_hour }] : [];
  });
  if (rows.some((x) => !x.plan)) return { text: '' };
  if (!priced.length)
    return {
      text: `Type each GPU's price per GPU-hour to name the cheapest GPU serving ${fmtRate(c.qps)} requests/s within the SLO.`,
    };
  const best = priced.reduce((a, b) => (b.perHour < a.perHour ? b : a));
  const unpriced = rows.filter((x) => x.plan?.ok && x.plan.f.best && x.plan.f.best.price_per_hour === undefined);
  const rest = unpriced.length ? ` (${unpriced.map((x) => x.label).join(', ')}: no price)` : '';
  return {
    id: best.x.id,
    text: `Cheapest for ${fmtRate(c.qps)} requests/s within the SLO: ${best.b.gpus} × ${best.x.label} (${layoutOf(best.b)} × ${best.b.replicas}), ${money(best.perHour)} an hour${rest}.`,
  };
}

// `capacity`: the capacity plans' columns (absent: no rate to plan for, no columns).
export function renderCompareServing(rows: ServeRow[], predictor: string, capacity?: CapacityColumns): void {
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
          ...(capacity ? [capacity.heading, 'Price per GPU-hour'] : []),
        ].map((t, i) => h('th', { scope: 'col', class: i ? 'num' : undefined }, t)),
      ),
    ),
  );
  const verdict = capacity ? cheapest(rows, capacity) : { text: '' };
  setText(byId('compare-capacity'), verdict.text);
  const tbody = h('tbody');
  for (const x of rows) {
    const f = x.r.ok ? x.r.f : null;
    tbody.append(
      h(
        'tr',
        {
          'data-gpu': x.id,
          'data-cheapest': verdict.id === x.id ? 'true' : undefined,
          class: verdict.id === x.id ? 'cheapest' : undefined,
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
        capacity ? priceTd(x, capacity.price) : null,
      ),
    );
  }
  table.append(tbody);
}
