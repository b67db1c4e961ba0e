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
# One package per torch version (scripts/test --torch X.Y.Z exports with X.Y.Z).
torch_version="$("$PYTHON" -c 'import torch; print(torch.__version__)')"
key="$torch_version-$(cat "$HERE/classifier.py" "$REPO/tools/export_aoti.py" | sha256sum | cut -c1-16)"
package="$WORK/classifier-$torch_version.pt2"
if [ "$(cat "$package.key" 2>/dev/null)" != "$key" ]; then
  start=$(date +%s)
  "$PYTHON" "$REPO/tools/export_aoti.py" "$HERE/classifier.py" -o "$package" \
    --example-input 'float32[2,3,32,32]' --dynamic 0:0:batch:1:16
  echo "$key" > "$package.key"
  echo "exported in $(( $(date +%s) - start )) s"
fi
ln -sf "$(basename "$package")" "$WORK/classifier.pt2"  # the latest, for bench/run_aoti.sh
"$PYTHON" "$HERE/python_side.py" "$package" "$WORK/reference.safetensors" 4
"$EXAMPLE" "$package" "$WORK/reference.safetensors"
