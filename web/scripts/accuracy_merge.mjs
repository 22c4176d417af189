// Merges the evaluations scripts/accuracy_report.sh ran (JSON files in --work DIR) with the
// committed outputs of the long ones (docs/generalization.json, docs/fp16-cross-gpu.json,
// docs/amd-cross-gpu.json: `make eval-generalization`) into the site's accuracy report.
// Usage: node accuracy_merge.mjs --version V --work DIR > accuracy.json
// Every row says how its GPU relates to the training data of the models that forecast it,
// from the models' manifests (core/data/models/*/manifest.json). The report's shape is defined
// in web/src/accuracy_report.js; a report that does not fit it is refused.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { shapeProblems } from '../src/accuracy_report.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const work = arg('work');
if (!work) {
  console.error('usage: accuracy_merge.mjs --version V --work DIR');
  process.exit(2);
}
const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const inWork = (name) => readJson(path.join(work, name));
const inWorkIf = (name) => (fs.existsSync(path.join(work, name)) ? inWork(name) : null);
const inRepo = (name) => readJson(path.join(REPO, name));
const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const sum = (xs) => xs.reduce((s, x) => s + x, 0);

// ---- What each model was trained on (its manifest) and which GPUs share an architecture (the
// GPU catalog's `architecture`, found by the GPU's name or an alias).
const catalog = fs
  .readdirSync(path.join(REPO, 'gpu_catalog'))
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ id: f.slice(0, -5), ...inRepo(`gpu_catalog/${f}`) }));
const archOf = new Map(catalog.flatMap((g) => [g.name, ...(g.aliases ?? [])].map((n) => [n, g.architecture])));
const nameOfId = new Map(catalog.map((g) => [g.id, g.name]));
const manifests = fs
  .readdirSync(path.join(REPO, 'core/data/models'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => inRepo(`core/data/models/${d.name}/manifest.json`));
const generalization = inRepo('docs/generalization.json');
const vendorOf = (gpu) => (/^AMD /.test(gpu) ? 'AMD' : 'NVIDIA');
// The GPUs the models serving `gpu` at `precision` learned from (the vendor's own models, else
// the ones that serve any vendor, else the ones that transfer to it, e.g. FP8 GEMMs).
function trainedOn(gpu, precision) {
  const serving = manifests.filter((m) => m.precisions.includes(precision));
  const own = serving.filter((m) => m.vendor === vendorOf(gpu));
  const transfer = manifests.filter((m) =>
    (m.transfers ?? []).some((t) => t.vendor === vendorOf(gpu) && t.precisions.includes(precision)),
  );
  const chosen = own.length
    ? own
    : serving.some((m) => m.serves_any_vendor)
      ? serving.filter((m) => m.serves_any_vendor)
      : transfer;
  return { ids: chosen.map((m) => m.id), gpus: new Set(chosen.flatMap((m) => m.trained_on)) };
}
// One phrase per row: trained on it, an unseen GPU of a trained architecture, or an unseen one.
function training(gpu, precision) {
  const t = trainedOn(gpu, precision);
  if (t.gpus.has(gpu)) return `trained on (${t.ids.join(' + ')})`;
  const arch = archOf.get(gpu);
  const mates = [...t.gpus].filter((g) => arch && archOf.get(g) === arch);
  if (mates.length) return `not trained on; same architecture (${arch}) as ${mates.join(', ')}`;
  return 'not trained on; an architecture no training GPU has';
}
const trainedList = (precision, vendor) => [...trainedOn(vendor === 'AMD' ? 'AMD x' : 'x', precision).gpus].join(', ');

// ---- The generalization protocol (committed run of `make eval-generalization`).
const OP_NAMES = { elementwise: 'element-wise', layernorm: 'ln' };
const foldTraining = (f, gpu) =>
  f.model.startsWith('trained without')
    ? `held out: fold retrained without ${f.gpus.join(', ')}`
    : `full model: ${training(gpu, 'fp32')}`;
const generalizationSection = {
  about: {
    title: 'Leave one architecture out (the generalization protocol)',
    data:
      "NeuSight's kernel test rows and whole-model labels (../shared/data/neusight); the H200's FP32 " +
      'kernels and labels measured here (data/measured/h200, fp32 runs); the AMD labels',
    protocol: generalization.protocol,
    training:
      'For each architecture among the training GPUs (Pascal, Volta, Turing, Ampere) the kernel models are ' +
      "retrained (seed 1) without that architecture's GPUs, then its rows are forecast. The H200 (Hopper) " +
      'and the AMD GPUs are forecast by the full models: the H200 is in no training set; the AMD rows ' +
      'use the AMD models, trained on these two GPUs. Errors: (forecast - measured) / measured; signed < 0: too fast.',
    command: `${generalization.command} (committed output: docs/generalization.json)`,
  },
  hash: generalization.hash,
  kernels: generalization.folds.flatMap((f) =>
    f.kernels.map((k) => ({
      fold: f.name,
      gpu: k.gpu,
      training: foldTraining(f, k.gpu),
      op: OP_NAMES[k.group] ?? k.group,
      n: k.n,
      mape_pct: k.mape_pct,
      signed_mean_pct: k.signed_mean_pct,
      roofline_mape_pct: k.roofline_mape_pct,
    })),
  ),
  e2e: generalization.folds.flatMap((f) =>
    f.e2e.map((e) => ({
      fold: f.name,
      gpu: e.gpu,
      training: foldTraining(f, e.gpu),
      mode: e.mode,
      n: e.n,
      mae_pct: e.mae_pct,
      signed_mean_pct: e.signed_mean_pct,
      max_abs_pct: e.max_abs_pct,
      roofline_mae_pct: e.roofline_mae_pct,
    })),
  ),
  bands: generalization.folds.map((f) => ({ fold: f.name, ...f.bands })),
};

// ---- Kernel and whole-model runs of the CLI.
const kernelGroups = (groups, precision) =>
  (groups ?? []).map((g) => ({
    gpu: g.gpu,
    training: training(g.gpu, precision),
    op: g.op,
    n: g.n,
    mape_pct: g.mape_pct,
    roofline_mape_pct: g.roofline_mape_pct,
  }));
const e2eSummary = (summary, precision) =>
  (summary ?? []).map((s) => ({
    gpu: s.gpu,
    training: training(s.gpu, precision),
    mode: s.mode,
    option: s.option ?? '',
    n: s.n,
    mean_abs_error_pct: s.mean_abs_error_pct,
    roofline_mean_abs_error_pct: s.roofline_mean_abs_error_pct,
    max_abs_error_pct: s.max_abs_error_pct,
  }));
const weightedMape = (groups, field = 'mape_pct') => {
  const n = sum(groups.map((g) => g.n));
  return n ? sum(groups.map((g) => g[field] * g.n)) / n : null;
};

// ---- The H200 measured here.
const H200 = 'data/measured/h200';
// Label files as [device folder, file name].
const labelFiles = (run) => {
  const dir = path.join(REPO, H200, run, 'labels');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .sort()
    .flatMap((d) =>
      fs
        .readdirSync(path.join(dir, d))
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => [d, f]),
    );
};
// Whole-model cases inside their forecast's 80% band, of those with one ({inside, banded}).
const bandCoverage = (cases) => {
  const banded = cases.filter((c) => c.band_low_ms != null && c.band_high_ms != null);
  return {
    labels_banded: banded.length,
    labels_inside_band: banded.filter((c) => c.band_low_ms <= c.measured_ms && c.measured_ms <= c.band_high_ms).length,
  };
};
// The BF16 labels `tilecast forecast --precision bf16` forecast (scripts/accuracy_report.sh),
// as eval-e2e's cases have them (measured_ms and the forecast's band).
const bf16Cases = (run) =>
  labelFiles(run).flatMap(([d, f]) => {
    const forecast = inWorkIf(`h200/${run}/labels/${f}`);
    if (!forecast) return [];
    const measured = readJson(path.join(REPO, H200, run, 'labels', d, f)).e2e_latency;
    return [
      {
        mode: forecast.mode,
        measured_ms: measured,
        tilecast: forecast.latency_ms,
        roofline: forecast.roofline_latency_ms,
        band_low_ms: forecast.band_low_ms,
        band_high_ms: forecast.band_high_ms,
      },
    ];
  });
