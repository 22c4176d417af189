#!/usr/bin/env bash
# Fails on formatting drift, so the tree stays as `make format` leaves it (CI runs this through
# scripts/test.sh): clang-format (the repo's .clang-format; Debian 12's clang-format 14, what CI
# has) over every tracked *.cpp / *.hpp, then prettier (web/.prettierrc.json: 120 columns) over
# the calculator's TypeScript and JavaScript, and tsc --noEmit over web/src.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/format_files.sh
command -v clang-format >/dev/null 2>&1 && [ -d web/node_modules/prettier ] || bash scripts/bootstrap.sh
status=0
clang-format --dry-run --Werror "${cpp_files[@]}" || {
  echo "check_format: C++ files differ from clang-format $(clang-format --version | grep -o '[0-9][0-9.]*' | head -1); run make format" >&2
  status=1
}
(cd web && npx --no-install prettier --check --log-level warn "${web_files[@]}") || {
  echo "check_format: web files differ from prettier; run make format" >&2
  status=1
}
(cd web && npx --no-install tsc --noEmit) || status=1
[ "$status" -eq 0 ] && echo "check_format: C++ and TypeScript formatted, types check"
exit "$status"
