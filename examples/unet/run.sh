#!/usr/bin/env bash
# The U-Net demo end to end: PyTorch trains the network (once; cached in
# WORK_DIR) and runs it on the test pictures; the C++ program runs it on the
# same pictures, writes the overlays and the grid, prints per-class IoU and
# fails unless its logits are PyTorch's bit for bit; then once more optimised
# for inference (fp_unet --optimize: oneDNN's fused kernels), which must
# agree with PyTorch to rounding.
#
#   examples/unet/run.sh PYTHON FP_UNET WORK_DIR [train.py options: --steps N --test-images K]
set -euo pipefail
PYTHON="$1"; EXAMPLE="$2"; WORK="$3"; shift 3
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$PYTHON" -W ignore "$HERE/train.py" "$WORK" "$@"
"$PYTHON" -W ignore "$HERE/reference.py" "$WORK"
"$EXAMPLE" "$WORK/unet.safetensors" "$WORK/test" "$WORK/pictures" "$WORK/reference.safetensors"
"$EXAMPLE" --optimize "$WORK/unet.safetensors" "$WORK/test" "$WORK/pictures_optimized" \
  "$WORK/reference.safetensors"
