// Whether a forecast fits in the GPU's memory, as a state of the headline cards, and what
// would fit instead (the largest batch, more GPUs, a smaller precision). The numbers come from
// the core (memory.fits, max_batch, tp_to_fit) or from forecasts of the changed request (memo).
import { finetuneField, requestFor, servingRequestFor, type App } from './app';
import { byId, clear, h, setText } from './dom';
import {
  isMegatron,
  type AnyForecast,
  type ModelRequest,
  type Precision,
  type ServingForecast,
  type ServingRequest,
} from './engine';
import { peek, peekServing } from './memo';
import { gb } from './memory_bar';
import { planKey, planRequests } from './plan_request';
import type { Patch } from './store';

export interface FitOption {
  id: string; // 'batch' | 'precision' | 'qlora' | 'gpus' | 'plans': a test's handle
  label: string; // the button
  detail: string; // why it fits
  patch: Patch | null; // what the button changes (null: words only)
  inputs?: Record<string, number>; // input fields to set to the new values (render never rewrites them)
}

export interface FitState {
  fits: boolean;
  total_gb: number;
  capacity_gb: number;
  options: FitOption[];
  // Forecasts an option waits for (not remembered yet): a job computes them once input settles,
  // so a forecast that does not fit costs the input path nothing more.
  pending: ModelRequest[];
  pendingServing: ServingRequest[];
}

// The cards of `cardsId` marked fitting or not; the badge and the options beside them.
export function renderFit(prefix: 'fc' | 'serve', fit: FitState, apply: (o: FitOption) => void): void {
  const cards = byId(`${prefix}-cards`);
  cards.dataset.fits = String(fit.fits);
  const box = byId(`${prefix}-fit`);
  box.hidden = fit.fits;
  const list = byId(`${prefix}-fit-options`);
  clear(list);
  if (fit.fits) return;
  setText(
    byId(`${prefix}-fit-headline`),
    `Does not fit: needs ${gb(fit.total_gb)} of the GPU's ${gb(fit.capacity_gb)} (its memory as the driver reports it). The figures are what it would take if it fitted.`,
  );
  if (!fit.options.length) list.append(h('li', {}, 'Nothing smaller on this GPU fits: choose a GPU with more memory.'));
  for (const o of fit.options) {
    const item = h('li', { 'data-option': o.id });
    if (o.patch) {
      const button = h('button', { type: 'button', class: 'secondary small' }, o.label);
      button.addEventListener('click', () => apply(o));
      item.append(button, ` ${o.detail}`);
    } else item.append(h('strong', {}, o.label), ` ${o.detail}`);
    list.append(item);
  }
}

// Sets the input fields an option changes (as usePlan does), then applies its patch.
export function applyFit(o: FitOption, update: (p: Patch) => void): void {
  for (const [id, v] of Object.entries(o.inputs ?? {})) {
    const el = byId<HTMLInputElement>(id);
    el.value = String(v);
    el.setAttribute('aria-invalid', 'false');
  }
  if (o.patch) update(o.patch);
}

const SMALLER: Precision[] = ['bf16', 'fp16'];
const PRECISION_NAME: Record<string, string> = { fp32: 'FP32', bf16: 'BF16', fp16: 'FP16' };

