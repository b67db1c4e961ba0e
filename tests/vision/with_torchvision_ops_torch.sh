#!/bin/sh
# with_torchvision_ops_torch.sh PYTHON PROGRAM ARGS...: runs PROGRAM ARGS with
# the torch of PYTHON loaded, PYTHON being the wrapper that scripts/lib/setup.sh
# (ensure_torchvision_ops) writes for the Python with torchvision's compiled
# ops: its library path (that torch's lib/ and the CUDA libraries it needs)
# goes before the program's own. Says how to make it when missing.
python="$1"
shift
if [ ! -x "$python" ]; then
  echo "$python is missing: run scripts/test, which installs torchvision's compiled ops there" >&2
  exit 1
fi
library_path="$("$python" -c 'import os; print(os.environ["LD_LIBRARY_PATH"])')" || exit 1
LD_LIBRARY_PATH="$library_path" exec "$@"
