// The page's one update path: every change of state (the link's part and the
// page's own: searches, input errors, notices) goes through update(), which replaces
// the changed objects and schedules exactly one render for everything that changed
// in the same turn. Renders are pure functions of the state and the memo.
import type { App } from './app';
import { noteInput } from './jobs';
import type { State } from './state';
import type { OpsSort } from './operators_view';

// What the page shows beyond the link's state.
export interface Ui {
  gpuQuery: string;
  compareQuery: string;
  workloadError: string;
  batchInvalid: boolean;
  seqInvalid: boolean;
  sweepError: string; // the sweep size input's own error
  serveError: string; // the serve view's prompt, output or GPU count that cannot be read
  loadError: string; // the load sweep's rate, count, seed or SLO that cannot be read
  capacityError: string; // the capacity plan's rate, price or most GPUs that cannot be read
  comparePriceError: string; // a compared GPU's price per GPU-hour that cannot be read
  trainError: string; // a multi-GPU field (dp, tp, pp, micro-batches) that cannot be read
  finetuneError: string; // the LoRA rank that cannot be read
  planWanted: string; // the plan search asked for (plan_request.ts planKey), '' when none
  planMaxGpus: number; // the plan search's largest GPU count; 0: all the system holds
  customGpuError: string;
  configError: string; // the pasted or uploaded config's error
  sizesError: string; // the sizes form's (a size that cannot be read)
  opsSort: OpsSort; // the per-operator table's order
  notices: string[];
}

export const EMPTY_UI: Readonly<Ui> = Object.freeze({
  gpuQuery: '',
  compareQuery: '',
  workloadError: '',
  batchInvalid: false,
  seqInvalid: false,
  sweepError: '',
  serveError: '',
  loadError: '',
  capacityError: '',
  comparePriceError: '',
  trainError: '',
  finetuneError: '',
  planWanted: '',
  planMaxGpus: 0,
  customGpuError: '',
  configError: '',
  sizesError: '',
  opsSort: 'share',
  notices: [],
});

export type Patch = Partial<State> & { ui?: Partial<Ui> };

let app: App | null = null;
let renderPage: (app: App) => void = () => undefined;
let scheduled = false;

export function startStore(a: App, render: (app: App) => void): void {
  app = a;
  renderPage = render;
  render(a); // the first render, at once
}

// Applies a change. `typing`: it came from a keystroke, so heavy views (sweep,
// comparison) wait for input to settle before recomputing.
export function update(patch: Patch, typing = false): void {
  if (!app) throw new Error('update() before startStore()');
  const { ui, ...state } = patch;
  if (Object.keys(state).length) app.state = { ...app.state, ...state };
  if (ui) app.ui = { ...app.ui, ...ui };
  if (typing) noteInput();
  requestRender();
}

// Renders once, after the current task's updates (also called when background
// forecasts arrive).
export function requestRender(): void {
  if (scheduled || !app) return;
  scheduled = true;
  queueMicrotask(() => {
    scheduled = false;
    renderPage(app!);
  });
}
