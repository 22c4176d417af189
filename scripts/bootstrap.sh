#!/usr/bin/env bash
# Installs every Debian and npm package the build and tests need. Idempotent:
# when everything is present it only checks and returns within seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

# clang + libclang-rt-dev (its sanitizer and libFuzzer runtimes): the fuzz smoke (scripts/fuzz.sh);
# binaryen (Emscripten's own dependency): wasm-opt and wasm-split, which scripts/split_wasm.mjs runs
debs=(cmake g++ make nlohmann-json3-dev doctest-dev emscripten binaryen node-acorn chromium gzip
  clang-format clang libclang-rt-dev)
missing=()
# Node may come from Debian or NodeSource (whose nodejs ships npm and conflicts with Debian's npm).
command -v node >/dev/null 2>&1 || debs+=(nodejs)
command -v npm >/dev/null 2>&1 || debs+=(npm)
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ -f web/package-lock.json ]; then
  stamp=web/node_modules/.bootstrap-stamp
  if [ ! -f "$stamp" ] || [ web/package-lock.json -nt "$stamp" ]; then
    echo "bootstrap: npm ci in web/"
    (cd web && npm ci --no-audit --no-fund --loglevel=error)
    touch "$stamp"
  fi
fi
echo "bootstrap: all dependencies present"
