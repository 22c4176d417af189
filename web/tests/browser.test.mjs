// Browser tests: the built site (web/dist) in Debian's Chromium via playwright-core,
// served by web/scripts/serve.mjs on 127.0.0.1. Numbers on the page must equal the
// native CLI's. Screenshots go to test-artifacts/.
// Run: node --test web/tests/browser.test.mjs (after scripts/build_web.sh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import { REPO, DIST, cli, cliJson, cliForecastArgs, loadWasm } from './helpers.mjs';
import { startPages } from './support/browser.mjs';

const ARTIFACTS = path.join(REPO, 'test-artifacts');
let pages;
let base;
let browser;
let context;
let pageErrors;
const external = [];

before(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  pages = await startPages();
  ({ base, browser, context, pageErrors } = pages);
  context.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(base) && !u.startsWith('data:') && !u.startsWith('blob:')) external.push(u);
  });
});

after(async () => {
  await pages?.close();
});

async function open(query = '', page) {
  page ??= await context.newPage();
  await page.goto(base + query);
  await page.waitForSelector('html[data-ready="1"]', { timeout: 15000 });
  return page;
}

async function forecasts(page) {
  return Number(await page.evaluate(() => document.documentElement.dataset.forecasts ?? '0'));
}

// Waits until the page has finished `n` forecasts in total.
async function waitForecasts(page, n) {
  await page.waitForFunction((k) => Number(document.documentElement.dataset.forecasts ?? '0') >= k, n);
}

// The numbers on screen (exact values from data-value); prefix 'embed-' for the embed card.
async function shown(page, prefix = '') {
  const value = async (id) => {
    const v = await page.locator(`#${prefix}${id}`).getAttribute('data-value');
    return v === null ? null : Number(v);
  };
  return {
    latency: await value('latency'),
    roofline: await value('roofline'),
    samples: await value('samples'),
    tokens: await value('tokens'),
    error: (await page.locator(prefix ? '#embed-error' : '#forecast-error').count())
      ? ((await page.locator(prefix ? '#embed-error' : '#forecast-error').textContent()) ?? '').trim()
      : '',
  };
}

// The page's numbers must be the CLI's numbers (or its error, the same message).
async function assertMatchesCli(page, req, prefix = '', extra = []) {
  const native = cli([...cliForecastArgs({ predictor: 'tilecast', ...req }), ...extra]);
  const s = await shown(page, prefix);
  if (!native.ok) {
    assert.ok(s.error.includes(native.error), `page shows "${s.error}", CLI says "${native.error}"`);
    return null;
  }
  const f = JSON.parse(native.text);
  assert.equal(s.error, '');
  assert.equal(s.latency, f.latency_ms);
  assert.equal(s.roofline, f.roofline_latency_ms);
  assert.equal(s.samples, f.samples_per_s);
  assert.equal(s.tokens, f.tokens_per_s);
  return f;
}

test('the default view shows GPT-3 2.7B training on H100 SXM at once', async () => {
  const page = await open('');
  await assertMatchesCli(page, { gpu: 'h100-sxm', model: 'gpt3-2.7b', batch: 1, seq: 1024, mode: 'training' });
  assert.equal(await page.locator('#gpu-select').inputValue(), 'h100-sxm');
  assert.equal(await page.locator('#model-select').inputValue(), 'gpt3-2.7b');
  assert.match(
    await page.locator('#share-link').inputValue(),
    /gpu=h100-sxm&model=gpt3-2\.7b&mode=training.*batch=1&seq=1024&v=/,
  );
  // Defaults write no precision, torch.compile or multi-GPU parameter (links as before).
  assert.doesNotMatch(
    await page.locator('#share-link').inputValue(),
    /[?&](fprec|compile|feng|dp|ptp|pp|mb|zero|rc|sched|sys|cp|vpp|sp|tokens|msz)=/,
  );
  // No Hopper GPU was measured for training: the forecast says so.
  assert.match(await page.locator('#caveats').textContent(), /No Hopper GPU was measured/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'main-view.png'), fullPage: true });
  await page.close();
});

test("changing GPU, model, mode and batch updates the numbers to the CLI's", async () => {
  const page = await open('?gpu=h100-sxm&model=gpt3-2.7b&mode=training&batch=1&seq=2048');
  let n = await forecasts(page);
  await page.selectOption('#gpu-select', 'a100-80gb-sxm');
  await waitForecasts(page, ++n);
  // A measured architecture: no architecture caveat; GPT-3 2.7B's FP32 Adam step needs more
  // than the 85.9 GB its driver reports, which the core's memory caveat says (and the memory bar shows).
  const caveat = await page.locator('#caveats').textContent();
  assert.doesNotMatch(caveat, /was measured/);
  assert.match(
    caveat,
    /^memory: a training step with Adam needs about [\d.]+ GB of the GPU's 85.9 GB: it does not fit/,
  );
  assert.equal(await page.locator('#train-memory-bar').getAttribute('data-fits'), 'false');
  assert.match(await page.locator('#train-memory-note').textContent(), /^Does not fit by [\d.]+ GB/);
  await page.fill('#seq', '256');
  await waitForecasts(page, ++n);
  assert.equal(await page.locator('#caveats').textContent(), '');
  assert.equal(await page.locator('#caveats').isVisible(), false);
  await page.fill('#seq', '2048');
  await waitForecasts(page, ++n);
  await page.selectOption('#model-select', 'llama2-7b');
  await waitForecasts(page, ++n);
  await page.fill('#batch', '4');
  await waitForecasts(page, ++n);
  await page.fill('#seq', '1024');
  await waitForecasts(page, ++n);
  await page.check('input[name="mode"][value="inference"]');
  await waitForecasts(page, ++n);
  const f = await assertMatchesCli(page, {
    gpu: 'a100-80gb-sxm',
    model: 'llama2-7b',
    batch: 4,
    seq: 1024,
    mode: 'inference',
  });
  // Export: CSV and JSON files with the numbers on screen.
  if (f) {
    const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
    assert.match(csv.suggestedFilename(), /^tilecast-llama2-7b-a100-80gb-sxm-inference-b4-s1024\.csv$/);
    const csvText = fs.readFileSync(await csv.path(), 'utf8');
    assert.ok(csvText.includes(`summary,latency_ms,,${f.forward_ms},${f.backward_ms},${f.latency_ms}`));
    assert.ok(f.band_low_ms < f.latency_ms && f.latency_ms < f.band_high_ms);
    assert.ok(csvText.includes(`summary,band_low_ms,,,,${f.band_low_ms}\r\nsummary,band_high_ms,,,,${f.band_high_ms}`));
    const [json] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
    const exported = JSON.parse(fs.readFileSync(await json.path(), 'utf8'));
    assert.deepEqual(exported.forecast, f);
    assert.match(exported.link, /model=llama2-7b/);
  }
  await page.selectOption('#predictor', 'roofline');
  await waitForecasts(page, ++n);
  const native = cli(
    cliForecastArgs({
      gpu: 'a100-80gb-sxm',
      model: 'llama2-7b',
      batch: 4,
      seq: 1024,
      mode: 'inference',
      predictor: 'roofline',
    }),
  );
  assert.equal((await shown(page)).latency, JSON.parse(native.text).latency_ms);
  // Searching narrows the GPU list and the selection follows it.
  await page.fill('#gpu-search', 'mi300');
  await waitForecasts(page, ++n);
  assert.equal(await page.locator('#gpu-select').inputValue(), 'mi300x');
  // The roofline makes no learned claim; the learned model says which AMD generations it saw.
  assert.equal(await page.locator('#caveats').textContent(), '');
  await page.selectOption('#predictor', 'tilecast');
  await waitForecasts(page, ++n);
  assert.match(
    await page.locator('#caveats').textContent(),
    /No CDNA 3 GPU was measured: the AMD models learned from CDNA and CDNA 2 GPUs/,
  );
  // A bad batch size is an inline message; the last forecast stays.
  const kept = await shown(page);
  await page.fill('#batch', '0');
  assert.match(await page.locator('#workload-error').textContent(), /whole number from 1 to 65,536/);
  await page.fill('#batch', '');
  assert.match(await page.locator('#workload-error').textContent(), /whole number/);
  assert.deepEqual(await shown(page), kept);
  await page.close();
});

test("a copy of a catalog GPU keeps its printed memory total only while its memory is the catalog's", async () => {
  const page = await open('?gpu=h100-sxm&model=gpt2&seq=256&batch=2');
  let n = await forecasts(page);
  await page.locator('#custom-gpu summary').click();
  const linkedSpec = async () => {
    const link = await page.locator('#share-link').inputValue();
    const packed = link.match(/cgpu=z([\w-]+)/)[1];
    return JSON.parse(zlib.inflateRawSync(Buffer.from(packed, 'base64url')).toString());
  };
  await page.click('#custom-gpu-fill');
  await page.click('#custom-gpu-use');
  await waitForecasts(page, ++n);
  assert.equal((await linkedSpec()).mem_reported_mib, 81559); // the H100's nvidia-smi total
  await page.fill('#cg-mem_gb', '96');
  await page.click('#custom-gpu-use');
  await waitForecasts(page, ++n);
  const edited = await linkedSpec();
  assert.equal(edited.mem_gb, 96);
  assert.equal(edited.mem_reported_mib, undefined); // 96 GB of HBM3: the rule's 96 GiB
  assert.equal(edited.memory_type, 'HBM3');
  await page.close();
});