// One summary row per mode, as eval-e2e gives for FP32 labels.
function bf16Labels(cases) {
  const err = (v, m) => (100 * Math.abs(v - m)) / m;
  return [...new Set(cases.map((c) => c.mode))].map((mode) => {
    const rows = cases.filter((c) => c.mode === mode);
    const mean = (xs) => sum(xs) / xs.length;
    return {
      gpu: 'NVIDIA H200',
      training: training('NVIDIA H200', 'bf16'),
      mode,
      option: 'bf16',
      n: rows.length,
      mean_abs_error_pct: mean(rows.map((c) => err(c.tilecast, c.measured_ms))),
      roofline_mean_abs_error_pct: mean(rows.map((c) => err(c.roofline, c.measured_ms))),
      max_abs_error_pct: Math.max(...rows.map((c) => err(c.tilecast, c.measured_ms))),
    };
  });
}
const fp32Run = (run) => {
  const e2e = inWork(`h200/${run}-e2e.json`);
  const k = inWork(`h200/${run}-kernels.json`);
  const evaluated = sum((e2e.summary ?? []).map((s) => s.n));
  const D = `${H200}/${run}`;
  return {
    run,
    precision: 'fp32',
    command:
      `tilecast eval-kernels --devices ${D}/devices ${D}/kernels/*.csv; ` +
      `tilecast eval-e2e --devices ${D}/devices --models ${D}/models --labels ${D}/labels`,
    kernels: kernelGroups(k.groups, 'fp32'),
    kernels_overall_mape_pct: num(k.overall_mape_pct),
    kernels_overall_roofline_mape_pct: weightedMape(k.groups ?? [], 'roofline_mape_pct'),
    kernels_not_evaluated: [],
    e2e: e2eSummary(e2e.summary, 'fp32'),
    labels_not_evaluated: labelFiles(run).length - evaluated,
    ...bandCoverage(e2e.cases ?? []),
  };
};
const csvRows = (file) => fs.readFileSync(file, 'utf8').trim().split('\n').length - 1;
const bf16Run = (run) => {
  const D = `${H200}/${run}`;
  const ops = fs
    .readdirSync(path.join(REPO, D, 'kernels-bf16'))
    .filter((f) => f.endsWith('.csv'))
    .map((f) => f.slice(0, -4))
    .sort();
  const groups = [];
  const missing = [];
  for (const op of ops) {
    const r = inWorkIf(`h200/${run}/${op}.json`);
    if (r) groups.push(...kernelGroups(r.groups, 'bf16'));
    else {
      const err =
        fs
          .readFileSync(path.join(work, `h200/${run}/${op}.err`), 'utf8')
          .trim()
          .split('\n')
          .pop() ?? '';
      missing.push({
        op,
        n: csvRows(path.join(REPO, D, 'kernels-bf16', `${op}.csv`)),
        why: err.replace(/^tilecast eval-kernels: error: /, '').replace(/;.*$/, ''),
      });
    }
  }
  const cases = bf16Cases(run);
  const e2e = bf16Labels(cases);
  const labelsRun = sum(e2e.map((e) => e.n));
  return {
    run,
    precision: 'bf16',
    command:
      `tilecast eval-kernels --devices ${D}/devices --model nvidia-fp32 --model nvidia-half --model nvidia-half-gemm ${D}/kernels-bf16/OP.csv (each op)` +
      (labelsRun
        ? `; each label: tilecast forecast --gpu 'NVIDIA H200' --model ${D}/models/MODEL.json --mode inference --seq S --batch B --precision bf16 (training: --mode training --master-weights half)`
        : ''),
    kernels: groups,
    kernels_overall_mape_pct: weightedMape(groups),
    kernels_overall_roofline_mape_pct: weightedMape(groups, 'roofline_mape_pct'),
    kernels_not_evaluated: missing,
    e2e,
    labels_not_evaluated: labelFiles(run).length - labelsRun,
    ...bandCoverage(cases),
  };
};
const h200Section = {
  about: {
    title: 'NVIDIA H200 (Hopper), measured by this project',
    data: `${H200} (measured with scripts/measure/measure.py on a lent H200; ${H200}/README.md)`,
    protocol:
      'Shipped models as embedded. FP32 runs: eval-kernels (MAPE per op) and eval-e2e (mean absolute error of ' +
      'whole-model latency). BF16 runs: kernels by the FP16/BF16 models, softmax by the FP32 nets transferred (PyTorch-profiler timings of random, ' +
      'mostly unaligned shapes). The BF16 whole-model labels are pure-BF16 models (weights and activations in ' +
      'BF16), forecast one by one with tilecast forecast --precision bf16 (eval-e2e reads FP32 labels only), the ' +
      'training ones with --master-weights half (every kernel, gradient and Adam state in BF16, no autocast).',
    training: `Validation only: no model was trained on the H200, and no training GPU is a Hopper (FP32 models: ${trainedList('fp32')}; BF16 models: ${trainedList('bf16')}).`,
    command: 'make reports (scripts/accuracy_report.sh runs the commands each run names)',
  },
  runs: [
    ...['fp32-seed0', 'fp32-seed1', 'fp32-seed2-switch'].map(fp32Run),
    ...['bf16-seed0', 'bf16-seed0-labels'].map(bf16Run),
  ],
};

