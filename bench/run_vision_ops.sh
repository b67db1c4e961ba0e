#!/usr/bin/env bash
# fp::vision::ops against torchvision's CPU kernels, in one run: nms of 1k
# and 10k boxes, batched_nms of 10k boxes in 80 categories, roi_align and
# roi_pool of 1000 boxes on an FPN P2 map, MultiScaleRoIAlign over P2-P5
# (bench/vision_ops.py says more). Both sides on one thread, on the same
# seeded inputs; flash_powder's results are checked against torchvision's
# first. Prints each side's median ms per call (the median over rounds of
# each round's median) and flash_powder's time / torchvision's.
#
#   bench/run_vision_ops.sh [--markdown]
#
# torchvision's side runs in the Python with its compiled ops
# (scripts/lib/setup.sh, ensure_torchvision_ops: torch 2.14.1 + torchvision
# 0.29.2); flash_powder runs on the build's torch.
# Environment: FP_BENCH_ROUNDS (3: the sides alternate, so that a slow spell
# of the machine hits both), FP_BENCH_REPETITIONS (7 timed calls per round),
# FP_BENCH_WARMUP (1).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=../scripts/lib/setup.sh
source "$REPO/scripts/lib/setup.sh"
ensure_torchvision_ops
TV_PYTHON="$(torchvision_ops_dir)/python"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export OMP_NUM_THREADS=1

cmake --build "$BUILD" --target bench_vision_ops >/dev/null
"$TV_PYTHON" "$REPO/bench/vision_ops.py" inputs "$WORK"
ROUNDS="${FP_BENCH_ROUNDS:-3}"
timing=(--repetitions "${FP_BENCH_REPETITIONS:-7}" --warmup "${FP_BENCH_WARMUP:-1}")
for round in $(seq "$ROUNDS"); do
  echo "==> round $round/$ROUNDS: flash_powder, then torchvision" >&2
  "$BUILD/bench/bench_vision_ops" "$WORK" "$WORK/fp-$round.json" "${timing[@]}"
  "$TV_PYTHON" "$REPO/bench/vision_ops.py" time "$WORK" "$WORK/tv-$round.json" "${timing[@]}"
done
"$PYTHON" - "$WORK" "$ROUNDS" "${1:-}" <<'REPORT'
import json, statistics, sys
from pathlib import Path
work, rounds, markdown = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "--markdown"
def medians(side):
    runs = [json.loads((work / f"{side}-{r}.json").read_text()) for r in range(1, rounds + 1)]
    return {case: statistics.median(statistics.median(run[case]) for run in runs) for case in runs[0]}
fp, tv = medians("fp"), medians("tv")
rows = [(case, fp[case], tv[case], fp[case] / tv[case]) for case in fp]
if markdown:
    print("| case | flash_powder ms | torchvision ms | fp / torchvision |\n|---|---:|---:|---:|")
    for case, a, b, r in rows:
        print(f"| {case} | {a:.3g} | {b:.3g} | {r:.2f} |")
else:
    print(f"{'case':<22}{'fp ms':>10}{'tv ms':>10}{'fp/tv':>8}")
    for case, a, b, r in rows:
        print(f"{case:<22}{a:>10.3g}{b:>10.3g}{r:>8.2f}")
REPORT
