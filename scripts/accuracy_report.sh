#!/usr/bin/env bash
# Regenerates the calculator's accuracy report, web/public/accuracy.json (committed),
# from the native CLI's evaluations on the NeuSight measurements:
#   tilecast eval-e2e      (whole models; tilecast and the roofline side by side)
#   tilecast eval-kernels  (single kernels of the held-out test set)
# TILECAST_CLI (default build/cli/tilecast) and TILECAST_DATA_DIR override the paths.
set -euo pipefail
cd "$(dirname "$0")/.."
cli="${TILECAST_CLI:-build/cli/tilecast}"
data="${TILECAST_DATA_DIR:-../shared/data/neusight}"
out="${1:-web/public/accuracy.json}"
[ -x "$cli" ] || { echo "accuracy_report: $cli is missing; run scripts/build_native.sh" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$cli" eval-e2e --devices "$data/devices" --models "$data/models" --labels "$data/labels" --json >"$tmp/e2e.json"
roof_args=()
# The roofline side: from the same run when it carries it, else from a roofline run.
if ! grep -q '"roofline_ms"' "$tmp/e2e.json"; then
  "$cli" eval-e2e --devices "$data/devices" --models "$data/models" --labels "$data/labels" \
    --predictor roofline --json >"$tmp/e2e-roofline.json"
  roof_args=(--e2e-roofline "$tmp/e2e-roofline.json")
fi
"$cli" eval-kernels --devices "$data/devices" --json "$data"/nvidia/kernels/test/*.csv >"$tmp/kernels.json"
node web/scripts/accuracy_merge.mjs --version "$("$cli" --version)" --e2e "$tmp/e2e.json" \
  "${roof_args[@]}" --kernels "$tmp/kernels.json" >"$tmp/accuracy.json"
mv "$tmp/accuracy.json" "$out"
echo "accuracy_report: wrote $out"
