#!/usr/bin/env bash
# On a machine with a CUDA device: the example op library's tests (the CUDA
# case included) under the CUDA wheels of the oldest and newest supported
# torch, with the one library the normal build made.
#
#   tests/gpu/extension.sh            # after scripts/test --quick has built build/
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
for torch in 2.11.0 2.15.0; do
  "$REPO/scripts/test" --torch "$torch" -R '^example_extension$'
done
