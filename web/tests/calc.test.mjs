// Browser tests of issue 32 (what a practitioner ran into): memory in every mode, the
// "does not fit" card state and what would fit, a custom GPU copied faithfully in every
// precision, the plan search beyond one node, and the small things (noise-free numbers,
// stale messages, config size, the CLI's names in links, a pasted config's counts), and item 9's
// per-operator bound analysis and a Hugging Face config.json dropped or pasted.
// Numbers on the page are compared with the native CLI's.
// Run: node --test web/tests/calc.test.mjs (after scripts/build_web.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliJson, cliForecastArgs } from './helpers.mjs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { forecasts, pagesForFile, value, waitForecasts } from './support/browser.mjs';
import { assertRowsAreOperators, operatorRows } from './support/operators.mjs';

const pages = pagesForFile();
const open = (query) => pages.open(query);

function native(req, extra = []) {
  return cliJson([...cliForecastArgs({ predictor: 'tilecast', ...req }), ...extra]);
}

test('every mode says whether it fits, with the memory bar: inference, training and serving', async () => {
  // Llama 3 70B in BF16 on one H100: 141 GB of weights against its 80 GB (85.5 as its driver reports them).
  const page = await open('?gpu=h100-sxm&model=llama3-70b&mode=inference&batch=1&seq=2048&fprec=bf16');
  const f = native({ gpu: 'h100-sxm', model: 'llama3-70b', batch: 1, seq: 2048, mode: 'inference' }, [
    '--precision',
    'bf16',
  ]);
  assert.equal(f.memory.fits, false);
  const bar = page.locator('#train-memory-bar');
  assert.equal(await bar.getAttribute('data-fits'), 'false');
  assert.equal(Number(await bar.getAttribute('data-total')), f.memory.total_gb);
  assert.equal(Number(await bar.getAttribute('data-capacity')), f.memory.capacity_gb);
  assert.ok(Math.abs(f.memory.capacity_gb - 85.52) < 0.01); // nvidia-smi's 81559 MiB
  assert.equal(await bar.locator('.seg').count(), 4); // weights, KV cache, activations, context
  assert.match(await page.locator('#train-memory-note').textContent(), /^Does not fit by [\d.]+ GB/);
  assert.equal(await page.locator('#fc-cards').getAttribute('data-fits'), 'false');
  // Training (the landing example) and serving show theirs too.
  const landing = await open('');
  const t = native({ gpu: 'h100-sxm', model: 'gpt3-2.7b', batch: 1, seq: 1024, mode: 'training' });
  assert.equal(await landing.locator('#train-memory-bar').getAttribute('data-fits'), String(t.memory.fits));
  assert.equal(Number(await landing.locator('#train-memory-bar').getAttribute('data-total')), t.memory.total_gb);
  const serve = await open('?view=serve&gpu=h100-sxm&model=llama3-70b&batch=1&prompt=512&out=256');
  const s = cliJson([
    'serve',
    '--gpu',
    'h100-sxm',
    '--model',
    'llama3-70b',
    '--prompt',
    '512',
    '--output',
    '256',
    '--batch',
    '1',
    '--json',
  ]);
  assert.equal(await serve.locator('#memory-bar').getAttribute('data-fits'), String(s.memory.fits));
  assert.equal(await serve.locator('#serve-cards').getAttribute('data-fits'), String(s.memory.fits));
  for (const p of [page, landing, serve]) await p.close();
});

test('a forecast that does not fit is a card state offering what would fit; the landing example fits', async () => {
  const landing = await open('');
  assert.equal(await landing.locator('#fc-cards').getAttribute('data-fits'), 'true');
  assert.equal(await landing.locator('#fc-fit').isHidden(), true);
  assert.equal(await landing.locator('#fc-cards .fit-badge').first().isVisible(), false);
  await landing.close();

  // Too large a batch: the badge on the cards, the largest batch the core says fits, BF16.
  const req = { gpu: 'h100-sxm', model: 'gpt3-2.7b', batch: 8, seq: 512, mode: 'training' };
  const f = native(req);
  assert.equal(f.memory.fits, false);
  const page = await open('?gpu=h100-sxm&model=gpt3-2.7b&mode=training&batch=8&seq=512');
  assert.equal(await page.locator('#fc-cards').getAttribute('data-fits'), 'false');
  assert.equal(await page.locator('#fc-cards .fit-badge').first().isVisible(), true);
  assert.match(
    await page.locator('#fc-fit-headline').textContent(),
    /^Does not fit: needs [\d.]+ GB of the GPU's 85.52 GB \(its memory as the driver reports it\)/,
  );
  const batchOption = page.locator('#fc-fit-options li[data-option="batch"] button');
  assert.equal(await batchOption.textContent(), `Batch ${f.memory.max_batch}`);
  // The core's largest batch fits and one more does not.
  assert.equal(native({ ...req, batch: f.memory.max_batch }).memory.fits, true);
  assert.equal(native({ ...req, batch: f.memory.max_batch + 1 }).memory.fits, false);
  const bf16 = native(req, ['--precision', 'bf16']);
  const precision = page.locator('#fc-fit-options li[data-option="precision"]');
  assert.match(await precision.textContent(), /^BF16/);
  assert.equal(await precision.locator('button').count(), bf16.memory.fits ? 1 : 0);
  assert.equal(await page.locator('#fc-fit-options li[data-option="plans"] button').count(), 1);
  let n = await forecasts(page);
  await batchOption.click();
  await waitForecasts(page, ++n);
  assert.equal(await page.locator('#batch').inputValue(), String(f.memory.max_batch));
  assert.equal(await page.locator('#fc-cards').getAttribute('data-fits'), 'true');
  assert.equal(await value(page, 'latency'), native({ ...req, batch: f.memory.max_batch }).latency_ms);
  await page.close();

  // A pass that does not fit: tensor parallelism over the core's GPU count, in the Serve view.
  const inf = await open('?gpu=h100-sxm&model=llama3-70b&mode=inference&batch=1&seq=2048&fprec=bf16');
  const g = inf.locator('#fc-fit-options li[data-option="gpus"] button');
  assert.equal(await g.textContent(), '2 GPUs');
  await g.click();
  await inf.waitForSelector('#view-serve:not([hidden])');
  assert.equal(await inf.locator('#tp').inputValue(), '2');
  await inf.close();

  // Serving Llama 3 70B on one H100: the serve cards' state and the GPUs that fit.
  const serve = await open('?view=serve&gpu=h100-sxm&model=llama3-70b&batch=1&prompt=512&out=256');
  assert.equal(await serve.locator('#serve-cards').getAttribute('data-fits'), 'false');
  const tpButton = serve.locator('#serve-fit-options li[data-option="gpus"] button');
  const tp = Number((await tpButton.textContent()).match(/^(\d+) GPUs$/)[1]);
  const serveArgs = (t) => [
    'serve',
    '--gpu',
    'h100-sxm',
    '--model',
    'llama3-70b',
    '--prompt',
    '512',
    '--output',
    '256',
    '--tp',
    String(t),
    '--json',
  ];
  assert.equal(cliJson(serveArgs(tp)).memory.fits, true);
  assert.equal(cliJson(serveArgs(tp / 2)).memory.fits, false);
  await tpButton.click();
  await serve.waitForSelector('#serve-cards[data-fits="true"]');
  await serve.close();
});

