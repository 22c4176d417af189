// The page's one render: everything on screen from the state (app.state, app.ui)
// and the memo. A section is redrawn only when what it shows changed, so a render
// after a keystroke costs a few text updates. Every view shows what the memo has and asks
// jobs.ts for the rest (computed on the forecaster's own thread); it is drawn again when
// those arrive. Until the card's forecast arrives the last one stays on screen. The views the
// landing view does not draw are loaded on their first showing (lazy.ts).
import {
  catalogSystemFor,
  finetuneField,
  gpuLabel,
  masterWeightsApply,
  modelById,
  requestFor,
  servingRequestFor,
  systemById,
  type App,
} from './app';
import { TARGET_WORDS } from './finetune_view';
import { renderOperatorsAfterFrame } from './operators_view';
import { applyFit, forecastFit, renderFit, serveFit, type FitState } from './fit';
import { byId, clear, h, setText } from './dom';
import { showControls } from './controls';
import { fmtRate } from './format';
import { cancel, fill, fillTasks, jobMs } from './jobs';
import {
  capacityView,
  compareServe,
  compareView,
  lazyError,
  linkCodec,
  loadView,
  planView,
  serveView,
  sweepView,
} from './lazy';
import { syncLink } from './link';
import {
  capacityKey,
  capacityTask,
  forecastShown,
  forecastTask,
  loadKey,
  loadTask,
  peek,
  peekCapacity,
  peekLoad,
  peekServing,
  requestKey,
  servingKey,
  servingTask,
  type CapacityResult,
  type LoadResult,
  type Result,
  type ServeResult,
} from './memo';
import { customModelName, fillGpuSelect, fillModelSelect, showGpuInfo, showModelInfo } from './pickers';
import { CUSTOM, SIZES, VIEWS, isMegatronState, trainGpus, type State, type View } from './state';
import { megatronPlanNote, planBound, planKey, planRequests, planSystem, systemGpus } from './plan_request';
import type { MegatronPlanEntry, PlanEntry, PlanRequest, ServingForecast } from './engine';
import { requestRender, update } from './store';
import { forecastTitle, renderForecast } from './views';
import type { LoadPoint } from './load_view';
import type { ServePoints } from './serve_view';

// The modules of the views the landing view does not draw, loaded on demand (lazy.ts): until one
// is in, its section shows what it shows while waiting for its forecasts.
type CapacityView = typeof import('./capacity_view');
type PlanView = typeof import('./plan_view');
type ServeView = typeof import('./serve_view');

// ---- sections --------------------------------------------------------------

const seen = new Map<string, unknown[]>();

// True (and remembered) when a section's inputs differ from its last drawing.
function changed(section: string, deps: unknown[]): boolean {
  const prev = seen.get(section);
  if (prev && prev.length === deps.length && prev.every((d, i) => d === deps[i])) return false;
  seen.set(section, deps);
  return true;
}

function text(id: string, value: string): void {
  if (changed(`text:${id}`, [value])) setText(byId(id), value);
}

// lastForecastMs: the last card's wait, from its render asking to its drawing.
export const renderStats = { renders: 0, forecasts: 0, lastForecastMs: 0 };
let askedAt = 0; // when the card's request was first rendered without its answer

