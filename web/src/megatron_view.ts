// The megatron engine's training step (api::forecast_model with "engine": "megatron",
// docs/megatron.md) in the forecast view: step time, tokens/s, model TFLOP/s per GPU, MFU and
// HFU (the formula on hover and in the assumptions), days to train, the step's breakdown, one
// micro-batch's times. views.ts renderForecast dispatches here on the response's engine; the
// memory bar and the assumptions list are train_view.ts's, as for every training forecast.
import { byId, clear, h, setText } from './dom';
import { drawChart } from './draw';
import { MEGATRON_KINDS, type MegatronBreakdown, type MegatronForecast } from './engine';
import { footing } from './footing';
import { fmtMs, fmtNum, fmtRate } from './format';
import { PALETTE, markKinds, type Kind } from './palette';
import { formatTokens } from './state';

const PRECISION_NAME: Record<string, string> = { bf16: 'BF16', fp16: 'FP16', fp8: 'FP8', fp32: 'FP32' };

// The bars: the step's parts (all but recomputation sum to the step), recomputation beside
// compute as the part of it that repeats the forward.
// Each bar's colour is its kind's (palette.ts: the part of the step of that name).
const BARS: [keyof MegatronBreakdown & Kind, string][] = [
  ['compute', 'Compute (kernels)'],
  ['recompute', '… of it recompute'],
  ['tp_comm', 'TP/CP comm. exposed'],
  ['pp_comm', 'Pipeline send/recv'],
  ['dp_comm', 'DP comm. exposed'],
  ['bubble', 'Pipeline bubble'],
  ['optimizer', 'Optimizer step'],
];

export function megatronPrecision(f: MegatronForecast): string {
  const name = PRECISION_NAME[f.precision] ?? f.precision;
  return f.precision === 'fp8'
    ? 'FP8 GEMMs (TransformerEngine, delayed scaling), the rest in BF16, FP32 main gradients and Adam states'
    : `${name} activations and weights, FP32 main gradients, master weights and Adam states`;
}

// "on 8 GPUs of system dgx-h100 (data 4 × tensor 2 × pipeline 1 × context 1, …)"
export function megatronSetting(f: MegatronForecast): string {
  const p = f.parallel;
  const extras = [
    `${p.microbatches} micro-batch${p.microbatches === 1 ? '' : 'es'} of ${p.microbatch_size}`,
    p.virtual_stages > 1 ? `${p.virtual_stages} virtual stages (interleaved 1F1B)` : p.pp > 1 ? '1F1B' : '',
    p.sequence_parallel ? 'sequence parallelism' : '',
    `recomputation ${p.recompute}`,
    `${p.attention === 'flash' ? 'FlashAttention' : 'fused-softmax attention'}`,
    p.ep > 1 ? `experts over ${p.ep} data-parallel ranks (all-to-all)` : '',
    p.distributed_optimizer ? 'distributed optimizer' : 'optimizer states on every data-parallel rank',
    p.overlap_grad_reduce ? 'gradient reduction overlapped' : 'gradient reduction after the backward pass',
  ].filter((x) => x);
  const gpus = p.gpus === 1 ? 'one GPU' : `${p.gpus} GPUs`;
  return `as Megatron-Core runs it, ${megatronPrecision(f)}, on ${gpus} of system ${p.system} (data ${p.dp} × tensor ${p.tp} × pipeline ${p.pp} × context ${p.cp}; ${extras.join(', ')})`;
}

export function megatronEmbedSetting(f: MegatronForecast): string {
  const p = f.parallel;
  return `Megatron-Core, ${PRECISION_NAME[f.precision] ?? f.precision}, ${p.gpus} GPU${p.gpus === 1 ? '' : 's'} (${p.dp}×${p.tp}×${p.pp}×${p.cp})`;
}

export function megatronAssumptions(f: MegatronForecast): string {
  return `Forecast of one training step (forward, backward, gradient reduction and the optimizer step) ${megatronSetting(f)}.`;
}

