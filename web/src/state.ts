// The calculator's whole state, and its round trip through the URL query. Every parameter a link
// may carry is one row of LINK_FIELDS (below): its name (gpu, model, mode, batch, seq, v, …; the
// serve view's prompt, out, tp, prec, engine, w, kv; the model forecast's fprec, feng and
// multi-GPU fields; fine-tuning's ft, lrank, ltgt; the load sweep's lqps … stpot), what it may
// hold, and when a link writes it: most only when not their default, so links without them open
// with the defaults (an old link's compile=1 opens torch.compile). A model by its sizes travels
// readable in `msz` (hidden-8192_layers-80_…, SIZE_KEYS) with model=sizes. A custom GPU or a
// pasted config travels compressed (deflate + base64url) in `cgpu` / `cmodel`: in the query
// while the link stays short, else in the fragment (#cmodel=…), which browsers never send to a
// server; a config too large even for that is left out.
import { linkCodec } from './lazy';
import type {
  Attention,
  FinetuneChoice,
  ForecastEngine,
  ForecastPrecision,
  GpuSpec,
  LoraTargets,
  MasterWeights,
  ModelSizes,
  WeightFormat,
  Mode,
  Predictor,
  Recompute,
  Schedule,
  ServeEngine,
  ServingPrecision,
} from './engine';

export type View = 'forecast' | 'serve' | 'compare' | 'sweep' | 'accuracy';
export const VIEWS: View[] = ['forecast', 'serve', 'compare', 'sweep', 'accuracy'];
export const MODES: Mode[] = ['training', 'inference', 'decode'];
export const PREDICTORS: Predictor[] = ['tilecast', 'roofline'];
export const PRECISIONS: ServingPrecision[] = ['bf16', 'fp16', 'fp32', 'fp8', 'fp4'];
export const FORECAST_PRECISIONS: ForecastPrecision[] = ['bf16', 'fp16', 'fp32', 'fp8'];
export const FORECAST_ENGINES: ForecastEngine[] = ['eager', 'compiled', 'megatron'];
export const ATTENTIONS: Attention[] = ['flash', 'fused-softmax'];
export const SERVE_ENGINES: ServeEngine[] = ['fused', 'eager'];
export const RECOMPUTES: Recompute[] = ['none', 'selective', 'full'];
export const SCHEDULES: Schedule[] = ['1f1b', 'gpipe'];
export const FINETUNES: FinetuneChoice[] = ['full', 'lora', 'qlora'];
export const LORA_TARGETS: LoraTargets[] = ['attention', 'all_linear'];
export const MASTER_WEIGHTS: MasterWeights[] = ['fp32', 'half'];
// The serve view's weights: as the checkpoint stores them (no field: the core's default, gpt-oss's
// MXFP4 experts), or one of the core's formats (every WeightFormat: checked below).
export type ServeWeights = 'checkpoint' | WeightFormat;
export const SERVE_WEIGHTS = [
  'checkpoint',
  'native',
  'int8',
  'int4',
  'mxfp4',
] as const satisfies readonly ServeWeights[];
const everyWeightFormat: Exclude<WeightFormat, (typeof SERVE_WEIGHTS)[number]> extends never ? true : never = true;
void everyWeightFormat;
// The serve view's KV cache: in the activations' type (no field: the core's default) or FP8 (the
// request's kv_cache, the fused engine's option as vLLM's --kv-cache-dtype fp8).
export const SERVE_KV_CACHES = ['auto', 'fp8'] as const;
export type ServeKvCache = (typeof SERVE_KV_CACHES)[number];
export const CUSTOM = 'custom';
export const SIZES = 'sizes'; // the model is state.modelSizes

