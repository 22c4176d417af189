// The calculator: reads the link, loads the WebAssembly forecaster, wires the
// inputs, and keeps the URL in step with what is on screen.
import './style.css';
import { gpuById, modelById, requestFor, type App } from './app';
import { loadReport, renderAccuracy } from './accuracy';
import { byId, clear, h, setText } from './dom';
import { preloadCharts } from './draw';
import { errorMessage, loadEngine, type Engine } from './engine';
import { download, fileStem, forecastCsv, forecastJson } from './export';
import { fmtMs, fmtRate } from './format';
import {
  buildCustomGpuForm, fillCustomGpuForm, fillGpuSelect, fillModelSelect,
  parseConfigText, readCustomGpuForm, showGpuInfo, showModelInfo, validateCustomGpu,
} from './pickers';
import {
  BATCH_MAX, CUSTOM, DEFAULT_STATE, SEQ_MAX, SWEEP_MAX, VIEWS, clip, parseParams, shareUrl, stateToParams,
  type ParsedLink, type View,
} from './state';
import { fillCompareList, forecastTitle, modeWords, renderCompare, renderForecast, renderSweep, setOutput } from './views';

declare global {
  interface Window {
    tilecastPage?: {
      app: App;
      ready: boolean;
      forecasts: number;
      lastForecastMs: number;
      lastSteps: { engine: number; render: number; url: number; views: number };
      sweep(): number;
    };
  }
}

const notices: string[] = [];

function showNotice(lines: string[]): void {
  const box = byId('notice');
  clear(box);
  if (!lines.length) {
    box.hidden = true;
    return;
  }
  const dismiss = h('button', { type: 'button', class: 'secondary small', 'aria-label': 'Dismiss this notice' }, 'Dismiss');
  dismiss.addEventListener('click', () => {
    notices.length = 0;
    box.hidden = true;
  });
  box.append(h('ul', {}, ...lines.map((l) => h('li', {}, l))), dismiss);
  box.hidden = false;
}

// Checks the link's names against the catalogs; unknown ones fall back to the default.
function checkNames(app: App, link: ParsedLink): void {
  const s = app.state;
  if (s.gpu !== CUSTOM && !gpuById(app, s.gpu)) {
    link.problems.push(`The link's GPU "${clip(s.gpu)}" is not in this page's catalog; showing ${gpuById(app, DEFAULT_STATE.gpu)?.name}.`);
    s.gpu = DEFAULT_STATE.gpu;
  }
  if (s.model !== CUSTOM && !modelById(app, s.model)) {
    link.problems.push(`The link's model "${clip(s.model)}" is not in this page's model zoo; showing ${modelById(app, DEFAULT_STATE.model)?.name}.`);
    s.model = DEFAULT_STATE.model;
  }
  if (s.gpu === CUSTOM && s.customGpu) {
    try {
      s.customGpu = app.engine.validateGpu(s.customGpu);
    } catch (e) {
      link.problems.push(`The custom GPU in the link was rejected: ${errorMessage(e)}`);
      s.gpu = DEFAULT_STATE.gpu;
      s.customGpu = null;
    }
  }
  if (s.model === CUSTOM && s.customModel) {
    try {
      app.engine.validateModel(JSON.stringify(s.customModel));
    } catch (e) {
      link.problems.push(`The model config in the link was rejected: ${errorMessage(e)}`);
      s.model = DEFAULT_STATE.model;
      s.customModel = null;
    }
  }
  const unknownCompare = s.compare.filter((id) => !gpuById(app, id));
  if (unknownCompare.length) {
    link.problems.push(`Left out of the comparison, not in the catalog: ${clip(unknownCompare.join(', '), 80)}.`);
    s.compare = s.compare.filter((id) => gpuById(app, id));
  }
  if (link.version !== null && link.version !== app.engine.version) {
    link.problems.push(
      `This link was made with tilecast ${clip(link.version, 20)}; this page runs ${app.engine.version}, so the numbers may differ from the ones that were shared.`,
    );
  }
}

function pageUrl(): string {
  const u = new URL(location.href);
  u.search = '';
  u.hash = '';
  return u.toString();
}

let urlTimer: ReturnType<typeof setTimeout> | undefined;

