// Loads the WebAssembly forecaster (public/tilecast/, copied there by
// scripts/build_web.sh) and gives it types. Every call is synchronous once loaded;
// errors are thrown as TilecastError with the core's message.

import type * as api from './generated/api';
import type { CoreCall } from './core_worker';
import type {
  GpuSpec,
  MegatronForecast,
  ModelPrecision,
  Predictor,
  Recompute,
  Schedule,
  ServingForecast,
  ServingLoadForecast,
  TilecastResponses,
  MegatronBreakdown,
} from './generated/api';

// The responses' types come from core/schema/ (generated/api.ts, web/scripts/gen_api_types.mjs);
// the requests' are written here.
export type { GpuSpec, ZooModel, SystemSpec, Plan, PlanEntry, ServingForecast, ServingMemory } from './generated/api';
export type { ServingLoadForecast, CapacityPlan, CapacityOption } from './generated/api';
export type { MegatronPlan, MegatronPlanEntry } from './generated/api';
export type {
  TrainingMemory,
  PassMemory,
  StageTimeline,
  StreamSpan,
  ParallelSetting,
  LayerRow,
  OperatorRow,
} from './generated/api';
export type { Recompute, Schedule, Predictor, MegatronForecast, MegatronBreakdown } from './generated/api';

// The modes the page asks for: a training step, an inference pass over whole sequences, one
// decode step (a new token per sequence against a KV cache of `seq` tokens; docs/model-forecast.md).
export type Mode = Extract<api.Mode, 'training' | 'inference' | 'decode'>;
export type Precision = ModelPrecision;
// The serve view's precisions: fp8 (W8A8) and fp4 (W4A4) on GPUs with those units (docs/serving.md).
export type ServingPrecision = api.ServingPrecision;
// The model forecast's precisions: FP8 is the megatron engine's (TransformerEngine), on GPUs with it.
export type ForecastPrecision = Precision | 'fp8';
// The model forecast's engines: PyTorch eager (no "engine" field), torch.compile, Megatron-Core.
export type ForecastEngine = 'eager' | 'compiled' | 'megatron';
// The megatron engine's attention: FlashAttention, or Megatron-LM's fused softmax over the scores.
export type Attention = MegatronForecast['parallel']['attention'];
// A model by its sizes (docs/megatron.md "Models by their sizes"): sent as {"sizes": {...}}.
export interface ModelSizes {
  hidden: number;
  layers: number;
  heads: number;
  query_groups?: number;
  ffn?: number;
  vocab: number;
  seq?: number;
  mlp: 'swiglu' | 'gelu';
  positions: 'rotary' | 'learned';
}
export type ServeEngine = ServingForecast['engine'];
// How a served model's weights are stored (the request's weights; absent: the checkpoint's own).
export type WeightFormat = api.WeightFormat;
// LoRA / QLoRA fine-tuning (the request's finetune field; full: no field, every weight trained).
export type LoraTargets = api.Finetune['targets'];
export type FinetuneChoice = 'full' | api.Finetune['method'];
// A half-precision training step's master weights (the request's master_weights): fp32 is
// torch.autocast, half a model.to(bf16/fp16) step (docs/mixed-precision.md).
export type MasterWeights = NonNullable<api.WorkloadEcho['master_weights']>;
export interface FinetuneRequest {
  method: api.Finetune['method'];
  rank: number;
  targets: LoraTargets;
}

