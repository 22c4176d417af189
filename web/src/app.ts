// Shared application context: the engine, catalogs, state, and request building.
import type {
  Engine,
  FinetuneRequest,
  GpuSpec,
  ModelRequest,
  PlanRequest,
  ServingRequest,
  SystemSpec,
  ZooModel,
} from './engine';
import { CUSTOM, DEFAULT_STATE, SIZES, trainGpus, type State } from './state';
import type { Ui } from './store';

export interface App {
  engine: Engine;
  gpus: GpuSpec[];
  models: ZooModel[];
  systems: SystemSpec[];
  state: State; // replaced, never mutated, by store.update()
  ui: Ui;
}

export function gpuById(app: App, id: string): GpuSpec | undefined {
  return app.gpus.find((g) => g.id === id);
}

export function modelById(app: App, id: string): ZooModel | undefined {
  return app.models.find((m) => m.id === id);
}

export function systemById(app: App, id: string): SystemSpec | undefined {
  return app.systems.find((x) => x.id === id);
}

// The catalog system built from GPU `gpu` (holding `gpus` GPUs when given): the core's first choice
// when a request names no system (system_for_gpus, tilecast/parallel.hpp); without one the core
// builds a node of them from the GPU's catalog links.
export function catalogSystemFor(app: App, gpu: string, gpus?: number): SystemSpec | undefined {
  return app.systems.find((x) => x.gpu === gpu && (gpus === undefined || x.gpus_per_node * x.max_nodes >= gpus));
}

// True when the forecast view forecasts a multi-GPU training step.
export function isParallel(s: Readonly<State>): boolean {
  return s.mode === 'training' && trainGpus(s) > 1;
}

// The GPU as every request sends it (`g`, default the state's): a catalog id or the custom spec.
export function gpuField(s: Readonly<State>, g: string = s.gpu): string | GpuSpec {
  return g === CUSTOM && s.customGpu ? s.customGpu : g;
}

// What a plan search runs on: a catalog system, or (id '') the node the core builds from a
// catalog GPU's links when no catalog system holds it (plan_request.ts, planSystem).
export type PlanSystem = Pick<SystemSpec, 'id' | 'name' | 'gpus_per_node' | 'max_nodes'>;

// The fields both engines' plan searches ask with (plan_request.ts); no
// system for a built node: the core builds it from the GPU.
export function planRequestHead(app: App, system: PlanSystem, top: number): PlanRequest {
  const s = app.state;
  return {
    ...(system.id ? { system: system.id } : {}),
    model: modelField(s),
    gpu: gpuField(s),
    global_batch: s.batch,
    seq: s.seq,
    predictor: s.predictor,
    top,
  };
}

// The model as every request sends it: a zoo id, a pasted config, or {"sizes": {...}}.
export function modelField(s: Readonly<State>): string | Record<string, unknown> {
  if (s.model === CUSTOM && s.customModel) return s.customModel;
  if (s.model === SIZES && s.modelSizes) return { sizes: { ...s.modelSizes } };
  return s.model;
}

// The model forecast's request. Precision and torch.compile are sent only when not
// the default (a default request is the JSON it always was). `parallel`: the forecast
// view's own request, with the multi-GPU fields when training on more than one GPU
// (the eager comparison and sweep forecast one GPU each). The megatron engine's request
// always carries its layout (on one GPU too), in every view: the comparison forecasts each
// other GPU with the same layout on the catalog system built from that GPU (else a node of them
// built from its links: the core decides).
export function requestFor(app: App, gpu?: string, batch?: number, parallel = false): ModelRequest {
  const s = app.state;
  const g = gpu ?? s.gpu;
  const r: ModelRequest = {
    gpu: gpuField(s, g),
    model: modelField(s),
    batch: batch ?? s.batch,
    seq: s.seq,
    mode: s.mode,
    predictor: s.predictor,
  };
  if (s.forecastPrecision !== DEFAULT_STATE.forecastPrecision) r.precision = s.forecastPrecision;
  if (s.forecastEngine === 'compiled') r.engine = 'compiled';
  if (s.forecastEngine === 'megatron') {
    // Training only: an inference request carries the engine and gets the core's refusal.
    r.engine = 'megatron';
    r.precision = s.forecastPrecision; // the core's default is BF16, the page's FP32: always said
    if (s.mode !== 'training') return r;
    r.dp = s.dp;
    r.tp = s.trainTp;
    r.pp = s.pp;
    r.cp = s.cp;
    r.ep = s.ep;
    r.microbatches = s.microbatches;
    r.virtual_stages = s.virtualStages;
    r.sequence_parallel = s.sequenceParallel;
    if (s.attention !== DEFAULT_STATE.attention) r.attention = s.attention;
    r.recompute = s.recompute;
    r.distributed_optimizer = s.distributedOptimizer;
    r.overlap_grad_reduce = s.overlapGradReduce;
    if (s.system && g === s.gpu) r.system = s.system;
    if (s.tokens > 0) r.tokens = s.tokens;
    return r;
  }
  // LoRA / QLoRA: a training step's (the core refuses it with the parallel fields, and says so).
  const ft = finetuneField(s);
  if (ft) r.finetune = ft;
  if (masterWeightsApply(s) && s.masterWeights === 'half') r.master_weights = 'half';
  if (parallel && isParallel(s)) {
    r.dp = s.dp;
    r.tp = s.trainTp;
    r.pp = s.pp;
    r.microbatches = s.microbatches;
    r.zero = s.zero;
    r.recompute = s.recompute;
    r.schedule = s.schedule;
    if (s.system) r.system = s.system;
  }
  return r;
}

// Whether the master-weights choice applies: a full training step at bf16/fp16, eager or compiled,
// on one GPU (the core forecasts half master weights there only, and refuses them elsewhere).
export function masterWeightsApply(s: Readonly<State>): boolean {
  return (
    s.mode === 'training' &&
    (s.forecastPrecision === 'bf16' || s.forecastPrecision === 'fp16') &&
    s.forecastEngine !== 'megatron' &&
    s.finetune === 'full' &&
    !isParallel(s)
  );
}

// The request's finetune field: a training step with LoRA or QLoRA chosen (the megatron engine has
// none: the page hides the choice there and sends nothing), else undefined (full training).
export function finetuneField(s: Readonly<State>): FinetuneRequest | undefined {
  if (s.mode !== 'training' || s.finetune === 'full' || s.forecastEngine === 'megatron') return undefined;
  return { method: s.finetune, rank: s.loraRank, targets: s.loraTargets };
}

// The serve view's request; `vary` replaces fields (the charts' batch and context points).
export function servingRequestFor(
  app: App,
  vary: Partial<Pick<ServingRequest, 'batch' | 'prompt' | 'output'>> = {},
  tp = app.state.tp,
): ServingRequest {
  const s = app.state;
  return {
    gpu: gpuField(s),
    model: modelField(s),
    prompt: s.prompt,
    output: s.output,
    batch: s.batch,
    tp,
    precision: s.precision,
    engine: s.engine,
    predictor: s.predictor,
    ...(s.serveWeights !== 'checkpoint' && { weights: s.serveWeights }),
    ...(s.serveKvCache !== 'auto' && { kv_cache: s.serveKvCache }),
    ...vary,
  };
}

export function gpuLabel(app: App, gpu: string): string {
  if (gpu === CUSTOM) return app.state.customGpu?.name ?? 'Custom GPU';
  return gpuById(app, gpu)?.name ?? gpu;
}
