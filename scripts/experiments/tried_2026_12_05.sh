#!/usr/bin/env bash
# An experiment, not part of CI or of the shipped model: the serving engines' own all-reduce, tried
# on 5 Dec 2026 and not kept (docs/serving.md, "Tensor parallelism"). A small change to the core in
# a throwaway worktree of HEAD, built there, run through make serving-checks:
#   engine-all-reduce L1 [two-shot]
#       a tensor-parallel all-reduce of the fused engine on an NVSwitch node takes the least of the
#       comm model's NCCL time and a one-shot kernel, L1 us + (n - 1) x bytes at 0.8 of the GPU's
#       NVLink bandwidth per direction (with `two-shot`, also 12.5 us + 2 (n - 1) / n x bytes at
#       0.55 of it): vLLM's custom all-reduce inside CUDA graphs (H100, BF16, hidden 8192; vLLM pull
#       requests 24532 (TP 4: ca_1stage 10 us at 0.5 MiB, 38 us at 4 MiB) and 24111 (TP 6: 13 and
#       70 us; ca_2stage 15 and 37 us)) in place of the NCCL curve fitted on Vidur's eager timings
#       (22.4 us a call on its own).
#   grouped-experts
#       the fused engine's routed experts as one grouped GEMM per projection (every active
#       expert's tiles in one launch, waves over the SMs, each expert's weights read once; the
#       batched-GEMM form of GraphBuilder::stacked_linear at the mean rows per expert) in place of
#       one GEMM per active expert, as a fused MoE kernel runs them (docs/models.md, DeepSeek-V3).
#   fp8-time-multiple
#       the FP8 transfer with the time multiple its published cuBLASLt rows give (1.12,
#       `tilecast eval-gemms --file data/published/gemm-kernels.json`), as the FP4 transfer carries
#       its own; judged on make serving-checks and on the project's H200 FP8 linears at serving
#       shapes (docs/serving.md, "NVFP4 GEMMs at their published kernel times").
# Usage: scripts/experiments/tried_2026_12_05.sh engine-all-reduce 5.5 [two-shot]
#        scripts/experiments/tried_2026_12_05.sh grouped-experts
#        scripts/experiments/tried_2026_12_05.sh fp8-time-multiple
# (a few minutes: a native build of the CLI in the worktree; CMAKE_CXX_COMPILER_LAUNCHER=ccache
# speeds it up)
set -euo pipefail
cd "$(dirname "$0")/../.."
variant="${1:?usage: tried_2026_12_05.sh engine-all-reduce L1_US [two-shot] | grouped-experts | fp8-time-multiple}"
value="${2:-}"
two="${3:-}"
case "$variant" in
  engine-all-reduce)
    [[ "$value" =~ ^[0-9]*[.]?[0-9]+$ ]] || { echo "tried_2026_12_05: $variant takes a latency in us, e.g. 5.5" >&2; exit 2; }
    [ -z "$two" ] || [ "$two" = two-shot ] || { echo "tried_2026_12_05: the third argument is two-shot or nothing" >&2; exit 2; } ;;
  grouped-experts | fp8-time-multiple) ;;
  *) echo "tried_2026_12_05: unknown variant '$variant' (allowed: engine-all-reduce, grouped-experts, fp8-time-multiple)" >&2; exit 2 ;;
esac
source scripts/experiments/worktree.sh

if [ "$variant" = fp8-time-multiple ]; then
  python3 - "$tree" <<'PY'
import json, sys
path = f"{sys.argv[1]}/core/data/models/nvidia-half-gemm/manifest.json"
m = json.load(open(path))
fp8 = [t for t in m["transfers"] if t["vendor"] == "NVIDIA" and t["precisions"] == ["fp8"]]
if len(fp8) != 1 or "time_multiple" in fp8[0]:
    sys.exit("tried_2026_12_05: the FP8 transfer changed since 5 Dec 2026; the patch no longer applies")
fp8[0]["time_multiple"] = 1.12
fp8[0]["calibration"] = "tilecast eval-gemms --file data/published/gemm-kernels.json"
json.dump(m, open(path, "w"), indent=2)
PY
  trial_build
  trial_serving_checks
  s=data/measured/h200/session-2026-12-04/serving
  "$tree/build/cli/tilecast" eval-kernels --devices "$s/devices" --min-measured-us 30 "$s/kernels-fp8/linear.csv"
  exit 0
fi

if [ "$variant" = grouped-experts ]; then
  python3 - "$tree" <<'PY'
import re, sys
path = f"{sys.argv[1]}/core/src/graph/engines/fused.cpp"
s = open(path).read()
loop = re.compile(r'for \(std::int64_t e = 0; e < routed\.active; \+\+e\)\s*g\.linear\(("experts (?:gate_up|down)"), routed\.rows\(e\), ')
if len(loop.findall(s)) != 2:
    sys.exit("tried_2026_12_05: graph/engines/fused.cpp changed since 5 Dec 2026; the patch no longer applies")
s = loop.sub(lambda m: f'g.stacked_linear({m.group(1)}, routed.active, ceil_div(assigned, routed.active), ', s)
open(path, "w").write(s)
PY
  trial_build
  trial_serving_checks
  for b in 1 16 128; do
    echo "DeepSeek-R1, 8 H200s, FP8, batch $b: decode $("$tree/build/cli/tilecast" serve --gpu h200 --model deepseek-r1 --tp 8 --precision fp8 --prompt 1024 --output 2 --batch "$b" --json | python3 -c 'import json,sys; print(round(json.load(sys.stdin)["decode_ms_per_token"], 2))') ms a token"
  done
  exit 0
fi

python3 - "$tree" "$value" "$two" <<'PY'
import sys
tree, l1, two = sys.argv[1:]
path = f"{tree}/core/src/serve/tensor_parallel.cpp"
s = open(path).read()
old = "  if (system_) {\n    CollectiveRequest r;"
if old not in s:
    sys.exit("tried_2026_12_05: serve/tensor_parallel.cpp changed since 5 Dec 2026; the patch no longer applies")
shots = "one, two" if two else "one"
s = s.replace(old, f"""  if (system_ && system_->topology == Topology::kNvswitch) {{
    const double bw = system_->link_bw_gbps_per_direction * 1e9, n = tp_;
    const double one = {l1} * 1e-3 + (n - 1) * bytes / (0.8 * bw) * 1e3;
    const double two = 12.5e-3 + 2 * (n - 1) / n * bytes / (0.55 * bw) * 1e3;
    CollectiveRequest r;
    r.collective = Collective::kAllReduce;
    r.bytes = bytes;
    r.gpus = tp_;
    (void)one;
    (void)two;
    return std::min({{{shots}, forecast_collective(*system_, r).time_ms}});
  }}
{old}""", 1)
s = s.replace('#include "serve/tensor_parallel.hpp"\n', '#include "serve/tensor_parallel.hpp"\n\n#include <algorithm>\n', 1)
open(path, "w").write(s)
PY

trial_build
trial_serving_checks
