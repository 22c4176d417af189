// The browser tests' shared setup: web/dist served on a free port, one headless Chromium
// (playwright-core, CHROMIUM or Debian's /usr/bin/chromium), a context whose script errors are
// collected, and the helpers every page test uses. Call startPages() in before(), close() in after(),
// or pagesForFile() once at a test file's top level, which does both.
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';
import path from 'node:path';
import { startServer } from '../../scripts/serve.mjs';
import { BASE_ARGS, CHROMIUM, NO_OMNIBOX_POPUP } from '../../scripts/chromium.mjs';
import { DIST, requireFile } from '../helpers.mjs';

// One renderer process for all pages of a context's site (--process-per-site), kept alive by a
// page that holds the forecaster's module compiled (keepCompiled below): each page then finds the
// module's code in the process, as a browser's next tab of a site may, instead of a new process
// compiling 1.2 MB of WebAssembly again (docs/build.md "Where the time is now"); without
// Chromium's omnibox popup (../../scripts/chromium.mjs).
const CHROMIUM_ARGS = [...BASE_ARGS, '--process-per-site', NO_OMNIBOX_POPUP];

// A page of the context, on a plain file of the site (no calculator), holding the forecaster's
// primary module compiled for as long as the context lives.
async function keepCompiled(context, base) {
  const keeper = await context.newPage();
  await keeper.goto(base + '/start.js');
  await keeper.evaluate(async () => {
    window.keptModule = await WebAssembly.compileStreaming(fetch('/tilecast/tilecast_wasm.wasm'));
  });
  return keeper;
}

// { base, browser, context, pageErrors, open(query, options), newContext(viewport), close() }
export async function startPages({ viewport = { width: 1280, height: 900 }, readyTimeout = 15000 } = {}) {
  requireFile(path.join(DIST, 'index.html'), 'run scripts/build_web.sh');
  const { server, url } = await startServer({ root: DIST, port: 0 });
  const base = url.replace('localhost', '127.0.0.1');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const pageErrors = [];
  const contexts = [];
  const newContext = async (size = viewport) => {
    const c = await browser.newContext({ viewport: size });
    c.on('weberror', (e) => pageErrors.push(e.error().message));
    contexts.push(c);
    return c;
  };
  const context = await newContext();
  await keepCompiled(context, base);
  // A page of the calculator at base + query, once it is ready (html[data-ready="1"]).
  const open = async (query = '', { in: ctx = context, timeout = readyTimeout } = {}) => {
    const page = await ctx.newPage();
    await page.goto(base + query);
    await page.waitForSelector('html[data-ready="1"]', { timeout });
    return page;
  };
  const close = async () => {
    await browser.close();
    server.close();
  };
  return { base, browser, context, pageErrors, open, newContext, close };
}

// A test file's pages: started before its first test and closed after its last (node:test's
// before and after); each property is startPages()'s once started.
export function pagesForFile(options) {
  let pages = null;
  before(async () => {
    pages = await startPages(options);
  });
  after(async () => {
    await pages?.close();
  });
  return {
    open: (...args) => pages.open(...args),
    newContext: (...args) => pages.newContext(...args),
    get base() {
      return pages.base;
    },
    get context() {
      return pages.context;
    },
    get pageErrors() {
      return pages.pageErrors;
    },
  };
}

// The exact number behind a figure (its data-value).
export const value = async (page, id) => Number(await page.locator(`#${id}`).getAttribute('data-value'));
// The forecasts drawn so far, and waiting for the n-th.
export const forecasts = (page) => page.evaluate(() => Number(document.documentElement.dataset.forecasts ?? '0'));
export const waitForecasts = (page, n) =>
  page.waitForFunction((k) => Number(document.documentElement.dataset.forecasts ?? '0') >= k, n);
