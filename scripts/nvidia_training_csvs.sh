# The NVIDIA FP32 training CSVs of the shipped model, in the order the trainer reads them (the
# weights record that order): the CSVs of core/data/models/nvidia-fp32/manifest.json's recipe.
# Sourced by scripts/eval_generalization.sh and experiments/: nvidia_training_csvs DATA_DIR [CLI]
# fills the array `files` (DATA_DIR: the neusight data folder; CLI: build/cli/tilecast).
nvidia_training_csvs() {
  local data="$1" cli="${2:-build/cli/tilecast}"
  mapfile -t files < <("$cli" train --model nvidia-fp32 --data "$(dirname "$data")" --recipe |
    grep '\.csv$' | sed "s#^$(dirname "$data")/neusight#$data#")
}
