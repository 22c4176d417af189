// Browser tests of LoRA / QLoRA fine-tuning on the page (issue 32 item 9): the Forecast view's
// training step with the fine-tuning choice equals `tilecast forecast ... --finetune ... --json`,
// the response's fine-tuning figures and assumptions (MFU counts full training's FLOPs) are on
// screen, the link carries the choice and reopens it, a damaged link value gets a notice.
// Run: node --test web/tests/finetune.test.mjs (after scripts/build_web.sh and the native CLI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliJson, cliForecastArgs } from './helpers.mjs';
import { pagesForFile, value } from './support/browser.mjs';

const pages = pagesForFile();
const open = (query) => pages.open(query);

const LLAMA = { gpu: 'h100-sxm', model: 'llama3-8b', batch: 1, seq: 1024, mode: 'training' };
const LLAMA_QUERY = '?gpu=h100-sxm&model=llama3-8b&mode=training&batch=1&seq=1024&fprec=bf16';

// The CLI's answer: `tilecast forecast ... --precision bf16 [--finetune M --lora-rank R --lora-targets T] --json`.
function native(req, finetune = null) {
  const extra = ['--precision', 'bf16'];
  if (finetune) {
    extra.push('--finetune', finetune.method);
    if (finetune.rank !== undefined) extra.push('--lora-rank', String(finetune.rank));
    if (finetune.targets !== undefined) extra.push('--lora-targets', finetune.targets);
  }
  return cliJson([...cliForecastArgs({ predictor: 'tilecast', ...req }), ...extra]);
}

const showsLatency = (page, ms) =>
  page.waitForFunction((x) => Number(document.getElementById('latency').dataset.value) === x, ms);

// The fine-tuning table's exact numbers (data-value) by row.
function finetuneRows(page) {
  return page.$$eval('#finetune-table tbody tr', (trs) =>
    Object.fromEntries(trs.map((tr) => [tr.dataset.key, tr.querySelector('td').dataset.value])),
  );
}

