// The forecast view: its cards, breakdown chart and per-layer table, and a forecast's words that
// every view, the exports and the embed card use (title, setting, assumptions, caveats). Draws what
// it is given; render.ts decides what and when. The comparison and the sweep: compare_view.ts,
// sweep_view.ts.
import { drawChart } from './draw';
import { PALETTE, markKinds } from './palette';
import { byId, clear, h, setText } from './dom';
import { BREAKDOWN_KINDS, isMegatron, type AnyForecast } from './engine';
import { fmtMs, fmtNum, fmtRate } from './format';
import { CUSTOM } from './state';
import { renderTraining } from './train_view';
import { METHOD_NAME, finetuneWords, renderFinetune } from './finetune_view';
import { type Footing, footing } from './footing';
import { megatronAssumptions, megatronEmbedSetting, megatronSetting, renderMegatron } from './megatron_view';

// The measured kernel classes a substitution names, in words.
const OP_WORDS: Record<string, string> = {
  linear: 'a linear layer',
  bmm: 'a batched matmul',
  add: 'an element-wise add',
  addu: 'adding a scalar',
  mul: 'an element-wise multiply',
  mulu: 'multiplying by a scalar',
  div: 'an element-wise divide',
  divu: 'dividing by a scalar',
  pow: 'an element-wise power',
  powu: 'raising to a scalar power',
  relu: 'ReLU',
  gelu: 'GELU',
  tanh: 'tanh',
  softmax: 'softmax',
  ln: 'layer norm',
};

export function substitutionText(subs: { kernel: string; forecast_as: string }[]): string {
  if (!subs.length) return '';
  const parts = subs.map((s) => `${s.kernel} like ${OP_WORDS[s.forecast_as] ?? s.forecast_as}`);
  return `Kernels never measured, forecast like the closest measured one: ${parts.join(', ')}.`;
}

const KIND_LABEL: Record<string, string> = {
  gemm: 'GEMMs (linear)',
  attention_bmm: 'Attention matmuls',
  softmax: 'Softmax',
  norm: 'Normalization',
  elementwise: 'Element-wise',
  memory: 'Memory ops',
  communication: 'Communication',
  bubble: 'Pipeline bubble (idle)',
};

// Shows "903.5 ms" as a figure and a smaller unit; the exact number rides in data-value.
export function setOutput(id: string, text: string, value: number): void {
  const el = byId(id);
  const cut = text.indexOf(' ');
  clear(el);
  if (cut < 0) el.append(text);
  else el.append(text.slice(0, cut), h('span', { class: 'unit' }, text.slice(cut)));
  el.dataset.value = String(value);
}

export function modeWords(mode: string): string {
  return mode === 'training' ? 'training step' : mode === 'decode' ? 'decode step' : 'inference pass';
}

// The sequence in words: a decode step's is the KV cache it reads.
export function seqWords(f: { mode: string; seq: number }): string {
  return f.mode === 'decode' ? `KV cache ${f.seq} tokens` : `sequence ${f.seq}`;
}

const PRECISION_NAME: Record<string, string> = { fp32: 'FP32', bf16: 'BF16', fp16: 'FP16' };

// A training step whose master weights are the half type (model.to(half)), as the core answered.
function halfMasterWeights(f: AnyForecast): boolean {
  return f.mode === 'training' && 'workload' in f && f.workload?.master_weights === 'half';
}

