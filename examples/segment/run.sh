#!/usr/bin/env bash
# The segment demo end to end: PyTorch trains torchvision's
# lraspp_mobilenet_v3_large on the synthetic shapes (once; cached in
# WORK_DIR) and runs it on the test pictures; the C++ program runs it on the
# same pictures, post-processes its masks into objects, writes the overlays
# and the grid, prints per-class IoU and fails unless its logits are
# PyTorch's bit for bit (and, given MIN_MEAN_IOU, unless the mean IoU
# reaches it).
#
#   examples/segment/run.sh PYTHON FP_SEGMENT WORK_DIR [MIN_MEAN_IOU]
set -euo pipefail
PYTHON="$1"; EXAMPLE="$2"; WORK="$3"; shift 3
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Training is not what the CPU lanes of scripts/test check (their settings
# are for the comparison below): it runs with the CPU's own kernels, five
# times faster than the default lane's SSE ones, and every lane uses the
# weights the first one trained.
env -u ATEN_CPU_CAPABILITY -u MKL_ENABLE_INSTRUCTIONS -u ONEDNN_MAX_CPU_ISA \
  "$PYTHON" -W ignore "$HERE/train.py" "$WORK"
"$PYTHON" -W ignore "$HERE/reference.py" "$WORK"
"$EXAMPLE" "$WORK/segmenter.safetensors" "$WORK/test" "$WORK/pictures" "$WORK/reference.safetensors" "$@"
