#!/usr/bin/env bash
# What a call costs through flash_powder, against libtorch's C++ API and
# PyTorch Python, measured in one run with the same thread setting: tiny
# tensors (overhead only), a matmul, a conv2d and examples/network's forward.
# Prints one table with each side's time and the ratios.
#
#   bench/run_ops_overhead.sh [--borrow-check] [--callgrind] [--markdown]
#
#   --borrow-check  also build flash_powder with -DFP_BORROW_CHECK=ON (a second
#                   build folder, minutes the first time) and time the tiny cases
#   --callgrind     instead of timing, count the instructions per call of the
#                   tiny cases under valgrind's callgrind (C++ sides only;
#                   FP_BENCH_ITERATIONS calls per case, default 2000): numbers
#                   that do not depend on how busy the machine is
#   --markdown      print the table as Markdown (for bench/README.md)
#
# Environment: OMP_NUM_THREADS (default 1, both C++ sides and Python),
# FP_BENCH_ROUNDS (3: the three programs run one after another, this many
# times, so that a slow spell of the machine hits every side),
# FP_BENCH_REPETITIONS (3 timed batches per case and round),
# FP_BENCH_MIN_TIME (0.1 s of CPU time per batch), FP_BENCH_CLOCK (cpu: time
# spent waiting for a core on a busy machine does not count; the default is
# real when OMP_NUM_THREADS is not 1, where CPU time would add up the threads),
# FP_BENCH_BUILD_DIR (build-bench), FP_BENCH_OUT (a folder to keep the JSON
# results in; by default they go to a temporary one).
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
if [ "$OMP_NUM_THREADS" = 1 ]; then CLOCK="${FP_BENCH_CLOCK:-cpu}"; else CLOCK="${FP_BENCH_CLOCK:-real}"; fi

borrow=0
callgrind=0
markdown=()
for argument in "$@"; do
  case "$argument" in
    --borrow-check) borrow=1 ;;
    --callgrind) callgrind=1 ;;
    --markdown) markdown=(--markdown) ;;
    *) echo "usage: $0 [--borrow-check] [--callgrind] [--markdown]" >&2; exit 2 ;;
  esac
done

if [ -n "${FP_BENCH_OUT:-}" ]; then
  WORK="$FP_BENCH_OUT"  # keeps the JSON files, e.g. for `ops_overhead.py report --markdown`
  mkdir -p "$WORK"
  rm -f "$WORK"/fp.*.json "$WORK"/borrow.*.json "$WORK"/libtorch.*.json "$WORK"/py.*.json
else
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT
fi

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

quietly() {  # quietly LOG COMMAND...: runs COMMAND into LOG, shown only if it fails
  local log="$1"
  shift
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "run_ops_overhead.sh: failed: $*" >&2
    exit 1
  fi
}

tiny='add|mul|mul_typed|mul_by_name|mul_number|sum|index_view|transpose|shallow_copy|copy|clone|item|sizes|sub|div|relu|exp|argmax|masked_fill|where|cat|narrow|unsqueeze|reshape|contiguous'
if [ "$callgrind" = 1 ]; then
  export FP_BENCH_ITERATIONS="${FP_BENCH_ITERATIONS:-2000}"
  profile() {  # profile NAME PROGRAM FILTER: callgrind.NAME in $WORK
    echo "==> callgrind: $1"
    quietly "$WORK/$1.log" valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.$1" \
      "$2" --benchmark_filter="$3"
  }
  profile fp "$BUILD/bench/bench_ops_overhead" "^(cabi_)?($tiny)(/|\$)"
  profile libtorch "$BUILD/bench/bench_ops_overhead_libtorch" "^($tiny)(/|\$)"
  borrow_file=()
  if [ "$borrow" = 1 ]; then
    profile borrow "$BORROW_BUILD/bench/bench_ops_overhead" "^($tiny)(/|\$)"
    borrow_file=(--fp-borrow "$WORK/callgrind.borrow")
  fi
  echo
  "$PYTHON" "$REPO/bench/ops_overhead.py" instructions "${markdown[@]}" \
    --iterations "$FP_BENCH_ITERATIONS" --fp "$WORK/callgrind.fp" \
    --libtorch "$WORK/callgrind.libtorch" "${borrow_file[@]}"
  exit 0
fi

flags=(--benchmark_repetitions="$REPETITIONS" --benchmark_min_time="$MIN_TIME"
       --benchmark_out_format=json)
for round in $(seq "$ROUNDS"); do
  echo "==> round $round of $ROUNDS (OMP_NUM_THREADS=$OMP_NUM_THREADS): flash_powder"
  quietly "$WORK/fp.log" "$BUILD/bench/bench_ops_overhead" "$CHECKPOINT" "${flags[@]}" \
    --benchmark_out="$WORK/fp.$round.json"
  if [ "$borrow" = 1 ]; then
    echo "==> round $round of $ROUNDS: flash_powder with the borrow check"
    quietly "$WORK/borrow.log" "$BORROW_BUILD/bench/bench_ops_overhead" "$CHECKPOINT" \
      "${flags[@]}" --benchmark_filter="^($tiny)(/|\$)" --benchmark_out="$WORK/borrow.$round.json"
  fi
  echo "==> round $round of $ROUNDS: libtorch C++"
  quietly "$WORK/libtorch.log" "$BUILD/bench/bench_ops_overhead_libtorch" "$CHECKPOINT" \
    "${flags[@]}" --benchmark_out="$WORK/libtorch.$round.json"
  echo "==> round $round of $ROUNDS: Python"
  quietly "$WORK/py.log" "$PYTHON" "$REPO/bench/ops_overhead.py" run "$WORK/py.$round.json" \
    --checkpoint "$CHECKPOINT" --repetitions "$REPETITIONS" --min-time "$MIN_TIME"
done

echo
grep -h -m 1 "intra-op threads" "$WORK/libtorch.log" "$WORK/py.log" || true
grep -m 1 -i "load average" "$WORK/fp.log" || true
echo "clock: $CLOCK"
echo
borrow_files=()
[ "$borrow" = 1 ] && borrow_files=(--fp-borrow "$WORK"/borrow.*.json)
"$PYTHON" "$REPO/bench/ops_overhead.py" report --clock "$CLOCK" "${markdown[@]}" --fp "$WORK"/fp.*.json \
  --libtorch "$WORK"/libtorch.*.json --python "$WORK"/py.*.json "${borrow_files[@]}"
