// Serving under load and capacity plans (docs/serving-load.md) in WebAssembly against the native
// CLI: the same requests give the same JSON text (the seeded arrivals and every step's time bit
// for bit), and the same errors. Run: node --test web/tests/serving_load.test.mjs
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { cli, tempFile } from './helpers.mjs';

let tc;
let TilecastError;

before(async () => {
  const { loadWasm } = await import('./helpers.mjs');
  ({ tc, TilecastError } = await loadWasm());
});

function wasmOutcome(call) {
  try {
    return { ok: true, text: call() };
  } catch (e) {
    assert.ok(e instanceof TilecastError, `WASM threw a ${e?.constructor?.name}`);
    return { ok: false, error: e.message };
  }
}

function same(native, wasm, label) {
  if (native.ok) {
    assert.equal(wasm.ok, true, `${label}: WASM failed: ${wasm.error}`);
    assert.equal(wasm.text, native.text, `${label}: JSON text differs`);
  } else {
    assert.deepEqual(wasm, { ok: false, error: native.error }, `${label}: outcomes differ`);
  }
}

const TRACE = 'arrival_ms,prompt,output\n0,700,40\n15.5,120,200\n16,3000,10\n90,64,64\n';

const CASES = [
  { args: ['--qps', '12', '--requests', '2000', '--seed', '7'], req: { qps: 12, requests: 2000, seed: 7 } },
  {
    args: ['--concurrency', '32', '--requests', '500', '--slo-ttft-ms', '300', '--slo-tpot-ms', '12'],
    req: { concurrency: 32, requests: 500, slo_ttft_ms: 300, slo_tpot_ms: 12 },
  },
  {
    args: ['--qps', '30', '--requests', '400', '--scheduler', 'static', '--tp', '2', '--max-batch-tokens', '2048'],
    req: { qps: 30, requests: 400, scheduler: 'static', tp: 2, max_batch_tokens: 2048 },
  },
  { args: ['--qps', '0', '--requests', '10'], req: { qps: 0, requests: 10 } }, // an error
];

test('serving simulations are identical natively and in WASM, errors included', () => {
  for (const c of CASES) {
    const base = { gpu: 'h100-sxm', model: 'llama3-8b', prompt: 512, output: 128 };
    const native = cli([
      'serve',
      '--gpu',
      base.gpu,
      '--model',
      base.model,
      '--prompt',
      '512',
      '--output',
      '128',
      ...c.args,
      '--json',
    ]);
    const wasm = wasmOutcome(() =>
      tc.text.forecastServing({ ...base, tp: 1, precision: 'bf16', engine: 'fused', predictor: 'tilecast', ...c.req }),
    );
    same(native, wasm, c.args.join(' '));
  }
  const j = tc.forecastServing({
    gpu: 'h100-sxm',
    model: 'llama3-8b',
    prompt: 512,
    output: 128,
    qps: 12,
    requests: 2000,
    seed: 7,
  });
  for (const k of ['ttft_ms', 'tpot_ms', 'e2e_ms'])
    for (const p of ['p50', 'p90', 'p99']) assert.ok(j[k][p] > 0, `${k}.${p}`);
  assert.ok(j.output_tokens_per_s > 0 && j.requests_per_s > 0);
});

test('a trace gives the same simulation and the same line-numbered errors in WASM', () => {
  const file = tempFile('trace.csv', TRACE);
  const native = cli(['serve', '--gpu', 'a100-80gb-sxm', '--model', 'llama2-7b', '--trace', file, '--json']);
  const wasm = wasmOutcome(() =>
    tc.text.forecastServing({
      gpu: 'a100-80gb-sxm',
      model: 'llama2-7b',
      tp: 1,
      precision: 'bf16',
      engine: 'fused',
      predictor: 'tilecast',
      trace: TRACE,
      trace_name: file,
    }),
  );
  same(native, wasm, 'trace');
  const bad = TRACE.replace('3000', '3e');
  const badFile = tempFile('bad.csv', bad);
  const nativeBad = cli(['serve', '--gpu', 'a100-80gb-sxm', '--model', 'llama2-7b', '--trace', badFile, '--json']);
  assert.equal(nativeBad.ok, false);
  assert.match(nativeBad.error, /bad\.csv line 4: field 'prompt' is '3e'/);
  same(
    nativeBad,
    wasmOutcome(() =>
      tc.text.forecastServing({
        gpu: 'a100-80gb-sxm',
        model: 'llama2-7b',
        tp: 1,
        precision: 'bf16',
        engine: 'fused',
        predictor: 'tilecast',
        trace: bad,
        trace_name: badFile,
      }),
    ),
    'bad trace',
  );
});

test('capacity plans are identical natively and in WASM', () => {
  const native = cli([
    'capacity',
    '--model',
    'llama3-8b',
    '--gpu',
    'h100-sxm,a100-80gb-sxm',
    '--qps',
    '20',
    '--slo-ttft-ms',
    '500',
    '--slo-tpot-ms',
    '30',
    '--prompt',
    '512',
    '--output',
    '128',
    '--requests',
    '300',
    '--max-gpus',
    '8',
    '--price-per-gpu-hour',
    '4,2',
    '--json',
  ]);
  const wasm = wasmOutcome(() =>
    tc.text.planCapacity({
      gpu: ['h100-sxm', 'a100-80gb-sxm'],
      model: 'llama3-8b',
      qps: 20,
      slo_ttft_ms: 500,
      slo_tpot_ms: 30,
      prompt: 512,
      output: 128,
      requests: 300,
      max_gpus: 8,
      price_per_gpu_hour: [4, 2],
    }),
  );
  same(native, wasm, 'capacity');
  assert.ok(JSON.parse(wasm.text).best.gpus >= 1);
});