export function render(app: App): void {
  const { state: s, ui } = app;
  renderStats.renders += 1;

  if (changed('view', [s.view, s.compareServing])) showView(app, s.view);
  if (changed('gpu-picker', [ui.gpuQuery, s.gpu, s.customGpu])) {
    fillGpuSelect(app, ui.gpuQuery);
    showGpuInfo(app);
  }
  if (changed('model-picker', [s.model, s.customModel, s.modelSizes])) {
    fillModelSelect(app);
    showModelInfo(app);
  }
  showControls(s, changed);
  if (changed('mode', [s.mode])) {
    for (const r of document.querySelectorAll<HTMLInputElement>('input[name="mode"]')) r.checked = r.value === s.mode;
    setText(byId('seq-label'), s.mode === 'decode' ? 'Tokens in the KV cache' : 'Sequence length');
  }
  if (changed('workload-marks', [ui.batchInvalid, ui.seqInvalid])) {
    byId('batch').setAttribute('aria-invalid', String(ui.batchInvalid));
    byId('seq').setAttribute('aria-invalid', String(ui.seqInvalid));
  }
  text('workload-error', ui.workloadError);
  text('custom-gpu-error', ui.customGpuError);
  text('serve-input-error', ui.serveError);
  const mega = isMegatronState(s);
  if (changed('forecast-options', [s.zero, s.system])) {
    byId<HTMLSelectElement>('zero').value = String(s.zero);
    byId<HTMLSelectElement>('train-system').value = s.system;
  }
  // LoRA / QLoRA: a training step's choice, in every view that forecasts one (not Megatron-Core's).
  const serving = s.view === 'serve' || (s.view === 'compare' && s.compareServing);
  const weightsShown = !serving && masterWeightsApply(s);
  if (changed('master-weights-fields', [weightsShown])) byId('master-weights-fields').hidden = !weightsShown;
  if (changed('finetune-fields', [serving, s.mode, mega, s.finetune])) {
    byId('finetune-fields').hidden = serving || s.mode !== 'training' || mega;
    byId('lora-fields').hidden = s.finetune === 'full';
  }
  text('finetune-note', finetuneNote(s));
  text('finetune-error', ui.finetuneError);
  // The GPUs box: the forecast view's training step; with Megatron-Core also the comparison's
  // and the sweep's (they forecast its layout). Its own fields shown, the eager engine's
  // ZeRO and schedule hidden (the core refuses them for this engine); the plan search its own.
  if (changed('train-inputs', [s.view, s.mode, mega])) {
    byId('train-inputs').hidden =
      s.mode !== 'training' || !(s.view === 'forecast' || (mega && (s.view === 'compare' || s.view === 'sweep')));
    byId('megatron-fields').hidden = !mega;
    byId('zero-field').hidden = mega;
    byId('schedule-field').hidden = mega;
    setText(byId('plan-max-label'), mega ? 'Plans: split this many GPUs' : 'Plans: search up to this many GPUs');
  }
  text('feng-note', engineNote(s));
  text('compare-engine-note', mega ? compareEngineNote(app) : '');
  text('sweep-engine-note', mega ? sweepEngineNote(s) : '');
  text('train-gpus-note', trainNote(app));
  text('train-input-error', ui.trainError);
  text('plan-max-note', planNote(app));

  // The serve view forecasts serving only; the other views the model forecast.
  let title: string | null = null;
  let shownResult: unknown = null;
  if (s.view === 'serve') {
    const shown = showServe(app);
    if (!shown) {
      showOthers(app);
      return;
    }
    title = shown.title;
    shownResult = shown.r;
  } else {
    cancel('serve');
    cancel('load');
    if (!(s.view === 'compare' && s.compareServing)) cancel('capacity'); // (a comparison's plans: showCompare)
    // The forecast view's own request carries the multi-GPU fields; the comparison
    // and the sweep forecast one GPU each.
    const request = requestFor(app, undefined, undefined, s.view === 'forecast');
    const shown = forecastShown(request);
    const main = shown.r;
    busy('forecast-body', !main);
    if (!main) {
      // On the forecaster's thread at once; drawn when it arrives.
      askedAt ||= performance.now();
      fill('card', requestKey(request), shown.pending, false, requestRender);
      showOthers(app);
      return;
    }
    if (changed('forecast', [main])) showForecast(main, pastedName(app));
    // The per-operator bound analysis of a one-GPU forecast (a multi-GPU step has none).
    if (main.ok && changed('operators', [main, ui.opsSort]))
      renderOperatorsAfterFrame('operators' in main.f ? main.f.operators : undefined, ui.opsSort);
    // Not fitting in memory is a state of the cards, with what would fit beside them.
    if (main.ok && changed('fc-fit', [main, s.forecastPrecision, s.system, s.batch, s.seq, fitRound]))
      showFit('fc', forecastFit(app, main.f));
    // A forecast counts once, not again when a multi-GPU step's roofline arrives.
    if (changed('forecast-count', [shown.key])) countForecast();
    // That roofline step: a job once input settles (it would double the input path).
    if (shown.pending.length) fill('roofline', requestKey(shown.pending[0]), shown.pending, false, requestRender);
    // A batch size or sequence length that cannot be read leaves the last forecast
    // on screen, dimmed, saying why it was not updated.
    const why =
      ui.workloadError ||
      (s.view === 'forecast' && s.mode === 'training' ? ui.trainError : '') ||
      (finetuneField(s) ? ui.finetuneError : '');
    // An input that cannot be read explains the dimmed forecast alone: no older error beside it.
    text('forecast-error', why || main.ok ? '' : `No forecast: ${main.error}`);
    if (changed('stale', [main.ok, why])) {
      byId('forecast-body').classList.toggle('stale', !main.ok || why !== '');
      text('stale-note', why ? `Not updated: ${lowerFirst(why)}` : '');
    }
    // A config that parses but cannot be forecast says why beside the config box.
    text('model-config-error', ui.configError || (s.model === CUSTOM && !main.ok ? `No forecast: ${main.error}` : ''));
    text('sizes-error', ui.sizesError || (s.model === SIZES && !main.ok ? `No forecast: ${main.error}` : ''));
    title = main.ok ? forecastTitle(main.f, pastedName(app)) : null;
    shownResult = main;
  }
  // The link follows the card on screen (its title is the forecast's).
  // (A custom GPU or config is packed by code loaded on demand: its arrival writes the link.)
  if (changed('link', [s, shownResult, linkCodec.ready()])) syncLink(s, app.engine.version, title);
  showOthers(app);
  cardShown();
}

