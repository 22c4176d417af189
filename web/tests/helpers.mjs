// Shared by the Node and browser tests: paths, the native CLI, the WASM module.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The native CLI (built by scripts/build_native.sh into build/), overridable.
export const CLI = path.resolve(REPO, process.env.TILECAST_CLI ?? 'build/cli/tilecast');
export const WASM_DIR = path.resolve(REPO, process.env.TILECAST_WASM_DIR ?? 'build-wasm/wasm');
export const DIST = path.resolve(REPO, process.env.TILECAST_WEB_DIST ?? 'web/dist');

export function requireFile(file, hint) {
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: ${hint}`);
}

// Runs the CLI; returns {ok, text} (stdout) or {ok:false, error} (the message
// after "tilecast <cmd>: error: ").
export function cli(args) {
  requireFile(CLI, 'build the native CLI (scripts/build_native.sh) or set TILECAST_CLI');
  const r = spawnSync(CLI, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status === 0) return { ok: true, text: r.stdout.trim() };
  const line = r.stderr.trim().split('\n').pop() ?? '';
  const m = /^tilecast \S+: (?:error|internal error): (.*)$/s.exec(line);
  return { ok: false, error: m ? m[1] : line, status: r.status };
}

export function cliJson(args) {
  const r = cli(args);
  if (!r.ok) throw new Error(`tilecast ${args.join(' ')} failed: ${r.error}`);
  return JSON.parse(r.text);
}

// The learned models the WASM build does not embed: id -> the text of models/<id>.json, the
// file the site serves and the page fetches on demand (core/CMakeLists.txt, TILECAST_EMBED_MODELS).
export function onDemandModels() {
  const dir = path.join(WASM_DIR, 'models');
  if (!fs.existsSync(dir)) return {};
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => [f.slice(0, -'.json'.length), fs.readFileSync(path.join(dir, f), 'utf8')]),
  );
}

// A fresh instance; with `models` true (the default) every on-demand model is loaded first, as
// the page loads it (so its answers compare with the native CLI's, which embeds them all).
export async function loadWasm({ models = true } = {}) {
  requireFile(path.join(WASM_DIR, 'tilecast.js'), 'run scripts/build_wasm.sh or set TILECAST_WASM_DIR');
  const mod = await import(path.join(WASM_DIR, 'tilecast.js'));
  const tc = await mod.createTilecast();
  if (models) for (const text of Object.values(onDemandModels())) tc.loadModel(text);
  return { tc, TilecastError: mod.TilecastError };
}

export function tempFile(name, text) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tilecast-web-test-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

export function cliForecastArgs({ gpu, model, batch, seq, mode, predictor }) {
  return [
    'forecast',
    '--gpu',
    gpu,
    '--model',
    model,
    '--batch',
    String(batch),
    '--seq',
    String(seq),
    '--mode',
    mode,
    '--predictor',
    predictor,
    '--json',
  ];
}

// `tilecast serve` of a request's fields (flag names as the CLI's: gpu, model, prompt, output,
// and any of batch, precision, weights, ...; camelCase or snake_case keys become --kebab-case),
// then `extra` flags, with --json.
export function cliServeArgs(fields, extra = []) {
  const flags = Object.entries(fields).flatMap(([k, v]) => [
    `--${k.replace(/_/g, '-').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
    String(v),
  ]);
  return ['serve', ...flags, ...extra, '--json'];
}

export { execFileSync };
