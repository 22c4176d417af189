#!/usr/bin/env bash
# A lent GPU session's measurements for the eager mixture-of-experts graph (issue 29, MoE router
# costs), prepared as one call: whole-model BF16 labels of the top-k MoE models people run in
# Hugging Face eager (Qwen1.5-MoE, Mixtral 8x7B, Qwen3-30B-A3B), each with one profiled step
# where the trace stays small, the broadcast add of scripts/measure/strided_elementwise.py, the
# operands of the Switch Transformer's slow element-wise calls
# (scripts/measure/elementwise_operands.py), and the installed transformers' expert-loop
# settings (which implementation runs the experts).
#
#   bash scripts/measure/moe_session.sh OUT [TOTAL_S]     # default 330 s, plus ~140 s more
#
# Writes OUT/strided/, OUT/operands/, OUT/library.txt, OUT/moe/ (a kit folder with profiles/),
# OUT/moe-eager/ (one of them again with transformers 5's eager expert loop) and
# OUT/moe-large/ (Qwen3-30B-A3B: 128 experts a layer, ~90k launches a forward, not profiled).
# Every case is a zoo model; `--cases` checks them up front.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:?usage: scripts/measure/moe_session.sh OUT [TOTAL_S]}"
TOTAL_S="${2:-330}"
mkdir -p "$OUT"
python3 scripts/measure/strided_elementwise.py --out "$OUT/strided" --budget-s 40 ||
  echo "strided element-wise failed; going on" >&2
# Which operands the Switch's slow adds read (and GPT-2's and BERT's mask adds beside them).
python3 scripts/measure/elementwise_operands.py --out "$OUT/operands" --budget-s 60 ||
  echo "element-wise operands failed; going on" >&2
# Which code runs the experts in this transformers release (the graph follows the eager loop).
python3 - >"$OUT/library.txt" 2>&1 <<'EOF' || echo "library facts failed; going on" >&2
import inspect, transformers
print("transformers", transformers.__version__)
for mod, cfg_cls in (("qwen2_moe", "Qwen2MoeConfig"), ("mixtral", "MixtralConfig"),
                     ("qwen3_moe", "Qwen3MoeConfig")):
    m = __import__(f"transformers.models.{mod}.modeling_{mod}", fromlist=["x"])
    c = getattr(transformers, cfg_cls)()
    print(f"== {mod}: experts implementation {getattr(c, '_experts_implementation', None)!r}")
    for name, obj in vars(m).items():
        if inspect.isclass(obj) and ("Experts" in name or "SparseMoe" in name):
            print(f"-- {name}\n{inspect.getsource(obj)}")
EOF
# Qwen1.5-MoE (60 experts, top 4, a shared expert) and Mixtral (8 experts, top 2), profiled;
# Qwen3-30B-A3B (128 experts, top 8) without profiles (~90,000 launches a forward).
PROFILED="qwen1.5-moe-a2.7b:inf:512:1,mixtral-8x7b:inf:512:1,qwen1.5-moe-a2.7b:train:512:1"
PROFILED+=",mixtral-8x7b:inf:2048:1,qwen1.5-moe-a2.7b:inf:128:8"
LARGE="qwen3-30b-a3b:inf:512:1,qwen3-30b-a3b:inf:128:1"
EAGER="qwen1.5-moe-a2.7b:inf:512:1"
third=$((TOTAL_S / 3))
python3 scripts/measure/measure.py --out "$OUT/moe" --dtype bf16 --budget-s $((2 * third)) \
  --kernels-share 0 --no-kernel-names --profile-labels \
  --cases "$PROFILED" ||
  echo "moe labels failed; going on" >&2
# The same small mixture with transformers 5's eager expert loop (the library's default is
# grouped_mm: one grouped GEMM per projection, no host synchronisation), profiled.
python3 scripts/measure/measure.py --out "$OUT/moe-eager" --dtype bf16 --budget-s 40 \
  --kernels-share 0 --no-kernel-names --profile-labels --experts-implementation eager \
  --cases "$EAGER" || echo "eager-experts labels failed; going on" >&2
python3 scripts/measure/measure.py --out "$OUT/moe-large" --dtype bf16 --budget-s "$third" \
  --kernels-share 0 --no-kernel-names --cases "$LARGE" ||
  echo "large moe labels failed; going on" >&2
echo "wrote $OUT/moe, $OUT/moe-eager and $OUT/moe-large"
