// Minifies the forecaster's JavaScript (Emscripten's loader tilecast_wasm.mjs and the JS layer
// tilecast.js) where scripts/build_web.sh copied them into public/tilecast/: the page fetches both
// before its first forecast, and Vite bundles neither (the page imports them at run time). With
// esbuild, through Vite's own transformWithEsbuild: names of locals shortened, whitespace and
// comments dropped; property names, exports and import.meta.url kept, so the code runs the same.
//   node scripts/minify_forecaster.mjs FILE...
import fs from 'node:fs';
import path from 'node:path';
import { transformWithEsbuild } from 'vite';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('minify_forecaster: give the files to minify');
  process.exit(1);
}
for (const file of files) {
  const code = fs.readFileSync(file, 'utf8');
  const out = await transformWithEsbuild(code, path.basename(file), {
    loader: 'js',
    format: 'esm',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
  });
  fs.writeFileSync(file, out.code);
  console.log(`minify_forecaster: ${path.basename(file)} ${code.length} -> ${out.code.length} bytes`);
}
