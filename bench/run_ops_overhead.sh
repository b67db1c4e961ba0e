#!/usr/bin/env bash
# What a call costs through flash_powder, against libtorch's C++ API and
# PyTorch Python, measured in one run with the same thread setting: tiny
# tensors (overhead only), a matmul, a conv2d and examples/network's forward.
# Prints one table with each side's time and the ratios.
#
#   bench/run_ops_overhead.sh [--borrow-check] [--markdown]
#
#   --borrow-check  also build flash_powder with -DFP_BORROW_CHECK=ON (a second
#                   build folder, minutes the first time) and time the tiny cases
#   --markdown      print the table as Markdown (for bench/README.md)
#
# Environment: OMP_NUM_THREADS (default 1, both C++ sides and Python),
# FP_BENCH_ROUNDS (3: the three programs run one after another, this many
# times, so that a slow spell of the machine hits every side),
# FP_BENCH_REPETITIONS (3 timed batches per case and round),
# FP_BENCH_MIN_TIME (0.1 s per batch), FP_BENCH_BUILD_DIR (build-bench).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FP_BENCH_BUILD_DIR:-$REPO/build-bench}"
BORROW_BUILD="${BUILD}-borrow"
PYTHON="$REPO/.venv/bin/python"
CHECKPOINT=/tmp/fp_bench_network.safetensors
ROUNDS="${FP_BENCH_ROUNDS:-3}"
REPETITIONS="${FP_BENCH_REPETITIONS:-3}"
MIN_TIME="${FP_BENCH_MIN_TIME:-0.1}"
# One intra-op thread everywhere: on a small shared machine, OpenMP threads
# that lose their core make times jump; the tiny cases never use more anyway.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
export MKL_NUM_THREADS="$OMP_NUM_THREADS"

borrow=0
markdown=()
for argument in "$@"; do
  case "$argument" in
    --borrow-check) borrow=1 ;;
    --markdown) markdown=(--markdown) ;;
    *) echo "usage: $0 [--borrow-check] [--markdown]" >&2; exit 2 ;;
  esac
done

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

configure() {  # configure FOLDER OPTIONS...: a Release build of just the library and bench/
  local folder="$1"
  shift
  local generator=()
  if [ ! -f "$folder/CMakeCache.txt" ] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
  cmake -S "$REPO" -B "$folder" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DFP_BUILD_TESTS=OFF -DFP_BUILD_EXAMPLES=OFF -DFP_BUILD_BENCH=ON "$@" >/dev/null
}

echo "==> building in $BUILD (Release, FP_BORROW_CHECK=OFF, with libtorch's C++ API)"
configure "$BUILD" -DFP_BORROW_CHECK=OFF -DFP_BUILD_BENCH_LIBTORCH=ON
cmake --build "$BUILD" --target bench_ops_overhead bench_ops_overhead_libtorch >/dev/null
if [ "$borrow" = 1 ]; then
  echo "==> building in $BORROW_BUILD (Release, FP_BORROW_CHECK=ON)"
  configure "$BORROW_BUILD" -DFP_BORROW_CHECK=ON -DFP_BUILD_BENCH_LIBTORCH=OFF
  cmake --build "$BORROW_BUILD" --target bench_ops_overhead >/dev/null
fi
if [ ! -f "$CHECKPOINT" ]; then
  echo "==> writing $CHECKPOINT"
  "$PYTHON" "$REPO/examples/network/make_checkpoint.py" "$CHECKPOINT" >/dev/null
fi

flags=(--benchmark_repetitions="$REPETITIONS" --benchmark_min_time="$MIN_TIME"
       --benchmark_out_format=json)
tiny_cases='^(add|mul|mul_typed|mul_by_name|mul_number|sum|index_view|transpose|shallow_copy|copy|clone|item|sizes)/'
for round in $(seq "$ROUNDS"); do
  echo "==> round $round of $ROUNDS (OMP_NUM_THREADS=$OMP_NUM_THREADS): flash_powder"
  "$BUILD/bench/bench_ops_overhead" "$CHECKPOINT" "${flags[@]}" \
    --benchmark_out="$WORK/fp.$round.json" >/dev/null
  if [ "$borrow" = 1 ]; then
    echo "==> round $round of $ROUNDS: flash_powder with the borrow check"
    "$BORROW_BUILD/bench/bench_ops_overhead" "$CHECKPOINT" "${flags[@]}" \
      --benchmark_filter="$tiny_cases" --benchmark_out="$WORK/borrow.$round.json" >/dev/null
  fi
  echo "==> round $round of $ROUNDS: libtorch C++"
  "$BUILD/bench/bench_ops_overhead_libtorch" "$CHECKPOINT" "${flags[@]}" \
    --benchmark_out="$WORK/libtorch.$round.json" >/dev/null 2>"$WORK/libtorch.log"
  echo "==> round $round of $ROUNDS: Python"
  "$PYTHON" "$REPO/bench/ops_overhead.py" run "$WORK/py.$round.json" --checkpoint "$CHECKPOINT" \
    --repetitions "$REPETITIONS" --min-time "$MIN_TIME" 2>/dev/null
done

echo
borrow_files=()
[ "$borrow" = 1 ] && borrow_files=(--fp-borrow "$WORK"/borrow.*.json)
"$PYTHON" "$REPO/bench/ops_overhead.py" report "${markdown[@]}" --fp "$WORK"/fp.*.json \
  --libtorch "$WORK"/libtorch.*.json --python "$WORK"/py.*.json "${borrow_files[@]}"