// "Batch size must…" → "batch size must…" after "Not updated: "; an acronym ("LoRA rank") kept.
function lowerFirst(text: string): string {
  return text.replace(/^[A-Z](?=[a-z]*\b)/, (c) => c.toLowerCase());
}

// The parts beside the card: plans, comparison, sweep, notices.
function showOthers(app: App): void {
  const { state: s, ui } = app;
  // The plans: the eager engine's search, or Megatron-Core's (megatron_plan_view.ts).
  const plans = s.view === 'forecast' && s.mode === 'training' && ui.planWanted !== '';
  if (plans) showPlans(app);
  else cancel('plan');
  if (changed('plan-panel', [plans])) byId('plan-panel').hidden = !plans;

  if (s.view === 'compare') showCompare(app);
  else cancel('compare');
  if (s.view === 'sweep') showSweep(app);
  else cancel('sweep');
  if (changed('notices', [ui.notices])) showNotices(ui.notices);
}

// A card waiting for its forecast says so (aria-busy; style.css dims it if the wait is long).
function busy(id: string, on: boolean): void {
  if (changed(`busy:${id}`, [on])) byId(id).setAttribute('aria-busy', String(on));
}

// Resolves when the first card (a forecast or its error) is on screen.
let firstCard: () => void = () => undefined;
export const firstCardShown = new Promise<void>((resolve) => (firstCard = resolve));
function cardShown(): void {
  firstCard();
}

// What the GPU fields make: "8 GPUs: data 2 × tensor 2 × pipeline 2 on DGX H100".
function trainNote(app: App): string {
  const s: State = app.state;
  const n = trainGpus(s);
  const system = s.system
    ? (systemById(app, s.system)?.name ?? s.system)
    : (catalogSystemFor(app, s.gpu, n)?.name ??
      (s.gpu === CUSTOM ? 'the System field’s choice' : 'one node of them built from the GPU’s catalog links'));
  if (isMegatronState(s))
    return `${n === 1 ? 'One GPU' : `${n} GPUs`}: data ${s.dp} × tensor ${s.trainTp} × pipeline ${s.pp} × context ${s.cp}${s.ep > 1 ? `, the experts over ${s.ep} of the data-parallel ranks` : ''}, on ${system}; the batch is the global batch, ${s.dp} × ${s.microbatches} micro-batches of batch / ${s.dp * s.microbatches}.`;
  if (n === 1) return 'One GPU: the single-GPU forecast. More than one makes the step a multi-GPU one.';
  return `${n} GPUs: data ${s.dp} × tensor ${s.trainTp} × pipeline ${s.pp}, on ${system}.`;
}

// What the fine-tuning choice forecasts, beside it.
function finetuneNote(s: State): string {
  if (s.finetune === 'full') return '';
  const what =
    s.finetune === 'qlora'
      ? "The blocks' linear weights stored in 4-bit NF4 and dequantized before each GEMM, frozen; only the adapters train."
      : 'The base weights frozen (no weight gradients or optimizer states for them); only the adapters train.';
  const adapters = `${what} Rank-${s.loraRank} adapters on ${TARGET_WORDS[s.loraTargets]}.`;
  return trainGpus(s) > 1
    ? `${adapters} Forecast on one GPU: set the GPUs box to 1 GPU (data, tensor and pipeline parallel 1).`
    : adapters;
}

// The engine's scope beside its choice.
function engineNote(s: State): string {
  if (s.forecastEngine !== 'megatron') return '';
  if (s.mode !== 'training') return 'Megatron-Core forecasts training steps: choose Training step.';
  return 'A training step as Megatron-Core with TransformerEngine runs it (FlashAttention, fused kernels, the optimizer step); its layout is in the GPUs box.';
}

// The comparison and the sweep with Megatron-Core: what they forecast, said on the page.
function compareEngineNote(app: App): string {
  const s = app.state;
  const sys = s.system ? `${systemById(app, s.system)?.name ?? s.system} for the selected GPU, ` : '';
  return `Megatron-Core: each GPU forecast as the same ${trainGpus(s)}-GPU training step (data ${s.dp} × tensor ${s.trainTp} × pipeline ${s.pp} × context ${s.cp}${s.ep > 1 ? `, expert ${s.ep}` : ''}, the GPUs box), on ${sys}the catalog system built from each${s.system ? ' other' : ''} GPU (else a node built from its links). MFU stands where the roofline does.`;
}

function sweepEngineNote(s: State): string {
  const step = s.dp * s.microbatches;
  return `Megatron-Core: the global batch in steps of data-parallel ${s.dp} × ${s.microbatches} micro-batches = ${step} (micro-batch size 1 to the largest size below), the GPUs box's layout.`;
}

function planTotal(app: App): number {
  const system = planSystem(app);
  return system ? systemGpus(system) : 0;
}

