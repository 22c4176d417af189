#!/usr/bin/env bash
# Builds the static calculator into web/dist/ (servable by any static host):
# copies the WebAssembly forecaster (its two parts and its on-demand models/) into web/public/tilecast/, then type-checks
# and bundles with Vite. Run scripts/build_wasm.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
wasm_dir="${TILECAST_WASM_DIR:-build-wasm/wasm}"
# the forecaster's loader, its two parts (the deferred one loaded on first need) and its JavaScript layer
forecaster=(tilecast_wasm.mjs tilecast_wasm.wasm tilecast_wasm.deferred.wasm tilecast.js)
for f in "${forecaster[@]}"; do
  [ -f "$wasm_dir/$f" ] || { echo "build_web: $wasm_dir/$f is missing; run scripts/build_wasm.sh" >&2; exit 1; }
done
[ -d web/node_modules ] || bash scripts/bootstrap.sh
mkdir -p web/public/tilecast
for f in "${forecaster[@]}"; do cp "$wasm_dir/$f" web/public/tilecast/; done
# The learned models the WASM build does not embed, fetched by the page on demand (src/engine.ts).
rm -rf web/public/tilecast/models
if [ -d "$wasm_dir/models" ]; then cp -r "$wasm_dir/models" web/public/tilecast/models; fi
cd web
# The loader and the JS layer minified in the site's copy (those in the build folder stay as they are).
node scripts/minify_forecaster.mjs public/tilecast/tilecast_wasm.mjs public/tilecast/tilecast.js
node scripts/gen_api_types.mjs --check
npx tsc --noEmit
# wasm/tilecast.d.ts and its generated tilecast_api.d.ts (skipLibCheck above leaves .d.ts files out)
npx tsc --noEmit --strict --target ES2022 --module ESNext --moduleResolution bundler ../wasm/tilecast.d.ts
npx vite build --logLevel warn
echo "build_web: site in web/dist/"