// The engine, precision and GPUs a forecast assumes, in words ("in PyTorch eager
// mode, FP32 without TF32, on one GPU" for the default).
export function settingText(f: AnyForecast): string {
  if (isMegatron(f)) return megatronSetting(f);
  const engine =
    f.engine === 'compiled' ? 'with torch.compile (Inductor, default mode, no CUDA graphs)' : 'in PyTorch eager mode';
  const name = PRECISION_NAME[f.precision] ?? f.precision;
  const precision =
    !f.precision || f.precision === 'fp32'
      ? 'FP32 without TF32'
      : halfMasterWeights(f)
        ? `${name} throughout (model.to(${f.precision}): every kernel, gradient and Adam state in ${name})`
        : f.mode === 'training'
          ? `${name} mixed precision (torch.autocast: ${name} GEMMs on tensor cores, the rest in FP32, FP32 master weights)`
          : `${name} throughout`;
  const p = f.parallel;
  const gpus = p
    ? `on ${p.gpus} GPUs of system ${p.system} (data ${p.dp} × tensor ${p.tp} × pipeline ${p.pp}, ${p.microbatches} micro-batch${p.microbatches === 1 ? '' : 'es'} of ${p.microbatch_size}, ZeRO ${p.zero}, recomputation ${p.recompute}${p.pp > 1 ? `, ${p.schedule === 'gpipe' ? 'GPipe' : '1F1B'} schedule` : ''})`
    : 'on one GPU';
  const ft = f.finetune ? `, ${finetuneWords(f)}, base weights frozen` : '';
  return `${engine}, ${precision}, ${gpus}${ft}`;
}

// The embed card's short form: "PyTorch eager, FP32, one GPU".
export function embedSetting(f: AnyForecast): string {
  if (isMegatron(f)) return megatronEmbedSetting(f);
  const engine = f.engine === 'compiled' ? 'torch.compile' : 'PyTorch eager';
  const name = PRECISION_NAME[f.precision] ?? 'FP32';
  const half = f.mode === 'training' && f.precision && f.precision !== 'fp32';
  const precision = halfMasterWeights(f) ? `${name} throughout` : half ? `${name} mixed precision` : name;
  const p = f.parallel;
  const ft = f.finetune ? `, ${METHOD_NAME[f.finetune.method]} r${f.finetune.rank}` : '';
  return `${engine}, ${precision}, ${p ? `${p.gpus} GPUs (${p.dp}×${p.tp}×${p.pp})` : 'one GPU'}${ft}`;
}

// What every forecast assumes (the setting of the measurements the model learned from).
export function assumptionsText(f: AnyForecast): string {
  if (isMegatron(f)) return megatronAssumptions(f);
  const what =
    f.mode === 'training'
      ? `one ${f.finetune ? `${METHOD_NAME[f.finetune.method]} fine-tuning` : 'training'} step (forward and backward pass, optimizer excluded)`
      : f.mode === 'decode'
        ? "one decode step: one new token per sequence against a KV cache of that many tokens, as Hugging Face's generate runs it (a DynamicCache appended with torch.cat)"
        : 'one inference pass: a single forward pass over the whole sequence (prefill), no token-by-token generation';
  return `Forecast of ${what}, ${settingText(f)}.`;
}

// The caveat box: one line (the first caveat's first sentence, and how many more), the
// caveats in full on demand. Empty (and hidden by CSS) when there are none.
// The footing tag of a card (footing.ts), with its kind in data-footing.
export function showFooting(el: HTMLElement, k: Footing): void {
  el.dataset.footing = k;
  setText(el, k);
}

