// The plan search's requests (docs/parallel.md "Plan"): the system it runs on, one planParallel
// request per GPU count (Megatron-Core's: one, of the GPUs it splits), their key and the bound's
// words. The GPUs box and the fit options need these on the landing view; the search and its table
// (plan_view.ts, megatron_plan_view.ts) load on demand (lazy.ts).
import {
  catalogSystemFor,
  finetuneField,
  gpuById,
  planRequestHead,
  systemById,
  type App,
  type PlanSystem,
} from './app';
import type { PlanRequest } from './engine';
import { CUSTOM, DEFAULT_STATE, isMegatronState, trainGpus } from './state';

// The fastest configurations a search keeps.
export const TOP = 10;

// The largest node the core builds from a GPU's links (kMaxBuiltNodeGpus,
// core/include/tilecast/system.hpp, which refuses a larger one by name); web/tests/calc.test.mjs
// plans on it.
const BUILT_NODE_GPUS = 8;

// The system plans run on: the chosen one, else the catalog's built from the GPU, else (a catalog
// GPU: each has its links) one node of them wired as its links say.
export function planSystem(app: App): PlanSystem | undefined {
  const s = app.state;
  if (s.system) return systemById(app, s.system);
  const gpu = s.gpu === CUSTOM ? undefined : gpuById(app, s.gpu);
  if (!gpu) return undefined;
  return (
    catalogSystemFor(app, gpu.id ?? '') ?? {
      id: '',
      name: `One node of up to ${BUILT_NODE_GPUS} ${gpu.name} wired as its catalog links say (no catalog system)`,
      gpus_per_node: BUILT_NODE_GPUS,
      max_nodes: 1,
    }
  );
}

// One request per GPU count; [] with a reason when there is no system to plan on.
export function planRequests(app: App): { requests: PlanRequest[]; why: string } {
  const s = app.state;
  const system = planSystem(app);
  if (!system)
    return { requests: [], why: 'A custom GPU has no catalog system or links: choose a system above to plan on.' };
  if (isMegatronState(s)) return { requests: [megatronPlanRequest(app, system, TOP)], why: '' }; // one GPU count
  if (finetuneField(s))
    return {
      requests: [],
      why: 'LoRA and QLoRA are forecast on one GPU (the plan search ranks full training across GPUs): try QLoRA, a smaller batch or a GPU with more memory.',
    };
  const base: PlanRequest = planRequestHead(app, system, TOP);
  // The search trains every configuration in the forecast's precision (autocast when 16-bit).
  if (s.forecastPrecision !== 'fp32') base.precision = s.forecastPrecision;
  const requests: PlanRequest[] = [];
  for (let g = 1; g <= planBound(app, system); g *= 2) requests.push({ ...base, gpus: g });
  return { requests, why: '' };
}

// GPUs the system holds: nodes x GPUs per node.
export function systemGpus(system: PlanSystem): number {
  return Math.max(1, system.gpus_per_node) * Math.max(1, system.max_nodes);
}

// The search's largest GPU count: the user's bound, never more than the system holds; by
// default one node (as `tilecast plan`): a count's search takes up to a few seconds in
// WebAssembly for hundreds of GPUs, so larger searches are asked for.
export function planBound(app: App, system: PlanSystem): number {
  const all = systemGpus(system);
  return Math.min(all, app.ui.planMaxGpus > 0 ? app.ui.planMaxGpus : Math.max(1, system.gpus_per_node));
}

export function planKey(requests: PlanRequest[]): string {
  return requests.map((r) => JSON.stringify(r)).join('\n');
}

// The GPUs the search splits: the plan field's count, else the layout's in the GPUs box.
function megatronPlanGpus(app: App): number {
  return app.ui.planMaxGpus > 0 ? app.ui.planMaxGpus : trainGpus(app.state);
}

function megatronPlanRequest(app: App, system: PlanSystem, top: number): PlanRequest {
  const s = app.state;
  const r: PlanRequest = {
    ...planRequestHead(app, system, top),
    engine: 'megatron',
    precision: s.forecastPrecision, // the core's default is BF16, the page's FP32: always said
    gpus: megatronPlanGpus(app),
  };
  if (s.attention !== DEFAULT_STATE.attention) r.attention = s.attention;
  return r;
}

export function megatronPlanNote(app: App, system: PlanSystem, all: number): string {
  const n = megatronPlanGpus(app);
  const own = app.ui.planMaxGpus > 0 ? 'the count in the field' : "the layout's count above, the field being empty";
  return `Megatron-Core: the search splits ${n.toLocaleString('en-US')} GPUs (${own}) into data × tensor × pipeline × context parallelism (× expert for a mixture of experts), virtual stages, micro-batch size, recomputation and sequence parallelism; ${system.name} holds ${all.toLocaleString('en-US')}.`;
}
