// The code the landing view's first forecast does not run, each module a chunk of its own (Vite
// splits at import()), loaded on demand: render asks for a view's module; until it is in, the
// section shows what it shows while waiting for a forecast, and its arrival renders again. boot.ts
// fetches them all after the first forecast (preloadAll), so switching views stays instant and
// the page works offline.
import { requestRender } from './store';

export interface Lazy<T> {
  (): T | undefined; // the module once in; else starts its import (once) and answers undefined
  load(): Promise<T>; // the module, for a handler or boot that can wait for it
  ready(): boolean; // whether it is in, without starting its import
  error(): string; // why it could not be loaded ('' while it loads or once it is in)
}

const all: Lazy<unknown>[] = [];

// A module that failed to load is not asked again (a reload tries again): the section says why.
export function lazy<T>(importer: () => Promise<T>): Lazy<T> {
  let mod: T | undefined;
  let loading: Promise<T> | null = null;
  let failed = '';
  const load = (): Promise<T> =>
    (loading ??= importer().then(
      (m) => (mod = m),
      (e: unknown) => {
        failed = e instanceof Error ? e.message : String(e);
        throw e;
      },
    ));
  const get = (): T | undefined => {
    if (!mod && !loading) load().then(requestRender, requestRender);
    return mod;
  };
  const handle = Object.assign(get, { load, ready: () => mod !== undefined, error: () => failed });
  all.push(handle);
  return handle;
}

// "… could not be loaded (why); reload the page to try again." for a module that failed, else ''.
export function lazyError(m: Lazy<unknown>, what: string): string {
  const why = m.error();
  return why ? `${what} could not be loaded (${why}); reload the page to try again.` : '';
}

// Every module below, fetched after the first forecast (for offline use and instant views).
export function preloadAll(): Promise<unknown> {
  return Promise.all(all.map((m) => m.load().catch(() => undefined)));
}

// The serve view and its panels, the comparisons, the sweep, the plan search, the exports, the
// embed card, and the links' compression of a custom GPU or config.
export const serveView = lazy(() => import('./serve_view'));
export const loadView = lazy(() => import('./load_view'));
export const capacityView = lazy(() => import('./capacity_view'));
export const compareView = lazy(() => import('./compare_view'));
export const compareServe = lazy(() => import('./compare_serve'));
export const sweepView = lazy(() => import('./sweep_view'));
export const planView = lazy(() => import('./plan_view'));
export const exportView = lazy(() => import('./export_view'));
export const embedCard = lazy(() => import('./embed'));
export const linkCodec = lazy(() => import('./link_codec'));
