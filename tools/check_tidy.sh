#!/usr/bin/env bash
# Runs clang-tidy 14 with the repository's .clang-tidy over flash_powder's
# sources (src/, and the headers of include/flash_powder they include), using
# a build's compile_commands.json; fails on any finding.
#
#   tools/check_tidy.sh [BUILD_DIR] [FILE_REGEX]   (default: build, every file of src/)
#
# It takes minutes of CPU (every source is parsed again), so it is its own
# lane: scripts/test --lane tidy. The generated sources (src/ops/generated,
# src/abi/generated) are left out: they are checked against their generators.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$repo/build}" && pwd)"
files="${2:-$repo/src/}"
[ -f "$build/compile_commands.json" ] ||
  { echo "check_tidy: no $build/compile_commands.json (configure the build first)" >&2; exit 2; }
# run-clang-tidy takes regular expressions of the files to check.
mapfile -t sources < <(cd "$repo" && git ls-files --cached --others --exclude-standard -- 'src/*.cpp' |
  grep -v '/generated/' | sed "s|^|$repo/|" | grep -E "$files")
run-clang-tidy-14 -quiet -p "$build" -j "$(nproc)" \
  -header-filter="$repo/(include/flash_powder|src)/" "${sources[@]}"
echo "check_tidy: ${#sources[@]} files, no finding"