// ---- FP16 operators: across A100 <-> A40 (committed), and on the training GPUs themselves.
const fp16x = { c: inRepo('docs/fp16-cross-gpu.json'), name: (id) => nameOfId.get(id) ?? id };
const fp16CrossSection = {
  about: {
    title: 'FP16 operators across GPUs: train on one, forecast the other',
    data: `vidur's FP16 per-operator timings of LLM layers (${fp16x.c.data}): CUDA-event timings of aligned shapes`,
    protocol:
      'MAPE per operator (tilecast eval-ops), roofline beside; GEMMs by the analytic tensor-core model as shipped, ' +
      'the learned GEMM net of the same run beside it (projections only).',
    training:
      'Held out: each direction retrains the FP16 models (seed 1) on the one GPU and forecasts every row of the other.',
    command: `${fp16x.c.command} (committed output: docs/fp16-cross-gpu.json)`,
  },
  rows: fp16x.c.directions.flatMap((d) => {
    const net = new Map((d.learned_gemm?.groups ?? []).map((g) => [g.op, g]));
    return d.analytic_gemm.groups.map((g) => ({
      train_gpu: fp16x.name(d.train_gpu),
      test_gpu: g.gpu,
      training: `held out: trained on ${fp16x.name(d.train_gpu)} only`,
      op: g.op,
      n: g.n,
      mape_pct: g.mape_pct,
      roofline_mape_pct: g.roofline_mape_pct,
      learned_gemm_mape_pct: g.op.endsWith('_proj') ? num(net.get(g.op)?.mape_pct) : null,
    }));
  }),
  overall: fp16x.c.directions.map((d) => ({
    train_gpu: fp16x.name(d.train_gpu),
    test_gpu: fp16x.name(d.test_gpu),
    mape_pct: d.analytic_gemm.overall_mape_pct,
  })),
};
const fp16Ops = ['a100', 'a40'].map((g) => inWork(`fp16-${g}.json`));
const fp16Section = {
  about: {
    title: "FP16 operators on the FP16 models' own training GPUs",
    data: "vidur's FP16 per-operator timings (../shared/data/vidur/compute/a100, a40)",
    protocol: 'MAPE per operator over every row (tilecast eval-ops), roofline beside.',
    training: `In distribution: the shipped FP16 models were trained on these rows (${trainedList('fp16')}); see the cross-GPU table for a held-out figure.`,
    command:
      'tilecast eval-ops --gpu a100-80gb-sxm --vidur ../shared/data/vidur/compute/a100; ' +
      'tilecast eval-ops --gpu a40 --vidur ../shared/data/vidur/compute/a40',
  },
  groups: fp16Ops.flatMap((r) => kernelGroups(r.groups, 'fp16')),
  overall: fp16Ops.map((r) => ({ gpu: r.groups[0]?.gpu ?? '', mape_pct: r.overall_mape_pct })),
};