test('a share link round-trips, custom GPU and pasted config included', async () => {
  const page = await open('?model=gpt2&seq=256&batch=2');
  let n = await forecasts(page);
  await page.locator('#custom-gpu summary').click();
  await page.click('#custom-gpu-fill');
  await page.fill('#cg-name', 'Test GPU X');
  await page.fill('#cg-fp32_gflops', '50000');
  await page.fill('#cg-mem_bw_gbps', '2000');
  await page.click('#custom-gpu-use');
  await waitForecasts(page, ++n);
  assert.equal(await page.locator('#custom-gpu-error').textContent(), '');
  assert.equal(await page.locator('#gpu-select').inputValue(), 'custom');
  const config = JSON.parse(fs.readFileSync(path.join(REPO, 'model_zoo/opt-1.3b.json'), 'utf8'));
  config.num_hidden_layers = 4;
  await page.locator('#custom-model summary').click();
  await page.fill('#model-config', JSON.stringify(config, null, 1));
  await page.click('#model-config-use');
  await waitForecasts(page, ++n);
  assert.equal(await page.locator('#model-select').inputValue(), 'custom');
  const first = await shown(page);
  const link = await page.locator('#share-link').inputValue();
  assert.match(link, /gpu=custom&cgpu=z[\w-]+&model=custom&cmodel=z[\w-]+/);

  const again = await open(link.slice(base.length));
  assert.deepEqual(await shown(again), first);
  assert.equal(await again.locator('#gpu-select').inputValue(), 'custom');
  assert.equal(await again.locator('#model-select').inputValue(), 'custom');
  assert.equal(await again.locator('#notice').isHidden(), true);

  // A tampered link: a clear notice, and the page still forecasts.
  const tampered = link.replace(/cgpu=z([\w-]{6})/, 'cgpu=zQQQQQQ').replace(/batch=2/, 'batch=two');
  await open(tampered.slice(base.length), again);
  const notice = await again.locator('#notice').textContent();
  assert.match(notice, /custom GPU in the link is damaged/);
  assert.match(notice, /batch size "two" is not a whole number/);
  assert.ok((await shown(again)).latency > 0 || (await shown(again)).error !== '');
  // Links built by hand: absurd GPU numbers, a decompression bomb.
  const pack = (value) =>
    'z' +
    zlib.deflateRawSync(Buffer.from(typeof value === 'string' ? value : JSON.stringify(value))).toString('base64url');
  const absurd = {
    name: 'Absurd',
    vendor: 'NVIDIA',
    num_sm: 1e12,
    cores_per_sm: 128,
    boost_clock_mhz: 1500,
    fp32_gflops: 1,
    mem_gb: 1,
    mem_bw_gbps: 1,
    l2_mb: 1,
  };
  await open(`?gpu=custom&cgpu=${pack(absurd)}&model=gpt2&seq=128`, again);
  assert.match(await again.locator('#notice').textContent(), /custom GPU in the link was rejected: .*num_sm/);
  assert.equal(await again.locator('#gpu-select').inputValue(), 'h100-sxm');
  await open(`?model=custom&cmodel=${pack(' '.repeat(4 << 20))}&seq=128`, again);
  assert.match(
    await again.locator('#notice').textContent(),
    /model config in the link is damaged: it inflates to more than/,
  );
  assert.ok((await shown(again)).latency > 0 || (await shown(again)).error !== '');
  // A link from another version says so.
  await open('?gpu=t4&model=gpt2&seq=128&v=0.0.1', again);
  assert.match(await again.locator('#notice').textContent(), /made with tilecast 0\.0\.1/);
  await again.close();
  await page.close();
});

// Every parameter a link can carry (state.ts LINK_FIELDS), each away from its default: the page
// opens with each in its control and writes each back, in the same words, with nothing added.
test('every link parameter round-trips, and each choice and switch is shown in its control', async () => {
  const fields = {
    view: 'serve',
    gpu: 'h100-sxm',
    model: 'llama3-8b',
    mode: 'inference',
    pred: 'roofline',
    batch: '3',
    seq: '512',
    prompt: '300',
    out: '40',
    tp: '2',
    prec: 'fp8',
    engine: 'eager',
    w: 'int4',
    kv: 'fp8',
    fprec: 'bf16',
    feng: 'compiled',
    dp: '2',
    ptp: '2',
    pp: '2',
    mb: '4',
    zero: '1',
    rc: 'selective',
    sched: 'gpipe',
    sys: 'dgx-h100',
    cp: '2',
    ep: '2',
    vpp: '2',
    sp: '1',
    attn: 'fused-softmax',
    tokens: '300B',
    dopt: '0',
    overlap: '0',
    ft: 'lora',
    mw: 'half',
    lrank: '8',
    ltgt: 'all_linear',
    lqps: '12.5',
    lpts: '5',
    lreq: '200',
    lseed: '7',
    lrr: '0.25',
    lep: '2',
    sttft: '400',
    stpot: '40',
    cqps: '7.5',
    cprice: '2.5',
    cmax: '16',
  };
  const page = await open(`?${new URLSearchParams(fields)}`);
  assert.equal(await page.locator('#notice').isHidden(), true, await page.locator('#notice').textContent());
  const back = Object.fromEntries(new URL(await page.locator('#share-link').inputValue()).searchParams);
  delete back.v;
  assert.deepEqual(back, fields);
  const selects = {
    predictor: 'roofline',
    precision: 'fp8',
    'serve-engine': 'eager',
    'serve-weights': 'int4',
    'serve-kv-cache': 'fp8',
    fprec: 'bf16',
    feng: 'compiled',
    recompute: 'selective',
    schedule: 'gpipe',
    attention: 'fused-softmax',
    finetune: 'lora',
    'master-weights': 'half',
    'lora-targets': 'all_linear',
  };
  for (const [id, value] of Object.entries(selects)) assert.equal(await page.locator(`#${id}`).inputValue(), value, id);
  assert.equal(await page.locator('#sp').isChecked(), true);
  assert.equal(await page.locator('#dopt').isChecked(), false);
  assert.equal(await page.locator('#overlap').isChecked(), false);
  // A control changed is in the next link; choosing Megatron-Core from FP32 takes BF16 with it.
  await open('?model=gpt2&seq=128', page);
  await page.selectOption('#recompute', 'full');
  await page.waitForFunction(() => document.getElementById('share-link').value.includes('rc=full'));
  await page.selectOption('#feng', 'megatron');
  await page.waitForFunction(() => /feng=megatron/.test(document.getElementById('share-link').value));
  assert.match(await page.locator('#share-link').inputValue(), /fprec=bf16&feng=megatron/);
  assert.equal(await page.locator('#fprec').inputValue(), 'bf16');
  await page.close();
});

test('a bad pasted config shows the error and the page keeps working', async () => {
  const page = await open('?model=gpt2&seq=128');
  const before = await shown(page);
  await page.locator('#custom-model summary').click();
  const cases = [
    ['{"model_type": "llama", "hidden_size": ', /not valid JSON/],
    ['{"model_type": "llama", "hidden_size": "big", "num_hidden_layers": []}', /hidden_size|num_hidden_layers/],
    ['{"a":'.repeat(5000) + '1' + '}'.repeat(5000), /nested deeper|not valid JSON/],
    ['[' + '1,'.repeat(600000) + '1]', /at most \d+ are accepted/],
    ['{"model_type": "<img src=x onerror=alert(1)>", "hidden_size": 1}', /model/],
  ];
  for (const [text, pattern] of cases) {
    await page.fill('#model-config', text);
    await page.click('#model-config-use');
    const msg = await page.locator('#model-config-error').textContent();
    assert.match(msg, pattern);
    assert.deepEqual(await shown(page), before, 'the previous forecast stays');
  }
  assert.equal(await page.locator('img').count(), 0, 'input is never inserted as HTML');
  // Uploading a config.json file works like pasting it.
  let n = await forecasts(page);
  const upload = fs.readFileSync(path.join(REPO, 'model_zoo/bert-base.json'));
  await page.setInputFiles('#model-config-file', { name: 'config.json', mimeType: 'application/json', buffer: upload });
  await waitForecasts(page, ++n);
  assert.equal(await page.locator('#model-select').inputValue(), 'custom');
  assert.equal(await page.locator('#model-config-error').textContent(), '');
  await page.selectOption('#model-select', 'gpt2');
  await waitForecasts(page, ++n);
  // Absurd custom GPU numbers.
  await page.locator('#custom-gpu summary').click();
  await page.click('#custom-gpu-fill');
  await page.fill('#cg-num_sm', '1e12');
  await page.click('#custom-gpu-use');
  assert.match(await page.locator('#custom-gpu-error').textContent(), /num_sm/);
  await page.fill('#cg-mem_bw_gbps', '');
  await page.click('#custom-gpu-use');
  assert.match(await page.locator('#custom-gpu-error').textContent(), /Bandwidth.*fill this in/);
  // The page still forecasts after all that.
  n = await forecasts(page);
  await page.fill('#batch', '3');
  await waitForecasts(page, n + 1);
  await assertMatchesCli(page, { gpu: 'h100-sxm', model: 'gpt2', batch: 3, seq: 128, mode: 'training' });
  await page.close();
});

test('embed mode renders a compact card', async () => {
  const page = await context.newPage();
  await page.setViewportSize({ width: 460, height: 270 });
  await open('?embed=1&gpu=rtx-4090&model=llama3-8b&mode=inference&batch=1&seq=512', page);
  assert.equal(await page.locator('#app').isHidden(), true);
  assert.equal(await page.locator('#embed').isVisible(), true);
  const text = await page.locator('#embed').textContent();
  assert.match(text, /on NVIDIA GeForce RTX 4090|No forecast/);
  await assertMatchesCli(
    page,
    { gpu: 'rtx-4090', model: 'llama3-8b', batch: 1, seq: 512, mode: 'inference' },
    'embed-',
  );
  assert.match(await page.locator('#embed-caveats').getAttribute('title'), /No Ada Lovelace GPU was measured/);
  const link = await page.locator('#embed a').getAttribute('href');
  assert.match(link, /gpu=rtx-4090/);
  assert.doesNotMatch(link, /embed=1/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'embed.png') });
  await page.close();
});

