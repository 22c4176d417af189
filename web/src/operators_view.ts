// The per-operator bound analysis (as LLM-Viewer shows it): each operator of the forecast step
// with its FLOPs, bytes, arithmetic intensity, the GPU's ridge point, its roofline bound and its
// share of the step, from the response's `operators` (core/src/forecast/operator_bounds.cpp).
// Sorted by time share (largest first) or in the step's order; render.ts calls it for the forecast
// view's panel and for the serve view's (the first decode step's `decode_operators`), after the
// frame that shows the headline (renderOperatorsAfterFrame).
import { afterFrame, byId, cancelAfterFrame, clear, h, setText } from './dom';
import type { OperatorRow } from './engine';
import { fmtMs, fmtNum, fmtPct, fmtSi } from './format';
import { PALETTE, markKinds } from './palette';

export type OpsSort = 'share' | 'order';

const PHASE_WORD: Record<string, string> = { forward: 'fwd', backward: 'bwd', accumulate: 'grad acc' };

function num(text: string, value: number): HTMLTableCellElement {
  return h('td', { class: 'num', 'data-value': String(value) }, text);
}

// The two panels, each built into its empty `#<prefix>operators-panel` of index.html at boot: the
// forecast view's and the serve view's (its ids the forecast view's with the prefix).
export const OPERATOR_PANELS = [
  { prefix: '', heading: 'Per operator: compute- or memory-bound' },
  { prefix: 'serve-', heading: 'A decode step per operator: compute- or memory-bound' },
] as const;

// Fills the panels (heading, note, sort control, table) and calls `onSort` with a panel's sort
// control when it changes.
export function buildOperatorPanels(onSort: (sort: OpsSort) => void): void {
  for (const { prefix, heading } of OPERATOR_PANELS) {
    const sort = h(
      'select',
      { id: `${prefix}ops-sort`, class: 'ops-sort' },
      h('option', { value: 'share' }, 'share of the time, largest first'),
      h('option', { value: 'order' }, 'order in the step'),
    );
    sort.addEventListener('change', () => onSort(sort.value === 'order' ? 'order' : 'share'));
    byId(`${prefix}operators-panel`).replaceChildren(
      h('h3', { id: `${prefix}operators-heading` }, heading),
      h('p', { id: `${prefix}operators-note`, class: 'hint' }),
      h('label', { for: `${prefix}ops-sort` }, 'Sort by'),
      sort,
      h(
        'div',
        { class: 'table-wrap' },
        h('table', {
          id: `${prefix}operators-table`,
          class: 'ops-table',
          'aria-labelledby': `${prefix}operators-heading`,
        }),
      ),
    );
  }
}

// The serve view's panel: its ids are the forecast view's with this prefix, and its note says
// what the shares are of (`step_ms`: the first decode step, `decode_ms_at`'s first point; `tp`:
// its tensor-parallel GPUs, whose all-reduces are the rest of the step above 1).
export interface DecodeStep {
  prefix: (typeof OPERATOR_PANELS)[1]['prefix'];
  step_ms: number;
  tp: number;
}

// The table drawn after the next frame, as the charts are (dom.ts afterFrame): its rows' style and
// layout cost more than the headline's render, which reaches the screen first. Only the latest
// drawing of each panel is made; the panel carries `data-pending` while one waits. No rows:
// hidden at once.
export function renderOperatorsAfterFrame(rows: OperatorRow[] | undefined, sort: OpsSort, decode?: DecodeStep): void {
  const prefix = decode?.prefix ?? '';
  const key = `${prefix}operators`;
  const panel = byId(`${prefix}operators-panel`);
  if (!rows || rows.length === 0) {
    cancelAfterFrame(key);
    delete panel.dataset.pending;
    renderOperators(rows, sort, decode);
    return;
  }
  panel.dataset.pending = '1';
  afterFrame(key, () => {
    renderOperators(rows, sort, decode);
    delete panel.dataset.pending;
  });
}