// ---- AMD models across MI100 <-> MI210 (committed).
const amdx = inRepo('docs/amd-cross-gpu.json');
const amdCrossSection = {
  about: {
    title: 'AMD Instinct kernels across GPUs: train on one, forecast the other',
    data: `NeuSight's MI100 and MI210 kernel rows (${amdx.data}): GEMMs from the test files, vector ops from the other GPU's training files`,
    protocol: `MAPE per op (tilecast eval-kernels with the retrained AMD models; GEMMs by the ${amdx.gemm} model), roofline beside.`,
    training: 'Held out: each direction retrains the AMD models (seed 1) without the other GPU.',
    command: `${amdx.command} (committed output: docs/amd-cross-gpu.json)`,
  },
  rows: amdx.directions.flatMap((d) =>
    d.eval.groups.map((g) => ({
      train_gpu: d.train_gpu,
      test_gpu: g.gpu,
      training: `held out: trained on ${d.train_gpu} only`,
      op: g.op,
      n: g.n,
      mape_pct: g.mape_pct,
      roofline_mape_pct: g.roofline_mape_pct,
    })),
  ),
  // The held-out GPU's kernels inside the 80% bands their forecasts carry (eval-kernels' band).
  bands: amdx.directions
    .filter((d) => d.eval.band)
    .map((d) => ({
      train_gpu: d.train_gpu,
      test_gpu: d.test_gpu,
      n: d.eval.band.n,
      inside_pct: d.eval.band.inside_pct,
      mean_width_pct: d.eval.band.mean_width_pct,
    })),
};