test('offline once loaded: compare, sweep and accuracy views, keyboard tabs, phone layout', async () => {
  const page = await open('?model=gpt2&seq=128&view=compare&cmp=a100-80gb-sxm,t4');
  // Everything the page needs is loaded up front (the accuracy report included).
  await page.waitForFunction(() =>
    performance.getEntriesByType('resource').some((r) => r.name.endsWith('accuracy.json') && r.responseEnd > 0),
  );
  await page.waitForLoadState('networkidle');
  // The service worker holds copies of every file the page loaded.
  await page.waitForSelector('html[data-offline="1"]');
  await page.waitForFunction(async () => {
    const keys = await (await caches.open('tilecast')).keys();
    const names = keys.map((r) => r.url);
    return ['tilecast_wasm.wasm', 'tilecast_wasm.deferred.wasm', 'tilecast_wasm.mjs', 'accuracy.json', '.css'].every(
      (f) => names.some((n) => n.includes(f)),
    );
  });
  await context.setOffline(true);
  assert.equal(await page.locator('#view-compare').isVisible(), true);
  assert.equal(await page.locator('#compare-table tbody tr').count(), 3);
  // Each GPU's 80% band beside its latency: the selected GPU's is the card's.
  const bandCell = await page.locator('#compare-table tbody tr').first().locator('td').nth(1).textContent();
  assert.match(bandCell, /^[\d.,]+ m?s–[\d.,]+ m?s$/);
  assert.ok((await page.locator('#latency-sub').textContent()).includes(`80% band ${bandCell}`));
  await page.focus('#tab-compare');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.locator('#view-sweep').isVisible(), true);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'tab-sweep');
  const native = cli(
    cliForecastArgs({ gpu: 'h100-sxm', model: 'gpt2', batch: 64, seq: 128, mode: 'training', predictor: 'tilecast' }),
  );
  // The sweep runs off the input path: its points arrive after the tab is shown.
  await page.waitForSelector('#sweep-status[data-points]');
  if (native.ok) assert.equal(await page.locator('#sweep-status').getAttribute('data-points'), '64');
  if (native.ok) assert.equal(await page.locator('#sweep-latency').getAttribute('data-band'), '1');
  else assert.ok((await page.locator('#sweep-error').textContent()).includes(native.error));
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(
    () =>
      (document.getElementById('accuracy-status')?.textContent ?? '').length > 0 &&
      !/Loading/.test(document.getElementById('accuracy-status')?.textContent ?? ''),
  );
  await page.waitForURL(/view=accuracy/);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.click('#tab-forecast');
  await page.screenshot({ path: path.join(ARTIFACTS, 'phone.png'), fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the page scrolls sideways on a phone by ${overflow}px`);
  assert.doesNotMatch(await page.locator('#accuracy-status').textContent(), /not available/);
  // Reloading without a network still gives a forecast.
  await page.reload();
  await page.waitForSelector('html[data-ready="1"]', { timeout: 15000 });
  assert.ok((await shown(page)).latency > 0 || (await shown(page)).error !== '');
  await context.setOffline(false);
  await page.close();
});

// The page's counters (window.tilecastPage): forecasts on screen, engine calls
// and memo hits, background jobs per slot.
async function counters(page) {
  return page.evaluate(() => {
    const p = window.tilecastPage;
    return {
      forecasts: p.forecasts,
      computed: p.memo.computed,
      hits: p.memo.hits,
      sweep: { ...p.jobs.sweep },
      compare: { ...p.jobs.compare },
    };
  });
}

test('identical requests are answered from the memo', async () => {
  const page = await open('?model=gpt2&seq=128');
  const first = await shown(page);
  const c0 = await counters(page);
  await page.fill('#batch', '2');
  await waitForecasts(page, c0.forecasts + 1);
  await page.fill('#batch', '1');
  await waitForecasts(page, c0.forecasts + 2);
  assert.deepEqual(await shown(page), first);
  const c1 = await counters(page);
  assert.equal(c1.computed - c0.computed, 1, 'batch 1 again is not forecast again');
  // The comparison computes its other GPUs once; the selected one is the card's forecast. (The
  // MI300X's waits for its model, fetched on demand: not a forecast until it is in.)
  await page.click('#tab-compare');
  await page.waitForFunction(
    () =>
      document.querySelectorAll('#compare-table tbody tr').length === 5 &&
      !/Loading the forecaster/.test(document.getElementById('compare-error').textContent),
  );
  const c2 = await counters(page);
  assert.equal(c2.computed - c1.computed, 4);
  await page.click('#tab-forecast');
  await page.click('#tab-compare');
  await page.selectOption('#predictor', 'roofline');
  await waitForecasts(page, c2.forecasts + 1);
  await page.selectOption('#predictor', 'tilecast');
  await waitForecasts(page, c2.forecasts + 2);
  await page.waitForFunction(() => !document.getElementById('compare-status').textContent);
  const c3 = await counters(page);
  assert.equal(c3.computed - c2.computed, 5, 'only the roofline comparison was new');
  assert.equal(await page.locator('#compare-table tbody tr').count(), 5);
  // Exports read the forecast on screen from the memo.
  await page.click('#tab-forecast');
  const [json] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
  assert.equal(JSON.parse(fs.readFileSync(await json.path(), 'utf8')).forecast.latency_ms, first.latency);
  assert.equal((await counters(page)).computed, c3.computed);
  await page.close();
});

test('the embed card shows the same figures as the main view', async () => {
  for (const query of [
    'gpu=t4&model=gpt2&seq=128&batch=2&mode=inference',
    'gpu=mi300x&model=llama3-8b&seq=512&pred=roofline',
  ]) {
    const main = await open(`?${query}`);
    const embed = await open(`?embed=1&${query}`);
    for (const id of ['latency', 'latency-label', 'roofline', 'samples', 'tokens']) {
      const a = main.locator(`#${id}`);
      const b = embed.locator(`#embed-${id}`);
      assert.equal(await b.textContent(), await a.textContent(), `#embed-${id} vs #${id} for ${query}`);
      assert.equal(await b.getAttribute('data-value'), await a.getAttribute('data-value'));
    }
    await main.close();
    await embed.close();
  }
});

test('the sweep runs once after typing settles and never blocks input', async () => {
  const page = await open('?model=gpt3-2.7b&seq=256&view=sweep&sweep=256');
  await page.waitForSelector('#sweep-status[data-points="256"]', { timeout: 30000 });
  const c0 = await counters(page);
  // Typing a sequence length keystroke by keystroke (1, 12, 128): the card follows the
  // keystrokes (one whose forecast is not back before the next is superseded: its answer is
  // dropped), the sweep starts once, for the last value. The three input events are sent in
  // one task, as fast typing would: keystrokes sent one by one from here could arrive more
  // than the settling time apart on a busy machine, and then two sweeps would be right.
  await page.evaluate(() => {
    const seq = document.getElementById('seq');
    for (const value of ['1', '12', '128']) {
      seq.value = value;
      seq.dispatchEvent(new Event('input', { bubbles: true }));
    }
  });
  await page.waitForFunction((k) => window.tilecastPage.jobs.sweep.finished > k, c0.sweep.finished, { timeout: 30000 });
  await page.waitForSelector('#sweep-status[data-points="256"]');
  const c1 = await counters(page);
  const cards = c1.forecasts - c0.forecasts;
  assert.ok(cards >= 1 && cards <= 3, `${cards} card forecasts shown for 3 keystrokes`);
  assert.equal(await page.locator('#seq').inputValue(), '128');
  assert.equal(c1.sweep.started - c0.sweep.started, 1, 'one sweep computed');
  assert.equal(c1.sweep.finished - c0.sweep.finished, 1);
  // The card forecasts shown (only answers not superseded are remembered) and 255 more sweep
  // points (batch 1 is the card's).
  assert.equal(c1.computed - c0.computed, cards + 255);
  assert.match(await page.locator('#share-link').inputValue(), /seq=128&/);
  // While a sweep is being computed (on the forecaster's background thread), a keystroke's
  // forecast (on the card's own) is on screen before the sweep ends.
  const during = await page.evaluate(async () => {
    const p = window.tilecastPage;
    const before = { ...p.jobs.sweep };
    const seq = document.getElementById('seq');
    seq.value = '64';
    seq.dispatchEvent(new Event('input', { bubbles: true }));
    while (p.jobs.sweep.started === before.started) await new Promise((r) => setTimeout(r, 0));
    return new Promise((resolve) =>
      setTimeout(() => {
        const forecasts = p.forecasts;
        const batch = document.getElementById('batch');
        batch.value = '3';
        batch.dispatchEvent(new Event('input', { bubbles: true }));
        const shown = () =>
          p.forecasts > forecasts
            ? resolve({
                finishedBefore: before.finished,
                finished: p.jobs.sweep.finished,
                shown: p.forecasts - forecasts,
              })
            : setTimeout(shown, 0);
        shown();
      }, 0),
    );
  });
  assert.equal(during.finished, during.finishedBefore, 'the sweep was still running');
  assert.equal(during.shown, 1, 'the batch change was on screen before the sweep finished');
  await page.waitForFunction((k) => window.tilecastPage.jobs.sweep.finished > k, during.finishedBefore, {
    timeout: 30000,
  });
  await page.waitForSelector('#sweep-status[data-points="256"]');
  const c2 = await counters(page);
  assert.ok(c2.sweep.slices - c1.sweep.slices > 1, 'the sweep yielded between slices');
  // The sweep does not depend on the batch size: no new sweep for it.
  assert.equal(c2.sweep.started - c1.sweep.started, 1);
  // Leaving the view stops a sweep that is waiting or running.
  await page.fill('#seq', '32');
  await page.click('#tab-forecast');
  await page.waitForTimeout(500);
  const c3 = await counters(page);
  assert.equal(c3.sweep.finished, c2.sweep.finished);
  assert.equal(c3.sweep.cancelled - c2.sweep.cancelled, 1);
  await page.close();
});

// Issue 14: what a new user ran into.

const packLink = (value) => 'z' + zlib.deflateRawSync(Buffer.from(JSON.stringify(value))).toString('base64url');

async function pasteConfig(page, config) {
  if ((await page.locator('#custom-model').getAttribute('open')) === null)
    await page.locator('#custom-model summary').click();
  const n = await forecasts(page);
  await page.fill('#model-config', JSON.stringify(config));
  await page.click('#model-config-use');
  await waitForecasts(page, n + 1);
}

test("a large pasted config travels in the link's fragment; one too large for any link is offered as a file", async () => {
  const page = await open('?model=gpt2&seq=128');
  const gpt2 = JSON.parse(fs.readFileSync(path.join(REPO, 'model_zoo/gpt2.json'), 'utf8'));
  // Random text does not compress: 40 KB of it is far beyond what a server takes in a query.
  const medium = { ...gpt2, n_layer: 2, notes: crypto.randomBytes(20000).toString('hex') };
  await pasteConfig(page, medium);
  const figures = await shown(page);
  const link = await page.locator('#share-link').inputValue();
  const [query, fragment] = link.split('#');
  assert.ok(query.length < 2100, `the query is ${query.length} characters`);
  assert.match(query, /model=custom/);
  assert.doesNotMatch(query, /cmodel=/);
  assert.match(fragment, /^cmodel=z[\w-]+$/);
  assert.equal(await page.locator('#share-too-long').isHidden(), true);
  assert.equal((await fetch(query)).status, 200, 'the server answers the link');
  const again = await open(link.slice(base.length));
  assert.equal(await again.locator('#model-select').inputValue(), 'custom');
  assert.deepEqual(await shown(again), figures);
  assert.equal(await again.locator('#notice').isHidden(), true);
  await again.close();
  // 300 KB that deflate cannot shrink: no link holds it; the page says so and offers the file.
  const huge = { ...gpt2, n_layer: 2, notes: crypto.randomBytes(150000).toString('hex') };
  await pasteConfig(page, huge);
  assert.equal(await page.locator('#share-too-long').isVisible(), true);
  assert.match(
    await page.locator('#share-too-long-text').textContent(),
    /too large for a link .*send the config file with it/,
  );
  const short = await page.locator('#share-link').inputValue();
  assert.ok(short.length < 2100 && !short.includes('cmodel'), `the link is ${short.length} characters`);
  assert.equal((await fetch(short)).status, 200);
  const [file] = await Promise.all([page.waitForEvent('download'), page.click('#download-config')]);
  assert.equal(file.suggestedFilename(), 'config.json');
  assert.deepEqual(JSON.parse(fs.readFileSync(await file.path(), 'utf8')), huge);
  const opened = await open(short.slice(base.length));
  assert.match(await opened.locator('#notice').textContent(), /does not carry it .*paste or upload that config\.json/);
  await opened.close();
  await page.close();
});