// The address bar follows the state, once input settles (history updates are slow
// and need not delay the numbers); the share box is updated at once.
function syncUrl(app: App): void {
  const params = stateToParams(app.state, app.engine.version);
  const url = `${location.pathname}?${params.toString()}`;
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    try {
      history.replaceState(null, '', url);
    } catch {
      /* some embedding contexts forbid it; the share box still has the link */
    }
    document.documentElement.dataset.url = url;
  }, 150);
  const link = shareUrl(app.state, app.engine.version, pageUrl());
  byId<HTMLInputElement>('share-link').value = link;
  const embedLink = shareUrl(app.state, app.engine.version, pageUrl(), true);
  const title = app.last ? `tilecast forecast: ${forecastTitle(app.last)}` : 'tilecast forecast';
  byId<HTMLTextAreaElement>('embed-snippet').value =
    `<iframe src="${escapeAttr(embedLink)}" title="${escapeAttr(title)}" width="440" height="250" style="border:0;max-width:100%" loading="lazy"></iframe>`;
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&#39;');
}

// ---- forecasting -----------------------------------------------------------

const page = { forecasts: 0, lastForecastMs: 0, lastSteps: { engine: 0, render: 0, url: 0, views: 0 } };

function forecast(app: App): void {
  const t0 = performance.now();
  const errBox = byId('forecast-error');
  const request = requestFor(app);
  let t1 = t0;
  try {
    const f = app.engine.forecastModel(request);
    t1 = performance.now();
    app.last = f;
    app.lastRequest = request;
    setText(errBox, '');
    byId('forecast-body').classList.remove('stale');
    renderForecast(f);
  } catch (e) {
    t1 = performance.now();
    setText(errBox, `No forecast: ${errorMessage(e)}`);
    byId('forecast-body').classList.add('stale');
  }
  const t2 = performance.now();
  syncUrl(app);
  const t3 = performance.now();
  if (app.state.view === 'compare') {
    fillCompareList(app, byId<HTMLInputElement>('compare-search').value, (id, on) => toggleCompare(app, id, on));
    renderCompare(app);
  }
  if (app.state.view === 'sweep') renderSweep(app);
  page.forecasts += 1;
  page.lastForecastMs = performance.now() - t0;
  page.lastSteps = { engine: t1 - t0, render: t2 - t1, url: t3 - t2, views: performance.now() - t3 };
  document.documentElement.dataset.forecasts = String(page.forecasts);
}

function setView(app: App, view: View, focus = false): void {
  app.state.view = view;
  for (const v of VIEWS) {
    const tab = byId(`tab-${v}`);
    const on = v === view;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    byId(`view-${v}`).hidden = !on;
    if (on && focus) tab.focus();
  }
  // The accuracy page does not use the inputs: it gets the whole width.
  byId('inputs').hidden = view === 'accuracy';
  document.querySelector('.layout')?.classList.toggle('wide', view === 'accuracy');
  if (view === 'compare') {
    fillCompareList(app, byId<HTMLInputElement>('compare-search').value, (id, on) => toggleCompare(app, id, on));
    renderCompare(app);
  }
  if (view === 'sweep') {
    byId<HTMLInputElement>('sweep-max').value = String(app.state.sweepMax);
    renderSweep(app);
  }
  if (view === 'accuracy') void renderAccuracy();
  syncUrl(app);
}

function toggleCompare(app: App, id: string, on: boolean): void {
  const set = new Set(app.state.compare);
  if (on) set.add(id);
  else set.delete(id);
  app.state.compare = [...set];
  renderCompare(app);
  syncUrl(app);
}

// ---- inputs ----------------------------------------------------------------

function syncInputs(app: App): void {
  const s = app.state;
  fillGpuSelect(app, byId<HTMLInputElement>('gpu-search').value);
  fillModelSelect(app);
  showGpuInfo(app);
  showModelInfo(app);
  for (const r of document.querySelectorAll<HTMLInputElement>('input[name="mode"]')) r.checked = r.value === s.mode;
  byId<HTMLSelectElement>('predictor').value = s.predictor;
  byId<HTMLInputElement>('batch').value = String(s.batch);
  byId<HTMLInputElement>('seq').value = String(s.seq);
  if (s.model === CUSTOM && s.customModel) byId<HTMLTextAreaElement>('model-config').value = JSON.stringify(s.customModel, null, 2);
}