test('the batch sweep marks the batches that do not fit', async () => {
  const req = { gpu: 'h100-sxm', model: 'gpt3-2.7b', batch: 1, seq: 512, mode: 'training' };
  const max = native(req).memory.max_batch;
  const page = await open('?gpu=h100-sxm&model=gpt3-2.7b&mode=training&batch=1&seq=512&view=sweep&sweep=16');
  await page.waitForSelector('#sweep-status[data-points="16"]', { timeout: 30000 });
  assert.equal(Number(await page.locator('#sweep-latency').getAttribute('data-first-unfit')), max + 1);
  assert.match(
    await page.locator('#sweep-status').textContent(),
    new RegExp(`From batch ${max + 1} on it does not fit`),
  );
  await page.close();
});

test('a custom GPU copied from a catalog GPU forecasts as it does, in BF16 and FP32; the form edits the peaks', async () => {
  for (const fprec of ['bf16', 'fp32']) {
    const page = await open(`?gpu=h100-sxm&model=llama2-7b&mode=inference&batch=2&seq=512&fprec=${fprec}`);
    const catalog = await value(page, 'latency');
    const roof = await value(page, 'roofline');
    let n = await forecasts(page);
    await page.locator('#custom-gpu summary').click();
    await page.click('#custom-gpu-fill');
    assert.equal(await page.locator('#cg-peak-bf16-tensor').inputValue(), '989.4');
    assert.equal(await page.locator('#cg-compute_capability').inputValue(), '9.0');
    await page.click('#custom-gpu-use');
    await waitForecasts(page, ++n);
    assert.equal(await page.locator('#custom-gpu-error').textContent(), '');
    assert.equal(await page.locator('#gpu-select').inputValue(), 'custom');
    assert.equal(await value(page, 'latency'), catalog, `${fprec}: the copy's forecast`);
    assert.equal(await value(page, 'roofline'), roof);
    if (fprec === 'bf16') {
      // Half the BF16 tensor peak: a slower roofline (the form's peaks are used).
      await page.fill('#cg-peak-bf16-tensor', '494.7');
      await page.click('#custom-gpu-use');
      await waitForecasts(page, ++n);
      assert.ok((await value(page, 'roofline')) > roof);
      // The serve view (BF16) works with a custom GPU.
      await page.click('#tab-serve');
      await page.waitForSelector('#serve-body:not([hidden])');
      assert.equal(await page.locator('#serve-error').textContent(), '');
    }
    await page.close();
  }
});

