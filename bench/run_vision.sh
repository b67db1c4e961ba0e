#!/usr/bin/env bash
# One forward of torchvision's vgg11 (batch 1 and 8, 224x224), resnet50
# (batch 1) and examples/unet's U-Net (batch 1, 256x256) (and, for the
# optimisation pass, resnet18, resnet50, vgg11, mobilenet_v3_small and the
# U-Net at batch 1 and 8: FP_BENCH_CASES=optimize; for the zoo,
# FP_BENCH_CASES=zoo, torchvision's convnext_tiny, efficientnet_b0, vit_b_16
# and swin_t at 224x224, deeplabv3_resnet50 at 256x256 and
# lraspp_mobilenet_v3_large at 520x520, batch 1), and of two sequence
# models: nn.LSTM(256, 256, num_layers=2, bidirectional=True) on 100 steps
# (batch 1 and 16; the output tensor only) and a 6-layer nn.TransformerEncoder
# (d_model 512, 8 heads, feed-forward 2048, dropout 0, batch_first; batch 8,
# sequence 128, no mask), through flash_powder (fp::vision::models,
# examples/unet/unet.h, fp::nn::LSTM, fp::nn::TransformerEncoder), libtorch's
# C++ API (the same models in torch::nn; for the zoo, which torchvision has no
# C++ port of, the model scripted in Python with torch.jit.script and loaded
# with torch::jit::load: side "libtorch TorchScript"), eager PyTorch and
# torch.compile, and
# optionally the vision models exported with AOTInductor and run through
# fp::aoti and through Python's loader, with one thread and with all, measured
# in one run on the same seeded weights and inputs. Prints one table: each
# side's median ms per forward, flash_powder's ratios to libtorch C++ and to
# eager Python (with --aoti also fp::aoti's to Python's AOTI loader and to
# flash_powder), each side's peak RSS, and how far each side's output is from
# eager PyTorch's.
#
#   bench/run_vision.sh [--channels-last] [--no-compile] [--aoti] [--optimize] [--markdown]
#
#   --channels-last  also run every vision model in channels_last memory
#                    format on every side (input and 4-d weights converted, as
#                    `model.to(memory_format=torch.channels_last)`), and
#                    print channels_last time / contiguous time per side
#   --no-compile     leave torch.compile out (its first call compiles)
#   --aoti           also export each vision case (model and batch, eval, the same
#                    weights) as an AOTInductor package (torch.export +
#                    aoti_compile_and_package, via tools/export_aoti.py; one
#                    package for every thread count) and time it through
#                    fp::aoti (bench_vision_aoti) and through
#                    torch._inductor.aoti_load_package (Python); contiguous
#                    format only. Exporting takes CPU minutes per case
#                    (resnet50 and vgg11 the most); the packages are cached
#                    beside the weights and made again when torch, the model's
#                    code, the export or the weights change
#   --optimize       also time flash_powder after fp::nn::optimize_for_inference
#                    (side "fp optimised": BatchNorm folded, oneDNN's fused
#                    kernels; the vision models only) and, unless --no-compile,
#                    torch.compile with Inductor's freezing (side
#                    "torch.compile frozen": the same folding and packing)
#   --markdown       print the tables as Markdown (for bench/README.md)
#
# Each side is a separate process per model, thread count and round, so its
# peak RSS (getrusage's ru_maxrss: weights, activations, the runtime; for
# Python the interpreter too) is its own.
#
# Environment: FP_BENCH_THREADS (thread counts, default 1 and the core count; each
# sets OMP_NUM_THREADS for every side), FP_BENCH_CASES (default "vision",
# which stands for "vgg11-b1 vgg11-b8 resnet50-b1 unet-b1"; "sequence" for
# "lstm-b1 lstm-b16 encoder-b8"; "all" for both; "zoo" for "convnext_tiny-b1
# efficientnet_b0-b1 vit_b_16-b1 swin_t-b1 deeplabv3_resnet50-b1
# lraspp_mobilenet_v3_large-b1"; "optimize" for batch 1 and 8
# of resnet18, resnet50, vgg11, mobilenet_v3_small and unet; or any list of cases, e.g.
# FP_BENCH_CASES="lstm-b1 lstm-b16 encoder-b8" bench/run_vision.sh --no-compile),
# FP_BENCH_SKIP (sides to leave out, by the names fp fp_opt libtorch
# libtorch_ts eager compile compile_frozen fp_aoti py_aoti; e.g. "compile py_aoti" keeps a long
# --optimize --aoti run to the sides its targets compare),
# FP_BENCH_ROUNDS (1: the sides run one after another per case, this many
# times, so that a slow spell of the machine hits every side),
# FP_BENCH_WARMUP (1 untimed forward),
# FP_BENCH_REPETITIONS (5 timed forwards per process; vgg11-b8 takes
# FP_BENCH_REPETITIONS_LARGE, 3), FP_BENCH_COMPILE_TIMEOUT (300 s for one
# torch.compile process and for one AOTInductor export; past it the table
# says so), FP_BENCH_CLOCK (cpu or real; default: cpu with one thread, real
# with more), FP_BENCH_BUILD_DIR (build-bench; the weights and the packages
# and the TorchScript files are cached in its vision/ folder),
# FP_BENCH_OUT (a folder to keep the results in; by default a temporary one),
# FP_BENCH_LIBTORCH_MODE (the libtorch side's forward: inference, the
# default, under c10::InferenceMode; no_grad under torch::NoGradGuard; grad
# under neither: what InferenceMode is worth, which flash_powder cannot enter;
# the TorchScript side too).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FP_BENCH_BUILD_DIR:-$REPO/build-bench}"
PYTHON="$REPO/.venv/bin/python"
WEIGHTS="$BUILD/vision"
CORES="$(getconf _NPROCESSORS_ONLN)"  # nproc would follow OMP_NUM_THREADS
THREADS="${FP_BENCH_THREADS:-1 $CORES}"
VISION_CASES="vgg11-b1 vgg11-b8 resnet50-b1 unet-b1"
SEQUENCE_CASES="lstm-b1 lstm-b16 encoder-b8"
ZOO_CASES="convnext_tiny-b1 efficientnet_b0-b1 vit_b_16-b1 swin_t-b1 deeplabv3_resnet50-b1"
ZOO_CASES+=" lraspp_mobilenet_v3_large-b1"
OPTIMIZE_CASES=""
for model in resnet18 resnet50 vgg11 mobilenet_v3_small unet; do
  OPTIMIZE_CASES+="$model-b1 $model-b8 "
