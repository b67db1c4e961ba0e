#!/usr/bin/env bash
# Building layers (BERT's 30522 x 384 embedding, a 384 -> 1536 linear): with
# PyTorch's random initial values, without them, and on the meta device,
# flash_powder against PyTorch in one run; prints the ratios.
#
#   bench/run_model_construction.sh [RUNS]   (default 7; the median is reported)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FP_BUILD_DIR:-$REPO/build}"
PYTHON="$REPO/.venv/bin/python"
RUNS="${1:-7}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

cmake --build "$BUILD" --target bench_model_construction >/dev/null
"$BUILD/bench/bench_model_construction" "$RUNS" >"$WORK/cpp.json"
"$PYTHON" "$REPO/bench/model_construction.py" run "$RUNS" >"$WORK/py.json"
"$PYTHON" "$REPO/bench/model_construction.py" report "$WORK/cpp.json" "$WORK/py.json"
