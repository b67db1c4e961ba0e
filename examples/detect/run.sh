#!/usr/bin/env bash
# The detect demo end to end: PyTorch fine-tunes torchvision's
# fasterrcnn_mobilenet_v3_large_320_fpn to find the synthetic shapes, from
# the segment demo's trained backbone (once; cached in WORK_DIR), and runs it
# on the test pictures; the C++ program runs it on the same pictures, writes
# them with the detections drawn and labelled, prints how well they match the
# true boxes and fails unless its boxes, labels and scores are PyTorch's bit
# for bit (and, given MIN_MEAN_IOU, unless the shapes' mean best IoU reaches
# it).
#
#   examples/detect/run.sh TORCHVISION_OPS_PYTHON FP_DETECT SEGMENTER_WEIGHTS WORK_DIR [MIN_MEAN_IOU]
#
# TORCHVISION_OPS_PYTHON is the Python with torchvision's compiled ops (the
# detector calls nms and roi_align) that scripts/lib/setup.sh
# (ensure_torchvision_ops) writes. SEGMENTER_WEIGHTS: the segment demo's
# segmenter.safetensors (examples/segment/run.sh trains it). The detections
# go through libtorch's convolution and matrix kernels, so the C++ program
# runs with that Python's torch loaded
# (tests/vision/with_torchvision_ops_torch.sh), whichever torch it was built
# against.
set -euo pipefail
PYTHON="$1"; EXAMPLE="$2"; SEGMENTER="$3"; WORK="$4"; shift 4
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
# Training is not what the CPU lanes of scripts/test check (their settings
# are for the comparison below): it runs with the CPU's own kernels, and
# every lane uses the weights the first one trained.
env -u ATEN_CPU_CAPABILITY -u MKL_ENABLE_INSTRUCTIONS -u ONEDNN_MAX_CPU_ISA \
  "$REPO/tests/vision/torchvision_ops_python.sh" "$PYTHON" -W ignore "$HERE/train.py" "$WORK" --backbone-from "$SEGMENTER"
"$PYTHON" -W ignore "$HERE/reference.py" "$WORK"
"$REPO/tests/vision/with_torchvision_ops_torch.sh" "$PYTHON" \
  "$EXAMPLE" "$WORK/detector.safetensors" "$WORK/test" "$WORK/pictures" "$WORK/reference.safetensors" "$@"
