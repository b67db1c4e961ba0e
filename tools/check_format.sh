#!/usr/bin/env bash
# Checks that flash_powder's own C++ is formatted with the repository's
# .clang-format (clang-format 14, Debian's): `clang-format --dry-run -Werror`
# over every tracked or new (not ignored) .cpp and .h file, except the
# generated ones (their generators' --check tests keep them as generated).
#
#   tools/check_format.sh          fails, naming each file and line, if one is not
#   tools/check_format.sh --fix    formats them in place instead
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
clang_format="$(command -v clang-format-14 || command -v clang-format)"
mode=(--dry-run -Werror)
[ "${1:-}" = "--fix" ] && mode=(-i)
# Generated sources: tools/generate_ops.py and tools/generate_schemas.py.
generated='^(src/aten/generated/|src/abi/generated/|include/flash_powder/aten/aten\.h$)'
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.cpp' '*.h' |
  grep -Ev "$generated" | while read -r file; do [ -f "$file" ] && echo "$file"; done)
"$clang_format" "${mode[@]}" "${files[@]}"
echo "check_format: ${#files[@]} files formatted"