done
CASES=""
for word in ${FP_BENCH_CASES:-vision}; do  # the set names, word by word
  case "$word" in
    all) CASES+="$VISION_CASES $SEQUENCE_CASES " ;;
    vision) CASES+="$VISION_CASES " ;;
    sequence) CASES+="$SEQUENCE_CASES " ;;
    zoo) CASES+="$ZOO_CASES " ;;
    optimize) CASES+="$OPTIMIZE_CASES " ;;
    *) CASES+="$word " ;;
  esac
done
ROUNDS="${FP_BENCH_ROUNDS:-1}"
WARMUP="${FP_BENCH_WARMUP:-1}"
REPETITIONS="${FP_BENCH_REPETITIONS:-5}"
REPETITIONS_LARGE="${FP_BENCH_REPETITIONS_LARGE:-3}"
COMPILE_TIMEOUT="${FP_BENCH_COMPILE_TIMEOUT:-300}"

formats=(contiguous)
compile=1
aoti=0
optimize=0
markdown=()
for argument in "$@"; do
  case "$argument" in
    --channels-last) formats=(contiguous channels_last) ;;
    --no-compile) compile=0 ;;
    --aoti) aoti=1 ;;
    --optimize) optimize=1 ;;
    --markdown) markdown=(--markdown) ;;
    *) echo "usage: $0 [--channels-last] [--no-compile] [--aoti] [--optimize] [--markdown]" >&2; exit 2 ;;
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
targets=(bench_vision_forward bench_vision_forward_libtorch bench_vision_forward_torchscript)
[ "$aoti" = 1 ] && targets+=(bench_vision_aoti)
cmake --build "$BUILD" --target "${targets[@]}" >/dev/null
echo "==> weights and inputs in $WEIGHTS (seeded; made once)"
"$PYTHON" "$REPO/bench/vision_forward.py" weights "$WEIGHTS" $CASES

is_sequence() {  # is_sequence MODEL: the LSTM and the encoder (no channels_last, no AOTI)
  [ "$1" = lstm ] || [ "$1" = encoder ]
}

# has_port MODEL: the models vision_forward_libtorch.cpp ports to torch::nn;
# the others' libtorch side is their TorchScript module (libtorch_ts).
has_port() {
  [[ " vgg11 resnet18 resnet50 mobilenet_v3_small unet lstm encoder " == *" $1 "* ]]
}

echo "==> TorchScript modules in $WEIGHTS (the models without a torch::nn port; made once)"
for model in $(for case in $CASES; do echo "${case%-b*}"; done | sort -u); do
  has_port "$model" && continue
  "$PYTHON" "$REPO/bench/vision_forward.py" script "$model" "$WEIGHTS/$model.safetensors" \
    "$WEIGHTS/$model.torchscript.pt"
done

quietly() {  # quietly LOG COMMAND...: runs COMMAND into LOG, shown only if it fails
  local log="$1"
  shift
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "run_vision.sh: failed: $*" >&2
    exit 1
  fi
}

# limited LIMIT LOG COMMAND...: runs COMMAND into LOG for at most LIMIT
# seconds (0: no limit); on failure prints why and the end of LOG, and sets
# `reason` to what the table says instead of a time.
limited() {
  local limit="$1" log="$2" status=0
  shift 2
  reason=""
  timeout "$limit" "$@" >"$log" 2>&1 || status=$?
  [ "$status" = 0 ] && return
  reason="failed (exit $status)"
  [ "$status" = 124 ] && reason="over $limit s"
  echo "    $reason: $*; the end of its output:" >&2
  tail -n 5 "$log" | sed 's/^/      /' >&2
  return 1
}

