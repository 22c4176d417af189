// A multi-GPU training step (api::forecast_model with parallel fields,
// docs/parallel.md): memory per GPU against its capacity, one step's timeline
// (each pipeline stage's compute and communication streams, the bubble between),
// the per-stage table and the core's assumptions. Draws what it is given.
import { byId, clear, h, setText } from './dom';
import {
  isMegatron,
  type AnyForecast,
  type PassMemory,
  type StageTimeline,
  type StreamSpan,
  type TrainingMemory,
} from './engine';
import { fmtMs, fmtNum } from './format';
import { drawMemoryBar, gb } from './memory_bar';
import { PALETTE, type Kind } from './palette';

const MEMORY_PARTS = [
  ['weights_gb', 'Weights', 'weights'],
  ['gradients_gb', 'Gradients', 'gradients'],
  ['optimizer_gb', 'Optimizer states', 'optimizer'],
  ['activations_gb', 'Activations', 'activations'],
  ['workspace_gb', 'Workspaces', 'workspace'],
  ['context_gb', 'CUDA context', 'context'],
] as const;
// An inference pass's: the serving rules at the pass's shape (core serve/pass_memory.cpp).
const PASS_PARTS = [
  ['weights_gb', 'Weights', 'weights'],
  ['kv_cache_gb', 'KV cache', 'kv_cache'],
  ['activations_gb', 'Activations and workspaces', 'activations'],
  ['context_gb', 'CUDA context', 'context'],
] as const;

// A span's kind by what runs (its colour is the kind's, palette.ts); the bubble is the compute
// row's background.
const SPAN_KINDS: [RegExp, Kind, string][] = [
  [/^forward/, 'forward', 'Forward'],
  [/^backward/, 'backward', 'Backward'],
  [/^recompute/, 'recompute', 'Recompute'],
  [/bucket|all-gather|all_gather|zero/i, 'dp_comm', 'Data-parallel gradients / ZeRO'],
  [/^send/, 'pp_comm', 'Pipeline sends'],
];

// Every forecast's memory per GPU (one GPU or many, any mode); the rest for many GPUs only.
// The megatron step has no stage timeline: its memory and assumptions (with MFU's formula).
export function renderTraining(f: AnyForecast): void {
  const p = f.parallel;
  const m = f.memory;
  byId('train-body').hidden = !m;
  byId('train-parallel').hidden = !p;
  byId('timeline-panel').hidden = isMegatron(f);
  if (isMegatron(f)) {
    renderMemory(f.memory, f.parallel.gpus > 1);
    fillAssumptions([...f.assumptions, `MFU: ${f.mfu_formula}`]);
    return;
  }
  if (m) renderMemory(m, !!p);
  if (!p || !f.stages) return;
  renderTimeline(f.stages, f.step_ms ?? f.latency_ms);
  renderStages(f.stages);
  fillAssumptions(f.assumptions ?? []);
}

function fillAssumptions(lines: string[]): void {
  const list = byId('train-assumptions');
  clear(list);
  for (const a of lines) list.append(h('li', {}, a));
}

export function isTrainingMemory(m: TrainingMemory | PassMemory): m is TrainingMemory {
  return 'gradients_gb' in m;
}

function renderMemory(m: TrainingMemory | PassMemory, many: boolean): void {
  setText(byId('train-memory-heading'), many ? 'Memory per GPU' : 'Memory on the GPU');
  if (isTrainingMemory(m)) drawMemoryBar('train-memory-bar', 'train-memory-legend', MEMORY_PARTS, m);
  else drawMemoryBar('train-memory-bar', 'train-memory-legend', PASS_PARTS, m);
  const stage = isTrainingMemory(m) && many ? ` on each GPU of pipeline stage ${m.stage}, the fullest.` : '.';
  setText(
    byId('train-memory-note'),
    (m.fits
      ? `Fits: ${gb(m.total_gb)} of ${gb(m.capacity_gb)}`
      : `Does not fit by ${gb(m.total_gb - m.capacity_gb)}: ${gb(m.total_gb)} against ${gb(m.capacity_gb)}`) + stage,
  );
}

const SVG = 'http://www.w3.org/2000/svg';

function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

function spanKind(what: string): Kind {
  return SPAN_KINDS.find(([re]) => re.test(what))?.[1] ?? 'communication';
}

