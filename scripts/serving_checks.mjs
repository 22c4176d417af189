// Forecasts every published serving measurement in data/published/serving.json with
// `tilecast serve --json` and writes the comparison table (docs/serving-checks.md): static
// batches, loaded runs (a request rate or a client concurrency), TP and quantized rows apart.
//   node scripts/serving_checks.mjs [OUT.md]      (TILECAST_CLI: the native CLI)
//   node scripts/serving_checks.mjs --json OUT.json  every row as JSON (the accuracy report's)
// TILECAST_SERVING_DATA: another file of the same shape instead (scripts/experiments/ run variants).
// Deterministic: the same CLI and data give the same file (a test checks it is current).
// TILECAST_SERVE_CACHE=DIR keeps the CLI's answers there, by its own bytes and the arguments, so
// a second run with the same CLI reads them instead of forecasting again (scripts/test_web.sh:
// the accuracy report's run and the table's test share one; a rebuilt CLI is another key).
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.resolve(REPO, process.env.TILECAST_CLI ?? 'build/cli/tilecast');
const DATA = path.resolve(REPO, process.env.TILECAST_SERVING_DATA ?? 'data/published/serving.json');
const asJson = process.argv[2] === '--json';
const usage = 'usage: node scripts/serving_checks.mjs [OUT.md] | --json OUT.json';
// --json needs its own file: the default is the table's (docs/serving-checks.md), never JSON's
if (asJson && !process.argv[3]) {
  console.error(`serving_checks: --json needs an output file; ${usage}`);
  process.exit(2);
}
if (!asJson && process.argv[2]?.startsWith('-')) {
  console.error(`serving_checks: unknown option ${process.argv[2]}; ${usage}`);
  process.exit(2);
}
const out = path.resolve(process.argv[asJson ? 3 : 2] ?? path.join(REPO, 'docs/serving-checks.md'));

// A static row (`batch`) is one batch that starts together: the static forecast's fields.
const STATIC_METRICS = {
  ttft_ms: { label: 'TTFT (ms)', of: (f) => f.prefill_ms },
  tpot_ms: { label: 'TPOT (ms)', of: (f) => f.decode_ms_per_token },
  output_tokens_per_s: { label: 'output tokens/s', of: (f) => (f.batch * f.output) / (f.total_ms / 1000) },
  output_tokens_per_s_per_gpu: {
    label: 'output tokens/s per GPU',
    of: (f) => (f.batch * f.output) / (f.total_ms / 1000) / f.tp,
  },
  decode_tokens_per_s: { label: 'decode tokens/s', of: (f) => f.tokens_per_s },
};
// A loaded row (`qps` or `concurrency`, and `requests`) is a simulated request stream
// (docs/serving-load.md): percentiles of TTFT, TPOT and end-to-end latency, and throughput.
// Each reads its figure (`of`) and its 80% band (`band`: [low, high] from the answer's `band`).
const replicaGpus = (f) => f.tp * (f.ep ?? 1); // tp, or ep under expert parallelism (attention data parallel)
const LOADED_METRICS = {
  output_tokens_per_s: { label: 'output tokens/s', of: (f) => f.output_tokens_per_s, band: (b) => b.output_tokens_per_s },
  output_tokens_per_s_per_gpu: {
    label: 'output tokens/s per GPU',
    of: (f) => f.output_tokens_per_s / replicaGpus(f),
    band: (b, f) => b.output_tokens_per_s.map((x) => x / replicaGpus(f)),
  },
  requests_per_s: { label: 'requests/s', of: (f) => f.requests_per_s, band: (b) => b.requests_per_s },
};
for (const [key, name] of [
  ['ttft', 'TTFT'],
  ['tpot', 'TPOT'],
  ['e2e', 'E2E'],
]) {
  for (const stat of ['p50', 'p90', 'p99', 'mean'])
    LOADED_METRICS[`${key}_${stat}_ms`] = {
      label: `${name} ${stat} (ms)`,
      of: (f) => f[`${key}_ms`][stat],
      band: (b) => b[`${key}_ms`][stat],
    };
}
const QUANTIZED = new Set(['fp8', 'fp4', 'int8', 'int4']);