// The forecast view's: the core's largest batch, a 16-bit precision when FP32 does not fit
// (forecast here, remembered), tensor parallelism (the core's tp_to_fit, in the Serve view)
// for a pass, the plan search across GPUs for a training step.
export function forecastFit(app: App, f: AnyForecast): FitState {
  const m = f.memory;
  const none = { options: [], pending: [], pendingServing: [] };
  if (!m || m.fits) return { fits: true, total_gb: m?.total_gb ?? 0, capacity_gb: m?.capacity_gb ?? 0, ...none };
  // The megatron step: what Megatron splits further (the page's plan search is the eager engine's).
  if (isMegatron(f))
    return {
      fits: false,
      total_gb: m.total_gb,
      capacity_gb: m.capacity_gb,
      options: [
        {
          id: 'plans',
          label: 'Split it further',
          detail:
            'more tensor, pipeline or context parallelism, sequence parallelism, or selective or full recomputation (the GPUs box); tilecast plan --engine megatron (the CLI) searches them.',
          patch: null,
        },
      ],
      pending: [],
      pendingServing: [],
    };
  const options: FitOption[] = [];
  const pending: ModelRequest[] = [];
  const s = app.state;
  const maxBatch = m.max_batch;
  if (!f.parallel && maxBatch !== undefined) {
    if (maxBatch >= 1)
      options.push({
        id: 'batch',
        label: `Batch ${maxBatch}`,
        detail: `the largest batch that fits at ${s.mode === 'decode' ? `a KV cache of ${s.seq} tokens` : `sequence ${s.seq}`}.`,
        patch: { batch: maxBatch, ui: { workloadError: '', batchInvalid: false } },
        inputs: { batch: maxBatch },
      });
    else
      options.push({
        id: 'batch',
        label: 'No batch size',
        detail: 'fits: even batch 1 needs more memory.',
        patch: null,
      });
  }
  if (!f.parallel && s.forecastPrecision === 'fp32') {
    for (const p of SMALLER) {
      const request: ModelRequest = { ...requestFor(app, undefined, undefined, true), precision: p };
      const r = peek(request);
      if (!r) {
        pending.push(request);
        break;
      }
      if (!r.ok || !r.f.memory) continue; // the GPU has no such units
      const name = PRECISION_NAME[p];
      options.push(
        r.f.memory.fits
          ? {
              id: 'precision',
              label: name,
              detail: `${f.mode === 'training' ? 'mixed precision' : 'throughout'}: ${gb(r.f.memory.total_gb)}.`,
              patch: { forecastPrecision: p },
            }
          : { id: 'precision', label: name, detail: `still needs ${gb(r.f.memory.total_gb)}.`, patch: null },
      );
      break;
    }
  }
  // LoRA that does not fit: QLoRA's 4-bit base (forecast here, remembered).
  const ft = finetuneField(s);
  if (!f.parallel && ft?.method === 'lora') {
    const request: ModelRequest = {
      ...requestFor(app, undefined, undefined, true),
      finetune: { ...ft, method: 'qlora' },
    };
    const r = peek(request);
    if (!r) pending.push(request);
    else if (r.ok && r.f.memory)
      options.push(
        r.f.memory.fits
          ? {
              id: 'qlora',
              label: 'QLoRA',
              detail: `the base's linear weights in 4-bit NF4: ${gb(r.f.memory.total_gb)}.`,
              patch: { finetune: 'qlora' },
            }
          : { id: 'qlora', label: 'QLoRA', detail: `still needs ${gb(r.f.memory.total_gb)}.`, patch: null },
      );
  }
  if ('tp_to_fit' in m) {
    options.push(
      m.tp_to_fit > 1
        ? {
            id: 'gpus',
            label: `${m.tp_to_fit} GPUs`,
            detail: `with tensor parallelism each GPU's share fits (the Serve view, tensor-parallel ${m.tp_to_fit}).`,
            patch: { view: 'serve', tp: m.tp_to_fit },
            inputs: { tp: m.tp_to_fit },
          }
        : { id: 'gpus', label: 'More than 64 GPUs', detail: 'would be needed with tensor parallelism.', patch: null },
    );
  } else if (f.mode === 'training') {
    const { requests, why } = planRequests(app);
    options.push(
      requests.length
        ? {
            id: 'plans',
            label: 'Find plans across GPUs',
            detail: 'data, tensor and pipeline parallelism with ZeRO, ranked by step time (below).',
            patch: { ui: { planWanted: planKey(requests) } },
          }
        : { id: 'plans', label: 'More GPUs', detail: why, patch: null },
    );
  }
  return { fits: false, total_gb: m.total_gb, capacity_gb: m.capacity_gb, options, pending, pendingServing: [] };
}

const TP_TRIES = [2, 4, 8, 16, 32, 64];

// The serve view's: the core's largest batch, the smallest tensor-parallel count that fits
// (serving forecasts, remembered), BF16 when FP32 does not fit.
export function serveFit(app: App, f: ServingForecast): FitState {
  const m = f.memory;
  if (m.fits)
    return {
      fits: true,
      total_gb: m.total_gb,
      capacity_gb: m.capacity_gb,
      options: [],
      pending: [],
      pendingServing: [],
    };
  const options: FitOption[] = [];
  const pendingServing: ServingRequest[] = [];
  if (f.max_batch >= 1)
    options.push({
      id: 'batch',
      label: `Batch ${f.max_batch}`,
      detail: `the largest batch that fits at ${f.prompt + f.output} tokens per request.`,
      patch: { batch: f.max_batch, ui: { workloadError: '', batchInvalid: false } },
      inputs: { batch: f.max_batch },
    });
  for (const tp of TP_TRIES.filter((t) => t > f.tp)) {
    const request = servingRequestFor(app, {}, tp);
    const r = peekServing(request);
    if (!r) {
      pendingServing.push(request);
      break;
    }
    if (r.ok && r.f.memory.fits) {
      options.push({
        id: 'gpus',
        label: `${tp} GPUs`,
        detail: `tensor-parallel ${tp}: ${gb(r.f.memory.total_gb)} per GPU.`,
        patch: { tp, ui: { serveError: '' } },
        inputs: { tp },
      });
      break;
    }
  }
  if (f.precision === 'fp32') {
    const request: ServingRequest = { ...servingRequestFor(app), precision: 'bf16' };
    const r = peekServing(request);
    if (!r) pendingServing.push(request);
    else if (r.ok && r.f.memory.fits)
      options.push({
        id: 'precision',
        label: 'BF16',
        detail: `${gb(r.f.memory.total_gb)}.`,
        patch: { precision: 'bf16' },
      });
  }
  return { fits: false, total_gb: m.total_gb, capacity_gb: m.capacity_gb, options, pending: [], pendingServing };
}