export interface State {
  view: View;
  gpu: string; // catalog id, or CUSTOM
  customGpu: GpuSpec | null;
  model: string; // zoo id, CUSTOM (customModel) or SIZES (modelSizes)
  customModel: Record<string, unknown> | null;
  modelSizes: ModelSizes | null;
  mode: Mode;
  predictor: Predictor; // the headline forecaster; the roofline is always shown beside
  batch: number;
  seq: number;
  compare: string[]; // catalog ids shown beside `gpu` in the compare view
  compareServing: boolean; // the compare view compares serving forecasts (the Serve view's workload)
  sweepMax: number; // batch sweep 1..sweepMax
  // The serve view (batch and predictor are shared with the other views).
  prompt: number; // prompt tokens per request
  output: number; // generated tokens per request
  tp: number; // tensor-parallel GPUs
  precision: ServingPrecision;
  engine: ServeEngine;
  serveWeights: ServeWeights; // sent as the request's weights unless 'checkpoint'
  serveKvCache: ServeKvCache; // sent as the request's kv_cache unless 'auto'
  // The model forecast (forecast, compare and sweep views): its precision (fp32:
  // eager FP32 as always; bf16/fp16: autocast mixed precision in training; fp8: the
  // megatron engine's) and engine (eager, torch.compile, Megatron-Core: training only).
  // Separate from the serve view's precision, whose default is bf16.
  forecastPrecision: ForecastPrecision;
  forecastEngine: ForecastEngine;
  // Training on many GPUs (the forecast view, mode training; docs/parallel.md):
  // dp x tp x pp > 1 makes the forecast a multi-GPU step. system '' = the catalog
  // system built from the GPU.
  dp: number;
  trainTp: number;
  pp: number;
  microbatches: number;
  zero: number;
  recompute: Recompute;
  schedule: Schedule;
  system: string;
  // The megatron engine's (zero and schedule are the eager engine's): context-parallel ranks,
  // expert-parallel ranks (out of the data-parallel ones; mixtures of experts only), virtual
  // pipeline stages (interleaved 1F1B), sequence parallelism, tokens to train on (0: none), the
  // distributed optimizer (states sharded over dp) and gradient reduction overlapped with the backward.
  cp: number;
  ep: number;
  virtualStages: number;
  sequenceParallel: boolean;
  attention: Attention;
  tokens: number;
  distributedOptimizer: boolean;
  overlapGradReduce: boolean;
  // LoRA / QLoRA fine-tuning of a training step (one GPU, eager or torch.compile; the request's
  // finetune field, docs/model-forecast.md): full trains every weight; the adapters' rank and the
  // linears they sit on.
  finetune: FinetuneChoice;
  // A half-precision training step's master weights (the request's master_weights): fp32 is
  // torch.autocast, half a model.to(half) step; sent only where the core forecasts it (app.ts).
  masterWeights: MasterWeights;
  loraRank: number;
  loraTargets: LoraTargets;
  // The serve view's "Under load" sweep (load_view.ts; docs/serving-load.md): Poisson arrivals at
  // loadPoints rates up to loadMaxQps (0: 1.5 x the static forecast's capacity), loadRequests
  // requests per rate from loadSeed, their lengths within +-loadRangeRatio of the prompt and output
  // (0: fixed; vLLM's --random-range-ratio); the SLO at P99 (ms) is checked on the page, not sent.
  // loadEp: a mixture of experts served by one replica of loadEp GPUs, its routed experts spread
  // over them and each GPU running its own requests (the request's ep, sent only above 1; 1: off).
  // Not the training views' `ep` (Megatron-Core's expert parallelism).
  loadMaxQps: number;
  loadPoints: number;
  loadRequests: number;
  loadSeed: number;
  loadRangeRatio: number;
  loadEp: number;
  sloTtftMs: number;
  sloTpotMs: number;
  // The serve view's capacity plan (capacity_view.ts; docs/serving-load.md "Capacity"): the fewest
  // GPUs (replicas x TP) serving capacityQps requests/s within the SLO above (0: no plan asked),
  // ranked by price at capacityPrice per GPU-hour (0: by GPUs), up to capacityMaxGpus.
  capacityQps: number;
  capacityPrice: number;
  capacityMaxGpus: number;
  // The serving comparison's price per GPU-hour of each GPU (catalog id -> $): its capacity plan
  // is priced at it (else at capacityPrice), and the cheapest GPU meeting the SLO is named.
  comparePrices: Readonly<Record<string, number>>;
}

export const DEFAULT_STATE: Readonly<State> = Object.freeze({
  view: 'forecast',
  gpu: 'h100-sxm',
  customGpu: null,
  model: 'gpt3-2.7b',
  customModel: null,
  modelSizes: null,
  mode: 'training',
  predictor: 'tilecast',
  batch: 1,
  seq: 1024, // the landing example fits: GPT-3 2.7B's FP32 Adam step at 2048 needs 102 GB of the H100's 80
  compare: ['a100-80gb-sxm', 'h200', 'mi300x', 'rtx-4090'],
  compareServing: false,
  sweepMax: 64,
  prompt: 512,
  output: 256,
  tp: 1,
  precision: 'bf16',
  engine: 'fused',
  serveWeights: 'checkpoint',
  serveKvCache: 'auto',
  forecastPrecision: 'fp32',
  forecastEngine: 'eager',
  dp: 1,
  trainTp: 1,
  pp: 1,
  microbatches: 1,
  zero: 0,
  recompute: 'none',
  schedule: '1f1b',
  system: '',
  cp: 1,
  ep: 1,
  virtualStages: 1,
  sequenceParallel: false,
  attention: 'flash',
  tokens: 0,
  distributedOptimizer: true,
  overlapGradReduce: true,
  finetune: 'full',
  masterWeights: 'fp32',
  loraRank: 16,
  loraTargets: 'attention',
  loadMaxQps: 0,
  loadPoints: 8,
  loadRequests: 1000,
  loadSeed: 0,
  loadRangeRatio: 0,
  loadEp: 1,
  sloTtftMs: 500,
  sloTpotMs: 50,
  capacityQps: 0,
  capacityPrice: 0,
  capacityMaxGpus: 64,
  comparePrices: Object.freeze({}),
});

// The GPUs of the state's multi-GPU training (1: the single-GPU forecast); the megatron
// engine's context parallelism multiplies them.
export function trainGpus(s: Readonly<State>): number {
  return s.dp * s.trainTp * s.pp * (isMegatronState(s) ? s.cp : 1);
}

// True when the model forecast is the megatron engine's training step (it forecasts training only).
export function isMegatronState(s: Readonly<State>): boolean {
  return s.forecastEngine === 'megatron' && s.mode === 'training';
}

