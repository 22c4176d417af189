// The WebAssembly build against the native CLI: the same requests must give the
// same JSON (identical numbers), and bad input must throw JavaScript errors that
// leave the instance working. Run: node --test web/tests/wasm.test.mjs
// (TILECAST_CLI and TILECAST_WASM_DIR override build/cli/tilecast and build-wasm/wasm).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, WASM_DIR, cli, cliJson, cliForecastArgs, loadWasm, onDemandModels, tempFile } from './helpers.mjs';

let tc;
let TilecastError;
let catalog;

before(async () => {
  ({ tc, TilecastError } = await loadWasm());
  catalog = tc.listGpus();
});

const spec = (id) => catalog.find((g) => g.id === id);

// Native and WASM must agree: both succeed with the same JSON text, or both fail
// with the same message (e.g. while a predictor is not built into the core).
function sameOutcome(native, wasmCall, label) {
  let wasm;
  try {
    wasm = { ok: true, text: wasmCall() };
  } catch (e) {
    assert.ok(e instanceof TilecastError, `${label}: WASM threw a ${e?.constructor?.name}, not a TilecastError`);
    wasm = { ok: false, error: e.message };
  }
  if (native.ok && wasm.ok) {
    assert.deepEqual(JSON.parse(wasm.text), JSON.parse(native.text), `${label}: numbers differ`);
    assert.equal(wasm.text, native.text, `${label}: JSON text differs`);
  } else {
    assert.deepEqual(wasm, native.ok ? native : { ok: false, error: native.error }, `${label}: outcomes differ`);
  }
  return wasm;
}

test('version and GPU catalog match the CLI', () => {
  assert.equal(tc.version, cli(['--version']).text);
  assert.deepEqual(catalog, cliJson(['gpus', '--json']));
  assert.ok(catalog.length >= 30);
});

test('model zoo matches the CLI', () => {
  // `tilecast models --json` re-indents the list (keys sorted): compare the values.
  assert.deepEqual(tc.listModels(), cliJson(['models', '--json']));
});

const MODEL_CASES = [
  { gpu: 'h100-sxm', model: 'gpt3-2.7b', batch: 1, seq: 2048, mode: 'training' },
  { gpu: 'a100-80gb-sxm', model: 'llama2-7b', batch: 4, seq: 1024, mode: 'inference' },
  { gpu: 'mi300x', model: 'bert-large', batch: 16, seq: 512, mode: 'training' },
  { gpu: 'rtx-4090', model: 'opt-1.3b', batch: 2, seq: 256, mode: 'inference' },
  { gpu: 't4', model: 'gpt2', batch: 8, seq: 128, mode: 'training' },
  { gpu: 'mi250-gcd', model: 'switch-xl-4', batch: 2, seq: 128, mode: 'training' },
  { gpu: 'h200', model: 'mistral-7b', batch: 1, seq: 4096, mode: 'inference' },
];

for (const predictor of ['roofline', 'tilecast']) {
  test(`model forecasts are identical natively and in WASM (${predictor})`, () => {
    for (const c of MODEL_CASES) {
      const req = { ...c, predictor };
      const native = cli(cliForecastArgs(req));
      // The CLI sends the GPU as its catalog spec; so does this request.
      const wasmReq = { gpu: spec(c.gpu), model: c.model, batch: c.batch, seq: c.seq, mode: c.mode, predictor };
      sameOutcome(native, () => tc.text.forecastModel(wasmReq), `${c.model} on ${c.gpu} (${predictor})`);
    }
  });
}

test('custom GPU spec and pasted config give identical forecasts', () => {
  const gpu = { ...spec('l4'), id: undefined, name: 'My test GPU', aliases: [], fp32_gflops: 40000, mem_bw_gbps: 500 };
  delete gpu.id;
  const gpuFile = tempFile('gpu.json', JSON.stringify(gpu));
  const config = JSON.parse(fs.readFileSync(path.join(REPO, 'model_zoo/llama3-8b.json'), 'utf8'));
  config.num_hidden_layers = 6;
  delete config.tilecast_name;
  const configFile = tempFile('config.json', JSON.stringify(config));
  for (const predictor of ['roofline', 'tilecast']) {
    const args = [
      'forecast',
      '--gpu',
      gpuFile,
      '--model',
      configFile,
      '--batch',
      '3',
      '--seq',
      '300',
      '--mode',
      'training',
      '--predictor',
      predictor,
      '--json',
    ];
    const native = cli(args);
    const nativeGpu = JSON.parse(cli(['gpus', '--show', gpuFile]).text);
    sameOutcome(
      native,
      () => tc.text.forecastModel({ gpu: nativeGpu, model: config, batch: 3, seq: 300, mode: 'training', predictor }),
      `custom (${predictor})`,
    );
  }
});

