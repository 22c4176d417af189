#!/usr/bin/env bash
# Builds the WebAssembly forecaster with Emscripten (emcmake) into build-wasm/.
# Outputs build-wasm/wasm/{tilecast_wasm.mjs,tilecast_wasm.wasm,tilecast_wasm.deferred.wasm,
# tilecast.js,tilecast.d.ts} (the .wasm split in two: scripts/split_wasm.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's Emscripten runs its JavaScript tools with Node and needs its modules.
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
jobs="${TILECAST_JOBS:-$(nproc)}"
if [ ! -f build-wasm/CMakeCache.txt ]; then
  emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build-wasm -j "$jobs"