test('a comparison of every catalog GPU keeps them all, each bar labelled', async () => {
  const ids = cliJson(['gpus', '--json']).map((g) => g.id);
  assert.ok(ids.length > 12);
  const page = await open(`?model=gpt2&seq=128&batch=1&view=compare&cmp=${ids.join(',')}`);
  assert.equal(await page.locator('#notice').isHidden(), true);
  await page.waitForFunction((n) => document.querySelectorAll('#compare-table tbody tr').length === n, ids.length, {
    timeout: 30000,
  });
  assert.equal(
    new URL(await page.locator('#share-link').inputValue()).searchParams.get('cmp').split(',').length,
    ids.length,
  );
  const box = page.locator('#compare-latency').locator('..');
  assert.equal(await box.getAttribute('data-rows'), String(ids.length));
  assert.ok((await box.boundingBox()).height >= ids.length * 26, 'every GPU gets a row of its own');
  const labels = JSON.parse(await page.locator('#compare-latency').getAttribute('data-labels'));
  assert.equal(labels.length, ids.length);
  assert.ok(
    labels.every((l) => l.length <= 22),
    `labels fit beside the bars: ${labels.join(', ')}`,
  );
  // Beyond what a comparison holds, the notice says the limit.
  await open(`?model=gpt2&seq=128&view=compare&cmp=${Array.from({ length: 70 }, (_, i) => `gpu${i}`).join(',')}`, page);
  assert.match(await page.locator('#notice').textContent(), /lists 70 GPUs; a comparison holds at most 64/);
  assert.doesNotMatch(await page.locator('#notice').textContent(), /were not catalog ids/);
  await page.close();
});

test('an invalid batch size marks the forecast on screen as not updated', async () => {
  const page = await open('?model=gpt2&seq=128');
  const kept = await shown(page);
  for (const bad of ['0', '-1', '1.5']) {
    await page.fill('#batch', bad);
    await page.waitForSelector('#forecast-body.stale');
    assert.match(
      await page.locator('#stale-note').textContent(),
      /^Not updated: batch size must be a whole number from 1 to 65,536/,
    );
    assert.deepEqual(await shown(page), kept);
  }
  await page.fill('#batch', '1');
  await page.waitForSelector('#forecast-body:not(.stale)');
  assert.equal(await page.locator('#stale-note').isHidden(), true);
  await page.close();
});