// What the plan search's bound means on the chosen system.
function planNote(app: App): string {
  const system = planSystem(app);
  if (!system) return '';
  const all = systemGpus(system);
  if (isMegatronState(app.state)) return megatronPlanNote(app, system, all);
  const bound = planBound(app, system);
  return `${system.name} holds ${all.toLocaleString('en-US')} GPUs (${system.max_nodes} nodes × ${system.gpus_per_node}); the search tries 1, 2, 4, … up to ${bound.toLocaleString('en-US')}${app.ui.planMaxGpus > 0 ? '' : ' (empty field: one node)'}.`;
}

// Bumped when the forecasts a fit option waited for arrive (a job, once input settles).
let fitRound = 0;

function showFit(prefix: 'fc' | 'serve', fit: FitState): void {
  renderFit(prefix, fit, (o) => applyFit(o, update));
  const tasks = [...fit.pending.map(forecastTask), ...fit.pendingServing.map(servingTask)];
  if (!tasks.length) return;
  const key = [...fit.pending.map(requestKey), ...fit.pendingServing.map(servingKey)].join('\n');
  fillTasks('fit', key, tasks, () => {
    fitRound += 1;
    requestRender();
  });
}

function pastedName(app: App): string {
  return app.state.model === CUSTOM && app.state.customModel ? customModelName(app) : '';
}

function countForecast(): void {
  renderStats.forecasts += 1;
  renderStats.lastForecastMs = askedAt ? performance.now() - askedAt : 0;
  askedAt = 0;
  document.documentElement.dataset.forecasts = String(renderStats.forecasts);
}

const SHARE_LABEL: Record<View, string> = {
  forecast: 'Link to this forecast',
  serve: 'Link to this forecast',
  compare: 'Link to this comparison',
  sweep: 'Link to this sweep',
  accuracy: '',
};

function showView(app: App, view: View): void {
  for (const v of VIEWS) {
    const on = v === view;
    const tab = byId(`tab-${v}`);
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    byId(`view-${v}`).hidden = !on;
  }
  // The accuracy page does not use the inputs: it gets the whole width.
  byId('inputs').hidden = view === 'accuracy';
  // The serve view has its own workload: prompt, output, precision, engine (the
  // batch size and forecaster are shared); the share box serves both forecasts.
  // The serving comparison takes the serve view's workload.
  const serving = view === 'serve' || (view === 'compare' && app.state.compareServing);
  byId<HTMLSelectElement>('compare-what').value = app.state.compareServing ? 'serving' : 'forecast';
  byId('serve-inputs').hidden = !serving;
  byId('mode-field').hidden = serving;
  byId('forecast-options').hidden = serving;
  byId('seq-field').hidden = serving;
  // Every view but the accuracy page shares its link; the exports are of the forecast, the
  // comparison (model or serving forecasts) or the sweep on screen (export_view.ts).
  byId('share-panel').hidden = view === 'accuracy';
  byId('exports').hidden = view === 'serve';
  setText(byId('share-link-label'), SHARE_LABEL[view]);
  document.querySelector('.layout')?.classList.toggle('wide', view === 'accuracy');
  if (view === 'sweep') byId<HTMLInputElement>('sweep-max').value = String(app.state.sweepMax);
  if (view === 'accuracy') showAccuracy();
}

// The accuracy page's code loads on its first showing (boot.ts fetches it after the first
// forecast, for offline use): not in the first forecast's bytes.
function showAccuracy(): void {
  import('./accuracy').then(
    (m) => m.renderAccuracy(),
    (e: unknown) =>
      setText(
        byId('accuracy-status'),
        `The accuracy page could not be loaded (${e instanceof Error ? e.message : String(e)}); reload the page to try again.`,
      ),
  );
}

// An error leaves the last forecast on screen, dimmed (see 'stale' in render).
function showForecast(r: Result, pasted: string): void {
  if (r.ok) renderForecast(r.f, pasted);
}

function showNotices(lines: string[]): void {
  const box = byId('notice');
  clear(box);
  box.hidden = !lines.length;
  if (!lines.length) return;
  const dismiss = h(
    'button',
    { type: 'button', class: 'secondary small', 'aria-label': 'Dismiss this notice' },
    'Dismiss',
  );
  dismiss.addEventListener('click', () => update({ ui: { notices: [] } }));
  box.append(h('ul', {}, ...lines.map((l) => h('li', {}, l))), dismiss);
}

// ---- serve -----------------------------------------------------------------

let shownServeCharts = ''; // the key of the charts on screen, complete

