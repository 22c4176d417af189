// The WASM build's answers to the spread of calls in response_schemas.mjs checked against
// core/schema/, as ctest "response_schemas" checks the native ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadWasm } from './helpers.mjs';
import { LIST_CALLS, loadAjv, makeValidator, spread } from './response_schemas.mjs';

test('every WASM answer, errors included, is what core/schema/ says', async () => {
  const Ajv = loadAjv();
  assert.ok(Ajv, 'ajv is missing from web/node_modules: run scripts/bootstrap.sh');
  const check = makeValidator(Ajv);
  const { tc } = await loadWasm();
  // The binding's envelope, rebuilt from tilecast.js's text calls (a failure throws TilecastError).
  const ask = ({ call, request }) => {
    try {
      return { ok: true, json: request === undefined ? tc.text[call]() : tc.text[call](request) };
    } catch (e) {
      return { ok: false, error: e.message };
    }
  };
  const lists = Object.fromEntries(LIST_CALLS.map((c) => [c.call, JSON.parse(ask(c).json)]));
  const failures = [];
  const calls = spread(lists);
  for (const c of calls) {
    const problems = check(c.call, ask(c), c.ok);
    if (problems.length)
      failures.push(`${c.call} ${JSON.stringify(c.request ?? null).slice(0, 200)}\n  ${problems.join('\n  ')}`);
  }
  assert.ok(calls.length > 200, `only ${calls.length} calls in the spread`);
  assert.deepEqual(failures, []);
});
