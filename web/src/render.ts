// The page's one render: everything on screen from the state (app.state, app.ui)
// and the memo. A section is redrawn only when what it shows changed, so a render
// after a keystroke costs one forecast (usually remembered) and a few text updates.
// Views that need many forecasts (comparison, sweep) show what the memo has and
// ask jobs.ts for the rest; they are drawn again when those arrive.
import { requestFor, type App } from './app';
import { renderAccuracy } from './accuracy';
import { byId, clear, h, setText } from './dom';
import { cancel, fill, jobMs } from './jobs';
import { syncLink } from './link';
import { forecast, peek, requestKey, type Result } from './memo';
import { fillGpuSelect, fillModelSelect, showGpuInfo, showModelInfo } from './pickers';
import { CUSTOM, VIEWS, type View } from './state';
import { requestRender, update } from './store';
import {
  compareIds, compareRow, fillCompareList, forecastTitle, markCompareList, renderCompare, renderForecast,
  renderSweep, sweepPoints,
} from './views';

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

export const renderStats = { renders: 0, forecasts: 0, lastForecastMs: 0 };

export function render(app: App): void {
  const t0 = performance.now();
  const { state: s, ui } = app;
  renderStats.renders += 1;

  if (changed('view', [s.view])) showView(app, s.view);
  if (changed('gpu-picker', [ui.gpuQuery, s.gpu, s.customGpu])) {
    fillGpuSelect(app, ui.gpuQuery);
    showGpuInfo(app);
  }
  if (changed('model-picker', [s.model, s.customModel])) {
    fillModelSelect(app);
    showModelInfo(app);
  }
  if (changed('mode', [s.mode, s.predictor])) {
    for (const r of document.querySelectorAll<HTMLInputElement>('input[name="mode"]')) r.checked = r.value === s.mode;
    byId<HTMLSelectElement>('predictor').value = s.predictor;
  }
  if (changed('workload-marks', [ui.batchInvalid, ui.seqInvalid])) {
    byId('batch').setAttribute('aria-invalid', String(ui.batchInvalid));
    byId('seq').setAttribute('aria-invalid', String(ui.seqInvalid));
  }
  text('workload-error', ui.workloadError);
  text('custom-gpu-error', ui.customGpuError);

  const main = forecast(app.engine, requestFor(app));
  if (changed('forecast', [main])) {
    showForecast(main);
    renderStats.forecasts += 1;
    renderStats.lastForecastMs = performance.now() - t0;
    document.documentElement.dataset.forecasts = String(renderStats.forecasts);
  }
  // A batch size or sequence length that cannot be read leaves the last forecast
  // on screen, dimmed, saying why it was not updated.
  if (changed('stale', [main.ok, ui.workloadError])) {
    byId('forecast-body').classList.toggle('stale', !main.ok || ui.workloadError !== '');
    text('stale-note', ui.workloadError ? `Not updated: ${ui.workloadError.replace(/^./, (c) => c.toLowerCase())}` : '');
  }
  // A config that parses but cannot be forecast says why beside the config box.
  text('model-config-error', ui.configError || (s.model === CUSTOM && !main.ok ? `No forecast: ${main.error}` : ''));

  if (s.view === 'compare') showCompare(app);
  else cancel('compare');
  if (s.view === 'sweep') showSweep(app);
  else cancel('sweep');
  if (changed('link', [s, main])) syncLink(s, app.engine.version, main.ok ? forecastTitle(main.f) : null);
  if (changed('notices', [ui.notices])) showNotices(ui.notices);
}

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
  document.querySelector('.layout')?.classList.toggle('wide', view === 'accuracy');
  if (view === 'sweep') byId<HTMLInputElement>('sweep-max').value = String(app.state.sweepMax);
  if (view === 'accuracy') void renderAccuracy();
}

function showForecast(r: Result): void {
  if (r.ok) {
    setText(byId('forecast-error'), '');
    renderForecast(r.f);
  } else {
    // The last forecast stays, dimmed (see 'stale' in render).
    setText(byId('forecast-error'), `No forecast: ${r.error}`);
  }
}

function showNotices(lines: string[]): void {
  const box = byId('notice');
  clear(box);
  box.hidden = !lines.length;
  if (!lines.length) return;
  const dismiss = h('button', { type: 'button', class: 'secondary small', 'aria-label': 'Dismiss this notice' }, 'Dismiss');
  dismiss.addEventListener('click', () => update({ ui: { notices: [] } }));
  box.append(h('ul', {}, ...lines.map((l) => h('li', {}, l))), dismiss);
}

// ---- compare ---------------------------------------------------------------

function toggleCompare(app: App, id: string, on: boolean): void {
  const rest = app.state.compare.filter((x) => x !== id);
  update({ compare: on ? [...rest, id] : rest });
}

function showCompare(app: App): void {
  const { state: s, ui } = app;
  const rebuilt = changed('compare-list', [ui.compareQuery]);
  if (rebuilt) fillCompareList(app, ui.compareQuery, (id, on) => toggleCompare(app, id, on));
  if (changed('compare-marks', [s.compare, s.gpu]) || rebuilt) markCompareList(app);

  const ids = compareIds(app);
  const requests = ids.map((id) => requestFor(app, id));
  const results = requests.map((r) => peek(r));
  if (results.every((r) => r)) {
    text('compare-status', '');
    if (changed('compare', [ids.join(','), ...results])) renderCompare(app, ids.map((id, i) => compareRow(app, id, results[i]!)));
    return;
  }
  text('compare-status', `Forecasting ${results.filter((r) => !r).length} of ${ids.length} GPUs…`);
  fill('compare', requests.map((r) => requestKey(r)).join('\n'), app.engine, requests, false, requestRender);
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
  const requests = Array.from({ length: s.sweepMax }, (_, i) => requestFor(app, undefined, i + 1));
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
    fill('sweep', key, app.engine, requests, true, requestRender);
    return;
  }
  const { points, error } = sweepPoints(results);
  sweepError = error;
  renderSweep(app, points);
  shownSweep = key;
  const ms = jobMs(key);
  text('sweep-error', ui.sweepError || error);
  text('sweep-status', ms === undefined ? `${points.length} forecasts, all from earlier views.` : `${points.length} forecasts in ${Math.round(ms)} ms.`);
  status.dataset.points = String(points.length);
  const waiters = sweepWaiters;
  sweepWaiters = [];
  for (const w of waiters) w();
}