// The serving forecast (the card's job, memoised), then the charts' forecasts as a
// background job. Undefined until it arrives, and the view's code with it (its panels' code
// loads beside it); then the forecast and the card's title.
function showServe(app: App): { r: ServeResult; title: string | null } | undefined {
  const { state: s, ui } = app;
  const sv = serveView();
  loadView();
  capacityView();
  const request = servingRequestFor(app);
  const r = peekServing(request);
  busy('serve-body', !r || !sv);
  if (!r || !sv) {
    askedAt ||= performance.now();
    if (!r) fillTasks('card', servingKey(request), [servingTask(request)], requestRender);
    const why = lazyError(serveView, 'The serve view');
    if (why) setText(byId('serve-error'), why);
    return undefined;
  }
  if (changed('serve', [r])) {
    if (r.ok) {
      setText(byId('serve-error'), '');
      sv.renderServe(r.f);
    } else {
      sv.showServeError(r, s.model === CUSTOM ? undefined : modelById(app, s.model));
    }
    countForecast();
  }
  if (r.ok && changed('serve-fit', [r, s.tp, s.precision, fitRound])) showFit('serve', serveFit(app, r.f));
  // The first decode step's operators (the fused engine's; none for the eager engine).
  if (r.ok && changed('serve-operators', [r, ui.opsSort]))
    renderOperatorsAfterFrame(r.f.decode_operators, ui.opsSort, {
      prefix: 'serve-',
      step_ms: firstDecodeStep(r.f),
      tp: r.f.tp,
    });
  const stale = !r.ok || ui.serveError !== '' || ui.workloadError !== '';
  const why = ui.serveError || ui.workloadError;
  if (changed('serve-stale', [stale, why])) {
    byId('serve-body').classList.toggle('stale', stale);
    text('serve-stale-note', why ? `Not updated: ${lowerFirst(why)}` : '');
  }
  text('model-config-error', ui.configError || (s.model === CUSTOM && !r.ok ? `No serving forecast: ${r.error}` : ''));
  if (r.ok) {
    showServeCharts(app, r.f, sv);
    showLoad(app, r.f);
  } else {
    cancel('serve');
    cancel('load');
  }
  // A model that does not fit one GPU may still be planned on several.
  showCapacity(app);
  return { r, title: r.ok ? sv.serveTitle(r.f) : null };
}

// decode_ms_at's first point: the step with the fewest tokens cached (the prompt's).
function firstDecodeStep(f: ServingForecast): number {
  const counts = Object.keys(f.decode_ms_at).map(Number);
  return f.decode_ms_at[String(Math.min(...counts))] ?? f.decode_ms_per_token;
}

function showServeCharts(app: App, f: ServingForecast, sv: ServeView): void {
  const base = servingRequestFor(app);
  const batches = sv.chartBatches(f);
  const contexts = sv.chartContexts(f);
  const batchRequests = batches.map((b) => ({ ...base, batch: b }));
  const contextRequests = contexts.map((c) => sv.contextRequest(base, c));
  const all = [...batchRequests, ...contextRequests];
  const key = all.map((r) => servingKey(r)).join('\n');
  if (key === shownServeCharts) return;
  const results = all.map((r) => peekServing(r));
  if (results.some((r) => !r)) {
    text('serve-status', `Forecasting ${results.filter((r) => !r).length} of ${all.length} points for the charts…`);
    fillTasks('serve', key, all.map(servingTask), requestRender);
    return;
  }
  const points: ServePoints = { batch: [], context: [] };
  const failed: string[] = [];
  results.forEach((r, i) => {
    if (!r!.ok) {
      failed.push(r!.error);
      return;
    }
    const g = r!.f;
    if (i < batchRequests.length) points.batch.push({ x: g.batch, tokens_per_s: g.tokens_per_s, fits: g.memory.fits });
    else
      points.context.push({
        x: g.prompt,
        decode_ms: g.decode_ms_at[String(g.prompt)] ?? g.decode_ms_per_token,
        beyond: sv.beyondPositions(g),
      });
  });
  sv.renderServeCharts(points);
  shownServeCharts = key;
  const ms = jobMs(key);
  const done = `${points.batch.length + points.context.length} serving forecasts${ms === undefined ? '' : ` in ${Math.round(ms)} ms`}`;
  text('serve-status', failed.length ? `${done}; ${failed.length} could not be forecast: ${failed[0]}` : `${done}.`);
  byId('serve-status').dataset.points = String(points.batch.length + points.context.length);
}

// ---- under load ------------------------------------------------------------

