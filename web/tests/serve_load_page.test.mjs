// Browser tests of the serve view's "Under load" panel (issue 30 item 2): each point of the page's
// sweep equals `tilecast serve ... --qps R --requests N --seed S --json` of the same request, the
// default largest rate follows the static forecast, the link carries the sweep's fields (only when
// not default) and reopens it exactly, a damaged value gets its own notice, and the SLO's line and
// the stated highest rate follow the SLO inputs without simulating again, the P99s carry the
// simulation's 80% band (drawn, and the SLO said across it); the weights and KV cache
// chosen reach the simulation; a mixture's experts over N GPUs (lep) reach it as `--ep N`, the
// words say the rates are the replica's, and the core's refusal of it is the panel's.
// Run: node --test web/tests/serve_load_page.test.mjs (after scripts/build_web.sh and the native CLI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cli, cliJson, cliServeArgs } from './helpers.mjs';
import { pagesForFile } from './support/browser.mjs';

const pages = pagesForFile();
const open = (query) => pages.open(query);

const REQ = { gpu: 'h100-sxm', model: 'llama3-8b', prompt: 512, output: 128, precision: 'bf16' };
const SERVE_QUERY = `?view=serve&gpu=${REQ.gpu}&model=${REQ.model}&batch=1&prompt=${REQ.prompt}&out=${REQ.output}&prec=${REQ.precision}&engine=fused`;

// `tilecast serve` of the test's model and lengths, with `extra` flags, as JSON.
const serveCli = (extra) =>
  cliJson(cliServeArgs({ gpu: REQ.gpu, model: REQ.model, prompt: REQ.prompt, output: REQ.output }, extra));

// The CLI's simulation of one rate (`extra`: e.g. the range ratio).
function native(qps, requests, seed, extra = []) {
  return serveCli([
    '--precision',
    REQ.precision,
    '--qps',
    String(qps),
    '--requests',
    String(requests),
    '--seed',
    String(seed),
    ...extra,
  ]);
}

// Each point's TTFT and TPOT percentiles are the CLI's simulation of its rate (seed 0, `requests`,
// `extra` flags); returns the CLI's answers.
function assertLatenciesAsCli(sweep, requests, extra) {
  return sweep.map((p) => {
    const f = native(p.qps, requests, 0, extra);
    assert.deepEqual(
      { ttft: p.ttft, tpot: p.tpot },
      { ttft: { p50: f.ttft_ms.p50, p99: f.ttft_ms.p99 }, tpot: { p50: f.tpot_ms.p50, p99: f.tpot_ms.p99 } },
      `${p.qps} requests/s`,
    );
    return f;
  });
}

// One point of the sweep on screen is the CLI's answer `f` for its rate: every field it shows, the
// P99s' 80% band too.
function assertPointAsCli(p, f, label) {
  assert.deepEqual(
    { ttft: p.ttft, tpot: p.tpot, e2e: p.e2e, requests_per_s: p.requests_per_s, band: p.band },
    {
      ttft: { p50: f.ttft_ms.p50, p99: f.ttft_ms.p99 },
      tpot: { p50: f.tpot_ms.p50, p99: f.tpot_ms.p99 },
      e2e: { p50: f.e2e_ms.p50, p99: f.e2e_ms.p99 },
      requests_per_s: f.requests_per_s,
      band: f.band ? { ttft_p99: f.band.ttft_ms.p99, tpot_p99: f.band.tpot_ms.p99 } : null,
    },
    label,
  );
}

// The highest rate meeting the SLO with every step at the band's slow edge and at its fast edge.
function expectedBandMax(points, ttft, tpot) {
  const edge = (i) =>
    points.map((p) => ({ ...p, ttft: { p99: p.band.ttft_p99[i] }, tpot: { p99: p.band.tpot_p99[i] } }));
  return `${expectedMax(edge(1), ttft, tpot)},${expectedMax(edge(0), ttft, tpot)}`;
}

// The kinds a chart draws (data-kind-colors).
const chartKinds = async (page, id) =>
  Object.keys(JSON.parse(await page.locator(`#${id}`).getAttribute('data-kind-colors')));

