// Boot: read the link, wait for the forecaster (public/start.js began loading it
// before this bundle ran), check the link against the catalogs, then either the
// embed card or the calculator: its inputs wired and its first render. The page's own
// instance answers the catalog lists and the pickers' checks (quick, synchronous); every
// forecast runs on the forecaster's thread (worker_client.ts), started here at once, but for
// the card's while that thread is still loading (the page's instance answers those).
import { type App } from './app';
import { byId, setText } from './dom';
import { errorMessage, loadEngine, type Engine } from './engine';
import { fillInputs, wireInputs } from './inputs';
import { jobStats } from './jobs';
import { checkLink } from './link';
import { forgetAll, memoStats } from './memo';
import { firstCardShown, nextSweepShown, render, renderStats } from './render';
import { embedCard, linkCodec, preloadAll } from './lazy';
import { carriesPacked, parseParams } from './state';
import { EMPTY_UI, requestRender, startStore } from './store';
import {
  answerOnPageWhileLoading,
  inputLaneCall,
  onWorkerModelsChanged,
  warmUp,
  workerSettings,
  workerStats,
} from './worker_client';

// For the tests and the benchmark.
interface PageHandle {
  app: App;
  ready: boolean;
  readonly forecasts: number; // forecasts put on screen
  readonly lastForecastMs: number; // the last one's render, forecast included
  readonly renders: number;
  memo: typeof memoStats;
  jobs: typeof jobStats;
  worker: { settings: typeof workerSettings; stats: typeof workerStats; running(): ReturnType<typeof inputLaneCall> };
  sweep(): Promise<number>; // forgets every forecast, then times the sweep until it is on screen
}

declare global {
  interface Window {
    tilecastPage?: PageHandle;
  }
}

export async function boot(): Promise<void> {
  const status = byId('status');
  const engineLoading = loadEngine();
  // Chart.js (60 KB gzipped) is fetched by the first drawing, after the first numbers are on
  // screen (draw.ts): the first forecast needs the forecaster and the page only. The code of the
  // views the landing view does not draw loads on demand (lazy.ts): a link carrying a custom GPU or
  // config waits for the code that unpacks it, an embed link loads the card's beside the forecaster.
  warmUp();
  if (carriesPacked(location.search, location.hash)) await linkCodec.load().catch(() => undefined);
  const link = parseParams(location.search, location.hash);
  const embedding = link.embed ? embedCard.load() : null;
  embedding?.catch(() => undefined); // said once the forecaster is in (below)
  if (link.embed) showEmbedLoading();
  let engine: Engine;
  performance.mark('tilecast-boot');
  try {
    engine = await engineLoading;
    performance.mark('tilecast-engine-ready');
  } catch (e) {
    setText(link.embed ? byId('embed') : status, `The forecaster could not be loaded: ${errorMessage(e)}`);
    return;
  }
  const app: App = { engine, gpus: engine.listGpus(), models: [], systems: [], state: link.state, ui: { ...EMPTY_UI } };
  try {
    app.models = engine.listModels();
  } catch (e) {
    link.problems.push(`The model zoo is not available: ${errorMessage(e)}`);
  }
  try {
    app.systems = engine.listSystems();
  } catch (e) {
    link.problems.push(`The multi-GPU systems are not available: ${errorMessage(e)}`);
  }
  performance.mark('tilecast-lists');
  answerOnPageWhileLoading((name, arg) => engine.callAsIs(name, arg));
  app.state = checkLink(app, link);
  app.ui.notices = [...link.problems];
  setText(byId('version'), `tilecast ${engine.version}`);
  window.tilecastPage = {
    app,
    ready: false,
    get forecasts() {
      return renderStats.forecasts;
    },
    get lastForecastMs() {
      return renderStats.lastForecastMs;
    },
    get renders() {
      return renderStats.renders;
    },
    memo: memoStats,
    jobs: jobStats,
    worker: { settings: workerSettings, stats: workerStats, running: inputLaneCall },
    sweep: async () => {
      const t0 = performance.now();
      forgetAll();
      const shown = nextSweepShown();
      requestRender();
      await shown;
      return performance.now() - t0;
    },
  };

  // A model fetched on demand (engine.ts) arrived or failed, in a forecaster's thread
  // (core_worker.ts, whose call waited for it) or on the page's instance: render again.
  const modelsChanged = (): void => {
    if (!link.embed) requestRender();
  };
  engine.onModelsChanged(modelsChanged);
  onWorkerModelsChanged(modelsChanged);
  if (embedding) {
    try {
      await (await embedding).renderEmbed(app);
    } catch (e) {
      setText(byId('embed'), `The card could not be loaded: ${errorMessage(e)}`);
      return;
    }
  } else {
    fillInputs(app);
    wireInputs(app);
    status.hidden = true;
    setText(status, '');
    performance.mark('tilecast-inputs');
    startStore(app, render);
    await firstCardShown;
  }
  performance.mark('tilecast-first-forecast');
  window.tilecastPage.ready = true;
  document.documentElement.dataset.ready = '1';
  // Fetch the accuracy page (its code and report), the other views' code (lazy.ts) and the
  // forecaster's deferred part (all but the first forecast's code: tilecast.js loads it in a
  // forecaster's thread on first need) now, after the first forecast, so the page keeps working
  // offline and a view's first showing need not wait; the deferred part's bytes go to the page's
  // own instance, which cannot fetch them synchronously when one of its calls needs that part.
  if (!link.embed)
    setTimeout(
      () =>
        void Promise.all([
          import('./accuracy').then((m) => m.loadReport()).catch(() => undefined),
          preloadAll(),
          fetch(engine.deferredUrl)
            .then(async (r) => {
              if (r.ok) engine.provideDeferred(await r.arrayBuffer());
            })
            .catch(() => undefined),
        ]).finally(registerOffline),
      0,
    );
}

// The embed card's place, shown at once while the forecaster and the card's code load (embed.ts
// draws the card into it).
function showEmbedLoading(): void {
  document.documentElement.classList.add('embedded');
  byId('app').hidden = true;
  const card = byId('embed');
  card.hidden = false;
  card.textContent = 'Loading the forecast…';
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
