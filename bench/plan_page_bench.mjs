// The megatron engine's plan search on the page, in Chromium (issue 28: >= 5,000 configurations
// forecast per second in the browser): "Find the fastest plans" on the cases of
// bench/megatron_plan_bench.cpp (Llama-3 8B on 64 H100s, GPT-3 175B by its sizes on 1,024 A100s),
// each page fresh, RUNS times, after a first search on half the GPUs; prints the search's time in
// the plan worker (the status line's) and configurations forecast a second. A benchmark, not a
// test. Run after scripts/build_web.sh:
//   node bench/plan_page_bench.mjs   (CHROMIUM overrides /usr/bin/chromium)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '../web/node_modules/playwright-core/index.mjs';
import { startServer } from '../web/scripts/serve.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.env.RUNS ?? 3);
const gpt3 = 'model=sizes&msz=hidden-12288_layers-96_heads-96_vocab-51200_seq-2048_mlp-gelu';
const cases = [
  [
    'megatron llama3-8b, 64 H100',
    '?gpu=h100-sxm&model=llama3-8b&mode=training&batch=256&seq=4096&fprec=bf16&feng=megatron&dp=8&ptp=8&sys=dgx-h100',
  ],
  [
    'megatron GPT-3 175B, 1024 A100',
    `?gpu=a100-80gb-sxm&${gpt3}&mode=training&batch=1536&seq=2048&fprec=bf16&feng=megatron&dp=128&ptp=8&sys=dgx-a100`,
  ],
];
const { server, url } = await startServer({
  root: path.join(repo, 'web/dist'),
  port: 0,
});
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
});
try {
  for (const [name, query] of cases) {
    const ms = [];
    const cold = [];
    let forecast = 0;
    for (let i = 0; i < runs; ++i) {
      const page = await browser.newPage();
      await page.goto(url.replace('localhost', '127.0.0.1') + query);
      await page.waitForSelector('html[data-ready="1"]', { timeout: 30000 });
      const status = page.locator('#plan-status');
      const search = async (n) => {
        await page.fill('#plan-max-gpus', String(n));
        await page.click('#plan-find');
        await page.waitForSelector(`#plan-status[data-done][data-largest="${n}"]`, { timeout: 120000 });
        forecast = Number(await status.getAttribute('data-forecast'));
        if (!forecast) throw new Error(`${name}: ${await status.textContent()}`);
        return Number(await status.getAttribute('data-ms'));
      };
      // The page's first search also loads the worker's forecaster, fetches the learned model
      // the build leaves out and runs cold code: timed apart, on half the GPUs.
      const q = new URLSearchParams(query);
      const gpus = Number(q.get('dp')) * Number(q.get('ptp'));
      cold.push(await search(gpus / 2));
      ms.push(await search(gpus));
      await page.close();
    }
    ms.sort((a, b) => a - b);
    const median = ms[Math.floor(ms.length / 2)];
    console.log(
      `${name.padEnd(31)} ${forecast} configurations forecast: median ${median.toFixed(1)} ms ` +
        `(min ${ms[0].toFixed(1)}, max ${ms[ms.length - 1].toFixed(1)}) over ${runs} pages: ${Math.round(forecast / (median / 1000))} forecast/s ` +
        `(each page's first search, on half the GPUs: ${cold.map((x) => x.toFixed(0)).join(', ')} ms)`,
    );
  }
} finally {
  await browser.close();
  server.close();
}