function fail(message) {
  console.error(`serving_checks: ${message}`);
  process.exit(1);
}

if (!fs.existsSync(CLI)) fail(`${CLI} is missing: build the native CLI (scripts/build_native.sh) or set TILECAST_CLI`);
const data = JSON.parse(fs.readFileSync(DATA, 'utf8'));

const isLoaded = (row) => row.qps !== undefined || row.concurrency !== undefined;
const isQuantized = (row) => QUANTIZED.has(row.precision) || row.weights !== undefined || row.kv_cache === 'fp8';
const metricsOf = (row) => (isLoaded(row) ? LOADED_METRICS : STATIC_METRICS);

// The contract command (issue 30): --gpu --model --prompt --output (--qps | --concurrency)
// --requests [--tp] [--precision] [--seed] --json; static rows take --batch instead.
function argsOf(row, prompt = row.prompt, output = row.output) {
  const args = ['serve', '--gpu', row.gpu, '--model', row.model, '--prompt', String(prompt), '--output', String(output)];
  if (row.qps !== undefined) args.push('--qps', String(row.qps), '--requests', String(row.requests), '--seed', '0');
  else if (row.concurrency !== undefined)
    args.push('--concurrency', String(row.concurrency), '--requests', String(row.requests), '--seed', '0');
  else args.push('--batch', String(row.batch));
  args.push('--tp', String(row.tp), '--precision', row.precision);
  // expert parallelism with attention data parallelism (TensorRT-LLM's DEP): a loaded row's `ep`
  if (row.ep !== undefined) args.push('--ep', String(row.ep));
  if (row.kv_cache) args.push('--kv-cache', row.kv_cache);
  if (row.weights) args.push('--weights', row.weights);
  // the measured engine's scheduler (a source's `scheduler`, e.g. TensorRT-LLM's no-evict
  // default); loaded rows only, vLLM's continuous batching otherwise
  const scheduler = row.scheduler ?? data.sources[row.source]?.scheduler;
  if (scheduler && isLoaded(row)) args.push('--scheduler', scheduler);
  // the measured tool's own batch limits (a source's `batch_limits`, e.g. trtllm-bench's
  // heuristic when its run gives no max_batch_size / max_num_tokens); vLLM's own for the GPU otherwise
  const limits = row.batch_limits ?? data.sources[row.source]?.batch_limits;
  if (limits && isLoaded(row)) args.push('--batch-limits', limits);
  // the measured engine's own max batch and token budget where its defaults are not vLLM's (a
  // source's `max_seqs` / `max_batch_tokens`, their reason in `max_seqs_source`)
  const maxSeqs = row.max_seqs ?? data.sources[row.source]?.max_seqs;
  if (maxSeqs !== undefined && isLoaded(row)) args.push('--max-seqs', String(maxSeqs));
  const maxTokens = row.max_batch_tokens ?? data.sources[row.source]?.max_batch_tokens;
  if (maxTokens !== undefined && isLoaded(row)) args.push('--max-batch-tokens', String(maxTokens));
  // the measured engine's decode attention kernel (a source's `decode_attention`: TensorRT-LLM
  // before XQA read the K/V cache once per query head); grouped-query kernels otherwise
  const attention = row.decode_attention ?? data.sources[row.source]?.decode_attention;
  if (attention) args.push('--decode-attention', attention);
  // a variable-length dataset's spread (a source's `range_ratio`, with its reason): lengths
  // uniform within +-R of the row's, so closed-loop clients drift apart as the real ones did
  const spread = row.range_ratio ?? data.sources[row.source]?.range_ratio;
  if (spread !== undefined && isLoaded(row)) args.push('--range-ratio', String(spread));
  args.push('--json');
  return args;
}