// The sweep on screen once `points` rates are drawn: [{qps, ttft, tpot, e2e, requests_per_s}].
async function shownSweep(page, points) {
  await page.waitForSelector(`#load-status[data-points="${points}"]`, { timeout: 90000 });
  return JSON.parse(await page.locator('#load-panel').getAttribute('data-sweep'));
}

// The page's rule: the highest rate below which every rate meets both P99 SLOs (0: none).
function expectedMax(points, ttft, tpot) {
  let best = 0;
  for (const p of points) {
    if (p.ttft.p99 > ttft || p.tpot.p99 > tpot) break;
    best = p.qps;
  }
  return best;
}

const verdictMax = async (page) => Number(await page.locator('#load-verdict').getAttribute('data-max-qps'));

test("the load sweep's points equal `tilecast serve --qps R --requests N --seed S --json`; the link reopens it", async () => {
  const query = `${SERVE_QUERY}&lqps=40&lpts=4&lreq=300&lseed=3&sttft=400&stpot=30`;
  const page = await open(query);
  assert.equal(await page.locator('#notice').isHidden(), true);
  const sweep = await shownSweep(page, 4);
  assert.deepEqual(
    sweep.map((p) => p.qps),
    [10, 20, 30, 40],
  );
  for (const p of sweep) assertPointAsCli(p, native(p.qps, 300, 3), `${p.qps} requests/s`);
  // The assumptions name the simulation, its command and the simulator's caveats.
  const assumptions = await page.locator('#load-assumptions').textContent();
  assert.match(assumptions, /300 requests arriving as a Poisson stream \(seed 3\)/);
  assert.match(
    assumptions,
    /tilecast serve --gpu h100-sxm --model llama3-8b --prompt 512 --output 128 --precision bf16 --qps R --requests 300 --seed 3 --json/,
  );
  const caveats = native(10, 300, 3).caveats;
  assert.ok(caveats.length > 0);
  assert.equal(Number(await page.locator('#load-caveats').getAttribute('data-count')), caveats.length);
  // The verdict and the SLO's lines; the P99s' 80% band drawn and the SLO said across it.
  assert.equal(await verdictMax(page), expectedMax(sweep, 400, 30));
  for (const p of sweep) assert.ok(p.band.ttft_p99[0] <= p.ttft.p99 && p.ttft.p99 <= p.band.ttft_p99[1], `${p.qps}`);
  for (const id of ['load-ttft-chart', 'load-tpot-chart']) assert.ok((await chartKinds(page, id)).includes('band'), id);
  assert.equal(await page.locator('#load-verdict').getAttribute('data-band-qps'), expectedBandMax(sweep, 400, 30));
  assert.match(await page.locator('#load-verdict').textContent(), /Across the 80% band/);
  assert.equal(await page.locator('#load-ttft-chart').getAttribute('data-slo'), '400');
  assert.equal(await page.locator('#load-tpot-chart').getAttribute('data-slo'), '30');
  // The link carries the fields as given and reopens the same sweep, inputs and verdict.
  const link = await page.locator('#share-link').inputValue();
  for (const part of ['lqps=40', 'lpts=4', 'lreq=300', 'lseed=3', 'sttft=400', 'stpot=30'])
    assert.ok(link.includes(part), `${part} in ${link}`);
  const again = await open(link.slice(pages.base.length));
  assert.deepEqual(await shownSweep(again, 4), sweep);
  assert.equal(await again.locator('#notice').isHidden(), true);
  const inputs = {};
  for (const id of ['load-qps', 'load-points', 'load-requests', 'load-seed', 'slo-ttft', 'slo-tpot'])
    inputs[id] = await again.locator(`#${id}`).inputValue();
  assert.deepEqual(inputs, {
    'load-qps': '40',
    'load-points': '4',
    'load-requests': '300',
    'load-seed': '3',
    'slo-ttft': '400',
    'slo-tpot': '30',
  });
  assert.equal(await verdictMax(again), await verdictMax(page));
  for (const p of [page, again]) await p.close();
});