// The load sweep: its largest rate (the user's, or from a static forecast at the largest batch:
// a job of one forecast first), then one simulation per rate, a job off the input path with
// progress between rates. The SLO is checked here, not sent: changing it redraws at once.
function showLoad(app: App, f: ServingForecast): void {
  const { state: s, ui } = app;
  text('load-error', ui.loadError);
  if (changed('load-stale', [ui.loadError])) byId('load-panel').classList.toggle('stale', ui.loadError !== '');
  const lv = loadView();
  if (!lv) {
    busy('load-panel', true);
    text('load-status', lazyError(loadView, 'The load sweep') || 'Loading the load sweep…');
    return;
  }
  const { autoMaxQps, capacityRequest, clearLoad, loadCommand, loadPoint, loadRates, loadRequestFor } = lv;
  const qpsInput = byId<HTMLInputElement>('load-qps');
  let maxQps = s.loadMaxQps;
  if (maxQps === 0) {
    const capRequest = capacityRequest(app, f);
    const cap = capRequest.batch === f.batch ? { ok: true as const, f } : peekServing(capRequest);
    if (!cap) {
      busy('load-panel', true);
      text('load-status', 'Forecasting the largest batch to choose the request rates…');
      fillTasks('load', `cap|${servingKey(capRequest)}`, [servingTask(capRequest)], requestRender);
      return;
    }
    // Under expert parallelism the replica's GPUs each serve their own requests: loadEp times one's.
    maxQps = autoMaxQps(cap.ok ? cap.f : f, s.loadEp);
    if (changed('load-auto', [maxQps])) qpsInput.placeholder = `auto: ${maxQps}`;
  }
  const rates = loadRates(maxQps, s.loadPoints);
  const requests = rates.map((q) => loadRequestFor(app, q));
  const key = requests.map((r) => loadKey(r)).join('\n');
  const results: LoadResult[] = [];
  for (const r of requests) {
    const known = peekLoad(r);
    if (!known) break;
    results.push(known);
    if (!known.ok) break;
  }
  const failed = results.find((r) => !r.ok);
  busy('load-panel', !failed && results.length < requests.length);
  if (!failed && results.length < requests.length) {
    const status = byId('load-status');
    delete status.dataset.points;
    text(
      'load-status',
      `Simulating ${s.loadRequests.toLocaleString('en-US')} requests at each of ${rates.length} rates up to ${maxQps} requests/s: ${results.length} of ${rates.length} done…`,
    );
    fillTasks('load', key, requests.map(loadTask), requestRender, { stopOnError: true, each: requestRender });
    return;
  }
  if (failed && !failed.ok) {
    if (changed('load-draw', [key, 'error'])) clearLoad();
    text('load-status', `No simulation: ${failed.error}`);
    byId('load-status').dataset.points = '0';
    return;
  }
  const slo = { ttftMs: s.sloTtftMs, tpotMs: s.sloTpotMs };
  if (!changed('load-draw', [key, slo.ttftMs, slo.tpotMs])) return;
  const points: LoadPoint[] = results.map((r, i) => loadPoint(rates[i], (r as LoadResult & { ok: true }).f));
  const first = (results[0] as LoadResult & { ok: true }).f;
  lv.renderLoad(points, slo, first.ep ?? 1);
  lv.renderLoadAssumptions(first, loadCommand(requests[0]));
  const ms = jobMs(key);
  text(
    'load-status',
    `${points.length} rates, ${(points.length * s.loadRequests).toLocaleString('en-US')} requests simulated${ms === undefined ? '' : ` in ${Math.round(ms)} ms`}.`,
  );
  byId('load-status').dataset.points = String(points.length);
}

// ---- capacity plan ---------------------------------------------------------

// The capacity plan at the typed rate (capacity_view.ts): one core call running its simulations,
// a job off the input path, drawn when its answer is in. Nothing asked (no rate) or the eager
// engine (the plan simulates the fused one): a sentence saying so, no job.
function showCapacity(app: App): void {
  const { state: s, ui } = app;
  text('capacity-error', ui.capacityError);
  if (changed('capacity-stale', [ui.capacityError]))
    byId('capacity-panel').classList.toggle('stale', ui.capacityError !== '');
  const status = byId('capacity-status');
  const cv = capacityView();
  if (!cv) {
    busy('capacity-panel', true);
    text('capacity-status', lazyError(capacityView, 'The capacity plan') || 'Loading the capacity plan…');
    return;
  }
  const { capacityCommand, capacityIdle, capacityPlanRequest, clearCapacity, renderCapacity } = cv;
  const idle = capacityIdle(s);
  if (idle) {
    cancel('capacity');
    busy('capacity-panel', false);
    if (changed('capacity-draw', ['idle'])) clearCapacity();
    text('capacity-status', idle);
    status.dataset.done = 'idle';
    return;
  }
  const request = capacityPlanRequest(app);
  const key = capacityKey(request);
  const r = peekCapacity(request, key);
  busy('capacity-panel', !r);
  if (!r) {
    delete status.dataset.done;
    text(
      'capacity-status',
      `Planning GPUs for ${fmtRate(s.capacityQps)} requests/s: simulating each tensor-parallel size's replicas…`,
    );
    fillTasks('capacity', key, [capacityTask(request)], requestRender);
    return;
  }
  if (!changed('capacity-draw', [key, r])) return;
  if (!r.ok) {
    clearCapacity();
    text('capacity-status', `No plan: ${r.error}`);
    status.dataset.done = 'error';
    return;
  }
  renderCapacity(app, r.f, capacityCommand(request));
  const ms = jobMs(key);
  text('capacity-status', `${r.f.simulations} simulations${ms === undefined ? '' : ` in ${Math.round(ms)} ms`}.`);
  status.dataset.done = 'plan';
}

