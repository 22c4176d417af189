#!/usr/bin/env bash
# The generalization protocol (issue 10; docs/generalization.md), not part of CI: for each
# training architecture (Pascal, Volta, Turing, Ampere) train without its GPUs and evaluate
# them; the H200 (Hopper, measured by us) and the AMD GPUs with the full model. Writes
# docs/generalization.json, core/data/error_bands.json (rebuild to embed them) and the table
# block of docs/accuracy.md. About 15-20 min on 2 shared cores; deterministic.
# Usage: scripts/eval_generalization.sh [--hash-only | --folds NAME,... --epochs N --max-rows N]
# (TILECAST_CLI=path picks the CLI; extra flags go to `tilecast eval-generalization`; with
# --folds/--epochs/--max-rows nothing is written unless you add --out etc. yourself).
set -euo pipefail
cd "$(dirname "$0")/.."
CLI="${TILECAST_CLI:-build/cli/tilecast}"
if [ ! -x "$CLI" ]; then bash scripts/build_native.sh; fi
DATA="${TILECAST_DATA_DIR:-../shared/data/neusight}"
H200=data/measured/h200
. scripts/nvidia_training_csvs.sh
nvidia_training_csvs "$DATA" "$CLI"
kernels=("$DATA/nvidia/kernels/test/bmm.csv" "$DATA/nvidia/kernels/test/linear.csv"
  "$DATA/nvidia/kernels/test/vec.csv")
for run in fp32-seed0 fp32-seed1; do
  for f in "$H200/$run"/kernels/*.csv; do kernels+=("$f"); done
done
args=(--data "$DATA")
for k in "${kernels[@]}"; do args+=(--kernels "$k"); done
for run in fp32-seed0 fp32-seed1 fp32-seed2-switch; do args+=(--measured "$H200/$run"); done
case " $* " in
  *" --hash-only "* | *" --folds "* | *" --epochs "* | *" --max-rows "* | *" --seed "*) ;;
  *) args+=(--out docs/generalization.json --bands core/data/error_bands.json --readme docs/accuracy.md) ;;
esac
start=$(date +%s)
"$CLI" eval-generalization "${args[@]}" "$@" "${files[@]}"
case " $* " in *" --hash-only "*) ;; *) echo "run time: $(($(date +%s) - start)) s" >&2 ;; esac
