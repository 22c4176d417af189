// Loads the WebAssembly forecaster (public/tilecast/, copied there by
// scripts/build_web.sh) and gives it types. Every call is synchronous once loaded;
// errors are thrown as TilecastError with the core's message.

import type * as api from './generated/api';
import type {
  GpuSpec,
  MegatronForecast,
  ModelPrecision,
  Predictor,
  Recompute,
  Schedule,
  ServingForecast,
  TilecastResponses,
  MegatronBreakdown,
} from './generated/api';

// The responses' types come from core/schema/ (generated/api.ts, web/scripts/gen_api_types.mjs);
// the requests' are written here.
export type { GpuSpec, ZooModel, SystemSpec, Plan, PlanEntry, ServingForecast, ServingMemory } from './generated/api';
export type { TrainingMemory, PassMemory, StageTimeline, StreamSpan, ParallelSetting, LayerRow } from './generated/api';
export type { Recompute, Schedule, Predictor, MegatronForecast, MegatronBreakdown } from './generated/api';

export type Mode = Extract<api.Mode, 'training' | 'inference'>; // the modes the page asks for
export type Precision = ModelPrecision;
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
  attention?: Attention;
  virtual_stages?: number;
  sequence_parallel?: boolean;
  tokens?: number;
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
  system: string;
  model: string | Record<string, unknown>;
  global_batch: number;
  seq: number;
  gpu?: string | GpuSpec;
  predictor?: Predictor;
  precision?: ForecastPrecision;
  top?: number;
  gpus?: number;
}

// The serving forecast (api::forecast_serving; docs/serving.md).
export interface ServingRequest {
  gpu: string | GpuSpec;
  model: string | Record<string, unknown>;
  prompt: number;
  output: number;
  batch: number;
  tp: number;
  precision: Precision;
  engine: ServeEngine;
  predictor: Predictor;
}

type Answer<K extends keyof TilecastResponses> = TilecastResponses[K];

export interface Engine {
  readonly version: string;
  listGpus(): Answer<'listGpus'>;
  validateGpu(spec: unknown): Answer<'validateGpu'>;
  listModels(): Answer<'listModels'>;
  validateModel(config: unknown): Answer<'validateModel'>;
  forecastModel(request: ModelRequest): AnyForecast;
  forecastServing(request: ServingRequest): ServingForecast; // no load fields: never a simulation
  forecastKernel(request: unknown): Answer<'forecastKernel'>;
  listSystems(): Answer<'listSystems'>;
  planParallel(request: PlanRequest): Answer<'planParallel'>;
}

export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

let loading: Promise<Engine> | null = null;

// The module lives beside the page (./tilecast/), outside the bundle; public/start.js
// has usually begun loading it already.
export function loadEngine(): Promise<Engine> {
  if (!loading) {
    const early = (window as { tilecastEngine?: Promise<Engine> }).tilecastEngine;
    const url = new URL('tilecast/tilecast.js', document.baseURI).href;
    loading = early ?? import(/* @vite-ignore */ url).then((m) => m.createTilecast() as Promise<Engine>);
  }
  return loading;
}