// The optional fields are sent only when not their default (fp32, eager, one GPU),
// so a default request is the same JSON as before they existed.
export interface ModelRequest {
  gpu: string | GpuSpec;
  model: string | Record<string, unknown>;
  batch: number;
  seq: number;
  mode: Mode;
  predictor: Predictor;
  precision?: ForecastPrecision;
  engine?: 'compiled' | 'megatron';
  // LoRA / QLoRA: training on one GPU, eager or compiled (the core refuses it elsewhere).
  finetune?: FinetuneRequest;
  // Half master weights: a full training step on one GPU at bf16/fp16, eager or compiled.
  master_weights?: MasterWeights;
  // Multi-GPU training (api::forecast_model's parallel fields, docs/parallel.md).
  dp?: number;
  tp?: number;
  pp?: number;
  microbatches?: number;
  zero?: number;
  recompute?: Recompute;
  schedule?: Schedule;
  system?: string;
  // The megatron engine's own (docs/megatron.md); it refuses zero and schedule.
  cp?: number;
  ep?: number;
  attention?: Attention;
  virtual_stages?: number;
  sequence_parallel?: boolean;
  tokens?: number;
  distributed_optimizer?: boolean;
  overlap_grad_reduce?: boolean;
}

// communication and bubble: multi-GPU forecasts only.
export const BREAKDOWN_KINDS = [
  'gemm',
  'attention_bmm',
  'softmax',
  'norm',
  'elementwise',
  'memory',
  'communication',
  'bubble',
] as const satisfies readonly (keyof api.ParallelBreakdown)[];
export type BreakdownKind = (typeof BREAKDOWN_KINDS)[number];

// forecastModel answers one GPU's forecast (api.ModelForecast) or a multi-GPU training step's
// (api.ParallelForecast, when the request has parallel fields). The page reads both through one
// shape: the fields both have, and each one's own fields optional.
type Merged<A, B> = { [K in keyof A & keyof B]: A[K] | B[K] } & {
  [K in Exclude<keyof A, keyof B>]?: A[K];
} & { [K in Exclude<keyof B, keyof A>]?: B[K] };
// A multi-GPU step has no roofline_latency_ms until the page adds its roofline step's (memo.ts).
export type ModelForecast = Omit<Merged<api.ModelForecast, api.ParallelForecast>, 'breakdown'> & {
  breakdown: Partial<api.ParallelBreakdown>;
};

// Any model forecast: the eager/compiled one (one GPU or many) or the megatron engine's step,
// told apart by `engine` (isMegatron).
export type AnyForecast = ModelForecast | MegatronForecast;

export function isMegatron(f: AnyForecast): f is MegatronForecast {
  return f.engine === 'megatron';
}

// The megatron step's breakdown kinds (all but recompute sum to step_ms; recompute is part of compute).
export const MEGATRON_KINDS = [
  'compute',
  'tp_comm',
  'pp_comm',
  'dp_comm',
  'bubble',
  'optimizer',
] as const satisfies readonly (keyof MegatronBreakdown)[];

// api::plan_parallel (docs/parallel.md "Plan").
export interface PlanRequest {
  system?: string; // absent: the system the GPU's catalog entry builds (the core decides)
  model: string | Record<string, unknown>;
  global_batch: number;
  seq: number;
  gpu?: string | GpuSpec;
  predictor?: Predictor;
  precision?: ForecastPrecision;
  top?: number;
  gpus?: number;
  engine?: 'megatron'; // the megatron engine's search (a MegatronPlan), with its attention
  attention?: Attention;
}

// The serving forecast (api::forecast_serving; docs/serving.md).
export interface ServingRequest {
  gpu: string | GpuSpec;
  model: string | Record<string, unknown>;
  prompt: number;
  output: number;
  batch: number;
  tp: number;
  precision: ServingPrecision;
  engine: ServeEngine;
  predictor: Predictor;
  weights?: WeightFormat; // absent: as the checkpoint stores them (gpt-oss: MXFP4 experts)
  kv_cache?: 'fp8'; // absent: the cache in the activations' type
}

// A serving simulation under load (api::forecast_serving with qps; docs/serving-load.md): the serve
// request without its batch (the scheduler batches), Poisson arrivals at `qps`.
export interface LoadRequest extends Omit<ServingRequest, 'batch'> {
  qps: number;
  requests: number;
  seed: number;
  range_ratio?: number; // lengths within +-range_ratio of prompt and output; absent: fixed
  // A mixture of experts on one replica of `ep` GPUs (tp 1): its routed experts spread over them,
  // each GPU its own requests; qps and throughput are the replica's. Absent: one GPU per tp.
  ep?: number;
}