# failed SIDE REASON: the result of a side that did not run in the current
# case, thread count, format and round, so that the table says why.
failed() {
  "$PYTHON" "$REPO/bench/vision_forward.py" failed "$1" "$model" "$WEIGHTS/$case.safetensors" \
    "$WORK/$1.$tag.$round.json" --threads "$OMP_NUM_THREADS" --reason "$2" "${layout[@]}"
}

# fallible SIDE LIMIT COMMAND...: a side that may fail or run past its time
# limit on a small machine (torch.compile, the AOTInductor sides); the table
# then says so instead of a time, and the other sides still run.
fallible() {
  local side="$1" limit="$2"
  shift 2
  limited "$limit" "$WORK/$side.log" "$@" || failed "$side" "$reason"
}

# One AOTInductor package per case, before any timing (exporting is CPU
# heavy); export_failed[CASE] says why a case has none.
declare -A export_failed=()
if [ "$aoti" = 1 ]; then
  echo "==> AOTInductor packages in $WEIGHTS (made once; at most ${COMPILE_TIMEOUT} s each)"
  for case in $CASES; do
    model="${case%-b*}"
    is_sequence "$model" && continue
    if limited "$COMPILE_TIMEOUT" "$WORK/export.log" "$PYTHON" "$REPO/bench/vision_forward.py" \
         export "$model" "$WEIGHTS/$model.safetensors" "$WEIGHTS/$case.safetensors" \
         "$WEIGHTS/$case.pt2"; then
      echo "    $(tail -n 1 "$WORK/export.log")"
    else
      export_failed[$case]="export $reason"
    fi
  done
fi

echo "==> load before: $(uptime)"
for threads in $THREADS; do
  export OMP_NUM_THREADS="$threads" MKL_NUM_THREADS="$threads"
  for format in "${formats[@]}"; do
    layout=()
    [ "$format" = channels_last ] && layout=(--channels-last)
    for case in $CASES; do
      model="${case%-b*}"
      [ "$format" = channels_last ] && is_sequence "$model" && continue
      repetitions="$REPETITIONS"
      [ "$case" = vgg11-b8 ] || [ "$case" = resnet50-b8 ] && repetitions="$REPETITIONS_LARGE"
      for round in $(seq "$ROUNDS"); do
        echo "==> $case, $threads thread(s), $format, round $round of $ROUNDS"
        tag="$case.$threads.$format"
        for side in fp fp_opt libtorch libtorch_ts eager compile compile_frozen fp_aoti py_aoti; do
          [[ " ${FP_BENCH_SKIP:-} " == *" $side "* ]] && continue
          [ "$side" = libtorch ] && ! has_port "$model" && continue
          [ "$side" = libtorch_ts ] && { has_port "$model" || [ "$format" = channels_last ]; } &&
            continue
          [[ "$side" == compile* ]] && [ "$compile" = 0 ] && continue
          [ "$side" = fp_opt ] || [ "$side" = compile_frozen ] &&
            { [ "$optimize" = 0 ] || is_sequence "$model"; } && continue
          if [[ "$side" == *_aoti ]]; then
            [ "$aoti" = 0 ] || [ "$format" = channels_last ] || is_sequence "$model" && continue
            if [ -n "${export_failed[$case]:-}" ]; then
              failed "$side" "${export_failed[$case]}"
              continue
            fi
          fi
          weights="$WEIGHTS/$model.safetensors"
          [[ "$side" == *_aoti ]] && weights="$WEIGHTS/$case.pt2"
          [ "$side" = libtorch_ts ] && weights="$WEIGHTS/$model.torchscript.pt"
          arguments=("$model" "$weights" "$WEIGHTS/$case.safetensors"
                     "$WORK/$side.$tag.safetensors" "$WORK/$side.$tag.$round.json"
                     --warmup "$WARMUP" --repetitions "$repetitions" "${layout[@]}")
          case "$side" in
            fp) quietly "$WORK/fp.log" "$BUILD/bench/bench_vision_forward" "${arguments[@]}" ;;
            fp_opt) quietly "$WORK/fp.log" "$BUILD/bench/bench_vision_forward" "${arguments[@]}" \
                      --optimize ;;
            libtorch) quietly "$WORK/libtorch.log" \
                        "$BUILD/bench/bench_vision_forward_libtorch" "${arguments[@]}" ;;
            libtorch_ts) quietly "$WORK/libtorch.log" \
                           "$BUILD/bench/bench_vision_forward_torchscript" "${arguments[@]}" ;;
            eager) quietly "$WORK/eager.log" \
                     "$PYTHON" "$REPO/bench/vision_forward.py" run eager "${arguments[@]}" ;;
            compile|compile_frozen) fallible "$side" "$COMPILE_TIMEOUT" \
                       "$PYTHON" "$REPO/bench/vision_forward.py" run "$side" "${arguments[@]}" ;;
            fp_aoti) fallible fp_aoti 0 "$BUILD/bench/bench_vision_aoti" "${arguments[@]}" ;;
            py_aoti) fallible py_aoti 0 \
                       "$PYTHON" "$REPO/bench/vision_forward.py" run py_aoti "${arguments[@]}" ;;
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
