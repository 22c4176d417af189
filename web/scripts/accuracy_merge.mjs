// Merges `tilecast eval-e2e --json` (and optionally its --predictor roofline run)
// and `tilecast eval-kernels --json` into the site's accuracy report.
// Usage: node accuracy_merge.mjs --version V --e2e FILE [--e2e-roofline FILE] --kernels FILE > accuracy.json
// The report's shape is defined in web/src/accuracy_report.js; a report that does not
// fit it (e.g. the CLI's output gained or lost a field) is refused.
import fs from 'node:fs';
import { shapeProblems } from '../src/accuracy_report.js';

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const read = (file) => (file ? JSON.parse(fs.readFileSync(file, 'utf8')) : null);

const e2e = read(arg('e2e'));
const e2eRoof = read(arg('e2e-roofline'));
const kernels = read(arg('kernels'));
if (!e2e || !kernels) {
  console.error('usage: accuracy_merge.mjs --version V --e2e FILE [--e2e-roofline FILE] --kernels FILE');
  process.exit(2);
}

const key = (c) => [c.gpu, c.model, c.mode, c.option ?? '', c.seq, c.batch].join('|');
const roofByKey = new Map((e2eRoof?.cases ?? []).map((c) => [key(c), c]));
const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

const cases = (e2e.cases ?? []).map((c) => {
  const r = roofByKey.get(key(c));
  return {
    gpu: c.gpu,
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

const groups = kernels.groups ?? [];
const total = groups.reduce((n, g) => n + (g.n ?? 0), 0);
const weighted = (field) => (total ? groups.reduce((s, g) => s + (g[field] ?? 0) * (g.n ?? 0), 0) / total : null);

const report = {
  tilecast_version: arg('version') ?? null,
  generated_by: 'scripts/accuracy_report.sh',
  dataset: 'NeuSight (ASPLOS 2025) public measurements: ../shared/data/neusight',
  e2e: {
    cases,
    summary: (e2e.summary ?? []).map((s) => ({
      gpu: s.gpu,
      mode: s.mode,
      option: s.option ?? '',
      n: s.n,
      mean_abs_error_pct: s.mean_abs_error_pct,
      roofline_mean_abs_error_pct: s.roofline_mean_abs_error_pct,
      max_abs_error_pct: s.max_abs_error_pct,
    })),
  },
  kernels: {
    groups,
    overall_mape_pct: kernels.overall_mape_pct ?? weighted('mape_pct'),
    roofline_overall_mape_pct:
      kernels.overall_roofline_mape_pct ?? kernels.roofline_overall_mape_pct ?? weighted('roofline_mape_pct'),
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
