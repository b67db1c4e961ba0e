#!/usr/bin/env bash
# Loading a ~500 MB safetensors file: flash_powder (mmap, into preallocated
# tensors, owned) against Python's safetensors.torch.load_file and torch.load
# of the same weights, and against memcpy, in one run; prints the ratios.
#
#   bench/run_safetensors.sh [FILE.safetensors]   (default /tmp/fp_bench_load.safetensors)
#
# The weights (and a .pt copy) are made once, outside the repository.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FP_BUILD_DIR:-$REPO/build}"
PYTHON="$REPO/.venv/bin/python"
FILE="${1:-/tmp/fp_bench_load.safetensors}"
PT="${FILE%.safetensors}.pt"
WORK="$(mktemp -d)"
# One thread for libtorch on both sides: the copies are memory-bound, and on a
# small shared machine OpenMP threads that lose their core to another process
# make copy_ 10x slower at random (seen here on 2 cores). Override to compare.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
trap 'rm -rf "$WORK"' EXIT

if [ ! -f "$FILE" ] || [ ! -f "$PT" ]; then
  echo "==> creating $FILE and $PT"
  "$PYTHON" "$REPO/bench/safetensors_load.py" create "$FILE" "$PT"
fi
cmake --build "$BUILD" --target bench_safetensors_load >/dev/null
cat "$FILE" "$PT" >/dev/null  # into the page cache: every case is measured warm

echo "==> flash_powder (C++), OMP_NUM_THREADS=$OMP_NUM_THREADS"
"$BUILD/bench/bench_safetensors_load" "$FILE" --benchmark_out="$WORK/cpp.json" \
  --benchmark_out_format=json
echo "==> Python"
"$PYTHON" "$REPO/bench/safetensors_load.py" run "$FILE" "$PT" "$WORK/py.json"
echo
"$PYTHON" "$REPO/bench/safetensors_load.py" report "$WORK/cpp.json" "$WORK/py.json" "$FILE"