// ---- Serving against published measurements.
const serving = inWork('serving.json');
const median = (xs) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const servingRows = serving.rows.map((r) => ({
  id: r.id,
  source: serving.sources[r.source]?.title ?? r.source,
  source_url: serving.sources[r.source]?.url ?? '',
  gpu: r.gpu,
  training: training(nameOfId.get(r.gpu) ?? r.gpu, r.precision),
  model: r.model,
  precision: r.precision,
  tp: r.tp,
  ep: r.ep ?? 1, // above 1: expert parallel with attention data parallel (serve --ep)
  load: r.load,
  prompt: r.prompt,
  output: r.output,
  metric: serving.metrics[r.metric] ?? r.metric,
  published: r.value,
  tilecast: r.tilecast,
  ratio: r.ratio,
  faithful: r.faithful,
  differs: r.differs ?? '',
  fits: r.fits,
  loaded: r.loaded,
  quantized: r.quantized,
}));
const servingSummary = (rows, label) => ({
  rows: label,
  n: rows.length,
  median_abs_error_pct: median(rows.map((r) => 100 * Math.abs(r.ratio - 1))),
});
const servingSection = {
  about: {
    title: 'Serving: tilecast serve beside published measurements',
    data: 'data/published/serving.json: published TensorRT-LLM, lmdeploy and vLLM figures, each with its source and setup',
    protocol:
      'Each row forecast with tilecast serve (optimised engine, its GPU, precision, tensor parallelism, lengths, and ' +
      'a static batch or a load: a request rate or clients, simulated); ratio = tilecast / published. Static rows whose ' +
      'engine does what tilecast models are summarised apart from the others, and loaded, tensor-parallel and ' +
      'quantized rows each apart (a row can be in more than one).',
    training:
      'No serving figure was used to fit anything (kernel models as shipped); each row says whether the kernel ' +
      'models of its GPU and precision were trained on that GPU.',
    command: 'make serving-checks (node scripts/serving_checks.mjs; docs/serving-checks.md)',
  },
  rows: servingRows,
  summary: [
    servingSummary(
      servingRows.filter((r) => !r.loaded && r.faithful),
      'static batches, engine as tilecast models it',
    ),
    servingSummary(
      servingRows.filter((r) => !r.loaded && !r.faithful),
      'static batches, engine differs',
    ),
    servingSummary(
      servingRows.filter((r) => r.loaded),
      'loaded (request streams at a rate or a client concurrency)',
    ),
    servingSummary(
      servingRows.filter((r) => r.tp > 1),
      'tensor parallelism 2-8',
    ),
    servingSummary(
      servingRows.filter((r) => r.quantized),
      'quantized (FP8, FP4, INT4/INT8 weights, FP8 KV cache)',
    ),
  ],
};