test('the SLO line and the highest rate meeting it follow the SLO inputs, without simulating again', async () => {
  const page = await open(`${SERVE_QUERY}&lqps=40&lpts=4&lreq=300&lseed=3`);
  const sweep = await shownSweep(page, 4);
  const started = await page.evaluate(() => window.tilecastPage.jobs.load.started);
  const setSlo = async (ttft, tpot) => {
    await page.fill('#slo-ttft', String(ttft));
    await page.fill('#slo-tpot', String(tpot));
    await page.waitForFunction(
      ([a, b]) =>
        document.getElementById('load-ttft-chart').dataset.slo === a &&
        document.getElementById('load-tpot-chart').dataset.slo === b,
      [String(ttft), String(tpot)],
    );
  };
  // Loose: every rate meets it.
  await setSlo(1e6, 1e6);
  assert.equal(await verdictMax(page), 40);
  assert.match(await page.locator('#load-verdict').textContent(), /^Every rate simulated meets the SLO/);
  // Tighter than the lowest rate's P99 TTFT: none does.
  const tight = Math.floor(sweep[0].ttft.p99 / 2);
  await setSlo(tight, 1e6);
  assert.equal(await verdictMax(page), 0);
  assert.match(await page.locator('#load-verdict').textContent(), /^No rate simulated meets the SLO/);
  // Between two rates' P99 TPOT: the rate below is the answer, said in words.
  const mid = (sweep[1].tpot.p99 + sweep[2].tpot.p99) / 2;
  if (sweep[2].tpot.p99 > sweep[1].tpot.p99) {
    const slo = Math.round(mid * 1000) / 1000;
    await setSlo(1e6, slo);
    assert.equal(await verdictMax(page), expectedMax(sweep, 1e6, slo));
    assert.equal(await verdictMax(page), 20);
    assert.match(
      await page.locator('#load-verdict').textContent(),
      /up to 20 requests\/s of the rates simulated; at 30 requests\/s P99 TPOT is/,
    );
  }
  // The SLO travels in the link; no new simulation ran.
  assert.match(await page.locator('#share-link').inputValue(), /sttft=1000000&stpot=/);
  assert.equal(await page.evaluate(() => window.tilecastPage.jobs.load.started), started);
  // An SLO that cannot be read: said beside the inputs, the plot kept.
  await page.fill('#slo-ttft', '-5');
  await page.waitForFunction(() => document.getElementById('load-error').textContent !== '');
  assert.match(await page.locator('#load-error').textContent(), /TTFT SLO \(ms\) must be a number above 0/);
  assert.equal(await page.locator('#load-panel').getAttribute('class'), 'panel load-panel stale');
  await page.close();
});

test('by default the largest rate comes from the static forecast and the link carries no load fields', async () => {
  const page = await open(`${SERVE_QUERY}&lpts=3&lreq=200`);
  const sweep = await shownSweep(page, 3);
  // 1.5 x the requests/s of the largest batch that fits (at most 256), two significant digits.
  const one = serveCli([]);
  const batch = Math.min(one.max_batch, 256);
  const cap = serveCli(['--batch', String(batch)]);
  const max = Number(((batch * 1000 * 1.5) / cap.total_ms).toPrecision(2));
  assert.equal(sweep[sweep.length - 1].qps, max);
  assert.equal(await page.locator('#load-qps').getAttribute('placeholder'), `auto: ${max}`);
  const link = await page.locator('#share-link').inputValue();
  assert.doesNotMatch(link, /lqps=|lseed=|sttft=|stpot=/);
  assert.match(link, /lpts=3&lreq=200/);
  // The default sweep's link has none of them.
  await page.fill('#load-points', '8');
  await page.fill('#load-requests', '1000');
  await page.waitForFunction(() => !/lpts=|lreq=/.test(document.getElementById('share-link').value));
  await page.close();
});

