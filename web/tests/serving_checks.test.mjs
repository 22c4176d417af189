// The committed docs/serving-checks.md must be what scripts/serving_checks.mjs makes
// from data/published/serving.json and the current forecaster; and every published
// row (static batch or loaded run) must carry its setup and a source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO, CLI, requireFile } from './helpers.mjs';

const data = JSON.parse(fs.readFileSync(path.join(REPO, 'data/published/serving.json'), 'utf8'));

// Static rows (`batch`) and loaded rows (`qps` or `concurrency`, and `requests`: docs/serving-load.md)
// take different metrics; scripts/serving_checks.mjs forecasts each with its own fields.
const STATIC_METRIC = /^(ttft_ms|tpot_ms|output_tokens_per_s|output_tokens_per_s_per_gpu|decode_tokens_per_s)$/;
const LOADED_METRIC =
  /^((ttft|tpot|e2e)_(p50|p90|p99|mean)_ms|output_tokens_per_s|output_tokens_per_s_per_gpu|requests_per_s)$/;
const positiveInt = (v) => Number.isInteger(v) && v >= 1;

test('every published serving row states its setup, metric and source', () => {
  const ids = new Set();
  let loaded = 0;
  for (const r of data.rows) {
    assert.ok(!ids.has(r.id), `duplicate id ${r.id}`);
    ids.add(r.id);
    for (const k of ['gpu', 'model', 'precision', 'metric', 'source'])
      assert.equal(typeof r[k], 'string', `${r.id}: ${k}`);
    for (const k of ['tp', 'prompt', 'output']) assert.ok(positiveInt(r[k]), `${r.id}: ${k}`);
    for (const k of ['kv_cache', 'weights']) assert.ok(r[k] === undefined || typeof r[k] === 'string', `${r.id}: ${k}`);
    const isLoaded = r.qps !== undefined || r.concurrency !== undefined;
    if (isLoaded) {
      loaded++;
      assert.ok((r.qps === undefined) !== (r.concurrency === undefined), `${r.id}: qps or concurrency, not both`);
      if (r.qps !== undefined) assert.ok(Number.isFinite(r.qps) && r.qps > 0, `${r.id}: qps`);
      else assert.ok(positiveInt(r.concurrency), `${r.id}: concurrency`);
      assert.ok(positiveInt(r.requests), `${r.id}: requests`);
      assert.equal(r.batch, undefined, `${r.id}: a loaded row has no batch (the scheduler batches)`);
      assert.match(r.metric, LOADED_METRIC, `${r.id}: metric`);
    } else {
      assert.ok(positiveInt(r.batch), `${r.id}: batch`);
      assert.equal(r.requests, undefined, `${r.id}: requests belong to a loaded row`);
      assert.match(r.metric, STATIC_METRIC, `${r.id}: metric`);
    }
    assert.ok(Number.isFinite(r.value) && r.value > 0, `${r.id}: value`);
    assert.ok(data.sources[r.source]?.url?.startsWith('https://'), `${r.id}: source ${r.source}`);
    assert.equal(typeof r.faithful, 'boolean', `${r.id}: faithful`);
    if (!r.faithful) assert.ok(r.differs, `${r.id}: an engine that differs says how`);
  }
  assert.ok(data.rows.length >= 10 && Object.keys(data.sources).length >= 3);
  assert.ok(loaded >= 10, 'loaded rows (issue 30 item 5)');
  // a length spread is the simulator's range ratio (0 <= R < 1) and says why it was chosen
  for (const [id, src] of Object.entries(data.sources)) {
    if (src.range_ratio === undefined) continue;
    assert.ok(src.range_ratio >= 0 && src.range_ratio < 1, `${id}: range_ratio ${src.range_ratio}`);
    assert.ok(String(src.range_ratio_source ?? '').length > 40, `${id}: range_ratio_source says why`);
  }
  // an engine's own batch limits are whole numbers, say why, and are not trtllm-bench's own choice
  for (const [id, src] of Object.entries(data.sources)) {
    if (src.max_seqs === undefined && src.max_batch_tokens === undefined) continue;
    for (const key of ['max_seqs', 'max_batch_tokens'])
      if (src[key] !== undefined) assert.ok(positiveInt(src[key]), `${id}: ${key} ${src[key]}`);
    assert.ok(String(src.max_seqs_source ?? '').length > 40, `${id}: max_seqs_source says why`);
    assert.equal(src.batch_limits, undefined, `${id}: trtllm-bench chooses its own limits`);
  }
});

