#!/usr/bin/env bash
# Runs clang-tidy 14 with the repository's .clang-tidy over flash_powder's
# sources (src/, and the headers of include/flash_powder they include), using
# a build's compile_commands.json; fails on any finding.
#
#   tools/check_tidy.sh [BUILD_DIR] [FILE_REGEX]   (default: build, every file of src/)
#
# Every file of src/: on a unity build (scripts/lib/setup.sh makes one) it
# runs over the build's batches, each a handful of sources parsed once with
# the headers they share: about 4.5x less CPU than one run per source, which
# spends most of its time parsing the same headers again. A line filter
# keeps the findings to flash_powder's own files, so the batch file's
# `#include "x.cpp"` (bugprone-suspicious-include) is not one. Seeing a
# batch's other sources, clang-tidy also follows calls into them (a noexcept
# function calling one that throws: bugprone-exception-escape).
# FILE_REGEX, or a build without unity: one run per matching source, through
# a per-file compile database configured beside the build.
# The generated sources (src/aten/generated, src/abi/generated) are left out:
# they are checked against their generators.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$repo/build}" && pwd)"
file_regex="${2:-}"
[ -f "$build/compile_commands.json" ] ||
  { echo "check_tidy: no $build/compile_commands.json (configure the build first)" >&2; exit 2; }
header_filter="$repo/(include/flash_powder|src)/"

# The files a compile database compiles, one per line.
database_files() {
  sed -n 's/^ *"file": "\(.*\)",\{0,1\}$/\1/p' "$1/compile_commands.json"
}

# flash_powder's own hand-written files, absolute paths, one per line.
own_files() {
  (cd "$repo" && git ls-files --cached --others --exclude-standard -- "$@") |
    grep -v '/generated/' | sed "s|^|$repo/|"
}

mapfile -t sources < <(own_files 'src/*.cpp')
unity=0
grep -q '"file": "[^"]*/Unity/unity_[0-9]*_cxx.cxx"' "$build/compile_commands.json" && unity=1

if [ -z "$file_regex" ] && [ $unity -eq 1 ]; then
  # The batches of the library's targets, and the sources built outside any.
  mapfile -t units < <(database_files "$build" | grep -E "^($build/src/.*/Unity/unity_[0-9]+_cxx\.cxx|$repo/src/.*)$" |
    grep -v '/generated/')
  covered="$(database_files "$build" | grep -E "^$repo/src/" || true)
$(grep -h '^#include "' "${units[@]}" 2>/dev/null | sed 's/^#include "\(.*\)"$/\1/' || true)"
  for source in "${sources[@]}"; do
    grep -qxF "$source" <<<"$covered" ||
      { echo "check_tidy: $source is in no batch of $build and not built on its own: it would go unchecked" >&2; exit 2; }
  done
  filter="[$(own_files 'src/*.cpp' 'src/*.h' 'include/flash_powder/*.h' | sed 's|.*|{"name":"&"}|' | paste -sd,)]"
  run-clang-tidy-14 -quiet -p "$build" -j "$(nproc)" -header-filter="$header_filter" -line-filter="$filter" \
    "${units[@]}"
  echo "check_tidy: ${#sources[@]} files in ${#units[@]} batches, no finding"
  exit 0
fi

if [ $unity -eq 1 ]; then
  # A unity build's database names the batches, not the sources: one run per
  # source needs a database of its own, which configuring the same options
  # without unity gives (no build; a few seconds).
  cached() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
  per_file="$build/tidy-compile-db"
  CXX="$(cached CMAKE_CXX_COMPILER)" cmake -S "$repo" -B "$per_file" -G Ninja -DCMAKE_UNITY_BUILD=OFF \
    -DCMAKE_BUILD_TYPE="$(cached CMAKE_BUILD_TYPE)" -DFP_TORCH_DIR="$(cached FP_TORCH_DIR)" \
    -DFP_BORROW_CHECK="$(cached FP_BORROW_CHECK)" -DFP_BUILD_BENCH=OFF >/dev/null
  build="$per_file"
fi
# run-clang-tidy takes regular expressions of the files to check.
mapfile -t sources < <(printf '%s\n' "${sources[@]}" | grep -E "${file_regex:-$repo/src/}")
[ ${#sources[@]} -gt 0 ] || { echo "check_tidy: no source of src/ matches '$file_regex'" >&2; exit 2; }
run-clang-tidy-14 -quiet -p "$build" -j "$(nproc)" -header-filter="$header_filter" "${sources[@]}"
echo "check_tidy: ${#sources[@]} files, no finding"