function readWholeNumber(id: string, label: string, min: number, max: number): number {
  const raw = byId<HTMLInputElement>(id).value.trim();
  if (!/^\d+$/.test(raw)) throw new Error(`${label} must be a whole number.`);
  const v = Number(raw);
  if (v < min || v > max) throw new Error(`${label} must be between ${min} and ${max}.`);
  return v;
}

function wireInputs(app: App): void {
  const s = app.state;
  const gpuSearch = byId<HTMLInputElement>('gpu-search');
  const gpuSelect = byId<HTMLSelectElement>('gpu-select');
  gpuSearch.addEventListener('input', () => {
    fillGpuSelect(app, gpuSearch.value);
    // The selection follows the search when the current GPU no longer matches.
    const first = [...gpuSelect.options].find((o) => !o.disabled);
    if (gpuSelect.value !== s.gpu && first) {
      gpuSelect.value = first.value;
      s.gpu = first.value;
      showGpuInfo(app);
      forecast(app);
    }
  });
  gpuSelect.addEventListener('change', () => {
    if (!gpuSelect.value) return;
    s.gpu = gpuSelect.value;
    showGpuInfo(app);
    forecast(app);
  });

  buildCustomGpuForm();
  const startGpu = s.gpu === CUSTOM && s.customGpu ? s.customGpu : gpuById(app, s.gpu);
  if (startGpu) fillCustomGpuForm(startGpu);
  if (s.gpu === CUSTOM) byId<HTMLDetailsElement>('custom-gpu').open = true;
  byId('custom-gpu-fill').addEventListener('click', () => {
    const g = s.gpu === CUSTOM ? s.customGpu : gpuById(app, s.gpu);
    if (g) fillCustomGpuForm(g);
  });
  byId('custom-gpu-use').addEventListener('click', () => {
    const err = byId('custom-gpu-error');
    try {
      const spec = validateCustomGpu(app, readCustomGpuForm());
      delete spec.id;
      s.customGpu = spec;
      s.gpu = CUSTOM;
      setText(err, '');
      fillGpuSelect(app, gpuSearch.value);
      showGpuInfo(app);
      forecast(app);
    } catch (e) {
      setText(err, errorMessage(e));
    }
  });

  const modelSelect = byId<HTMLSelectElement>('model-select');
  modelSelect.addEventListener('change', () => {
    s.model = modelSelect.value;
    showModelInfo(app);
    forecast(app);
  });
  const configBox = byId<HTMLTextAreaElement>('model-config');
  const configErr = byId('model-config-error');
  const useConfig = (text: string) => {
    try {
      s.customModel = parseConfigText(app, text);
      s.model = CUSTOM;
      setText(configErr, '');
      fillModelSelect(app);
      showModelInfo(app);
      forecast(app);
      setText(configErr, byId('forecast-error').textContent ?? '');
    } catch (e) {
      setText(configErr, errorMessage(e));
    }
  };
  if (s.model === CUSTOM) byId<HTMLDetailsElement>('custom-model').open = true;
  byId('model-config-use').addEventListener('click', () => useConfig(configBox.value));
  const file = byId<HTMLInputElement>('model-config-file');
  file.addEventListener('change', async () => {
    const f = file.files?.[0];
    file.value = '';
    if (!f) return;
    if (f.size > 1 << 20) {
      setText(configErr, `${clip(f.name)} is ${f.size} bytes; at most ${1 << 20} are accepted.`);
      return;
    }
    const text = await f.text();
    configBox.value = text;
    useConfig(text);
  });

  for (const r of document.querySelectorAll<HTMLInputElement>('input[name="mode"]')) {
    r.addEventListener('change', () => {
      if (!r.checked) return;
      s.mode = r.value === 'inference' ? 'inference' : 'training';
      forecast(app);
    });
  }
  const predictor = byId<HTMLSelectElement>('predictor');
  predictor.addEventListener('change', () => {
    s.predictor = predictor.value === 'roofline' ? 'roofline' : 'tilecast';
    forecast(app);
  });
  const workloadErr = byId('workload-error');
  const onWorkload = () => {
    const mark = (id: string, bad: boolean) => byId(id).setAttribute('aria-invalid', String(bad));
    let batch = 0;
    try {
      batch = readWholeNumber('batch', 'Batch size', 1, BATCH_MAX);
      mark('batch', false);
    } catch (e) {
      mark('batch', true);
      setText(workloadErr, errorMessage(e));
      return;
    }
    try {
      const seq = readWholeNumber('seq', 'Sequence length', 1, SEQ_MAX);
      mark('seq', false);
      setText(workloadErr, '');
      if (batch === s.batch && seq === s.seq) return;
      s.batch = batch;
      s.seq = seq;
      forecast(app);
    } catch (e) {
      mark('seq', true);
      setText(workloadErr, errorMessage(e));
    }
  };
  byId('batch').addEventListener('input', onWorkload);
  byId('seq').addEventListener('input', onWorkload);
  byId<HTMLFormElement>('inputs').addEventListener('submit', (e) => e.preventDefault());

  // Tabs: click, or arrow keys / Home / End on the tab list.
  const tabs = VIEWS.map((v) => byId(`tab-${v}`));
  for (const t of tabs) t.addEventListener('click', () => setView(app, t.dataset.view as View));
  byId('tabs').addEventListener('keydown', (e) => {
    const i = VIEWS.indexOf(app.state.view);
    let next = -1;
    if (e.key === 'ArrowRight') next = (i + 1) % VIEWS.length;
    else if (e.key === 'ArrowLeft') next = (i + VIEWS.length - 1) % VIEWS.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = VIEWS.length - 1;
    if (next < 0) return;
    e.preventDefault();
    setView(app, VIEWS[next], true);
  });

  const compareSearch = byId<HTMLInputElement>('compare-search');
  compareSearch.addEventListener('input', () =>
    fillCompareList(app, compareSearch.value, (id, on) => toggleCompare(app, id, on)),
  );
  const sweepErr = byId('sweep-error');
  byId('sweep-max').addEventListener('input', () => {
    try {
      s.sweepMax = readWholeNumber('sweep-max', 'Largest batch size', 2, SWEEP_MAX);
      setText(sweepErr, '');
      renderSweep(app);
      syncUrl(app);
    } catch (e) {
      setText(sweepErr, errorMessage(e));
    }
  });

  const copy = async (text: string, button: HTMLElement) => {
    const label = button.textContent;
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Select and copy the text below';
    }
    setTimeout(() => (button.textContent = label), 1500);
  };
  byId('copy-link').addEventListener('click', (e) => void copy(byId<HTMLInputElement>('share-link').value, e.currentTarget as HTMLElement));
  byId('copy-embed').addEventListener('click', (e) => void copy(byId<HTMLTextAreaElement>('embed-snippet').value, e.currentTarget as HTMLElement));
  byId('export-csv').addEventListener('click', () => {
    if (app.last) download(`${fileStem(app.last)}.csv`, 'text/csv', forecastCsv(app.last, byId<HTMLInputElement>('share-link').value));
  });
  byId('export-json').addEventListener('click', () => {
    if (app.last && app.lastRequest)
      download(`${fileStem(app.last)}.json`, 'application/json', forecastJson(app.last, app.lastRequest, byId<HTMLInputElement>('share-link').value));
  });
}

