// Browser tests of issue 33 item 5 (the page never freezes): every forecast runs on the
// forecaster's own thread (web/src/worker_client.ts, core_worker.ts), but the card's while that
// thread is still loading at boot (the page's own instance answers those). Typing while a slow
// forecast runs is never blocked, a superseded answer never shows, a call past the time limit
// says what to reduce and the page stays usable, a request the core refuses for cost shows
// the core's message. Expected numbers and messages come from the same WebAssembly core in Node.
// Run: node --test web/tests/worker.test.mjs (after scripts/build_web.sh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, loadWasm } from './helpers.mjs';
import { startPages } from './support/browser.mjs';

let pages;
let tc;

before(async () => {
  ({ tc } = await loadWasm());
  pages = await startPages({ readyTimeout: 30000 });
});

after(async () => {
  await pages?.close();
});

const open = (query) => pages.open(query);

const stats = (page) =>
  page.evaluate(() => ({
    forecasts: window.tilecastPage.forecasts,
    card: { ...window.tilecastPage.jobs.card },
    worker: { ...window.tilecastPage.worker.stats },
  }));

// Llama 3 70B training, batch 4,096 of 128 tokens on 80 pipeline stages: 4,096 micro-batches
// take 0.4-1.3 s in WebAssembly the first time on the machine this was written on (80 x 4,096 pipeline chunks, within the core's
// budget); 3 or 33 do not divide the batch, an error at once (a card cheap to draw).
const LINK = '?gpu=h100-sxm&model=llama3-70b&mode=training&batch=4096&seq=128&pp=80&mb=3';
const request = (microbatches) => ({
  gpu: 'h100-sxm',
  model: 'llama3-70b',
  batch: 4096,
  seq: 128,
  mode: 'training',
  predictor: 'tilecast',
  dp: 1,
  tp: 1,
  pp: 80,
  microbatches,
  zero: 0,
  recompute: 'none',
  schedule: '1f1b',
});
const errorOf = (r) => {
  try {
    tc.forecastModel(r);
  } catch (e) {
    return e.message;
  }
  throw new Error(`${JSON.stringify(r)} was answered`);
};