test('the plan search goes beyond one node, up to a bound; when nothing fits it says why and what would', async () => {
  const page = await open('?gpu=h100-sxm&model=llama2-13b&mode=training&batch=64&seq=2048&sys=dgx-h100');
  assert.match(await page.locator('#plan-max-note').textContent(), /holds [\d,]+ GPUs/);
  await page.fill('#plan-max-gpus', '32');
  await page.click('#plan-find');
  await page.waitForSelector('#plan-status[data-done]', { timeout: 120000 });
  assert.equal(await page.locator('#plan-status').getAttribute('data-largest'), '32');
  const plan = cliJson([
    'plan',
    '--system',
    'dgx-h100',
    '--model',
    'llama2-13b',
    '--global-batch',
    '64',
    '--seq',
    '2048',
    '--gpus',
    '32',
    '--json',
  ]);
  const steps = await page
    .locator('#plan-table tbody tr')
    .evaluateAll((rows) => rows.map((r) => Number(r.dataset.step)));
  assert.equal(steps[0], plan.by_step[0].step_ms, 'the fastest plan is on 32 GPUs, beyond one node');
  assert.equal(await page.locator('#plan-table tbody tr th').first().textContent(), '32');
  // Bound 2: nothing fits (33 configurations do on 4 GPUs); the page says why and what would.
  await page.fill('#plan-max-gpus', '2');
  await page.click('#plan-find');
  await page.waitForFunction(
    () =>
      document.getElementById('plan-status').dataset.largest === '2' &&
      document.getElementById('plan-status').dataset.done,
  );
  const none = await page.locator('#plan-none').textContent();
  assert.match(none, /^None of the [\d,]+ configurations on 1 to 2 GPUs works: [\d,]+ need more memory/);
  assert.match(none, /more GPUs: raise "search up to" \(now 2; the system holds/);
  await page.close();
});

test('a GPU no catalog system holds trains and plans on the node its catalog links build', async () => {
  // 4 RTX 4090s, data 2 × tensor 2: the step the CLI forecasts on the same node
  const four = await open('?gpu=rtx-4090&model=gpt2-large&mode=training&batch=16&seq=512&dp=2&ptp=2');
  assert.equal(await four.locator('#forecast-error').textContent(), '');
  assert.match(
    await four.locator('#train-gpus-note').textContent(),
    /on one node of them built from the GPU’s catalog links/,
  );
  const req = { gpu: 'rtx-4090', model: 'gpt2-large', mode: 'training', batch: 16, seq: 512 };
  const f = native(req, ['--gpus', '4', '--dp', '2', '--tp', '2']);
  assert.equal(await value(four, 'latency'), f.latency_ms);
  await four.close();
  const page = await open('?gpu=rtx-4090&model=gpt2-large&mode=training&batch=16&seq=512');
  assert.match(
    await page.locator('#plan-max-note').textContent(),
    /^One node of up to 8 NVIDIA GeForce RTX 4090 .*holds 8 GPUs/,
  );
  await page.click('#plan-find');
  await page.waitForSelector('#plan-status[data-done]', { timeout: 120000 });
  assert.equal(await page.locator('#plan-status').getAttribute('data-largest'), '8');
  const gpus = await page.locator('#plan-table tbody tr th').first().textContent();
  const plan = cliJson([
    'plan',
    '--gpu',
    'rtx-4090',
    '--model',
    'gpt2-large',
    '--global-batch',
    '16',
    '--seq',
    '512',
    '--gpus',
    gpus,
    '--json',
  ]);
  assert.equal(plan.system, `rtx-4090-node-${gpus}`);
  const step = await page.locator('#plan-table tbody tr').first().getAttribute('data-step');
  assert.equal(Number(step), plan.by_step[0].step_ms, 'the fastest plan, as the CLI ranks it on that node');
  await page.close();
});

test('numbers without float noise, stale messages cleared, caveats in one line, the CLI names in links', async () => {
  // pp = 1: the bubble is zero, not 0.00000000000004097%.
  const page = await open(
    '?gpu=h100-sxm&model=llama2-7b&mode=training&batch=32&seq=4096&fprec=bf16&dp=4&ptp=2&mb=8&zero=3&sys=dgx-h100',
  );
  const sub = await page.locator('#latency-sub').textContent();
  assert.match(sub, /pipeline bubble 0%/);
  // a multi-GPU step's 80% band (the single-GPU band carried over) leads the line
  assert.match(sub, /^80% band [\d.,]+ m?s–[\d.,]+ m?s · one step;/);
  const text = await page.locator('#forecast-body').innerText();
  assert.doesNotMatch(text, /\d\.\d{7,}/, 'no number with seven or more decimals');
  // tp 3 (refused by the core) then 0 (unreadable): only the input's message shows.
  let n = await forecasts(page);
  await page.fill('#train-tp', '3');
  await waitForecasts(page, ++n);
  assert.match(await page.locator('#forecast-error').textContent(), /tp 3/);
  await page.fill('#train-tp', '0');
  await page.waitForFunction(() => /Not updated/.test(document.getElementById('stale-note').textContent));
  assert.equal(await page.locator('#forecast-error').textContent(), '');
  // The caveat box is dimmed with the stale forecast.
  const opacity = await page.locator('#caveats').evaluate((e) => getComputedStyle(e).opacity);
  assert.equal(opacity, '0.45');
  await page.close();

  // The caveat box: one line, the details on demand.
  const a100 = await open('?gpu=a100-80gb-sxm&model=gpt3-2.7b&mode=training&batch=1&seq=2048');
  const box = a100.locator('#caveats');
  assert.equal(await box.locator('details').getAttribute('open'), null);
  assert.match(await box.locator('summary').textContent(), /^memory: a training step with Adam needs/);
  assert.equal((await box.locator('summary').boundingBox()).height < 60, true, 'one line (two at most)');
  await a100.close();

  // The names the CLI accepts.
  const named = await open('?gpu=h100&model=llama-3-8b&mode=inference&batch=1&seq=128');
  assert.equal(await named.locator('#gpu-select').inputValue(), 'h100-sxm');
  assert.equal(await named.locator('#model-select').inputValue(), 'llama3-8b');
  assert.equal(await named.locator('#notice').isHidden(), true);
  assert.equal(
    await value(named, 'latency'),
    native({ gpu: 'h100-sxm', model: 'llama3-8b', batch: 1, seq: 128, mode: 'inference' }).latency_ms,
  );
  await named.close();
});

test('a pasted config: its counts shown, its size checked before parsing, an old error cleared', async () => {
  const page = await open('?model=gpt2&seq=128&mode=inference');
  await page.locator('#custom-model summary').click();
  // A 2 MB paste is refused before the text box takes it.
  const t0 = Date.now();
  await page.locator('#model-config').evaluate((box) => {
    const data = new DataTransfer();
    data.setData('text/plain', '{"a": "' + 'x'.repeat(2 << 20) + '"}');
    box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  });
  assert.match(await page.locator('#model-config-error').textContent(), /at most 1048576 are accepted/);
  assert.equal(await page.locator('#model-config').inputValue(), '');
  assert.ok(Date.now() - t0 < 2000);
  // New text clears the old error; a config shows its layers and parameters.
  const config = {
    _name_or_path: 'my-llama',
    model_type: 'llama',
    hidden_size: 1024,
    intermediate_size: 2816,
    num_hidden_layers: 6,
    num_attention_heads: 16,
    num_key_value_heads: 16,
    vocab_size: 32000,
    max_position_embeddings: 2048,
  };
  await page.fill('#model-config', JSON.stringify(config));
  assert.equal(await page.locator('#model-config-error').textContent(), '');
  let n = await forecasts(page);
  await page.click('#model-config-use');
  await waitForecasts(page, ++n);
  assert.match(
    await page.locator('#model-info').textContent(),
    /^Pasted config: my-llama · \w+ · 6 layers · hidden 1024 · /,
  );
  assert.match(await page.locator('#forecast-title').textContent(), /^my-llama on /);
  // A vision-language config is read as its language model, and the page says so.
  const vlm = {
    _name_or_path: 'my-vlm',
    model_type: 'gemma3',
    text_config: { ...config, model_type: 'gemma3_text', head_dim: 64 },
    vision_config: { model_type: 'siglip_vision_model' },
  };
  await page.fill('#model-config', JSON.stringify(vlm));
  assert.equal(await page.locator('#model-config-error').textContent(), '');
  await page.click('#model-config-use');
  await waitForecasts(page, ++n);
  assert.match(
    await page.locator('#model-info').textContent(),
    /^Pasted config: my-vlm · gemma3_text \(the language model of gemma3; its vision encoder is not forecast\) · 6 layers/,
  );
  await page.close();
});

test('compare serving: time to first token, per token, tokens/s, fits and the largest batch per GPU', async () => {
  const page = await open(
    '?view=compare&cmpserve=1&cmp=a100-80gb-sxm,h200&gpu=h100-sxm&model=llama3-8b&batch=1&prompt=512&out=128&prec=bf16&engine=fused',
  );
  await page.waitForFunction(() => document.querySelectorAll('#compare-table tbody tr[data-ttft]').length === 3);
  assert.equal(await page.locator('#compare-what').inputValue(), 'serving');
  for (const gpu of ['h100-sxm', 'a100-80gb-sxm', 'h200']) {
    const f = cliJson(['serve', '--gpu', gpu, '--model', 'llama3-8b', '--prompt', '512', '--output', '128', '--json']);
    const row = page.locator(`#compare-table tbody tr[data-gpu="${gpu}"]`);
    assert.equal(Number(await row.getAttribute('data-ttft')), f.prefill_ms, gpu);
    assert.equal(Number(await row.getAttribute('data-tpot')), f.decode_ms_per_token, gpu);
    assert.equal(Number(await row.getAttribute('data-tokens')), f.tokens_per_s, gpu);
    assert.equal(await row.getAttribute('data-fits'), String(f.memory.fits));
    assert.equal(Number(await row.getAttribute('data-max-batch')), f.max_batch);
    assert.equal(await row.getAttribute('data-band'), `${f.band.low},${f.band.high}`, gpu);
    assert.match(await row.locator('td').nth(1).textContent(), /^[\d.,]+ m?s–[\d.,]+ m?s$/);
  }
  assert.match(await page.locator('#share-link').inputValue(), /cmpserve=1/);
  // Back to the model forecast: the table has its Fits column.
  await page.selectOption('#compare-what', 'forecast');
  await page.waitForFunction(() => document.querySelectorAll('#compare-table tbody tr td[data-fits]').length === 3);
  await page.close();
});

test('the plan search runs on its own thread: the page stays responsive, new input stops it, the core refuses by cost', async () => {
  const page = await open('?gpu=h100-sxm&model=llama2-13b&mode=training&batch=64&seq=2048&sys=dgx-h100');
  await page.fill('#plan-max-gpus', '32');
  // The longest the page's thread is busy while six counts are searched (each 0.3-0.8 s natively).
  const longest = page.evaluate(
    () =>
      new Promise((resolve) => {
        let last = performance.now();
        let worst = 0;
        const tick = () => {
          const now = performance.now();
          worst = Math.max(worst, now - last);
          last = now;
          if (document.getElementById('plan-status').dataset.done) resolve(worst);
          else setTimeout(tick, 0);
        };
        setTimeout(tick, 0);
      }),
  );
  await page.click('#plan-find');
  const worst = await longest;
  assert.ok(worst < 250, `the page's thread was busy for ${worst} ms at once`);
  const jobs = await page.evaluate(() => ({ ...window.tilecastPage.jobs.plan }));
  assert.equal(jobs.slices, 6);
  assert.ok(jobs.maxSliceMs > worst, JSON.stringify(jobs)); // the calls ran elsewhere
  // New input during a search stops it.
  await page.fill('#plan-max-gpus', '16');
  await page.selectOption('#fprec', 'bf16');
  await page.click('#plan-find');
  await page.fill('#batch', '32');
  await page.waitForFunction(() =>
    /Stopped after \d of 5 GPU counts: the inputs changed/.test(document.getElementById('plan-status').textContent),
  );
  await page.close();
  // A count the core refuses for cost shows the core's message (a global batch of 2,048 over 64
  // GPUs: about 1.1e7 steps of work, over the budget; 1-32 GPUs run).
  const big = await open('?gpu=h100-sxm&model=llama3-70b&mode=training&batch=2048&seq=2048&sys=dgx-h100');
  await big.fill('#plan-max-gpus', '64');
  await big.click('#plan-find');
  await big.waitForSelector('#plan-status[data-done]', { timeout: 120000 });
  assert.match(await big.locator('#plan-status').textContent(), /over the budget of [\d.e+]+ per request/);
  await big.close();
});

test('forecasts of unequal footing are marked in every card, bar and row', async () => {
  const page = await open(
    '?gpu=h100-sxm&model=gpt2&mode=inference&batch=1&seq=128&view=compare&cmp=a100-80gb-sxm,mi300x',
  );
  await page.waitForFunction(() => document.querySelectorAll('#compare-table tbody tr td[data-footing]').length === 3);
  const footingOf = (gpu) =>
    page.locator(`#compare-table tbody tr[data-gpu="${gpu}"] td[data-footing]`).getAttribute('data-footing');
  // The H100 (Hopper) and MI300X (CDNA 3) were never measured; the A100 was.
  assert.equal(await footingOf('h100-sxm'), 'transferred');
  assert.equal(await footingOf('a100-80gb-sxm'), 'learned');
  assert.equal(await footingOf('mi300x'), 'transferred');
  await page.waitForFunction(
    () => JSON.parse(document.getElementById('compare-latency').dataset.labels ?? '[]').length === 3,
  );
  const labels = JSON.parse(await page.locator('#compare-latency').getAttribute('data-labels'));
  assert.deepEqual(
    labels.map((l) => l.endsWith(' †')),
    [true, false, true],
  );
  assert.match(await page.locator('#compare-key').textContent(), /^† transferred/);
  await page.click('#tab-forecast');
  assert.equal(await page.locator('#latency-footing').getAttribute('data-footing'), 'transferred');
  let n = await forecasts(page);
  await page.selectOption('#predictor', 'roofline');
  await waitForecasts(page, ++n);
  assert.equal(await page.locator('#latency-footing').textContent(), 'roofline only');
  await page.click('#tab-serve');
  await page.waitForSelector('#serve-footing[data-footing]');
  assert.equal(await page.locator('#serve-footing').getAttribute('data-footing'), 'roofline only');
  await page.close();
});

// A CSV file's rows (quoted cells as RFC 4180 writes them).
function parseCsv(text) {
  const rows = [];
  let row = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') ((cell += '"'), ++i);
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') (row.push(cell), (cell = ''));
    else if (c === '\r' && text[i + 1] === '\n') {
      (row.push(cell), rows.push(row), (row = []), (cell = ''), ++i);
    } else cell += c;
  }
  return rows;
}