test("the page says what it forecasts, in the user's words", async () => {
  const page = await open('?gpu=t4&model=gpt2&seq=128&mode=inference');
  assert.match(
    await page.locator('#assumptions').textContent(),
    /inference pass: a single forward pass .*PyTorch eager mode, FP32 without TF32, on one GPU/,
  );
  assert.match(await page.locator('#tokens').textContent(), /prefill tokens\/s$/);
  assert.match(await page.locator('#tokens-note').textContent(), /one forward pass .*not generation speed/);
  const subs = await page.locator('#substitutions').textContent();
  assert.match(subs, /embedding lookup like adding a scalar/);
  assert.doesNotMatch(subs, /addu/);
  let n = await forecasts(page);
  await page.check('input[name="mode"][value="training"]');
  await waitForecasts(page, n + 1);
  assert.match(
    await page.locator('#assumptions').textContent(),
    /one training step .*PyTorch eager mode, FP32 without TF32, on one GPU/,
  );
  assert.match(await page.locator('#tokens').textContent(), /\d tokens\/s$/);
  // The CSV has the caveats the JSON has.
  await page.selectOption('#gpu-select', 'h100-sxm');
  await waitForecasts(page, n + 2);
  const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
  assert.match(fs.readFileSync(await csv.path(), 'utf8'), /\r\ncaveat,,,,,"No Hopper GPU was measured/);
  // A damaged link in plain words, not the browser's base64 decoder's.
  await open('?gpu=custom&cgpu=zAAAAA&model=gpt2&seq=128', page);
  const notice = await page.locator('#notice').textContent();
  assert.match(notice, /custom GPU in the link is damaged: it is cut short or damaged/);
  assert.doesNotMatch(notice, /atob|Failed to execute/);
  await page.close();
});

test('the accuracy page shows every evaluation of the report, out-of-architecture first, figures as in the report', async () => {
  const report = JSON.parse(fs.readFileSync(path.join(DIST, 'accuracy.json'), 'utf8'));
  const page = await open('?view=accuracy');
  await page.waitForSelector('#accuracy-body section table');
  const ids = await page.locator('#accuracy-body > section').evaluateAll((els) => els.map((e) => e.id));
  assert.deepEqual(ids, [
    'accuracy-generalization',
    'accuracy-h200',
    'accuracy-fp16-cross-gpu',
    'accuracy-amd-cross-gpu',
    'accuracy-serving',
    'accuracy-parallel',
    'accuracy-e2e',
    'accuracy-kernels',
    'accuracy-fp16',
  ]);
  // The architectures no evaluation measured are named, with their GPUs.
  const coverage = await page.locator('#accuracy-coverage').textContent();
  assert.ok(coverage.includes(`Architectures measured by these evaluations: ${report.measured_architectures}.`));
  // Blackwell is measured by the published B200 serving rows, CDNA 4 by the MI355X ones; an
  // architecture no evaluation measured would be named with its GPUs, and none left is said so.
  assert.ok(report.measured_architectures.includes('Blackwell'));
  assert.ok(report.measured_architectures.includes('CDNA 4'));
  if (report.unmeasured_architectures.length === 0)
    assert.ok(coverage.includes('Every architecture of the GPU catalog is measured.'));
  for (const u of report.unmeasured_architectures)
    assert.ok(coverage.includes(`${u.architecture} (${u.gpus})`), u.architecture);
  // Each says what it is: data, protocol, training and the command that makes it.
  const sections = [
    'generalization',
    'h200',
    'fp16_cross_gpu',
    'amd_cross_gpu',
    'serving',
    'parallel',
    'e2e',
    'kernels',
    'fp16',
  ];
  for (const [i, key] of sections.entries()) {
    const about = page.locator(`#${ids[i]} .accuracy-about dd`);
    const a = report[key].about;
    assert.deepEqual(await about.allTextContents(), [a.data, a.protocol, a.training, a.command], key);
    assert.equal(await page.locator(`#${ids[i]} h3`).textContent(), a.title);
  }
  // Every row of every table, its first figures as the report has them (toFixed(1) is fmtPct's).
  const pct = (v) => (Number.isFinite(v) ? `${v.toFixed(1)}%` : '—');
  const signedPct = (v) => (v > 0 ? `+${pct(v)}` : pct(v));
  const rows = async (id, cells) =>
    page
      .locator(`#${id} tbody tr`)
      .evaluateAll((trs, n) => trs.map((tr) => [...tr.children].slice(0, n).map((c) => c.textContent)), cells);
  const g = report.generalization;
  assert.deepEqual(
    await rows('accuracy-generalization-e2e', 4),
    g.e2e.map((e) => [
      `${e.fold} · ${e.gpu} · ${e.mode}`,
      pct(e.mae_pct),
      pct(e.roofline_mae_pct),
      signedPct(e.signed_mean_pct),
    ]),
  );
  assert.deepEqual(
    (await rows('accuracy-generalization-kernels', 4)).map((r) => r.slice(1)),
    g.kernels.map((k) => [pct(k.mape_pct), pct(k.roofline_mape_pct), signedPct(k.signed_mean_pct)]),
  );
  assert.deepEqual(
    await rows('accuracy-generalization-bands', 2),
    g.bands.map((b) => [b.fold, pct(b.kernel_inside_pct)]),
  );
  const h200 = report.h200.runs.flatMap((run) => [
    ...(run.kernels.length ? [[pct(run.kernels_overall_mape_pct), pct(run.kernels_overall_roofline_mape_pct)]] : []),
    ...run.e2e.map((e) => [pct(e.mean_abs_error_pct), pct(e.roofline_mean_abs_error_pct)]),
  ]);
  assert.deepEqual(
    (await rows('accuracy-h200-table', 3)).map((r) => r.slice(1)),
    h200,
  );
  assert.ok(report.h200.runs.some((r) => r.precision === 'bf16' && r.e2e.length > 0));
  for (const [id, key] of [
    ['accuracy-fp16-cross-gpu-table', 'fp16_cross_gpu'],
    ['accuracy-amd-cross-gpu-table', 'amd_cross_gpu'],
  ])
    assert.deepEqual(
      await rows(id, 3),
      report[key].rows.map((r) => [
        `${r.train_gpu} → ${r.test_gpu} · ${r.op === 'ln' ? 'layer norm' : r.op}`,
        pct(r.mape_pct),
        pct(r.roofline_mape_pct),
      ]),
    );
  assert.deepEqual(
    await rows('accuracy-serving-table', 2),
    report.serving.rows.map((r) => [`${r.id} · ${r.metric}`, `${r.ratio.toFixed(2)}×`]),
  );
  for (const s of report.serving.summary)
    assert.ok(
      (await page.locator('#accuracy-serving').textContent()).includes(
        `median absolute error ${pct(s.median_abs_error_pct)}`,
      ),
    );
  const parallel = (await rows('accuracy-parallel-table', 2)).map((r) => r[1]);
  assert.equal(parallel.length, report.parallel.rows.length);
  for (const [i, r] of report.parallel.rows.entries()) {
    if (r.error_unit === '%') assert.equal(parallel[i], signedPct(r.error));
    else assert.ok(Math.abs(Number(parallel[i].replace(/ points$/, '')) - r.error) < 0.01, parallel[i]);
  }
  assert.ok(
    (await page.locator('#accuracy-parallel').textContent()).includes(
      `mean absolute ${pct(report.parallel.summary.table5_mae_pct)}`,
    ),
  );
  assert.deepEqual(
    (await rows('accuracy-e2e-summary', 3)).map((r) => r.slice(1)),
    report.e2e.summary.map((s) => [pct(s.mean_abs_error_pct), pct(s.roofline_mean_abs_error_pct)]),
  );
  assert.deepEqual(
    (await rows('accuracy-fp16-table', 2)).map((r) => r[1]),
    report.fp16.groups.map((k) => pct(k.mape_pct)),
  );
  // The kernel table labels each row by what it is: a training GPU's test shapes are in
  // distribution ("trained on"), never "held out"; the A100 80GB is an unseen GPU of a seen architecture.
  const kernelRows = await page
    .locator('#accuracy-kernels-table tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.deepEqual(
    kernelRows.map((r) => [r[1], r[4], r[5]]),
    report.kernels.groups.map((k) => [pct(k.mape_pct), k.training, `${k.shapes_in_training} of ${k.n}`]),
  );
  assert.ok(kernelRows.some((r) => r[0].startsWith('Tesla T4') && r[4].startsWith('trained on')));
  assert.ok(
    kernelRows.some(
      (r) => r[0].startsWith('NVIDIA A100 80GB PCIe') && /^not trained on; same architecture \(Ampere\)/.test(r[4]),
    ),
  );
  assert.doesNotMatch(await page.locator('#accuracy-kernels-table').textContent(), /held.out/i);
  await page.close();
});

test("a custom GPU name from a link is cut to the form's 120 characters", async () => {
  const spec = { ...cliJson(['gpus', '--json']).find((g) => g.id === 't4'), name: 'X'.repeat(5000) };
  delete spec.id;
  for (const embed of ['', 'embed=1&']) {
    const page = await open(`?${embed}gpu=custom&cgpu=${packLink(spec)}&model=gpt2&seq=128`);
    const title = await page.locator(embed ? '.embed-title' : '#forecast-title').textContent();
    assert.ok(title.length < 200, `the title is ${title.length} characters`);
    if (!embed)
      assert.match(
        await page.locator('#notice').textContent(),
        /name in the link is 5000 characters long; it was cut to 120/,
      );
    await page.close();
  }
});

test('a GPU search with no match says so and keeps the selected GPU', async () => {
  const page = await open('?model=gpt2&seq=128');
  const kept = await shown(page);
  await page.fill('#gpu-search', 'zzzz');
  await page.waitForFunction(() => document.getElementById('gpu-search-note').textContent !== '');
  assert.match(await page.locator('#gpu-search-note').textContent(), /No GPU matches “zzzz”/);
  assert.equal(await page.locator('#gpu-select').inputValue(), 'h100-sxm');
  assert.deepEqual(await shown(page), kept);
  await page.fill('#gpu-search', 'a100');
  await page.waitForFunction(() => document.getElementById('gpu-search-note').textContent === '');
  await page.close();
});

test('without the charts chunk the page says so and shows the numbers', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const errors = [];
  ctx.on('weberror', (e) => errors.push(e.error().message));
  await ctx.route(/\/assets\/charts-[\w-]+\.js$/, (r) => r.abort());
  const page = await ctx.newPage();
  await open('?model=gpt2&seq=128', page);
  await page.waitForSelector('#breakdown-chart ~ .chart-error, .chart-box .chart-error');
  assert.match(
    await page.locator('.chart-box .chart-error').first().textContent(),
    /chart could not be loaded .*numbers and tables are complete/,
  );
  assert.ok((await shown(page)).latency > 0);
  await page.waitForTimeout(200);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test("the accuracy page's code is not in the first forecast's bytes; without it the page says so", async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const errors = [];
  ctx.on('weberror', (e) => errors.push(e.error().message));
  await ctx.route(/\/assets\/accuracy-[\w-]+\.js$/, (r) => r.abort());
  const page = await ctx.newPage();
  await open('?model=gpt2&seq=128', page);
  assert.ok((await shown(page)).latency > 0);
  await page.click('#tab-accuracy');
  await page.waitForFunction(() =>
    /could not be loaded/.test(document.getElementById('accuracy-status')?.textContent ?? ''),
  );
  assert.match(
    await page.locator('#accuracy-status').textContent(),
    /accuracy page could not be loaded .*reload the page/,
  );
  await page.waitForTimeout(200);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test("the other views' code is not in the first forecast's bytes, then fetched; a view without it says so", async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const errors = [];
  ctx.on('weberror', (e) => errors.push(e.error().message));
  await ctx.route(/\/assets\/sweep_view-[\w-]+\.js$/, (r) => r.abort());
  const page = await open('', await ctx.newPage());
  const chunks = (before) =>
    page.evaluate((before) => {
      const at = performance.getEntriesByName('tilecast-first-forecast')[0].startTime;
      return performance
        .getEntriesByType('resource')
        .filter((r) => /\/assets\/[\w-]+\.js$/.test(r.name) && (before ? r.startTime <= at : true))
        .map((r) => r.name.replace(/^.*\/assets\/(.*)-[\w-]+\.js$/, '$1'));
    }, before);
  // The landing view's first forecast: the page's main chunk and the forecaster's thread only (the
  // charts' chunk may be asked for by the first drawing, in the same render: draw.ts).
  const first = [...new Set(await chunks(true))].filter((c) => c !== 'charts');
  assert.deepEqual(first.sort(), ['core_worker', 'index']);
  // After it, every other view's code (lazy.ts), for offline use and instant views.
  await page.waitForFunction(() =>
    ['serve_view', 'compare_view', 'plan_view', 'export_view', 'link_codec'].every((c) =>
      performance.getEntriesByType('resource').some((r) => r.name.includes(`/assets/${c}-`) && r.responseEnd > 0),
    ),
  );
  assert.ok((await chunks(false)).includes('serve_view'));
  // A view whose code could not be loaded says so; the others work.
  await page.click('#tab-sweep');
  await page.waitForFunction(() =>
    /could not be loaded/.test(document.getElementById('sweep-status')?.textContent ?? ''),
  );
  assert.match(await page.locator('#sweep-status').textContent(), /sweep could not be loaded .*reload the page/);
  await page.click('#tab-compare');
  await page.waitForSelector('#compare-list input[type=checkbox]');
  await page.click('#tab-forecast');
  assert.ok((await shown(page)).latency > 0);
  await page.waitForTimeout(200);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('embed notices and caveats fit the 250 px frame, the caveat in words', async () => {
  const page = await context.newPage();
  await page.setViewportSize({ width: 440, height: 250 });
  await open('?embed=1&gpu=rtx-4090&model=llama3-8b&mode=inference&batch=1&seq=512&v=0.0.1&cmp=x,y&extra=1', page);
  assert.match(await page.locator('#embed-caveats').textContent(), /No Ada Lovelace GPU was measured/);
  assert.equal(await page.locator('#embed-notices').isVisible(), true);
  const fits = await page.evaluate(() => document.documentElement.scrollHeight);
  assert.ok(fits <= 250, `the card is ${fits}px tall`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'embed-notices.png') });
  await page.close();
});

test('on a phone the first number is on the first screen, the accuracy errors fit', async () => {
  const page = await context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  await open('', page);
  const card = await page.locator('#latency').boundingBox();
  assert.ok(card.y + card.height <= 844, `the forecast ends at ${card.y + card.height}px`);
  await page.click('#tab-accuracy');
  await page.waitForSelector('#accuracy-body table');
  for (const header of await page.locator('#accuracy-body th', { hasText: /error/ }).all()) {
    const b = await header.boundingBox();
    if (b) assert.ok(b.x + b.width <= 391, `"${await header.textContent()}" ends at ${b.x + b.width}px`);
  }
  await page.screenshot({ path: path.join(ARTIFACTS, 'phone-accuracy.png'), fullPage: true });
  await page.close();
});

// ---- the serve view -----------------------------------------------------------

// The serve view's numbers on screen (exact values from data-value); prefix 'embed-'.
async function shownServe(page, prefix = '') {
  const value = async (id) => {
    const v = await page.locator(`#${prefix}${id}`).getAttribute('data-value');
    return v === null ? null : Number(v);
  };
  return { ttft: await value('ttft'), tpot: await value('tpot'), tokens: await value('serve-tokens') };
}

let wasm;
async function servingForecast(request) {
  wasm ??= (await loadWasm()).tc;
  return wasm.forecastServing(request);
}

const SERVE_REQ = {
  gpu: 'h100-sxm',
  model: 'llama3-8b',
  prompt: 512,
  output: 128,
  batch: 4,
  tp: 1,
  precision: 'bf16',
  engine: 'fused',
  predictor: 'tilecast',
};
const serveQuery = (r) =>
  `?view=serve&gpu=${r.gpu}&model=${r.model}&batch=${r.batch}&prompt=${r.prompt}&out=${r.output}&tp=${r.tp}&prec=${r.precision}&engine=${r.engine}`;

test("the serve view shows the WASM API's TTFT, TPOT, tokens/s and memory for the same request", async () => {
  const page = await open(serveQuery(SERVE_REQ));
  assert.equal(await page.locator('#view-serve').isVisible(), true);
  assert.equal(await page.locator('#serve-inputs').isVisible(), true);
  assert.equal(await page.locator('#seq-field').isHidden(), true);
  const f = await servingForecast(SERVE_REQ);
  assert.deepEqual(await shownServe(page), { ttft: f.prefill_ms, tpot: f.decode_ms_per_token, tokens: f.tokens_per_s });
  assert.equal(await page.locator('#serve-error').textContent(), '');
  // The memory bar: four parts against the capacity, and whether it fits.
  const bar = page.locator('#memory-bar');
  assert.equal(await bar.locator('.seg').count(), 4);
  assert.equal(Number(await bar.getAttribute('data-total')), f.memory.total_gb);
  assert.equal(Number(await bar.getAttribute('data-capacity')), f.memory.capacity_gb);
  assert.equal(await bar.getAttribute('data-fits'), String(f.memory.fits));
  assert.match(
    await page.locator('#memory-note').textContent(),
    new RegExp(`largest batch that fits .*: ${f.max_batch}`),
  );
  // Llama 3 8B at batch 4: the memory holds more tokens than the model was trained for.
  assert.ok(f.max_context > f.model_context && f.model_context === 8192, JSON.stringify(f.model_context));
  assert.match(
    await page.locator('#memory-note').textContent(),
    /memory holds at batch 4: [\d,]+ tokens \(beyond the model's own 8,192\)/,
  );
  assert.match(await page.locator('#serve-caveats').textContent(), /optimised serving engine/);
  // The 80% band beside TTFT and TPOT: the response's multipliers of each (BF16: carried over).
  assert.ok(f.band && f.band.low < 1 && 1 < f.band.high);
  assert.match(await page.locator('#ttft-sub').textContent(), /^80% band [\d.,]+ m?s–[\d.,]+ m?s · prefill/);
  assert.match(await page.locator('#tpot-sub').textContent(), /^80% band [\d.,]+ m?s–[\d.,]+ m?s · mean decode/);
  assert.match(await page.locator('#serve-caveats').textContent(), /carried over to bf16/);
  // Changing the precision, engine and batch follows the API.
  let n = await forecasts(page);
  await page.selectOption('#precision', 'fp16');
  await waitForecasts(page, ++n);
  await page.selectOption('#serve-engine', 'eager');
  await waitForecasts(page, ++n);
  await page.fill('#batch', '2');
  await waitForecasts(page, ++n);
  const g = await servingForecast({ ...SERVE_REQ, precision: 'fp16', engine: 'eager', batch: 2 });
  assert.deepEqual(await shownServe(page), { ttft: g.prefill_ms, tpot: g.decode_ms_per_token, tokens: g.tokens_per_s });
  await page.screenshot({ path: path.join(ARTIFACTS, 'serve-view.png'), fullPage: true });
  await page.close();
});

test("the serve view's charts are computed off the input path and drawn", async () => {
  const page = await open(serveQuery(SERVE_REQ));
  await page.waitForSelector('#serve-status[data-points]', { timeout: 30000 });
  const f = await servingForecast(SERVE_REQ);
  const batchPoints = Number(await page.locator('#serve-batch-chart').getAttribute('data-points'));
  const contextPoints = Number(await page.locator('#serve-context-chart').getAttribute('data-points'));
  assert.ok(batchPoints >= 2 && contextPoints >= 2, `${batchPoints} batch and ${contextPoints} context points`);
  // Powers of two up to the largest batch that fits (at most 512), and the request's batch.
  const expected = new Set([SERVE_REQ.batch]);
  for (let b = 1; b <= Math.min(512, f.max_batch); b *= 2) expected.add(b);
  assert.equal(batchPoints, expected.size);
  assert.equal(Number(await page.locator('#serve-status').getAttribute('data-points')), batchPoints + contextPoints);
  // Contexts past Llama-3 8B's 8,192 positions are marked (the API's caveat says so).
  const beyond = Number(await page.locator('#serve-context-chart').getAttribute('data-beyond'));
  const contexts = [];
  for (let c = 128; c <= Math.min(1 << 17, f.max_context); c *= 2) contexts.push(c);
  assert.equal(beyond, contexts.filter((c) => c + 1 > 8192).length);
  const jobs = await page.evaluate(() => ({ ...window.tilecastPage.jobs.serve }));
  assert.ok(jobs.finished >= 1 && jobs.slices >= 1, JSON.stringify(jobs));
  // The charts are drawn (Chart.js sets the canvas's style size when it draws; an
  // undrawn canvas has none).
  await page.waitForFunction(() =>
    ['serve-batch-chart', 'serve-context-chart'].every((id) => document.getElementById(id).style.height !== ''),
  );
  // On a phone the view does not scroll sideways (once the charts have followed the
  // new width: Chart.js resizes on its ResizeObserver, a frame or two later).
  await page.setViewportSize({ width: 390, height: 844 });
  await page
    .waitForFunction(() => document.documentElement.scrollWidth - window.innerWidth <= 1, null, { timeout: 5000 })
    .catch(() => undefined);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the serve view scrolls sideways on a phone by ${overflow}px`);
  await page.close();
});

test("the share link and the embed card carry the serve view's inputs", async () => {
  const page = await open('?view=serve&model=llama2-7b&gpu=a100-80gb-sxm');
  let n = await forecasts(page);
  await page.fill('#prompt', '1024');
  await waitForecasts(page, ++n);
  await page.fill('#output', '64');
  await waitForecasts(page, ++n);
  await page.fill('#tp', '2');
  await waitForecasts(page, ++n);
  await page.selectOption('#precision', 'fp16');
  await waitForecasts(page, ++n);
  await page.selectOption('#serve-engine', 'eager');
  await waitForecasts(page, ++n);
  const link = await page.locator('#share-link').inputValue();
  assert.match(link, /view=serve&.*prompt=1024&out=64&tp=2&prec=fp16&engine=eager/);
  const first = await shownServe(page);
  const again = await open(link.slice(base.length));
  assert.deepEqual(await shownServe(again), first);
  assert.equal(await again.locator('#prompt').inputValue(), '1024');
  assert.equal(await again.locator('#output').inputValue(), '64');
  assert.equal(await again.locator('#tp').inputValue(), '2');
  assert.equal(await again.locator('#precision').inputValue(), 'fp16');
  assert.equal(await again.locator('#serve-engine').inputValue(), 'eager');
  assert.equal(await again.locator('#notice').isHidden(), true);
  const f = await servingForecast({
    gpu: 'a100-80gb-sxm',
    model: 'llama2-7b',
    prompt: 1024,
    output: 64,
    batch: 1,
    tp: 2,
    precision: 'fp16',
    engine: 'eager',
    predictor: 'tilecast',
  });
  assert.deepEqual(first, { ttft: f.prefill_ms, tpot: f.decode_ms_per_token, tokens: f.tokens_per_s });
  // The embed snippet's card shows the serving figures, equal to the view's.
  const snippet = await page.locator('#embed-snippet').inputValue();
  const src = snippet.match(/src="([^"]+)"/)[1].replace(/&amp;/g, '&');
  assert.match(src, /embed=1&view=serve/);
  const embed = await open(src.slice(base.length));
  assert.deepEqual(await shownServe(embed, 'embed-'), first);
  assert.match(
    await embed.locator('#embed-setting').textContent(),
    /1024 prompt \+ 64 output tokens · FP16 · PyTorch eager · 2 GPUs/,
  );
  assert.match(
    await embed.locator('#embed-memory').textContent(),
    /^ · (fits|does not fit): [\d.]+ of 85.9 GB per GPU/,
  );
  // Old links (no serve fields) open as before, with the serve defaults.
  await open('?gpu=t4&model=gpt2&mode=inference&batch=1&seq=128', again);
  assert.equal(await again.locator('#notice').isHidden(), true);
  assert.equal(await again.locator('#view-forecast').isVisible(), true);
  assert.equal(await again.locator('#prompt').inputValue(), '512');
  // A damaged serve field: a notice naming it, the default kept.
  await open('?view=serve&model=llama2-7b&prec=fp6&out=zero', again);
  const notice = await again.locator('#notice').textContent();
  assert.match(notice, /precision "fp6" is not one of bf16, fp16, fp32, fp8, fp4/);
  assert.match(notice, /output length "zero" is not a whole number/);
  for (const p of [page, again, embed]) await p.close();
});

test("the serve view shows the API's errors and warnings, and says encoders cannot be served", async () => {
  // BF16 on a V100: the API's error, not a crash; the page keeps working.
  const page = await open('?view=serve&gpu=v100-sxm&model=llama2-7b&prec=bf16');
  let err = '';
  try {
    await servingForecast({ ...SERVE_REQ, gpu: 'v100-sxm', model: 'llama2-7b', batch: 1, prompt: 512, output: 256 });
  } catch (e) {
    err = e.message;
  }
  assert.match(err, /has no bf16 units/);
  assert.ok((await page.locator('#serve-error').textContent()).includes(err));
  let n = await forecasts(page);
  await page.selectOption('#precision', 'fp16');
  await waitForecasts(page, ++n);
  assert.equal(await page.locator('#serve-error').textContent(), '');
  assert.ok((await shownServe(page)).ttft > 0);
  // An encoder: the view says it cannot be served.
  await page.selectOption('#model-select', 'bert-base');
  await waitForecasts(page, ++n);
  assert.match(await page.locator('#serve-error').textContent(), /encoder model, which does not generate tokens/);
  // Prompt + output beyond the model's positions: the API's warning, forecast shown.
  await page.selectOption('#model-select', 'gpt3-2.7b');
  await waitForecasts(page, ++n);
  await page.fill('#prompt', '2000');
  await waitForecasts(page, ++n);
  assert.match(
    await page.locator('#serve-caveats').textContent(),
    /longer than GPT-3 2\.7B was built for \(2048 positions\)/,
  );
  // An unreadable prompt: the last forecast stays, dimmed, saying why.
  await page.fill('#prompt', '0');
  await page.waitForFunction(() => document.getElementById('serve-body').classList.contains('stale'));
  assert.match(await page.locator('#serve-stale-note').textContent(), /prompt tokens must be a whole number/);
  assert.equal(await page.locator('#prompt').getAttribute('aria-invalid'), 'true');
  await page.close();
});

test("the forecast precision and torch.compile: the CLI's numbers, in the link, a GPU without BF16 says so", async () => {
  const page = await open('?gpu=a100-80gb-sxm&model=llama2-7b&mode=training&batch=2&seq=1024');
  assert.equal(await page.locator('#fprec').inputValue(), 'fp32');
  assert.equal(await page.locator('#feng').inputValue(), 'eager');
  let n = await forecasts(page);
  await page.selectOption('#fprec', 'bf16');
  await waitForecasts(page, ++n);
  const req = { gpu: 'a100-80gb-sxm', model: 'llama2-7b', batch: 2, seq: 1024, mode: 'training' };
  const bf16 = await assertMatchesCli(page, req, '', ['--precision', 'bf16']);
  assert.equal(bf16.precision, 'bf16');
  assert.match(
    await page.locator('#assumptions').textContent(),
    /in PyTorch eager mode, BF16 mixed precision \(torch\.autocast: BF16 GEMMs .*FP32 master weights\), on one GPU/,
  );
  await page.selectOption('#feng', 'compiled');
  await waitForecasts(page, ++n);
  const compiled = await assertMatchesCli(page, req, '', ['--precision', 'bf16', '--compile']);
  assert.equal(compiled.engine, 'compiled');
  assert.notEqual(compiled.latency_ms, bf16.latency_ms);
  assert.match(await page.locator('#assumptions').textContent(), /with torch\.compile \(Inductor/);
  assert.match(await page.locator('#caveats').textContent(), /Engine: torch\.compile/);
  // The link carries both; opening it gives the same forecast and controls.
  const link = await page.locator('#share-link').inputValue();
  assert.match(link, /&fprec=bf16&feng=compiled&/);
  const again = await open(link.slice(base.length));
  await assertMatchesCli(again, req, '', ['--precision', 'bf16', '--compile']);
  assert.equal(await again.locator('#fprec').inputValue(), 'bf16');
  assert.equal(await again.locator('#feng').inputValue(), 'compiled');
  assert.equal(await again.locator('#notice').isHidden(), true);
  // The serve view keeps its own precision (BF16 by default), untouched.
  assert.equal(await again.locator('#precision').inputValue(), 'bf16');
  // The comparison forecasts in the same precision: its first row is the card's figure.
  await again.click('#tab-compare');
  await again.waitForSelector('#compare-table tbody tr');
  assert.equal(
    await again.locator('#compare-table tbody tr').first().locator('td').first().textContent(),
    await again.locator('#latency').textContent(),
  );
  // A GPU without BF16 units: the core's error as the forecast's error, no crash.
  await open('?gpu=v100-sxm&model=gpt2&mode=training&batch=8&seq=128&fprec=bf16', again);
  const v100 = { gpu: 'v100-sxm', model: 'gpt2', batch: 8, seq: 128, mode: 'training' };
  await assertMatchesCli(again, v100, '', ['--precision', 'bf16']);
  assert.match(
    await again.locator('#forecast-error').textContent(),
    /No forecast: .*V100.* has no bf16 units; its precisions: fp32, fp16/,
  );
  n = await forecasts(again);
  await again.selectOption('#fprec', 'fp16');
  await waitForecasts(again, ++n);
  await assertMatchesCli(again, v100, '', ['--precision', 'fp16']);
  // A damaged parameter: a notice naming it, the default kept.
  await open('?gpu=t4&model=gpt2&seq=128&fprec=fp4&compile=yes', again);
  const notice = await again.locator('#notice').textContent();
  assert.match(notice, /forecast precision "fp4" is not one of bf16, fp16, fp32/);
  assert.match(notice, /torch\.compile switch "yes" is neither 1 nor 0/);
  assert.equal(await again.locator('#fprec').inputValue(), 'fp32');
  for (const p of [page, again]) await p.close();
});

// The page's multi-GPU step must be the CLI's (`tilecast forecast … --dp … --json`).
function parallelArgs(p) {
  const args = [
    '--dp',
    String(p.dp),
    '--tp',
    String(p.tp),
    '--pp',
    String(p.pp),
    '--microbatches',
    String(p.mb),
    '--zero',
    String(p.zero ?? 0),
    '--recompute',
    p.rc ?? 'none',
    '--schedule',
    p.sched ?? '1f1b',
  ];
  if (p.sys) args.push('--system', p.sys);
  return args;
}

// The roofline card of a multi-GPU step is the roofline predictor's step, computed as a
// job once input settles (the card says so meanwhile).
async function assertParallelMatchesCli(page, req, par) {
  await page.waitForFunction(() => Number.isFinite(Number(document.getElementById('roofline').dataset.value)));
  const native = JSON.parse(cli([...cliForecastArgs({ predictor: 'tilecast', ...req }), ...parallelArgs(par)]).text);
  const roof = JSON.parse(cli([...cliForecastArgs({ ...req, predictor: 'roofline' }), ...parallelArgs(par)]).text);
  const s = await shown(page);
  assert.equal(s.error, '');
  assert.deepEqual(
    [s.latency, s.roofline, s.samples, s.tokens],
    [native.step_ms, roof.step_ms, native.samples_per_s, native.tokens_per_s],
  );
  assert.equal(Number(await page.locator('#tokens-per-gpu').getAttribute('data-value')), native.tokens_per_s_per_gpu);
  return native;
}

test('a dp x tp x pp training step shows the step, the memory bar and the timeline, and survives a link round trip', async () => {
  const req = { gpu: 'h100-sxm', model: 'gpt3-2.7b', batch: 8, seq: 2048, mode: 'training' };
  const page = await open('?gpu=h100-sxm&model=gpt3-2.7b&mode=training&batch=8&seq=2048');
  assert.equal(await page.locator('#train-inputs').isVisible(), true);
  // One GPU: its memory (the core's, Adam's states included), no timeline.
  const one = await assertMatchesCli(page, req);
  assert.equal(await page.locator('#train-parallel').isHidden(), true);
  assert.equal(await page.locator('#train-memory-heading').textContent(), 'Memory on the GPU');
  assert.equal(Number(await page.locator('#train-memory-bar').getAttribute('data-total')), one.memory.total_gb);
  assert.match(await page.locator('#train-gpus-note').textContent(), /One GPU/);
  await page.fill('#dp', '2');
  await page.fill('#train-tp', '2');
  await page.fill('#pp', '2');
  await page.fill('#microbatches', '4');
  await page.waitForSelector('#forecast-body[data-gpus="8"]');
  await page.waitForFunction(() => document.getElementById('share-link').value.includes('mb=4'));
  let par = { dp: 2, tp: 2, pp: 2, mb: 4 };
  let f = await assertParallelMatchesCli(page, req, par);
  assert.match(await page.locator('#forecast-title').textContent(), /training step on 8 GPUs, global batch 8/);
  assert.match(
    await page.locator('#assumptions').textContent(),
    /on 8 GPUs of system dgx-h100 \(data 2 × tensor 2 × pipeline 2, 4 micro-batches of 1, ZeRO 0, recomputation none, 1F1B schedule\)/,
  );
  // The memory bar: six parts against the capacity, whether it fits.
  const bar = page.locator('#train-memory-bar');
  assert.equal(await bar.locator('.seg').count(), 6);
  assert.equal(Number(await bar.getAttribute('data-total')), f.memory.total_gb);
  assert.equal(Number(await bar.getAttribute('data-capacity')), f.memory.capacity_gb);
  assert.equal(await bar.getAttribute('data-fits'), String(f.memory.fits));
  // The timeline: every span of every stage's two streams, over the step.
  const timeline = page.locator('#timeline');
  assert.equal(Number(await timeline.getAttribute('data-stages')), 2);
  const spans = f.stages.reduce((n, st) => n + st.compute.length + st.communication.length, 0);
  assert.equal(Number(await timeline.getAttribute('data-spans')), spans);
  assert.equal(await timeline.locator('rect.span').count(), spans);
  assert.equal(await timeline.locator('rect.bubble').count(), 2);
  assert.equal(await page.locator('#layers-heading').textContent(), 'Per pipeline stage');
  assert.equal(await page.locator('#layers-table tbody tr').count(), 2);
  assert.match(await page.locator('#timeline-legend').textContent(), /Forward.*Backward.*Bubble/);
  // The exports are the step's: the CSV names the configuration, memory and stages.
  const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
  const csvText = fs.readFileSync(await csv.path(), 'utf8');
  assert.ok(csvText.includes('\r\nparallel,gpus,,,,8\r\n'), csvText.slice(0, 400));
  assert.ok(csvText.includes(`\r\nmemory,total_gb,,,,${f.memory.total_gb}\r\n`));
  assert.ok(csvText.includes(`\r\nstage,1.bubble_ms,,,,${f.stages[1].bubble_ms}\r\n`));
  const [json] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
  assert.deepEqual(JSON.parse(fs.readFileSync(await json.path(), 'utf8')).forecast, f);
  await page.screenshot({ path: path.join(ARTIFACTS, 'multi-gpu.png'), fullPage: true });
  // ZeRO, recomputation, schedule and system chosen: the CLI's numbers, all in the link.
  let n = await forecasts(page);
  await page.selectOption('#zero', '1');
  await waitForecasts(page, ++n);
  await page.selectOption('#recompute', 'selective');
  await waitForecasts(page, ++n);
  await page.selectOption('#schedule', 'gpipe');
  await waitForecasts(page, ++n);
  await page.selectOption('#train-system', 'dgx-h100');
  await waitForecasts(page, ++n);
  par = { ...par, zero: 1, rc: 'selective', sched: 'gpipe', sys: 'dgx-h100' };
  f = await assertParallelMatchesCli(page, req, par);
  const link = await page.locator('#share-link').inputValue();
  assert.match(link, /&dp=2&ptp=2&pp=2&mb=4&zero=1&rc=selective&sched=gpipe&sys=dgx-h100&v=/);
  const again = await open(link.slice(base.length));
  await assertParallelMatchesCli(again, req, par);
  for (const [id, v] of [
    ['#dp', '2'],
    ['#train-tp', '2'],
    ['#pp', '2'],
    ['#microbatches', '4'],
    ['#zero', '1'],
    ['#recompute', 'selective'],
    ['#schedule', 'gpipe'],
    ['#train-system', 'dgx-h100'],
  ])
    assert.equal(await again.locator(id).inputValue(), v, id);
  assert.equal(await again.locator('#notice').isHidden(), true);
  assert.equal(
    Number(await again.locator('#timeline').getAttribute('data-spans')),
    f.stages.reduce((k, st) => k + st.compute.length + st.communication.length, 0),
  );
  // An unknown system in a link: a notice, the automatic system.
  const unknown = await open(link.slice(base.length).replace('sys=dgx-h100', 'sys=dgx-9000'));
  assert.match(await unknown.locator('#notice').textContent(), /system "dgx-9000" is not in this page's catalog/);
  assert.equal(await unknown.locator('#train-system').inputValue(), '');
  assert.equal(await unknown.locator('#forecast-error').textContent(), '');
  await unknown.close();
  // Inference: one GPU, the GPU fields hidden (kept in the link).
  n = await forecasts(again);
  await again.check('input[name="mode"][value="inference"]');
  await waitForecasts(again, ++n);
  assert.equal(await again.locator('#train-inputs').isHidden(), true);
  // Inference has its memory too (weights, KV cache, activations, context); no timeline.
  assert.equal(await again.locator('#train-body').isHidden(), false);
  assert.equal(await again.locator('#train-parallel').isHidden(), true);
  assert.equal(await again.locator('#train-memory-bar .seg').count(), 4);
  await assertMatchesCli(again, { ...req, mode: 'inference' });
  await again.close();
  // Bad input: the core's message as the forecast's error, the page keeps working.
  const bad = [
    ['#train-tp', '3', /tp 3 does not divide GPT-3 2\.7B's 32 attention heads/],
    ['#pp', '5', /pp 5 does not divide GPT-3 2\.7B's 32 layers/],
    ['#microbatches', '3', /do not divide into 3 micro-batches/],
  ];
  for (const [id, value, pattern] of bad) {
    const keep = await page.locator(id).inputValue();
    await page.fill(id, value);
    await page.waitForFunction(
      (re) => new RegExp(re).test(document.getElementById('forecast-error').textContent),
      pattern.source,
    );
    assert.equal(
      await page
        .locator('#forecast-body')
        .getAttribute('class')
        .then((c) => c.includes('stale')),
      true,
    );
    await page.fill(id, keep);
    await page.waitForFunction(() => document.getElementById('forecast-error').textContent === '');
  }
  await page.selectOption('#train-system', 'a100-pcie-nvlink-pairs-4x');
  await page.waitForFunction(() =>
    /more than a100-pcie-nvlink-pairs-4x holds/.test(document.getElementById('forecast-error').textContent),
  );
  await page.selectOption('#train-system', '');
  await page.fill('#dp', '0');
  await page.waitForFunction(() =>
    /data-parallel GPUs must be a whole number/i.test(document.getElementById('stale-note').textContent),
  );
  assert.equal(await page.locator('#dp').getAttribute('aria-invalid'), 'true');
  // torch.compile on many GPUs: the core forecasts it (each rank replays the compiled graph).
  await page.fill('#dp', '2');
  await page.selectOption('#feng', 'compiled');
  await page.waitForFunction(() => document.getElementById('forecast-error').textContent === '');
  await page.close();
});

test("the fastest plans are planParallel's, searched off the input path, and a plan can be used", async () => {
  const page = await open('?gpu=h100-sxm&model=gpt3-2.7b&mode=training&batch=8&seq=2048');
  assert.equal(await page.locator('#plan-panel').isHidden(), true);
  await page.click('#plan-find');
  await page.waitForSelector('#plan-status[data-done]', { timeout: 60000 });
  // Every count's search (1, 2, 4, 8 GPUs on a DGX H100) merged: the CLI's search over all of them.
  const plan = cliJson([
    'plan',
    '--model',
    'gpt3-2.7b',
    '--system',
    'dgx-h100',
    '--global-batch',
    '8',
    '--seq',
    '2048',
    '--top',
    '10',
    '--json',
  ]);
  assert.equal(Number(await page.locator('#plan-status').getAttribute('data-considered')), plan.considered);
  assert.match(
    await page.locator('#plan-status').textContent(),
    new RegExp(`${plan.fitting.toLocaleString('en-US')} fit`),
  );
  const rows = page.locator('#plan-table tbody tr');
  assert.equal(await rows.count(), Math.min(10, plan.by_step.length));
  const steps = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.step)));
  assert.deepEqual(
    steps,
    plan.by_step.slice(0, steps.length).map((e) => e.step_ms),
  );
  const jobs = await page.evaluate(() => ({ ...window.tilecastPage.jobs.plan }));
  assert.ok(jobs.finished === 1 && jobs.slices === 4, JSON.stringify(jobs));
  // Using the fastest sets the GPU fields; the forecast is that plan's step.
  const best = plan.by_step[0];
  await rows.first().locator('button').click();
  await page.waitForSelector(`#forecast-body[data-gpus="${best.gpus}"]`);
  assert.equal(Number(await page.locator('#latency').getAttribute('data-value')), best.step_ms);
  assert.equal(await page.locator('#dp').inputValue(), String(best.dp));
  assert.match(await page.locator('#share-link').inputValue(), new RegExp(`dp=${best.dp}`));
  // Changed inputs: the list says it is for earlier ones.
  await page.fill('#batch', '16');
  await page.waitForFunction(() => /earlier inputs/.test(document.getElementById('plan-stale').textContent));
  await page.close();
});

test("the model picker names the zoo's newer families", async () => {
  const page = await open('');
  const labels = await page.locator('#model-select optgroup').evaluateAll((gs) => gs.map((g) => g.label));
  for (const family of ['Mixtral (mixture of experts)', 'Qwen MoE (mixture of experts)', 'Gemma', 'Gemma 2', 'Phi-3'])
    assert.ok(labels.includes(family), `${family} not in ${labels.join(', ')}`);
  assert.ok(!labels.some((l) => /^(mixtral|qwen2_moe|gemma2?|phi3)$/.test(l)), labels.join(', '));
  await page.close();
});

// The forecaster embeds the landing view's model only; another vendor's or precision's is
// fetched on its first forecast (models/<id>.json, src/engine.ts), once, and then answers as the
// CLI does. A failed fetch is said in place of the numbers.
test("an AMD GPU's model is fetched once, on demand, and gives the CLI's numbers; a failed fetch says so", async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const fetched = [];
  ctx.on('request', (r) => {
    if (r.url().includes('/tilecast/models/')) fetched.push(new URL(r.url()).pathname);
  });
  const page = await ctx.newPage();
  await open('', page);
  assert.ok((await shown(page)).latency > 0);
  assert.deepEqual(fetched, [], 'the landing forecast needs no model fetched');
  const req = { gpu: 'mi300x', model: 'bert-large', batch: 2, seq: 512, mode: 'training' };
  await open('?gpu=mi300x&model=bert-large&mode=training&batch=2&seq=512', page);
  await page.waitForFunction(() => document.getElementById('latency')?.getAttribute('data-value'), null, {
    timeout: 15000,
  });
  await assertMatchesCli(page, req);
  const input = page.locator('#batch');
  await input.fill('3');
  await page.waitForFunction(() => document.getElementById('latency')?.getAttribute('data-value'));
  await assertMatchesCli(page, { ...req, batch: 3 });
  assert.deepEqual(fetched, ['/tilecast/models/amd-fp32.json'], 'fetched once');
  await ctx.close();

  const offline = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  await offline.route(/\/tilecast\/models\//, (r) => r.abort());
  const failed = await offline.newPage();
  await open('?gpu=mi300x&model=bert-large&mode=training&batch=2&seq=512', failed);
  await failed.waitForFunction(() =>
    /could not be loaded/.test(document.getElementById('forecast-error')?.textContent ?? ''),
  );
  assert.match((await shown(failed)).error, /learned model amd-fp32 could not be loaded .*reload the page/);
  await offline.close();
});

test('the first forecast downloads the forecaster without its deferred part, fetched after it; several GPUs use it; a failed fetch says so', async () => {
  // [file, when requested (ms since the epoch)] from a context's pages and their workers
  const recordParts = (ctx) => {
    const parts = [];
    ctx.on('request', (r) => {
      const name = new URL(r.url()).pathname;
      if (/\/tilecast\/tilecast_wasm\.(deferred\.)?wasm$/.test(name))
        parts.push([name.replace('/tilecast/', ''), Date.now()]);
    });
    return parts;
  };
  const firstForecastParts = async (page, parts) => {
    const firstAt = await page.evaluate(
      () => performance.timeOrigin + performance.getEntriesByName('tilecast-first-forecast')[0].startTime,
    );
    return [...new Set(parts.filter(([, at]) => at <= firstAt).map(([f]) => f))];
  };
  // The landing view (what scripts/split_wasm.mjs runs to measure the first part) ...
  const landing = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const landingParts = recordParts(landing);
  const home = await open('', await landing.newPage());
  assert.deepEqual(await firstForecastParts(home, landingParts), ['tilecast_wasm.wasm'], 'the landing view');
  await landing.close();
  // ... and a link to another batch and sequence of the same model
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const parts = recordParts(ctx);
  const page = await ctx.newPage();
  const req = { gpu: 'h100-sxm', model: 'gpt3-2.7b', batch: 8, seq: 2048, mode: 'training' };
  await open('?gpu=h100-sxm&model=gpt3-2.7b&mode=training&batch=8&seq=2048', page);
  await assertMatchesCli(page, req);
  assert.deepEqual(await firstForecastParts(page, parts), ['tilecast_wasm.wasm'], 'the first forecast');
  // then fetched ahead, for offline use
  await page.waitForFunction(() =>
    performance
      .getEntriesByType('resource')
      .some((r) => r.name.endsWith('tilecast_wasm.deferred.wasm') && r.responseEnd > 0),
  );
  await page.fill('#dp', '2');
  await page.fill('#train-tp', '2');
  await page.fill('#pp', '2');
  await page.fill('#microbatches', '4');
  await page.waitForSelector('#forecast-body[data-gpus="8"]', { timeout: 20000 });
  await page.waitForFunction(() => document.getElementById('share-link').value.includes('mb=4'));
  await assertParallelMatchesCli(page, req, { dp: 2, tp: 2, pp: 2, mb: 4 });
  assert.deepEqual([...new Set(parts.map(([f]) => f))].sort(), ['tilecast_wasm.deferred.wasm', 'tilecast_wasm.wasm']);
  await ctx.close();

  const offline = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  await offline.route(/\/tilecast\/tilecast_wasm\.deferred\.wasm$/, (r) => r.abort());
  const failed = await offline.newPage();
  await open('?gpu=h100-sxm&model=gpt3-2.7b&mode=training&batch=8&seq=2048&dp=2&ptp=2&pp=2&mb=4', failed);
  await failed.waitForFunction(() =>
    /could not be loaded/.test(document.getElementById('forecast-error')?.textContent ?? ''),
  );
  assert.match((await shown(failed)).error, /deferred part \(tilecast_wasm\.deferred\.wasm\) could not be loaded/);
  // One GPU still forecasts in the same page.
  await failed.fill('#dp', '1');
  await failed.fill('#train-tp', '1');
  await failed.fill('#pp', '1');
  await failed.waitForSelector('#forecast-body[data-gpus="1"]', { timeout: 20000 });
  await assertMatchesCli(failed, req);
  await offline.close();
});

test('no request leaves the site and no script error happened', () => {
  assert.deepEqual(external, []);
  assert.deepEqual(pageErrors, []);
});

test('the accuracy scatter labels its log axes at powers of ten only, at phone and desktop widths', async () => {
  for (const width of [390, 1280]) {
    const page = await context.newPage();
    await page.setViewportSize({ width, height: 844 });
    await open('?view=accuracy', page);
    const canvas = page.locator('#accuracy-body canvas').first();
    await page.waitForFunction(() =>
      /measured axis: /.test(document.querySelector('#accuracy-body canvas')?.getAttribute('aria-label') ?? ''),
    );
    const label = await canvas.getAttribute('aria-label');
    const axes = label.match(/measured axis: (.*); forecast axis: (.*)$/);
    assert.ok(axes, label);
    for (const axis of [axes[1], axes[2]]) {
      const ticks = axis.split(', ');
      assert.ok(ticks.length >= 2 && ticks.length <= 8, `${width}px: ${axis}`);
      for (const t of ticks) {
        const m = t.match(/^([\d.]+) (ms|s)$/);
        assert.ok(m, `${width}px: tick '${t}'`);
        const p = Math.log10(Number(m[1]));
        assert.ok(Math.abs(p - Math.round(p)) < 1e-9, `${width}px: tick '${t}' is not a power of ten`);
      }
    }
    await page.close();
  }
});
