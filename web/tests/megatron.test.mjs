// Browser tests of issue 28's page: the Megatron-Core engine (step time, tokens/s, MFU, HFU,
// days to train, breakdown, memory) with the native CLI's numbers, every new field in the share
// link, FP8 on a GPU without it, a model by its sizes, tampered links, the comparison and the
// sweep with this engine. Run: node --test web/tests/megatron.test.mjs (after scripts/build_web.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cli, cliJson } from './helpers.mjs';
import { forecasts, pagesForFile, value, waitForecasts } from './support/browser.mjs';
import fs from 'node:fs';

const pages = pagesForFile();
const open = (query) => pages.open(query);

// `tilecast forecast … --engine megatron --json`, the contract.
function megatron(args) {
  return cli(['forecast', '--mode', 'training', '--engine', 'megatron', '--predictor', 'tilecast', '--json', ...args]);
}

// Llama 3 8B on a DGX H100: data 4 × tensor 2, sequence parallelism, 1T tokens (docs/megatron.md's example).
const LLAMA_LINK =
  '?gpu=h100-sxm&model=llama3-8b&mode=training&batch=64&seq=4096&fprec=bf16&feng=megatron&dp=4&ptp=2&mb=8&sys=dgx-h100&sp=1&tokens=1T';
const LLAMA_ARGS = [
  '--gpu',
  'h100-sxm',
  '--model',
  'llama3-8b',
  '--batch',
  '64',
  '--seq',
  '4096',
  '--precision',
  'bf16',
  '--gpus',
  '8',
  '--dp',
  '4',
  '--tp',
  '2',
  '--microbatches',
  '8',
  '--sequence-parallel',
  '--system',
  'dgx-h100',
  '--tokens',
  '1000000000000',
];

// Every figure of the summary against the CLI's response.
async function assertMegatronMatches(page, f) {
  assert.equal(await page.locator('#forecast-error').textContent(), '');
  assert.equal(await page.locator('#forecast-body').getAttribute('data-engine'), 'megatron');
  assert.equal(await value(page, 'latency'), f.step_ms);
  assert.equal(await value(page, 'samples'), f.samples_per_s);
  assert.equal(await value(page, 'tokens'), f.tokens_per_s);
  assert.equal(await value(page, 'tokens-per-gpu'), f.tokens_per_s_per_gpu);
  assert.equal(await value(page, 'mfu'), f.mfu);
  assert.equal(await value(page, 'model-tflops'), f.model_tflops_per_gpu);
  assert.equal(Number(await page.locator('#mfu-sub').getAttribute('data-hfu')), f.hfu);
  assert.equal(await page.locator('#mfu-card').getAttribute('title'), f.mfu_formula);
  const bar = page.locator('#train-memory-bar');
  assert.equal(Number(await bar.getAttribute('data-total')), f.memory.total_gb);
  assert.equal(await bar.getAttribute('data-fits'), String(f.memory.fits));
  assert.equal(await bar.locator('.seg').count(), 6); // weights, gradients, optimizer, activations, workspace, context
}

