// ctest "response_schemas": the native API's answers to a spread of calls (response_schemas.mjs)
// checked against core/schema/. Usage: node web/tests/schema_native.mjs PATH/TO/api_responses
// Exit 0: every answer valid; 1: a problem (each printed); 77 (ctest: skipped): Ajv not installed
// (run scripts/bootstrap.sh; CI always does).
import { spawnSync } from 'node:child_process';
import { LIST_CALLS, loadAjv, makeValidator, spread } from './response_schemas.mjs';

const driver = process.argv[2];
if (!driver) {
  console.error('usage: node web/tests/schema_native.mjs PATH/TO/api_responses');
  process.exit(2);
}
const Ajv = loadAjv();
if (!Ajv) {
  console.log('response_schemas: skipped: ajv is not installed in web/node_modules (run scripts/bootstrap.sh)');
  process.exit(77);
}
const check = makeValidator(Ajv);

function ask(calls) {
  const input = calls.map((c) => JSON.stringify({ call: c.call, request: c.request ?? null })).join('\n') + '\n';
  const r = spawnSync(driver, [], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${driver} exited ${r.status}: ${r.stderr}`);
  const lines = r.stdout.trim().split('\n');
  if (lines.length !== calls.length) throw new Error(`${driver}: ${lines.length} answers to ${calls.length} calls`);
  return lines.map((l) => JSON.parse(l));
}

const lists = {};
ask(LIST_CALLS).forEach((e, i) => (lists[LIST_CALLS[i].call] = JSON.parse(e.json)));
const calls = spread(lists);
const answers = ask(calls);
let failed = 0;
const kinds = {};
calls.forEach((c, i) => {
  const problems = check(c.call, answers[i], c.ok);
  const kind = `${c.call}${c.ok ? '' : ' (error)'}`;
  kinds[kind] = (kinds[kind] ?? 0) + 1;
  if (problems.length === 0) return;
  ++failed;
  console.log(`FAIL ${c.call} ${JSON.stringify(c.request ?? null).slice(0, 300)}`);
  for (const p of problems) console.log(`  ${p}`);
});
for (const [k, n] of Object.entries(kinds)) console.log(`  ${k}: ${n}`);
console.log(`response_schemas: ${calls.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