// ---- Megatron runs of Korthikanti et al. 2022.
const pub = inWork('published.json');
const pubGpu = /\bon (.+?) in /.exec(pub.assumptions)?.[1] ?? '';
const MEASURES = [
  ['layer_forward_ms', 'forecast_layer_forward_ms', 'layer forward (ms)', '%'],
  ['layer_backward_ms', 'forecast_layer_backward_ms', 'layer backward (ms)', '%'],
  ['iteration_s', 'forecast_iteration_s', 'iteration (s)', '%'],
  ['mfu_pct', 'forecast_mfu_pct', 'MFU (%)', 'points'],
];
const parallelSection = {
  about: {
    title: 'Parallel training: Megatron-LM runs of Korthikanti et al. 2022',
    data: '../shared/data/published/korthikanti-2022.json (per-layer times, iteration times and MFU of GPT 22B-1T on A100 80GB DGX nodes)',
    protocol: `Every published row forecast as the paper ran it (tilecast eval-published: ${pub.assumptions}). Errors: forecast vs published, % (MFU: points).`,
    training:
      `No figure is fitted to these runs; the GEMMs come from the FP16 kernel models, for ${pubGpu || 'this GPU'}: ` +
      `${training(pubGpu, 'fp16')}; the rest from datasheets.`,
    command: 'tilecast eval-published --file ../shared/data/published/korthikanti-2022.json',
  },
  rows: pub.rows.flatMap((r) =>
    MEASURES.filter(([m]) => num(r[m]) !== null).map(([m, f, label, unit]) => ({
      table: r.table,
      model: r.model,
      setup:
        `${r.gpus} GPUs: tp ${r.tp}, pp ${r.pp}, dp ${r.dp}` +
        (r.virtual_stages > 1 ? `, ${r.virtual_stages} virtual stages` : '') +
        `, sequence parallel ${r.sequence_parallel ? 'on' : 'off'}, recompute ${r.recompute}`,
      measure: label,
      published: r[m],
      tilecast: r[f],
      error: unit === '%' ? 100 * (r[f] / r[m] - 1) : r[f] - r[m],
      error_unit: unit,
    })),
  ),
  summary: {
    table4_max_abs_error_pct: num(pub.table4_max_abs_error_pct),
    table5_rows: pub.table5_rows,
    table5_max_abs_error_pct: num(pub.table5_max_abs_error_pct),
    table5_mae_pct: num(pub.table5_mae_pct),
    mfu_rows: pub.mfu_rows,
    mfu_max_abs_error_points: num(pub.mfu_max_abs_error_points),
    all_fit: pub.all_fit,
  },
};

// ---- NeuSight's GPUs.
const e2e = inWork('e2e.json');
const e2eRoof = inWorkIf('e2e-roofline.json');
const kernels = inWork('kernels.json');
const key = (c) => [c.gpu, c.model, c.mode, c.option ?? '', c.seq, c.batch].join('|');
const roofByKey = new Map((e2eRoof?.cases ?? []).map((c) => [key(c), c]));
const cases = (e2e.cases ?? []).map((c) => {
  const r = roofByKey.get(key(c));
  return {
    gpu: c.gpu,
    training: training(c.gpu, 'fp32'),
    model: c.model,
    mode: c.mode,
    option: c.option ?? '',
    batch: c.batch,
    seq: c.seq,
    measured_ms: num(c.measured_ms),
    tilecast_ms: num(c.predicted_ms),
    tilecast_error_pct: num(c.error_pct),
    roofline_ms: num(c.roofline_ms) ?? num(r?.predicted_ms),
    roofline_error_pct: num(c.roofline_error_pct) ?? num(r?.error_pct),
  };
});
// How many of a (GPU, op)'s test rows have a shape (B, M, N, K, H) its GPU also has in the
// training CSVs: what tells a held-out shape from a trained one.
function shapesInTraining() {
  const lines = (file) => fs.readFileSync(path.join(work, file), 'utf8').split('\n').filter(Boolean);
  const rows = function* (file) {
    const [head, ...body] = fs.readFileSync(path.resolve(REPO, file), 'utf8').trim().split(/\r?\n/);
    const cols = head.split(',');
    const at = (name) => cols.indexOf(name);
    const [dev, op, dims] = [at('Device'), at('OPName'), ['B', 'M', 'N', 'K', 'H'].map(at)];
    for (const line of body) {
      // The kernel name is quoted and may hold commas; the fields used are outside it.
      const f = line.replace(/"[^"]*"/g, '""').split(',');
      yield { gpu: f[dev], op: f[op], key: [f[dev], f[op], ...dims.map((i) => (i >= 0 ? f[i] : ''))].join('|') };
    }
  };
  const trained = new Set();
  for (const file of lines('train-csvs.txt')) for (const r of rows(file)) trained.add(r.key);
  const count = new Map();
  for (const file of lines('test-csvs.txt'))
    for (const r of rows(file)) {
      const k = `${r.gpu}|${r.op}`;
      count.set(k, (count.get(k) ?? 0) + (trained.has(r.key) ? 1 : 0));
    }
  return count;
}
const inTraining = shapesInTraining();
const groups = kernelGroups(kernels.groups, 'fp32').map((g) => ({
  ...g,
  shapes_in_training: inTraining.get(`${g.gpu}|${g.op}`) ?? 0,
}));
const total = sum(groups.map((g) => g.n));
const weighted = (field) => (total ? sum(groups.map((g) => g[field] * g.n)) / total : null);
const NEUSIGHT = '../shared/data/neusight';

