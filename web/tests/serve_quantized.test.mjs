// Browser tests of the serve view's quantized serving (docs/serving.md, "Quantized serving"): the
// precision's FP8 (W8A8) and FP4 (W4A4) as the CLI's --precision, a GPU without those units the
// core's error on the page; the weight format by default the checkpoint's own (gpt-oss's MXFP4
// experts: no field sent), each choice the CLI's `--weights`, the link carrying it only when
// chosen, a damaged value noticed, and a format the model cannot take (MXFP4 on a dense model) the
// core's error; the KV cache in FP8 as the CLI's `--kv-cache fp8`, likewise.
// Run: node --test web/tests/serve_quantized.test.mjs (after scripts/build_web.sh and the native CLI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliJson, cliServeArgs } from './helpers.mjs';
import { forecasts, pagesForFile, value, waitForecasts } from './support/browser.mjs';

const pages = pagesForFile();
const open = (query) => pages.open(query);

const REQ = { gpu: 'h100-sxm', model: 'gpt-oss-120b', batch: 8, prompt: 512, output: 128 };
const QUERY = `?view=serve&gpu=${REQ.gpu}&model=${REQ.model}&batch=${REQ.batch}&prompt=${REQ.prompt}&out=${REQ.output}&prec=bf16&engine=fused`;

// `tilecast serve` of the request, with `extra` flags, as JSON.
const serveCli = (extra = []) => cliJson(cliServeArgs(REQ, extra));

// What the serve view shows: its times and the memory bar.
async function shown(page) {
  const bar = page.locator('#memory-bar');
  return {
    ttft: await value(page, 'ttft'),
    tpot: await value(page, 'tpot'),
    total_gb: Number(await bar.getAttribute('data-total')),
    fits: await bar.getAttribute('data-fits'),
  };
}
const expected = (f) => ({
  ttft: f.prefill_ms,
  tpot: f.decode_ms_per_token,
  total_gb: f.memory.total_gb,
  fits: String(f.memory.fits),
});