test("a LoRA link: the CLI's number, its fine-tuning figures, memory and assumptions (MFU's FLOPs)", async () => {
  const ft = { method: 'lora', rank: 8, targets: 'all_linear' };
  const f = native(LLAMA, ft);
  const full = native(LLAMA);
  assert.notEqual(f.latency_ms, full.latency_ms);
  assert.ok(f.memory.optimizer_gb < full.memory.optimizer_gb / 10, 'only the adapters have Adam states');
  const page = await open(`${LLAMA_QUERY}&ft=lora&lrank=8&ltgt=all_linear`);
  await showsLatency(page, f.latency_ms);
  assert.equal(await value(page, 'roofline'), f.roofline_latency_ms);
  assert.equal(await value(page, 'tokens'), f.tokens_per_s);
  // The choice in its controls, labelled.
  assert.equal(await page.getByLabel('Fine-tuning', { exact: true }).inputValue(), 'lora');
  assert.equal(await page.getByLabel('LoRA rank', { exact: true }).inputValue(), '8');
  assert.equal(await page.getByLabel('Adapters on', { exact: true }).inputValue(), 'all_linear');
  assert.equal(await page.locator('#lora-fields').isVisible(), true);
  assert.match(await page.locator('#finetune-note').textContent(), /base weights frozen/);
  // The title and the assumptions say what is forecast.
  assert.match(await page.locator('#forecast-title').textContent(), /LoRA fine-tuning step, batch 1, sequence 1024/);
  assert.match(await page.locator('#assumptions').textContent(), /LoRA rank 8 on every linear of the blocks/);
  // The response's fine-tuning fields and the memory its adapters take.
  assert.equal(await page.locator('#finetune-panel').isVisible(), true);
  const rows = await finetuneRows(page);
  assert.deepEqual(rows, {
    method: 'lora',
    rank: '8',
    targets: 'all_linear',
    adapted_linears: String(f.finetune.adapted_linears),
    trainable_params: String(f.finetune.trainable_params),
    frozen_params: String(f.finetune.frozen_params),
    weights_gb: String(f.memory.weights_gb),
    gradients_gb: String(f.memory.gradients_gb),
    optimizer_gb: String(f.memory.optimizer_gb),
  });
  assert.match(
    await page.locator('#finetune-table tr[data-key="trainable_params"] td').textContent(),
    /^[\d.]+ M \([\d.]+% of all\)$/,
  );
  assert.equal(Number(await page.locator('#train-memory-bar').getAttribute('data-total')), f.memory.total_gb);
  // Every assumption the core states, the MFU one among them.
  const assumptions = await page.locator('#finetune-assumptions li').allTextContents();
  assert.deepEqual(assumptions, f.finetune.assumptions);
  assert.ok(
    assumptions.some((a) => /mfu keep full training's model FLOPs/.test(a)),
    'the page says MFU counts full training',
  );
  await page.close();
});

test('chosen on the page: LoRA, QLoRA and a typed rank equal the CLI; the link round-trips; full has no field', async () => {
  const page = await open(LLAMA_QUERY);
  const full = native(LLAMA);
  await showsLatency(page, full.latency_ms);
  assert.equal(await page.locator('#finetune-panel').isHidden(), true);
  assert.equal(await page.locator('#lora-fields').isHidden(), true);
  assert.doesNotMatch(await page.locator('#share-link').inputValue(), /[?&](ft|lrank|ltgt)=/);

  await page.getByLabel('Fine-tuning', { exact: true }).selectOption('lora');
  await showsLatency(page, native(LLAMA, { method: 'lora' }).latency_ms);
  await page.getByLabel('Fine-tuning', { exact: true }).selectOption('qlora');
  const q = native(LLAMA, { method: 'qlora' });
  await showsLatency(page, q.latency_ms);
  assert.match(await page.locator('#finetune-heading').textContent(), /^QLoRA fine-tuning$/);
  await page.getByLabel('LoRA rank', { exact: true }).fill('32');
  await page.getByLabel('Adapters on', { exact: true }).selectOption('all_linear');
  const q32 = native(LLAMA, { method: 'qlora', rank: 32, targets: 'all_linear' });
  await showsLatency(page, q32.latency_ms);
  assert.equal((await finetuneRows(page)).trainable_params, String(q32.finetune.trainable_params));

  // The link carries the choice and reopens it exactly.
  await page.waitForFunction(() =>
    /[?&]ft=qlora&lrank=32&ltgt=all_linear&/.test(document.getElementById('share-link').value),
  );
  const link = await page.locator('#share-link').inputValue();
  const again = await open(link.slice(pages.base.length));
  await showsLatency(again, q32.latency_ms);
  assert.equal(await again.getByLabel('Fine-tuning', { exact: true }).inputValue(), 'qlora');
  assert.equal(await again.getByLabel('LoRA rank', { exact: true }).inputValue(), '32');
  assert.equal(await again.getByLabel('Adapters on', { exact: true }).inputValue(), 'all_linear');
  assert.equal(await again.locator('#notice').isHidden(), true);

  // A rank that cannot be read leaves the forecast on screen, dimmed, saying why.
  await page.getByLabel('LoRA rank', { exact: true }).fill('2000');
  await page.waitForFunction(() =>
    /LoRA rank must be a whole number from 1 to 1,024/.test(document.getElementById('finetune-error').textContent),
  );
  assert.match(await page.locator('#stale-note').textContent(), /^Not updated: LoRA rank/);
  assert.equal(await page.locator('#lora-rank').getAttribute('aria-invalid'), 'true');
  assert.equal(await value(page, 'latency'), q32.latency_ms);
  await page.getByLabel('LoRA rank', { exact: true }).fill('32');
  await page.waitForFunction(() => document.getElementById('stale-note').textContent === '');

  // Back to full training: the fine-tuning's figures go, and its field leaves the link.
  await page.getByLabel('Fine-tuning', { exact: true }).selectOption('full');
  await showsLatency(page, full.latency_ms);
  assert.equal(await page.locator('#finetune-panel').isHidden(), true);
  await page.waitForFunction(() => !/[?&]ft=/.test(document.getElementById('share-link').value));
  for (const p of [page, again]) await p.close();
});

test('a damaged fine-tuning link value gets its own notice and opens full training', async () => {
  const full = native(LLAMA);
  const cases = [
    ['ft=dora', /fine-tuning "dora" is not one of full, lora, qlora/],
    ['ft=lora&lrank=0', /LoRA rank 0 is outside 1–1024/],
    ['ft=lora&lrank=sixteen', /LoRA rank "sixteen" is not a whole number/],
    ['ft=lora&ltgt=mlp', /LoRA targets "mlp" are not one of attention, all_linear/],
  ];
  for (const [q, notice] of cases) {
    const page = await open(`${LLAMA_QUERY}&${q}`);
    assert.match(await page.locator('#notice').textContent(), notice, q);
    if (q === 'ft=dora') await showsLatency(page, full.latency_ms);
    else await showsLatency(page, native(LLAMA, { method: 'lora' }).latency_ms); // the rest kept its default
    await page.close();
  }
});

test('fine-tuning where it applies: training only, not Megatron-Core; one GPU; QLoRA offered when LoRA does not fit', async () => {
  const page = await open(`${LLAMA_QUERY}&ft=lora`);
  await showsLatency(page, native(LLAMA, { method: 'lora' }).latency_ms);
  // An inference pass has no fine-tuning: the choice is hidden and not sent.
  await page.check('input[name="mode"][value="inference"]');
  await showsLatency(page, native({ ...LLAMA, mode: 'inference' }).latency_ms);
  assert.equal(await page.locator('#finetune-fields').isHidden(), true);
  assert.equal(await page.locator('#finetune-panel').isHidden(), true);
  await page.check('input[name="mode"][value="training"]');
  assert.equal(await page.locator('#finetune-fields').isVisible(), true);
  // Megatron-Core has none either.
  await page.selectOption('#feng', 'megatron');
  await page.waitForFunction(() => document.getElementById('forecast-body').dataset.engine === 'megatron');
  assert.equal(await page.locator('#finetune-fields').isHidden(), true);
  assert.equal(await page.locator('#finetune-panel').isHidden(), true);
  await page.selectOption('#feng', 'eager');
  // More than one GPU: the note says it is a one-GPU forecast, and the core's refusal says why.
  await page.fill('#dp', '2');
  await page.waitForFunction(() => /forecast on one GPU/.test(document.getElementById('forecast-error').textContent));
  assert.match(await page.locator('#finetune-note').textContent(), /Forecast on one GPU: set the GPUs box to 1 GPU/);
  await page.close();

  // Llama 3 70B with LoRA needs 175 GB of the H100's 80; QLoRA's NF4 base fits.
  const big = { ...LLAMA, model: 'llama3-70b', seq: 512 };
  const lora = native(big, { method: 'lora' });
  const qlora = native(big, { method: 'qlora' });
  assert.equal(lora.memory.fits, false);
  assert.equal(qlora.memory.fits, true);
  const p70 = await open('?gpu=h100-sxm&model=llama3-70b&mode=training&batch=1&seq=512&fprec=bf16&ft=lora');
  await showsLatency(p70, lora.latency_ms);
  assert.equal(await p70.locator('#fc-cards').getAttribute('data-fits'), 'false');
  const option = p70.locator('#fc-fit-options li[data-option="qlora"]');
  await option.waitFor();
  assert.match(
    await option.textContent(),
    new RegExp(`${qlora.memory.total_gb.toPrecision(4).replace('.', '\\.')} GB`),
  );
  // The plan search is full training's: it says so instead of searching.
  assert.match(await p70.locator('#fc-fit-options li[data-option="plans"]').textContent(), /forecast on one GPU/);
  await option.locator('button').click();
  await showsLatency(p70, qlora.latency_ms);
  assert.equal(await p70.getByLabel('Fine-tuning', { exact: true }).inputValue(), 'qlora');
  assert.equal(await p70.locator('#fc-cards').getAttribute('data-fits'), 'true');
  await p70.close();
});

test("half master weights: the CLI's --master-weights half number, the choice shown only where it applies", async () => {
  const f = cliJson([
    ...cliForecastArgs({ predictor: 'tilecast', ...LLAMA }),
    '--precision',
    'bf16',
    '--master-weights',
    'half',
  ]);
  const autocast = native(LLAMA);
  assert.equal(f.workload.master_weights, 'half');
  assert.ok(f.latency_ms < autocast.latency_ms, 'no casts, no FP32 kernels');
  const page = await open(`${LLAMA_QUERY}&mw=half`);
  await showsLatency(page, f.latency_ms);
  assert.equal(await page.getByLabel('Master weights', { exact: true }).inputValue(), 'half');
  // back to FP32 master weights: autocast's number, and the link drops the word
  await page.getByLabel('Master weights', { exact: true }).selectOption('fp32');
  await showsLatency(page, autocast.latency_ms);
  await page.waitForFunction(() => !/[?&]mw=/.test(document.getElementById('share-link').value));
  // not offered for LoRA (the core forecasts half master weights for full training only)
  await page.getByLabel('Fine-tuning', { exact: true }).selectOption('lora');
  assert.equal(await page.locator('#master-weights-fields').isHidden(), true);
  await page.close();
});

test('no script error happened', () => {
  assert.deepEqual(pages.pageErrors, []);
});