// ---- plans -----------------------------------------------------------------

// The plans asked for (ui.planWanted, set by the button): every GPU count's search,
// a job off the input path, one count per slice; progress between them.
function showPlans(app: App): void {
  const key = app.ui.planWanted;
  if (key.startsWith('!')) {
    text('plan-status', key.slice(1)); // no system to plan on: why
    return;
  }
  const pv = planView();
  if (!pv) {
    text('plan-status', lazyError(planView, 'The plan search') || 'Loading the plan search…');
    return;
  }
  const { cancelPlanSearch, peekPlan, planProgress, planSearchRunning, renderPlans, searchPlans } = pv;
  const requests = key.split('\n').map((line) => JSON.parse(line) as PlanRequest);
  const results = requests.map((r) => peekPlan(r));
  const stale = planKey(planRequests(app).requests) !== key;
  text('plan-stale', stale ? 'These plans are for earlier inputs; press the button again for the current ones.' : '');
  if (results.every((r) => r)) {
    if (changed('plans', [key, ...results]))
      renderPlans(
        results.map((r) => r!),
        (e) => usePlan(pv, e),
        requests.reduce((n, r) => Math.max(n, r.gpus ?? 1), 1),
        planTotal(app),
        requests[0]?.engine === 'megatron',
      );
    return;
  }
  const done = results.filter((r) => r).length;
  const status = byId('plan-status');
  delete status.dataset.done;
  text('plan-status', planProgress(done, requests.length, requests[done]?.gpus ?? 0));
  // New input makes a running search stale: it stops (the button starts one for the new inputs).
  if (stale) {
    if (planSearchRunning(key)) cancelPlanSearch();
    if (!planSearchRunning(key))
      text('plan-status', `Stopped after ${done} of ${requests.length} GPU counts: the inputs changed.`);
    return;
  }
  searchPlans(key, requests, requestRender);
}

function usePlan(pv: PlanView, e: PlanEntry | MegatronPlanEntry): void {
  if (pv.isMegatronPlanEntry(e)) {
    const { patch, fields } = pv.megatronPlanPatch(e);
    update(patch);
    for (const [id, v] of fields) {
      byId<HTMLInputElement>(id).value = String(v);
      byId(id).setAttribute('aria-invalid', 'false');
    }
    update({ ui: { trainError: '' } });
    return;
  }
  update({
    dp: e.dp,
    trainTp: e.tp,
    pp: e.pp,
    microbatches: e.microbatches,
    zero: e.zero,
    recompute: e.recompute,
    schedule: '1f1b',
  });
  for (const [id, v] of [
    ['dp', e.dp],
    ['train-tp', e.tp],
    ['pp', e.pp],
    ['microbatches', e.microbatches],
  ] as const) {
    byId<HTMLInputElement>(id).value = String(v);
    byId(id).setAttribute('aria-invalid', 'false');
  }
  update({ ui: { trainError: '' } });
}

// ---- compare ---------------------------------------------------------------

function toggleCompare(app: App, id: string, on: boolean): void {
  const rest = app.state.compare.filter((x) => x !== id);
  update({ compare: on ? [...rest, id] : rest });
}

function showCompare(app: App): void {
  const { state: s, ui } = app;
  const cv = compareView();
  if (!cv) {
    text('compare-status', lazyError(compareView, 'The comparison') || 'Loading the comparison…');
    return;
  }
  const { compareIds, compareRow, fillCompareList, markCompareList, renderCompare } = cv;
  const rebuilt = changed('compare-list', [ui.compareQuery]);
  if (rebuilt) fillCompareList(app, ui.compareQuery, (id, on) => toggleCompare(app, id, on));
  if (changed('compare-marks', [s.compare, s.gpu]) || rebuilt) markCompareList(app);

  const ids = compareIds(app);
  if (s.compareServing) {
    showCompareServing(app, ids);
    return;
  }
  text('compare-capacity', '');
  const requests = ids.map((id) => requestFor(app, id));
  const results = requests.map((r) => peek(r));
  if (results.every((r) => r)) {
    text('compare-status', '');
    if (changed('compare', [ids.join(','), ...results]))
      renderCompare(
        app,
        ids.map((id, i) => compareRow(app, id, results[i]!)),
      );
    return;
  }
  text('compare-status', `Forecasting ${results.filter((r) => !r).length} of ${ids.length} GPUs…`);
  fill('compare', requests.map((r) => requestKey(r)).join('\n'), requests, false, requestRender);
}

