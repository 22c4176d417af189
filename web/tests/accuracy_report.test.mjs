// The committed accuracy report (web/public/accuracy.json) must fit its one shape
// (web/src/accuracy_report.js, from which the page's types are derived), be what
// scripts/accuracy_report.sh makes from the current weights and data, and carry the committed
// outputs of the long evaluations it summarises (make eval-generalization) as they are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO, CLI, requireFile } from './helpers.mjs';
import { REPORT_SHAPE, shapeProblems } from '../src/accuracy_report.js';

const readJson = (file) => JSON.parse(fs.readFileSync(path.join(REPO, file), 'utf8'));
const committedReport = () => readJson('web/public/accuracy.json');

test('web/public/accuracy.json has the shape the page reads', () => {
  const report = committedReport();
  assert.deepEqual(shapeProblems(report), []);
  assert.ok(report.e2e.cases.length > 0 && report.kernels.groups.length > 0);
  // Every evaluation is there, each saying what it is, out-of-architecture figures first.
  const sections = Object.keys(REPORT_SHAPE).filter((k) => REPORT_SHAPE[k].about);
  assert.deepEqual(sections.slice(0, 2), ['generalization', 'h200']);
  for (const k of sections) {
    for (const field of ['title', 'data', 'protocol', 'training', 'command'])
      assert.ok(report[k].about[field].length > 10, `${k}.about.${field}`);
  }
  assert.ok(report.generalization.kernels.length && report.generalization.e2e.length);
  // Every architecture of the GPU catalog is either measured or named as not measured.
  const archs = new Set(
    fs
      .readdirSync(path.join(REPO, 'gpu_catalog'))
      .filter((f) => f.endsWith('.json'))
      .map((f) => readJson(`gpu_catalog/${f}`).architecture),
  );
  const measured = report.measured_architectures.split(', ');
  assert.deepEqual(
    [...measured, ...report.unmeasured_architectures.map((u) => u.architecture)].sort(),
    [...archs].sort(),
  );
  assert.ok(measured.includes('Hopper') && measured.includes('CDNA 2'));
  assert.ok(report.h200.runs.some((r) => r.precision === 'fp32' && r.e2e.length && r.kernels.length));
  assert.ok(report.h200.runs.some((r) => r.precision === 'bf16' && r.kernels.length));
  for (const k of ['fp16_cross_gpu', 'amd_cross_gpu', 'serving', 'parallel', 'fp16'])
    assert.ok((report[k].rows ?? report[k].groups).length > 0, k);
});

test("every row's training label is what the models' manifests say", () => {
  const report = committedReport();
  const models = fs
    .readdirSync(path.join(REPO, 'core/data/models'), { withFileTypes: true })
    .filter((d) => d.isDirectory());
  const trainedOn = (id) => readJson(`core/data/models/${id}/manifest.json`).trained_on;
  const fp32 = new Set([...trainedOn('nvidia-fp32'), ...trainedOn('amd-fp32')]);
  assert.ok(models.length >= 3 && fp32.has('Tesla T4'));
  // NeuSight's kernel test rows: a training GPU's rows are in distribution, never "held out".
  for (const rows of [report.kernels.groups, report.e2e.summary, report.e2e.cases])
    for (const g of rows) {
      assert.equal(g.training.startsWith('trained on'), fp32.has(g.gpu), `${g.gpu}: ${g.training}`);
      assert.doesNotMatch(g.training, /held out/);
    }
  for (const g of report.kernels.groups) assert.ok(g.shapes_in_training >= 0 && g.shapes_in_training <= g.n);
  const a100 = report.kernels.groups.find((g) => g.gpu === 'NVIDIA A100 80GB PCIe');
  assert.match(a100.training, /^not trained on; same architecture \(Ampere\)/);
  for (const run of report.h200.runs)
    for (const k of run.kernels) assert.match(k.training, /^not trained on; an architecture no training GPU has/);
  for (const f of report.generalization.kernels)
    assert.match(
      f.training,
      f.fold.startsWith('Hopper') ? /^full model: not trained on/ : /^held out: fold retrained without/,
    );
  for (const r of [...report.fp16_cross_gpu.rows, ...report.amd_cross_gpu.rows]) {
    assert.notEqual(r.train_gpu, r.test_gpu);
    assert.equal(r.training, `held out: trained on ${r.train_gpu} only`);
  }
});