test('a Megatron link opens with the native CLI numbers: step, tokens/s, MFU, HFU, days to train, memory', async () => {
  const page = await open(LLAMA_LINK);
  const f = cliJson(['forecast', '--mode', 'training', '--engine', 'megatron', '--json', ...LLAMA_ARGS]);
  await assertMegatronMatches(page, f);
  assert.equal(await page.locator('#days-card').isHidden(), false);
  assert.equal(await value(page, 'train-days'), f.train_days);
  assert.match(await page.locator('#train-days-sub').textContent(), /^1T tokens at /);
  // A bound is never shown as a forecast: no roofline card beside the step.
  assert.equal(await page.locator('#roofline-card').isHidden(), true);
  // The breakdown has the engine's kinds; the assumptions are the core's and carry MFU's formula.
  assert.equal(
    await page.locator('#breakdown-chart').getAttribute('data-kinds'),
    'compute,tp_comm,pp_comm,dp_comm,bubble,optimizer',
  );
  const assumptions = await page.locator('#train-assumptions li').allTextContents();
  assert.deepEqual(assumptions.slice(0, f.assumptions.length), f.assumptions);
  assert.match(assumptions.at(-1), /^MFU: Korthikanti et al\. 2022 eq\. 7/);
  assert.equal(await page.locator('#timeline-panel').isHidden(), true);
  assert.match(
    await page.locator('#assumptions').textContent(),
    /as Megatron-Core runs it, BF16 .* on 8 GPUs of system dgx-h100/,
  );
  assert.match(await page.locator('#caveats').textContent(), /No Hopper GPU was measured/);
  // The controls show the link's fields; the eager engine's ZeRO and schedule are hidden.
  assert.equal(await page.locator('#feng').inputValue(), 'megatron');
  assert.equal(await page.locator('#sp').isChecked(), true);
  assert.equal(await page.locator('#train-tokens').inputValue(), '1T');
  assert.equal(await page.locator('#zero-field').isHidden(), true);
  assert.equal(await page.locator('#schedule-field').isHidden(), true);
  assert.equal(await page.locator('#megatron-fields').isHidden(), false);
  assert.equal(await page.locator('#notice').isHidden(), true);
  // The exports are the step's: the JSON is the core's response, the CSV has MFU and the layout.
  const [json] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
  assert.deepEqual(JSON.parse(fs.readFileSync(await json.path(), 'utf8')).forecast, f);
  const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
  const csvText = fs.readFileSync(await csv.path(), 'utf8');
  assert.ok(csvText.includes(`\r\nsummary,mfu,,,,${f.mfu}\r\n`), csvText.slice(0, 400));
  assert.ok(csvText.includes(`\r\nsummary,step_ms,,${f.forward_ms},${f.backward_ms},${f.step_ms}\r\n`));
  assert.ok(csvText.includes('\r\nparallel,cp,,,,1\r\n'));
  // Megatron-LM's fused softmax over the scores instead of FlashAttention: chosen, linked, the CLI's.
  let n = await forecasts(page);
  await page.selectOption('#attention', 'fused-softmax');
  await waitForecasts(page, ++n);
  const link = await page.locator('#share-link').inputValue();
  assert.match(link, /&attn=fused-softmax&/);
  const fused = cliJson([
    'forecast',
    '--mode',
    'training',
    '--engine',
    'megatron',
    '--json',
    ...LLAMA_ARGS,
    '--attention',
    'fused-softmax',
  ]);
  assert.equal(fused.parallel.attention, 'fused-softmax');
  assert.notEqual(fused.step_ms, f.step_ms);
  const again = await open(link.slice(pages.base.length));
  await assertMegatronMatches(again, fused);
  assert.equal(await again.locator('#attention').inputValue(), 'fused-softmax');
  for (const p of [page, again]) await p.close();
});

