// The committed accuracy report (web/public/accuracy.json) must fit its one shape
// (web/src/accuracy_report.js, from which the page's types are derived) and be what
// scripts/accuracy_report.sh makes from the current weights and graphs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO, CLI, requireFile } from './helpers.mjs';
import { REPORT_SHAPE, shapeProblems } from '../src/accuracy_report.js';

const committedReport = () => JSON.parse(fs.readFileSync(path.join(REPO, 'web/public/accuracy.json'), 'utf8'));

test('web/public/accuracy.json has the shape the page reads', () => {
  const report = committedReport();
  assert.deepEqual(shapeProblems(report), []);
  assert.ok(report.e2e.cases.length > 0 && report.kernels.groups.length > 0);
});

test('the shape check finds a missing, an extra and a mistyped field', () => {
  const report = committedReport();
  delete report.e2e.cases[0].measured_ms;
  report.e2e.cases[1].measured_ms = '12';
  report.kernels.groups[0].median_pct = 3;
  report.kernels.overall_mape_pct = null;
  report.dataset = null;
  assert.deepEqual(shapeProblems(report), [
    'report.dataset: null where string belongs',
    'report.e2e.cases[0].measured_ms: missing',
    'report.e2e.cases[1].measured_ms: string where number|null belongs',
    "report.kernels.groups[0].median_pct: not in the report's shape (web/src/accuracy_report.js)",
  ]);
  assert.deepEqual(shapeProblems({ cases: [], summary: {} }, REPORT_SHAPE.e2e, 'e2e'), [
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