test('docs/serving-checks.md is current (rerun make serving-checks if not)', () => {
  requireFile(CLI, 'build the native CLI (scripts/build_native.sh) or set TILECAST_CLI');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tilecast-serving-checks-'));
  try {
    const fresh = path.join(dir, 'serving-checks.md');
    execFileSync('node', [path.join(REPO, 'scripts/serving_checks.mjs'), fresh], {
      cwd: REPO,
      env: { ...process.env, TILECAST_CLI: CLI },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    assert.equal(fs.readFileSync(fresh, 'utf8'), fs.readFileSync(path.join(REPO, 'docs/serving-checks.md'), 'utf8'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// Two transfers' notes (caveats of every forecast they serve) state how published runs came out;
// they must stay true of docs/serving-checks.md (checked current above).
const MANIFEST = path.join(REPO, 'core/data/models/nvidia-half-gemm/manifest.json');
const transferNote = (vendor, precision) =>
  JSON.parse(fs.readFileSync(MANIFEST, 'utf8')).transfers.find(
    (t) => t.vendor === vendor && t.precisions.includes(precision),
  ).note;
// the top-k mixtures of experts with published serving runs (checks_mixtures)
const MIXTURES = [
  'qwen3-30b-a3b',
  'qwen3-235b-a22b',
  'deepseek-r1',
  'gpt-oss-20b',
  'gpt-oss-120b',
  'mixtral-8x7b',
  'mixtral-8x22b',
];
const CHECKS_MD = fs.readFileSync(path.join(REPO, 'docs/serving-checks.md'), 'utf8');
// the checks' table rows (static and loaded) of these GPUs and precision, as cells
const tableRows = (gpus, precision) =>
  CHECKS_MD.split('\n')
    .map((line) => line.split('|').map((c) => c.trim()))
    .filter((c) => gpus.includes(c[3]) && c[5]?.startsWith(precision));
const ratio = (c) => Number(c[c.length - 3]); // both tables end "| ratio | models it |"
// the lowest and highest ratio of `rows` whose metric (column 11) matches `re`
const ratioSpan = (rows, re) => {
  const r = rows.filter((c) => re.test(c[11])).map(ratio);
  assert.ok(r.length >= 1, String(re));
  return [Math.min(...r), Math.max(...r)];
};
// a row whose metric is a time (its label in ms): lower is faster
const isTime = (c) => c.some((x) => /\(ms\)$/.test(x));
// forecast faster than measured: a time (its metric's label in ms) below the published one, a rate
// above; from the two figures (the ratio column is rounded to 1.00 near a tie): both tables end
// "| published | tilecast | 80% band | ratio | models it |"
const faster = (c) => {
  const t = c.length - 5;
  const [published, forecast] = [c[t - 1], c[t]].map((x) => Number(x.replace(/,/g, '')));
  return isTime(c) ? forecast < published : forecast > published;
};

test('the FP4 transfer note agrees with the published NVFP4 runs', () => {
  const note = transferNote('NVIDIA', 'fp4');
  const m = note.match(
    /the dense Llama models come out about ([\d.]+)x faster than measured at the median \(([\d.]+)-([\d.]+)x\), the mixture of experts Qwen3-30B-A3B ([\d.]+)-([\d.]+)x \(median ([\d.]+)x\)/,
  );
  assert.ok(m, note);
  const near = (x, y, tol) => Math.abs(x - Number(y)) < tol;
  const median = (xs) => (xs[(xs.length - 1) >> 1] + xs[xs.length >> 1]) / 2;
  const forecast = tableRows(['b200', 'gb200'], 'fp4').filter((c) => Number.isFinite(ratio(c))); // refused rows have none
  const fp4 = forecast.filter((c) => /tokens\/s/.test(c[11])); // the throughputs the note's first part speaks of
  assert.ok(fp4.length >= 20, `${fp4.length} B200/GB200 FP4 rows`);
  // the rest: DeepSeek-R1's time per output token at one request on 8 B200s, as the note says
  const times = forecast.filter((c) => !fp4.includes(c));
  assert.ok(times.length >= 2, `${times.length} FP4 time rows`);
  for (const c of times)
    assert.ok(c[4] === 'deepseek-r1' && c[3] === 'b200' && c[6] === '8' && /^TPOT/.test(c[11]), c[1]);
  const t = note.match(
    /DeepSeek-R1's time per output token at one request on 8 B200s \(TP 8\) ([\d.]+)-([\d.]+)x the measured time/,
  );
  assert.ok(t, note);
  const tr = times.map(ratio).sort((a, b) => a - b);
  assert.ok(Math.abs(tr[0] - Number(t[1])) < 0.005 && Math.abs(tr.at(-1) - Number(t[2])) < 0.005, tr.join(', '));
  const moe = fp4
    .filter((c) => c[4] === 'qwen3-30b-a3b')
    .map(ratio)
    .sort((a, b) => a - b);
  const dense = fp4
    .filter((c) => !MIXTURES.includes(c[4]))
    .map(ratio)
    .sort((a, b) => a - b);
  assert.ok(moe.length >= 20 && dense.length >= 20, `${moe.length} + ${dense.length} rows`);
  assert.ok(
    near(median(dense), m[1], 0.05) && near(dense[0], m[2], 0.005) && near(dense.at(-1), m[3], 0.005),
    dense.join(', '),
  );
  assert.ok(
    near(moe[0], m[4], 0.005) && near(moe.at(-1), m[5], 0.005) && near(median(moe), m[6], 0.05),
    moe.join(', '),
  );
  // "somewhat optimistic": each GPU's FP4 rows faster than measured at the median, by less than 1.3x
  for (const gpu of ['b200', 'gb200']) {
    const g = CHECKS_MD.match(new RegExp(`\\b${gpu} fp4 ([0-9.]+)×`));
    assert.ok(g && Number(g[1]) > 1 && Number(g[1]) < 1.3, `${gpu} fp4 median ratio ${g?.[1]}`);
  }
});

test('the Blackwell serving note agrees with the published runs it names', () => {
  const engine = JSON.parse(fs.readFileSync(path.join(REPO, 'core/data/engines/serving.json'), 'utf8'));
  const note = engine.checks_by_architecture.Blackwell;
  assert.match(note, /TensorRT-LLM's on the B200 and GB200 .* and vLLM's BF16 Llama 3\.1 70B on 4 B200s under load/);
  const m = note.match(
    /Of the (\d+) TensorRT-LLM runs, (\d+) are forecast faster than measured: the dense Llama models about ([\d.]+)x at the median, gpt-oss ([\d.]+)x \(([\d.]+)-([\d.]+)x\); the (\d+) below 1 are (\d+) of Qwen3-30B-A3B's in NVFP4 \([\d.]+-[\d.]+x\), (\d+) of DeepSeek-R1's in NVFP4 over 4 GPUs \([\d.]+-[\d.]+x\), (\d+) of Qwen3-235B-A22B's in NVFP4 over 4 GPUs \([\d.]+-[\d.]+x\), (\d+) of Llama 3\.3 70B's in NVFP4, (\d+) on the GB200 and (?:one|\d+) on the B200 at TP 4 \([\d.]+(?:-[\d.]+)?x\), and gpt-oss-120b's 1024 \+ 8192 and 1024 \+ 32768 runs on the GB200 \([\d.]+-[\d.]+x\); vLLM's median TTFT and TPOT at 1-10 requests\/s are forecast at ([\d.]+)-([\d.]+)x of the measured times, faster too/,
  );
  assert.ok(m, note);
  // the only Blackwell rows are those: TensorRT-LLM's, NVFP4 or gpt-oss's MXFP4 experts, and vLLM's
  // BF16 Llama 3.1 70B at TP 4 (its median TTFT and TPOT)
  const all = CHECKS_MD.split('\n')
    .map((line) => line.split('|').map((c) => c.trim()))
    .filter((c) => ['b200', 'gb200', 'rtx-5090'].includes(c[3]) && Number.isFinite(ratio(c))); // refused: no ratio
  const vllm = all.filter((c) => c[2].includes('vllm'));
  const blackwell = all.filter((c) => !vllm.includes(c));
  assert.equal(blackwell.length, Number(m[1]));
  assert.ok(
    blackwell.every((c) => (c[5].startsWith('fp4') || c[5].includes('weights mxfp4')) && c[1].startsWith('trt')),
  );
  assert.equal(vllm.length, 6);
  for (const c of vllm) {
    assert.ok(c[3] === 'b200' && c[4] === 'llama3.1-70b' && c[5] === 'bf16' && c[6] === '4', c[1]);
    assert.ok(faster(c) && /^(TTFT|TPOT) p50 \(ms\)$/.test(c[11]), c[1]);
  }
  const times = vllm.map(ratio);
  assert.ok(
    Math.abs(Math.min(...times) - Number(m[13])) < 0.005 && Math.abs(Math.max(...times) - Number(m[14])) < 0.005,
  );
  // the runs below 1: as many as the note says, of the models and GPUs it names
  const below = blackwell.filter((c) => !faster(c));
  assert.equal(blackwell.length - below.length, Number(m[2]));
  assert.equal(below.length, Number(m[7]));
  const count = (f) => below.filter(f).length;
  assert.equal(
    count((c) => c[4] === 'qwen3-30b-a3b'),
    Number(m[8]),
  );
  assert.equal(
    count((c) => c[4] === 'deepseek-r1'),
    Number(m[9]),
  );
  assert.equal(
    count((c) => c[4] === 'qwen3-235b-a22b'),
    Number(m[10]),
  );
  assert.equal(
    count((c) => c[4] === 'llama3.3-70b'),
    Number(m[11]),
  );
  assert.equal(
    count((c) => c[4] === 'llama3.3-70b' && c[3] === 'gb200'),
    Number(m[12]),
  );
  assert.equal(
    count((c) => c[4] === 'gpt-oss-120b' && c[3] === 'gb200'),
    2,
  );
  assert.equal(
    below.length,
    count((c) => ['qwen3-30b-a3b', 'deepseek-r1', 'qwen3-235b-a22b', 'llama3.3-70b', 'gpt-oss-120b'].includes(c[4])),
  );
  const med = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2;
  };
  const dense = blackwell.filter((c) => !MIXTURES.includes(c[4])).map(ratio);
  assert.ok(Math.abs(med(dense) - Number(m[3])) < 0.05, `dense median ${med(dense)}`);
  const gptOss = blackwell.filter((c) => c[4].startsWith('gpt-oss')).map(ratio);
  assert.ok(gptOss.length >= 10);
  assert.ok(Math.abs(med(gptOss) - Number(m[4])) < 0.05, `gpt-oss median ${med(gptOss)}`);
  assert.ok(Math.abs(Math.min(...gptOss) - Number(m[5])) < 0.05 && Math.abs(Math.max(...gptOss) - Number(m[6])) < 0.05);
});

test('the mixtures-of-experts serving note agrees with their published runs', () => {
  const note = JSON.parse(fs.readFileSync(path.join(REPO, 'core/data/engines/serving.json'), 'utf8')).checks_mixtures;
  // the note's multiples are the forecast's speed over the measured one: a rate's ratio, a time's inverse
  const speed = (c) => (isTime(c) ? 1 / ratio(c) : ratio(c));
  const but = note.match(/are forecast faster than measured but (\d+) of them:/);
  assert.ok(but, note);
  const rows = CHECKS_MD.split('\n')
    .map((line) => line.split('|').map((c) => c.trim()))
    .filter((c) => c.length > 10 && MIXTURES.includes(c[4]) && Number.isFinite(ratio(c))); // refused: no ratio
  for (const model of MIXTURES) {
    const m = note.match(new RegExp(`${model} ([\\d.]+)-([\\d.]+)x \\(median ([\\d.]+)x\\)`, 'i'));
    assert.ok(m, `${model} in: ${note}`);
    const ratios = rows
      .filter((c) => c[4] === model)
      .map(speed)
      .sort((a, b) => a - b);
    assert.ok(ratios.length >= 3, `${model}: ${ratios.length} rows`);
    const median = (ratios[(ratios.length - 1) >> 1] + ratios[ratios.length >> 1]) / 2;
    assert.ok(Math.abs(ratios[0] - Number(m[1])) < 0.05, `${model} lowest ${ratios[0]}`);
    assert.ok(Math.abs(ratios.at(-1) - Number(m[2])) < 0.05, `${model} highest ${ratios.at(-1)}`);
    assert.ok(Math.abs(median - Number(m[3])) < 0.05, `${model} median ${median}`);
  }
  assert.equal(rows.filter((c) => !faster(c)).length, Number(but[1]));
});

test('the short-prompt note agrees with the published first-token times', () => {
  const note = JSON.parse(
    fs.readFileSync(path.join(REPO, 'core/data/engines/serving.json'), 'utf8'),
  ).checks_short_prompt;
  const m = note.match(
    /; (\d+) runs\) took ([\d.]+)-([\d.]+)x the time this kind of forecast gives \(median ([\d.]+)x\), (\d+) of them longer: on the H200 ([\d.]+)-([\d.]+)x, the H100 ([\d.]+)-([\d.]+)x, the A100 ([\d.]+)-([\d.]+)x, the L40S ([\d.]+)-([\d.]+)x,.*\(their 2,048-token prompts: median ([\d.]+)x\)/,
  );
  assert.ok(m, note);
  // the static table's first-token rows (columns: prompt 8, metric 10, published 11, tilecast 12)
  const ttft = CHECKS_MD.split('## Loaded rows')[0]
    .split('\n')
    .map((line) => line.split('|').map((c) => c.trim()))
    .filter((c) => c[10] === 'TTFT (ms)' && Number.isFinite(ratio(c)));
  const slower = (c) => Number(c[11].replace(/,/g, '')) / Number(c[12].replace(/,/g, '')); // measured / forecast
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2;
  };
  const near = (x, printed, what) =>
    assert.ok(Math.abs(x - Number(printed)) < 0.01, `${what}: ${x} against ${printed}`);
  const short = ttft.filter((c) => Number(c[8]) <= 256);
  assert.ok(
    short.every((c) => Number(c[8]) === 128),
    'the note speaks of 128-token prompts',
  );
  assert.equal(short.length, Number(m[1]));
  near(Math.min(...short.map(slower)), m[2], 'lowest');
  near(Math.max(...short.map(slower)), m[3], 'highest');
  near(median(short.map(slower)), m[4], 'median');
  assert.equal(short.filter((c) => slower(c) > 1).length, Number(m[5]));
  const gpus = { h200: [6, 7], 'h100-sxm': [8, 9], 'a100-80gb-sxm': [10, 11], l40s: [12, 13] };
  assert.equal(new Set(short.map((c) => c[3])).size, Object.keys(gpus).length, 'every GPU of the rows named');
  for (const [gpu, [lo, hi]] of Object.entries(gpus)) {
    const x = short.filter((c) => c[3] === gpu).map(slower);
    near(Math.min(...x), m[lo], `${gpu} lowest`);
    near(Math.max(...x), m[hi], `${gpu} highest`);
  }
  const long = ttft.filter((c) => Number(c[8]) > 256);
  assert.ok(long.every((c) => Number(c[8]) === 2048));
  near(median(long.map(slower)), m[14], 'the 2,048-token median');
});

test('the Hopper serving note agrees with the H100 and H200 runs it names', () => {
  const engine = JSON.parse(fs.readFileSync(path.join(REPO, 'core/data/engines/serving.json'), 'utf8'));
  const note = engine.checks_by_architecture.Hopper;
  const m = note.match(
    /lead over the H100 comes out larger than measured, about ([\d.]+)x against ([\d.]+)x at the median \(Llama 3\.1 8B's compute-bound runs, 128 or 2048 prompt tokens and 128 output: equal within (\d+) % measured, the H200 about (\d+) % ahead forecast\)/,
  );
  assert.ok(m, note);
  // the table's rows by id; each trt1-h200-* run with its trt1-h100-* twin (same model and lengths)
  const rows = new Map(
    CHECKS_MD.split('\n')
      .map((line) => line.split('|').map((c) => c.trim()))
      .filter((c) => c.length > 10 && c[1].startsWith('trt1-h'))
      .map((c) => [c[1], c]),
  );
  const value = (c, k) => Number(c[k].replace(/,/g, ''));
  const pairs = [...rows.keys()]
    .filter((id) => id.startsWith('trt1-h200-') && rows.has(id.replace('h200', 'h100')))
    .map((id) => [rows.get(id.replace('h200', 'h100')), rows.get(id)]);
  assert.ok(pairs.length >= 10, `${pairs.length} H100/H200 pairs`);
  // published and forecast H200/H100 ratios (columns: published, tilecast)
  const med = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2;
  };
  const published = pairs.map(([a, b]) => value(b, 12) / value(a, 12));
  const forecast = pairs.map(([a, b]) => value(b, 13) / value(a, 13));
  assert.ok(Math.abs(med(forecast) - Number(m[1])) < 0.05, `forecast median ${med(forecast)}`);
  assert.ok(Math.abs(med(published) - Number(m[2])) < 0.05, `published median ${med(published)}`);
  // Llama 3.1 8B's compute-bound pairs: 128/128 and 2048/128
  const bound = pairs.filter(([a]) => /^trt1-h100-l31-8b-.*-(128|2048)-128$/.test(a[1]));
  assert.equal(bound.length, 2);
  for (const [a, b] of bound) {
    assert.ok(Math.abs(value(b, 12) / value(a, 12) - 1) < Number(m[3]) / 100, `${b[1]} published`);
    assert.ok(Math.abs(value(b, 13) / value(a, 13) - 1 - Number(m[4]) / 100) < 0.03, `${b[1]} forecast`);
  }
});

test("the loaded forecasts' checks note agrees with the loaded rows", () => {
  const note = JSON.parse(fs.readFileSync(path.join(REPO, 'core/data/engines/serving.json'), 'utf8')).checks_loaded;
  const m = note.match(
    /of the (\d+) published runs under load .* the (\d+) outside the Blackwell runs and the mixtures of experts are forecast within ([\d.]+) % of the measured figure at the median, the middle 80 % of them between ([\d.]+)x and ([\d.]+)x of it; every Blackwell run and every mixture of experts' run is forecast faster than measured but (\d+)/,
  );
  assert.ok(m, note);
  // the loaded table's rows: from its heading to the next
  const loaded = CHECKS_MD.split('## Loaded rows')[1]
    .split('\n## ')[0]
    .split('\n')
    .map((line) => line.split('|').map((c) => c.trim()))
    .filter((c) => c.length > 10 && c[1] !== 'id' && !c[1].startsWith('---'));
  assert.equal(loaded.length, Number(m[1]));
  const apart = loaded.filter((c) => ['b200', 'gb200'].includes(c[3]) || MIXTURES.includes(c[4]));
  assert.equal(apart.filter((c) => !faster(c)).length, Number(m[6]));
  const rest = loaded
    .filter((c) => !apart.includes(c))
    .map(ratio)
    .sort((a, b) => a - b);
  assert.equal(rest.length, Number(m[2]));
  const errors = rest.map((r) => Math.abs(r - 1)).sort((a, b) => a - b);
  const median = (errors[(errors.length - 1) >> 1] + errors[errors.length >> 1]) / 2;
  assert.ok(Math.abs(100 * median - Number(m[3])) < 0.5, `median error ${median}`);
  // the middle 80 %: the ratios at the 10th and 90th percentiles (nearest rank below)
  const at = (p) => rest[Math.floor(p * (rest.length - 1))];
  assert.ok(
    Math.abs(at(0.1) - Number(m[4])) < 0.005 && Math.abs(at(0.9) - Number(m[5])) < 0.005,
    `${at(0.1)}-${at(0.9)}`,
  );
  // the band's count: the loaded table's band cells ("low–high", "(outside)" after a miss)
  const b = note.match(/80% band \(every step at the whole-model band's edges\) held (\d+) of the (\d+) figures/);
  assert.ok(b, note);
  const banded = loaded.map((c) => c[c.length - 4]).filter((cell) => cell.includes('–'));
  assert.equal(banded.length, Number(b[2]));
  assert.equal(banded.filter((cell) => !cell.includes('(outside)')).length, Number(b[1]));
});

test('the AMD FP8 transfer note agrees with the published MI300X FP8 run', () => {
  const note = transferNote('AMD', 'fp8');
  const m = note.match(
    /batches of 1-16 sequences come out up to (\d+) % slow, batches of 64 and more and its offline runs (\d+)-(\d+) % too fast/,
  );
  assert.ok(m, note);
  const [slow, fastLow, fastHigh] = m.slice(1).map(Number);
  const rows = tableRows(['mi300x'], 'fp8');
  // static rows give a batch (column 7), loaded ones "N clients"
  const small = rows.filter((c) => /^\d+$/.test(c[7]) && Number(c[7]) <= 16);
  const large = rows.filter((c) => (/^\d+$/.test(c[7]) && Number(c[7]) >= 64) || c[7].endsWith('clients'));
  assert.ok(small.length >= 5 && large.length >= 5, `${small.length} small, ${large.length} large`);
  // the note's figures are the table's rounded ratios: the slowest small batch, the large runs' span
  const near = (x, y) => Math.abs(x - y) < 0.005;
  for (const c of small) assert.ok(ratio(c) >= 1 - slow / 100 - 0.005 && ratio(c) < 1, `${c[1]}: ${ratio(c)}`);
  assert.ok(near(Math.min(...small.map(ratio)), 1 - slow / 100), `slowest ${Math.min(...small.map(ratio))}`);
  for (const c of large)
    assert.ok(ratio(c) >= 1 + fastLow / 100 - 0.005 && ratio(c) <= 1 + fastHigh / 100 + 0.005, `${c[1]}: ${ratio(c)}`);
  assert.ok(
    near(Math.min(...large.map(ratio)), 1 + fastLow / 100) && near(Math.max(...large.map(ratio)), 1 + fastHigh / 100),
  );
});

test('the AMD FP8 transfer note agrees with the published MI355X runs', () => {
  const note = transferNote('AMD', 'fp8');
  const m = note.match(
    /1k-4k-token prompts at 4-32 clients come out at ([\d.]+)-([\d.]+)x of the measured throughput and ([\d.]+)-([\d.]+)x of the time per output token, their TTFT ([\d.]+)-([\d.]+)x; 16k-64k-token prompts ([\d.]+)-([\d.]+)x of the throughput, their TTFT ([\d.]+)-([\d.]+)x/,
  );
  assert.ok(m, note);
  const rows = tableRows(['mi355x'], 'fp8');
  assert.ok(rows.length >= 10, `${rows.length} MI355X FP8 rows`);
  // loaded rows: column 9 is the prompt length
  const short = rows.filter((c) => Number(c[9].replace(/,/g, '')) <= 4096);
  const long = rows.filter((c) => !short.includes(c));
  const expect = (cs, re, lo, hi) => {
    const [a, b] = ratioSpan(cs, re);
    assert.ok(Math.abs(a - Number(lo)) < 0.005 && Math.abs(b - Number(hi)) < 0.005, `${re}: ${a}-${b}`);
  };
  expect(short, /tokens\/s/, m[1], m[2]);
  expect(short, /^TPOT/, m[3], m[4]);
  expect(short, /^TTFT/, m[5], m[6]);
  expect(long, /tokens\/s/, m[7], m[8]);
  expect(long, /^TTFT/, m[9], m[10]);
});

test('the AMD half-precision transfer note agrees with the published MI300X BF16 run', () => {
  const note = transferNote('AMD', 'bf16');
  const m = note.match(
    /forecast at ([\d.]+)x its measured throughput, its times per output token at ([\d.]+)-([\d.]+)x and first-token times at ([\d.]+)-([\d.]+)x/,
  );
  assert.ok(m, note);
  // the dense run: MI300X BF16 rows of a model without experts (gpt-oss's rows are BF16 too)
  const rows = tableRows(['mi300x'], 'bf16').filter((c) => !MIXTURES.includes(c[4]) && Number.isFinite(ratio(c)));
  assert.ok(rows.length >= 6, `${rows.length} dense MI300X BF16 rows`);
  const near = (x, y) => Math.abs(x - Number(y)) < 0.005;
  const [t0, t1] = ratioSpan(rows, /tokens\/s/);
  assert.ok(near(t0, m[1]) && near(t1, m[1]), `throughput ${t0}-${t1}`);
  const [p0, p1] = ratioSpan(rows, /^TPOT/);
  assert.ok(near(p0, m[2]) && near(p1, m[3]), `TPOT ${p0}-${p1}`);
  const [f0, f1] = ratioSpan(rows, /^TTFT/);
  assert.ok(near(f0, m[4]) && near(f1, m[5]), `TTFT ${f0}-${f1}`);
});
