#!/usr/bin/env bash
# Installs what is missing, builds everything and serves the calculator.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/build_native.sh
./build/cli/tilecast forecast --gpu h100-sxm --model gpt3-2.7b --batch 1 --seq 2048 --mode training
bash scripts/build_wasm.sh
bash scripts/build_web.sh
exec bash scripts/serve.sh