test('the share link round-trips every new field; an old compile=1 link opens torch.compile', async () => {
  const page = await open('?gpu=h100-sxm&model=gpt3-2.7b&mode=training&batch=16&seq=2048');
  let n = await forecasts(page);
  await page.selectOption('#feng', 'megatron');
  await waitForecasts(page, ++n);
  // From FP32 (the page's default) Megatron-Core takes BF16, its own default.
  assert.equal(await page.locator('#fprec').inputValue(), 'bf16');
  await page.fill('#dp', '2');
  await page.fill('#pp', '2');
  await page.fill('#microbatches', '4');
  await page.fill('#cp', '2');
  await page.fill('#vpp', '2');
  await page.check('#sp');
  await page.fill('#train-tp', '2');
  await page.fill('#train-tokens', '300B');
  await page.selectOption('#recompute', 'selective');
  await page.selectOption('#fprec', 'fp8');
  await page.waitForFunction(() => /tokens=300B/.test(document.getElementById('share-link').value));
  const link = await page.locator('#share-link').inputValue();
  for (const p of [
    'feng=megatron',
    'fprec=fp8',
    'dp=2',
    'ptp=2',
    'pp=2',
    'mb=4',
    'cp=2',
    'vpp=2',
    'sp=1',
    'tokens=300B',
    'rc=selective',
  ])
    assert.ok(link.includes(`&${p}&`) || link.includes(`&${p}`), `${p} in ${link}`);
  const args = [
    '--gpu',
    'h100-sxm',
    '--model',
    'gpt3-2.7b',
    '--batch',
    '16',
    '--seq',
    '2048',
    '--precision',
    'fp8',
    '--dp',
    '2',
    '--tp',
    '2',
    '--pp',
    '2',
    '--cp',
    '2',
    '--microbatches',
    '4',
    '--virtual-stages',
    '2',
    '--sequence-parallel',
    '--recompute',
    'selective',
    '--tokens',
    '300000000000',
  ];
  const f = cliJson(['forecast', '--mode', 'training', '--engine', 'megatron', '--json', ...args]);
  assert.equal(f.parallel.gpus, 16);
  assert.equal(f.parallel.virtual_stages, 2);
  await assertMegatronMatches(page, f);
  const again = await open(link.slice(pages.base.length));
  await assertMegatronMatches(again, f);
  assert.equal(await again.locator('#share-link').inputValue(), link);
  for (const [id, v] of [
    ['dp', '2'],
    ['train-tp', '2'],
    ['pp', '2'],
    ['microbatches', '4'],
    ['cp', '2'],
    ['vpp', '2'],
    ['train-tokens', '300B'],
    ['fprec', 'fp8'],
    ['feng', 'megatron'],
    ['recompute', 'selective'],
  ])
    assert.equal(await again.locator(`#${id}`).inputValue(), v, id);
  assert.equal(await again.locator('#sp').isChecked(), true);
  assert.equal(
    await again.locator('#train-gpus-note').textContent(),
    await page.locator('#train-gpus-note').textContent(),
  );
  // The link before the engine choice existed: compile=1 is torch.compile, written back as feng.
  await again.goto(pages.base + '?gpu=a100-80gb-sxm&model=gpt2&mode=training&batch=2&seq=128&compile=1');
  await again.waitForSelector('html[data-ready="1"]');
  assert.equal(await again.locator('#feng').inputValue(), 'compiled');
  assert.match(await again.locator('#share-link').inputValue(), /&feng=compiled&/);
  assert.equal(await again.locator('#forecast-body').getAttribute('data-engine'), 'compiled');
  for (const p of [page, again]) await p.close();
});

test("FP8 on an A100 shows the core's error; inference with Megatron-Core says it forecasts training", async () => {
  const page = await open(
    '?gpu=a100-80gb-sxm&model=llama3-8b&mode=training&batch=8&seq=2048&fprec=fp8&feng=megatron&ptp=8&sys=dgx-a100',
  );
  const native = megatron([
    '--gpu',
    'a100-80gb-sxm',
    '--model',
    'llama3-8b',
    '--batch',
    '8',
    '--seq',
    '2048',
    '--precision',
    'fp8',
    '--tp',
    '8',
    '--system',
    'dgx-a100',
  ]);
  assert.equal(native.ok, false);
  assert.match(native.error, /has no fp8 units/);
  await page.waitForFunction(() => document.getElementById('forecast-error').textContent !== '');
  const shown = await page.locator('#forecast-error').textContent();
  assert.ok(shown.includes(native.error), `page: "${shown}"; CLI: "${native.error}"`);
  // Inference: the core refuses the engine; the page says why beside the choice.
  await page.check('input[name="mode"][value="inference"]');
  await page.waitForFunction(() => /forecasts training/.test(document.getElementById('forecast-error').textContent));
  assert.match(await page.locator('#feng-note').textContent(), /Megatron-Core forecasts training steps/);
  await page.close();
});

