// Splits the linked WebAssembly forecaster in two (a build step of wasm/CMakeLists.txt; docs/web.md
// "The deferred part"): tilecast_wasm.wasm keeps every function the page's first forecast runs,
// so that forecast downloads only it; tilecast_wasm.deferred.wasm holds the rest, which
// tilecast.js loads on the first call that needs it. The code itself is unchanged: Binaryen's
// wasm-split moves function bodies only.
//
//   node scripts/split_wasm.mjs --whole W.orig --glue G.mjs --repo ROOT \
//     --wasm-opt PATH --wasm-split PATH --out-primary P.wasm --out-deferred D.wasm
//
// W.orig: the whole module as linked with -sSPLIT_MODULE; G.mjs: its Emscripten loader. Which
// functions the first forecast runs is measured, not listed by hand: the module is instrumented
// (wasm-split --instrument), the calls below are made on it in Node, and the functions they ran
// (its profile) are kept.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';

const FEATURES = ['--enable-exception-handling', '--enable-sign-ext', '--enable-mutable-globals'];

function args() {
  const a = {};
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || argv[i + 1] === undefined) fail(`expected --name value pairs, got '${argv[i]}'`);
    a[argv[i].slice(2)] = argv[i + 1];
  }
  for (const k of ['whole', 'glue', 'repo', 'wasm-opt', 'wasm-split', 'out-primary', 'out-deferred'])
    if (!a[k]) fail(`missing --${k}`);
  return a;
}

function fail(message) {
  console.error(`split_wasm: ${message}`);
  process.exit(1);
}

// The request the page's landing view forecasts first (web/src/state.ts DEFAULT_STATE: GPT-3 2.7B's
// FP32 training step at batch 1 and sequence 1024 on the H100, PyTorch eager, tilecast's
// predictor); web/tests/browser.test.mjs checks that the page's first forecast fetches
// tilecast_wasm.wasm alone.
const LANDING = { gpu: 'h100-sxm', model: 'gpt3-2.7b', mode: 'training', batch: 1, seq: 1024, predictor: 'tilecast' };

// What the page's own instance runs before and at its first forecast (wasm/tilecast.js,
// web/src/boot.ts, link.ts, worker_client.ts): the version, the catalog lists, that forecast, the
// checks of a link's custom GPU or config (every catalog GPU and zoo config checked, and refusals
// of each kind, so their messages are built without the deferred part), and the card of a shared
// link, which that instance answers for a zoo model by name while the worker loads: every zoo
// model on one GPU in every mode, by either predictor, eager or compiled, in FP32 (the precision
// its embedded weights serve; the others wait for a model fetched in the worker anyway), and the
// landing model on every NVIDIA GPU of the catalog (their architectures' own tiles and rates).
function firstForecastCalls(m, repo) {
  const call = (name, arg) => {
    const envelope = arg === undefined ? m[name]() : m[name](typeof arg === 'string' ? arg : JSON.stringify(arg));
    if (!envelope || typeof envelope.ok !== 'boolean') fail(`${name}: no answer`);
    return envelope;
  };
  const ok = (name, arg) => {
    const envelope = call(name, arg);
    if (!envelope.ok) fail(`${name}: ${envelope.error}`);
    return envelope.json;
  };
  const refused = (name, arg) => {
    if (call(name, arg).ok) fail(`${name} accepted what it should refuse: ${String(arg).slice(0, 80)}`);
  };
  if (typeof m.version() !== 'string') fail('version: no answer');
  const gpus = JSON.parse(ok('listGpus'));
  const models = JSON.parse(ok('listModels'));
  ok('listSystems');
  ok('forecastModel', LANDING);
  for (const gpu of gpus) ok('validateGpu', gpu);
  const zoo = path.join(repo, 'model_zoo');
  for (const f of fs.readdirSync(zoo).filter((f) => f.endsWith('.json')).sort())
    ok('validateModel', fs.readFileSync(path.join(zoo, f), 'utf8'));
  refused('validateGpu', '{');
  refused('validateGpu', { ...gpus[0], num_sm: -1 });
  refused('validateModel', '{"model_type": "llama"}');
  refused('forecastModel', { ...LANDING, batch: 0 });
  for (const { id } of models)
    for (const mode of ['training', 'inference', 'prefill', 'decode'])
      for (const variant of [{}, { predictor: 'roofline' }, { engine: 'compiled' }])
        call('forecastModel', { ...LANDING, model: id, mode, batch: 1, seq: 128, ...variant }); // (prefill and decode refuse encoders)
  for (const gpu of gpus.filter((g) => g.vendor === 'NVIDIA')) ok('forecastModel', { ...LANDING, gpu: gpu.id, seq: 128 });
}

async function profile(instrumented, glue, repo, out) {
  const { default: create } = await import(pathToFileURL(glue).href);
  const m = await create({ wasmBinary: fs.readFileSync(instrumented), printErr: () => {} });
  firstForecastCalls(m, repo);
  const size = 1 << 20;
  const at = m._malloc(size);
  const written = m.asm.__write_profile(at, size);
  if (!(written > 0 && written <= size)) fail(`the instrumented module wrote a profile of ${written} bytes`);
  fs.writeFileSync(out, m.HEAPU8.slice(at, at + written));
}

const a = args();
// TILECAST_SPLIT_NAMES=1 keeps the function names of a link made with --profiling-funcs in both
// parts (for scripts/experiments/wasm_sizes.mjs; the shipped parts have none).
const keepNames = process.env.TILECAST_SPLIT_NAMES === '1';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tilecast-split-'));
try {
  const bare = path.join(tmp, 'bare.wasm');
  execFileSync(a['wasm-opt'], [a['whole'], ...FEATURES, keepNames ? '-g' : '--strip-debug', '-o', bare]);
  const instrumented = path.join(tmp, 'instrumented.wasm');
  execFileSync(a['wasm-split'], [bare, ...FEATURES, '--instrument', '-o', instrumented]);
  const prof = path.join(tmp, 'first-forecast.prof');
  await profile(instrumented, a.glue, a.repo, prof);
  execFileSync(a['wasm-split'], [
    bare,
    ...FEATURES,
    `--profile=${prof}`,
    ...(keepNames ? ['-g'] : []),
    '-o1',
    a['out-primary'],
    '-o2',
    a['out-deferred'],
  ]);
  const kb = (f) => `${(fs.statSync(f).size / 1024).toFixed(1)} KB`;
  console.log(
    `split_wasm: the first forecast's functions in ${path.basename(a['out-primary'])} ${kb(a['out-primary'])}, ` +
      `the rest in ${path.basename(a['out-deferred'])} ${kb(a['out-deferred'])}`,
  );
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
