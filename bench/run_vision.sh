#!/usr/bin/env bash
# One forward of torchvision's vgg11 (batch 1 and 8, 224x224), resnet50
# (batch 1) and examples/unet's U-Net (batch 1, 256x256) through flash_powder
# (fp::vision::models, examples/unet/unet.h), libtorch's C++ API (the same
# models in torch::nn), eager PyTorch and torch.compile, with one thread and
# with all, measured in one run on the same seeded weights and inputs.
# Prints one table: each side's median ms per forward, flash_powder's ratios
# to libtorch C++ and to eager Python, each side's peak RSS, and how far each
# side's output is from eager PyTorch's.
#
#   bench/run_vision.sh [--channels-last] [--no-compile] [--markdown]
#
#   --channels-last  also run every model in channels_last memory format on
#                    every side (input and 4-d weights converted, as
#                    `model.to(memory_format=torch.channels_last)`), and
#                    print channels_last time / contiguous time per side
#   --no-compile     leave torch.compile out (its first call compiles)
#   --markdown       print the tables as Markdown (for bench/README.md)
#
# Each side is a separate process per model, thread count and round, so its
# peak RSS (getrusage's ru_maxrss: weights, activations, the runtime; for
# Python the interpreter too) is its own.
#
# Environment: FP_BENCH_THREADS (thread counts, default 1 and the core count; each
# sets OMP_NUM_THREADS for every side), FP_BENCH_CASES (default
# "vgg11-b1 vgg11-b8 resnet50-b1 unet-b1"), FP_BENCH_ROUNDS (1: the sides
# run one after another per case, this many times, so that a slow spell of
# the machine hits every side), FP_BENCH_WARMUP (1 untimed forward),
# FP_BENCH_REPETITIONS (5 timed forwards per process; vgg11-b8 takes
# FP_BENCH_REPETITIONS_LARGE, 3), FP_BENCH_COMPILE_TIMEOUT (300 s for one
# torch.compile process; past it the table says so), FP_BENCH_CLOCK (cpu or
# real; default: cpu with one thread, real with more), FP_BENCH_BUILD_DIR
# (build-bench; the weights are cached in its vision/ folder),
# FP_BENCH_OUT (a folder to keep the results in; by default a temporary one).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FP_BENCH_BUILD_DIR:-$REPO/build-bench}"
PYTHON="$REPO/.venv/bin/python"
WEIGHTS="$BUILD/vision"
CORES="$(getconf _NPROCESSORS_ONLN)"  # nproc would follow OMP_NUM_THREADS
THREADS="${FP_BENCH_THREADS:-1 $CORES}"
CASES="${FP_BENCH_CASES:-vgg11-b1 vgg11-b8 resnet50-b1 unet-b1}"
ROUNDS="${FP_BENCH_ROUNDS:-1}"
WARMUP="${FP_BENCH_WARMUP:-1}"
REPETITIONS="${FP_BENCH_REPETITIONS:-5}"
REPETITIONS_LARGE="${FP_BENCH_REPETITIONS_LARGE:-3}"
COMPILE_TIMEOUT="${FP_BENCH_COMPILE_TIMEOUT:-300}"

formats=(contiguous)
compile=1
markdown=()
for argument in "$@"; do
  case "$argument" in
    --channels-last) formats=(contiguous channels_last) ;;
    --no-compile) compile=0 ;;
    --markdown) markdown=(--markdown) ;;
    *) echo "usage: $0 [--channels-last] [--no-compile] [--markdown]" >&2; exit 2 ;;
  esac
done
clock=()
[ -n "${FP_BENCH_CLOCK:-}" ] && clock=(--clock "$FP_BENCH_CLOCK")