test('a model by its sizes forecasts (the form and the link), as the CLI forecasts sizes:…', async () => {
  const page = await open(
    '?gpu=h100-sxm&model=gpt3-2.7b&mode=training&batch=8&seq=2048&fprec=bf16&feng=megatron&ptp=8&sp=1',
  );
  await page.locator('#sizes-model summary').click();
  for (const [id, v] of [
    ['sz-hidden', '4096'],
    ['sz-layers', '16'],
    ['sz-heads', '32'],
    ['sz-groups', '8'],
    ['sz-ffn', ''],
    ['sz-vocab', '32000'],
    ['sz-seq', '4096'],
  ])
    await page.fill(`#${id}`, v);
  const n = await forecasts(page);
  await page.click('#sizes-use');
  await waitForecasts(page, n + 1);
  await page.waitForFunction(() => /model=sizes/.test(document.getElementById('share-link').value));
  const link = await page.locator('#share-link').inputValue();
  assert.match(link, /&msz=hidden-4096_layers-16_heads-32_groups-8_vocab-32000_seq-4096_mlp-swiglu_pos-rotary&/);
  assert.equal(await page.locator('#model-select').inputValue(), 'sizes');
  const spec = 'sizes:hidden=4096,layers=16,heads=32,query_groups=8,vocab=32000,seq=4096,mlp=swiglu,positions=rotary';
  const f = cliJson([
    'forecast',
    '--mode',
    'training',
    '--engine',
    'megatron',
    '--json',
    '--gpu',
    'h100-sxm',
    '--model',
    spec,
    '--batch',
    '8',
    '--seq',
    '2048',
    '--precision',
    'bf16',
    '--tp',
    '8',
    '--sequence-parallel',
  ]);
  await assertMegatronMatches(page, f);
  assert.match(await page.locator('#model-info').textContent(), /By its sizes: 16 layers · hidden 4096/);
  // The link opens the same model; the eager engine forecasts it too.
  const again = await open(link.slice(pages.base.length).replace('feng=megatron', 'feng=eager'));
  const eager = cliJson([
    'forecast',
    '--gpu',
    'h100-sxm',
    '--model',
    spec,
    '--batch',
    '8',
    '--seq',
    '2048',
    '--mode',
    'training',
    '--precision',
    'bf16',
    '--tp',
    '8',
    '--predictor',
    'tilecast',
    '--json',
  ]);
  assert.equal(await again.locator('#forecast-error').textContent(), '');
  assert.equal(await value(again, 'latency'), eager.latency_ms);
  assert.equal(await again.locator('#sz-hidden').inputValue(), '4096');
  // A size the core refuses: its message beside the form.
  await again.fill('#sz-heads', '30');
  await again.click('#sizes-use');
  await again.waitForFunction(() => /does not divide hidden/.test(document.getElementById('sizes-error').textContent));
  for (const p of [page, again]) await p.close();
});

test('a tampered link value gets a specific notice and keeps the default', async () => {
  const page = await open(
    '?gpu=h100-sxm&model=sizes&msz=hidden-4096_layers-x&mode=training&batch=8&seq=2048&feng=deepspeed&cp=0&vpp=abc&sp=2&tokens=lots&fprec=fp4&attn=ring',
  );
  const notice = await page.locator('#notice').textContent();
  assert.match(notice, /model sizes in the link are damaged: its layers "x" is not a whole number/);
  assert.match(notice, /engine "deepspeed" is not one of eager, compiled, megatron/);
  assert.match(notice, /context-parallel size 0 is outside 1–4096/);
  assert.match(notice, /virtual pipeline stages "abc" is not a whole number/);
  assert.match(notice, /sequence-parallelism switch "2" is neither 1 nor 0/);
  assert.match(notice, /tokens to train on: "lots" is not a token count/);
  assert.match(notice, /forecast precision "fp4" is not one of bf16, fp16, fp32, fp8/);
  assert.match(notice, /attention "ring" is not one of flash, fused-softmax/);
  assert.equal(await page.locator('#feng').inputValue(), 'eager');
  assert.equal(await page.locator('#model-select').inputValue(), 'gpt3-2.7b');
  assert.equal(await page.locator('#forecast-error').textContent(), '');
  // Out of the core's range: more tokens than it takes.
  await page.goto(pages.base + '?gpu=h100-sxm&model=gpt2&tokens=2e18');
  await page.waitForSelector('html[data-ready="1"]');
  const second = await page.locator('#notice').textContent();
  assert.match(second, /"2e18" is not a token count from 1 to 10\^18/);
  await page.close();
});

