# Sourced by the trial scripts (tried_*.sh): a throwaway worktree of HEAD at $tree (../shared
# beside it, as beside the repository), removed when the script exits. The script patches it, then
# trial_build builds its CLI and trial_serving_checks judges it on make serving-checks.
repo="$(pwd)"
tree="$(mktemp -d)/tree"
git worktree add --detach -q "$tree" HEAD
trap 'git -C "$repo" worktree remove --force "$tree"; rm -rf "$(dirname "$tree")"' EXIT
ln -s "$(cd ../shared && pwd)" "$(dirname "$tree")/shared"

# Builds the patched worktree's CLI at $tree/build/cli/tilecast.
trial_build() {
  (cd "$tree" && cmake --preset default >/dev/null && cmake --build --preset default -j "$(nproc)" --target tilecast >/dev/null)
}

# make serving-checks with the patched CLI: its summary lines, each group's median absolute error to
# 0.1 %, and the path of its whole table (docs/serving-checks.md's form).
trial_serving_checks() {
  local out json
  out="$(mktemp --suffix=.md)"
  json="$(mktemp --suffix=.json)"
  (cd "$tree" && TILECAST_CLI="$tree/build/cli/tilecast" bash scripts/serving_checks.sh "$out" >/dev/null &&
    TILECAST_CLI="$tree/build/cli/tilecast" node scripts/serving_checks.mjs --json "$json" >/dev/null)
  grep -E '^\* (Static|Loaded|TP|Quantized) rows \(' "$out" | cut -c1-110
  grep -A2 '^By GPU and precision' "$out" | tail -1
  python3 - "$json" <<'PY'
import json, statistics, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r.get("ratio")]
med = lambda rs: statistics.median(abs(r["ratio"] - 1) for r in rs) * 100
groups = {"static": [r for r in rows if not r["loaded"]], "loaded": [r for r in rows if r["loaded"]],
          "TP": [r for r in rows if r["tp"] > 1], "quantized": [r for r in rows if r["quantized"]]}
print("median absolute error: " + ", ".join(f"{k} {med(v):.1f} % ({len(v)})" for k, v in groups.items()))
PY
  echo "every row: $out (docs/serving-checks.md's form)"
}