// Serving on each GPU (the serve view's workload): remembered forecasts, the rest a job. With a
// rate to plan for (the serve view's capacity panel), each GPU's capacity plan too, a job of its
// own after the forecasts: the table's last column, filled in as the plans arrive.
function showCompareServing(app: App, ids: string[]): void {
  const [cs, cap] = [compareServe(), capacityView()];
  if (!cs || !cap) {
    const why = lazyError(compareServe, 'The serving comparison') || lazyError(capacityView, 'The capacity plans');
    text('compare-status', why || 'Loading the serving comparison…');
    return;
  }
  const requests = ids.map((id) => ({ ...servingRequestFor(app), gpu: id }));
  const results = requests.map((r) => peekServing(r));
  if (results.every((r) => r)) {
    text('compare-status', '');
    const plans = comparePlans(app, ids, cap);
    const prices = ids.map((id) => app.state.comparePrices[id] ?? 0);
    if (changed('compare', ['serve', ids.join(','), ...results, ...(plans?.results ?? []), prices.join(',')]))
      cs.renderCompareServing(
        ids.map((id, i) => ({
          id,
          label: gpuLabel(app, id),
          r: results[i]!,
          plan: plans?.results[i],
          price: prices[i],
        })),
        app.state.predictor,
        plans ? { heading: plans.column, qps: app.state.capacityQps, price: app.state.capacityPrice } : undefined,
      );
    text('compare-price-error', app.ui.comparePriceError);
    return;
  }
  text('compare-status', `Forecasting serving on ${results.filter((r) => !r).length} of ${ids.length} GPUs…`);
  fillTasks('compare', requests.map((r) => servingKey(r)).join('\n'), requests.map(servingTask), requestRender);
}

// Each compared GPU's capacity plan at the serve view's rate (none without one, or with the eager
// engine, whose serving the plan does not simulate): what is remembered, the rest a job.
function comparePlans(
  app: App,
  ids: string[],
  cap: CapacityView,
): { column: string; results: (CapacityResult | undefined)[] } | null {
  const { capacityColumn, capacityIdle, capacityPlanRequest } = cap;
  const s = app.state;
  if (capacityIdle(s)) {
    cancel('capacity');
    return null;
  }
  // each GPU priced at its own price per GPU-hour where one is typed, else the serve view's
  const requests = ids.map((gpu) => {
    const own = s.comparePrices[gpu];
    return { ...capacityPlanRequest(app), gpu, ...(own !== undefined && own > 0 && { price_per_gpu_hour: own }) };
  });
  const results = requests.map((r) => peekCapacity(r));
  if (results.some((r) => !r))
    fillTasks('capacity', requests.map((r) => capacityKey(r)).join('\n'), requests.map(capacityTask), requestRender, {
      each: requestRender,
    });
  return { column: capacityColumn(s), results };
}

// ---- sweep -----------------------------------------------------------------

let shownSweep = ''; // the key of the sweep on screen, complete
let sweepError = ''; // its error (a batch size that could not be forecast)
let sweepWaiters: (() => void)[] = [];

// Resolves when the next complete sweep is on screen (for the benchmark).
export function nextSweepShown(): Promise<void> {
  shownSweep = '';
  return new Promise((resolve) => sweepWaiters.push(resolve));
}

function showSweep(app: App): void {
  const { state: s, ui } = app;
  const sv = sweepView();
  if (!sv) {
    text('sweep-status', lazyError(sweepView, 'The sweep') || `Forecasting batch sizes 1 to ${s.sweepMax}…`);
    return;
  }
  const { firstUnfit, renderSweep, sweepPoints, sweepRequests } = sv;
  const { batches, requests } = sweepRequests(app);
  const key = `${requestKey({ ...requests[0], batch: 0 })}|${s.sweepMax}`;
  if (key === shownSweep) {
    text('sweep-error', ui.sweepError || sweepError);
    return;
  }
  const results: Result[] = [];
  for (const r of requests) {
    const known = peek(r);
    if (!known) break;
    results.push(known);
    if (!known.ok) break;
  }
  const status = byId('sweep-status');
  const complete = results.length === requests.length || (results.length > 0 && !results[results.length - 1].ok);
  if (!complete) {
    delete status.dataset.points;
    text('sweep-status', `Forecasting batch sizes 1 to ${s.sweepMax}…`);
    text('sweep-error', ui.sweepError);
    fill('sweep', key, requests, true, requestRender);
    return;
  }
  const { points, error } = sweepPoints(results, batches);
  sweepError = error;
  renderSweep(app, points);
  shownSweep = key;
  const ms = jobMs(key);
  text('sweep-error', ui.sweepError || error);
  const unfit = firstUnfit(points);
  text(
    'sweep-status',
    (ms === undefined
      ? `${points.length} forecasts, all from earlier views.`
      : `${points.length} forecasts in ${Math.round(ms)} ms.`) +
      (unfit ? ` From batch ${unfit} on it does not fit in the GPU's memory (marked in red).` : ''),
  );
  status.dataset.points = String(points.length);
  const waiters = sweepWaiters;
  sweepWaiters = [];
  for (const w of waiters) w();
}
