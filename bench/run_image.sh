#!/usr/bin/env bash
# Image codecs and resize on a 1080p photo (and GIF / WebP animations), one
# thread: flash_powder against
# torchvision.io, Pillow and OpenCV in one run; prints the ratios
# (flash_powder ÷ peer: below 1 is faster).
#
#   bench/run_image.sh
#   FP_BENCH_PYTHON=/path/to/python bench/run_image.sh   # a Python whose torchvision loads
#   FP_BENCH_DEFAULT_MALLOC=1 bench/run_image.sh         # flash_powder without
#       fp::keep_freed_memory(), on glibc's malloc defaults (bench/image_codecs.cpp)
#
# torchvision's codecs need the torch they were built for: the wheel that
# pairs with the build's CPU torch is a CUDA build that does not load beside
# it. Point FP_BENCH_PYTHON (and LD_LIBRARY_PATH, PYTHONPATH) at a Python
# where `torchvision.io.decode_jpeg` works; peers that cannot load are skipped
# with a line saying so. OpenCV: pip install opencv-python-headless.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FP_BUILD_DIR:-$REPO/build}"
PYTHON="$REPO/.venv/bin/python"
BENCH_PYTHON="${FP_BENCH_PYTHON:-$PYTHON}"
DATA="${FP_BENCH_IMAGE_DIR:-/tmp/fp_bench_image}"
WORK="$(mktemp -d)"
export OMP_NUM_THREADS=1
trap 'rm -rf "$WORK"' EXIT

[ -f "$DATA/photo.avif" ] || "$PYTHON" "$REPO/bench/image_codecs.py" create "$DATA"
cmake --build "$BUILD" --target bench_image_codecs >/dev/null
# Rounds alternate the two sides and the report keeps each case's best round,
# so that a burst of load from elsewhere does not land on one side only.
ROUNDS="${FP_BENCH_ROUNDS:-3}"
for round in $(seq "$ROUNDS"); do
  echo "==> round $round/$ROUNDS: flash_powder (C++), then torchvision.io, Pillow, OpenCV (Python)"
  "$BUILD/bench/bench_image_codecs" "$DATA" >>"$WORK/cpp.txt"
  "$BENCH_PYTHON" "$REPO/bench/image_codecs.py" run "$DATA" >>"$WORK/py.txt"
done
echo
"$PYTHON" "$REPO/bench/image_codecs.py" report "$WORK/cpp.txt" "$WORK/py.txt"
