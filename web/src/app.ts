// Shared application context: the engine, catalogs, state, and request building.
import type { Engine, GpuSpec, ModelRequest, ServingRequest, ZooModel } from './engine';
import { CUSTOM, type State } from './state';
import type { Ui } from './store';

export interface App {
  engine: Engine;
  gpus: GpuSpec[];
  models: ZooModel[];
  state: State; // replaced, never mutated, by store.update()
  ui: Ui;
}

export function gpuById(app: App, id: string): GpuSpec | undefined {
  return app.gpus.find((g) => g.id === id);
}

export function modelById(app: App, id: string): ZooModel | undefined {
  return app.models.find((m) => m.id === id);
}

export function requestFor(app: App, gpu?: string, batch?: number): ModelRequest {
  const s = app.state;
  const g = gpu ?? s.gpu;
  return {
    gpu: g === CUSTOM && s.customGpu ? s.customGpu : g,
    model: s.model === CUSTOM && s.customModel ? s.customModel : s.model,
    batch: batch ?? s.batch,
    seq: s.seq,
    mode: s.mode,
    predictor: s.predictor,
  };
}

// The serve view's request; `vary` replaces fields (the charts' batch and context points).
export function servingRequestFor(app: App, vary: Partial<Pick<ServingRequest, 'batch' | 'prompt' | 'output'>> = {}): ServingRequest {
  const s = app.state;
  return {
    gpu: s.gpu === CUSTOM && s.customGpu ? s.customGpu : s.gpu,
    model: s.model === CUSTOM && s.customModel ? s.customModel : s.model,
    prompt: s.prompt,
    output: s.output,
    batch: s.batch,
    tp: s.tp,
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