// The catalog's architectures no evaluation here measured: their forecasts are extrapolations.
const measuredGpus = [
  ...generalizationSection.e2e.map((r) => r.gpu),
  ...generalizationSection.kernels.map((r) => r.gpu),
  ...h200Section.runs.flatMap((r) => [...r.kernels, ...r.e2e].map((x) => x.gpu)),
  ...fp16CrossSection.rows.flatMap((r) => [r.train_gpu, r.test_gpu]),
  ...amdCrossSection.rows.flatMap((r) => [r.train_gpu, r.test_gpu]),
  ...servingSection.rows.map((r) => nameOfId.get(r.gpu) ?? r.gpu),
  pubGpu,
  ...fp16Section.groups.map((g) => g.gpu),
  ...cases.map((c) => c.gpu),
  ...groups.map((g) => g.gpu),
];
const measuredArchs = new Set(measuredGpus.map((g) => archOf.get(g)).filter(Boolean));
const unmeasured = [...new Set(catalog.map((g) => g.architecture))]
  .filter((a) => !measuredArchs.has(a))
  .sort()
  .map((architecture) => ({
    architecture,
    gpus: catalog
      .filter((g) => g.architecture === architecture)
      .map((g) => g.name)
      .sort()
      .join(', '),
  }));

const report = {
  tilecast_version: arg('version') ?? null,
  generated_by: 'make reports (scripts/accuracy_report.sh)',
  dataset:
    "NeuSight's public measurements (../shared/data/neusight), the H200 measured here (data/measured/h200), " +
    "vidur's operator timings (../shared/data/vidur), published serving and Megatron figures",
  measured_architectures: [...measuredArchs].sort().join(', '),
  unmeasured_architectures: unmeasured,
  generalization: generalizationSection,
  h200: h200Section,
  fp16_cross_gpu: fp16CrossSection,
  amd_cross_gpu: amdCrossSection,
  serving: servingSection,
  parallel: parallelSection,
  fp16: fp16Section,
  e2e: {
    about: {
      title: "Whole models on NeuSight's GPUs",
      data: `NeuSight's whole-model labels (${NEUSIGHT}/labels): FP32 eager PyTorch, one GPU (4-GPU labels on dgx-a100; fusion: torch.compile)`,
      protocol: 'Mean absolute error of the forecast end-to-end latency (tilecast eval-e2e), roofline beside.',
      training:
        `Mostly in distribution: the FP32 models' kernels were trained on ${trainedList('fp32')} (the AMD models' on ` +
        `${trainedList('fp32', 'AMD')}); each row says whether its GPU is among them.`,
      command: `tilecast eval-e2e --devices ${NEUSIGHT}/devices --models ${NEUSIGHT}/models --labels ${NEUSIGHT}/labels`,
    },
    cases,
    summary: e2eSummary(e2e.summary, 'fp32'),
  },
  kernels: {
    about: {
      title: "Single kernels on NeuSight's GPUs",
      data: `NeuSight's kernel test files (${NEUSIGHT}/nvidia/kernels/test): FP32, shapes not in the training files`,
      protocol: 'MAPE per GPU and op (tilecast eval-kernels), roofline beside.',
      training:
        `Test shapes (each row counts those its GPU also has in the training CSVs), but on the training GPUs ` +
        `themselves (${trainedList('fp32')}): in distribution, not held out. Only the A100 80GB PCIe was never ` +
        'trained on, and it shares Ampere with the A100 40GB.',
      command: `tilecast eval-kernels --devices ${NEUSIGHT}/devices ${NEUSIGHT}/nvidia/kernels/test/*.csv`,
    },
    groups,
    overall_mape_pct: num(kernels.overall_mape_pct) ?? weighted('mape_pct'),
    roofline_overall_mape_pct:
      num(kernels.overall_roofline_mape_pct) ?? num(kernels.roofline_overall_mape_pct) ?? weighted('roofline_mape_pct'),
  },
};
const problems = shapeProblems(report);
if (problems.length) {
  console.error(
    `accuracy_merge: the report does not fit web/src/accuracy_report.js:\n  ${problems.slice(0, 20).join('\n  ')}`,
  );
  process.exit(1);
}
process.stdout.write(JSON.stringify(report, null, 1) + '\n');
