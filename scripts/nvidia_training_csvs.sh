# The NVIDIA FP32 training CSVs of the shipped model, in the order the trainer reads them
# (the weights record that order). Sourced by scripts/train.sh, eval_generalization.sh,
# experiments/h200_in_training.sh and experiments/fold_gemm_tiles.sh: nvidia_training_csvs DATA_DIR fills the array `files`.
nvidia_training_csvs() {
  local train="$1/nvidia/kernels/train" op gpu
  files=()
  for op in linear bmm add addu mul mulu div divu pow powu relu gelu tanh softmax ln; do
    for gpu in "NVIDIA A100-PCIE-40GB" "Tesla P100-PCIE-16GB" "Tesla P4" "Tesla T4" "Tesla V100-PCIE-32GB"; do
      files+=("$train/$op/$gpu.csv")
    done
  done
  files+=("$train/elem-curated.csv" "$train/softmax-curated.csv" "$train/ln-curated.csv")
}