export const BATCH_MAX = 65536;
export const SEQ_MAX = 1 << 20;
export const SWEEP_MAX = 256;
export const TOKENS_MAX = 1 << 20; // prompt and output tokens
export const TP_MAX = 64;
// The load sweep's bounds (the core's work budget refuses far less than their product at long outputs).
export const LOAD_QPS_MAX = 100_000; // requests/s
export const LOAD_POINTS_MIN = 2;
export const LOAD_POINTS_MAX = 32;
export const LOAD_REQUESTS_MIN = 10;
export const LOAD_REQUESTS_MAX = 20_000;
export const LOAD_SEED_MAX = 999_999_999;
export const LOAD_RANGE_RATIO_MAX = 0.99; // the core takes below 1
export const LOAD_EP_MAX = 1024; // the core's bound on an expert-parallel replica's GPUs
export const SLO_MS_MAX = 10_000_000;
export const PRICE_MAX = 1_000_000; // per GPU-hour (the core's bound)
export const CAPACITY_GPUS_MAX = 1024; // the core's bound on a plan's GPUs
export const PAR_MAX = 4096; // dp, tp, pp, cp, ep, virtual stages and micro-batches each (the core checks the system)
export const TOKENS_LIMIT = 1e18; // tokens to train on (the core's limit)
export const LORA_RANK_MAX = 1024; // the core's kMaxLoraRank
// More than the catalog holds: a comparison of every GPU fits a link.
export const COMPARE_MAX = 64;
// A custom GPU's name is cut to this (the form's limit) wherever it comes from.
export const GPU_NAME_MAX = 120;
// Links whose query is longer than this carry cgpu/cmodel in the fragment
// (many servers refuse requests of 8 KB and more; the bundled one at 16 KB).
export const QUERY_MAX = 2000;
// A packed parameter longer than this is refused, and left out of a link.
export const MAX_PARAM = 64 * 1024;

export function cloneState(s: Readonly<State>): State {
  return { ...s, compare: [...s.compare] };
}

// ---- tokens and model sizes in words --------------------------------------

const TOKEN_UNITS: [string, number][] = [
  ['T', 1e12],
  ['B', 1e9],
  ['M', 1e6],
  ['K', 1e3],
];

// "300B", "1.4T", "2e12", "1000000": a whole number of tokens from 1 to 10^18, or an error saying so.
export function parseTokens(text: string): number {
  const t = text.trim();
  const m = /^(\d{1,19})(?:\.(\d{1,6}))?\s*([KMBT])?$/i.exec(t) ?? /^(\d{1,6})(?:\.(\d{1,6}))?e(\d{1,2})$/i.exec(t);
  const bad = () => new Error(`"${clip(t)}" is not a token count from 1 to 10^18 (e.g. 300B, 1.4T, 2e12).`);
  if (!m) throw bad();
  const mantissa = Number(`${m[1]}.${m[2] ?? '0'}`);
  const unit = m[3] ?? '';
  const scale = /^\d+$/.test(unit)
    ? 10 ** Number(unit)
    : (TOKEN_UNITS.find(([u]) => u === unit.toUpperCase())?.[1] ?? 1);
  const v = Math.round(mantissa * scale);
  if (!Number.isFinite(v) || v < 1 || v > TOKENS_LIMIT) throw bad();
  return v;
}

// The shortest exact form of a token count: 300B, 1.4T, 12345.
export function formatTokens(n: number): string {
  for (const [u, scale] of TOKEN_UNITS) {
    if (n < scale) continue;
    const x = Math.round((n / scale) * 1e6) / 1e6;
    if (Math.round(x * scale) === n) return `${x}${u}`;
  }
  return String(n);
}

// A model's sizes in the link: key-value pairs joined by '_' (no character the query escapes).
export const SIZE_KEYS: [link: string, field: keyof ModelSizes, words: string][] = [
  ['hidden', 'hidden', 'hidden size'],
  ['layers', 'layers', 'layers'],
  ['heads', 'heads', 'attention heads'],
  ['groups', 'query_groups', 'query groups'],
  ['ffn', 'ffn', 'FFN size'],
  ['vocab', 'vocab', 'vocabulary'],
  ['seq', 'seq', 'positions'],
];
export const SIZE_MAX = 1 << 24; // the core's bound on each size
const SIZE_REQUIRED: (keyof ModelSizes)[] = ['hidden', 'layers', 'heads', 'vocab'];

export function sizesParam(m: ModelSizes): string {
  const parts = SIZE_KEYS.filter(([, f]) => m[f] !== undefined).map(([k, f]) => `${k}-${m[f]}`);
  return [...parts, `mlp-${m.mlp}`, `pos-${m.positions}`].join('_');
}

// The link's `msz`; throws a sentence naming the part that is wrong.
export function parseSizesParam(text: string): ModelSizes {
  const m: Partial<ModelSizes> = {};
  for (const part of text.split('_')) {
    const [k, v, ...rest] = part.split('-');
    if (v === undefined || rest.length) throw new Error(`"${clip(part)}" is not key-value`);
    const key = SIZE_KEYS.find(([name]) => name === k);
    if (key) {
      if (!/^\d{1,9}$/.test(v) || Number(v) < 1 || Number(v) > SIZE_MAX)
        throw new Error(`its ${key[2]} "${clip(v)}" is not a whole number from 1 to ${SIZE_MAX}`);
      (m as Record<string, number>)[key[1]] = Number(v);
    } else if (k === 'mlp') {
      if (v !== 'swiglu' && v !== 'gelu') throw new Error(`its MLP "${clip(v)}" is neither swiglu nor gelu`);
      m.mlp = v;
    } else if (k === 'pos') {
      if (v !== 'rotary' && v !== 'learned')
        throw new Error(`its positions "${clip(v)}" are neither rotary nor learned`);
      m.positions = v;
    } else
      throw new Error(`"${clip(k)}" is not a size (${[...SIZE_KEYS.map(([name]) => name), 'mlp', 'pos'].join(', ')})`);
  }
  const missing = SIZE_REQUIRED.filter((f) => m[f] === undefined);
  if (missing.length) throw new Error(`it lacks ${missing.join(', ')}`);
  return { mlp: 'swiglu', positions: m.mlp === 'gelu' ? 'learned' : 'rotary', ...m } as ModelSizes;
}

// ---- compression -----------------------------------------------------------

