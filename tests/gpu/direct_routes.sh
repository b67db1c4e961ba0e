#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: checks that CUDA tensors never reach one of
# libtorch's CPU kernels (aoti_torch_cpu_*) and that views of CUDA tensors
# computed by flash_powder match the dispatcher's. Runs the direct-route
# tests (tests/ops/test_direct_routes.cpp, whose CUDA part is skipped where no
# GPU exists) and the generated-op tests against a CUDA build of torch.
#
#   tests/gpu/direct_routes.sh PYTHON
#
# PYTHON: an interpreter whose torch is a CUDA build (2.11 or later), e.g. a
# venv with torch==2.11.0+cu128. The tests are built as usual (scripts/test
# --quick builds build/ against the repository's .venv), then run with that
# torch's libraries loaded and that Python computing the expected values.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PYTHON="${1:?usage: tests/gpu/direct_routes.sh PYTHON (an interpreter with a CUDA torch)}"
TORCH_LIB="$("$PYTHON" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')"
"$PYTHON" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else "torch.cuda.is_available() is False: no GPU to check on")'

cmake --build "$REPO/build" --target test_ops_direct_routes test_ops_generated
cd "$REPO/build"
for test in test_ops_direct_routes test_ops_generated; do
  echo "==> $test with $("$PYTHON" -c 'import torch; print(torch.__version__)')"
  FP_PYTHON="$PYTHON" LD_LIBRARY_PATH="$TORCH_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    ctest --output-on-failure -R "^$test\$"
done
# The CUDA test must have run, not been skipped.
output="$(FP_PYTHON="$PYTHON" LD_LIBRARY_PATH="$TORCH_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  "$REPO/build/tests/test_ops_direct_routes" --gtest_filter='DirectRoutes.CudaTensorsTakeTheDispatcher')"
echo "$output"
if ! grep -q "PASSED.*1 test" <<<"$output" || grep -q "SKIPPED" <<<"$output"; then
  echo "tests/gpu/direct_routes.sh: DirectRoutes.CudaTensorsTakeTheDispatcher did not run and pass" >&2
  exit 1
fi
echo "direct routes on the GPU: passed"