async function downloaded(page, button) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return { name: d.suggestedFilename(), text: fs.readFileSync(await d.path(), 'utf8') };
}

test('Compare and Batch sweep share their link and export CSV and JSON with the CLI numbers', async () => {
  const q = '?view=compare&gpu=h100-sxm&model=gpt2&mode=inference&batch=4&seq=512&cmp=a100-80gb-sxm,mi300x';
  const page = await open(q);
  await page.waitForFunction(() => document.querySelectorAll('#compare-table tbody tr').length === 3);
  assert.equal(await page.locator('#share-panel').isVisible(), true);
  assert.equal(await page.locator('#exports').isVisible(), true);
  assert.equal(await page.locator('#share-link-label').textContent(), 'Link to this comparison');
  const link = await page.locator('#share-link').inputValue();
  assert.match(link, /[?&]view=compare&/);
  assert.match(link, /&cmp=a100-80gb-sxm%2Cmi300x&/);
  const gpus = ['h100-sxm', 'a100-80gb-sxm', 'mi300x'];
  const cli = Object.fromEntries(
    gpus.map((gpu) => [gpu, native({ gpu, model: 'gpt2', batch: 4, seq: 512, mode: 'inference' })]),
  );
  const csv = await downloaded(page, '#export-csv');
  assert.equal(csv.name, 'tilecast-compare-gpt2-inference-b4-s512.csv');
  const rows = parseCsv(csv.text);
  const head = rows[0];
  assert.deepEqual(head.slice(0, 3), ['gpu', 'name', 'latency_ms']);
  const col = (name) => head.indexOf(name);
  assert.deepEqual(
    rows.slice(1, -1).map((r) => r[0]),
    gpus,
  );
  for (const r of rows.slice(1, -1)) {
    const f = cli[r[0]];
    assert.equal(Number(r[col('latency_ms')]), f.latency_ms, r[0]);
    assert.equal(Number(r[col('roofline_latency_ms')]), f.roofline_latency_ms, r[0]);
    assert.equal(Number(r[col('tokens_per_s')]), f.tokens_per_s, r[0]);
    assert.equal(r[col('fits')], String(f.memory.fits), r[0]);
  }
  assert.deepEqual(rows.at(-1), ['link', link]);
  const json = JSON.parse((await downloaded(page, '#export-json')).text);
  assert.equal(json.link, link);
  assert.equal(json.view, 'compare');
  assert.deepEqual(
    json.rows.map((r) => r.gpu),
    gpus,
  );
  for (const r of json.rows) assert.deepEqual(r.forecast, cli[r.gpu], r.gpu);
  // The serving comparison exports its own columns.
  await page.selectOption('#compare-what', 'serving');
  await page.waitForFunction(() => document.querySelectorAll('#compare-table tbody tr[data-ttft]').length === 3);
  const serve = parseCsv((await downloaded(page, '#export-csv')).text);
  assert.deepEqual(serve[0].slice(0, 4), ['gpu', 'name', 'ttft_ms', 'tpot_ms']);
  const a100 = serve.find((r) => r[0] === 'a100-80gb-sxm');
  const s = cliJson([
    'serve',
    '--gpu',
    'a100-80gb-sxm',
    '--model',
    'gpt2',
    '--batch',
    '4',
    '--prompt',
    '512',
    '--output',
    '256',
    '--precision',
    'bf16',
    '--engine',
    'fused',
    '--json',
  ]);
  assert.equal(Number(a100[2]), s.prefill_ms);
  assert.equal(Number(a100[3]), s.decode_ms_per_token);
  assert.deepEqual(serve[0].slice(5, 7), ['band_low', 'band_high']);
  assert.deepEqual([Number(a100[5]), Number(a100[6])], [s.band.low, s.band.high]);
  // The link reopens the comparison.
  const again = await open(link.slice(pages.base.length));
  await again.waitForFunction(() => document.querySelectorAll('#compare-table tbody tr').length === 3);
  assert.equal(await again.locator('#share-link').inputValue(), link);

  // The sweep: batches 1 to 4, each the CLI's; its link and its files.
  await again.click('#tab-sweep');
  await again.fill('#sweep-max', '4');
  await again.waitForFunction(() => document.getElementById('sweep-status').dataset.points === '4');
  assert.equal(await again.locator('#share-panel').isVisible(), true);
  assert.equal(await again.locator('#share-link-label').textContent(), 'Link to this sweep');
  await again.waitForFunction(() => /[?&]view=sweep&.*&sweep=4&/.test(document.getElementById('share-link').value));
  const sweepLink = await again.locator('#share-link').inputValue();
  const sweep = await downloaded(again, '#export-csv');
  assert.equal(sweep.name, 'tilecast-sweep-gpt2-h100-sxm-inference-s512-to-b4.csv');
  const points = parseCsv(sweep.text);
  assert.deepEqual(points[0].slice(0, 2), ['batch', 'latency_ms']);
  assert.deepEqual(
    points.slice(1, -1).map((r) => r[0]),
    ['1', '2', '3', '4'],
  );
  for (const r of points.slice(1, -1)) {
    const f = native({ gpu: 'h100-sxm', model: 'gpt2', batch: Number(r[0]), seq: 512, mode: 'inference' });
    assert.equal(Number(r[1]), f.latency_ms, `batch ${r[0]}`);
    assert.equal(Number(r[points[0].indexOf('samples_per_s')]), f.samples_per_s, `batch ${r[0]}`);
  }
  assert.deepEqual(points.at(-1), ['link', sweepLink]);
  const sweepJson = JSON.parse((await downloaded(again, '#export-json')).text);
  assert.deepEqual(
    sweepJson.rows.map((r) => [r.batch, r.request.batch]),
    [
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
    ],
  );
  assert.deepEqual(
    sweepJson.rows[2].forecast,
    native({ gpu: 'h100-sxm', model: 'gpt2', batch: 3, seq: 512, mode: 'inference' }),
  );
  // The accuracy page has nothing to share.
  await again.click('#tab-accuracy');
  assert.equal(await again.locator('#share-panel').isHidden(), true);
  for (const p of [page, again]) await p.close();
});

