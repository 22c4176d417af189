// Types for tilecast.js (the WebAssembly forecaster's JavaScript layer). The answers' types are
// generated from core/schema/ into tilecast_api.d.ts (web/scripts/gen_api_types.mjs).
import type { TilecastResponses } from './tilecast_api';

export type * from './tilecast_api';

export class TilecastError extends Error {
  // The learned model the call needs and the build does not embed (models/<id>.json: loadModel).
  readonly missingModel?: string;
  // 'deferred' when the call needed the deferred part (tilecast_wasm.deferred.wasm) and it could
  // not be loaded (the page's own thread before its bytes were given, or offline before it was
  // fetched).
  readonly missingModule?: 'deferred';
}

type Request = string | object;
type Answer<K extends keyof TilecastResponses> = TilecastResponses[K];

export interface Tilecast {
  readonly version: string;
  // Whether the deferred part is loaded (the first call reaching its code loads it), and its URL
  // (for a front end that fetches it ahead, e.g. to keep it for offline use).
  readonly deferredLoaded: boolean;
  readonly deferredUrl: string;
  // The deferred part's bytes, fetched from deferredUrl: kept until a call needs that part (how a
  // browser page's own thread, which cannot fetch synchronously, loads it).
  provideDeferred(bytes: ArrayBuffer | Uint8Array): void;
  listGpus(): Answer<'listGpus'>;
  validateGpu(spec: Request): Answer<'validateGpu'>;
  forecastKernel(request: Request): Answer<'forecastKernel'>;
  listModels(): Answer<'listModels'>;
  validateModel(config: Request): Answer<'validateModel'>;
  forecastModel(request: Request): Answer<'forecastModel'>;
  listSystems(): Answer<'listSystems'>;
  validateSystem(spec: Request): Answer<'validateSystem'>;
  forecastCollective(request: Request): Answer<'forecastCollective'>;
  forecastServing(request: Request): Answer<'forecastServing'>;
  planParallel(request: Request): Answer<'planParallel'>;
  planCapacity(request: Request): Answer<'planCapacity'>;
  // The text of models/<id>.json (or the same object): a model the build does not embed.
  loadModel(request: Request): Answer<'loadModel'>;
  // The same calls returning the JSON text exactly as the core wrote it.
  readonly text: {
    listGpus(): string;
    validateGpu(spec: Request): string;
    forecastKernel(request: Request): string;
    listModels(): string;
    validateModel(config: Request): string;
    forecastModel(request: Request): string;
    listSystems(): string;
    validateSystem(spec: Request): string;
    forecastCollective(request: Request): string;
    forecastServing(request: Request): string;
    planParallel(request: Request): string;
    planCapacity(request: Request): string;
    loadModel(request: Request): string;
  };
}

export function createTilecast(options?: Record<string, unknown>): Promise<Tilecast>;