test('compare and sweep with Megatron-Core: the same layout on each GPU, the global batch stepped, never NaN', async () => {
  const q =
    '?gpu=h100-sxm&model=llama3-8b&mode=training&batch=16&seq=2048&fprec=bf16&feng=megatron&dp=2&ptp=4&mb=2&sp=1';
  const page = await open(`${q}&view=compare&cmp=a100-80gb-sxm,h200`);
  await page.waitForSelector('#compare-table tbody tr');
  await page.waitForFunction(() => document.querySelectorAll('#compare-table tbody tr').length === 3);
  assert.match(
    await page.locator('#compare-engine-note').textContent(),
    /Megatron-Core: each GPU forecast as the same 8-GPU/,
  );
  assert.equal(await page.locator('#train-inputs').isHidden(), false);
  const text = await page.locator('#compare-table').textContent();
  assert.doesNotMatch(text, /NaN|undefined/);
  assert.match(await page.locator('#compare-table thead').textContent(), /MFU/);
  const row = page.locator('#compare-table tbody tr[data-gpu="a100-80gb-sxm"]');
  const a100 = cliJson([
    'forecast',
    '--mode',
    'training',
    '--engine',
    'megatron',
    '--json',
    '--gpu',
    'a100-80gb-sxm',
    '--model',
    'llama3-8b',
    '--batch',
    '16',
    '--seq',
    '2048',
    '--precision',
    'bf16',
    '--dp',
    '2',
    '--tp',
    '4',
    '--microbatches',
    '2',
    '--sequence-parallel',
  ]);
  const cells = await row.locator('td').allTextContents();
  assert.equal(cells[2], `${Number((100 * a100.mfu).toPrecision(4))}%`);
  // The sweep: global batches 4, 8, … (dp 2 × 2 micro-batches), each the CLI's.
  await page.click('#tab-sweep');
  await page.fill('#sweep-max', '4');
  await page.waitForFunction(() => document.getElementById('sweep-status').dataset.points === '4');
  assert.match(
    await page.locator('#sweep-engine-note').textContent(),
    /steps of data-parallel 2 × 2 micro-batches = 4/,
  );
  assert.doesNotMatch(await page.locator('#sweep-error').textContent(), /./);
  for (const p of [page]) await p.close();
});

// The plan search with this engine: the layouts of the GPUs box's count, the CLI's ranking; a layout used.
test("Megatron-Core's plan search: the CLI's ranking of the layout's 8 GPUs, and a layout used is the forecast", async () => {
  const page = await open(LLAMA_LINK);
  assert.match(await page.locator('#plan-max-note').textContent(), /splits 8 GPUs/);
  await page.click('#plan-find');
  await page.waitForSelector('#plan-status[data-done]', { timeout: 60000 });
  const plan = cliJson([
    'plan',
    '--engine',
    'megatron',
    '--model',
    'llama3-8b',
    '--system',
    'dgx-h100',
    '--gpu',
    'h100-sxm',
    '--global-batch',
    '64',
    '--seq',
    '4096',
    '--precision',
    'bf16',
    '--gpus',
    '8',
    '--top',
    '10',
    '--json',
  ]);
  assert.ok(plan.by_step.length > 1, JSON.stringify(plan).slice(0, 400));
  assert.equal(await page.locator('#plan-none').textContent(), '');
  assert.equal(Number(await page.locator('#plan-status').getAttribute('data-considered')), plan.considered);
  assert.match(
    await page.locator('#plan-status').textContent(),
    new RegExp(`${plan.fitting.toLocaleString('en-US')} fit`),
  );
  const rows = page.locator('#plan-table tbody tr');
  assert.equal(await rows.count(), plan.by_step.length);
  const steps = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.step)));
  assert.deepEqual(
    steps,
    plan.by_step.map((e) => e.step_ms),
  );
  // The best entry, as the CLI ranks it: its layout in the row.
  const best = plan.by_step[0];
  const cells = [
    await rows.first().locator('th').textContent(),
    ...(await rows.first().locator('td').allTextContents()),
  ];
  assert.deepEqual(cells.slice(0, 4), [
    `${best.dp} × ${best.tp} × ${best.pp} × ${best.cp}`,
    String(best.virtual_stages),
    `${best.microbatches} × ${best.microbatch_size}`,
    best.sequence_parallel ? `${best.recompute}, SP` : best.recompute,
  ]);
  assert.equal(Number(await rows.first().getAttribute('data-mfu')), best.mfu);
  // Using the second (not the link's own layout): the GPUs box and the forecast are that layout's, the CLI's step.
  const used = plan.by_step[1];
  await rows.nth(1).locator('button').click();
  await page.waitForFunction((ms) => Number(document.getElementById('latency').dataset.value) === ms, used.step_ms, {
    timeout: 20000,
  });
  for (const [id, v] of [
    ['dp', used.dp],
    ['train-tp', used.tp],
    ['pp', used.pp],
    ['cp', used.cp],
    ['vpp', used.virtual_stages],
    ['microbatches', used.microbatches],
  ])
    assert.equal(await page.locator(`#${id}`).inputValue(), String(v), id);
  assert.equal(await page.locator('#sp').isChecked(), used.sequence_parallel);
  assert.equal(await page.locator('#recompute').inputValue(), used.recompute);
  const args = LLAMA_ARGS.filter((a) => a !== '--sequence-parallel');
  const at = (flag) => args.indexOf(flag) + 1;
  args[at('--dp')] = String(used.dp);
  args[at('--tp')] = String(used.tp);
  args[at('--microbatches')] = String(used.microbatches);
  const f = megatron([
    ...args,
    '--pp',
    String(used.pp),
    '--cp',
    String(used.cp),
    '--virtual-stages',
    String(used.virtual_stages),
    '--recompute',
    used.recompute,
    ...(used.sequence_parallel ? ['--sequence-parallel'] : []),
  ]);
  assert.ok(f.ok, f.error);
  const fc = JSON.parse(f.text);
  assert.equal(await value(page, 'latency'), fc.step_ms);
  assert.equal(await value(page, 'mfu'), fc.mfu);
  // The layout is the same 8 GPUs: the plans stay current.
  assert.equal(await page.locator('#plan-stale').textContent(), '');
  await page.close();
});

