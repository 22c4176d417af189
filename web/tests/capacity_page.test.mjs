// Browser tests of the serve view's "GPUs for a request rate" panel (issue 30 item 2): the page's
// capacity plan is `tilecast capacity --json` of the same request, and the command it prints gives
// that plan; a model too large for one GPU is planned on several; an SLO nothing meets says why;
// no rate or the eager engine plans nothing and says so; the link carries the plan's fields; a
// comparison of serving forecasts plans each GPU at the same rate.
// Run: node --test web/tests/capacity_page.test.mjs (after scripts/build_web.sh and the native CLI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliJson } from './helpers.mjs';
import { pagesForFile } from './support/browser.mjs';

const pages = pagesForFile();
const open = (query) => pages.open(query);

const SERVE = '?view=serve&gpu=h100-sxm&batch=1&prompt=512&out=128&prec=bf16&engine=fused';

// The plan on screen once drawn (data-plan: the core's answer), and its status.
async function shownPlan(page) {
  await page.waitForSelector('#capacity-status[data-done]', { timeout: 90000 });
  const done = await page.locator('#capacity-status').getAttribute('data-done');
  const plan = await page.locator('#capacity-panel').getAttribute('data-plan');
  return {
    done,
    plan: plan === null ? null : JSON.parse(plan),
    status: await page.locator('#capacity-status').textContent(),
  };
}

