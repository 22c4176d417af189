// Speed of the plan search in WebAssembly (planParallel, as the page calls it), the same
// cases as bench/plan_bench.cpp (eager engine: GPT-2 Large and Llama-3 8B on a DGX A100, global
// batch 32, seq 1024, 1-8 GPUs) and bench/megatron_plan_bench.cpp (megatron engine: Llama-3 8B
// on 64 H100s, GPT-3 175B on 1,024 A100s; issue 28 asks >= 5,000 configurations forecast per
// second in the browser). Prints configurations per second (enumerated, and forecast: those
// that divide). A benchmark, not a test. Run after scripts/build_wasm.sh:
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

const gpt3 = { sizes: { hidden: 12288, layers: 96, heads: 96, vocab: 51200, seq: 2048, mlp: 'gelu' } };
const cases = [
  ['gpt2-large', { system: 'dgx-a100', model: 'gpt2-large', global_batch: 32, seq: 1024, top: 20 }],
  ['llama3-8b', { system: 'dgx-a100', model: 'llama3-8b', global_batch: 32, seq: 1024, top: 20 }],
  [
    'megatron llama3-8b, 64 H100',
    { engine: 'megatron', system: 'dgx-h100', model: 'llama3-8b', gpus: 64, global_batch: 256, seq: 4096 },
  ],
  [
    'megatron GPT-3 175B, 1024 A100',
    { engine: 'megatron', system: 'dgx-a100', model: gpt3, gpus: 1024, global_batch: 1536, seq: 2048 },
  ],
];
for (const [name, body] of cases) {
  const request = JSON.stringify(body);
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
    `${name.padEnd(31)} ${plan.considered} configurations (${forecast} forecast, ${plan.fitting} fit): ` +
      `median ${median.toFixed(1)} ms (min ${ms[0].toFixed(1)}, max ${ms[ms.length - 1].toFixed(1)}) over ${runs} runs: ` +
      `${Math.round(plan.considered / (median / 1000))} enumerated/s, ${Math.round(forecast / (median / 1000))} forecast/s`,
  );
}