// Two rows per stage (compute, communication) over one step, time to the right.
function renderTimeline(stages: StageTimeline[], stepMs: number): void {
  const box = byId('timeline');
  clear(box);
  const spans = stages.flatMap((s) => [...s.compute, ...s.communication]);
  const end = Math.max(stepMs, ...spans.map((x) => x.finish_ms));
  const W = 1000,
    LABEL = 120,
    ROW = 16,
    GAP = 4,
    STAGE_GAP = 10,
    AXIS = 22;
  const plot = W - LABEL - 10;
  const height = stages.length * (2 * ROW + GAP + STAGE_GAP) + AXIS;
  const root = svg('svg', {
    viewBox: `0 0 ${W} ${height}`,
    width: '100%',
    role: 'img',
    preserveAspectRatio: 'xMinYMin meet',
  });
  const x = (ms: number) => LABEL + (plot * Math.max(0, ms)) / end;
  let y = 0;
  let drawn = 0;
  const row = (label: string, items: StreamSpan[], top: number, background: string | null) => {
    const text = svg('text', {
      x: LABEL - 6,
      y: top + ROW - 4,
      'text-anchor': 'end',
      'font-size': 12,
      fill: '#1d2433',
    });
    text.textContent = label;
    root.append(text);
    if (background)
      root.append(
        svg('rect', {
          x: LABEL,
          y: top,
          width: plot,
          height: ROW,
          fill: background,
          class: 'bubble',
          'data-kind': 'bubble',
        }),
      );
    for (const sp of items) {
      const w = Math.max(0.5, x(sp.finish_ms) - x(sp.start_ms));
      const r = svg('rect', {
        x: x(sp.start_ms),
        y: top,
        width: w,
        height: ROW,
        fill: PALETTE[spanKind(sp.what)],
        class: 'span',
        'data-kind': spanKind(sp.what),
      });
      r.setAttribute('data-what', sp.what);
      const title = svg('title', {});
      title.textContent = `${sp.what}, micro-batch ${sp.microbatch}: ${fmtMs(sp.start_ms)} – ${fmtMs(sp.finish_ms)}`;
      r.append(title);
      root.append(r);
      drawn += 1;
    }
  };
  for (const s of stages) {
    row(`stage ${s.stage} compute`, s.compute, y, PALETTE.bubble);
    row(`stage ${s.stage} comm.`, s.communication, y + ROW + GAP, null);
    y += 2 * ROW + GAP + STAGE_GAP;
  }
  // The axis: 0, half and the whole step.
  root.append(svg('line', { x1: LABEL, x2: LABEL + plot, y1: y, y2: y, stroke: '#9aa5b8' }));
  for (const t of [0, end / 2, end]) {
    const label = svg('text', {
      x: x(t),
      y: y + 15,
      'text-anchor': t === 0 ? 'start' : t === end ? 'end' : 'middle',
      'font-size': 12,
      fill: '#4a5468',
    });
    label.textContent = fmtMs(t);
    root.append(label);
  }
  root.setAttribute(
    'aria-label',
    `Timeline of one ${fmtMs(end)} step: ${stages.map((s) => `stage ${s.stage} computes ${fmtMs(s.compute_busy_ms)}, idle ${fmtMs(s.bubble_ms)}`).join('; ')}`,
  );
  box.append(root);
  box.dataset.stages = String(stages.length);
  box.dataset.spans = String(drawn);
  box.dataset.stepMs = String(end);
  const legend = byId('timeline-legend');
  clear(legend);
  const present = new Set(spans.map((sp) => spanKind(sp.what)));
  const entries: [Kind, string][] = SPAN_KINDS.filter(([, k]) => present.has(k)).map(([, k, l]) => [k, l]);
  if (present.has('communication')) entries.push(['communication', 'Other communication']);
  entries.push(['bubble', 'Bubble (compute idle)']);
  for (const [kind, label] of entries) {
    const swatch = h('span', { class: 'swatch', 'data-kind': kind });
    swatch.style.background = PALETTE[kind];
    legend.append(h('li', {}, swatch, label));
  }
}

// The per-stage table, where a single GPU's per-layer table stands.
function renderStages(stages: StageTimeline[]): void {
  setText(byId('layers-heading'), 'Per pipeline stage');
  setText(byId('layers-note'), 'ms per step: compute and communication busy, communication compute waited for, idle');
  setText(byId('substitutions'), '');
  const table = byId<HTMLTableElement>('layers-table');
  clear(table);
  table.append(
    h('caption', { class: 'sr-only' }, 'Forecast time per pipeline stage'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['Stage', 'Compute', 'Comm.', 'Exposed', 'Bubble'].map((t, i) =>
          h('th', { scope: 'col', class: i ? 'num' : undefined }, t),
        ),
      ),
    ),
  );
  const tbody = h('tbody');
  for (const s of stages) {
    tbody.append(
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, String(s.stage)),
        h('td', { class: 'num' }, fmtNum(s.compute_busy_ms)),
        h('td', { class: 'num' }, fmtNum(s.comm_busy_ms)),
        h('td', { class: 'num' }, fmtNum(s.exposed_comm_ms)),
        h('td', { class: 'num' }, fmtNum(s.bubble_ms)),
      ),
    );
  }
  table.append(tbody);
}
