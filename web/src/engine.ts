// Loads the WebAssembly forecaster (public/tilecast/, copied there by
// scripts/build_web.sh) and gives it types. Every call is synchronous once loaded;
// errors are thrown as TilecastError with the core's message.

import type * as api from './generated/api';
import type {
  GpuSpec,
  ModelPrecision,
  Predictor,
  Recompute,
  Schedule,
  ServingForecast,
  TilecastResponses,
} from './generated/api';

// The responses' types come from core/schema/ (generated/api.ts, web/scripts/gen_api_types.mjs);
// the requests' are written here.
export type { GpuSpec, ZooModel, SystemSpec, Plan, PlanEntry, ServingForecast, ServingMemory } from './generated/api';
export type { TrainingMemory, PassMemory, StageTimeline, StreamSpan, ParallelSetting, LayerRow } from './generated/api';
export type { Recompute, Schedule, Predictor } from './generated/api';

export type Mode = Extract<api.Mode, 'training' | 'inference'>; // the modes the page asks for
export type Precision = ModelPrecision;
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
  precision?: Precision;
  engine?: 'compiled';
  // Multi-GPU training (api::forecast_model's parallel fields, docs/parallel.md).
  dp?: number;
  tp?: number;
  pp?: number;
  microbatches?: number;
  zero?: number;
  recompute?: Recompute;
  schedule?: Schedule;
  system?: string;
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

// api::plan_parallel (docs/parallel.md "Plan").
export interface PlanRequest {
  system: string;
  model: string | Record<string, unknown>;
  global_batch: number;
  seq: number;
  gpu?: string | GpuSpec;
  predictor?: Predictor;
  precision?: Precision;
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
  forecastModel(request: ModelRequest): ModelForecast;
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