// A capacity plan (api::plan_capacity; docs/serving-load.md "Capacity"): the serving simulation's
// request without its tensor parallelism and engine (the plan tries TP sizes and replicas of the
// fused engine; and for a mixture its experts over 2, 4 and 8 GPUs, so no ep of its own), the
// whole service's rate and the SLO at P99.
export interface CapacityRequest extends Omit<LoadRequest, 'tp' | 'engine' | 'ep'> {
  slo_ttft_ms: number;
  slo_tpot_ms: number;
  max_gpus: number;
  price_per_gpu_hour?: number; // absent: options ranked by GPUs
}

type Answer<K extends keyof TilecastResponses> = TilecastResponses[K];

export interface Engine {
  readonly version: string;
  readonly deferredUrl: string; // the forecaster's deferred part (tilecast.js), fetched ahead for offline use
  provideDeferred(bytes: ArrayBuffer): void; // its bytes, so this instance can load it on the page's thread
  listGpus(): Answer<'listGpus'>;
  validateGpu(spec: unknown): Answer<'validateGpu'>;
  listModels(): Answer<'listModels'>;
  validateModel(config: unknown): Answer<'validateModel'>;
  forecastModel(request: ModelRequest): AnyForecast;
  forecastServing(request: ServingRequest): ServingForecast; // no load fields: never a simulation
  simulateServing(request: LoadRequest): ServingLoadForecast; // the same call with load fields
  forecastKernel(request: unknown): Answer<'forecastKernel'>;
  listSystems(): Answer<'listSystems'>;
  planParallel(request: PlanRequest): Answer<'planParallel'>;
  planCapacity(request: CapacityRequest): Answer<'planCapacity'>;
  // A call by name on this instance as it stands, nothing fetched: one that needs a learned model
  // not loaded or the deferred part where it cannot be loaded throws tilecast.js's TilecastError
  // (its missingModel or missingModule says which).
  callAsIs(name: CoreCall, arg: unknown): unknown;
  // A call that needs a learned model the forecaster does not embed throws ModelLoading while
  // the model is fetched. These answer once the models it needs are in, asking again...
  whenModels<T>(call: () => T): Promise<T>;
  // ...and tell whoever listens each time a model has arrived or failed to (in a forecaster's
  // thread, core_worker.ts tells the page, which renders again).
  onModelsChanged(listener: () => void): void;
}

export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

// ---- learned models loaded on demand ----------------------------------------
// The forecaster embeds the landing view's model (NVIDIA FP32) only; the others (AMD, FP16/BF16)
// are the files models/<id>.json beside tilecast.js (core/CMakeLists.txt, TILECAST_EMBED_MODELS),
// fetched once on a call's first need (the service worker keeps a copy) and given to the core,
// whose forecasts are then those of a build embedding them. No DOM: the same in a worker.

// Thrown by a call while a model it needs is fetched; `ready` settles when it is in (or failed).
export class ModelLoading extends Error {
  constructor(
    readonly model: string,
    readonly ready: Promise<void>,
  ) {
    super(`Loading the forecaster's learned model ${model} (fetched once)…`);
    this.name = 'ModelLoading';
  }
}

// What the wrapper needs of tilecast.js beyond the Engine's calls.
interface Forecaster extends Omit<Engine, 'whenModels' | 'onModelsChanged' | 'simulateServing' | 'callAsIs'> {
  loadModel(request: string): unknown;
}

