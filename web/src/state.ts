// The calculator's whole state, and its round trip through the URL query
// (?gpu=…&model=…&mode=…&batch=…&seq=…&v=…; the serve view adds prompt, out, tp,
// prec and engine; the model forecast's precision, torch.compile and multi-GPU
// training fields (fprec, feng, dp, ptp, pp, mb, zero, rc, sched, sys; the megatron engine's
// cp, ep, vpp, sp, attn, tokens, dopt (distributed optimizer), overlap (gradient reduction
// overlapped with the backward pass); LoRA / QLoRA fine-tuning: ft, lrank, ltgt; the serve view's
// load sweep: lqps, lpts, lreq, lseed, sttft, stpot) appear only when not their default; links without them open with the defaults; an old link's compile=1 opens torch.compile). A model by its sizes travels readable
// in `msz` (hidden-8192_layers-80_…, SIZE_KEYS) with model=sizes. A custom GPU or a pasted config
// travels compressed (deflate + base64url) in `cgpu` / `cmodel`: in the query
// while the link stays short, else in the fragment (#cmodel=…), which browsers
// never send to a server; a config too large even for that is left out.
import { Inflate, deflateSync, strFromU8, strToU8 } from 'fflate';
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
  loadMaxQps: number;
  loadPoints: number;
  loadRequests: number;
  loadSeed: number;
  loadRangeRatio: number;
  sloTtftMs: number;
  sloTpotMs: number;
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
  sloTtftMs: 500,
  sloTpotMs: 50,
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
export const SLO_MS_MAX = 10_000_000;
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
// Inflated payloads larger than this are refused (a tampered link cannot make
// the page decompress a bomb).
const MAX_INFLATED = 1 << 20;
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

function toBase64Url(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('it holds characters that base64url does not use');
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  let bin: string;
  try {
    bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  } catch {
    throw new Error('it is cut short or damaged (its base64url text has a wrong length)');
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; ++i) out[i] = bin.charCodeAt(i);
  return out;
}

export function packJson(value: unknown): string {
  return 'z' + toBase64Url(deflateSync(strToU8(JSON.stringify(value)), { level: 9 }));
}

