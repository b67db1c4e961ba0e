#!/usr/bin/env bash
# One forward of examples/aoti/classifier.py (batch 1, 3x32x32) in one run,
# one thread: flash_powder running the AOTInductor package frozen
# (tools/export_aoti.py's default) and unfrozen (--no-freeze), Python's own
# loader on the same two packages, eager PyTorch, and torch.compile; prints
# each time over flash_powder's on the frozen package.
#
#   bench/run_aoti.sh
#
# The frozen package is the example's (build/example_aoti/classifier.pt2,
# exported by examples/aoti/run.sh, which this runs first if needed); the
# unfrozen one is exported here once (cached beside it by the sources'
# digest and the torch version; a minute or more).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FP_BUILD_DIR:-$REPO/build}"
PYTHON="$REPO/.venv/bin/python"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export OMP_NUM_THREADS=1

cmake --build "$BUILD" --target bench_aoti_forward fp_aoti_example >/dev/null
FROZEN="$BUILD/example_aoti/classifier.pt2"
if [ ! -f "$FROZEN" ]; then
  "$REPO/examples/aoti/run.sh" "$PYTHON" "$BUILD/examples/aoti/fp_aoti_example" "$BUILD/example_aoti"
fi
torch_version="$("$PYTHON" -c 'import torch; print(torch.__version__)')"
UNFROZEN="$BUILD/example_aoti/classifier-unfrozen-$torch_version.pt2"
key="$torch_version-$(cat "$REPO/examples/aoti/classifier.py" "$REPO/tools/export_aoti.py" | sha256sum | cut -c1-16)"
if [ "$(cat "$UNFROZEN.key" 2>/dev/null)" != "$key" ]; then
  "$PYTHON" "$REPO/tools/export_aoti.py" "$REPO/examples/aoti/classifier.py" -o "$UNFROZEN" \
    --example-input 'float32[2,3,32,32]' --dynamic 0:0:batch:1:16 --no-freeze
  echo "$key" > "$UNFROZEN.key"
fi
"$PYTHON" "$REPO/bench/aoti_forward.py" input "$FROZEN" "$WORK/input.safetensors"
for kind in frozen unfrozen; do
  package="$FROZEN"
  [ "$kind" = unfrozen ] && package="$UNFROZEN"
  echo "==> flash_powder (C++), $kind package"
  "$BUILD/bench/bench_aoti_forward" "$package" "$WORK/input.safetensors" --benchmark_min_time=2 \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=false \
    --benchmark_out="$WORK/cpp-$kind.json" --benchmark_out_format=json
done
echo "==> Python"
"$PYTHON" "$REPO/bench/aoti_forward.py" run "$FROZEN" "$UNFROZEN" "$WORK/input.safetensors" "$WORK/py.json"
echo
"$PYTHON" "$REPO/bench/aoti_forward.py" report "$WORK/cpp-frozen.json" "$WORK/cpp-unfrozen.json" \
  "$WORK/py.json"
