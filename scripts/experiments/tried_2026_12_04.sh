#!/usr/bin/env bash
# An experiment, not part of CI or of the shipped model: the three variants tried on 4 Dec 2026
# and not kept, each a small change to the core applied in a throwaway worktree of HEAD, built
# there, and run through the check that judged it:
#   attention SHARE   every decode's K/V read at SHARE of the datasheet bandwidth instead of the
#                     FP16 GEMM model's streaming rate (docs/serving.md, "Engines"); make
#                     serving-checks' summary
#   hopper-gemm F     both terms of the tensor-core GEMM model x F on Hopper GPUs only (the H200's
#                     measured GEMMs: F = 0.87; docs/fp16-model.md, "Transfers"); the H200
#                     serving-shape linears, then make serving-checks' summary (and the path of
#                     its whole table, kept)
#   overhead-cycles   the learned nets' per-kernel overhead head in cycles (x 1410 MHz / the
#                     GPU's clock, in the fit and the forecast); the FP16 A100 <-> A40 table
#                     (docs/fp16-model.md, "Known gaps")
# Usage: scripts/experiments/tried_2026_12_04.sh VARIANT [VALUE]    (a few minutes each: a native
# build of the CLI in the worktree; CMAKE_CXX_COMPILER_LAUNCHER=ccache speeds it up)
set -euo pipefail
cd "$(dirname "$0")/../.."
variant="${1:?usage: tried_2026_12_04.sh attention SHARE | hopper-gemm FACTOR | overhead-cycles}"
value="${2:-}"
case "$variant" in
  attention | hopper-gemm)
    [[ "$value" =~ ^[0-9]*[.]?[0-9]+$ ]] || { echo "tried_2026_12_04: $variant takes a number, e.g. 0.85" >&2; exit 2; } ;;
  overhead-cycles) ;;
  *) echo "tried_2026_12_04: unknown variant '$variant' (allowed: attention, hopper-gemm, overhead-cycles)" >&2; exit 2 ;;
esac
source scripts/experiments/worktree.sh

python3 - "$tree" "$variant" "$value" <<'PY'
import sys
tree, variant, value = sys.argv[1:]

def patch(path, old, new):
    p = f"{tree}/{path}"
    s = open(p).read()
    if old not in s:
        sys.exit(f"tried_2026_12_04: {path} changed since 4 Dec 2026; the patch no longer applies")
    open(p, "w").write(s.replace(old, new, 1))

if variant == "attention":
    patch("core/src/forecast/kernel_times.cpp",
          "  if (predictor == Predictor::roofline) return gpu.mem_bw_gbps;\n  const std::int64_t dims",
          f"  if (predictor == Predictor::roofline) return gpu.mem_bw_gbps;\n"
          f"  return gpu.mem_bw_gbps * {value};\n"
          f"  const std::int64_t dims")
elif variant == "hopper-gemm":
    patch("core/src/learned/tensor_gemm.cpp",
          "  t.memory_ms = kernel_bytes(k) / (gpu.mem_bw_gbps * 1e6);\n  return t;",
          "  t.memory_ms = kernel_bytes(k) / (gpu.mem_bw_gbps * 1e6);\n"
          f"  if (gpu.architecture == \"Hopper\") {{\n    t.compute_ms *= {value};\n"
          f"    t.memory_ms *= {value};\n  }}\n  return t;")
else:
    patch("core/src/train/family_fit.cpp",
          "        const double c = st.overhead_max_ms * sc;",
          "        const double oscale = s.gpu ? 1410.0 / s.gpu->clock_mhz : 1.0;\n"
          "        const double c = st.overhead_max_ms * sc * oscale;")
    patch("core/src/train/family_fit.cpp",
          "tail.delta.back()[1] = dpred * st.overhead_max_ms * sc * (1.0 - sc);",
          "tail.delta.back()[1] = dpred * st.overhead_max_ms * oscale * sc * (1.0 - sc);")
    patch("core/src/learned/latency.cpp",
          "  r.heads = heads_from_outputs(out, model.overhead_max_ms);",
          "  r.heads = heads_from_outputs(out, model.overhead_max_ms);\n"
          "  r.heads.overhead_ms *= 1410.0 / gpu.clock_mhz;")
PY

trial_build
cli="$tree/build/cli/tilecast"
case "$variant" in
  attention | hopper-gemm)
    if [ "$variant" = hopper-gemm ]; then
      S=data/measured/h200/session-2026-12-04/serving
      for f in kernels-bf16/linear.csv kernels-fp8/linear.csv; do
        echo "H200 $f (>= 30 us): $(cd "$tree" && "$cli" eval-kernels --devices $S/devices --min-measured-us 30 "$S/$f" | tail -1)"
      done
    fi
    trial_serving_checks ;;
  overhead-cycles)
    (cd "$tree" && bash scripts/eval_fp16_cross_gpu.sh build) ;;
esac
