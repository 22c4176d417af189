// The committed docs/serving-checks.md must be what scripts/serving_checks.mjs makes
// from data/published/serving.json and the current forecaster; and every published
// row must carry its setup and a source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO, CLI, requireFile } from './helpers.mjs';

const data = JSON.parse(fs.readFileSync(path.join(REPO, 'data/published/serving.json'), 'utf8'));

test('every published serving row states its setup, metric and source', () => {
  const ids = new Set();
  for (const r of data.rows) {
    assert.ok(!ids.has(r.id), `duplicate id ${r.id}`);
    ids.add(r.id);
    for (const k of ['gpu', 'model', 'precision', 'metric', 'source'])
      assert.equal(typeof r[k], 'string', `${r.id}: ${k}`);
    for (const k of ['tp', 'batch', 'prompt', 'output'])
      assert.ok(Number.isInteger(r[k]) && r[k] >= 1, `${r.id}: ${k}`);
    assert.ok(Number.isFinite(r.value) && r.value > 0, `${r.id}: value`);
    assert.ok(data.sources[r.source]?.url?.startsWith('https://'), `${r.id}: source ${r.source}`);
    assert.equal(typeof r.faithful, 'boolean', `${r.id}: faithful`);
    if (!r.faithful) assert.ok(r.differs, `${r.id}: an engine that differs says how`);
  }
  assert.ok(data.rows.length >= 10 && Object.keys(data.sources).length >= 3);
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
