// Types for tilecast.js (the WebAssembly forecaster's JavaScript layer).
export class TilecastError extends Error {}

type Request = string | object;

export interface Tilecast {
  readonly version: string;
  listGpus(): any[];
  validateGpu(spec: Request): any;
  forecastKernel(request: Request): any;
  listModels(): any[];
  validateModel(config: Request): any;
  forecastModel(request: Request): any;
  listSystems(): any[];
  validateSystem(spec: Request): any;
  forecastCollective(request: Request): any;
  forecastServing(request: Request): any;
  planParallel(request: Request): any;
  planCapacity(request: Request): any;
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
  };
}

export function createTilecast(options?: Record<string, unknown>): Promise<Tilecast>;