function renderOperators(rows: OperatorRow[] | undefined, sort: OpsSort, decode?: DecodeStep): void {
  const id = (name: string) => `${decode?.prefix ?? ''}${name}`;
  const panel = byId(id('operators-panel'));
  panel.hidden = !rows || rows.length === 0;
  const table = byId<HTMLTableElement>(id('operators-table'));
  clear(table);
  if (!rows || panel.hidden) return;
  byId<HTMLSelectElement>(id('ops-sort')).value = sort;
  const order = rows.map((r, i) => ({ r, i }));
  if (sort === 'share') order.sort((a, b) => b.r.share - a.r.share || a.i - b.i);
  const share = (bound: string) => rows.filter((r) => r.bound === bound).reduce((t, r) => t + r.share, 0);
  const compute = share('compute');
  const bounds = decode
    ? `Their shares are of the first decode step (${fmtMs(decode.step_ms)}): compute-bound operators ${fmtPct(100 * compute)}, ` +
      `memory-bound ${fmtPct(100 * share('memory'))}; the rest of the step is the sampler${decode.tp > 1 ? ' and the tensor-parallel all-reduces' : ''}. `
    : `Compute-bound operators take ${fmtPct(100 * compute)} of the forecast time, memory-bound ${fmtPct(100 * (1 - compute))}. `;
  setText(
    byId(id('operators-note')),
    `Operators by the roofline: compute-bound when their FLOP per byte reaches the GPU's ridge point for their unit and precision. ` +
      bounds +
      `FLOPs and bytes are for all repeats; bytes are the minimal DRAM traffic.`,
  );
  markKinds(table, ['compute_bound', 'memory_bound']);
  table.append(
    h(
      'caption',
      { class: 'sr-only' },
      'Per-operator FLOPs, bytes, arithmetic intensity, roofline bound and forecast time',
    ),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Operator'),
        h('th', { scope: 'col' }, 'Kernel'),
        h('th', { scope: 'col', class: 'num' }, 'Launches'),
        h('th', { scope: 'col', class: 'num' }, 'FLOPs'),
        h('th', { scope: 'col', class: 'num' }, 'Bytes'),
        h('th', { scope: 'col', class: 'num' }, 'FLOP/byte'),
        h('th', { scope: 'col', class: 'num' }, 'Ridge'),
        h('th', { scope: 'col' }, 'Bound'),
        h('th', { scope: 'col', class: 'num' }, 'Time'),
        h('th', { scope: 'col', class: 'num', 'aria-sort': sort === 'share' ? 'descending' : 'none' }, 'Share'),
      ),
    ),
  );
  const tbody = h('tbody');
  for (const { r, i } of order) {
    const kind = r.bound === 'compute' ? 'compute_bound' : 'memory_bound';
    const tr = h(
      'tr',
      { 'data-index': String(i) },
      h(
        'th',
        { scope: 'row' },
        `${r.name} `,
        h('span', { class: 'hint' }, `${r.section} · ${PHASE_WORD[r.phase] ?? r.phase}`),
      ),
      h('td', {}, r.kernel),
      num(String(r.launches), r.launches),
      num(fmtSi(r.flops), r.flops),
      num(fmtSi(r.bytes), r.bytes),
      num(fmtNum(r.intensity_flop_per_byte), r.intensity_flop_per_byte),
      num(fmtNum(r.ridge_flop_per_byte), r.ridge_flop_per_byte),
      h(
        'td',
        { 'data-bound': r.bound },
        h('span', { class: 'bound-mark', 'data-kind': kind, style: `background:${PALETTE[kind]}` }),
        ` ${r.bound}`,
      ),
      num(fmtMs(r.time_ms), r.time_ms),
      num(fmtPct(100 * r.share), r.share),
    );
    tbody.append(tr);
  }
  table.append(tbody);
}