export function unpackJson(packed: string): unknown {
  if (packed.length > MAX_PARAM)
    throw new Error(`it is ${packed.length} characters long; at most ${MAX_PARAM} are accepted`);
  if (!packed.startsWith('z')) throw new Error('it is not in a format this page knows');
  const bytes = fromBase64Url(packed.slice(1));
  const chunks: Uint8Array[] = [];
  let total = 0;
  let done = false;
  const inflate = new Inflate((chunk, final) => {
    total += chunk.length;
    if (total > MAX_INFLATED) throw new Error(`it inflates to more than ${MAX_INFLATED} bytes`);
    chunks.push(chunk);
    if (final) done = true;
  });
  try {
    inflate.push(bytes, true);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw new Error(msg.startsWith('it ') ? msg : `its compressed data is damaged (${msg})`);
  }
  if (!done) throw new Error('its compressed data is cut short');
  const all = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  let text: string;
  try {
    text = strFromU8(all);
  } catch {
    throw new Error('it does not decode to text');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('it does not decode to JSON');
  }
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

export function linkParts(s: Readonly<State>, version: string, embed = false): LinkParts {
  const q = new URLSearchParams();
  const packed: [string, string][] = [];
  if (embed) q.set('embed', '1');
  // An embed card shows the forecast, or the serving forecast when that is the view.
  if (s.view !== 'forecast' && (!embed || s.view === 'serve')) q.set('view', s.view);
  q.set('gpu', s.gpu);
  if (s.gpu === CUSTOM && s.customGpu) packed.push(['cgpu', packJson(s.customGpu)]);
  q.set('model', s.model);
  if (s.model === SIZES && s.modelSizes) q.set('msz', sizesParam(s.modelSizes));
  let configChars = 0;
  if (s.model === CUSTOM && s.customModel) {
    const cmodel = packJson(s.customModel);
    configChars = cmodel.length;
    packed.push(['cmodel', cmodel]);
  }
  q.set('mode', s.mode);
  if (s.predictor !== 'tilecast') q.set('pred', s.predictor);
  q.set('batch', String(s.batch));
  q.set('seq', String(s.seq));
  if (!embed && s.view === 'compare') q.set('cmp', s.compare.join(','));
  const serving = s.view === 'serve' || (s.view === 'compare' && s.compareServing);
  if (!embed && s.view === 'compare' && s.compareServing) q.set('cmpserve', '1');
  if (!embed && s.view === 'sweep') q.set('sweep', String(s.sweepMax));
  if (serving) {
    q.set('prompt', String(s.prompt));
    q.set('out', String(s.output));
    if (s.tp !== 1) q.set('tp', String(s.tp));
    q.set('prec', s.precision);
    q.set('engine', s.engine);
    if (s.serveWeights !== DEFAULT_STATE.serveWeights) q.set('w', s.serveWeights);
    if (s.serveKvCache !== DEFAULT_STATE.serveKvCache) q.set('kv', s.serveKvCache);
  }
  // The model forecast's options and multi-GPU fields, each only when not its default
  // (older links have none and open as before).
  const d = DEFAULT_STATE;
  if (s.forecastPrecision !== d.forecastPrecision) q.set('fprec', s.forecastPrecision);
  if (s.forecastEngine !== d.forecastEngine) q.set('feng', s.forecastEngine);
  if (s.dp !== d.dp) q.set('dp', String(s.dp));
  if (s.trainTp !== d.trainTp) q.set('ptp', String(s.trainTp));
  if (s.pp !== d.pp) q.set('pp', String(s.pp));
  if (s.microbatches !== d.microbatches) q.set('mb', String(s.microbatches));
  if (s.zero !== d.zero) q.set('zero', String(s.zero));
  if (s.recompute !== d.recompute) q.set('rc', s.recompute);
  if (s.schedule !== d.schedule) q.set('sched', s.schedule);
  if (s.system !== d.system) q.set('sys', s.system);
  if (s.cp !== d.cp) q.set('cp', String(s.cp));
  if (s.ep !== d.ep) q.set('ep', String(s.ep));
  if (s.virtualStages !== d.virtualStages) q.set('vpp', String(s.virtualStages));
  if (s.sequenceParallel) q.set('sp', '1');
  if (s.attention !== d.attention) q.set('attn', s.attention);
  if (s.tokens !== d.tokens) q.set('tokens', formatTokens(s.tokens));
  if (s.distributedOptimizer !== d.distributedOptimizer) q.set('dopt', s.distributedOptimizer ? '1' : '0');
  if (s.overlapGradReduce !== d.overlapGradReduce) q.set('overlap', s.overlapGradReduce ? '1' : '0');
  if (s.finetune !== d.finetune) q.set('ft', s.finetune);
  if (s.masterWeights !== d.masterWeights) q.set('mw', s.masterWeights);
  if (s.loraRank !== d.loraRank) q.set('lrank', String(s.loraRank));
  if (s.loraTargets !== d.loraTargets) q.set('ltgt', s.loraTargets);
  // The serve view's load sweep (not the embed card's), each field only when not its default.
  if (!embed && s.view === 'serve') {
    if (s.loadMaxQps !== d.loadMaxQps) q.set('lqps', String(s.loadMaxQps));
    if (s.loadPoints !== d.loadPoints) q.set('lpts', String(s.loadPoints));
    if (s.loadRequests !== d.loadRequests) q.set('lreq', String(s.loadRequests));
    if (s.loadSeed !== d.loadSeed) q.set('lseed', String(s.loadSeed));
    if (s.loadRangeRatio !== d.loadRangeRatio) q.set('lrr', String(s.loadRangeRatio));
    if (s.sloTtftMs !== d.sloTtftMs) q.set('sttft', String(s.sloTtftMs));
    if (s.sloTpotMs !== d.sloTpotMs) q.set('stpot', String(s.sloTpotMs));
  }
  q.set('v', version);
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
    'view',
    'gpu',
    'cgpu',
    'model',
    'cmodel',
    'msz',
    'mode',
    'pred',
    'batch',
    'seq',
    'cmp',
    'cmpserve',
    'sweep',
    'v',
    'prompt',
    'out',
    'tp',
    'prec',
    'engine',
    'w',
    'kv',
    'fprec',
    'compile',
    'dp',
    'ptp',
    'pp',
    'mb',
    'zero',
    'rc',
    'sched',
    'sys',
    'feng',
    'cp',
    'ep',
    'vpp',
    'sp',
    'attn',
    'tokens',
    'dopt',
    'overlap',
    'ft',
    'lrank',
    'ltgt',
    'lqps',
    'lpts',
    'lreq',
    'lseed',
    'lrr',
    'sttft',
    'stpot',
  ]);
  const empty = [...p.keys()].length === 0;
  const unknown = [...new Set(p.keys())].filter((k) => !known.has(k));
  if (unknown.length) problems.push(`The link has parameters this page does not know: ${clip(unknown.join(', '))}.`);

  const view = p.get('view');
  if (view !== null) {
    if ((VIEWS as string[]).includes(view)) s.view = view as View;
    else problems.push(`The link's view "${clip(view)}" is not one of ${VIEWS.join(', ')}.`);
  }
  const gpu = p.get('gpu');
  if (gpu !== null) {
    if (gpu === CUSTOM) {
      const packed = p.get('cgpu');
      if (packed === null) problems.push('The link asks for a custom GPU but does not carry its spec (cgpu).');
      else {
        try {
          const spec = unpackJson(packed);
          if (!spec || typeof spec !== 'object' || Array.isArray(spec)) throw new Error('it is not a JSON object');
          s.gpu = CUSTOM;
          s.customGpu = spec as GpuSpec;
        } catch (e) {
          problems.push(`The custom GPU in the link is damaged: ${e instanceof Error ? e.message : e}.`);
        }
      }
    } else if (ID_RE.test(gpu)) s.gpu = gpu;
    else problems.push(`The link's GPU "${clip(gpu)}" is not a catalog id.`);
  }
  const model = p.get('model');
  if (model !== null) {
    if (model === CUSTOM) {
      const packed = p.get('cmodel');
      if (packed === null)
        problems.push(
          'The link asks for a pasted model config but does not carry it (a config too large for a link is shared as a file beside it): paste or upload that config.json.',
        );
      else {
        try {
          const cfg = unpackJson(packed);
          if (!cfg || typeof cfg !== 'object' || Array.isArray(cfg)) throw new Error('it is not a JSON object');
          s.model = CUSTOM;
          s.customModel = cfg as Record<string, unknown>;
        } catch (e) {
          problems.push(`The model config in the link is damaged: ${e instanceof Error ? e.message : e}.`);
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
  }
  const mode = p.get('mode');
  if (mode !== null) {
    if ((MODES as string[]).includes(mode)) s.mode = mode as Mode;
    else problems.push(`The link's mode "${clip(mode)}" is not one of ${MODES.join(', ')}.`);
  }
  const pred = p.get('pred');
  if (pred !== null) {
    if (pred === 'tilecast' || pred === 'roofline') s.predictor = pred;
    else problems.push(`The link's predictor "${clip(pred)}" is neither tilecast nor roofline.`);
  }
  const batch = p.get('batch');
  if (batch !== null) s.batch = parseInt(batch, 'batch size', 1, BATCH_MAX, problems) ?? s.batch;
  const seq = p.get('seq');
  if (seq !== null) s.seq = parseInt(seq, 'sequence length', 1, SEQ_MAX, problems) ?? s.seq;
  const sweep = p.get('sweep');
  if (sweep !== null) s.sweepMax = parseInt(sweep, 'sweep size', 2, SWEEP_MAX, problems) ?? s.sweepMax;
  const prompt = p.get('prompt');
  if (prompt !== null) s.prompt = parseInt(prompt, 'prompt length', 1, TOKENS_MAX, problems) ?? s.prompt;
  const out = p.get('out');
  if (out !== null) s.output = parseInt(out, 'output length', 1, TOKENS_MAX, problems) ?? s.output;
  const tp = p.get('tp');
  if (tp !== null) s.tp = parseInt(tp, 'tensor-parallel size', 1, TP_MAX, problems) ?? s.tp;
  const prec = p.get('prec');
  if (prec !== null) {
    if ((PRECISIONS as string[]).includes(prec)) s.precision = prec as ServingPrecision;
    else problems.push(`The link's precision "${clip(prec)}" is not one of ${PRECISIONS.join(', ')}.`);
  }
  const engine = p.get('engine');
  if (engine !== null) {
    if ((SERVE_ENGINES as string[]).includes(engine)) s.engine = engine as ServeEngine;
    else problems.push(`The link's serving engine "${clip(engine)}" is neither fused nor eager.`);
  }
  const w = p.get('w');
  if (w !== null) {
    if ((SERVE_WEIGHTS as readonly string[]).includes(w)) s.serveWeights = w as ServeWeights;
    else problems.push(`The link's weights "${clip(w)}" is not one of ${SERVE_WEIGHTS.join(', ')}.`);
  }
  const kv = p.get('kv');
  if (kv !== null) {
    if ((SERVE_KV_CACHES as readonly string[]).includes(kv)) s.serveKvCache = kv as ServeKvCache;
    else problems.push(`The link's KV cache "${clip(kv)}" is not one of ${SERVE_KV_CACHES.join(', ')}.`);
  }
  const fprec = p.get('fprec');
  if (fprec !== null) {
    if ((FORECAST_PRECISIONS as string[]).includes(fprec)) s.forecastPrecision = fprec as ForecastPrecision;
    else
      problems.push(`The link's forecast precision "${clip(fprec)}" is not one of ${FORECAST_PRECISIONS.join(', ')}.`);
  }
  // An older link's torch.compile switch; feng (below) wins over it.
  const compile = p.get('compile');
  if (compile !== null) {
    if (compile === '1' || compile === '0') s.forecastEngine = compile === '1' ? 'compiled' : 'eager';
    else problems.push(`The link's torch.compile switch "${clip(compile)}" is neither 1 nor 0.`);
  }
  const feng = p.get('feng');
  if (feng !== null) {
    if ((FORECAST_ENGINES as string[]).includes(feng)) s.forecastEngine = feng as ForecastEngine;
    else problems.push(`The link's engine "${clip(feng)}" is not one of ${FORECAST_ENGINES.join(', ')}.`);
  }
  const ints: [
    string,
    string,
    'dp' | 'trainTp' | 'pp' | 'microbatches' | 'zero' | 'cp' | 'ep' | 'virtualStages' | 'loraRank',
    number,
    number,
  ][] = [
    ['dp', 'data-parallel size', 'dp', 1, PAR_MAX],
    ['ptp', 'training tensor-parallel size', 'trainTp', 1, PAR_MAX],
    ['pp', 'pipeline stages', 'pp', 1, PAR_MAX],
    ['mb', 'micro-batches', 'microbatches', 1, PAR_MAX],
    ['zero', 'ZeRO stage', 'zero', 0, 3],
    ['cp', 'context-parallel size', 'cp', 1, PAR_MAX],
    ['ep', 'expert-parallel size', 'ep', 1, PAR_MAX],
    ['vpp', 'virtual pipeline stages', 'virtualStages', 1, PAR_MAX],
    ['lrank', 'LoRA rank', 'loraRank', 1, LORA_RANK_MAX],
  ];
  for (const [name, words, field, min, max] of ints) {
    const v = p.get(name);
    if (v !== null) s[field] = parseInt(v, words, min, max, problems) ?? s[field];
  }
  const rc = p.get('rc');
  if (rc !== null) {
    if ((RECOMPUTES as string[]).includes(rc)) s.recompute = rc as Recompute;
    else problems.push(`The link's recomputation "${clip(rc)}" is not one of ${RECOMPUTES.join(', ')}.`);
  }
  const sched = p.get('sched');
  if (sched !== null) {
    if ((SCHEDULES as string[]).includes(sched)) s.schedule = sched as Schedule;
    else problems.push(`The link's pipeline schedule "${clip(sched)}" is not one of ${SCHEDULES.join(', ')}.`);
  }
  const switches: [string, string, 'sequenceParallel' | 'distributedOptimizer' | 'overlapGradReduce'][] = [
    ['sp', 'sequence-parallelism switch', 'sequenceParallel'],
    ['dopt', 'distributed-optimizer switch', 'distributedOptimizer'],
    ['overlap', 'gradient-reduction overlap switch', 'overlapGradReduce'],
  ];
  for (const [name, words, field] of switches) {
    const v = p.get(name);
    if (v === null) continue;
    if (v === '1' || v === '0') s[field] = v === '1';
    else problems.push(`The link's ${words} "${clip(v)}" is neither 1 nor 0.`);
  }
  const ft = p.get('ft');
  if (ft !== null) {
    if ((FINETUNES as string[]).includes(ft)) s.finetune = ft as FinetuneChoice;
    else problems.push(`The link's fine-tuning "${clip(ft)}" is not one of ${FINETUNES.join(', ')}.`);
  }
  const mw = p.get('mw');
  if (mw !== null) {
    if ((MASTER_WEIGHTS as string[]).includes(mw)) s.masterWeights = mw as MasterWeights;
    else problems.push(`The link's master weights "${clip(mw)}" is not one of ${MASTER_WEIGHTS.join(', ')}.`);
  }
  const ltgt = p.get('ltgt');
  if (ltgt !== null) {
    if ((LORA_TARGETS as string[]).includes(ltgt)) s.loraTargets = ltgt as LoraTargets;
    else problems.push(`The link's LoRA targets "${clip(ltgt)}" are not one of ${LORA_TARGETS.join(', ')}.`);
  }
  const attn = p.get('attn');
  if (attn !== null) {
    if ((ATTENTIONS as string[]).includes(attn)) s.attention = attn as Attention;
    else problems.push(`The link's attention "${clip(attn)}" is not one of ${ATTENTIONS.join(', ')}.`);
  }
  const tokens = p.get('tokens');
  if (tokens !== null) {
    try {
      s.tokens = parseTokens(tokens);
    } catch (e) {
      problems.push(`The link's tokens to train on: ${e instanceof Error ? e.message : e}`);
    }
  }
  const sys = p.get('sys');
  if (sys !== null) {
    if (ID_RE.test(sys)) s.system = sys;
    else problems.push(`The link's system "${clip(sys)}" is not a catalog id.`);
  }
  const cmp = p.get('cmp');
  if (cmp !== null) {
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
  }
  const cmpServe = p.get('cmpserve');
  if (cmpServe !== null) {
    if (cmpServe === '1' || cmpServe === '0') s.compareServing = cmpServe === '1';
    else problems.push(`The link's cmpserve "${clip(cmpServe)}" is not 1 or 0.`);
  }
  const lqps = p.get('lqps');
  if (lqps !== null) s.loadMaxQps = parsePositive(lqps, 'largest request rate', LOAD_QPS_MAX, problems) ?? s.loadMaxQps;
  const lpts = p.get('lpts');
  if (lpts !== null)
    s.loadPoints =
      parseInt(lpts, 'request rates to simulate', LOAD_POINTS_MIN, LOAD_POINTS_MAX, problems) ?? s.loadPoints;
  const lreq = p.get('lreq');
  if (lreq !== null)
    s.loadRequests =
      parseInt(lreq, 'requests per rate', LOAD_REQUESTS_MIN, LOAD_REQUESTS_MAX, problems) ?? s.loadRequests;
  const lseed = p.get('lseed');
  if (lseed !== null) s.loadSeed = parseInt(lseed, 'arrival seed', 0, LOAD_SEED_MAX, problems) ?? s.loadSeed;
  const lrr = p.get('lrr');
  if (lrr !== null)
    s.loadRangeRatio = parseRangeRatio(lrr, 'length spread (range ratio)', problems) ?? s.loadRangeRatio;
  const sttft = p.get('sttft');
  if (sttft !== null) s.sloTtftMs = parsePositive(sttft, 'TTFT SLO (ms)', SLO_MS_MAX, problems) ?? s.sloTtftMs;
  const stpot = p.get('stpot');
  if (stpot !== null) s.sloTpotMs = parsePositive(stpot, 'TPOT SLO (ms)', SLO_MS_MAX, problems) ?? s.sloTpotMs;
  const embedParam = p.get('embed');
  return { state: s, problems, version: p.get('v'), embed: embedParam === '1' || embedParam === 'true', empty };
}