test('kernel forecasts are identical natively and in WASM', () => {
  const cases = [
    ['h100-sxm', 'linear', [1, 2048, 2560, 7680]],
    ['a100-40gb-pcie', 'bmm', [64, 512, 64, 512]],
    ['mi250x', 'softmax', [4096, 2048]],
    ['v100-sxm', 'gelu', [8192, 4096]],
    ['rtx-3090', 'ln', [16384, 1024]],
  ];
  for (const predictor of ['roofline', 'tilecast']) {
    for (const [gpu, op, dims] of cases) {
      const native = cli([
        'kernel',
        '--gpu',
        gpu,
        '--op',
        op,
        '--dims',
        dims.join(','),
        '--predictor',
        predictor,
        '--json',
      ]);
      sameOutcome(
        native,
        () => tc.text.forecastKernel({ gpu: spec(gpu), op, dims, predictor }),
        `${op} on ${gpu} (${predictor})`,
      );
    }
  }
});

test('validate_gpu and validate_model match the CLI', () => {
  for (const id of ['h100-sxm', 'mi300x', 't4']) {
    assert.deepEqual(tc.validateGpu(spec(id)), cliJson(['gpus', '--show', id]));
  }
  const text = fs.readFileSync(path.join(REPO, 'model_zoo/qwen2-7b.json'), 'utf8');
  const native = cli(['models', '--validate', path.join(REPO, 'model_zoo/qwen2-7b.json')]);
  sameOutcome(native, () => tc.text.validateModel(text), 'validate qwen2-7b');
  // a vision-language config (Gemma 3's, its vision_config cut short) is read as its text_config
  const vlm = JSON.stringify({
    architectures: ['Gemma3ForConditionalGeneration'],
    model_type: 'gemma3',
    text_config: {
      head_dim: 128,
      hidden_size: 5376,
      intermediate_size: 21504,
      model_type: 'gemma3_text',
      num_attention_heads: 32,
      num_hidden_layers: 62,
      num_key_value_heads: 16,
      sliding_window: 1024,
    },
    vision_config: { model_type: 'siglip_vision_model', hidden_size: 1152 },
  });
  const file = tempFile('config.json', vlm);
  const vlmNative = cli(['models', '--validate', file]);
  assert.equal(JSON.parse(vlmNative.text).architecture, 'gemma3_text');
  assert.equal(JSON.parse(vlmNative.text).language_model_of, 'gemma3');
  sameOutcome(vlmNative, () => tc.text.validateModel(vlm), 'validate a vision-language config');
});

// ---- bad input -------------------------------------------------------------

const good = { gpu: 'h100-sxm', model: 'gpt2', batch: 1, seq: 128, mode: 'inference', predictor: 'roofline' };