// The weights-fetch function: the text of models/<id>.json beside the forecaster's module.
export async function fetchModel(moduleUrl: string, id: string): Promise<string> {
  const response = await fetch(new URL(`models/${encodeURIComponent(id)}.json`, moduleUrl).href);
  if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`.trim());
  return response.text();
}

type ModelState = { ready: Promise<void>; loaded?: boolean; failed?: string };

// The one wrapper around the forecaster's calls: a call that needs a model not loaded yet starts
// its fetch (one per model, whoever asks) and throws ModelLoading; once the model is in, the same
// call answers. A failed fetch is said by every call that needs the model until a reload.
export function withModels(tc: Forecaster, moduleUrl: string): Engine {
  const models = new Map<string, ModelState>();
  const listeners: (() => void)[] = [];
  const changed = (): void => listeners.forEach((l) => l());
  const need = (id: string): ModelState => {
    let state = models.get(id);
    if (!state) {
      const s: ModelState = {
        ready: fetchModel(moduleUrl, id)
          .then((text) => {
            tc.loadModel(text);
            s.loaded = true;
          })
          .catch((e: unknown) => {
            s.failed = `The forecaster's learned model ${id} could not be loaded (${errorMessage(e)}); reload the page to try again.`;
          })
          .finally(changed),
      };
      state = s;
      models.set(id, s);
    }
    return state;
  };
  const guard =
    <A extends unknown[], R>(call: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return call(...args);
      } catch (e) {
        const id = (e as { missingModel?: unknown }).missingModel;
        if (typeof id !== 'string') throw e;
        const state = need(id);
        if (state.failed) throw new Error(state.failed);
        if (state.loaded) throw e; // loaded, yet missing: the core's message says which
        throw new ModelLoading(id, state.ready);
      }
    };
  // tilecast.js's one forecastServing answers a simulation when the request has load fields
  const simulate = (request: LoadRequest): ServingLoadForecast =>
    tc.forecastServing(request as unknown as ServingRequest) as unknown as ServingLoadForecast;
  const engine: Engine = {
    version: tc.version,
    deferredUrl: tc.deferredUrl,
    provideDeferred: (bytes) => tc.provideDeferred(bytes),
    listGpus: guard(() => tc.listGpus()),
    validateGpu: guard((spec) => tc.validateGpu(spec)),
    listModels: guard(() => tc.listModels()),
    validateModel: guard((config) => tc.validateModel(config)),
    forecastModel: guard((request) => tc.forecastModel(request)),
    forecastServing: guard((request) => tc.forecastServing(request)),
    simulateServing: guard(simulate),
    forecastKernel: guard((request) => tc.forecastKernel(request)),
    listSystems: guard(() => tc.listSystems()),
    planParallel: guard((request) => tc.planParallel(request)),
    planCapacity: guard((request) => tc.planCapacity(request)),
    callAsIs: (name, arg) =>
      name === 'simulateServing' ? simulate(arg as LoadRequest) : (tc[name] as (a: unknown) => unknown).call(tc, arg),
    async whenModels<T>(call: () => T): Promise<T> {
      for (let tries = 0; ; ++tries) {
        try {
          return call();
        } catch (e) {
          if (!(e instanceof ModelLoading) || tries > 8) throw e;
          await e.ready;
        }
      }
    },
    onModelsChanged(listener) {
      listeners.push(listener);
    },
  };
  return engine;
}

// The forecaster at `moduleUrl` (tilecast.js), wrapped; for a worker's own instance.
export function createEngine(moduleUrl: string): Promise<Engine> {
  return import(/* @vite-ignore */ moduleUrl).then(async (m) => withModels(await m.createTilecast(), moduleUrl));
}

let loading: Promise<Engine> | null = null;

// The module lives beside the page (./tilecast/), outside the bundle; public/start.js
// has usually begun loading it already.
export function loadEngine(): Promise<Engine> {
  if (!loading) {
    const early = (window as { tilecastEngine?: Promise<Forecaster> }).tilecastEngine;
    const url = new URL('tilecast/tilecast.js', document.baseURI).href;
    loading = early ? early.then((tc) => withModels(tc, url)) : createEngine(url);
  }
  return loading;
}
