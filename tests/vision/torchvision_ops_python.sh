#!/bin/sh
# torchvision_ops_python.sh PYTHON ARGS...: runs PYTHON ARGS, PYTHON being the
# wrapper that scripts/lib/setup.sh (ensure_torchvision_ops) writes for the
# Python with torchvision's compiled ops; says how to make it when missing.
python="$1"
shift
if [ ! -x "$python" ]; then
  echo "$python is missing: run scripts/test, which installs torchvision's compiled ops there" >&2
  exit 1
fi
exec "$python" "$@"
