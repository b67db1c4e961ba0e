#!/usr/bin/env bash
# One forward of examples/aoti/classifier.py (batch 1, 3x32x32) four ways, in
# one run, one thread: flash_powder running the AOTInductor package, Python's
# own loader on the same package, eager PyTorch, and torch.compile; prints
# each time over flash_powder's.
#
#   bench/run_aoti.sh
#
# The package is the example's (build/example_aoti/classifier.pt2, exported
# by examples/aoti/run.sh, which this runs first if needed).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FP_BUILD_DIR:-$REPO/build}"
PYTHON="$REPO/.venv/bin/python"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export OMP_NUM_THREADS=1

cmake --build "$BUILD" --target bench_aoti_forward fp_aoti_example >/dev/null
PACKAGE="$BUILD/example_aoti/classifier.pt2"
if [ ! -f "$PACKAGE" ]; then
  "$REPO/examples/aoti/run.sh" "$PYTHON" "$BUILD/examples/aoti/fp_aoti_example" "$BUILD/example_aoti"
fi
"$PYTHON" "$REPO/bench/aoti_forward.py" input "$PACKAGE" "$WORK/input.safetensors"
echo "==> flash_powder (C++)"
"$BUILD/bench/bench_aoti_forward" "$PACKAGE" "$WORK/input.safetensors" --benchmark_min_time=2 \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=false \
  --benchmark_out="$WORK/cpp.json" --benchmark_out_format=json
echo "==> Python"
"$PYTHON" "$REPO/bench/aoti_forward.py" run "$PACKAGE" "$WORK/input.safetensors" "$WORK/py.json"
echo
"$PYTHON" "$REPO/bench/aoti_forward.py" report "$WORK/cpp.json" "$WORK/py.json"