// The command the assumptions print, run: `tilecast capacity --flag value ... --json`.
function runPrinted(assumptions) {
  const m = /`tilecast (capacity [^`]*) --json`/.exec(assumptions);
  assert.ok(m, `no command in: ${assumptions}`);
  return cliJson([...m[1].split(' '), '--json']);
}

test('the plan is `tilecast capacity --json` of the same request, and the printed command gives it', async () => {
  const page = await open(`${SERVE}&model=llama3-8b&cqps=20&cprice=4&lreq=200&sttft=400&stpot=30`);
  assert.equal(await page.locator('#notice').isHidden(), true, await page.locator('#notice').textContent());
  const { done, plan } = await shownPlan(page);
  assert.equal(done, 'plan');
  const native = cliJson([
    ...['capacity', '--gpu', 'h100-sxm', '--model', 'llama3-8b', '--prompt', '512', '--output', '128'],
    ...['--precision', 'bf16', '--qps', '20', '--requests', '200', '--seed', '0'],
    ...['--slo-ttft-ms', '400', '--slo-tpot-ms', '30', '--max-gpus', '64', '--price-per-gpu-hour', '4', '--json'],
  ]);
  assert.deepEqual(plan, native);
  const assumptions = await page.locator('#capacity-assumptions').textContent();
  assert.deepEqual(runPrinted(assumptions), native);
  // The verdict names the best option; the table has a row per option, the best first and marked.
  assert.ok(native.best);
  const verdict = await page.locator('#capacity-verdict').textContent();
  assert.match(verdict, new RegExp(`^${native.best.gpus} × NVIDIA H100`));
  assert.match(verdict, /serve 20 requests\/s with P99 TTFT ≤ 400 ms and P99 TPOT ≤ 30 ms/);
  // and the best option's replicas across the 80% band, as the plan gives them
  assert.ok(native.best.replicas_band, "the best option carries its replicas' band");
  const [fast, slow] = native.best.replicas_band;
  assert.match(
    verdict,
    fast === slow
      ? new RegExp(`Across the 80% band the same: ${fast} replica`)
      : new RegExp(`Across the 80% band: ${fast} to ${slow ?? 'more than'}`),
  );
  assert.equal(await page.locator('#capacity-body tr[data-meets]').count(), native.options.length);
  assert.equal(await page.locator('#capacity-body tr.best').count(), 1);
  assert.match(await page.locator('#capacity-head').textContent(), /Per hour.*Tokens per \$/);
  // The link carries the plan's fields and reopens it.
  const link = await page.locator('#share-link').inputValue();
  for (const part of ['cqps=20', 'cprice=4']) assert.ok(link.includes(part), `${part} in ${link}`);
  const again = await open(link.slice(pages.base.length));
  assert.deepEqual((await shownPlan(again)).plan, native);
  assert.equal(await again.locator('#capacity-qps').inputValue(), '20');
  assert.equal(await again.locator('#capacity-price').inputValue(), '4');
  await again.close();
  await page.close();
});

test('a model too large for one GPU is planned on several; an SLO nothing meets says why', async () => {
  const page = await open(`${SERVE}&model=llama3-70b&cqps=2&lreq=50&cmax=8`);
  const { plan } = await shownPlan(page);
  assert.ok(plan.best, JSON.stringify(plan.options));
  assert.ok(plan.best.tp >= 2, `best at TP ${plan.best.tp}`);
  assert.equal(plan.max_gpus, 8);
  // The serve card's own forecast (one GPU) does not fit: the plan is there all the same.
  assert.match(await page.locator('#capacity-verdict').textContent(), /tensor parallel/);
  await page.fill('#slo-tpot', '0.01');
  await page.waitForFunction(() =>
    /No option up to 8 GPUs/.test(document.getElementById('capacity-verdict').textContent),
  );
  const none = JSON.parse(await page.locator('#capacity-panel').getAttribute('data-plan'));
  assert.equal(none.best, null);
  assert.equal(await page.locator('#capacity-body tr.best').count(), 0);
  assert.ok(none.options.every((o) => !o.meets && o.why));
  await page.close();
});

test('no rate, or the eager engine, plans nothing and says so; typing a rate plans; damaged values get notices', async () => {
  const page = await open(`${SERVE}&model=llama3-8b&lreq=50`);
  const idle = await shownPlan(page);
  assert.equal(idle.done, 'idle');
  assert.equal(idle.plan, null);
  assert.match(idle.status, /Type a request rate/);
  assert.equal(await page.locator('#capacity-table').isHidden(), true);
  await page.fill('#capacity-qps', '5');
  await page.waitForSelector('#capacity-status[data-done="plan"]', { timeout: 90000 });
  assert.match(await page.locator('#share-link').inputValue(), /cqps=5/);
  await page.fill('#capacity-max', '0');
  assert.match(await page.locator('#capacity-error').textContent(), /Most GPUs must be a whole number from 1 to 1,024/);
  await page.close();
  const eager = await open(`${SERVE.replace('engine=fused', 'engine=eager')}&model=llama3-8b&cqps=5`);
  const refused = await shownPlan(eager);
  assert.equal(refused.done, 'idle');
  assert.match(refused.status, /simulates the optimised engine/);
  await eager.close();
  const damaged = await open(`${SERVE}&model=llama3-8b&cqps=fast&cmax=5000`);
  const notice = await damaged.locator('#notice').textContent();
  assert.match(notice, /request rate to plan for "fast" is not a positive number/);
  assert.match(notice, /most GPUs to plan 5000 is outside 1–1024/);
  await damaged.close();
});

test('a comparison of serving forecasts plans each GPU at the rate, as `tilecast capacity` does', async () => {
  const ids = ['h100-sxm', 'a100-80gb-sxm', 'h200'];
  const page = await open(
    `?view=compare&cmpserve=1&cmp=${ids.slice(1).join(',')}&gpu=${ids[0]}&model=llama3-8b&batch=1&prompt=512&out=128&prec=bf16&engine=fused&cqps=20&lreq=200&sttft=400&stpot=30`,
  );
  await page.waitForFunction(
    (n) =>
      [...document.querySelectorAll('#compare-table td[data-capacity-gpus]')].filter((td) => td.dataset.capacityGpus)
        .length === n,
    ids.length,
    { timeout: 90000 },
  );
  assert.match(
    await page.locator('#compare-table thead').textContent(),
    /GPUs for 20 req\/s \(P99 TTFT ≤ 400 ms, TPOT ≤ 30 ms\)/,
  );
  for (const gpu of ids) {
    const native = cliJson([
      ...[
        'capacity',
        '--gpu',
        gpu,
        '--model',
        'llama3-8b',
        '--prompt',
        '512',
        '--output',
        '128',
        '--precision',
        'bf16',
      ],
      ...['--qps', '20', '--requests', '200', '--seed', '0', '--slo-ttft-ms', '400', '--slo-tpot-ms', '30', '--json'],
    ]);
    const cell = page.locator(`#compare-table tr[data-gpu="${gpu}"] td[data-capacity-gpus]`);
    assert.equal(await cell.getAttribute('data-capacity-gpus'), String(native.best?.gpus ?? 0), gpu);
    if (native.best)
      assert.equal(await cell.textContent(), `${native.best.gpus} (TP ${native.best.tp} × ${native.best.replicas})`);
  }
  // The comparison's link carries the rate and the SLO (the serve view's settings).
  const link = await page.locator('#share-link').inputValue();
  for (const part of ['cqps=20', 'sttft=400', 'stpot=30', 'lreq=200'])
    assert.ok(link.includes(part), `${part} in ${link}`);
  await page.close();
  // Without a rate the column is not there.
  const bare = await open('?view=compare&cmpserve=1&cmp=h200&gpu=h100-sxm&model=llama3-8b&batch=1&prompt=512&out=128');
  await bare.waitForFunction(() => document.querySelectorAll('#compare-table tbody tr[data-ttft]').length === 2);
  assert.equal(await bare.locator('#compare-table td[data-capacity-gpus]').count(), 0);
  await bare.close();
});

