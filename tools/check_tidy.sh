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
# A unity build's database names the batches, not the sources: clang-tidy
# then needs one of its own, which configuring the same options without
# unity gives (no build; a few seconds).
if ! grep -q '"file": "[^"]*/src/core/tensor.cpp"' "$build/compile_commands.json"; then
  cached() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
  per_file="$build/tidy-compile-db"
  CXX="$(cached CMAKE_CXX_COMPILER)" cmake -S "$repo" -B "$per_file" -G Ninja -DCMAKE_UNITY_BUILD=OFF \
    -DCMAKE_BUILD_TYPE="$(cached CMAKE_BUILD_TYPE)" -DFP_TORCH_DIR="$(cached FP_TORCH_DIR)" \
    -DFP_BORROW_CHECK="$(cached FP_BORROW_CHECK)" -DFP_BUILD_BENCH=OFF >/dev/null
  build="$per_file"
fi
# run-clang-tidy takes regular expressions of the files to check.
mapfile -t sources < <(cd "$repo" && git ls-files --cached --others --exclude-standard -- 'src/*.cpp' |
  grep -v '/generated/' | sed "s|^|$repo/|" | grep -E "$files")
run-clang-tidy-14 -quiet -p "$build" -j "$(nproc)" \
  -header-filter="$repo/(include/flash_powder|src)/" "${sources[@]}"
echo "check_tidy: ${#sources[@]} files, no finding"