// Issue 28's remaining controls: expert parallelism (a mixture of experts), the distributed
// optimizer and the gradient-reduction overlap; each changes the CLI's answer, so each must reach the request.
const MOE_LINK =
  '?gpu=h100-sxm&model=qwen1.5-moe-a2.7b&mode=training&batch=32&seq=2048&fprec=bf16&feng=megatron&dp=4&ptp=2&mb=2&sys=dgx-h100&sp=1';
const MOE_ARGS = [
  '--gpu',
  'h100-sxm',
  '--model',
  'qwen1.5-moe-a2.7b',
  '--batch',
  '32',
  '--seq',
  '2048',
  '--precision',
  'bf16',
  '--dp',
  '4',
  '--tp',
  '2',
  '--microbatches',
  '2',
  '--sequence-parallel',
  '--system',
  'dgx-h100',
];
const moe = (extra) =>
  cliJson(['forecast', '--mode', 'training', '--engine', 'megatron', '--json', ...MOE_ARGS, ...extra]);

test('expert parallelism, the distributed optimizer and the overlap switch: chosen, linked, the CLI numbers', async () => {
  const page = await open(MOE_LINK);
  const plain = moe([]);
  await assertMegatronMatches(page, plain);
  assert.equal(await page.locator('#ep').inputValue(), '1');
  assert.equal(await page.locator('#dopt').isChecked(), true);
  assert.equal(await page.locator('#overlap').isChecked(), true);
  // Each control in turn, each compared with the CLI's flag (and each changes the CLI's answer).
  const steps = [
    [async () => page.fill('#ep', '4'), ['--ep', '4'], 'ep=4'],
    [async () => page.uncheck('#dopt'), ['--no-distributed-optimizer'], 'dopt=0'],
    [async () => page.uncheck('#overlap'), ['--no-overlap-grad-reduce'], 'overlap=0'],
  ];
  let flags = [];
  let before = plain;
  for (const [act, flag, param] of steps) {
    const n = await forecasts(page);
    await act();
    await waitForecasts(page, n + 1);
    flags = [...flags, ...flag];
    const f = moe(flags);
    assert.notDeepEqual([f.step_ms, f.memory.total_gb], [before.step_ms, before.memory.total_gb], flag.join(' '));
    await page.waitForFunction((ms) => Number(document.getElementById('latency').dataset.value) === ms, f.step_ms);
    await assertMegatronMatches(page, f);
    await page.waitForFunction((q) => document.getElementById('share-link').value.includes(`&${q}`), param);
    before = f;
  }
  assert.equal(before.parallel.ep, 4);
  assert.equal(before.parallel.distributed_optimizer, false);
  assert.equal(before.parallel.overlap_grad_reduce, false);
  assert.match(
    await page.locator('#assumptions').textContent(),
    /experts over 4 data-parallel ranks \(all-to-all\), optimizer states on every data-parallel rank, gradient reduction after the backward pass/,
  );
  assert.match(await page.locator('#train-gpus-note').textContent(), /the experts over 4 of the data-parallel ranks/);
  // The link reopens all three, the same numbers and controls.
  const link = await page.locator('#share-link').inputValue();
  const again = await open(link.slice(pages.base.length));
  await assertMegatronMatches(again, before);
  assert.equal(await again.locator('#ep').inputValue(), '4');
  assert.equal(await again.locator('#dopt').isChecked(), false);
  assert.equal(await again.locator('#overlap').isChecked(), false);
  assert.equal(await again.locator('#share-link').inputValue(), link);
  assert.equal(await again.locator('#notice').isHidden(), true);
  // The plan search of a mixture of experts: its layouts name their expert parallelism; one used
  // sets it, and the search's distributed, overlapped optimizer (the step is then the plan's).
  await again.click('#plan-find');
  await again.waitForSelector('#plan-status[data-done]', { timeout: 60000 });
  const plan = cliJson([
    'plan',
    '--engine',
    'megatron',
    '--model',
    'qwen1.5-moe-a2.7b',
    '--system',
    'dgx-h100',
    '--gpu',
    'h100-sxm',
    '--global-batch',
    '32',
    '--seq',
    '2048',
    '--precision',
    'bf16',
    '--gpus',
    '8',
    '--top',
    '10',
    '--json',
  ]);
  const best = plan.by_step[0];
  assert.ok(best.ep > 1, JSON.stringify(best));
  const row = again.locator('#plan-table tbody tr').first();
  assert.equal(
    await row.locator('th').textContent(),
    `${best.dp} × ${best.tp} × ${best.pp} × ${best.cp}, ep ${best.ep}`,
  );
  await row.locator('button').click();
  await again.waitForFunction((ms) => Number(document.getElementById('latency').dataset.value) === ms, best.step_ms, {
    timeout: 20000,
  });
  assert.equal(await again.locator('#ep').inputValue(), String(best.ep));
  assert.equal(await again.locator('#dopt').isChecked(), true);
  assert.equal(await again.locator('#overlap').isChecked(), true);
  // Expert parallelism on a dense model: the core's message, as the CLI says it.
  const dense = megatron([...LLAMA_ARGS, '--ep', '2']);
  assert.equal(dense.ok, false);
  await again.goto(pages.base + LLAMA_LINK + '&ep=2');
  await again.waitForSelector('html[data-ready="1"]');
  await again.waitForFunction(() => document.getElementById('forecast-error').textContent !== '');
  assert.ok((await again.locator('#forecast-error').textContent()).includes(dense.error));
  // Tampered values: a notice each, the defaults kept.
  await again.goto(pages.base + MOE_LINK + '&ep=0&dopt=2&overlap=yes');
  await again.waitForSelector('html[data-ready="1"]');
  const notice = await again.locator('#notice').textContent();
  assert.match(notice, /expert-parallel size 0 is outside 1–4096/);
  assert.match(notice, /distributed-optimizer switch "2" is neither 1 nor 0/);
  assert.match(notice, /gradient-reduction overlap switch "yes" is neither 1 nor 0/);
  assert.equal(await again.locator('#ep').inputValue(), '1');
  assert.equal(await again.locator('#dopt').isChecked(), true);
  await assertMegatronMatches(again, plain);
  for (const p of [page, again]) await p.close();
});

test('no script error happened', () => {
  assert.deepEqual(pages.pageErrors, []);
});