export function renderCaveats(box: HTMLElement, caveats: string[]): void {
  clear(box);
  box.dataset.count = String(caveats.length);
  if (!caveats.length) return;
  const first = caveats[0].split(/(?<=\.)\s+(?=[A-Z(])/)[0].replace(/\.$/, '');
  const more = caveats.length > 1 ? ` (+${caveats.length - 1} more)` : '';
  box.append(
    h(
      'details',
      { class: 'caveat-details' },
      h('summary', {}, `${first}${more}`),
      h('ul', {}, ...caveats.map((c) => h('li', {}, c))),
    ),
  );
}

// `pasted`: a pasted config's own name (its _name_or_path, ...), which the core does not keep.
export function forecastTitle(f: AnyForecast, pasted = ''): string {
  return `${!f.model.id && pasted ? pasted : f.model.name} on ${f.gpu.name}`;
}

// The headline figures, the same for the main view and the embed card (ids
// `${prefix}latency`, `…latency-label`, `…roofline`, `…samples`, `…tokens`).
export function showFigures(prefix: '' | 'embed-', f: AnyForecast): void {
  setText(byId(`${prefix}latency-label`), f.predictor === 'roofline' ? 'Roofline forecast' : 'tilecast forecast');
  setOutput(`${prefix}latency`, fmtMs(f.latency_ms), f.latency_ms);
  // The megatron step has no roofline figure (its roofline-predictor run is not a bound).
  if (!isMegatron(f)) {
    const roof = f.roofline_latency_ms ?? NaN;
    if (Number.isFinite(roof)) setOutput(`${prefix}roofline`, fmtMs(roof), roof);
    else setOutput(`${prefix}roofline`, '—', NaN);
  }
  setOutput(`${prefix}samples`, `${fmtRate(f.samples_per_s)} samples/s`, f.samples_per_s);
  // An inference pass's tokens are the prompt's, processed at once: not generation speed.
  setOutput(
    `${prefix}tokens`,
    `${fmtRate(f.tokens_per_s)} ${f.mode === 'training' ? 'tokens/s' : f.mode === 'decode' ? 'generated tokens/s' : 'prefill tokens/s'}`,
    f.tokens_per_s,
  );
}

// The forecast view's one entry: the figures every engine has, then the engine's own parts.
export function renderForecast(f: AnyForecast, pasted = ''): void {
  byId('forecast-body').hidden = false;
  const body = byId('forecast-body');
  body.dataset.engine = f.engine ?? 'eager';
  if (isMegatron(f)) {
    body.dataset.gpu = f.gpu.id || CUSTOM;
    body.dataset.model = f.model.id || CUSTOM;
    body.dataset.batch = String(f.batch);
    body.dataset.seq = String(f.seq);
    body.dataset.mode = f.mode;
    setText(
      byId('forecast-title'),
      `${forecastTitle(f, pasted)} — training step on ${f.parallel.gpus === 1 ? 'one GPU' : `${f.parallel.gpus} GPUs`} (Megatron-Core), global batch ${f.batch}, sequence ${f.seq}`,
    );
    showFigures('', f);
    showFooting(byId('latency-footing'), footing(f));
    setText(byId('assumptions'), assumptionsText(f));
    renderCaveats(byId('caveats'), f.caveats ?? []);
    renderMegatron(f);
    renderTraining(f);
    renderFinetune(f);
    return;
  }
  byId('roofline-card').hidden = false;
  byId('mfu-card').hidden = true;
  byId('days-card').hidden = true;
  delete byId<HTMLCanvasElement>('breakdown-chart').dataset.kinds;
  body.dataset.gpu = f.gpu.id || CUSTOM;
  body.dataset.model = f.model.id || CUSTOM;
  body.dataset.batch = String(f.batch);
  body.dataset.seq = String(f.seq);
  body.dataset.mode = f.mode;
  const p = f.parallel;
  body.dataset.gpus = String(p?.gpus ?? 1);
  setText(
    byId('forecast-title'),
    `${forecastTitle(f, pasted)} — ${f.finetune ? `${METHOD_NAME[f.finetune.method]} fine-tuning step` : modeWords(f.mode)}${p ? ` on ${p.gpus} GPUs` : ''}, ${p ? 'global ' : ''}batch ${f.batch}, ${seqWords(f)}`,
  );
  showFigures('', f);
  showFooting(byId('latency-footing'), footing(f));
  setText(byId('assumptions'), assumptionsText(f));
  setText(
    byId('tokens-note'),
    f.mode === 'training'
      ? ''
      : f.mode === 'decode'
        ? 'one new token per sequence per step, at this batch and cache length'
        : 'tokens of one forward pass over the whole sequence; not generation speed',
  );
  const perGpu = byId('tokens-per-gpu');
  perGpu.parentElement!.hidden = !p;
  if (p && f.tokens_per_s_per_gpu !== undefined)
    setOutput('tokens-per-gpu', `${fmtRate(f.tokens_per_s_per_gpu)} tokens/s per GPU`, f.tokens_per_s_per_gpu);
  const band =
    f.band_low_ms != null && f.band_high_ms != null
      ? `80% band ${fmtMs(f.band_low_ms)}–${fmtMs(f.band_high_ms)} · `
      : '';
  setText(
    byId('latency-sub'),
    p
      ? `${band}one step; pipeline bubble ${fmtNum(100 * (f.bubble_fraction ?? 0))}% · a micro-batch's forward ${fmtMs(f.forward_ms)} + backward ${fmtMs(f.backward_ms)} on the critical stage`
      : band +
          (f.mode === 'training'
            ? `forward ${fmtMs(f.forward_ms)} + backward ${fmtMs(f.backward_ms)}`
            : `forward only · ${f.kernels} kernels`),
  );
  const ratio = f.latency_ms / (f.roofline_latency_ms ?? NaN);
  setText(
    byId('roofline-sub'),
    f.parallel && !Number.isFinite(f.roofline_latency_ms)
      ? 'the roofline step follows once input settles'
      : f.predictor !== 'roofline' && Number.isFinite(ratio)
        ? `peak-speed bound; the learned model forecasts ${fmtNum(ratio)}× this`
        : 'peak-speed bound: every kernel at its compute or memory limit',
  );
  renderCaveats(byId('caveats'), f.caveats ?? []);

  const kinds = BREAKDOWN_KINDS.filter((k) => f.breakdown && typeof f.breakdown[k] === 'number');
  markKinds(byId('breakdown-chart'), kinds);
  drawChart(byId<HTMLCanvasElement>('breakdown-chart'), {
    type: 'bar',
    data: {
      labels: kinds.map((k) => KIND_LABEL[k] ?? k),
      datasets: [
        {
          label: 'ms',
          data: kinds.map((k) => f.breakdown[k] as number),
          backgroundColor: kinds.map((k) => PALETTE[k]),
        },
      ],
    },
    options: {
      indexAxis: 'y',
      plugins: {
        legend: { display: false },
        tooltip: { callbacks: { label: (c) => fmtMs(Number(c.raw)) } },
      },
      scales: { x: { title: { display: true, text: 'ms' }, beginAtZero: true } },
    },
  });

  renderTraining(f);
  renderFinetune(f);
  if (p) return; // the stage table stands where the layers were

  setText(byId('layers-heading'), 'Per layer');
  const table = byId<HTMLTableElement>('layers-table');
  clear(table);
  const training = f.mode === 'training';
  table.append(
    h('caption', { class: 'sr-only' }, 'Forecast time per layer'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Layer'),
        h('th', { scope: 'col', class: 'num' }, 'Count'),
        h('th', { scope: 'col', class: 'num' }, 'Forward'),
        training && h('th', { scope: 'col', class: 'num' }, 'Backward'),
        h('th', { scope: 'col', class: 'num' }, 'Total'),
      ),
    ),
  );
  setText(
    byId('layers-note'),
    training
      ? 'ms; forward and backward per instance, total for all of them'
      : 'ms; forward per instance, total for all of them',
  );
  const tbody = h('tbody');
  for (const l of f.layers ?? []) {
    tbody.append(
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, l.name),
        h('td', { class: 'num' }, String(l.count)),
        h('td', { class: 'num' }, fmtNum(l.forward_ms)),
        training && h('td', { class: 'num' }, fmtNum(l.backward_ms)),
        h('td', { class: 'num' }, fmtNum(l.total_ms)),
      ),
    );
  }
  table.append(tbody);
  const subs = f.substitutions ?? [];
  setText(byId('substitutions'), substitutionText(subs));
}

// ---- the comparison's and the sweep's (compare_view.ts, sweep_view.ts) ----

// A forecast's 80% band as [low, high] ms, or null when it has none (the megatron step has none).
export function bandOf(f: AnyForecast): [number, number] | null {
  if (isMegatron(f)) return null;
  return f.band_low_ms != null && f.band_high_ms != null ? [f.band_low_ms, f.band_high_ms] : null;
}

// The roofline step beside a forecast; NaN (drawn as '—') when there is none.
export function rooflineOf(f: AnyForecast): number {
  return isMegatron(f) ? NaN : (f.roofline_latency_ms ?? NaN);
}