// ---- embed -----------------------------------------------------------------

function renderEmbed(app: App): void {
  document.documentElement.classList.add('embedded');
  byId('app').hidden = true;
  const card = byId('embed');
  card.hidden = false;
  const full = shareUrl(app.state, app.engine.version, pageUrl());
  const open = h('a', { href: full, target: '_blank', rel: 'noopener' }, 'Open in the tilecast calculator');
  try {
    const f = app.engine.forecastModel(requestFor(app));
    app.last = f;
    card.append(
      h('div', { class: 'embed-title' }, forecastTitle(f)),
      h('div', { class: 'embed-sub' }, `${modeWords(f.mode)} · batch ${f.batch} · sequence ${f.seq}`),
      h('div', { class: 'embed-figures' },
        h('div', {}, h('output', { id: 'embed-latency', class: 'value' }), h('div', { class: 'label' }, f.predictor === 'roofline' ? 'roofline forecast' : 'tilecast forecast')),
        h('div', {}, h('output', { id: 'embed-roofline', class: 'value muted' }), h('div', { class: 'label' }, 'roofline only')),
      ),
      h('div', { class: 'embed-sub' }, h('output', { id: 'embed-samples' }), ' · ', h('output', { id: 'embed-tokens' })),
    );
    setOutput('embed-latency', fmtMs(f.latency_ms), f.latency_ms);
    setOutput('embed-roofline', fmtMs(f.roofline_latency_ms), f.roofline_latency_ms);
    setOutput('embed-samples', `${fmtRate(f.samples_per_s)} samples/s`, f.samples_per_s);
    setOutput('embed-tokens', `${fmtRate(f.tokens_per_s)} tokens/s`, f.tokens_per_s);
    const caveats = f.caveats ?? [];
    if (caveats.length)
      card.append(h('p', { class: 'embed-note', id: 'embed-caveats', title: caveats.join(' ') }, 'Extrapolated beyond the measured GPUs (hover for why).'));
  } catch (e) {
    card.append(h('p', { class: 'error', id: 'embed-error', role: 'alert' }, `No forecast: ${errorMessage(e)}`));
  }
  if (notices.length) card.append(h('p', { class: 'embed-note' }, notices.join(' ')));
  card.append(h('div', { class: 'embed-foot' }, `tilecast ${app.engine.version} · `, open));
  document.documentElement.dataset.forecasts = '1';
}

