#!/usr/bin/env bash
# Exports classifier.py with tools/export_aoti.py (cached by the sources'
# digest and the torch version), runs the package from Python and from C++,
# and fails unless C++ gives Python's loader's bits.
#
#   examples/aoti/run.sh PYTHON FP_AOTI_EXAMPLE WORK_DIR
set -euo pipefail
PYTHON="$1"; EXAMPLE="$2"; WORK="$3"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
mkdir -p "$WORK"
key="$("$PYTHON" -c 'import torch; print(torch.__version__)')-$(cat "$HERE/classifier.py" \
  "$REPO/tools/export_aoti.py" | sha256sum | cut -c1-16)"
if [ "$(cat "$WORK/classifier.key" 2>/dev/null)" != "$key" ]; then
  start=$(date +%s)
  "$PYTHON" "$REPO/tools/export_aoti.py" "$HERE/classifier.py" -o "$WORK/classifier.pt2" \
    --example-input 'float32[2,3,32,32]' --dynamic 0:0:batch:1:16
  echo "$key" > "$WORK/classifier.key"
  echo "exported in $(( $(date +%s) - start )) s"
fi
"$PYTHON" "$HERE/python_side.py" "$WORK/classifier.pt2" "$WORK/reference.safetensors" 4
"$EXAMPLE" "$WORK/classifier.pt2" "$WORK/reference.safetensors"
