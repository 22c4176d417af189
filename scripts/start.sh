#!/usr/bin/env bash
# Installs what is missing, builds what the calculator needs (the native CLI, the WebAssembly
# forecaster, the site; not the test suite, which scripts/test.sh builds) and serves it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)" --target tilecast
./build/cli/tilecast forecast --gpu h100-sxm --model gpt3-2.7b --batch 1 --seq 1024 --mode training  # the page's landing example (it fits)
bash scripts/build_wasm.sh
bash scripts/build_web.sh
exec bash scripts/serve.sh
