// Browser tests of the serve view's decode step per operator (docs/serving.md, "Where a decode step
// goes"; docs/web.md, "The serve view"): the fused engine's first decode step, the response's
// `decode_operators`, in the operators table (operators_view.ts) as `tilecast serve --json` gives
// them, sorted by share or in the step's order, the note saying what the shares are of; the eager
// engine, which has none, hides the panel.
// Run: node --test web/tests/serve_operators.test.mjs (after scripts/build_web.sh and the native CLI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliJson, cliServeArgs } from './helpers.mjs';
import { forecasts, pagesForFile, value, waitForecasts } from './support/browser.mjs';
import { assertRowsAreOperators, operatorRows } from './support/operators.mjs';

const pages = pagesForFile();

const REQ = { gpu: 'h200', model: 'gpt-oss-20b', batch: 900, prompt: 1500, output: 2, precision: 'bf16' };
const TABLE = '#serve-operators-table';
const QUERY = `?view=serve&gpu=${REQ.gpu}&model=${REQ.model}&batch=${REQ.batch}&prompt=${REQ.prompt}&out=${REQ.output}&prec=bf16&engine=fused`;

test("the serve view's decode step per operator is the CLI's decode_operators; the eager engine has none", async () => {
  const f = cliJson(cliServeArgs(REQ, ['--engine', 'fused']));
  const ops = f.decode_operators;
  assert.ok(ops?.length > 0, 'the CLI gives the fused engine decode_operators');
  const page = await pages.open(QUERY);
  await page.waitForFunction(
    (ms) => Number(document.getElementById('tpot').dataset.value) === ms,
    f.decode_ms_per_token,
  );
  const rows = await operatorRows(page, TABLE);
  assert.equal(await page.locator('#serve-operators-panel').isVisible(), true);
  assertRowsAreOperators(rows, ops);
  // gpt-oss's MXFP4 experts are rows of the step
  assert.ok(
    rows.some((r) => r.name.includes('experts gate_up (mxfp4 weights)')),
    rows.map((r) => r.name).join('\n'),
  );
  // the shares are of the first decode step, the rest of it the sampler (on one GPU)
  const total = ops.reduce((t, o) => t + o.share, 0);
  assert.ok(total > 0.5 && total < 1, `the operators' shares sum to ${total}`);
  const note = () => page.locator('#serve-operators-note').textContent();
  assert.match(await note(), /shares are of the first decode step \(/);
  assert.match(await note(), /the rest of the step is the sampler\. /);
  // over two GPUs the rest is the sampler and the all-reduces
  let n = await forecasts(page);
  await page.fill('#tp', '2');
  await waitForecasts(page, ++n);
  await page.waitForFunction(() => /all-reduces/.test(document.getElementById('serve-operators-note').textContent));
  assert.match(await note(), /the rest of the step is the sampler and the tensor-parallel all-reduces\. /);
  await page.fill('#tp', '1');
  await waitForecasts(page, ++n);
  await page.waitForFunction(() => !/all-reduces/.test(document.getElementById('serve-operators-note').textContent));
  // the step's order on request (one setting with the forecast view's table)
  await page.selectOption('#serve-ops-sort', 'order');
  await page.waitForFunction(() => document.querySelector('#serve-operators-table tbody tr')?.dataset.index === '0');
  assert.deepEqual(
    (await operatorRows(page, TABLE)).map((r) => r.index),
    ops.map((_, i) => i),
  );
  // the eager engine: its step holds host gaps no kernel owns, so no table
  const eager = cliJson(cliServeArgs(REQ, ['--engine', 'eager']));
  assert.equal(eager.decode_operators, undefined);
  n = await forecasts(page);
  await page.selectOption('#serve-engine', 'eager');
  await waitForecasts(page, n + 1);
  assert.equal(await value(page, 'tpot'), eager.decode_ms_per_token);
  assert.equal(await page.locator('#serve-operators-panel').isHidden(), true);
  assert.equal(await page.locator('#serve-operators-table tbody tr').count(), 0);
  // and back to the fused engine: the table again
  await page.selectOption('#serve-engine', 'fused');
  await page.waitForFunction(() => !document.getElementById('serve-operators-panel').hidden);
  assert.equal((await operatorRows(page, TABLE)).length, ops.length);
  await page.close();
});