if [ -n "${FP_BENCH_OUT:-}" ]; then
  WORK="$FP_BENCH_OUT"
  mkdir -p "$WORK"
  rm -f "$WORK"/*.json "$WORK"/*.safetensors
else
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT
fi

echo "==> building in $BUILD (Release, FP_BORROW_CHECK=OFF, with libtorch's C++ API)"
generator=()
if [ ! -f "$BUILD/CMakeCache.txt" ] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
cmake -S "$REPO" -B "$BUILD" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DFP_BUILD_TESTS=OFF \
  -DFP_BUILD_EXAMPLES=OFF -DFP_BUILD_BENCH=ON -DFP_BORROW_CHECK=OFF \
  -DFP_BUILD_BENCH_LIBTORCH=ON >/dev/null
cmake --build "$BUILD" --target bench_vision_forward bench_vision_forward_libtorch >/dev/null
echo "==> weights and inputs in $WEIGHTS (seeded; made once)"
"$PYTHON" "$REPO/bench/vision_forward.py" weights "$WEIGHTS"

quietly() {  # quietly LOG COMMAND...: runs COMMAND into LOG, shown only if it fails
  local log="$1"
  shift
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "run_vision.sh: failed: $*" >&2
    exit 1
  fi
}

# compiled ARGUMENTS...: torch.compile's side, which may fail or run past its
# time limit on a small machine; the table then says so instead of a time.
compiled() {
  local model="$1" input="$3" result="$5" status=0
  timeout "$COMPILE_TIMEOUT" "$PYTHON" "$REPO/bench/vision_forward.py" run compile "$@" \
    >"$WORK/compile.log" 2>&1 || status=$?
  [ "$status" = 0 ] && return
  local reason="failed (exit $status)"
  [ "$status" = 124 ] && reason="over ${COMPILE_TIMEOUT} s"
  echo "    torch.compile: $reason" >&2
  "$PYTHON" "$REPO/bench/vision_forward.py" failed compile "$model" "$input" "$result" \
    --threads "$OMP_NUM_THREADS" --reason "$reason" "${layout[@]}"
}

echo "==> load before: $(uptime)"
for threads in $THREADS; do
  export OMP_NUM_THREADS="$threads" MKL_NUM_THREADS="$threads"
  for format in "${formats[@]}"; do
    layout=()
    [ "$format" = channels_last ] && layout=(--channels-last)
    for case in $CASES; do
      model="${case%-b*}"
      repetitions="$REPETITIONS"
      [ "$case" = vgg11-b8 ] && repetitions="$REPETITIONS_LARGE"
      for round in $(seq "$ROUNDS"); do
        echo "==> $case, $threads thread(s), $format, round $round of $ROUNDS"
        tag="$case.$threads.$format"
        for side in fp libtorch eager compile; do
          [ "$side" = compile ] && [ "$compile" = 0 ] && continue
          arguments=("$model" "$WEIGHTS/$model.safetensors" "$WEIGHTS/$case.safetensors"
                     "$WORK/$side.$tag.safetensors" "$WORK/$side.$tag.$round.json"
                     --warmup "$WARMUP" --repetitions "$repetitions" "${layout[@]}")
          case "$side" in
            fp) quietly "$WORK/fp.log" "$BUILD/bench/bench_vision_forward" "${arguments[@]}" ;;
            libtorch) quietly "$WORK/libtorch.log" \
                        "$BUILD/bench/bench_vision_forward_libtorch" "${arguments[@]}" ;;
            eager) quietly "$WORK/eager.log" \
                     "$PYTHON" "$REPO/bench/vision_forward.py" run eager "${arguments[@]}" ;;
            compile) compiled "${arguments[@]}" ;;
          esac
        done
      done
    done
  done
done
echo "==> load after: $(uptime)"

echo
echo "torch $("$PYTHON" -c 'import torch; print(torch.__version__, torch.backends.cpu.get_cpu_capability())'), $CORES cores"
"$PYTHON" "$REPO/bench/vision_forward.py" report "${markdown[@]}" "${clock[@]}" "$WORK"/*.json