// cgpu / cmodel are packed by link_codec.ts, a chunk of its own: a state or a link with one is
// written or read once it is in (boot.ts and inputs.ts wait for it; link.ts syncLink too).
function codec(): typeof import('./link_codec') {
  const c = linkCodec();
  if (c) return c;
  const why = linkCodec.error();
  throw new Error(why ? `its decompressor could not be loaded (${why})` : 'its decompressor is still loading');
}

const packJson = (value: unknown): string => codec().packJson(value);
const unpackJson = (packed: string): unknown => codec().unpackJson(packed);

// Whether an opened link carries cgpu or cmodel (in its query or its fragment).
export function carriesPacked(search: string, hash: string): boolean {
  const p = [new URLSearchParams(search), new URLSearchParams(hash.replace(/^#/, ''))];
  return p.some((q) => q.has('cgpu') || q.has('cmodel'));
}

// ---- URL -------------------------------------------------------------------

// A link's parts: the query, the fragment's parameters (empty when all fit the
// query) and whether a pasted config had to be left out (too long even for the
// fragment: the page then offers it as a file).
export interface LinkParts {
  query: URLSearchParams;
  fragment: URLSearchParams;
  configLeftOut: boolean;
  configChars: number; // the packed config's length, when there is one
}

// ---- the link's fields, each written once -----------------------------------

// Whether a field is written to a link: in its views (`scope`) and, unless `always`, when it is
// not its default. A serving field travels in the serve view and a comparison of serving
// forecasts; a view's own fields (the load sweep's, the sweep's size, the comparison's list)
// not in an embed card's link.
type Scope = (s: Readonly<State>, embed: boolean) => boolean;
const ANY: Scope = () => true;
const SERVING: Scope = (s) => s.view === 'serve' || (s.view === 'compare' && s.compareServing);
const viewOnly =
  (view: View): Scope =>
  (s, embed) =>
    !embed && s.view === view;
// The serving settings both serving views use (the serve view, a comparison of serving forecasts).
const SERVING_VIEWS: Scope = (s, embed) => !embed && SERVING(s, embed);

// State fields of each kind: a choice among a few names, a switch, a number.
type KeysOf<T> = { [K in keyof State]: State[K] extends T ? K : never }[keyof State];
export type ChoiceKey = { [K in KeysOf<string>]: string extends State[K] ? never : K }[KeysOf<string>];
export type SwitchKey = KeysOf<boolean>;
export type NumberKey = KeysOf<number>;

interface FieldRow {
  param: string; // the link's parameter
  words: string; // its name in the link's messages
  scope: Scope;
  always?: boolean; // written in scope even at its default
}
// A choice: one of `values`; `control` is the select that sets it (controls.ts), `choose` what
// choosing a value there changes beside it.
export interface ChoiceRow extends FieldRow {
  kind: 'choice';
  field: ChoiceKey;
  values: readonly string[];
  plural?: boolean; // "are not one of"
  control?: string;
  choose?: (value: string, s: Readonly<State>) => Partial<State>;
}
// A switch: 1 or 0 in the link; `control` is its checkbox.
export interface SwitchRow extends FieldRow {
  kind: 'switch';
  field: SwitchKey;
  control?: string;
}
// The typed fields read together (inputs.ts): a field that cannot be read puts its message in
// its group's slot and leaves the group's forecast on screen, dimmed.
export type InputGroup = 'serveError' | 'loadError' | 'capacityError' | 'trainError' | 'finetuneError';
// A number typed into a field of its own: `control` is the input, `label` its name on the page
// (the subject of its messages), `group` the fields read with it; `optional`: empty reads as 0.
export interface Typed {
  control: string;
  label: string;
  group: InputGroup;
  optional?: boolean;
}
// A whole number from min to max, a positive number up to max, or a range ratio.
export interface NumberRow extends FieldRow {
  kind: 'int' | 'positive' | 'ratio';
  field: NumberKey;
  min?: number;
  max?: number;
  input?: Typed;
}
// A field the table cannot say in a row (a custom GPU or config, the comparison's list, a token
// count in words): it writes and reads itself; `also` are the other parameters it owns.
interface CustomRow {
  kind: 'custom';
  param: string;
  also?: string[];
  write: (s: Readonly<State>, out: LinkOut) => void;
  read: (p: URLSearchParams, s: State, problems: string[]) => void;
}
type LinkRow = ChoiceRow | SwitchRow | NumberRow | CustomRow;
interface LinkOut {
  q: URLSearchParams;
  packed: [string, string][]; // cgpu / cmodel: in the query while the link stays short
  embed: boolean;
  configChars: number;
}

// A choice's values checked against its field's type.
function pick<K extends ChoiceKey>(
  param: string,
  field: K,
  words: string,
  values: readonly State[K][],
  scope: Scope,
  more: Pick<ChoiceRow, 'always' | 'plural' | 'control'> & {
    choose?: (value: State[K], s: Readonly<State>) => Partial<State>;
  } = {},
): ChoiceRow {
  return { kind: 'choice', param, field, words, values, scope, ...more } as ChoiceRow;
}
const onOff = (param: string, field: SwitchKey, words: string, scope: Scope, control?: string): SwitchRow => ({
  kind: 'switch',
  param,
  field,
  words,
  scope,
  control,
});
// A number row's extras: written at its default too, typed into a field of its own.
type NumberMore = { always?: boolean; input?: Typed };
const whole = (
  param: string,
  field: NumberKey,
  words: string,
  min: number,
  max: number,
  scope = ANY,
  more: NumberMore = {},
): NumberRow => ({ kind: 'int', param, field, words, min, max, scope, ...more });
const positive = (
  param: string,
  field: NumberKey,
  words: string,
  max: number,
  scope: Scope,
  more: NumberMore = {},
): NumberRow => ({ kind: 'positive', param, field, words, max, scope, ...more });
// The typed fields' groups (inputs.ts), by the slot their messages go to.
const typedIn =
  (group: InputGroup) =>
  (control: string, label: string, optional = false): Typed => ({ control, label, group, optional });
const serveIn = typedIn('serveError');
const loadIn = typedIn('loadError');
const capacityIn = typedIn('capacityError');
const trainIn = typedIn('trainError');
const finetuneIn = typedIn('finetuneError');

// Packed into the link (cgpu / cmodel) or read from it; a damaged one is a problem, not a throw.
function readPacked(p: URLSearchParams, param: string, what: string, problems: string[]): object | null {
  try {
    const v = unpackJson(p.get(param) ?? '');
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('it is not a JSON object');
    return v;
  } catch (e) {
    const why = e instanceof Error ? e.message : e;
    problems.push(`${what} in the link ${linkCodec.ready() ? 'is damaged' : 'could not be read'}: ${why}.`);
    return null;
  }
}

const gpuRow: CustomRow = {
  kind: 'custom',
  param: 'gpu',
  also: ['cgpu'],
  write: (s, out) => {
    out.q.set('gpu', s.gpu);
    if (s.gpu === CUSTOM && s.customGpu) out.packed.push(['cgpu', packJson(s.customGpu)]);
  },
  read: (p, s, problems) => {
    const gpu = p.get('gpu');
    if (gpu === null) return;
    if (gpu === CUSTOM) {
      if (p.get('cgpu') === null) problems.push('The link asks for a custom GPU but does not carry its spec (cgpu).');
      else {
        const spec = readPacked(p, 'cgpu', 'The custom GPU', problems);
        if (spec) {
          s.gpu = CUSTOM;
          s.customGpu = spec as GpuSpec;
        }
      }
    } else if (ID_RE.test(gpu)) s.gpu = gpu;
    else problems.push(`The link's GPU "${clip(gpu)}" is not a catalog id.`);
  },
};

const modelRow: CustomRow = {
  kind: 'custom',
  param: 'model',
  also: ['msz', 'cmodel'],
  write: (s, out) => {
    out.q.set('model', s.model);
    if (s.model === SIZES && s.modelSizes) out.q.set('msz', sizesParam(s.modelSizes));
    if (s.model === CUSTOM && s.customModel) {
      const cmodel = packJson(s.customModel);
      out.configChars = cmodel.length;
      out.packed.push(['cmodel', cmodel]);
    }
  },
  read: (p, s, problems) => {
    const model = p.get('model');
    if (model === null) return;
    if (model === CUSTOM) {
      if (p.get('cmodel') === null)
        problems.push(
          'The link asks for a pasted model config but does not carry it (a config too large for a link is shared as a file beside it): paste or upload that config.json.',
        );
      else {
        const cfg = readPacked(p, 'cmodel', 'The model config', problems);
        if (cfg) {
          s.model = CUSTOM;
          s.customModel = cfg as Record<string, unknown>;
        }
      }
    } else if (model === SIZES) {
      const sizes = p.get('msz');
      if (sizes === null) problems.push('The link asks for a model by its sizes but does not carry them (msz).');
      else {
        try {
          s.modelSizes = parseSizesParam(sizes);
          s.model = SIZES;
        } catch (e) {
          problems.push(`The model sizes in the link are damaged: ${e instanceof Error ? e.message : e}.`);
        }
      }
    } else if (ID_RE.test(model)) s.model = model;
    else problems.push(`The link's model "${clip(model)}" is not a model zoo id.`);
  },
};

const compareRow: CustomRow = {
  kind: 'custom',
  param: 'cmp',
  write: (s, out) => {
    if (!out.embed && s.view === 'compare') out.q.set('cmp', s.compare.join(','));
  },
  read: (p, s, problems) => {
    const cmp = p.get('cmp');
    if (cmp === null) return;
    const ids = cmp.split(',').filter((x) => x !== '');
    const wellFormed = ids.filter((x) => ID_RE.test(x));
    if (wellFormed.length !== ids.length)
      problems.push("Some GPUs in the link's comparison were not catalog ids and were left out.");
    const unique = [...new Set(wellFormed)];
    if (unique.length > COMPARE_MAX)
      problems.push(
        `The link's comparison lists ${unique.length} GPUs; a comparison holds at most ${COMPARE_MAX}, so the first ${COMPARE_MAX} are shown.`,
      );
    s.compare = unique.slice(0, COMPARE_MAX);
  },
};

// The comparison's prices per GPU-hour: "id:price" pairs, of the GPUs compared only.
const comparePricesRow: CustomRow = {
  kind: 'custom',
  param: 'cprices',
  write: (s, out) => {
    if (out.embed || s.view !== 'compare') return;
    const shown = new Set([s.gpu, ...s.compare]);
    const pairs = Object.entries(s.comparePrices)
      .filter(([id]) => shown.has(id))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([id, price]) => `${id}:${price}`);
    if (pairs.length) out.q.set('cprices', pairs.join(','));
  },
  read: (p, s, problems) => {
    const text = p.get('cprices');
    if (text === null) return;
    const prices: Record<string, number> = {};
    for (const pair of text.split(',').filter((x) => x !== '')) {
      const [id, price, ...rest] = pair.split(':');
      const v = Number(price);
      if (rest.length || !ID_RE.test(id ?? '') || !(v > 0 && v <= PRICE_MAX))
        problems.push(
          `The link's price "${clip(pair)}" is not a catalog id and a price per GPU-hour above 0 and at most ${PRICE_MAX.toLocaleString('en-US')} (id:price); it was left out.`,
        );
      else prices[id!] = v;
    }
    s.comparePrices = prices;
  },
};

// An older link's torch.compile switch (read, never written); feng, read after it, wins.
const compileRow: CustomRow = {
  kind: 'custom',
  param: 'compile',
  write: () => {},
  read: (p, s, problems) => {
    const compile = p.get('compile');
    if (compile === null) return;
    if (compile === '1' || compile === '0') s.forecastEngine = compile === '1' ? 'compiled' : 'eager';
    else problems.push(`The link's torch.compile switch "${clip(compile)}" is neither 1 nor 0.`);
  },
};

const systemRow: CustomRow = {
  kind: 'custom',
  param: 'sys',
  write: (s, out) => {
    if (s.system !== DEFAULT_STATE.system) out.q.set('sys', s.system);
  },
  read: (p, s, problems) => {
    const sys = p.get('sys');
    if (sys === null) return;
    if (ID_RE.test(sys)) s.system = sys;
    else problems.push(`The link's system "${clip(sys)}" is not a catalog id.`);
  },
};

const tokensRow: CustomRow = {
  kind: 'custom',
  param: 'tokens',
  write: (s, out) => {
    if (s.tokens !== DEFAULT_STATE.tokens) out.q.set('tokens', formatTokens(s.tokens));
  },
  read: (p, s, problems) => {
    const tokens = p.get('tokens');
    if (tokens === null) return;
    try {
      s.tokens = parseTokens(tokens);
    } catch (e) {
      problems.push(`The link's tokens to train on: ${e instanceof Error ? e.message : e}`);
    }
  },
};

// Every parameter of a link, in the order links write them; parseParams reads them in the same
// order and knows no other (besides embed and v). A new field of one of the row kinds is a row
// here (and, for a control, its element in index.html).
const LINK_FIELDS: readonly LinkRow[] = [
  // An embed card shows the forecast, or the serving forecast when that is the view.
  pick('view', 'view', 'view', VIEWS, (s, embed) => !embed || s.view === 'serve'),
  gpuRow,
  modelRow,
  pick('mode', 'mode', 'mode', MODES, ANY, { always: true }),
  pick('pred', 'predictor', 'predictor', PREDICTORS, ANY, { control: 'predictor' }),
  whole('batch', 'batch', 'batch size', 1, BATCH_MAX, ANY, { always: true }),
  whole('seq', 'seq', 'sequence length', 1, SEQ_MAX, ANY, { always: true }),
  compareRow,
  comparePricesRow,
  onOff('cmpserve', 'compareServing', 'comparison of serving forecasts switch', viewOnly('compare')),
  whole('sweep', 'sweepMax', 'sweep size', 2, SWEEP_MAX, viewOnly('sweep'), { always: true }),
  // The serve view's workload.
  whole('prompt', 'prompt', 'prompt length', 1, TOKENS_MAX, SERVING, {
    always: true,
    input: serveIn('prompt', 'Prompt tokens'),
  }),
  whole('out', 'output', 'output length', 1, TOKENS_MAX, SERVING, {
    always: true,
    input: serveIn('output', 'Output tokens'),
  }),
  whole('tp', 'tp', 'tensor-parallel size', 1, TP_MAX, SERVING, { input: serveIn('tp', 'Tensor-parallel GPUs') }),
  pick('prec', 'precision', 'precision', PRECISIONS, SERVING, { always: true, control: 'precision' }),
  pick('engine', 'engine', 'serving engine', SERVE_ENGINES, SERVING, { always: true, control: 'serve-engine' }),
  pick('w', 'serveWeights', 'weights', SERVE_WEIGHTS, SERVING, { control: 'serve-weights' }),
  pick('kv', 'serveKvCache', 'KV cache', SERVE_KV_CACHES, SERVING, { control: 'serve-kv-cache' }),
  // The model forecast's options and multi-GPU fields (any view; older links have none).
  pick('fprec', 'forecastPrecision', 'forecast precision', FORECAST_PRECISIONS, ANY, { control: 'fprec' }),
  compileRow,
  // Megatron-Core trains in BF16, FP16 or FP8: choosing it from FP32 (the page's default) takes
  // BF16, Megatron's default; a link keeps what it says (and the core's message).
  pick('feng', 'forecastEngine', 'engine', FORECAST_ENGINES, ANY, {
    control: 'feng',
    choose: (forecastEngine, s) =>
      forecastEngine === 'megatron' && s.forecastPrecision === 'fp32'
        ? { forecastEngine, forecastPrecision: 'bf16' }
        : { forecastEngine },
  }),
  whole('dp', 'dp', 'data-parallel size', 1, PAR_MAX, ANY, { input: trainIn('dp', 'Data-parallel GPUs') }),
  whole('ptp', 'trainTp', 'training tensor-parallel size', 1, PAR_MAX, ANY, {
    input: trainIn('train-tp', 'Tensor-parallel GPUs'),
  }),
  whole('pp', 'pp', 'pipeline stages', 1, PAR_MAX, ANY, { input: trainIn('pp', 'Pipeline stages') }),
  whole('mb', 'microbatches', 'micro-batches', 1, PAR_MAX, ANY, { input: trainIn('microbatches', 'Micro-batches') }),
  whole('zero', 'zero', 'ZeRO stage', 0, 3),
  pick('rc', 'recompute', 'recomputation', RECOMPUTES, ANY, { control: 'recompute' }),
  pick('sched', 'schedule', 'pipeline schedule', SCHEDULES, ANY, { control: 'schedule' }),
  systemRow,
  whole('cp', 'cp', 'context-parallel size', 1, PAR_MAX, ANY, { input: trainIn('cp', 'Context-parallel GPUs') }),
  whole('ep', 'ep', 'expert-parallel size', 1, PAR_MAX, ANY, { input: trainIn('ep', 'Expert-parallel GPUs') }),
  whole('vpp', 'virtualStages', 'virtual pipeline stages', 1, PAR_MAX, ANY, {
    input: trainIn('vpp', 'Virtual stages'),
  }),
  onOff('sp', 'sequenceParallel', 'sequence-parallelism switch', ANY, 'sp'),
  pick('attn', 'attention', 'attention', ATTENTIONS, ANY, { control: 'attention' }),
  tokensRow,
  onOff('dopt', 'distributedOptimizer', 'distributed-optimizer switch', ANY, 'dopt'),
  onOff('overlap', 'overlapGradReduce', 'gradient-reduction overlap switch', ANY, 'overlap'),
  pick('ft', 'finetune', 'fine-tuning', FINETUNES, ANY, { control: 'finetune' }),
  pick('mw', 'masterWeights', 'master weights', MASTER_WEIGHTS, ANY, { control: 'master-weights' }),
  whole('lrank', 'loraRank', 'LoRA rank', 1, LORA_RANK_MAX, ANY, { input: finetuneIn('lora-rank', 'LoRA rank') }),
  pick('ltgt', 'loraTargets', 'LoRA targets', LORA_TARGETS, ANY, { plural: true, control: 'lora-targets' }),
  // The serve view's load sweep (not the embed card's): its rates in that view only, its
  // simulation settings and SLO in both serving views (a comparison's capacity column uses them).
  positive('lqps', 'loadMaxQps', 'largest request rate', LOAD_QPS_MAX, viewOnly('serve'), {
    input: loadIn('load-qps', 'Largest rate', true),
  }),
  whole('lpts', 'loadPoints', 'request rates to simulate', LOAD_POINTS_MIN, LOAD_POINTS_MAX, viewOnly('serve'), {
    input: loadIn('load-points', 'Rates simulated'),
  }),
  whole('lreq', 'loadRequests', 'requests per rate', LOAD_REQUESTS_MIN, LOAD_REQUESTS_MAX, SERVING_VIEWS, {
    input: loadIn('load-requests', 'Requests per rate'),
  }),
  whole('lseed', 'loadSeed', 'arrival seed', 0, LOAD_SEED_MAX, SERVING_VIEWS, {
    input: loadIn('load-seed', 'Arrival seed'),
  }),
  {
    kind: 'ratio',
    param: 'lrr',
    field: 'loadRangeRatio',
    words: 'length spread (range ratio)',
    scope: SERVING_VIEWS,
    input: loadIn('load-range', 'The length spread'),
  },
  // The sweep's replica: its experts over this many GPUs (the serve view's panel only).
  whole('lep', 'loadEp', 'serving expert-parallel size', 1, LOAD_EP_MAX, viewOnly('serve'), {
    input: loadIn('load-ep', 'Expert-parallel GPUs'),
  }),
  positive('sttft', 'sloTtftMs', 'TTFT SLO (ms)', SLO_MS_MAX, SERVING_VIEWS, {
    input: loadIn('slo-ttft', 'The TTFT SLO (ms)'),
  }),
  positive('stpot', 'sloTpotMs', 'TPOT SLO (ms)', SLO_MS_MAX, SERVING_VIEWS, {
    input: loadIn('slo-tpot', 'The TPOT SLO (ms)'),
  }),
  // The capacity plan (the serve view's panel, a comparison's column).
  positive('cqps', 'capacityQps', 'request rate to plan for', LOAD_QPS_MAX, SERVING_VIEWS, {
    input: capacityIn('capacity-qps', 'The request rate to plan for', true),
  }),
  positive('cprice', 'capacityPrice', 'price per GPU-hour', PRICE_MAX, SERVING_VIEWS, {
    input: capacityIn('capacity-price', 'The price per GPU-hour', true),
  }),
  whole('cmax', 'capacityMaxGpus', 'most GPUs to plan', 1, CAPACITY_GPUS_MAX, SERVING_VIEWS, {
    input: capacityIn('capacity-max', 'Most GPUs'),
  }),
];

// The numbers typed into a field of their own, in the order their groups read them (inputs.ts).
export const TYPED = LINK_FIELDS.filter((r): r is NumberRow & { input: Typed } => 'input' in r && !!r.input);

// The choices and switches set by a control of their own (controls.ts).
export const CONTROLLED = LINK_FIELDS.filter(
  (r): r is (ChoiceRow | SwitchRow) & { control: string } =>
    (r.kind === 'choice' || r.kind === 'switch') && !!r.control,
);

export function linkParts(s: Readonly<State>, version: string, embed = false): LinkParts {
  const out: LinkOut = { q: new URLSearchParams(), packed: [], embed, configChars: 0 };
  const { q, packed } = out;
  if (embed) q.set('embed', '1');
  for (const row of LINK_FIELDS) {
    if (row.kind === 'custom') {
      row.write(s, out);
      continue;
    }
    const v = s[row.field];
    if (!row.scope(s, embed) || (!row.always && v === DEFAULT_STATE[row.field])) continue;
    q.set(row.param, row.kind === 'switch' ? (v ? '1' : '0') : String(v));
  }
  q.set('v', version);
  const configChars = out.configChars;
  const fragment = new URLSearchParams();
  let configLeftOut = false;
  const packedChars = packed.reduce((n, [k, v]) => n + k.length + v.length + 2, 0);
  if (q.toString().length + packedChars <= QUERY_MAX) {
    // Short: everything in the query, as links always were.
    const all = new URLSearchParams();
    for (const [k, v] of q) {
      all.append(k, v);
      const extra = packed.find(([name]) => (k === 'gpu' && name === 'cgpu') || (k === 'model' && name === 'cmodel'));
      if (extra) all.append(...extra);
    }
    return { query: all, fragment, configLeftOut, configChars };
  }
  for (const [k, v] of packed) {
    if (v.length > MAX_PARAM) configLeftOut = true;
    else fragment.set(k, v);
  }
  return { query: q, fragment, configLeftOut, configChars };
}

// The link's text after the page's address: ?query[#fragment].
export function linkTail(parts: LinkParts): string {
  const frag = parts.fragment.toString();
  return `?${parts.query.toString()}${frag ? `#${frag}` : ''}`;
}

export function shareUrl(s: Readonly<State>, version: string, base: string, embed = false): string {
  const u = new URL(base);
  u.search = '';
  u.hash = '';
  return u.toString().replace(/[?#]+$/, '') + linkTail(linkParts(s, version, embed));
}

export interface ParsedLink {
  state: State;
  problems: string[]; // one sentence each, for the page's notice
  version: string | null; // `v` of the link
  embed: boolean;
  empty: boolean; // no query at all: the default view
}

function parseInt(text: string, name: string, min: number, max: number, problems: string[]): number | null {
  if (!/^\d{1,9}$/.test(text)) {
    problems.push(`The link's ${name} "${clip(text)}" is not a whole number.`);
    return null;
  }
  const v = Number(text);
  if (v < min || v > max) {
    problems.push(`The link's ${name} ${v} is outside ${min}–${max}.`);
    return null;
  }
  return v;
}

// A positive decimal ("12.5"), at most `max`; else a sentence in `problems` and null.
function parsePositive(text: string, name: string, max: number, problems: string[]): number | null {
  const v = Number(text);
  if (!/^\d{1,9}(\.\d{1,6})?$/.test(text) || !(v > 0)) {
    problems.push(`The link's ${name} "${clip(text)}" is not a positive number.`);
    return null;
  }
  if (v > max) {
    problems.push(`The link's ${name} ${v} is above ${max.toLocaleString('en-US')}.`);
    return null;
  }
  return v;
}

// A range ratio ("0.25"): 0 to LOAD_RANGE_RATIO_MAX, two decimals at most; else a sentence in
// `problems` and null.
function parseRangeRatio(text: string, name: string, problems: string[]): number | null {
  const v = rangeRatioOf(text);
  if (v === null)
    problems.push(`The link's ${name} "${clip(text)}" is not a number from 0 to ${LOAD_RANGE_RATIO_MAX}.`);
  return v;
}

// A range ratio as the page and its links write it: 0 to LOAD_RANGE_RATIO_MAX, two decimals at
// most ("0.25"); null otherwise.
export function rangeRatioOf(text: string): number | null {
  const v = Number(text);
  return /^0(\.\d{1,2})?$/.test(text) && v <= LOAD_RANGE_RATIO_MAX ? v : null;
}

export function clip(text: string, n = 40): string {
  return text.length > n ? text.slice(0, n - 1) + '…' : text;
}

const ID_RE = /^[A-Za-z0-9._ -]{1,64}$/; // ids, and the names the CLI accepts ("H100 SXM")

// Reads the query; every field that is missing or damaged keeps its default and
// adds a sentence to `problems`. Names are checked against the catalogs later.
export function parseParams(search: string, hash = ''): ParsedLink {
  const p = new URLSearchParams(search);
  // cgpu/cmodel may travel in the fragment (#cmodel=…); they win over the query's.
  for (const [k, v] of new URLSearchParams(hash.replace(/^#/, ''))) p.set(k, v);
  const s = cloneState(DEFAULT_STATE);
  const problems: string[] = [];
  const known = new Set([
    'embed',
    'v',
    ...LINK_FIELDS.flatMap((r) => [r.param, ...(r.kind === 'custom' ? (r.also ?? []) : [])]),
  ]);
  const empty = [...p.keys()].length === 0;
  const unknown = [...new Set(p.keys())].filter((k) => !known.has(k));
  if (unknown.length) problems.push(`The link has parameters this page does not know: ${clip(unknown.join(', '))}.`);
  for (const row of LINK_FIELDS) {
    if (row.kind === 'custom') {
      row.read(p, s, problems);
      continue;
    }
    const v = p.get(row.param);
    if (v === null) continue;
    const t = s as unknown as Record<string, unknown>;
    if (row.kind === 'choice') {
      if (row.values.includes(v)) t[row.field] = v;
      else
        problems.push(
          `The link's ${row.words} "${clip(v)}" ${row.plural ? 'are' : 'is'} not one of ${row.values.join(', ')}.`,
        );
    } else if (row.kind === 'switch') {
      if (v === '1' || v === '0') t[row.field] = v === '1';
      else problems.push(`The link's ${row.words} "${clip(v)}" is neither 1 nor 0.`);
    } else {
      const n =
        row.kind === 'int'
          ? parseInt(v, row.words, row.min ?? 0, row.max ?? 0, problems)
          : row.kind === 'positive'
            ? parsePositive(v, row.words, row.max ?? 0, problems)
            : parseRangeRatio(v, row.words, problems);
      if (n !== null) t[row.field] = n;
    }
  }
  const embedParam = p.get('embed');
  return { state: s, problems, version: p.get('v'), embed: embedParam === '1' || embedParam === 'true', empty };
}
