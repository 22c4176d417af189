// Speed of the plan search in WebAssembly (planParallel, as the page calls it), the same
// cases as bench/plan_bench.cpp: GPT-2 Large and Llama-3 8B on a DGX A100, global batch 32,
// seq 1024, 1-8 GPUs. Prints configurations per second (enumerated, and forecast: those that
// divide). A benchmark, not a test. Run after scripts/build_wasm.sh:
//   node bench/plan_wasm_bench.mjs   (TILECAST_WASM_DIR overrides build-wasm/wasm)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.resolve(repo, process.env.TILECAST_WASM_DIR ?? 'build-wasm/wasm');
const { createTilecast } = await import(path.join(dir, 'tilecast.js'));
const tc = await createTilecast();
// The models the build leaves out (models/<id>.json, fetched by the page on demand), loaded first.
const modelDir = path.join(dir, 'models');
if (fs.existsSync(modelDir)) for (const f of fs.readdirSync(modelDir)) tc.loadModel(fs.readFileSync(path.join(modelDir, f), 'utf8'));
const runs = Number(process.env.RUNS ?? 10);

for (const model of ['gpt2-large', 'llama3-8b']) {
  const request = JSON.stringify({ system: 'dgx-a100', model, global_batch: 32, seq: 1024, top: 20 });
  const plan = tc.planParallel(request); // warm up (and the counts)
  const ms = [];
  for (let i = 0; i < runs; ++i) {
    const t0 = performance.now();
    tc.text.planParallel(request);
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  const median = ms[Math.floor(ms.length / 2)];
  const forecast = plan.considered - plan.does_not_divide;
  console.log(
    `${model.padEnd(12)} ${plan.considered} configurations (${forecast} forecast, ${plan.fitting} fit): ` +
      `median ${median.toFixed(1)} ms (min ${ms[0].toFixed(1)}, max ${ms[ms.length - 1].toFixed(1)}) over ${runs} runs: ` +
      `${Math.round(plan.considered / (median / 1000))} enumerated/s, ${Math.round(forecast / (median / 1000))} forecast/s`,
  );
}