// ---- boot ------------------------------------------------------------------

async function boot(): Promise<void> {
  const link = parseParams(location.search);
  const status = byId('status');
  const engineLoading = loadEngine();
  if (!link.embed) preloadCharts();
  if (link.embed) {
    byId('app').hidden = true;
    byId('embed').hidden = false;
    setText(byId('embed'), 'Loading the forecast…');
  }
  let engine: Engine;
  performance.mark('tilecast-boot');
  try {
    engine = await engineLoading;
    performance.mark('tilecast-engine-ready');
  } catch (e) {
    const msg = `The forecaster could not be loaded: ${errorMessage(e)}`;
    setText(link.embed ? byId('embed') : status, msg);
    return;
  }
  const app: App = { engine, gpus: engine.listGpus(), models: [], state: link.state, last: null, lastRequest: null };
  try {
    app.models = engine.listModels();
  } catch (e) {
    link.problems.push(`The model zoo is not available: ${errorMessage(e)}`);
  }
  performance.mark('tilecast-lists');
  checkNames(app, link);
  notices.push(...link.problems);
  setText(byId('version'), `tilecast ${engine.version}`);
  window.tilecastPage = {
    app,
    ready: false,
    get forecasts() { return page.forecasts; },
    get lastForecastMs() { return page.lastForecastMs; },
    get lastSteps() { return page.lastSteps; },
    sweep: () => renderSweep(app),
  };

  if (link.embed) {
    clear(byId('embed'));
    renderEmbed(app);
  } else {
    syncInputs(app);
    wireInputs(app);
    setText(status, '');
    status.hidden = true;
    performance.mark('tilecast-inputs');
    forecast(app);
    setView(app, app.state.view);
    showNotice(notices);
  }
  performance.mark('tilecast-first-forecast');
  window.tilecastPage.ready = true;
  document.documentElement.dataset.ready = '1';
  // Fetch the accuracy report now so the page keeps working offline.
  if (!link.embed) setTimeout(() => void loadReport().catch(() => undefined).finally(registerOffline), 0);
}

// A service worker (public/sw.js) keeps copies of the site's files so the page
// also reloads without a network; it is given the files loaded before it ran.
function registerOffline(): void {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker
    .register(new URL('sw.js', document.baseURI).href)
    .then(() => navigator.serviceWorker.ready)
    .then((reg) => {
      const files = performance
        .getEntriesByType('resource')
        .map((r) => r.name)
        .filter((u) => u.startsWith(location.origin));
      reg.active?.postMessage({ cache: [location.href, ...new Set(files)] });
      document.documentElement.dataset.offline = '1';
    })
    .catch(() => undefined);
}

void boot();
