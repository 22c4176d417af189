#!/usr/bin/env bash
# Serves the built calculator (web/dist/) on http://localhost:8080 (PORT overrides).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f web/dist/index.html ] || { echo "serve: web/dist/ is not built; run scripts/build_web.sh" >&2; exit 1; }
exec node web/scripts/serve.mjs --root web/dist --port "${PORT:-8080}"