test("the Forecast view's decode mode: one new token against a KV cache, the CLI's --mode decode", async () => {
  const page = await open('?gpu=h100-sxm&model=llama3-8b&mode=inference&batch=8&seq=4096&fprec=bf16');
  const n = await forecasts(page);
  await page.check('input[name="mode"][value="decode"]');
  await waitForecasts(page, n + 1);
  const f = native({ gpu: 'h100-sxm', model: 'llama3-8b', batch: 8, seq: 4096, mode: 'decode' }, [
    '--precision',
    'bf16',
  ]);
  assert.equal(f.mode, 'decode');
  const inference = native({ gpu: 'h100-sxm', model: 'llama3-8b', batch: 8, seq: 4096, mode: 'inference' }, [
    '--precision',
    'bf16',
  ]);
  assert.notEqual(f.latency_ms, inference.latency_ms);
  await page.waitForFunction((ms) => Number(document.getElementById('latency').dataset.value) === ms, f.latency_ms);
  assert.equal(await value(page, 'tokens'), f.tokens_per_s);
  assert.match(await page.locator('#tokens').textContent(), /generated tokens\/s/);
  assert.equal(await page.locator('#forecast-body').getAttribute('data-mode'), 'decode');
  assert.match(await page.locator('#forecast-title').textContent(), /decode step, batch 8, KV cache 4096 tokens/);
  assert.match(await page.locator('#assumptions').textContent(), /one decode step: one new token per sequence/);
  assert.equal(await page.locator('#seq-label').textContent(), 'Tokens in the KV cache');
  // It says whether it fits, as every mode does.
  const bar = page.locator('#train-memory-bar');
  assert.equal(Number(await bar.getAttribute('data-total')), f.memory.total_gb);
  assert.equal(await bar.getAttribute('data-fits'), String(f.memory.fits));
  // The link carries it; a mode the page does not offer gets a notice.
  const link = await page.locator('#share-link').inputValue();
  assert.match(link, /&mode=decode&/);
  const again = await open(link.slice(pages.base.length));
  assert.equal(await value(again, 'latency'), f.latency_ms);
  assert.equal(await again.locator('input[name="mode"][value="decode"]').isChecked(), true);
  await again.goto(pages.base + '?gpu=h100-sxm&model=gpt2&mode=prefil');
  await again.waitForSelector('html[data-ready="1"]');
  assert.match(await again.locator('#notice').textContent(), /mode "prefil" is not one of training, inference, decode/);
  for (const p of [page, again]) await p.close();
});

