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

export async function loadWasm() {
  requireFile(path.join(WASM_DIR, 'tilecast.js'), 'run scripts/build_wasm.sh or set TILECAST_WASM_DIR');
  const mod = await import(path.join(WASM_DIR, 'tilecast.js'));
  return { tc: await mod.createTilecast(), TilecastError: mod.TilecastError };
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

export { execFileSync };
