#!/usr/bin/env bash
# The accuracy tables of docs/accuracy.md: kernels, then whole models.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build_native.sh >/dev/null
bash scripts/eval_kernels.sh
echo
bash scripts/eval_e2e.sh
