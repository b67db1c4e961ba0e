#!/usr/bin/env bash
# The example op library (examples/extension) against plain PyTorch, eager
# and compiled, one thread; prints times and ratios (bench/extension_ops.py).
#
#   bench/run_extension.sh [--rounds N] [--budget SECONDS]
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FP_BUILD_DIR:-$REPO/build}"
PYTHON="${FP_BENCH_PYTHON:-$REPO/.venv/bin/python}"
export OMP_NUM_THREADS=1

cmake --build "$BUILD" --target fp_segmentation_ops >/dev/null
FP_SEGMENTATION_LIBRARY="$BUILD/examples/extension/libfp_segmentation_ops.so" \
  "$PYTHON" "$REPO/bench/extension_ops.py" "$@"