test('the sections made from committed long runs are those runs, on the current data', () => {
  const report = committedReport();
  // The generalization protocol (its inputs' hash is checked by ctest's generalization suite).
  const gen = readJson('docs/generalization.json');
  assert.equal(report.generalization.hash, gen.hash);
  assert.deepEqual(
    report.generalization.kernels.map((k) => [k.fold, k.gpu, k.n, k.mape_pct, k.signed_mean_pct, k.roofline_mape_pct]),
    gen.folds.flatMap((f) =>
      f.kernels.map((k) => [f.name, k.gpu, k.n, k.mape_pct, k.signed_mean_pct, k.roofline_mape_pct]),
    ),
  );
  assert.deepEqual(
    report.generalization.e2e.map((e) => [e.fold, e.gpu, e.mode, e.n, e.mae_pct, e.max_abs_pct, e.roofline_mae_pct]),
    gen.folds.flatMap((f) =>
      f.e2e.map((e) => [f.name, e.gpu, e.mode, e.n, e.mae_pct, e.max_abs_pct, e.roofline_mae_pct]),
    ),
  );
  assert.deepEqual(
    report.generalization.bands.map((b) => b.e2e_inside_pct),
    gen.folds.map((f) => f.bands.e2e_inside_pct),
  );
  // FP16 across GPUs: the committed run, over the rows the current vidur data has (the shipped
  // models' eval-ops run, regenerated by the report, counts them per op).
  const fp16x = readJson('docs/fp16-cross-gpu.json');
  assert.deepEqual(
    report.fp16_cross_gpu.rows.map((r) => [r.test_gpu, r.op, r.n, r.mape_pct]),
    fp16x.directions.flatMap((d) => d.analytic_gemm.groups.map((g) => [g.gpu, g.op, g.n, g.mape_pct])),
  );
  const inDistribution = new Map(report.fp16.groups.map((g) => [`${g.gpu}|${g.op}`, g.n]));
  for (const r of report.fp16_cross_gpu.rows) assert.equal(r.n, inDistribution.get(`${r.test_gpu}|${r.op}`), r.op);
  // AMD across GPUs: the committed run, over the rows of the current CSVs of the GPU held out.
  const amdx = readJson('docs/amd-cross-gpu.json');
  assert.deepEqual(
    report.amd_cross_gpu.rows.map((r) => [r.test_gpu, r.op, r.n, r.mape_pct]),
    amdx.directions.flatMap((d) => d.eval.groups.map((g) => [g.gpu, g.op, g.n, g.mape_pct])),
  );
  // its kernels in their 80% bands: each direction's count is every row it evaluated
  assert.equal(report.amd_cross_gpu.bands.length, amdx.directions.length);
  for (const [b, d] of report.amd_cross_gpu.bands.map((b, i) => [b, amdx.directions[i]])) {
    assert.equal(
      b.n,
      d.eval.groups.reduce((n, g) => n + g.n, 0),
      b.test_gpu,
    );
    assert.ok(b.inside_pct > 0 && b.inside_pct <= 100 && b.mean_width_pct > 0, b.test_gpu);
  }
  const amdData = path.join(REPO, '../shared/data/neusight/amd/kernels');
  if (fs.existsSync(amdData))
    for (const r of report.amd_cross_gpu.rows) {
      const dir = ['linear', 'bmm'].includes(r.op) ? 'test' : 'train';
      const csv = fs.readFileSync(path.join(amdData, dir, r.op, `${r.test_gpu}.csv`), 'utf8');
      assert.equal(r.n, csv.trim().split('\n').length - 1, `${r.test_gpu} ${r.op}`);
    }
  // ... and its whole models: every label of the GPU held out, each mode's band counts consistent
  const labels = path.join(REPO, '../shared/data/neusight/labels');
  for (const d of amdx.directions) {
    assert.ok(d.whole.length > 0, `${d.test_gpu}: no whole-model cases`);
    for (const w of d.whole) assert.ok(w.inside_band <= w.banded && w.banded <= w.n, `${d.test_gpu} ${w.mode}`);
    const dir = path.join(labels, d.test_gpu.replaceAll(' ', '_'));
    if (fs.existsSync(dir))
      assert.equal(
        d.whole.reduce((n, w) => n + w.n, 0),
        fs.readdirSync(dir).filter((f) => f.endsWith('.json')).length,
        `${d.test_gpu}: whole-model cases`,
      );
  }
});

test('the shape check finds a missing, an extra and a mistyped field', () => {
  const report = committedReport();
  delete report.e2e.cases[0].measured_ms;
  report.e2e.cases[1].measured_ms = '12';
  report.kernels.groups[0].median_pct = 3;
  report.kernels.overall_mape_pct = null;
  report.dataset = null;
  delete report.generalization.kernels[0].training;
  report.serving.rows[0].faithful = 'yes';
  report.parallel.summary.all_fit = 1;
  delete report.h200.about;
  assert.deepEqual(shapeProblems(report), [
    'report.dataset: null where string belongs',
    'report.generalization.kernels[0].training: missing',
    'report.h200.about: missing',
    'report.serving.rows[0].faithful: string where boolean belongs',
    'report.parallel.summary.all_fit: number where boolean belongs',
    'report.e2e.cases[0].measured_ms: missing',
    'report.e2e.cases[1].measured_ms: string where number|null belongs',
    "report.kernels.groups[0].median_pct: not in the report's shape (web/src/accuracy_report.js)",
  ]);
  const about = report.e2e.about;
  assert.deepEqual(shapeProblems({ about, cases: [], summary: {} }, REPORT_SHAPE.e2e, 'e2e'), [
    'e2e.summary: an object where an array belongs',
  ]);
});

test('web/public/accuracy.json is current (rerun scripts/accuracy_report.sh if not)', () => {
  requireFile(CLI, 'build the native CLI (scripts/build_native.sh) or set TILECAST_CLI');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tilecast-accuracy-'));
  try {
    const fresh = path.join(dir, 'accuracy.json');
    execFileSync('bash', [path.join(REPO, 'scripts/accuracy_report.sh'), fresh], {
      cwd: REPO,
      env: { ...process.env, TILECAST_CLI: CLI },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    assert.deepEqual(JSON.parse(fs.readFileSync(fresh, 'utf8')), committedReport());
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
