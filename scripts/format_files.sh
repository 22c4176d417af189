# The files `make format` formats and scripts/check_format.sh checks, in one place. Sourced from
# the repository root: fills `cpp_files` (the C++ sources git tracks or would: a new file is
# formatted and checked before its first commit) and `web_files` (globs relative to web/, for
# prettier).
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t cpp_files < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp')
else
  mapfile -t cpp_files < <(find core wasm tests bench -name '*.cpp' -o -name '*.hpp' | sort)
fi
web_files=('src/**/*.{ts,js}' 'tests/**/*.mjs' 'scripts/**/*.mjs' 'vite.config.ts')
