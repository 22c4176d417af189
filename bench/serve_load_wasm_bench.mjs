// Speed of a 10,000-request serving simulation in the WebAssembly forecaster under Node (a
// benchmark, not a test: it prints numbers; issue 30's target is <= 200 ms in the browser).
// Run after scripts/build_wasm.sh:  node bench/serve_load_wasm_bench.mjs
// (TILECAST_WASM_DIR overrides build-wasm/wasm; RUNS repeats, default 7). Each run is a fresh
// instance's first simulation of that size (nothing cached from an earlier run: its kernel
// forecasts are all computed), then the same request again in the warm instance. The first run's
// process CPU time is printed beside its wall time: on a loaded machine the wall time waits for a core.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.resolve(repo, process.env.TILECAST_WASM_DIR ?? 'build-wasm/wasm');
const runs = Number(process.env.RUNS ?? 7);
const { createTilecast } = await import(path.join(dir, 'tilecast.js'));
const wasmBinary = fs.readFileSync(path.join(dir, 'tilecast_wasm.wasm'));
// The models the build leaves out (models/<id>.json, fetched by the page on demand), loaded first.
const modelDir = path.join(dir, 'models');
const models = fs.existsSync(modelDir) ? fs.readdirSync(modelDir).map((f) => fs.readFileSync(path.join(modelDir, f), 'utf8')) : [];

const CASES = [
  ['Llama-3 8B, H100, 512/256 tokens, Poisson 20/s', { gpu: 'h100-sxm', model: 'llama3-8b', prompt: 512, output: 256, qps: 20 }],
  ['Llama-2 13B, A100 80GB, 1024/128, 64 clients', { gpu: 'a100-80gb-sxm', model: 'llama2-13b', prompt: 1024, output: 128, concurrency: 64 }],
];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (const [label, req] of CASES) {
  const cold = [];
  const warm = [];
  const coldCpu = [];
  let steps = 0;
  for (let i = 0; i < runs; ++i) {
    const tc = await createTilecast({ wasmBinary });
    for (const text of models) tc.loadModel(text);
    tc.text.forecastServing({ gpu: req.gpu, model: req.model, prompt: 16, output: 2, batch: 1 }); // weights parsed
    const c0 = process.cpuUsage();
    let t0 = performance.now();
    const f = tc.forecastServing({ ...req, requests: 10000 });
    cold.push(performance.now() - t0);
    const c1 = process.cpuUsage(c0);
    coldCpu.push((c1.user + c1.system) / 1000);
    t0 = performance.now();
    tc.forecastServing({ ...req, requests: 10000 });
    warm.push(performance.now() - t0);
    steps = f.steps;
  }
  console.log(`  ${label}: 10,000 requests (${steps} engine steps): median ${median(cold).toFixed(1)} ms ` +
    `wall (${median(coldCpu).toFixed(1)} ms CPU) first, ${median(warm).toFixed(1)} ms wall again ` +
    `(of ${runs} runs; target <= 200 ms)`);
}