function nest(depth) {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

const BAD = [
  ['not JSON', () => tc.forecastModel('{"gpu": '), /not valid JSON/],
  ['a JSON array', () => tc.forecastModel('[1,2,3]'), /expected a JSON object/],
  ['no request at all', () => tc.forecastModel(undefined), /JSON text or an object/],
  ['huge input', () => tc.forecastModel('{"x":"' + 'a'.repeat(5 << 20) + '"}'), /at most \d+ are accepted/],
  ['deep nesting', () => tc.forecastModel(nest(100000)), /nested deeper|not valid JSON/],
  ['deeply nested config', () => tc.forecastModel({ ...good, model: JSON.parse(nest(60)) }), /model|field/],
  ['unknown GPU', () => tc.forecastModel({ ...good, gpu: 'gtx-9999' }), /unknown GPU/],
  ['unknown model', () => tc.forecastModel({ ...good, model: 'gpt-17' }), /model/],
  ['batch of the wrong type', () => tc.forecastModel({ ...good, batch: 'lots' }), /batch/],
  ['negative batch', () => tc.forecastModel({ ...good, batch: -4 }), /batch/],
  ['absurd batch', () => tc.forecastModel({ ...good, batch: 1e15 }), /batch/],
  ['bad mode', () => tc.forecastModel({ ...good, mode: 'sideways' }), /mode/],
  ['bad predictor', () => tc.forecastModel({ ...good, predictor: 'oracle' }), /predictor/],
  ['model of the wrong type', () => tc.forecastModel({ ...good, model: 42 }), /model/],
  [
    'config with wrong types',
    () => tc.forecastModel({ ...good, model: { model_type: 'llama', hidden_size: 'big', num_hidden_layers: [] } }),
    /hidden_size|num_hidden_layers|field/,
  ],
  ['config that is empty', () => tc.validateModel('{}'), /model config/],
  ['config of an unknown family', () => tc.validateModel({ model_type: 'xyz', hidden_size: 8 }), /model/],
  ['GPU with absurd numbers', () => tc.validateGpu({ ...spec('t4'), num_sm: 1e12 }), /num_sm/],
  [
    'GPU with negative bandwidth',
    () => tc.forecastModel({ ...good, gpu: { ...spec('t4'), mem_bw_gbps: -5 } }),
    /mem_bw_gbps/,
  ],
  ['GPU with strings for numbers', () => tc.validateGpu({ ...spec('t4'), fp32_gflops: 'fast' }), /fp32_gflops/],
  ['GPU spec that is not an object', () => tc.forecastModel({ ...good, gpu: [1, 2] }), /gpu/],
  ['kernel with bad dims', () => tc.forecastKernel({ gpu: 'h100-sxm', op: 'linear', dims: [1, -2, 3, 4] }), /dim/],
  ['kernel with unknown op', () => tc.forecastKernel({ gpu: 'h100-sxm', op: 'fft', dims: [1, 2] }), /op/],
  [
    'a workload no GPU could hold',
    () => tc.forecastModel({ ...good, model: 'gpt3-2.7b', batch: 1000000, seq: 1000000 }),
    /too large/,
  ],
];

test('bad input throws JavaScript errors and the instance keeps working', () => {
  const reference = tc.text.forecastModel(good);
  for (const [label, call, pattern] of BAD) {
    assert.throws(
      call,
      (e) => {
        assert.ok(e instanceof Error, `${label}: not an Error`);
        assert.ok(e instanceof TilecastError || e.name === 'TilecastError', `${label}: ${e.name}, not a TilecastError`);
        assert.match(e.message, pattern, `${label}: unexpected message`);
        return true;
      },
      label,
    );
    // The instance is still alive and gives the same answer as before.
    assert.equal(tc.text.forecastModel(good), reference, `after ${label}`);
  }
});

// The learned models the WASM build leaves out (the site's models/<id>.json): a fresh instance
// says which one a forecast needs, takes its file, and then answers as the CLI (which embeds
// every model) does, byte for byte; before it, forecasts of the embedded model answer.
test('a forecast whose model is loaded on demand is identical to the native one', async () => {
  const files = onDemandModels();
  assert.deepEqual(Object.keys(files), ['amd-fp32', 'nvidia-half'], 'the models the WASM build leaves out');
  const { tc: fresh, TilecastError: FreshError } = await loadWasm({ models: false });
  const landing = { gpu: 'h100-sxm', model: 'gpt3-2.7b', batch: 1, seq: 1024, mode: 'training', predictor: 'tilecast' };
  sameOutcome(
    cli(cliForecastArgs(landing)),
    () => fresh.text.forecastModel(landing),
    'the landing forecast, nothing loaded',
  );
  const amd = { gpu: 'mi300x', model: 'bert-large', batch: 2, seq: 512, mode: 'training', predictor: 'tilecast' };
  const serve = {
    gpu: 'h100-sxm',
    model: 'llama3-8b',
    prompt: 512,
    output: 256,
    batch: 4,
    tp: 1,
    precision: 'bf16',
    engine: 'fused',
  };
  const serveArgs = ['serve', '--gpu', 'h100-sxm', '--model', 'llama3-8b', '--prompt', '512', '--output', '256'];
  const cases = [
    ['amd-fp32', () => fresh.text.forecastModel(amd), cli(cliForecastArgs(amd))],
    [
      'nvidia-half',
      () => fresh.text.forecastServing(serve),
      cli([...serveArgs, '--batch', '4', '--tp', '1', '--precision', 'bf16', '--engine', 'fused', '--json']),
    ],
  ];
  for (const [id, call, native] of cases) {
    assert.throws(call, (e) => e instanceof FreshError && e.missingModel === id && e.message.includes(`'${id}'`), id);
    // A malformed file is the load's error, naming the file; the model stays unloaded.
    const broken = JSON.parse(files[id]);
    broken.files.weights = broken.files.weights.slice(0, 100);
    assert.throws(
      () => fresh.loadModel(broken),
      (e) => e instanceof FreshError && /kernel_weights\.json/.test(e.message),
      id,
    );
    assert.throws(call, (e) => e.missingModel === id, `${id} after a malformed file`);
    assert.deepEqual(fresh.loadModel(files[id]), { id, files: Object.keys(JSON.parse(files[id]).files).sort() });
    sameOutcome(native, call, `${id} loaded on demand`);
  }
  // The AMD analytic GEMM model (embedded) uses amd-fp32's tile table: loaded, every AMD path works.
  const kernel = { gpu: 'mi210', op: 'linear', dims: [1, 2048, 2048, 2048] };
  sameOutcome(
    cli(['kernel', '--gpu', 'mi210', '--op', 'linear', '--dims', '1,2048,2048,2048', '--json']),
    () => fresh.text.forecastKernel(kernel),
    'an AMD GEMM kernel',
  );
  assert.throws(() => fresh.loadModel({ id: 'no-such-model', files: {} }), /no model 'no-such-model'/);
  assert.throws(() => fresh.loadModel({ id: 'amd-fp32', files: { weights: '{}' } }), /files\.tile_table/);
});

test("the deferred part: not loaded by the first forecast's calls, loaded by the first call beyond them or from bytes given ahead; a failed load says so", async () => {
  const mod = await import(path.join(WASM_DIR, 'tilecast.js'));
  const fresh = await mod.createTilecast();
  const landing = { gpu: 'h100-sxm', model: 'gpt3-2.7b', batch: 1, seq: 1024, mode: 'training', predictor: 'tilecast' };
  // what the page's own instance runs up to its first forecast (scripts/split_wasm.mjs measures it)
  fresh.listGpus();
  fresh.listModels();
  fresh.listSystems();
  fresh.validateGpu(spec('a100-80gb-sxm'));
  fresh.validateModel(fs.readFileSync(path.join(REPO, 'model_zoo', 'llama3-8b.json'), 'utf8'));
  fresh.forecastModel(landing);
  fresh.forecastModel({ ...landing, model: 'gpt2-large', batch: 8, seq: 2048 });
  // a shared link's card: any zoo model on one GPU in FP32, any mode, either predictor, eager or compiled
  fresh.forecastModel({ ...landing, gpu: 'a100-80gb-sxm', model: 'llama3-8b', mode: 'inference', batch: 4 });
  fresh.forecastModel({ ...landing, gpu: 'b200', model: 'mixtral-8x7b', mode: 'decode', context: 2048, batch: 8 });
  fresh.forecastModel({ ...landing, model: 'qwen3-8b', engine: 'compiled', predictor: 'roofline' });
  assert.throws(() => fresh.forecastModel({ ...landing, batch: 0 }), /'batch'/);
  assert.throws(() => fresh.validateGpu('{'), /not valid JSON/);
  assert.equal(fresh.deferredLoaded, false, "the first forecast's calls stay in tilecast_wasm.wasm");
  const parallel = { ...landing, batch: 16, gpus: 8, tp: 2 };
  const args = [...cliForecastArgs(parallel), '--gpus', '8', '--tp', '2'];
  sameOutcome(cli(args), () => fresh.text.forecastModel(parallel), 'several GPUs, the deferred part loaded on need');
  assert.equal(fresh.deferredLoaded, true);

  // where the file cannot be read, the bytes given ahead serve (as the page's thread loads it);
  // bytes that do not compile fail the call, are dropped, and others can be given
  const given = await mod.createTilecast({ locateFile: (file) => `file:///nonexistent/${file}` });
  given.provideDeferred(new Uint8Array([0, 97, 115, 109, 9]));
  assert.throws(
    () => given.forecastModel(parallel),
    (e) => e instanceof mod.TilecastError && e.missingModule === 'deferred' && /could not be loaded/.test(e.message),
  );
  given.provideDeferred(fs.readFileSync(path.join(WASM_DIR, 'tilecast_wasm.deferred.wasm')));
  assert.equal(given.deferredLoaded, false);
  assert.equal(given.text.forecastModel(parallel), fresh.text.forecastModel(parallel));
  assert.equal(given.deferredLoaded, true);

  const lost = await mod.createTilecast({ locateFile: (file) => `file:///nonexistent/${file}` });
  assert.equal(lost.text.forecastModel(landing), fresh.text.forecastModel(landing));
  const serve = { gpu: 'h100-sxm', model: 'llama3-8b', prompt: 512, output: 64, batch: 4, precision: 'bf16' };
  const scaleOut = {
    'several GPUs': () => lost.forecastModel(parallel),
    megatron: () => lost.forecastModel({ ...parallel, engine: 'megatron', precision: 'bf16' }),
    serving: () => lost.forecastServing(serve),
    'serving under load': () => lost.forecastServing({ ...serve, batch: undefined, qps: 4, requests: 50 }),
    plan: () => lost.planParallel({ model: 'gpt2-large', system: 'dgx-a100', global_batch: 32, seq: 1024 }),
    collective: () => lost.forecastCollective({ system: 'dgx-a100', collective: 'all_reduce', bytes: 1024 }),
  };
  for (const [what, call] of Object.entries(scaleOut))
    assert.throws(
      call,
      (e) =>
        e instanceof mod.TilecastError &&
        e.missingModule === 'deferred' &&
        /deferred part .* could not be loaded/.test(e.message),
      what,
    );
  assert.equal(lost.deferredLoaded, false);
  assert.equal(lost.text.forecastModel(landing), fresh.text.forecastModel(landing), 'the instance keeps working');
});

test('C++ error messages reach JavaScript unchanged', () => {
  const native = cli(['forecast', '--gpu', 'gtx-9999', '--model', 'gpt2', '--seq', '128', '--json']);
  assert.equal(native.ok, false);
  assert.throws(
    () => tc.forecastModel({ ...good, gpu: 'gtx-9999' }),
    (e) => e.message === native.error,
  );
});

test('hundreds of failing calls in a row leave the instance working', () => {
  const before = tc.text.forecastModel(good);
  for (let i = 0; i < 300; ++i) {
    try {
      tc.forecastModel('{"gpu": [');
    } catch {
      /* expected */
    }
    tc.forecastModel(good);
  }
  assert.equal(tc.text.forecastModel(good), before);
});

test('attention scores beyond 2^31 elements forecast: GPT-3 2.7B at seq 2048 up to batch 64', () => {
  let previous = 0;
  for (const batch of [8, 16, 64]) {
    const f = tc.forecastModel({ ...good, model: 'gpt3-2.7b', batch, seq: 2048, mode: 'training' });
    assert.ok(Number.isFinite(f.latency_ms) && f.latency_ms > previous, `batch ${batch}`);
    previous = f.latency_ms;
  }
});

// The serve view's call: forecastServing must give the CLI's `tilecast serve --json`
// numbers (the CLI indents the same JSON) and the same errors.
const SERVE_CASES = [
  {
    gpu: 'h100-sxm',
    model: 'llama3-8b',
    prompt: 512,
    output: 256,
    batch: 8,
    tp: 1,
    precision: 'bf16',
    engine: 'fused',
  },
  {
    gpu: 'a100-80gb-sxm',
    model: 'llama2-7b',
    prompt: 1024,
    output: 64,
    batch: 2,
    tp: 2,
    precision: 'fp16',
    engine: 'eager',
  },
  { gpu: 'rtx-4090', model: 'mistral-7b', prompt: 128, output: 2, batch: 1, tp: 1, precision: 'fp32', engine: 'fused' },
  {
    gpu: 'v100-sxm',
    model: 'llama2-7b',
    prompt: 512,
    output: 256,
    batch: 1,
    tp: 1,
    precision: 'bf16',
    engine: 'fused',
  },
  { gpu: 'h100-sxm', model: 'bert-base', prompt: 128, output: 16, batch: 1, tp: 1, precision: 'bf16', engine: 'fused' },
];

test('forecastServing matches tilecast serve --json, errors included', () => {
  for (const r of SERVE_CASES) {
    const args = [
      'serve',
      '--gpu',
      r.gpu,
      '--model',
      r.model,
      '--prompt',
      String(r.prompt),
      '--output',
      String(r.output),
      '--batch',
      String(r.batch),
      '--tp',
      String(r.tp),
      '--precision',
      r.precision,
      '--engine',
      r.engine,
      '--json',
    ];
    const native = cli(args);
    let wasm;
    try {
      wasm = { ok: true, json: tc.forecastServing({ ...r, predictor: 'tilecast' }) };
    } catch (e) {
      assert.ok(e instanceof TilecastError, `${r.model} on ${r.gpu}: WASM threw a ${e?.constructor?.name}`);
      wasm = { ok: false, error: e.message };
    }
    if (native.ok) assert.deepEqual(wasm, { ok: true, json: JSON.parse(native.text) }, `${r.model} on ${r.gpu}`);
    else assert.deepEqual(wasm, { ok: false, error: native.error }, `${r.model} on ${r.gpu}`);
  }
  assert.ok(tc.forecastServing({ ...SERVE_CASES[0] }).tokens_per_s > 0, 'the instance works after errors');
});

// ---- the model forecast's precision, torch.compile, multi-GPU training, plans ----

// The page's request fields (precision, engine, the parallel fields) as CLI flags.
function cliModelArgs(r) {
  const args = cliForecastArgs({ predictor: 'tilecast', ...r });
  if (r.precision) args.push('--precision', r.precision);
  if (r.engine === 'compiled') args.push('--compile');
  const flags = {
    dp: '--dp',
    tp: '--tp',
    pp: '--pp',
    microbatches: '--microbatches',
    zero: '--zero',
    recompute: '--recompute',
    schedule: '--schedule',
    system: '--system',
  };
  for (const [k, flag] of Object.entries(flags)) if (r[k] !== undefined) args.push(flag, String(r[k]));
  return args;
}

const PRECISION_CASES = [
  { gpu: 'h100-sxm', model: 'gpt3-2.7b', batch: 1, seq: 2048, mode: 'training', precision: 'bf16' },
  {
    gpu: 'a100-80gb-sxm',
    model: 'llama2-7b',
    batch: 2,
    seq: 1024,
    mode: 'training',
    precision: 'fp16',
    engine: 'compiled',
  },
  { gpu: 'a100-80gb-sxm', model: 'mixtral-8x7b', batch: 1, seq: 512, mode: 'inference', precision: 'bf16' },
  { gpu: 't4', model: 'gpt2', batch: 8, seq: 128, mode: 'training', engine: 'compiled' },
  { gpu: 'v100-sxm', model: 'gpt2', batch: 8, seq: 128, mode: 'training', precision: 'bf16' }, // no BF16 units: an error
];

test('precision and torch.compile forecasts are identical natively and in WASM, errors included', () => {
  for (const c of PRECISION_CASES) {
    const req = { predictor: 'tilecast', ...c };
    const wasm = sameOutcome(
      cli(cliModelArgs(req)),
      () => tc.text.forecastModel(req),
      `${c.model} on ${c.gpu} ${c.precision ?? 'fp32'} ${c.engine ?? 'eager'}`,
    );
    if (wasm.ok) {
      const f = JSON.parse(wasm.text);
      assert.equal(f.precision, c.precision ?? 'fp32');
      assert.equal(f.engine, c.engine ?? 'eager');
    } else {
      assert.match(wasm.error, /V100.*has no bf16 units/);
    }
  }
});

const PARALLEL_CASES = [
  {
    gpu: 'h100-sxm',
    model: 'gpt3-2.7b',
    batch: 8,
    seq: 2048,
    mode: 'training',
    dp: 2,
    tp: 2,
    pp: 2,
    microbatches: 4,
    zero: 0,
    recompute: 'none',
    schedule: '1f1b',
  },
  {
    gpu: 'a100-80gb-sxm',
    model: 'llama2-7b',
    batch: 16,
    seq: 1024,
    mode: 'training',
    dp: 2,
    tp: 4,
    pp: 1,
    microbatches: 2,
    zero: 1,
    recompute: 'selective',
    schedule: '1f1b',
    system: 'dgx-a100',
    precision: 'bf16',
  },
  {
    gpu: 'h100-sxm',
    model: 'gpt3-6.7b',
    batch: 8,
    seq: 2048,
    mode: 'training',
    dp: 1,
    tp: 2,
    pp: 4,
    microbatches: 8,
    zero: 0,
    recompute: 'full',
    schedule: 'gpipe',
  },
  // Bad input: the core's messages.
  { gpu: 'h100-sxm', model: 'gpt3-2.7b', batch: 8, seq: 2048, mode: 'training', dp: 1, tp: 3, pp: 1, microbatches: 1 },
  { gpu: 'h100-sxm', model: 'gpt3-2.7b', batch: 8, seq: 2048, mode: 'training', dp: 2, tp: 1, pp: 1, microbatches: 3 },
  {
    gpu: 'h100-sxm',
    model: 'gpt3-2.7b',
    batch: 1024,
    seq: 2048,
    mode: 'training',
    dp: 1024,
    tp: 1,
    pp: 1,
    microbatches: 1,
  },
];

test('multi-GPU training forecasts are identical natively and in WASM, errors included', () => {
  let ok = 0;
  for (const c of PARALLEL_CASES) {
    const req = { predictor: 'tilecast', ...c };
    const wasm = sameOutcome(
      cli(cliModelArgs(req)),
      () => tc.text.forecastModel(req),
      `${c.dp}x${c.tp}x${c.pp} ${c.model}`,
    );
    if (!wasm.ok) continue;
    ok += 1;
    const f = JSON.parse(wasm.text);
    assert.equal(f.parallel.gpus, c.dp * c.tp * c.pp);
    assert.equal(f.stages.length, c.pp);
    assert.ok(
      f.stages.every((s) => s.compute.length === 2 * c.microbatches || c.recompute === 'full'),
      'a forward and a backward span per micro-batch',
    );
    assert.equal(typeof f.memory.fits, 'boolean');
  }
  // 4: the 1,024-GPU case fits dgx-h100 since it states Eos's 1,344 nodes (it was refused at 127)
  assert.equal(ok, 4);
  assert.throws(
    () => tc.forecastModel({ ...PARALLEL_CASES[0], tp: 3 }),
    /tp 3 does not divide GPT-3 2\.7B's 32 attention heads/,
  );
  // torch.compile on many GPUs: each rank replays the compiled graph (fewer kernels)
  const compiled = tc.forecastModel({ ...PARALLEL_CASES[0], engine: 'compiled' });
  assert.equal(compiled.parallel.engine, 'compiled');
  assert.ok(compiled.step_ms < tc.forecastModel(PARALLEL_CASES[0]).step_ms);
});

test('planParallel is identical to tilecast plan --json', () => {
  const cases = [
    { system: 'dgx-h100', model: 'gpt3-2.7b', global_batch: 64, seq: 2048, top: 5 },
    { system: 'mi300x-8x', model: 'llama2-7b', global_batch: 32, seq: 1024, top: 3, predictor: 'roofline' },
    { system: 'dgx-a100', model: 'gpt2-large', global_batch: 16, seq: 1024, top: 4, precision: 'bf16' },
  ];
  for (const c of cases) {
    const args = [
      'plan',
      '--system',
      c.system,
      '--model',
      c.model,
      '--global-batch',
      String(c.global_batch),
      '--seq',
      String(c.seq),
    ];
    if (c.top) args.push('--top', String(c.top));
    if (c.predictor) args.push('--predictor', c.predictor);
    if (c.precision) args.push('--precision', c.precision);
    args.push('--json');
    const wasm = sameOutcome(cli(args), () => tc.text.planParallel(c), `plan ${c.model} on ${c.system}`);
    assert.ok(wasm.ok, wasm.error);
    const plan = JSON.parse(wasm.text);
    assert.ok(plan.considered > 0 && plan.by_step.length > 0 && plan.by_step.length <= c.top);
    assert.equal(plan.precision, c.precision ?? 'fp32');
  }
  // Bad input: the core's message (the CLI checks its flags itself, in other words).
  assert.throws(() => tc.planParallel({ ...cases[0], global_batch: 0 }), /plan request: field 'global_batch' is 0/);
  assert.throws(() => tc.planParallel({ ...cases[0], system: 'dgx-9000' }), TilecastError);
  assert.ok(tc.planParallel(cases[0]).fitting > 0, 'the instance works after errors');
});