test("the serve view serves gpt-oss as shipped, and each weight choice as the CLI's --weights", async () => {
  const page = await open(QUERY);
  assert.equal(await page.locator('#serve-weights').inputValue(), 'checkpoint');
  const shipped = serveCli();
  assert.equal(shipped.weights, 'mxfp4');
  assert.equal(shipped.memory.fits, true);
  assert.deepEqual(await shown(page), expected(shipped));
  assert.match(await page.locator('#serve-caveats').textContent(), /mxfp4 experts \(as gpt-oss's checkpoint/);
  assert.doesNotMatch(await page.locator('#share-link').inputValue(), /[?&]w=/);
  // BF16 experts: 234 GB, no single GPU holds them
  let n = await forecasts(page);
  await page.selectOption('#serve-weights', 'native');
  await waitForecasts(page, ++n);
  const native = serveCli(['--weights', 'native']);
  assert.equal(native.memory.fits, false);
  assert.deepEqual(await shown(page), expected(native));
  // the link carries the choice and reopens it
  const link = await page.locator('#share-link').inputValue();
  assert.match(link, /[?&]w=native(&|$)/);
  const again = await open(link.slice(pages.base.length));
  assert.equal(await again.locator('#serve-weights').inputValue(), 'native');
  assert.deepEqual(await shown(again), expected(native));
  assert.equal(await again.locator('#notice').isHidden(), true);
  await again.close();
  // weight-only INT4 on a dense model, and MXFP4 refused there with the core's words
  const dense = await open(`?view=serve&gpu=a100-80gb-sxm&model=llama3-8b&batch=1&prompt=512&out=128&prec=fp16&w=int4`);
  const int4 = cliJson(
    cliServeArgs({ gpu: 'a100-80gb-sxm', model: 'llama3-8b', batch: 1, prompt: 512, output: 128, precision: 'fp16' }, [
      '--weights',
      'int4',
    ]),
  );
  assert.equal(await value(dense, 'tpot'), int4.decode_ms_per_token);
  await dense.selectOption('#serve-weights', 'mxfp4');
  await dense.waitForFunction(() => /no routed experts/.test(document.getElementById('serve-error').textContent));
  assert.match(await dense.locator('#serve-error').textContent(), /allowed for it: native, int8, int4/);
  await dense.close();
  await page.close();
});

test('a damaged weight format in a link gets a notice and keeps the default', async () => {
  const page = await open(`${QUERY}&w=fp2`);
  assert.equal(await page.locator('#notice').isHidden(), false);
  assert.match(
    await page.locator('#notice').textContent(),
    /The link's weights "fp2" is not one of checkpoint, native, int8, int4, mxfp4\./,
  );
  assert.equal(await page.locator('#serve-weights').inputValue(), 'checkpoint');
  assert.deepEqual(await shown(page), expected(serveCli()));
  await page.close();
});

test("FP8 and FP4 serving as the CLI's --precision; a GPU without the units shows the core's error", async () => {
  const req = { gpu: 'h100-sxm', model: 'llama3-8b', batch: 8, prompt: 512, output: 128 };
  const page = await open(
    `?view=serve&gpu=${req.gpu}&model=${req.model}&batch=${req.batch}&prompt=${req.prompt}&out=${req.output}&prec=fp8&engine=fused`,
  );
  const fp8 = cliJson(cliServeArgs({ ...req, precision: 'fp8' }));
  assert.deepEqual(await shown(page), expected(fp8));
  assert.match(await page.locator('#serve-caveats').textContent(), /W8A8 fp8/);
  assert.match(await page.locator('#share-link').inputValue(), /[?&]prec=fp8(&|$)/);
  // FP4 on a Hopper GPU: refused by the core, its words on the page; a B200 forecasts it
  let n = await forecasts(page);
  await page.selectOption('#precision', 'fp4');
  await page.waitForFunction(() => /has no fp4 units/.test(document.getElementById('serve-error').textContent));
  const b200 = await open(
    `?view=serve&gpu=b200&model=${req.model}&batch=${req.batch}&prompt=${req.prompt}&out=${req.output}&prec=fp4&engine=fused`,
  );
  assert.deepEqual(await shown(b200), expected(cliJson(cliServeArgs({ ...req, gpu: 'b200', precision: 'fp4' }))));
  assert.equal(await b200.locator('#serve-error').textContent(), '');
  n = await forecasts(page);
  await page.selectOption('#precision', 'bf16');
  await waitForecasts(page, ++n);
  assert.equal(await page.locator('#serve-error').textContent(), '');
  assert.deepEqual(await shown(page), expected(cliJson(cliServeArgs({ ...req, precision: 'bf16' }))));
  for (const p of [page, b200]) await p.close();
});

test("an FP8 KV cache as the CLI's --kv-cache fp8: half the cache's bytes, carried by the link", async () => {
  const req = { gpu: 'h100-sxm', model: 'llama3-8b', batch: 32, prompt: 8192, output: 128 };
  const query = `?view=serve&gpu=${req.gpu}&model=${req.model}&batch=${req.batch}&prompt=${req.prompt}&out=${req.output}&prec=bf16&engine=fused`;
  const page = await open(query);
  assert.equal(await page.locator('#serve-kv-cache').inputValue(), 'auto');
  const bf16 = cliJson(cliServeArgs({ ...req, precision: 'bf16' }));
  assert.deepEqual(await shown(page), expected(bf16));
  assert.doesNotMatch(await page.locator('#share-link').inputValue(), /[?&]kv=/);
  let n = await forecasts(page);
  await page.selectOption('#serve-kv-cache', 'fp8');
  await waitForecasts(page, ++n);
  const fp8 = cliJson(cliServeArgs({ ...req, precision: 'bf16' }, ['--kv-cache', 'fp8']));
  assert.equal(fp8.kv_cache, 'fp8');
  assert.ok(fp8.memory.kv_cache_gb < bf16.memory.kv_cache_gb * 0.51, 'the cache at one byte a value');
  assert.ok(fp8.decode_ms_per_token < bf16.decode_ms_per_token, 'a decode step reads half the cache');
  assert.deepEqual(await shown(page), expected(fp8));
  assert.match(await page.locator('#serve-title').textContent(), /FP8 KV cache/);
  assert.match(await page.locator('#serve-caveats').textContent(), /KV cache in fp8/);
  const link = await page.locator('#share-link').inputValue();
  assert.match(link, /[?&]kv=fp8(&|$)/);
  const again = await open(link.slice(pages.base.length));
  assert.equal(await again.locator('#serve-kv-cache').inputValue(), 'fp8');
  assert.deepEqual(await shown(again), expected(fp8));
  // the eager engine keeps its cache in the activations' type: the core's refusal on the page
  await again.selectOption('#serve-engine', 'eager');
  await again.waitForFunction(() => /fused engine's/.test(document.getElementById('serve-error').textContent));
  assert.match(await again.locator('#serve-error').textContent(), /kv cache fp8/);
  await again.close();
  // a damaged value: a notice, and the default
  const damaged = await open(`${query}&kv=fp4`);
  assert.match(await damaged.locator('#notice').textContent(), /The link's KV cache "fp4" is not one of auto, fp8\./);
  assert.equal(await damaged.locator('#serve-kv-cache').inputValue(), 'auto');
  assert.deepEqual(await shown(damaged), expected(bf16));
  for (const p of [page, damaged]) await p.close();
});