// A figure as shown ("1.235 T", "56.7 M", "0.412 ms", "12.3%") read back as a number.
function shownNumber(text) {
  const m = /^([\d,.]+)\s*([kMGTP]?)/.exec(text.replace('< 0.001', '0'));
  assert.ok(m, `a number: ${text}`);
  const scale = { '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15 }[m[2]];
  return Number(m[1].replaceAll(',', '')) * scale;
}

// The rounded figure agrees with the exact one to its four significant digits.
function assertRounded(text, exact, what) {
  const shown = shownNumber(text);
  const tol = Math.abs(exact) * 5e-4 + 5e-4; // half a unit of the fourth digit (or of 0.001)
  assert.ok(Math.abs(shown - exact) <= tol, `${what}: "${text}" against ${exact}`);
}

test('per-operator bound analysis: the table is the CLI response’s operators, sorted by time share', async () => {
  const req = { gpu: 'h100-sxm', model: 'llama3-8b', batch: 8, seq: 2048, mode: 'inference' };
  const f = native(req, ['--precision', 'bf16']);
  // The core's rows add up to the step: their times to the latency, their FLOPs are positive
  // where there is arithmetic; both bounds occur in a BF16 pass (GEMMs compute-, norms memory-bound).
  const total = f.operators.reduce((t, o) => t + o.time_ms, 0);
  assert.ok(Math.abs(total - f.latency_ms) <= 1e-9 * f.latency_ms, `${total} vs ${f.latency_ms}`);
  assert.deepEqual(new Set(f.operators.map((o) => o.bound)), new Set(['compute', 'memory']));
  for (const o of f.operators) {
    assert.equal(o.bound === 'compute', o.flops > 0 && o.intensity_flop_per_byte >= o.ridge_flop_per_byte, o.name);
    assert.equal(o.intensity_flop_per_byte, o.bytes > 0 ? o.flops / o.bytes : 0);
  }
  const page = await open('?gpu=h100-sxm&model=llama3-8b&mode=inference&batch=8&seq=2048&fprec=bf16');
  await page.waitForFunction((ms) => Number(document.getElementById('latency').dataset.value) === ms, f.latency_ms);
  const rows = await operatorRows(page, '#operators-table');
  assert.equal(await page.locator('#operators-panel').isVisible(), true);
  assertRowsAreOperators(rows, f.operators);
  for (const r of rows) {
    const o = f.operators[r.index];
    // the shown numbers rounded from the exact ones behind the cells (the CLI's)
    const [, launches, flops, bytes, intensity, ridge, bound, time, share] = r.texts;
    assert.equal(launches, String(o.launches));
    assertRounded(flops, o.flops, `${o.name} FLOPs`);
    assertRounded(bytes, o.bytes, `${o.name} bytes`);
    assertRounded(intensity, o.intensity_flop_per_byte, `${o.name} FLOP/byte`);
    assertRounded(ridge, o.ridge_flop_per_byte, `${o.name} ridge`);
    assert.equal(bound, o.bound);
    assertRounded(time, o.time_ms, `${o.name} ms`);
    assert.equal(share, `${(100 * o.share).toFixed(1)}%`);
  }
  // The step's order on request; the page's one render path redraws it.
  await page.selectOption('#ops-sort', 'order');
  await page.waitForFunction(() => document.querySelector('#operators-table tbody tr')?.dataset.index === '0');
  assert.deepEqual(
    (await operatorRows(page, '#operators-table')).map((r) => r.index),
    f.operators.map((_, i) => i),
  );
  // Decode reads each weight once per step for 8 tokens: the projections are memory-bound.
  const n = await forecasts(page);
  await page.check('input[name="mode"][value="decode"]');
  await waitForecasts(page, n + 1);
  const d = native({ ...req, mode: 'decode' }, ['--precision', 'bf16']);
  const decodeRows = await operatorRows(page, '#operators-table');
  assert.equal(decodeRows.length, d.operators.length);
  const linear = decodeRows.filter((r) => r.kernel === 'linear');
  assert.ok(linear.length > 0);
  for (const r of linear) assert.equal(r.bound, d.operators[r.index].bound);
  assert.ok(
    d.operators.filter((o) => o.kernel === 'linear' && o.name !== 'lm_head').every((o) => o.bound === 'memory'),
    'decode projections memory-bound',
  );
  // A multi-GPU step has no operator table.
  await page.goto(pages.base + '?gpu=h100-sxm&model=gpt2&mode=training&batch=8&seq=256&dp=2&sys=dgx-h100');
  await page.waitForSelector('html[data-ready="1"]');
  await page.waitForFunction(() => document.getElementById('forecast-body').dataset.gpus === '2');
  assert.equal(await page.locator('#operators-panel').isHidden(), true);
  await page.close();
});

// Llama 3 8B's published config.json (huggingface.co/meta-llama/Meta-Llama-3-8B), as a user
// downloads it: no tilecast fields.
const LLAMA3_8B_HF = {
  _name_or_path: 'meta-llama/Meta-Llama-3-8B',
  architectures: ['LlamaForCausalLM'],
  attention_bias: false,
  attention_dropout: 0.0,
  bos_token_id: 128000,
  eos_token_id: 128001,
  hidden_act: 'silu',
  hidden_size: 4096,
  initializer_range: 0.02,
  intermediate_size: 14336,
  max_position_embeddings: 8192,
  model_type: 'llama',
  num_attention_heads: 32,
  num_hidden_layers: 32,
  num_key_value_heads: 8,
  pretraining_tp: 1,
  rms_norm_eps: 1e-5,
  rope_scaling: null,
  rope_theta: 500000.0,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  transformers_version: '4.40.0.dev0',
  use_cache: true,
  vocab_size: 128256,
};

test('a Hugging Face config.json dropped or pasted forecasts as the zoo model it matches, named by _name_or_path', async () => {
  const query = '?gpu=h100-sxm&model=llama3-8b&mode=inference&batch=4&seq=1024&fprec=bf16';
  const zoo = native({ gpu: 'h100-sxm', model: 'llama3-8b', batch: 4, seq: 1024, mode: 'inference' }, [
    '--precision',
    'bf16',
  ]);
  // The core reads the file itself (one parser, native = WASM): the CLI agrees with its zoo row.
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tilecast-hf-')), 'config.json');
  fs.writeFileSync(file, JSON.stringify(LLAMA3_8B_HF, null, 2));
  const fromFile = native({ gpu: 'h100-sxm', model: file, batch: 4, seq: 1024, mode: 'inference' }, [
    '--precision',
    'bf16',
  ]);
  assert.equal(fromFile.model.name, 'meta-llama/Meta-Llama-3-8B');
  assert.equal(fromFile.latency_ms, zoo.latency_ms);
  assert.deepEqual(fromFile.operators, zoo.operators);

  // Dropped as a file on the config panel.
  const page = await open(query);
  await page.waitForFunction((ms) => Number(document.getElementById('latency').dataset.value) === ms, zoo.latency_ms);
  const zooRows = await operatorRows(page, '#operators-table');
  let n = await forecasts(page);
  const drop = await page.evaluateHandle(
    (text) => {
      const d = new DataTransfer();
      d.items.add(new File([text], 'config.json', { type: 'application/json' }));
      return d;
    },
    JSON.stringify(LLAMA3_8B_HF, null, 2),
  );
  await page.dispatchEvent('#custom-model', 'drop', { dataTransfer: drop });
  await waitForecasts(page, ++n);
  assert.equal(await page.locator('#model-config-error').textContent(), '');
  assert.equal(await page.locator('#forecast-body').getAttribute('data-model'), 'custom');
  assert.match(await page.locator('#forecast-title').textContent(), /^meta-llama\/Meta-Llama-3-8B on /);
  assert.match(await page.locator('#model-info').textContent(), /^Pasted config: meta-llama\/Meta-Llama-3-8B · /);
  assert.equal(await value(page, 'latency'), zoo.latency_ms);
  assert.deepEqual(await operatorRows(page, '#operators-table'), zooRows);
  await page.close();

  // Pasted: the same forecast; a field changed changes it (the config is read, not matched by name).
  const pasted = await open(query);
  await pasted.locator('#custom-model summary').click();
  await pasted.fill('#model-config', JSON.stringify(LLAMA3_8B_HF));
  n = await forecasts(pasted);
  await pasted.click('#model-config-use');
  await waitForecasts(pasted, ++n);
  assert.equal(await value(pasted, 'latency'), zoo.latency_ms);
  await pasted.fill('#model-config', JSON.stringify({ ...LLAMA3_8B_HF, num_hidden_layers: 16 }));
  await pasted.click('#model-config-use');
  await waitForecasts(pasted, ++n);
  assert.ok((await value(pasted, 'latency')) < zoo.latency_ms);
  await pasted.close();
});

// Every kind the page draws with its colour, from the charts (data-kind-colors), the memory bars,
// legends and the timeline (data-kind), colours normalised by the canvas (#rrggbb or rgba()).
function drawnKinds(page) {
  return page.evaluate(() => {
    const ctx = document.createElement('canvas').getContext('2d');
    const norm = (c) => {
      ctx.fillStyle = '#000';
      ctx.fillStyle = c;
      return ctx.fillStyle;
    };
    const pairs = [];
    for (const el of document.querySelectorAll('[data-kind-colors]'))
      for (const [k, c] of Object.entries(JSON.parse(el.dataset.kindColors))) pairs.push([k, norm(c)]);
    for (const el of document.querySelectorAll('[data-kind]')) {
      const c = el instanceof SVGElement ? el.getAttribute('fill') : getComputedStyle(el).backgroundColor;
      pairs.push([el.dataset.kind, norm(c)]);
    }
    return pairs;
  });
}

const PIPELINE_LINK =
  '?gpu=h100-sxm&model=llama2-7b&mode=training&batch=32&seq=4096&fprec=bf16&dp=2&ptp=2&pp=2&mb=8&sys=dgx-h100';

test('one colour per kind: no two kinds share a colour in any chart, bar, legend or timeline', async () => {
  const seen = [];
  const visit = async (query, ready) => {
    const page = await open(query);
    await page.waitForFunction(ready, undefined, { timeout: 30000 });
    seen.push(...(await drawnKinds(page)));
    await page.close();
  };
  await visit(PIPELINE_LINK, () => document.querySelector('#timeline[data-spans]') !== null);
  await visit(
    '?gpu=h100-sxm&model=llama3-8b&mode=training&batch=64&seq=4096&fprec=bf16&feng=megatron&dp=4&ptp=2&mb=8&sys=dgx-h100&sp=1',
    () => document.getElementById('breakdown-chart').dataset.kinds !== undefined,
  );
  await visit('?gpu=h100-sxm&model=llama3-8b&mode=inference&batch=8&seq=2048&fprec=bf16', () =>
    document.querySelector('#train-memory-bar .seg[data-kind="kv_cache"]'),
  );
  await visit(
    '?view=serve&gpu=h100-sxm&model=llama3-70b&batch=1&prompt=512&out=256',
    () => document.getElementById('serve-status').dataset.points,
  );
  await visit(
    '?view=compare&cmpserve=1&cmp=a100-80gb-sxm&gpu=h100-sxm&model=llama3-70b&batch=1&prompt=512&out=256',
    () => document.querySelectorAll('#compare-table tbody tr[data-ttft]').length === 2,
  );
  await visit(
    '?view=compare&cmp=a100-80gb-sxm&gpu=h100-sxm&model=gpt2&mode=training&batch=2&seq=256',
    () => document.getElementById('compare-latency').dataset.kindColors,
  );
  await visit(
    '?gpu=h100-sxm&model=gpt3-2.7b&mode=training&batch=1&seq=512&view=sweep&sweep=16',
    () => document.getElementById('sweep-status').dataset.points,
  );
  const byKind = new Map();
  const byColor = new Map();
  for (const [k, c] of seen) {
    byKind.set(k, new Set([...(byKind.get(k) ?? []), c]));
    byColor.set(c, new Set([...(byColor.get(c) ?? []), k]));
  }
  // Enough of the page was drawn for the check to mean something.
  for (const k of ['gemm', 'communication', 'bubble', 'forward', 'dp_comm', 'compute', 'optimizer', 'weights'])
    assert.ok(byKind.has(k), `${k} drawn: ${[...byKind.keys()]}`);
  for (const k of [
    'kv_cache',
    'gradients',
    'prefill',
    'decode',
    'tilecast',
    'roofline',
    'throughput',
    'unfit',
    'compute_bound',
    'memory_bound',
  ])
    assert.ok(byKind.has(k), `${k} drawn: ${[...byKind.keys()]}`);
  for (const [k, colors] of byKind) assert.equal(colors.size, 1, `${k} drawn in ${[...colors]}`);
  for (const [c, kinds] of byColor) assert.equal(kinds.size, 1, `${c} used for ${[...kinds]}`);
});

test('the pipeline timeline is readable on a phone (390 px): its text at 12 px, the panel scrolls sideways', async () => {
  const phone = await pages.newContext({ width: 390, height: 844 });
  const page = await pages.open(PIPELINE_LINK, { in: phone });
  await page.waitForSelector('#timeline[data-spans]');
  await page.locator('#timeline').scrollIntoViewIfNeeded();
  const m = await page.evaluate(() => {
    const box = document.getElementById('timeline');
    const text = box.querySelector('svg text');
    const scale = text.getScreenCTM().a;
    const px = scale * Number(text.getAttribute('font-size'));
    const before = box.scrollLeft;
    box.scrollLeft = 10000;
    return {
      px,
      scrollable: box.scrollWidth > box.clientWidth,
      scrolled: box.scrollLeft > before,
      right: box.getBoundingClientRect().right,
      page: document.documentElement.scrollWidth,
    };
  });
  assert.ok(m.px >= 11.5, `timeline text drawn at ${m.px} px`);
  assert.ok(m.scrollable && m.scrolled, JSON.stringify(m));
  assert.ok(m.right <= 390, `the timeline's panel ends at ${m.right} px`);
  assert.ok(m.page <= 390, `the page is ${m.page} px wide`);
  await phone.close();
});

test('the embed cards at 440 × 250 (the snippet size) keep their link to the calculator in view', async () => {
  const frame = await pages.newContext({ width: 440, height: 250 });
  for (const q of [
    '?embed=1&view=serve&gpu=h100-sxm&model=llama3-70b&batch=1&prompt=512&out=256&prec=bf16&engine=fused',
    `${PIPELINE_LINK}&embed=1`,
  ]) {
    const page = await pages.open(q, { in: frame });
    const link = page.locator('.embed-foot a');
    assert.equal(await link.textContent(), 'Open in the tilecast calculator');
    const r = await link.boundingBox();
    assert.ok(r.y >= 0 && r.y + r.height <= 250 && r.x >= 0 && r.x + r.width <= 440, `${q}: ${JSON.stringify(r)}`);
    // Not covered by anything else: the link is what a click there reaches.
    const hit = await page.evaluate(
      ([x, y]) => document.elementFromPoint(x, y)?.closest('a')?.textContent ?? '',
      [r.x + r.width / 2, r.y + r.height / 2],
    );
    assert.equal(hit, 'Open in the tilecast calculator', q);
    await page.close();
  }
  await frame.close();
});

test('no script error happened', () => {
  assert.deepEqual(pages.pageErrors, []);
});
