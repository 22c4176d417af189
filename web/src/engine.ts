// Loads the WebAssembly forecaster (public/tilecast/, copied there by
// scripts/build_web.sh) and gives it types. Every call is synchronous once loaded;
// errors are thrown as TilecastError with the core's message.

export interface GpuSpec {
  id?: string;
  name: string;
  aliases?: string[];
  vendor: string;
  architecture?: string;
  num_sm: number;
  cores_per_sm: number;
  boost_clock_mhz: number;
  fp32_gflops: number;
  fp32_matrix_gflops?: number;
  mem_gb: number;
  mem_bw_gbps: number;
  l2_mb: number;
  max_threads_per_sm?: number;
  l1_kb_per_sm?: number;
  source?: string;
}

export interface ZooModel {
  id: string;
  name: string;
  architecture: string;
  model_type: string;
  layers: number;
  hidden_size: number;
  params_b: number;
  source: string;
}

export type Mode = 'training' | 'inference';
export type Predictor = 'tilecast' | 'roofline';

export type Recompute = 'none' | 'selective' | 'full';
export type Schedule = '1f1b' | 'gpipe';

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
export const BREAKDOWN_KINDS = ['gemm', 'attention_bmm', 'softmax', 'norm', 'elementwise', 'memory', 'communication', 'bubble'] as const;
export type BreakdownKind = (typeof BREAKDOWN_KINDS)[number];

export interface LayerRow {
  name: string;
  count: number;
  forward_ms: number;
  backward_ms: number;
  total_ms: number;
}

export interface ModelForecast {
  tilecast_version: string;
  gpu: { id: string; name: string };
  model: { id: string; name: string; architecture: string };
  mode: Mode;
  batch: number;
  seq: number;
  predictor: Predictor;
  precision: Precision;
  engine?: 'eager' | 'compiled'; // single-GPU forecasts; a multi-GPU step is eager
  // A multi-GPU step (api::forecast_model with parallel fields) has these instead of
  // layers, kernels, the band and the roofline (the page asks for the roofline step).
  parallel?: ParallelSetting;
  step_ms?: number;
  tokens_per_s_per_gpu?: number;
  bubble_fraction?: number;
  stages?: StageTimeline[];
  memory?: TrainingMemory;
  assumptions?: string[];
  latency_ms: number;
  band_low_ms: number | null;  // the 80% band (docs/generalization.md); null for the roofline
  band_high_ms: number | null;
  forward_ms: number;
  backward_ms: number;
  samples_per_s: number;
  tokens_per_s: number;
  kernels: number;
  breakdown: Partial<Record<BreakdownKind, number>>;
  layers: LayerRow[];
  substitutions: { kernel: string; forecast_as: string }[];
  caveats: string[];  // what the forecast cannot vouch for (an unmeasured vendor or architecture)
  roofline_latency_ms: number;
}

export interface ParallelSetting {
  gpus: number;
  dp: number;
  tp: number;
  pp: number;
  microbatches: number;
  microbatch_size: number;
  zero: number;
  recompute: Recompute;
  schedule: Schedule;
  bucket_mb: number;
  system: string;
}

export interface StreamSpan {
  what: string; // forward, backward, send activations, gradient bucket (dp), …
  microbatch: number;
  start_ms: number;
  finish_ms: number;
}

export interface StageTimeline {
  stage: number;
  compute_busy_ms: number;
  comm_busy_ms: number;
  exposed_comm_ms: number;
  bubble_ms: number;
  compute: StreamSpan[];
  communication: StreamSpan[];
}

export interface TrainingMemory {
  stage: number; // the fullest pipeline stage's GPU
  weights_gb: number;
  gradients_gb: number;
  optimizer_gb: number;
  activations_gb: number;
  workspace_gb: number;
  context_gb: number;
  total_gb: number;
  capacity_gb: number;
  fits: boolean;
}

// A catalog system (api::list_systems): GPUs and their links.
export interface SystemSpec {
  id: string;
  name: string;
  gpu: string;
  gpus_per_node: number;
  [key: string]: unknown;
}

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

export interface PlanEntry {
  dp: number;
  tp: number;
  pp: number;
  gpus: number;
  microbatches: number;
  zero: number;
  recompute: Recompute;
  step_ms: number;
  tokens_per_s: number;
  tokens_per_s_per_gpu: number;
  bubble_fraction: number;
  memory_gb: number;
  capacity_gb: number;
}

export interface Plan {
  precision?: Precision;
  considered: number;
  does_not_divide: number;
  does_not_fit: number;
  fitting: number;
  by_step: PlanEntry[];
  by_tokens_per_gpu: PlanEntry[];
}

// The serving forecast (api::forecast_serving; docs/serving.md).
export type Precision = 'bf16' | 'fp16' | 'fp32';
export type ServeEngine = 'fused' | 'eager';

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

export interface ServingMemory {
  weights_gb: number;
  kv_cache_gb: number;
  activations_gb: number;
  context_gb: number;
  total_gb: number;
  capacity_gb: number;
  fits: boolean;
}

export interface ServingForecast {
  tilecast_version: string;
  gpu: { id: string; name: string };
  model: { id: string; name: string; architecture: string };
  prompt: number;
  output: number;
  batch: number;
  tp: number;
  precision: Precision;
  engine: ServeEngine;
  predictor: Predictor;
  prefill_ms: number; // an isolated batch's time to first token
  decode_ms_per_token: number;
  decode_ms_at: Record<string, number>; // tokens already cached -> one decode step's ms
  decode_total_ms: number;
  total_ms: number;
  tokens_per_s: number; // generated tokens per second during decode, whole batch
  comm_ms: number;
  comm_model?: string;
  kv_cache_bytes_per_token: number;
  memory: ServingMemory;
  max_batch: number;
  max_context: number;
  caveats: string[];
}

export interface Engine {
  readonly version: string;
  listGpus(): GpuSpec[];
  validateGpu(spec: unknown): GpuSpec;
  listModels(): ZooModel[];
  validateModel(config: unknown): Record<string, unknown>;
  forecastModel(request: ModelRequest): ModelForecast;
  forecastServing(request: ServingRequest): ServingForecast;
  forecastKernel(request: unknown): Record<string, unknown>;
  listSystems(): SystemSpec[];
  planParallel(request: PlanRequest): Plan;
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
