// Splits the linked WebAssembly forecaster in two (a build step of wasm/CMakeLists.txt; docs/web.md
// "The deferred part"): tilecast_wasm.wasm keeps every function the single-GPU calls reach, so the
// page's first forecast downloads only it; tilecast_wasm.deferred.wasm holds the rest (several
// GPUs, Megatron, serving, collectives, plans), which tilecast.js loads on the first call that
// needs it. The code itself is unchanged: Binaryen's wasm-split moves function bodies only.
//
//   node scripts/split_wasm.mjs --whole W.orig --reach R.wasm --rename FROM=TO \
//     --wasm-opt PATH --wasm-split PATH --out-primary P.wasm --out-deferred D.wasm
//
// W.orig: the whole module as linked with -sSPLIT_MODULE --profiling-funcs (function names kept).
// R.wasm: the single-GPU calls' module (wasm/single_gpu_bindings.cpp) linked with -O0
// --profiling-funcs: the linker kept exactly the functions those calls reach. A function of the
// whole module is kept when its name is one of them (after --rename, which maps the single-GPU
// entry to the whole module's), or when a kept function calls it directly (what Binaryen's
// optimizer merged or left un-inlined in the whole module but not in R).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

const FEATURES = ['--enable-exception-handling', '--enable-sign-ext', '--enable-mutable-globals'];

function args() {
  const a = {};
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || argv[i + 1] === undefined) fail(`expected --name value pairs, got '${argv[i]}'`);
    a[argv[i].slice(2)] = argv[i + 1];
  }
  for (const k of ['whole', 'reach', 'rename', 'wasm-opt', 'wasm-split', 'out-primary', 'out-deferred'])
    if (!a[k]) fail(`missing --${k}`);
  return a;
}

function fail(message) {
  console.error(`split_wasm: ${message}`);
  process.exit(1);
}

// The names of a module's defined functions, by their index among the defined functions (the
// names Binaryen gives functions once the name section is gone).
function definedNames(file) {
  const b = fs.readFileSync(file);
  let i = 8;
  const leb = () => {
    let r = 0;
    let s = 0;
    let x;
    do {
      x = b[i++];
      r += (x & 0x7f) * 2 ** s;
      s += 7;
    } while (x & 0x80);
    return r;
  };
  const skipLimits = () => {
    const flags = leb();
    leb();
    if (flags & 1) leb();
  };
  let imported = 0;
  let defined = 0;
  const names = new Map();
  while (i < b.length) {
    const id = b[i++];
    const end = leb() + i;
    if (id === 2) {
      for (let n = leb(); n > 0; --n) {
        for (let part = 0; part < 2; ++part) {
          const len = leb(); // the import's module, then its field
          i += len;
        }
        const kind = b[i++];
        if (kind === 0) {
          imported += 1;
          leb();
        } else if (kind === 1) {
          i += 1;
          skipLimits();
        } else if (kind === 2) skipLimits();
        else if (kind === 3) i += 2;
        else if (kind === 4) {
          i += 1;
          leb();
        } else fail(`${file}: unknown import kind ${kind}`);
      }
    } else if (id === 3) defined = leb();
    else if (id === 0) {
      const len = leb();
      const custom = b.subarray(i, i + len).toString();
      i += len;
      while (custom === 'name' && i < end) {
        const sub = b[i++];
        const subEnd = leb() + i;
        if (sub === 1)
          for (let n = leb(); n > 0; --n) {
            const index = leb();
            const len2 = leb();
            if (index >= imported) names.set(index - imported, b.subarray(i, i + len2).toString());
            i += len2;
          }
        i = subEnd;
      }
    }
    i = end;
  }
  if (names.size === 0) fail(`${file} has no function names (link it with --profiling-funcs)`);
  return { names, defined };
}

const a = args();
const [from, to] = a.rename.split('=');
const reach = new Set([...definedNames(a.reach).names.values()].map((n) => n.split(from).join(to)));
const whole = definedNames(a['whole']);
const keep = new Set();
for (const [index, name] of whole.names) if (reach.has(name)) keep.add(index);
if (keep.size === 0) fail('no function of the whole module is reached by the single-GPU calls');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tilecast-split-'));
try {
  const bare = path.join(tmp, 'bare.wasm');
  execFileSync(a['wasm-opt'], [a['whole'], ...FEATURES, '--strip-debug', '-o', bare]);
  // what the kept functions call directly, to a fixed point
  const graph = execFileSync(a['wasm-opt'], [bare, ...FEATURES, '--print-call-graph'], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    stdio: 'pipe', // (its note that no output file was named stays out of the build's log)
  });
  const callees = new Map();
  for (const m of graph.matchAll(/"(\d+)" -> "(\d+)"/g)) {
    const [caller, callee] = [Number(m[1]), Number(m[2])];
    if (!callees.has(caller)) callees.set(caller, []);
    callees.get(caller).push(callee);
  }
  const named = keep.size;
  for (const stack = [...keep]; stack.length > 0; )
    for (const g of callees.get(stack.pop()) ?? [])
      if (!keep.has(g)) {
        keep.add(g);
        stack.push(g);
      }
  const list = path.join(tmp, 'keep.txt');
  fs.writeFileSync(list, [...keep].sort((x, y) => x - y).join('\n') + '\n');
  execFileSync(a['wasm-split'], [
    bare,
    ...FEATURES,
    `--keep-funcs=@${list}`,
    '-o1',
    a['out-primary'],
    '-o2',
    a['out-deferred'],
  ]);
  const kb = (f) => `${(fs.statSync(f).size / 1024).toFixed(1)} KB`;
  console.log(
    `split_wasm: ${keep.size} of ${whole.defined} functions kept (${named} by name, ${keep.size - named} ` +
      `called by them): ${path.basename(a['out-primary'])} ${kb(a['out-primary'])}, ` +
      `${path.basename(a['out-deferred'])} ${kb(a['out-deferred'])}`,
  );
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