test('a length spread draws the lengths as `--range-ratio` does, in the command, the assumptions and the link', async () => {
  const page = await open(`${SERVE_QUERY}&lqps=20&lpts=2&lreq=200&lrr=0.5`);
  assert.equal(await page.locator('#notice').isHidden(), true, await page.locator('#notice').textContent());
  assert.equal(await page.locator('#load-range').inputValue(), '0.5');
  const sweep = await shownSweep(page, 2);
  for (const p of sweep) {
    const f = native(p.qps, 200, 0, ['--range-ratio', '0.5']);
    assert.deepEqual(
      { ttft: p.ttft, tpot: p.tpot },
      { ttft: { p50: f.ttft_ms.p50, p99: f.ttft_ms.p99 }, tpot: { p50: f.tpot_ms.p50, p99: f.tpot_ms.p99 } },
      `${p.qps} requests/s`,
    );
    assert.notDeepEqual(p.ttft, { p50: native(p.qps, 200, 0).ttft_ms.p50, p99: native(p.qps, 200, 0).ttft_ms.p99 });
  }
  const assumptions = await page.locator('#load-assumptions').textContent();
  assert.match(assumptions, /within ±50 % of 512 and 128 tokens \(vLLM's random dataset, range ratio 0\.5\)/);
  assert.match(assumptions, /--seed 0 --range-ratio 0\.5 --json/);
  assert.match(await page.locator('#share-link').inputValue(), /lrr=0\.5/);
  // back to fixed lengths: the link drops it; a spread of 1 or more is refused beside the inputs
  await page.fill('#load-range', '0');
  await page.waitForFunction(() => !/lrr=/.test(document.getElementById('share-link').value));
  await page.fill('#load-range', '1');
  await page.waitForFunction(() => document.getElementById('load-error').textContent !== '');
  assert.match(await page.locator('#load-error').textContent(), /length spread must be a number from 0 to 0\.99/);
  await page.close();
});

test("the serve view's weights and KV cache reach the simulation, and its command names them", async () => {
  const page = await open(`${SERVE_QUERY}&w=int4&kv=fp8&lqps=20&lpts=2&lreq=200`);
  assert.equal(await page.locator('#notice').isHidden(), true, await page.locator('#notice').textContent());
  for (const f of assertLatenciesAsCli(await shownSweep(page, 2), 200, ['--weights', 'int4', '--kv-cache', 'fp8']))
    assert.equal(f.kv_cache, 'fp8');
  assert.match(
    await page.locator('#load-assumptions').textContent(),
    /--precision bf16 --weights int4 --kv-cache fp8 --qps R --requests 200 --seed 0 --json/,
  );
  await page.close();
});

// The command prints every field the page sends (load_view.ts loadCommand), the predictor too.
test('the roofline predictor reaches the simulation, and its command names it', async () => {
  const page = await open(`${SERVE_QUERY}&pred=roofline&lqps=20&lpts=2&lreq=200`);
  assert.equal(await page.locator('#notice').isHidden(), true, await page.locator('#notice').textContent());
  const sweep = await shownSweep(page, 2);
  for (const [i, f] of assertLatenciesAsCli(sweep, 200, ['--predictor', 'roofline']).entries())
    assert.notDeepEqual(f.ttft_ms, native(sweep[i].qps, 200, 0).ttft_ms);
  assert.match(
    await page.locator('#load-assumptions').textContent(),
    /--precision bf16 --predictor roofline --qps R --requests 200 --seed 0 --json/,
  );
  // a bound carries no band: none drawn, none said
  assert.ok(sweep.every((p) => p.band === null));
  assert.ok(!(await chartKinds(page, 'load-ttft-chart')).includes('band'));
  assert.equal(await page.locator('#load-verdict').getAttribute('data-band-qps'), null);
  assert.doesNotMatch(await page.locator('#load-verdict').textContent(), /80% band/);
  await page.close();
});

test("a refused simulation hides the earlier sweep's charts; a new sweep shows them again", async () => {
  const page = await open(`${SERVE_QUERY}&lpts=2&lreq=50`);
  await shownSweep(page, 2);
  assert.equal(await page.locator('#load-charts').isVisible(), true);
  // eager PyTorch: the core refuses to simulate it; the fused engine's plot must not stay beside that
  await page.selectOption('#serve-engine', 'eager');
  await page.waitForSelector('#load-status[data-points="0"]', { timeout: 60000 });
  assert.match(await page.locator('#load-status').textContent(), /^No simulation: /);
  assert.equal(await page.locator('#load-charts').isHidden(), true);
  assert.equal(await page.locator('#load-verdict').textContent(), '');
  await page.selectOption('#serve-engine', 'fused');
  await shownSweep(page, 2);
  assert.equal(await page.locator('#load-charts').isVisible(), true);
  await page.close();
});

test('damaged load values in a link each get a notice and keep their defaults', async () => {
  const page = await open(`${SERVE_QUERY}&lqps=-3&lpts=99&lreq=abc&lseed=1.5&lrr=2&lep=0&sttft=0&stpot=x`);
  const notice = await page.locator('#notice').textContent();
  assert.match(notice, /largest request rate "-3" is not a positive number/);
  assert.match(notice, /request rates to simulate 99 is outside 2–32/);
  assert.match(notice, /requests per rate "abc" is not a whole number/);
  assert.match(notice, /arrival seed "1\.5" is not a whole number/);
  assert.match(notice, /length spread \(range ratio\) "2" is not a number from 0 to 0\.99/);
  assert.match(notice, /serving expert-parallel size 0 is outside 1–1024/);
  assert.match(notice, /TTFT SLO \(ms\) "0" is not a positive number/);
  assert.match(notice, /TPOT SLO \(ms\) "x" is not a positive number/);
  assert.equal(await page.locator('#load-points').inputValue(), '8');
  assert.equal(await page.locator('#slo-ttft').inputValue(), '500');
  assert.equal(await page.locator('#load-ep').inputValue(), '1');
  // The core's refusal (the simulator runs the fused engine only) in place of the plot.
  const eager = await open(`${SERVE_QUERY.replace('engine=fused', 'engine=eager')}&lpts=2&lreq=50`);
  await eager.waitForSelector('#load-status[data-points="0"]', { timeout: 60000 });
  assert.match(
    await eager.locator('#load-status').textContent(),
    /^No simulation: a serving simulation runs the fused engine \(vLLM-like\), not eager$/,
  );
  assert.equal(await eager.locator('#load-verdict').textContent(), '');
  for (const p of [page, eager]) await p.close();
});

// ---- expert parallelism (lep) -----------------------------------------------------------------

// A mixture of experts (32 routed experts) that fits one H100, so one GPU and a replica compare.
const MOE = { gpu: 'h100-sxm', model: 'gpt-oss-20b', prompt: 512, output: 128 };
const MOE_QUERY = `?view=serve&gpu=${MOE.gpu}&model=${MOE.model}&batch=1&prompt=${MOE.prompt}&out=${MOE.output}&prec=bf16&engine=fused`;
const moeCli = (extra) => cliJson(cliServeArgs(MOE, ['--precision', 'bf16', ...extra]));
const moeNative = (qps, requests, extra = []) =>
  moeCli(['--qps', String(qps), '--requests', String(requests), '--seed', '0', ...extra]);

// Each point of the sweep is the CLI's simulation of its rate with `extra` flags, all its fields.
function assertSweepAsCli(sweep, requests, extra) {
  return sweep.map((p) => {
    const f = moeNative(p.qps, requests, extra);
    assertPointAsCli(p, f, `${p.qps} requests/s ${extra.join(' ')}`);
    return f;
  });
}

test("experts over N GPUs: each point is `tilecast serve --ep N`, the words say the replica's, the link reopens it", async () => {
  const page = await open(`${MOE_QUERY}&lqps=40&lpts=2&lreq=200&lep=4`);
  assert.equal(await page.locator('#notice').isHidden(), true, await page.locator('#notice').textContent());
  assert.equal(await page.locator('#load-ep').inputValue(), '4');
  const sweep = await shownSweep(page, 2);
  assert.deepEqual(
    sweep.map((p) => p.qps),
    [20, 40],
  );
  for (const [i, f] of assertSweepAsCli(sweep, 200, ['--ep', '4']).entries()) {
    assert.equal(f.ep, 4);
    // the replica is not one GPU: its latencies differ from the simulation without --ep
    assert.notDeepEqual(f.ttft_ms, moeNative(sweep[i].qps, 200).ttft_ms);
  }
  const assumptions = await page.locator('#load-assumptions').textContent();
  assert.match(assumptions, /on one replica of 4 GPUs, each running its own requests .* 1\/4 of the routed experts/);
  assert.match(
    assumptions,
    /rates asked of the whole replica \(all 4 GPUs\), as are its throughput and requests\/s served/,
  );
  assert.match(assumptions, /--precision bf16 --qps R --requests 200 --seed 0 --ep 4 --json/);
  assert.match(
    await page.locator('#load-verdict').textContent(),
    /The rates are the replica's: requests\/s to all 4 GPUs together/,
  );
  // The link carries lep and reopens the same sweep with the field as given.
  const link = await page.locator('#share-link').inputValue();
  assert.match(link, /&lep=4(&|$)/);
  const again = await open(link.slice(pages.base.length));
  assert.equal(await again.locator('#notice').isHidden(), true);
  assert.equal(await again.locator('#load-ep').inputValue(), '4');
  assert.deepEqual(await shownSweep(again, 2), sweep);
  // Back to 1 (off): no ep sent, none in the command, the words or the link.
  await again.fill('#load-ep', '1');
  await again.waitForFunction(() => !/lep=/.test(document.getElementById('share-link').value));
  await again.waitForFunction(() => !/--ep /.test(document.getElementById('load-assumptions').textContent));
  assertSweepAsCli(await shownSweep(again, 2), 200, []);
  assert.match(await again.locator('#load-assumptions').textContent(), /on one replica of one GPU;/);
  assert.doesNotMatch(await again.locator('#load-verdict').textContent(), /replica's/);
  // A count that cannot be read: said beside the inputs, the plot kept, dimmed.
  await again.fill('#load-ep', '0');
  await again.waitForFunction(() => document.getElementById('load-error').textContent !== '');
  assert.match(
    await again.locator('#load-error').textContent(),
    /Expert-parallel GPUs must be a whole number from 1 to 1,024/,
  );
  assert.equal(await again.locator('#load-panel').getAttribute('class'), 'panel load-panel stale');
  for (const p of [page, again]) await p.close();
});

test("with the experts over N GPUs an empty largest rate is N times one GPU's", async () => {
  const page = await open(`${MOE_QUERY}&lpts=2&lreq=200&lep=2`);
  const sweep = await shownSweep(page, 2);
  // 1.5 x the requests/s of the largest batch that fits one GPU (at most 256), times the 2 GPUs.
  const batch = Math.min(moeCli([]).max_batch, 256);
  const cap = moeCli(['--batch', String(batch)]);
  const max = Number(((batch * 1000 * 1.5 * 2) / cap.total_ms).toPrecision(2));
  const oneGpu = Number(((batch * 1000 * 1.5) / cap.total_ms).toPrecision(2));
  assert.notEqual(max, oneGpu);
  assert.equal(sweep[sweep.length - 1].qps, max);
  assert.equal(await page.locator('#load-qps').getAttribute('placeholder'), `auto: ${max}`);
  assertSweepAsCli(sweep, 200, ['--ep', '2']);
  await page.close();
});

// The core's message for a request it refuses, as the page shows it.
async function assertRefusal(query, cliArgs) {
  const page = await open(query);
  await page.waitForSelector('#load-status[data-points="0"]', { timeout: 60000 });
  const refused = cli(cliArgs);
  assert.equal(refused.ok, false, cliArgs.join(' '));
  assert.equal(await page.locator('#load-status').textContent(), `No simulation: ${refused.error}`);
  assert.equal(await page.locator('#load-charts').isHidden(), true);
  assert.equal(await page.locator('#load-verdict').textContent(), '');
  await page.close();
}

test("the core's refusal of expert parallelism is the panel's: a dense model, tp above 1, N not dividing the experts", async () => {
  const load = ['--precision', 'bf16', '--qps', '10', '--requests', '50'];
  await assertRefusal(
    `${SERVE_QUERY}&lqps=20&lpts=2&lreq=50&lep=2`,
    cliServeArgs({ gpu: REQ.gpu, model: REQ.model, prompt: REQ.prompt, output: REQ.output }, [...load, '--ep', '2']),
  );
  await assertRefusal(
    `${MOE_QUERY}&tp=2&lqps=20&lpts=2&lreq=50&lep=2`,
    cliServeArgs({ ...MOE, tp: 2 }, [...load, '--ep', '2']),
  );
  await assertRefusal(`${MOE_QUERY}&lqps=20&lpts=2&lreq=50&lep=3`, cliServeArgs(MOE, [...load, '--ep', '3']));
});
