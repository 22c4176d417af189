// The committed accuracy report (web/public/accuracy.json) must be what
// scripts/accuracy_report.sh makes from the current weights and graphs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO, CLI, requireFile } from './helpers.mjs';

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
    const committed = JSON.parse(fs.readFileSync(path.join(REPO, 'web/public/accuracy.json'), 'utf8'));
    assert.deepEqual(JSON.parse(fs.readFileSync(fresh, 'utf8')), committed);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
