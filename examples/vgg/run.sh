#!/usr/bin/env bash
# torchvision's vgg11 on one image, from Python and from C++, and fails unless
# C++ gives PyTorch's preprocessed input and logits bit for bit.
#
#   examples/vgg/run.sh PYTHON FP_VGG WORK_DIR [IMAGE]
# WORK_DIR/vgg11.safetensors: seeded random weights, made once (a converted
# pretrained checkpoint put there is used as it is); the image defaults to a
# seeded picture made in WORK_DIR.
set -euo pipefail
PYTHON="$1"; EXAMPLE="$2"; WORK="$3"; IMAGE="${4:-$3/picture.png}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$WORK"
"$PYTHON" "$HERE/vgg.py" "$WORK/vgg11.safetensors" "$IMAGE" "$WORK/python.safetensors"
categories=()
[ -f "$WORK/vgg11.safetensors.categories" ] && categories=("$WORK/vgg11.safetensors.categories")
"$EXAMPLE" "$WORK/vgg11.safetensors" "$IMAGE" "$WORK/python.safetensors" "${categories[@]}"
