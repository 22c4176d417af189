// Shared application context: the engine, catalogs, state, and request building.
import type { Engine, GpuSpec, ModelRequest, ServingRequest, SystemSpec, ZooModel } from './engine';
import { CUSTOM, DEFAULT_STATE, trainGpus, type State } from './state';
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

// True when the forecast view forecasts a multi-GPU training step.
export function isParallel(s: Readonly<State>): boolean {
  return s.mode === 'training' && trainGpus(s) > 1;
}

// The model forecast's request. Precision and torch.compile are sent only when not
// the default (a default request is the JSON it always was). `parallel`: the forecast
// view's own request, with the multi-GPU fields when training on more than one GPU
// (the comparison and the sweep forecast one GPU each).
export function requestFor(app: App, gpu?: string, batch?: number, parallel = false): ModelRequest {
  const s = app.state;
  const g = gpu ?? s.gpu;
  const r: ModelRequest = {
    gpu: g === CUSTOM && s.customGpu ? s.customGpu : g,
    model: s.model === CUSTOM && s.customModel ? s.customModel : s.model,
    batch: batch ?? s.batch,
    seq: s.seq,
    mode: s.mode,
    predictor: s.predictor,
  };
  if (s.forecastPrecision !== DEFAULT_STATE.forecastPrecision) r.precision = s.forecastPrecision;
  if (s.compiled) r.engine = 'compiled';
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

// The serve view's request; `vary` replaces fields (the charts' batch and context points).
export function servingRequestFor(
  app: App,
  vary: Partial<Pick<ServingRequest, 'batch' | 'prompt' | 'output'>> = {},
  tp = app.state.tp,
): ServingRequest {
  const s = app.state;
  return {
    gpu: s.gpu === CUSTOM && s.customGpu ? s.customGpu : s.gpu,
    model: s.model === CUSTOM && s.customModel ? s.customModel : s.model,
    prompt: s.prompt,
    output: s.output,
    batch: s.batch,
    tp,
    precision: s.precision,
    engine: s.engine,
    predictor: s.predictor,
    ...vary,
  };
}

export function gpuLabel(app: App, gpu: string): string {
  if (gpu === CUSTOM) return app.state.customGpu?.name ?? 'Custom GPU';
  return gpuById(app, gpu)?.name ?? gpu;
}
