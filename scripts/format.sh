#!/usr/bin/env bash
# Formats the tree in place: clang-format (the repo's .clang-format) over every tracked or new
# (untracked, not ignored) *.cpp / *.hpp, prettier (web/.prettierrc.json) over the calculator's
# TypeScript and JavaScript. scripts/check_format.sh is the check CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/format_files.sh
command -v clang-format >/dev/null 2>&1 && [ -d web/node_modules/prettier ] || bash scripts/bootstrap.sh
clang-format -i "${cpp_files[@]}"
(cd web && npx --no-install prettier --write --log-level warn "${web_files[@]}")
echo "format: done"