// Every forecast the checks need, run one per core at a time (the CLI is single-threaded); the
// answers are kept by their arguments and read in the rows' order, so the output does not depend
// on the order they finish in.
const answers = new Map();
const cacheFile = process.env.TILECAST_SERVE_CACHE
  ? path.join(
      path.resolve(process.env.TILECAST_SERVE_CACHE),
      `serve-${crypto.createHash('sha256').update(fs.readFileSync(CLI)).digest('hex')}.json`,
    )
  : null;
async function runAll(argLists) {
  if (cacheFile && fs.existsSync(cacheFile))
    for (const [key, answer] of Object.entries(JSON.parse(fs.readFileSync(cacheFile, 'utf8')))) answers.set(key, answer);
  const queue = [...new Set(argLists.map((a) => JSON.stringify(a)))].filter((key) => !answers.has(key));
  const computed = queue.length;
  const run = (key) =>
    new Promise((resolve) =>
      execFile(CLI, JSON.parse(key), { encoding: 'utf8', maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
        resolve({ status: err ? err.code : 0, stdout, stderr }),
      ),
    );
  const worker = async () => {
    for (let key = queue.shift(); key !== undefined; key = queue.shift()) answers.set(key, await run(key));
  };
  await Promise.all(Array.from({ length: Math.max(1, os.availableParallelism()) }, worker));
  if (cacheFile && computed > 0) {
    // rewritten only when this run added answers (the file is several MB)
    fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
    fs.writeFileSync(cacheFile, JSON.stringify(Object.fromEntries(answers)));
  }
}

// A setup tilecast refuses (e.g. a precision it does not serve yet) is listed with its
// message, not forecast, and left out of every median.
function serve(row, prompt = row.prompt, output = row.output) {
  const r = answers.get(JSON.stringify(argsOf(row, prompt, output)));
  if (r.status !== 0) return { refused: r.stderr.trim().split('\n')[0].replace(/^tilecast serve: error: /, '') };
  return { forecast: JSON.parse(r.stdout) };
}

const median = (xs) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const num = (v) => (Math.abs(v) >= 100 ? Math.round(v).toLocaleString('en-US') : Number(v.toPrecision(3)).toString());
const pct = (v) => `${(100 * v).toFixed(0)}%`;

// A forecast's 80% band in the row's metric. Static (`band`: multipliers of every latency): a time
// t gives [t x low, t x high], a rate (per second) [rate / high, rate / low]. Loaded (`band`: each
// figure's range over the runs at the band's multiples of every step): the metric's own range.
function bandOf(row, forecast, tilecast, metric) {
  if (!forecast.band) return {};
  let range;
  if (isLoaded(row)) {
    range = metric.band(forecast.band, forecast);
  } else {
    const { low, high } = forecast.band;
    range = row.metric.includes('per_s') ? [tilecast / high, tilecast / low] : [tilecast * low, tilecast * high];
  }
  return { band: range, in_band: range[0] <= row.value && row.value <= range[1] };
}

// An engine whose first token comes from a decode step after the prefill of all but the last
// prompt token (the source's first_token, e.g. TurboMind) also needs that prefill's forecast.
const firstTokenStep = (row) =>
  row.metric === 'ttft_ms' && !isLoaded(row) && data.sources[row.source]?.first_token === 'decode_step' && row.prompt > 1;
await runAll(
  data.rows.flatMap((row) => [argsOf(row), ...(firstTokenStep(row) ? [argsOf(row, row.prompt - 1, 2)] : [])]),
);

const rows = [];
const refused = [];
for (const row of data.rows) {
  const metric = metricsOf(row)[row.metric];
  if (!metric)
    fail(`row ${row.id}: unknown metric ${row.metric} for a ${isLoaded(row) ? 'loaded' : 'static'} row ` +
      `(known: ${Object.keys(metricsOf(row)).join(', ')})`);
  if (!data.sources[row.source]) fail(`row ${row.id}: unknown source ${row.source}`);
  const r = serve(row);
  if (r.refused) {
    refused.push({ ...row, refused: r.refused });
    continue;
  }
  let tilecast = metric.of(r.forecast);
  // that prefill plus that step
  if (firstTokenStep(row)) {
    const g = serve(row, row.prompt - 1, 2);
    if (g.refused) fail(`row ${row.id}: the prefill of prompt - 1 tokens was refused: ${g.refused}`);
    const step = g.forecast.decode_ms_at[String(row.prompt - 1)];
    if (typeof step !== 'number') fail(`row ${row.id}: no decode step at ${row.prompt - 1} cached tokens`);
    tilecast = g.forecast.prefill_ms + step;
  }
  if (!Number.isFinite(tilecast)) fail(`row ${row.id}: tilecast gave ${tilecast} for ${row.metric}`);
  rows.push({ ...row, tilecast, ratio: tilecast / row.value, fits: r.forecast.memory?.fits ?? true, ...bandOf(row, r.forecast, tilecast, metric) });
}

// A loaded row's load in words (the tables' and the accuracy report's).
const loadOf = (r) => (r.qps !== undefined ? `${r.qps} req/s` : `${r.concurrency} clients`);

if (asJson) {
  // Every row, static and loaded, with its groups (the accuracy report's serving section).
  const metricLabels = Object.fromEntries(
    [...Object.entries(LOADED_METRICS), ...Object.entries(STATIC_METRICS)].map(([k, m]) => [k, m.label]),
  );
  const all = rows.map((r) => ({
    ...r,
    load: isLoaded(r) ? `${loadOf(r)}, ${r.requests} requests` : `batch ${r.batch}`,
    loaded: isLoaded(r),
    quantized: isQuantized(r),
    args: argsOf(r), // its serve command (a decode-step first token adds one of prompt - 1 tokens)
  }));
  fs.writeFileSync(out, JSON.stringify({ sources: data.sources, metrics: metricLabels, rows: all }, null, 1) + '\n');
  process.exit(0);
}

const labelOf = (r) => metricsOf(r)[r.metric].label;
const lines = [];
lines.push('# Serving forecasts beside published measurements');
lines.push('');
lines.push('Generated by `make serving-checks` (`scripts/serving_checks.sh`) from');
lines.push('`data/published/serving.json`: each row is a published figure with its setup, and what');
lines.push('`tilecast serve` (optimised engine, the stated precision, GPU, tensor parallelism, batch or load,');
lines.push('and lengths) forecasts for it. Do not edit by hand; `web/tests/serving_checks.test.mjs` checks that');
lines.push('this file is what the command makes. Ratio = tilecast / published.');
lines.push('');
lines.push('* **Static rows** (`batch`: one batch that starts together): TTFT = `prefill_ms` (where the');
lines.push('  source\'s engine emits its first token from a decode step, `first_token: decode_step`:');
lines.push('  `prefill_ms` of prompt - 1 tokens plus the first `decode_ms_at` step after it); TPOT =');
lines.push('  `decode_ms_per_token`; output tokens/s = batch × output / `total_ms` (per GPU: ÷ TP);');
lines.push('  decode tokens/s = `tokens_per_s`.');
lines.push('* **Loaded rows** (`qps` or `concurrency`, and `requests`): `tilecast serve --gpu G --model M');
lines.push('  --prompt P --output O (--qps R | --concurrency C) --requests N --seed 0 --tp T --precision X');
lines.push('  --json` (docs/serving-load.md); TTFT/TPOT/E2E percentiles and means from `ttft_ms`, `tpot_ms`,');
lines.push('  `e2e_ms`; output tokens/s and requests/s as the simulation gives them (one replica of TP GPUs).');
lines.push('  An offline run (every request queued at once) is `--concurrency N --requests N`. A source\'s');
lines.push('  `scheduler` and `batch_limits` (its engine\'s own: TensorRT-LLM\'s no-evict admission,');
lines.push('  trtllm-bench\'s max batch and tokens) pass `--scheduler` and `--batch-limits`; its `max_seqs`');
lines.push('  and `max_batch_tokens` (an engine\'s own defaults, e.g. a TensorRT-LLM engine\'s build limits,');
lines.push('  their reason in `max_seqs_source`) pass `--max-seqs` and `--max-batch-tokens`. A source\'s');
lines.push('  `decode_attention` (TensorRT-LLM before XQA: the K/V cache read once per query head) passes');
lines.push('  `--decode-attention`, static or loaded. A source\'s `range_ratio` (a variable-length dataset run');
lines.push('  at uniform lengths within ±R of the row\'s, its reason in `range_ratio_source`) passes');
lines.push('  `--range-ratio` to its loaded rows.');
lines.push('* **TP rows**: tensor parallelism above 1, static or loaded. **Quantized rows**: FP8, FP4 or INT8');
lines.push('  precision, weight-only INT4/INT8 weights, or an FP8 KV cache, static or loaded.');
lines.push('');

function summary(set, label) {
  if (!set.length) return `* ${label}: no rows.`;
  const errs = set.map((r) => Math.abs(r.ratio - 1));
  const worst = set.reduce((a, b) => (Math.abs(b.ratio - 1) > Math.abs(a.ratio - 1) ? b : a));
  const labels = [...new Set(set.map(labelOf))];
  const byMetric = labels.map((l) => {
    const sub = set.filter((r) => labelOf(r) === l);
    return `${l} ${pct(median(sub.map((r) => Math.abs(r.ratio - 1))))} (${sub.length})`;
  });
  return `* ${label}: ${set.length} rows, median absolute error **${pct(median(errs))}** (by metric: ${byMetric.join('; ')}); ` +
    `worst \`${worst.id}\` at ${worst.ratio.toFixed(2)}× the published figure.`;
}

const staticRows = rows.filter((r) => !isLoaded(r));
const loadedRows = rows.filter(isLoaded);
const tpRows = rows.filter((r) => r.tp > 1);
const quantRows = rows.filter(isQuantized);
lines.push('## Summary');
lines.push('');
lines.push('By group (a row can be in more than one: a loaded FP8 run at TP 2 is loaded, TP and quantized;');
lines.push('issue 30\'s targets in brackets):');
lines.push('');
lines.push(summary(staticRows, 'Static rows (target ≤ 8 % median)'));
lines.push(summary(loadedRows, 'Loaded rows (target ≤ 15 % median)'));
lines.push(summary(tpRows, 'TP rows (TP 2-8; target ≤ 12 % median)'));
lines.push(summary(quantRows, 'Quantized rows (FP8, FP4, INT4/INT8; target ≤ 15 % median)'));
lines.push(summary(rows.filter((r) => r.ep > 1), 'Expert-parallel rows (DEP: attention data parallel, the routed experts over 2-8 GPUs; loaded and quantized too, no target of their own)'));
lines.push('');
lines.push('By whether the engine does what tilecast models:');
lines.push('');
lines.push(summary(staticRows.filter((r) => r.faithful), 'Static rows whose engine does what tilecast models (one static batch, fused attention, the stated precision)'));
lines.push(summary(staticRows.filter((r) => !r.faithful), 'Static rows whose engine differs (continuous batching of concurrent clients)'));
lines.push(summary(loadedRows.filter((r) => r.faithful), 'Loaded rows with fixed lengths as stated (the simulation\'s own setup)'));
lines.push(summary(loadedRows.filter((r) => !r.faithful), 'Loaded rows run approximately (variable-length datasets and outputs that stop early, at their mean lengths: spread uniformly around them where the source gives a range ratio, else fixed)'));
if (refused.length)
  lines.push(`* Not forecast: ${refused.length} rows tilecast refuses (listed below; in no median).`);
lines.push('');
// Where the forecasts lean: the median ratio (signed: above 1 the forecast is too fast for a rate,
// too slow for a time) of each GPU and precision, every row of it, static and loaded.
lines.push('By GPU and precision (median ratio, the median absolute error in brackets):');
lines.push('');
const gpuPrecisions = [...new Set(rows.map((r) => `${r.gpu} ${r.precision}`))].sort();
lines.push(gpuPrecisions.map((k) => {
  const sub = rows.filter((r) => `${r.gpu} ${r.precision}` === k);
  return `${k} ${median(sub.map((r) => r.ratio)).toFixed(2)}× (${pct(median(sub.map((r) => Math.abs(r.ratio - 1))))}, ${sub.length})`;
}).join('; ') + '.');
lines.push('');
// Each source's share of the medians above: its rows and their median absolute error, and the
// median of those medians, so a source of many rows cannot move a group's figure unseen.
lines.push('By source (rows forecast and their median absolute error; sources in the order of the file):');
lines.push('');
const sourceIds = Object.keys(data.sources).filter((id) => rows.some((r) => r.source === id));
const sourceMedians = sourceIds.map((id) => median(rows.filter((r) => r.source === id).map((r) => Math.abs(r.ratio - 1))));
lines.push(sourceIds.map((id, i) => `${id} ${pct(sourceMedians[i])} (${rows.filter((r) => r.source === id).length})`).join('; ') + '.');
lines.push('');
lines.push(`The median over the ${sourceIds.length} sources of each one's median absolute error: **${pct(median(sourceMedians))}**.`);
lines.push('');
// The static forecasts' 80% band (the whole-model inference band; in FP16, BF16 and FP8 carried
// over from FP32, docs/generalization.md "Other precisions"): how many published figures it holds.
function coverage(set) {
  const banded = set.filter((r) => r.band);
  const inside = banded.filter((r) => r.in_band).length;
  return `${inside} of ${banded.length}${banded.length ? ` (${pct(inside / banded.length)})` : ''}`;
}
const banded = staticRows.filter((r) => r.band);
const precisions = [...new Set(banded.map((r) => r.precision))];
lines.push('Inside the static forecast\'s 80% band (the whole-model inference band, in FP16, BF16 and FP8 carried');
lines.push('over from FP32: docs/generalization.md, "Other precisions"; target 70-90 % inside):');
lines.push('');
lines.push(`* Static rows: ${coverage(staticRows)}; whose engine does what tilecast models: ${coverage(staticRows.filter((r) => r.faithful))}; ` +
  `by precision: ${precisions.map((p) => `${p} ${coverage(staticRows.filter((r) => r.precision === p))}`).join(', ')}.`);
const outside = banded.filter((r) => !r.in_band);
if (outside.length) lines.push(`* Outside: ${outside.map((r) => `\`${r.id}\` (${r.ratio.toFixed(2)}×)`).join(', ')}.`);
lines.push('');
// The loaded forecasts' 80% band (each figure over the runs at the whole-model band's multiples of
// every step, docs/serving-load.md "80% band"): how many published figures it holds, and its width.
const width = (set) => {
  const b = set.filter((r) => r.band);
  return b.length ? pct(b.reduce((sum, r) => sum + (r.band[1] - r.band[0]) / r.tilecast, 0) / b.length) : '—';
};
const loadedUnbanded = loadedRows.filter((r) => !r.band);
lines.push('Inside the loaded forecast\'s 80% band (the same requests simulated again with every step\'s time at the');
lines.push('whole-model inference band\'s multiples; docs/serving-load.md, "80% band"; target 70-90 % inside):');
lines.push('');
lines.push(`* Loaded rows: ${coverage(loadedRows)}, mean width ${width(loadedRows)} of the forecast; ` +
  `without the expert-parallel rows: ${coverage(loadedRows.filter((r) => !r.ep))}; expert-parallel rows: ${coverage(loadedRows.filter((r) => r.ep))}; ` +
  `TP rows: ${coverage(loadedRows.filter((r) => r.tp > 1))}; quantized rows: ${coverage(loadedRows.filter(isQuantized))}.`);
if (loadedUnbanded.length)
  lines.push(`* Without a band (two more runs would pass the work budget): ${loadedUnbanded.map((r) => `\`${r.id}\``).join(', ')}.`);
lines.push('');

const precisionOf = (r) => [r.precision, r.weights ? `weights ${r.weights}` : null, r.kv_cache ? `KV ${r.kv_cache}` : null].filter(Boolean).join(', ');
// the TP column: tensor parallelism, or DEP N (attention data parallel, experts over N GPUs)
const tpOf = (r) => (r.ep ? `DEP ${r.ep}` : r.tp);
// a row's 80% band in its metric, and whether the published figure is inside it
const bandCell = (r) => (r.band ? `${num(r.band[0])}–${num(r.band[1])}${r.in_band ? '' : ' (outside)'}` : '—');
const modelsIt = (r) => (r.faithful ? 'yes' : `no: ${r.differs}`);

lines.push('## Static rows');
lines.push('');
lines.push('| id | source | GPU | model | precision | TP | batch | prompt | output | metric | published | tilecast | 80% band | ratio | models it |');
lines.push('| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |');
for (const r of staticRows) {
  const band = bandCell(r);
  lines.push(`| ${r.id} | [${r.source}](#${r.source}) | ${r.gpu} | ${r.model} | ${precisionOf(r)} | ${tpOf(r)} | ${r.batch} | ${r.prompt} | ${r.output} | ` +
    `${labelOf(r)} | ${num(r.value)} | ${num(r.tilecast)} | ${band} | ${r.ratio.toFixed(2)} | ${modelsIt(r)} |`);
}
lines.push('');
lines.push('## Loaded rows');
lines.push('');
lines.push('| id | source | GPU | model | precision | TP | load | requests | prompt | output | metric | published | tilecast | 80% band | ratio | models it |');
lines.push('| --- | --- | --- | --- | --- | ---: | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |');
for (const r of loadedRows) {
  lines.push(`| ${r.id} | [${r.source}](#${r.source}) | ${r.gpu} | ${r.model} | ${precisionOf(r)} | ${tpOf(r)} | ${loadOf(r)} | ${r.requests} | ${r.prompt} | ` +
    `${r.output} | ${labelOf(r)} | ${num(r.value)} | ${num(r.tilecast)} | ${bandCell(r)} | ${r.ratio.toFixed(2)} | ${modelsIt(r)} |`);
}
lines.push('');
if (refused.length) {
  lines.push('## Not forecast');
  lines.push('');
  lines.push('| id | source | GPU | model | precision | TP | load | prompt | output | metric | published | tilecast says |');
  lines.push('| --- | --- | --- | --- | --- | ---: | --- | ---: | ---: | --- | ---: | --- |');
  for (const r of refused) {
    lines.push(`| ${r.id} | [${r.source}](#${r.source}) | ${r.gpu} | ${r.model} | ${precisionOf(r)} | ${tpOf(r)} | ` +
      `${isLoaded(r) ? loadOf(r) : `batch ${r.batch}`} | ${r.prompt} | ${r.output} | ${labelOf(r)} | ${num(r.value)} | ${r.refused} |`);
  }
  lines.push('');
}
const notes = rows.filter((r) => r.note || !r.fits);
if (notes.length) {
  lines.push('## Notes');
  lines.push('');
  for (const r of notes) {
    const parts = [r.note, r.fits ? null : 'tilecast says this batch does not fit the GPU\'s memory'].filter(Boolean);
    lines.push(`* \`${r.id}\`: ${parts.join('; ')}.`);
  }
  lines.push('');
}
lines.push('## Sources');
lines.push('');
for (const [id, s] of Object.entries(data.sources)) {
  lines.push(`### ${id}`);
  lines.push('');
  lines.push(`[${s.title}](${s.url}). Engine: ${s.engine}. ${s.notes}`);
  lines.push('');
}
fs.writeFileSync(out, lines.join('\n'));
console.log(`serving_checks: ${rows.length} rows forecast, ${refused.length} refused -> ${path.relative(process.cwd(), out)}`);