test('priced per GPU, the comparison names the cheapest GPU as `tilecast capacity` of those GPUs does', async () => {
  const ids = ['h100-sxm', 'a100-80gb-sxm', 'h200'];
  const plan = (prices) =>
    cliJson([
      ...['capacity', '--gpu', ids.join(','), '--price-per-gpu-hour', prices.join(','), '--model', 'llama3-8b'],
      ...['--prompt', '512', '--output', '128', '--precision', 'bf16', '--qps', '20', '--requests', '200'],
      ...['--seed', '0', '--slo-ttft-ms', '400', '--slo-tpot-ms', '30', '--json'],
    ]);
  const page = await open(
    `?view=compare&cmpserve=1&cmp=${ids.slice(1).join(',')}&gpu=${ids[0]}&model=llama3-8b&batch=1&prompt=512&out=128&prec=bf16&engine=fused&cqps=20&lreq=200&sttft=400&stpot=30&cprices=h100-sxm:2.5,a100-80gb-sxm:1.4,h200:3.2`,
  );
  assert.equal(await page.locator('#notice').isHidden(), true, await page.locator('#notice').textContent());
  const cheapestShown = async (n) => {
    await page.waitForFunction(
      (k) => document.querySelectorAll('#compare-table td[data-price-per-hour]').length === k,
      n,
      { timeout: 90000 },
    );
    return page.locator('#compare-table tr[data-cheapest]').getAttribute('data-gpu');
  };
  let native = plan([2.5, 1.4, 3.2]);
  assert.equal(await cheapestShown(3), native.best.gpu);
  // each GPU's cell is priced at its own price: the plan's best option of that GPU
  for (const gpu of ids) {
    const best = native.options.filter((o) => o.gpu === gpu && o.meets && o.price_per_hour !== undefined);
    const cell = page.locator(`#compare-table tr[data-gpu="${gpu}"] td[data-capacity-gpus]`);
    assert.equal(
      Number(await cell.getAttribute('data-price-per-hour')),
      Math.min(...best.map((o) => o.price_per_hour)),
      gpu,
    );
  }
  assert.match(await page.locator('#compare-capacity').textContent(), /^Cheapest for 20 requests\/s within the SLO: /);
  // A lower A100 price, typed and committed, makes its two GPUs the cheapest, as the CLI says.
  const a100 = page.locator('#compare-table input.gpu-price[data-gpu="a100-80gb-sxm"]');
  await a100.fill('1.2');
  await a100.press('Enter');
  native = plan([2.5, 1.2, 3.2]);
  await page.waitForFunction(
    (gpu) => document.querySelector('#compare-table tr[data-cheapest]')?.getAttribute('data-gpu') === gpu,
    native.best.gpu,
    { timeout: 90000 },
  );
  assert.equal(native.best.gpu, 'a100-80gb-sxm');
  const link = await page.locator('#share-link').inputValue();
  assert.ok(link.includes('cprices=a100-80gb-sxm%3A1.2%2Ch100-sxm%3A2.5%2Ch200%3A3.2'), link);
  // A price that cannot be read is said, and the plans stay.
  const h200 = page.locator('#compare-table input.gpu-price[data-gpu="h200"]');
  await h200.fill('cheap');
  await h200.press('Enter');
  await page.waitForFunction(() => document.querySelector('#compare-price-error')?.textContent !== '');
  assert.match(await page.locator('#compare-price-error').textContent(), /price per GPU-hour must be a number above 0/);
  await page.close();
  // A damaged price in a link is left out with a notice.
  const damaged = await open(
    `?view=compare&cmpserve=1&cmp=h200&gpu=h100-sxm&model=llama3-8b&batch=1&prompt=512&out=128&cqps=20&cprices=h200:free,h100-sxm:2`,
  );
  assert.match(await damaged.locator('#notice').textContent(), /price "h200:free" is not a catalog id and a price/);
  await damaged.close();
});