// One try of typing over the slow call: void (null) when the call had already answered by the
// first keystroke's input event, or answered before it could be superseded, which a busy machine
// can make happen (the call takes 0.4-1.3 s).
async function typeOverSlowCall() {
  const page = await open(LINK);
  // A grace shorter than the wait before typing: the superseded call is still running past it.
  await page.evaluate(() => (window.tilecastPage.worker.settings.graceMs = 50));
  const s0 = await stats(page);
  // The page's thread: the longest gap between two timer tasks, the longest wait of an input
  // event, and (captured before the page's own handlers) which call ran at the first keystroke.
  await page.evaluate(() => {
    const w = window;
    w.probe = { gap: 0, input: 0, events: 0, stop: false, slowId: 0, atFirstKey: undefined };
    let last = performance.now();
    const tick = () => {
      const now = performance.now();
      w.probe.gap = Math.max(w.probe.gap, now - last);
      last = now;
      if (!w.probe.stop) setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    document.addEventListener(
      'input',
      (e) => {
        w.probe.events += 1;
        w.probe.input = Math.max(w.probe.input, performance.now() - e.timeStamp);
        if (w.probe.slowId && w.probe.atFirstKey === undefined)
          w.probe.atFirstKey = w.tilecastPage.worker.running()?.id ?? 0;
      },
      true,
    );
  });
  // The slow one (4,096 micro-batches), then while it runs "33" typed into the same field.
  await page.fill('#microbatches', '4096');
  await page.waitForFunction((done) => {
    const r = window.tilecastPage.worker.running();
    if (r?.slot === 'card' && r.name === 'forecastModel') window.probe.slowId = r.id;
    return window.probe.slowId > 0 || window.tilecastPage.jobs.card.finished > done;
  }, s0.card.finished);
  // (The field still has the focus: select its text and type, at once.)
  await page.keyboard.press('Control+A');
  await page.keyboard.type('33', { delay: 40 });
  const probe = await page.evaluate(() => window.probe);
  if (probe.atFirstKey !== probe.slowId) {
    await page.close();
    return null;
  }
  // ... nor when it answered within the grace period after the keystroke, before it could be
  // ended (it was running at the first key, but near its end: seen once on a clean clone)
  await page.waitForTimeout(300);
  if ((await stats(page)).worker.endedSuperseded <= s0.worker.endedSuperseded) {
    await page.close();
    return null;
  }
  return { page, s0 };
}

test('typing while a slow forecast runs is never blocked, and its superseded answer never shows', async () => {
  const expected = `No forecast: ${errorOf(request(33))}`;
  let attempt = null;
  for (let i = 0; i < 3 && !attempt; ++i) attempt = await typeOverSlowCall();
  assert.ok(attempt, 'in 3 tries the slow call had always answered before it could be superseded');
  const { page, s0 } = attempt;
  await page.waitForFunction(
    (text) => document.getElementById('forecast-error').textContent.trim() === text,
    expected,
    {
      timeout: 30000,
    },
  );
  const shownAt = await stats(page);
  // Long enough for the slow call to have answered had it not been ended.
  await page.waitForTimeout(3000);
  const probe = await page.evaluate(() => {
    window.probe.stop = true;
    return window.probe;
  });
  const s1 = await stats(page);
  assert.equal((await page.locator('#forecast-error').textContent()).trim(), expected);
  assert.equal(s1.forecasts, shownAt.forecasts, 'nothing was drawn after the newest forecast');
  assert.equal(s1.worker.dropped - s0.worker.dropped >= 1, true, JSON.stringify(s1.worker));
  assert.match(await page.locator('#share-link').inputValue(), /[?&]mb=33(&|$)/);
  assert.ok(probe.events >= 3, JSON.stringify(probe));
  // The slow call was superseded past the grace period: its worker was ended and a new one started.
  assert.ok(s1.worker.endedSuperseded > s0.worker.endedSuperseded, JSON.stringify(s1.worker));
  assert.ok(s1.worker.workers > s0.worker.workers, JSON.stringify(s1.worker));
  assert.ok(s1.card.cancelled > s0.card.cancelled, JSON.stringify(s1.card));
  // The slow call's own time, asked again on the new worker (as cold: it has only answered the
  // errors) and left to finish: the page's thread doing it would have been held that long.
  await page.evaluate(() => (window.tilecastPage.worker.settings.graceMs = 400));
  await page.fill('#microbatches', '4096');
  await page.waitForFunction(
    (k) => window.tilecastPage.jobs.card.finished > k && Number(document.getElementById('latency').dataset.value) > 0,
    s1.card.finished,
    { timeout: 30000 },
  );
  const slowMs = (await stats(page)).card.maxSliceMs;
  assert.ok(slowMs > 100, `the slow call took ${slowMs} ms`);
  // What is left is drawing and this shared machine's noise (30-200 ms seen on 2 busy cores).
  assert.ok(
    probe.gap < slowMs / 2,
    `the page's thread was busy for ${probe.gap.toFixed(0)} ms at once (the call: ${slowMs.toFixed(0)} ms)`,
  );
  assert.ok(
    probe.input < slowMs / 2,
    `an input event waited ${probe.input.toFixed(0)} ms (the call: ${slowMs.toFixed(0)} ms)`,
  );
  console.log(
    `# the call ${slowMs.toFixed(0)} ms on the worker; the page's thread: longest gap ${probe.gap.toFixed(1)} ms, longest input wait ${probe.input.toFixed(1)} ms`,
  );
  await page.close();
});

test('a forecast past the time limit says what to reduce, and the page stays usable', async () => {
  const page = await open(LINK);
  // A limit far below the slow call's time (300-1,300 ms cold; CI's faster machine took 306 ms,
  // past a 300 ms limit by too little to rely on), so the test does not depend on the machine.
  await page.evaluate(() => (window.tilecastPage.worker.settings.limitMs = 30));
  const s0 = await stats(page);
  await page.fill('#microbatches', '4096');
  await page.waitForFunction(() => /stopped after/.test(document.getElementById('forecast-error').textContent), null, {
    timeout: 30000,
  });
  assert.equal(
    (await page.locator('#forecast-error').textContent()).trim(),
    "No forecast: The forecast was stopped after 0.03 s (the page's time limit for one call): " +
      'reduce the batch size, the sequence length, the micro-batches or the GPUs.',
  );
  const s1 = await stats(page);
  assert.equal(s1.worker.endedLimit - s0.worker.endedLimit, 1);
  // Usable: the next forecast answers (on a fresh worker) and clears the message.
  await page.evaluate(() => (window.tilecastPage.worker.settings.limitMs = 20000));
  const expected = tc.forecastModel(request(64)).latency_ms;
  await page.fill('#microbatches', '64');
  await page.waitForFunction((v) => Number(document.getElementById('latency').dataset.value) === v, expected, {
    timeout: 30000,
  });
  assert.equal((await page.locator('#forecast-error').textContent()).trim(), '');
  assert.ok((await stats(page)).worker.workers > s1.worker.workers);
  await page.close();
});

test("a request the core refuses for its cost shows the core's message", async () => {
  const page = await open('?gpu=h100-sxm&model=gpt2&mode=training&batch=1&seq=128');
  const gpt2 = JSON.parse(fs.readFileSync(path.join(REPO, 'model_zoo/gpt2.json'), 'utf8'));
  const config = { ...gpt2, n_layer: 100000 }; // the validator's largest
  let message = '';
  try {
    tc.forecastModel({ gpu: 'h100-sxm', model: config, batch: 1, seq: 128, mode: 'training', predictor: 'tilecast' });
  } catch (e) {
    message = e.message;
  }
  assert.match(message, /over the budget of [\d.e+]+ per request .*reduce the model's layers/);
  await page.locator('#custom-model summary').click();
  await page.fill('#model-config', JSON.stringify(config));
  await page.click('#model-config-use');
  await page.waitForFunction(() => /budget/.test(document.getElementById('forecast-error').textContent), null, {
    timeout: 30000,
  });
  assert.equal((await page.locator('#forecast-error').textContent()).trim(), `No forecast: ${message}`);
  await page.close();
});

test("while the forecaster's thread loads, the card is answered on the page's own instance; what needs the thread waits for it", async () => {
  // The thread's script held back, so that it is still loading when the first forecasts are asked:
  // the first page's until its card has been checked (however slow the machine), each later page's
  // for 1.5 s, long enough for its first forecast to be asked while the thread loads.
  const ctx = await pages.newContext();
  let releaseFirst;
  const firstHeld = new Promise((resolve) => (releaseFirst = resolve));
  let scripts = 0;
  await ctx.route(/\/assets\/core_worker-[^/]*\.js$/, async (route) => {
    await (scripts++ === 0 ? firstHeld : new Promise((resolve) => setTimeout(resolve, 1500)));
    await route.continue();
  });
  const latency = (page) => page.evaluate(() => Number(document.getElementById('latency').dataset.value));
  const loading = (page) => page.evaluate(() => window.tilecastPage.worker.running()?.name === 'load');
  const one = { gpu: 'h100-sxm', model: 'gpt2', batch: 2, seq: 128, mode: 'training', predictor: 'tilecast' };
  const page = await pages.open('?gpu=h100-sxm&model=gpt2&mode=training&batch=2&seq=128', { in: ctx });
  assert.ok(await loading(page), 'the thread was still loading when the first forecast was shown');
  assert.equal((await stats(page)).worker.onPage, 1);
  assert.equal(await latency(page), tc.forecastModel(one).latency_ms);
  assert.ok(await loading(page), 'the thread was still loading when the card was checked');
  releaseFirst();
  // Once loaded, the worker runs the same call (warming its learned models), then answers the card.
  await page.waitForFunction(
    () => window.tilecastPage.worker.stats.calls >= 2 && !window.tilecastPage.worker.running(),
    null,
    {
      timeout: 30000,
    },
  );
  await page.fill('#batch', '3');
  await page.waitForFunction(
    (v) => Number(document.getElementById('latency').dataset.value) === v,
    tc.forecastModel({ ...one, batch: 3 }).latency_ms,
    {
      timeout: 30000,
    },
  );
  const after = await stats(page);
  assert.deepEqual(
    [after.worker.onPage, after.worker.calls, after.worker.workers],
    [1, 3, 1],
    JSON.stringify(after.worker),
  );
  await page.close();
  // A model by its sizes may cost up to the core's work budget: the thread answers it.
  const sized = await pages.open(
    '?gpu=h100-sxm&model=sizes&msz=hidden-1024_layers-4_heads-16_vocab-32000_mlp-gelu_pos-learned&mode=training&batch=2&seq=128',
    { in: ctx },
  );
  assert.equal((await stats(sized)).worker.onPage, 0);
  assert.ok((await latency(sized)) > 0);
  await sized.close();
  // Several GPUs need the deferred part, whose bytes the page's thread has not yet at boot: the thread answers.
  const pp = { ...one, batch: 8, dp: 1, tp: 1, pp: 2, microbatches: 4, zero: 0, recompute: 'none', schedule: '1f1b' };
  const split = await pages.open('?gpu=h100-sxm&model=gpt2&mode=training&batch=8&seq=128&pp=2&mb=4', { in: ctx });
  const s = await stats(split);
  assert.equal(s.worker.onPage, 0, JSON.stringify(s.worker));
  assert.ok(!(await loading(split)), 'answered once the thread had loaded');
  assert.equal(await latency(split), tc.forecastModel(pp).latency_ms);
  await ctx.close();
});

test('no script error happened', () => {
  assert.deepEqual(pages.pageErrors, []);
});
