// Size and single-forecast speed of the WebAssembly forecaster under Node (a benchmark, not
// a test: it prints numbers). Run after scripts/build_wasm.sh:
//   node bench/wasm_forecast_bench.mjs   (TILECAST_WASM_DIR overrides build-wasm/wasm)
// Prints the download (wasm + loader + tilecast.js, gzip -9, as bench/web_bench.mjs counts it),
// the models the build leaves out (models/<id>.json, fetched by the page on demand: their
// gzipped size and the time loadModel takes), the compile + instantiate time, the first forecast
// (it parses the embedded NVIDIA FP32 weights), the first FP16 and AMD forecasts after it (each
// loads its model's file, then parses its weights) and the median of repeated forecasts
// (training, inference with both predictors, FP16 serving, AMD), each repeat with another batch
// so that nothing is remembered.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.resolve(repo, process.env.TILECAST_WASM_DIR ?? 'build-wasm/wasm');
const runs = Number(process.env.RUNS ?? 15);
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

let total = 0;
let first = 0; // what the first forecast needs: all but the deferred part
for (const f of ['tilecast_wasm.wasm', 'tilecast_wasm.mjs', 'tilecast.js', 'tilecast_wasm.deferred.wasm']) {
  const gz = zlib.gzipSync(fs.readFileSync(path.join(dir, f)), { level: 9 }).length;
  total += gz;
  if (!f.includes('deferred')) first += gz;
  console.log(`  ${f.padEnd(27)} ${kb(gz).padStart(9)} gzipped${f.includes('deferred') ? ', after the first forecast (the page) or by the first call needing it' : ''}`);
}
console.log(`  the first forecast needs   ${kb(first).padStart(9)} gzipped (first forecast's target <= 300 KB with the page's JS)`);
console.log(`  forecaster download        ${kb(total).padStart(9)} gzipped (the build's files; the site minifies its copies of the two
    JS files: bench/web_bench.mjs counts what the page fetches)`);
const modelDir = path.join(dir, 'models');
const models = fs.existsSync(modelDir) ? fs.readdirSync(modelDir).filter((f) => f.endsWith('.json')).sort() : [];
let onDemand = 0;
for (const f of models) {
  const gz = zlib.gzipSync(fs.readFileSync(path.join(modelDir, f)), { level: 9 }).length;
  onDemand += gz;
  console.log(`  models/${f.padEnd(18)} ${kb(gz).padStart(7)} gzipped, fetched on demand`);
}
console.log(`  whole forecaster           ${kb(total + onDemand).padStart(9)} gzipped (target <= 400 KB)`);
const modelText = Object.fromEntries(models.map((f) => [f.slice(0, -5), fs.readFileSync(path.join(modelDir, f), 'utf8')]));
// What the page does on a model's first need: the call names it, the file is given, it asks again.
function onDemandCall(tc, call) {
  try {
    return call();
  } catch (e) {
    if (!e.missingModel || !modelText[e.missingModel]) throw e;
    const t = performance.now();
    tc.loadModel(modelText[e.missingModel]);
    console.log(`    (loadModel ${e.missingModel}: ${(performance.now() - t).toFixed(1)} ms)`);
    return onDemandCall(tc, call);
  }
}

const { createTilecast } = await import(path.join(dir, 'tilecast.js'));
const wasmBinary = fs.readFileSync(path.join(dir, 'tilecast_wasm.wasm'));
let t0 = performance.now();
const tc = await createTilecast({ wasmBinary });
const loadMs = performance.now() - t0;
t0 = performance.now();
tc.text.forecastModel({ gpu: 'h100-sxm', model: 'gpt3-2.7b', batch: 1, seq: 2048, mode: 'training', predictor: 'tilecast' });
const firstMs = performance.now() - t0;
console.log(`  compile + instantiate ${loadMs.toFixed(1)} ms; first forecast ${firstMs.toFixed(1)} ms`);
// The FP16 and AMD models are built on their first forecast (docs/web.md, "Start-up").
t0 = performance.now();
onDemandCall(tc, () => tc.text.forecastServing({ gpu: 'h100-sxm', model: 'llama3-8b', batch: 1, prompt: 512, output: 256 }));
const firstHalfMs = performance.now() - t0;
t0 = performance.now();
onDemandCall(tc, () => tc.text.forecastModel({ gpu: 'mi300x', model: 'bert-large', batch: 1, seq: 512, mode: 'training' }));
const firstAmdMs = performance.now() - t0;
console.log(`  then first FP16 forecast ${firstHalfMs.toFixed(1)} ms; first AMD forecast ${firstAmdMs.toFixed(1)} ms (model loads included)`);

const cases = [
  ['GPT-3 2.7B training, H100', (b) => tc.text.forecastModel({ gpu: 'h100-sxm', model: 'gpt3-2.7b', batch: b, seq: 2048, mode: 'training' })],
  ['Llama-2 7B inference, A100', (b) => tc.text.forecastModel({ gpu: 'a100-80gb-sxm', model: 'llama2-7b', batch: b, seq: 1024, mode: 'inference' })],
  ['the same, roofline', (b) => tc.text.forecastModel({ gpu: 'a100-80gb-sxm', model: 'llama2-7b', batch: b, seq: 1024, mode: 'inference', predictor: 'roofline' })],
  ['BERT-Large training, MI300X', (b) => tc.text.forecastModel({ gpu: 'mi300x', model: 'bert-large', batch: b, seq: 512, mode: 'training' })],
  ['Llama-3 8B serving, H100', (b) => tc.text.forecastServing({ gpu: 'h100-sxm', model: 'llama3-8b', batch: b, prompt: 512, output: 256 })],
];
for (const [name, run] of cases) {
  run(1);
  const ms = [];
  for (let i = 0; i < runs; ++i) {
    t0 = performance.now();
    run(2 + i);
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  console.log(`  ${name.padEnd(28)} median ${ms[Math.floor(runs / 2)].toFixed(2)} ms (min ${ms[0].toFixed(2)}) over ${runs}`);
}
