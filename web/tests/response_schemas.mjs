// The response schemas (core/schema/) as an Ajv validator, and the spread of API calls whose
// answers are checked against them: natively by schema_native.mjs (ctest "response_schemas")
// and through the WASM build by schema_wasm.test.mjs. An answer is the WASM binding's envelope:
// {ok: true, json: TEXT} or {ok: false, error: MESSAGE} (wasm/convert.cpp).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SCHEMA_DIR = path.join(REPO, 'core/schema');

// Ajv is an npm devDependency of web/ (scripts/bootstrap.sh installs it); null when missing.
export function loadAjv() {
  const require = createRequire(path.join(REPO, 'web/package.json'));
  try {
    return require('ajv');
  } catch {
    return null;
  }
}

// Every schema in core/schema/, checked for being a valid draft-07 schema in strict mode.
export function makeValidator(AjvModule) {
  const Ajv = AjvModule.default ?? AjvModule;
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  for (const f of fs
    .readdirSync(SCHEMA_DIR)
    .filter((n) => n.endsWith('.schema.json'))
    .sort())
    ajv.addSchema(JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, f), 'utf8')));
  const api = ajv.getSchema('api.schema.json');
  if (!api) throw new Error('core/schema/api.schema.json is missing');
  const calls = api.schema.properties;
  const byCall = {};
  for (const call of Object.keys(calls)) byCall[call] = ajv.compile({ $ref: `api.schema.json#/properties/${call}` });
  const error = ajv.getSchema('error.schema.json');
  // Problems with one answer (an empty list when it is valid and as expected).
  return function check(call, envelope, expectOk) {
    const problems = [];
    if (!byCall[call]) return [`no schema for call '${call}' in core/schema/api.schema.json`];
    if (envelope.ok !== true) {
      if (!error(envelope)) problems.push(...error.errors.map((e) => `error envelope ${e.instancePath} ${e.message}`));
      if (/^internal error/.test(envelope.error ?? '')) problems.push(`internal error: ${envelope.error}`);
      if (expectOk) problems.push(`failed: ${envelope.error}`);
      return problems;
    }
    if (!expectOk) problems.push('succeeded, but the request is bad and must fail');
    let value;
    try {
      value = JSON.parse(envelope.json);
    } catch (e) {
      return [`not JSON: ${e.message}`];
    }
    if (!byCall[call](value))
      for (const e of byCall[call].errors.slice(0, 8))
        problems.push(`${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
    return problems;
  };
}

const LISTS = ['listGpus', 'listModels', 'listSystems'];
export const LIST_CALLS = LISTS.map((call) => ({ call, ok: true }));

const readJson = (rel) => JSON.parse(fs.readFileSync(path.join(REPO, rel), 'utf8'));

// The spread of calls: every listing, every catalog spec validated, the zoo x a few GPUs x every
// mode (precisions, predictors, engines along), parallel layouts, serving, plans, collectives,
// kernels, and bad requests of every call. `lists` holds the listings' parsed answers.
export function spread(lists) {
  const calls = [...LIST_CALLS];
  const add = (call, request, ok = true) => calls.push({ call, request, ok });
  const gpus = lists.listGpus;
  const models = lists.listModels;
  const systems = lists.listSystems;
  for (const g of gpus) add('validateGpu', g);
  const { id: _id, ...withoutId } = gpus[0];
  add('validateGpu', { ...withoutId, name: 'custom GPU without an id', aliases: [] });
  for (const s of systems) {
    const { gpu_interconnect: _links, ...spec } = s;
    add('validateSystem', spec);
  }
  for (const f of fs
    .readdirSync(path.join(REPO, 'model_zoo'))
    .filter((n) => n.endsWith('.json'))
    .sort())
    add('validateModel', readJson(`model_zoo/${f}`));

  // Whole models: the zoo on an NVIDIA datacenter GPU in every mode, a few on others.
  const decoderOnly = (m) => !/bert|switch/i.test(m.architecture) && !/bert|switch/i.test(m.model_type);
  const modes = ['training', 'inference', 'prefill', 'decode'];
  for (const m of models)
    for (const mode of modes) {
      if ((mode === 'prefill' || mode === 'decode') && !decoderOnly(m)) continue;
      add('forecastModel', { gpu: 'a100-80gb-sxm', model: m.id, batch: 2, seq: 256, mode });
    }
  for (const gpu of ['h100-sxm', 'mi250x', 'rtx-4090', 't4'])
    for (const model of ['gpt2', 'llama3-8b', 'mixtral-8x7b'])
      for (const mode of modes) add('forecastModel', { gpu, model, batch: 1, seq: 512, mode, predictor: 'roofline' });
  for (const precision of ['fp32', 'fp16', 'bf16'])
    for (const mode of modes) {
      add('forecastModel', { gpu: 'h100-sxm', model: 'llama2-7b', batch: 4, seq: 1024, mode, precision });
      add('forecastModel', {
        gpu: 'a100-80gb-sxm',
        model: 'gpt2-medium',
        batch: 8,
        seq: 512,
        mode,
        precision,
        engine: 'compiled',
      });
    }
  add('forecastModel', { gpu: 'a100-80gb-sxm', model: 'llama3-8b', batch: 1, seq: 128, mode: 'decode', context: 4096 });
  // a pass that does not fit: its memory says so, with the largest batch and the GPUs that would
  add('forecastModel', {
    gpu: 'h100-sxm',
    model: 'llama3-70b',
    batch: 1,
    seq: 2048,
    mode: 'inference',
    precision: 'bf16',
  });
  add('forecastModel', {
    gpu: gpus[0],
    model: readJson('model_zoo/opt-tiny.json'),
    batch: 1,
    seq: 64,
    mode: 'inference',
  });
  // LoRA / QLoRA fine-tuning on one GPU (issue 32 item 9)
  add('forecastModel', {
    gpu: 'a100-80gb-sxm',
    model: 'llama2-7b',
    batch: 1,
    seq: 512,
    mode: 'training',
    precision: 'bf16',
    finetune: { method: 'lora', rank: 8 },
  });
  add('forecastModel', {
    gpu: 'a100-80gb-sxm',
    model: 'gpt2',
    batch: 2,
    seq: 256,
    mode: 'training',
    finetune: { method: 'qlora', targets: 'all_linear' },
  });

  // Multi-GPU training steps.
  add('forecastModel', { gpu: 'a100-80gb-sxm', model: 'gpt3-2.7b', batch: 16, seq: 2048, mode: 'training', gpus: 8 });
  add('forecastModel', {
    gpu: 'a100-80gb-sxm',
    model: 'llama2-13b',
    batch: 32,
    seq: 2048,
    mode: 'training',
    dp: 2,
    tp: 2,
    pp: 2,
    microbatches: 8,
    zero: 1,
    recompute: 'selective',
  });
  add('forecastModel', {
    gpu: 'h100-sxm',
    model: 'llama3-8b',
    batch: 16,
    seq: 4096,
    mode: 'training',
    tp: 4,
    pp: 2,
    microbatches: 4,
    schedule: 'gpipe',
    recompute: 'full',
    precision: 'bf16',
  });
  add('forecastModel', {
    gpu: 'a100-80gb-sxm',
    model: 'gpt2-xl',
    batch: 32,
    seq: 1024,
    mode: 'training',
    dp: 4,
    zero: 3,
    bucket_mb: 50,
    system: 'dgx-a100',
    predictor: 'roofline',
  });
  add('forecastModel', {
    gpu: 'mi300x',
    model: 'mixtral-8x7b',
    batch: 8,
    seq: 2048,
    mode: 'training',
    tp: 8,
    precision: 'bf16',
    predictor: 'roofline',
  });

  // The megatron engine (docs/megatron.md): tensor, pipeline (interleaved), sequence, context
  // and expert parallelism, the tokens field, a model by its sizes.
  add('forecastModel', {
    gpu: 'a100-80gb-sxm',
    model: 'gpt3-13b',
    batch: 64,
    seq: 2048,
    mode: 'training',
    engine: 'megatron',
    precision: 'bf16',
    gpus: 32,
    tp: 4,
    pp: 2,
    microbatches: 8,
    virtual_stages: 2,
    sequence_parallel: true,
    recompute: 'selective',
    tokens: 3e11,
  });
  add('forecastModel', {
    gpu: 'h100-sxm',
    model: 'llama3-8b',
    batch: 8,
    seq: 16384,
    mode: 'training',
    engine: 'megatron',
    gpus: 16,
    tp: 2,
    cp: 4,
    sequence_parallel: true,
    microbatches: 4,
  });
  add('forecastModel', {
    gpu: 'h100-sxm',
    model: 'mixtral-8x7b',
    batch: 64,
    seq: 4096,
    mode: 'training',
    engine: 'megatron',
    gpus: 64,
    tp: 2,
    pp: 4,
    ep: 8,
    sequence_parallel: true,
    microbatches: 8,
    recompute: 'full',
  });
  add('forecastModel', {
    gpu: 'a100-80gb-sxm',
    model: { sizes: { hidden: 4096, layers: 16, heads: 32, query_groups: 8, vocab: 32000, mlp: 'swiglu' } },
    batch: 16,
    seq: 2048,
    mode: 'training',
    engine: 'megatron',
    gpus: 8,
    tp: 8,
    microbatches: 4,
  });

  // Priced forecasts (issue 32 item 9): cost with MFU in training, per million tokens otherwise.
  const price = { price_per_gpu_hour: 2.5 };
  add('forecastModel', {
    gpu: 'h100-sxm',
    model: 'llama2-7b',
    batch: 2,
    seq: 1024,
    mode: 'training',
    precision: 'bf16',
    tokens: 1e9,
    ...price,
  });
  add('forecastModel', { gpu: 'h100-sxm', model: 'gpt2', batch: 4, seq: 128, mode: 'decode', ...price });
  add('forecastModel', {
    gpu: 'a100-80gb-sxm',
    model: 'gpt2-xl',
    batch: 16,
    seq: 1024,
    mode: 'training',
    dp: 4,
    zero: 3,
    ...price,
  });
  add('forecastModel', {
    gpu: 'h100-sxm',
    model: 'llama2-7b',
    batch: 16,
    seq: 1024,
    mode: 'training',
    precision: 'bf16',
    engine: 'megatron',
    gpus: 8,
    tp: 2,
    tokens: 3e11,
    ...price,
  });
  add('forecastServing', { gpu: 'h100-sxm', model: 'llama3-8b', prompt: 512, output: 128, batch: 8, tp: 2, ...price });
  add('forecastServing', {
    gpu: 'h100-sxm',
    model: 'llama3-8b',
    prompt: 256,
    output: 64,
    qps: 4,
    requests: 20,
    ...price,
  });
  // Serving.
  for (const model of ['llama3-8b', 'gpt2', 'mixtral-8x7b', 'qwen2-7b'])
    for (const [gpu, tp] of [
      ['a100-80gb-sxm', 1],
      ['h100-sxm', 2],
      ['mi300x', 4],
    ])
      add('forecastServing', { gpu, model, prompt: 512, output: 128, batch: 4, tp });
  add('forecastServing', {
    gpu: 'l4',
    model: 'llama2-70b',
    prompt: 2048,
    output: 256,
    batch: 1,
    engine: 'eager',
    precision: 'fp16',
    predictor: 'roofline',
  });
  add('forecastServing', { gpu: 'a100-80gb-sxm', model: 'llama3-8b', prompt: 100, output: 1, precision: 'fp32' });
  // Quantized serving (issue 30 item 4): W8A8 FP8 with an FP8 KV cache, weight-only INT4.
  add('forecastServing', {
    gpu: 'h100-sxm',
    model: 'llama3-8b',
    prompt: 512,
    output: 64,
    batch: 8,
    precision: 'fp8',
    kv_cache: 'fp8',
  });
  add('forecastServing', {
    gpu: 'a100-80gb-sxm',
    model: 'llama3-8b',
    prompt: 512,
    output: 64,
    batch: 8,
    weights: 'int4',
  });
  add('forecastServing', {
    gpu: 'mi300x',
    model: 'llama3-8b',
    prompt: 256,
    output: 32,
    precision: 'fp8',
    qps: 4,
    requests: 20,
    seed: 1,
  });

  // Serving under load (docs/serving-load.md).
  add('forecastServing', {
    gpu: 'a100-80gb-sxm',
    model: 'llama3-8b',
    prompt: 256,
    output: 64,
    qps: 4,
    requests: 40,
    seed: 1,
  });
  add('forecastServing', {
    gpu: 'h100-sxm',
    model: 'llama3-8b',
    prompt: 512,
    output: 32,
    tp: 2,
    concurrency: 8,
    requests: 24,
    slo_ttft_ms: 200,
    slo_tpot_ms: 50,
  });
  add('forecastServing', {
    gpu: 'h100-sxm',
    model: 'llama3-8b',
    prompt: 256,
    output: 32,
    concurrency: 8,
    requests: 24,
    range_ratio: 0.5,
  });
  add('forecastServing', {
    gpu: 'a100-80gb-sxm',
    model: 'gpt2',
    qps: 10,
    requests: 20,
    prompt: 64,
    output: 1,
    scheduler: 'static',
  });
  add('forecastServing', {
    gpu: 'a100-80gb-sxm',
    model: 'qwen2-7b',
    prompt: 1,
    output: 1,
    trace: 'arrival_ms,prompt,output\n0,100,10\n50,300,20\n80,40,1\n',
    trace_name: 't.csv',
    slo_tpot_ms: 30,
  });

  // Plans.
  add('planParallel', { system: 'dgx-a100', model: 'gpt2-xl', global_batch: 64, seq: 1024, top: 5 });
  // no system: the node the GPU's catalog links build
  add('planParallel', { gpu: 'rtx-4090', model: 'gpt2-large', global_batch: 16, seq: 512, gpus: 4, top: 3 });
  add('planParallel', {
    system: 'dgx-h100',
    model: 'llama3-8b',
    global_batch: 32,
    precision: 'bf16',
    gpus: 8,
    top: 3,
    predictor: 'roofline',
  });

  add('planParallel', {
    system: 'dgx-h100',
    model: 'llama3-8b',
    engine: 'megatron',
    gpus: 64,
    global_batch: 128,
    seq: 4096,
    max_microbatch_size: 2,
    max_virtual_stages: 2,
    top: 3,
  });

  // Capacity plans: two GPUs with prices (one needs TP to fit, one a transferred model), a plan
  // nothing meets (best null), quantized serving with the pre-XQA decode kernel, a trace's lengths.
  const capacity = {
    model: 'llama3-8b',
    qps: 2,
    slo_ttft_ms: 2000,
    slo_tpot_ms: 100,
    prompt: 256,
    output: 32,
    requests: 24,
  };
  add('planCapacity', {
    ...capacity,
    model: 'llama3-70b',
    gpu: ['a100-80gb-sxm', 'mi300x'],
    price_per_gpu_hour: [2, 3],
    max_gpus: 8,
  });
  add('planCapacity', { ...capacity, gpu: 'a100-80gb-sxm', slo_ttft_ms: 0.01, slo_tpot_ms: 0.01, max_gpus: 2 });
  add('planCapacity', {
    ...capacity,
    gpu: 'h100-sxm',
    precision: 'fp8',
    kv_cache: 'fp8',
    decode_attention: 'per-query-head',
    max_gpus: 2,
    price_per_gpu_hour: 4,
  });
  add('planCapacity', { ...capacity, gpu: 'l40s', weights: 'int4', max_gpus: 1 });
  add('planCapacity', {
    model: 'qwen2-7b',
    gpu: 'a100-80gb-sxm',
    qps: 1,
    slo_ttft_ms: 1000,
    slo_tpot_ms: 50,
    trace: 'arrival_ms,prompt,output\n0,100,10\n50,300,20\n80,40,1\n',
    trace_name: 't.csv',
    max_gpus: 1,
  });

  // Collectives.
  for (const s of systems)
    for (const collective of ['all_reduce', 'reduce_scatter', 'all_gather', 'send_recv', 'all_to_all'])
      add('forecastCollective', { system: s.id, collective, bytes: 64 << 20, gpus: s.gpus_per_node });
  for (const algorithm of ['auto', 'ring', 'tree'])
    add('forecastCollective', { system: 'dgx-h100', collective: 'all_reduce', bytes: 1 << 30, gpus: 32, algorithm });
  add('forecastCollective', {
    system: 'dgx-h100',
    collective: 'all_reduce',
    bytes: 1 << 30,
    gpus: 8,
    algorithm: 'nvls',
  });
  add('forecastCollective', { system: 'dgx-a100', collective: 'all_gather', bytes: 4096, gpus: 16, gpus_per_node: 4 });

  // Kernels.
  const kernels = [
    ['linear', [1, 8192, 1024, 4096]],
    ['bmm', [16, 512, 512, 64]],
    ['softmax', [4096, 4096]],
    ['ln', [8192, 4096]],
    ['gelu', [4096, 16384]],
    ['add', [4096, 4096]],
  ];
  for (const gpu of ['a100-80gb-sxm', 'h100-sxm', 'mi250x', 'v100-sxm'])
    for (const [op, dims] of kernels)
      for (const predictor of ['tilecast', 'roofline']) add('forecastKernel', { gpu, op, dims, predictor });
  for (const precision of ['tf32', 'fp16', 'bf16', 'fp8', 'int8'])
    add('forecastKernel', {
      gpu: 'h100-sxm',
      op: 'linear',
      dims: [1, 2048, 2048, 2048],
      precision,
      predictor: 'roofline',
    });
  add('forecastKernel', { gpu: 'a100-80gb-sxm', op: 'linear', dims: [1, 4096, 4096, 4096], precision: 'fp16' });

  // Bad requests: each must fail with a message (never an internal error).
  const bad = (call, request) => add(call, request, false);
  bad('validateGpu', '{');
  bad('validateGpu', { name: 'x' });
  bad('validateModel', { model_type: 'nope' });
  bad('validateSystem', { id: 'x' });
  bad('forecastKernel', { gpu: 'a100-80gb-sxm', op: 'conv', dims: [1] });
  bad('forecastKernel', { gpu: 'a100-80gb-sxm', op: 'linear', dims: [1, 2, 3] });
  bad('forecastKernel', { gpu: 'nope', op: 'linear', dims: [1, 2, 3, 4] });
  bad('forecastKernel', { gpu: 'a100-80gb-sxm', op: 'linear', dims: [1, 2, 3, 4], precision: 'fp64' });
  bad('forecastKernel', { gpu: 'a100-80gb-sxm', op: 'linear', dims: [1, 2, 3, 4], predictor: 'magic' });
  bad('forecastModel', { gpu: 'a100-80gb-sxm', model: 'gpt2', batch: 1, seq: 128, mode: 'sleep' });
  bad('forecastModel', { gpu: 'a100-80gb-sxm', model: 'gpt2', batch: 0, seq: 128 });
  bad('forecastModel', { gpu: 'a100-80gb-sxm', model: 'gpt2', batch: 1, seq: 128, precision: 'fp8' });
  bad('forecastModel', { gpu: 'a100-80gb-sxm', model: 'gpt2', batch: 1, seq: 128, engine: 'jit' });
  bad('forecastModel', { gpu: 'a100-80gb-sxm', model: 'bert-base', batch: 1, seq: 128, mode: 'decode' });
  bad('forecastModel', {
    gpu: 'a100-80gb-sxm',
    model: 'gpt2',
    batch: 1,
    seq: 128,
    mode: 'training',
    finetune: { method: 'x' },
  });
  bad('forecastModel', {
    gpu: 'a100-80gb-sxm',
    model: 'gpt2',
    batch: 8,
    seq: 128,
    mode: 'training',
    tp: 2,
    recompute: 'some',
  });
  bad('forecastModel', {
    gpu: 'a100-80gb-sxm',
    model: 'gpt2',
    batch: 8,
    seq: 128,
    mode: 'training',
    pp: 2,
    schedule: 'zb',
  });
  bad('forecastModel', { gpu: 'a100-80gb-sxm', model: 'gpt2', batch: 8, seq: 128, mode: 'training', gpus: 6, tp: 4 });
  bad('forecastServing', { gpu: 'a100-80gb-sxm', model: 'gpt2', prompt: 16 });
  bad('forecastServing', { gpu: 'a100-80gb-sxm', model: 'gpt2', prompt: 16, output: 16, engine: 'compiled2' });
  bad('forecastServing', { gpu: 'a100-80gb-sxm', model: 'bert-base', prompt: 16, output: 16 });
  bad('forecastServing', {
    gpu: 'a100-80gb-sxm',
    model: 'gpt2',
    prompt: 16,
    output: 16,
    qps: 1,
    concurrency: 2,
    requests: 4,
  });
  bad('forecastServing', {
    gpu: 'a100-80gb-sxm',
    model: 'gpt2',
    prompt: 16,
    output: 16,
    qps: 1,
    requests: 4,
    scheduler: 'fifo',
  });
  bad('planCapacity', { ...capacity, gpu: 'a100-80gb-sxm', qps: undefined });
  add('planCapacity', { ...capacity, gpu: 'a100-80gb-sxm', max_gpus: 1, range_ratio: 0.3 });
  add('planCapacity', {
    ...capacity,
    gpu: 'h100-sxm',
    max_gpus: 2,
    scheduler: 'no-evict',
    batch_limits: 'trtllm-bench',
  });
  bad('forecastServing', { gpu: 'h100-sxm', model: 'llama3-8b', prompt: 256, output: 32, range_ratio: 0.5 });
  bad('forecastServing', {
    gpu: 'h100-sxm',
    model: 'llama3-8b',
    prompt: 256,
    output: 32,
    qps: 1,
    requests: 4,
    range_ratio: 1,
  });
  bad('planCapacity', { ...capacity, gpu: 'a100-80gb-sxm', decode_attention: 'flat' });
  bad('planCapacity', { ...capacity, gpu: 'a100-80gb-sxm', tp: 2 });
  bad('planCapacity', { ...capacity, gpu: ['a100-80gb-sxm', 'h100-sxm'], price_per_gpu_hour: [1, 2, 3] });
  bad('planParallel', { model: 'gpt2', global_batch: 8 });
  bad('forecastModel', {
    gpu: 'a100-80gb-sxm',
    model: 'llama3-8b',
    batch: 8,
    seq: 2048,
    mode: 'training',
    engine: 'megatron',
    gpus: 8,
    ep: 2,
  });
  bad('planParallel', { system: 'dgx-a100', model: 'gpt2', global_batch: 8, precision: 'int4' });
  bad('forecastCollective', { system: 'dgx-a100', collective: 'broadcast', bytes: 1024, gpus: 8 });
  bad('forecastCollective', { system: 'dgx-a100', collective: 'all_reduce', bytes: 1024, gpus: 8, algorithm: 'star' });
  bad('forecastCollective', { system: 'nope', collective: 'all_reduce', bytes: 1024, gpus: 8 });
  // A learned model given as its files' text (the WASM build's on-demand models; natively embedded).
  const manifest = readJson('core/data/models/amd-fp32/manifest.json');
  const files = Object.fromEntries(
    Object.entries(manifest.files).map(([role, f]) => [
      role,
      fs.readFileSync(path.join(REPO, 'core/data/models/amd-fp32', f), 'utf8'),
    ]),
  );
  add('loadModel', { id: 'amd-fp32', files });
  bad('loadModel', { id: 'no-such-model', files: {} });
  bad('loadModel', { id: 'amd-fp32', files: { weights: files.weights } });
  return calls;
}
