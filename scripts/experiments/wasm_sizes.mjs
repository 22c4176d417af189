// Where a part of the WebAssembly forecaster's bytes go (docs/web.md, "Where the bytes go"): each
// section gzipped alone; the data section's embedded files (found by their text) by folder, and
// the rest split into printable strings and binary; with a name section, the code by kind of
// function (the forecaster's own, those reading or writing JSON, nlohmann's, libc++'s, libc's).
//
//   node scripts/experiments/wasm_sizes.mjs PART.wasm [--top N]
//
// Names come from a link with --profiling-funcs, split keeping them:
//   emcmake cmake -S . -B /tmp/bw-names -DCMAKE_BUILD_TYPE=Release \
//     -DCMAKE_EXE_LINKER_FLAGS=--profiling-funcs
//   TILECAST_SPLIT_NAMES=1 cmake --build /tmp/bw-names -j2   (scripts/split_wasm.mjs keeps them)
//   node scripts/experiments/wasm_sizes.mjs /tmp/bw-names/wasm/tilecast_wasm.wasm
// The shipped parts have no names: then only the sections and the data are reported.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";

const repo = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../..",
);
const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith("--"));
const top = Number(args[args.indexOf("--top") + 1] ?? 0) || 15;
if (!file) {
  console.error(
    "usage: node scripts/experiments/wasm_sizes.mjs PART.wasm [--top N]",
  );
  process.exit(1);
}
const buf = fs.readFileSync(file);
const gz = (b) => zlib.gzipSync(b, { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

// LEB128 reader over `b` from `at` (returns the value and the next position).
function leb(b, at) {
  let value = 0;
  let shift = 0;
  let byte;
  do {
    byte = b[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [value, at];
}

const SECTION = {
  0: "custom",
  1: "type",
  2: "import",
  3: "function",
  4: "table",
  5: "memory",
  6: "global",
  7: "export",
  9: "element",
  10: "code",
  11: "data",
  13: "tag",
};
const sections = [];
for (let p = 8; p < buf.length;) {
  const id = buf[p];
  const [size, start] = leb(buf, p + 1);
  sections.push({ id, body: buf.subarray(start, start + size) });
  p = start + size;
}
console.log(
  `${path.basename(file)}: ${kb(buf.length)} raw, ${kb(gz(buf))} gzipped`,
);
for (const s of sections)
  console.log(
    `  section ${(SECTION[s.id] ?? s.id).toString().padEnd(9)} ${kb(s.body.length).padStart(10)} raw ${kb(gz(s.body)).padStart(10)} gzipped`,
  );

// ---- data: the memory image, then the embedded files found in it ----------------------------
const data = sections.find((s) => s.id === 11)?.body;
if (data) {
  const chunks = [];
  let [n, q] = leb(data, 0);
  for (let i = 0; i < n; i++) {
    let flag;
    [flag, q] = leb(data, q);
    if (flag === 0) while (data[q++] !== 0x0b); // an active segment's offset expression
    let len;
    [len, q] = leb(data, q);
    chunks.push(data.subarray(q, q + len));
    q += len;
  }
  let rest = Buffer.concat(chunks);
  const groups = new Map();
  const walk = (dir) =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const f = path.join(dir, e.name);
      return e.isDirectory() ? walk(f) : e.name.endsWith(".json") ? [f] : [];
    });
  const files = [
    ...walk(path.join(repo, "gpu_catalog")),
    ...walk(path.join(repo, "model_zoo")),
    ...walk(path.join(repo, "core/data")),
  ];
  for (const f of files.sort()) {
    const text = fs.readFileSync(f);
    const at = rest.indexOf(text);
    if (at < 0) continue; // not embedded in this part, or packed (the weights)
    rest = Buffer.concat([
      rest.subarray(0, at),
      rest.subarray(at + text.length),
    ]);
    const rel = path.relative(repo, f).split(path.sep);
    const key = rel[0] === "core" ? rel.slice(0, 3).join("/") : rel[0];
    groups.set(key, [...(groups.get(key) ?? []), text]);
  }
  console.log("data: embedded files found by their text, gzipped by folder");
  for (const [key, texts] of groups)
    console.log(
      `  ${key.padEnd(28)} ${kb(gz(Buffer.concat(texts))).padStart(10)}`,
    );
  const printable = rest.toString("latin1").match(/[\x20-\x7e\n]{6,}/g) ?? [];
  const binary = Buffer.from(
    rest.toString("latin1").replace(/[\x20-\x7e\n]{6,}/g, ""),
    "latin1",
  );
  console.log(
    `  the rest                     ${kb(gz(rest)).padStart(10)}: strings ${kb(gz(Buffer.from(printable.join("\0"))))}, binary (packed weights, tables) ${kb(gz(binary))}`,
  );
}

// ---- code by kind of function, where the part has names ----------------------------------------
const names = new Map();
let imported = 0;
for (const s of sections) {
  if (s.id === 2) {
    let [n, q] = leb(s.body, 0);
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < 2; k++) {
        let len;
        [len, q] = leb(s.body, q);
        q += len;
      }
      const kind = s.body[q++];
      if (kind === 0) {
        [, q] = leb(s.body, q);
        imported++;
      } else if (kind === 1) {
        const flags = s.body[q + 1];
        [, q] = leb(s.body, q + 2);
        if (flags & 1) [, q] = leb(s.body, q);
      } else if (kind === 2) {
        const flags = s.body[q];
        [, q] = leb(s.body, q + 1);
        if (flags & 1) [, q] = leb(s.body, q);
      } else if (kind === 3) q += 2;
      else if (kind === 4) [, q] = leb(s.body, q + 1);
    }
  }
  if (s.id === 0) {
    let [len, q] = leb(s.body, 0);
    if (s.body.subarray(q, q + len).toString() !== "name") continue;
    q += len;
    while (q < s.body.length) {
      const sub = s.body[q];
      let size;
      [size, q] = leb(s.body, q + 1);
      const end = q + size;
      if (sub === 1) {
        let n;
        [n, q] = leb(s.body, q);
        for (let i = 0; i < n; i++) {
          let idx, l;
          [idx, q] = leb(s.body, q);
          [l, q] = leb(s.body, q);
          names.set(idx, s.body.subarray(q, q + l).toString());
          q += l;
        }
      }
      q = end;
    }
  }
}
const code = sections.find((s) => s.id === 10)?.body;
if (code && names.size) {
  const kinds = new Map();
  const fns = [];
  let [n, q] = leb(code, 0);
  for (let i = 0; i < n; i++) {
    let size;
    [size, q] = leb(code, q);
    const name = names.get(imported + i) ?? "";
    fns.push([size, name]);
    q += size;
    const kind = name.startsWith("nlohmann")
      ? "nlohmann's own"
      : name.includes("nlohmann")
        ? "reading or writing JSON"
        : name.startsWith("tilecast::")
          ? "the forecaster's own"
          : /^(std::|void std::|bool std::|unsigned int std::)/.test(name)
            ? "libc++'s templates"
            : size <= 12
              ? "placeholders of the other part"
              : "libc and the rest";
    kinds.set(kind, (kinds.get(kind) ?? 0) + size);
  }
  console.log(`code: ${n} functions by kind, raw`);
  for (const [kind, size] of [...kinds].sort((x, y) => y[1] - x[1]))
    console.log(`  ${kind.padEnd(32)} ${kb(size).padStart(10)}`);
  console.log(`the ${top} largest functions, raw`);
  for (const [size, name] of fns.sort((x, y) => y[0] - x[0]).slice(0, top))
    console.log(`  ${kb(size).padStart(9)}  ${name.slice(0, 110)}`);
} else if (code) {
  console.log(
    "code: no name section (link with --profiling-funcs and split with TILECAST_SPLIT_NAMES=1 for the kinds)",
  );
}
