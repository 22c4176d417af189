// The page's multi-GPU training on its input path and its plan search (a benchmark, not a
// test: it prints numbers). node bench/web_multigpu_bench.mjs (after scripts/build_web.sh).
// Input path: a micro-batch count typed -> the step (and its roofline step) on screen
// (window.tilecastPage.lastForecastMs), target <= 50 ms. Plans: "Find the fastest plans",
// configurations enumerated a second (issue 11 item 8 asks >= 10,000) and the longest slice.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.resolve(REPO, process.env.TILECAST_WEB_DIST ?? 'web/dist');
const require = createRequire(path.join(REPO, 'web/package.json'));
const { chromium } = require('playwright-core');
const { startServer } = await import(path.join(REPO, 'web/scripts/serve.mjs'));
if (!fs.existsSync(path.join(DIST, 'index.html'))) {
  console.error('web_multigpu_bench: web/dist is not built; run scripts/build_web.sh');
  process.exit(1);
}
const { server, url } = await startServer({ root: DIST, port: 0 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
const cases = [
  ['GPT-3 2.7B, 2 x 2 x 2 GPUs', '?gpu=h100-sxm&model=gpt3-2.7b&mode=training&batch=64&seq=2048&dp=2&ptp=2&pp=2&mb=4', ['8', '16', '2', '32', '64']],
  ['Llama-2 70B, 8 x 8 x 8 GPUs', '?gpu=h100-sxm&model=llama2-70b&mode=training&batch=512&seq=4096&dp=8&ptp=8&pp=8&mb=64&zero=1&rc=selective', ['32', '16', '8', '4', '2']],
];
for (const [label, query, values] of cases) {
  await page.goto(url + query);
  await page.waitForSelector('html[data-ready="1"]', { timeout: 30000 });
  const ms = [];
  for (const v of values) {
    const n = await page.evaluate(() => window.tilecastPage.forecasts);
    await page.fill('#microbatches', v);
    await page.waitForFunction((k) => window.tilecastPage.forecasts > k, n);
    ms.push(await page.evaluate(() => window.tilecastPage.lastForecastMs));
  }
  ms.sort((a, b) => a - b);
  console.log(`${label.padEnd(30)} micro-batch change -> on screen: median ${ms[2].toFixed(0)} ms, ${ms[0].toFixed(0)}-${ms[4].toFixed(0)} ms (target <= 50 ms)`);
}
await page.goto(url + '?gpu=h100-sxm&model=gpt3-2.7b&mode=training&batch=8&seq=2048');
await page.waitForSelector('html[data-ready="1"]', { timeout: 30000 });
await page.click('#plan-find');
await page.waitForSelector('#plan-status[data-done]', { timeout: 120000 });
const jobs = await page.evaluate(() => window.tilecastPage.jobs.plan);
console.log(`plans, GPT-3 2.7B on a DGX H100, global batch 8: ${await page.locator('#plan-status').textContent()}`);
console.log(`  job ${jobs.lastMs.toFixed(0)} ms in ${jobs.slices} slices, longest ${jobs.maxSliceMs.toFixed(0)} ms`);
await browser.close();
server.close();