// The cards beside the step time: MFU (formula on hover), and days to train when tokens are given.
function renderCards(f: MegatronForecast): void {
  byId('roofline-card').hidden = true; // the engine's roofline-predictor run is not a bound
  const mfuCard = byId('mfu-card');
  mfuCard.hidden = false;
  mfuCard.title = f.mfu_formula;
  const mfu = byId('mfu');
  mfu.textContent = `${fmtNum(100 * f.mfu)}%`;
  mfu.dataset.value = String(f.mfu);
  const tflops = byId('model-tflops');
  tflops.textContent = `${fmtNum(f.model_tflops_per_gpu)} model TFLOP/s per GPU`;
  tflops.dataset.value = String(f.model_tflops_per_gpu);
  const hfu = `HFU ${fmtNum(100 * f.hfu)}%`;
  setText(
    byId('mfu-sub'),
    `${hfu} · of the ${fmtNum(f.peak_tflops)} TFLOP/s dense ${f.precision === 'fp8' ? 'BF16 (as Megatron reports FP8 runs)' : (PRECISION_NAME[f.precision] ?? '')} peak`,
  );
  byId('mfu-sub').dataset.hfu = String(f.hfu);
  const days = byId('days-card');
  days.hidden = f.train_days === undefined;
  const out = byId('train-days');
  if (f.train_days !== undefined && f.tokens !== undefined) {
    out.textContent = `${fmtNum(f.train_days)} days`;
    out.dataset.value = String(f.train_days);
    setText(
      byId('train-days-sub'),
      `${formatTokens(f.tokens)} tokens at ${fmtRate(f.tokens_per_s)} tokens/s, every step as this one`,
    );
  } else {
    out.textContent = '';
    delete out.dataset.value;
  }
}

function renderBreakdown(f: MegatronForecast): void {
  const canvas = byId<HTMLCanvasElement>('breakdown-chart');
  canvas.dataset.kinds = MEGATRON_KINDS.join(',');
  markKinds(
    canvas,
    BARS.map(([k]) => k),
  );
  drawChart(canvas, {
    type: 'bar',
    data: {
      labels: BARS.map(([, l]) => l),
      datasets: [
        {
          label: 'ms',
          data: BARS.map(([k]) => f.breakdown_ms[k]),
          backgroundColor: BARS.map(([k]) => PALETTE[k]),
        },
      ],
    },
    options: {
      indexAxis: 'y',
      plugins: { legend: { display: false }, tooltip: { callbacks: { label: (c) => fmtMs(Number(c.raw)) } } },
      scales: { x: { title: { display: true, text: 'ms per step' }, beginAtZero: true } },
    },
  });
}

// One micro-batch: a layer, and the critical pipeline rank's layers with the embedding or head.
function renderMicrobatch(f: MegatronForecast): void {
  const p = f.parallel;
  setText(byId('layers-heading'), 'One micro-batch');
  setText(
    byId('layers-note'),
    `ms; micro-batch size ${p.microbatch_size}; backward includes recomputation; layers per pipeline stage: ${p.layers_per_stage.join(', ')}`,
  );
  setText(byId('substitutions'), '');
  const table = byId<HTMLTableElement>('layers-table');
  clear(table);
  table.append(
    h('caption', { class: 'sr-only' }, 'Forecast time of one micro-batch'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['', 'Forward', 'Backward', 'Total'].map((t, i) =>
          h('th', { scope: 'col', class: i ? 'num' : undefined }, t),
        ),
      ),
    ),
  );
  const row = (name: string, fw: number, bw: number) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row' }, name),
      h('td', { class: 'num' }, fmtNum(fw)),
      h('td', { class: 'num' }, fmtNum(bw)),
      h('td', { class: 'num' }, fmtNum(fw + bw)),
    );
  table.append(
    h(
      'tbody',
      {},
      row('One transformer layer', f.layer_forward_ms, f.layer_backward_ms),
      row('The critical pipeline rank', f.forward_ms, f.backward_ms),
    ),
  );
}

// The parts of the forecast view that differ from the eager engine's; the caller draws the rest.
export function renderMegatron(f: MegatronForecast): void {
  const p = f.parallel;
  setText(
    byId('latency-sub'),
    `one step; pipeline bubble ${fmtNum(100 * f.bubble_fraction)}% · a micro-batch's forward ${fmtMs(f.forward_ms)} + backward ${fmtMs(f.backward_ms)} on the critical pipeline rank`,
  );
  setText(byId('tokens-note'), '');
  const perGpu = byId('tokens-per-gpu');
  perGpu.parentElement!.hidden = false;
  perGpu.textContent = `${fmtRate(f.tokens_per_s_per_gpu)} tokens/s per GPU`;
  perGpu.dataset.value = String(f.tokens_per_s_per_gpu);
  byId('forecast-body').dataset.gpus = String(p.gpus);
  byId('latency-footing').dataset.footing = footing(f);
  renderCards(f);
  renderBreakdown(f);
  renderMicrobatch(f);
}
