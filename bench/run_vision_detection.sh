#!/usr/bin/env bash
# fasterrcnn_mobilenet_v3_large_320_fpn end to end, flash_powder against
# torchvision's Python eager, in one run: seeded weights, two pictures of
# COCO's typical sizes (resized to 320 by the model), eval mode, on one
# thread and on two; and the same per stage of GeneralizedRCNN (transform,
# backbone, rpn, roi_heads, postprocess) for where the time goes
# (bench/vision_detection.py says more), and flash_powder's network after
# fp::nn::optimize_for_inference (cases NAME_optimized, against torchvision's
# eager NAME). flash_powder's eager detections are
# checked against torchvision's first, bit for bit. Prints each side's
# median ms per call (the median over rounds of each round's median), the
# spread of the rounds' medians (max / min - 1, the noise) and flash_powder's
# time / torchvision's, by the wall clock and by the process's CPU time
# (which a busy machine moves less).
#
#   bench/run_vision_detection.sh [--markdown]
#
# Both sides run with the same libtorch: torchvision's side in the Python
# with its compiled ops (scripts/lib/setup.sh, ensure_torchvision_ops: torch
# 2.14.1 + torchvision 0.29.2), flash_powder's with that torch loaded
# (tests/vision/with_torchvision_ops_torch.sh), so that both call the same kernels.
# Environment: FP_BENCH_ROUNDS (5: the sides alternate, so that a slow spell
# of the machine hits both), FP_BENCH_REPETITIONS (5 timed calls per round),
# FP_BENCH_WARMUP (2), FP_BENCH_THREADS ("1 2").
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=../scripts/lib/setup.sh
source "$REPO/scripts/lib/setup.sh"
ensure_torchvision_ops
TV_PYTHON="$(torchvision_ops_dir)/python"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

cmake --build "$BUILD" --target bench_vision_detection >/dev/null
"$TV_PYTHON" "$REPO/bench/vision_detection.py" inputs "$WORK"
ROUNDS="${FP_BENCH_ROUNDS:-5}"
THREADS="${FP_BENCH_THREADS:-1 2}"
for threads in $THREADS; do
  OMP_NUM_THREADS="$threads" "$TV_PYTHON" "$REPO/bench/vision_detection.py" truth "$WORK" --threads "$threads"
done
timing=(--repetitions "${FP_BENCH_REPETITIONS:-5}" --warmup "${FP_BENCH_WARMUP:-2}")
for round in $(seq "$ROUNDS"); do
  for threads in $THREADS; do
    echo "==> round $round/$ROUNDS, $threads thread(s): flash_powder, then torchvision" >&2
    OMP_NUM_THREADS="$threads" "$REPO/tests/vision/with_torchvision_ops_torch.sh" "$TV_PYTHON" \
      "$BUILD/bench/bench_vision_detection" "$WORK" "$WORK/fp-$threads-$round.json" \
      --threads "$threads" "${timing[@]}"
    OMP_NUM_THREADS="$threads" "$TV_PYTHON" "$REPO/bench/vision_detection.py" time "$WORK" \
      "$WORK/tv-$threads-$round.json" --threads "$threads" "${timing[@]}"
  done
done
"$PYTHON" - "$WORK" "$ROUNDS" "$THREADS" "${1:-}" <<'REPORT'
import json, statistics, sys
from pathlib import Path
work, rounds, threads, markdown = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(), sys.argv[4] == "--markdown"
def round_medians(side, n, clock):
    runs = [json.loads((work / f"{side}-{n}-{r}.json").read_text()) for r in range(1, rounds + 1)]
    return {case: [statistics.median(run[case][clock]) for run in runs] for case in runs[0]}
def spread(values):
    return max(values) / min(values) - 1
if markdown:
    print("| threads | case | fp ms | torchvision ms | fp / tv | noise fp, tv | fp CPU ms | tv CPU ms | fp / tv (CPU) |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
else:
    print(f"{'threads':>7}  {'case':<12}{'fp ms':>9}{'tv ms':>9}{'fp/tv':>7}  {'noise fp, tv':<14}{'fp cpu':>9}{'tv cpu':>9}{'fp/tv':>7}")
for n in threads:
    fp, tv = round_medians("fp", n, "wall"), round_medians("tv", n, "wall")
    fp_cpu, tv_cpu = round_medians("fp", n, "cpu"), round_medians("tv", n, "cpu")
    for case in fp:
        # An optimised case (flash_powder's network after optimize_for_inference)
        # against torchvision's eager one of the same stage.
        eager = case.removesuffix("_optimized")
        a, b = statistics.median(fp[case]), statistics.median(tv[eager])
        c, d = statistics.median(fp_cpu[case]), statistics.median(tv_cpu[eager])
        noise = f"{spread(fp[case]):.0%}, {spread(tv[eager]):.0%}"
        if markdown:
            print(f"| {n} | {case} | {a:.3g} | {b:.3g} | {a / b:.2f} | {noise} | {c:.3g} | {d:.3g} | {c / d:.2f} |")
        else:
            print(f"{n:>7}  {case:<12}{a:>9.3g}{b:>9.3g}{a / b:>7.2f}  {noise:<14}{c:>9.3g}{d:>9.3g}{c / d:>7.2f}")
REPORT
