#!/usr/bin/env bash
# Runs the C++ test programs packed by tests/gpu/pack.sh on a machine with a
# GPU and a CUDA build of torch (its `python3`), so that the CUDA tests, which
# skip where no GPU exists, run. The expected values, the image corpus and
# the AOTInductor packages are made there by that machine's torch, as
# scripts/test makes them here.
#
#   tests/gpu/run.sh [RESULTS]   RESULTS: folder for the log and a summary
set -uo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
results="${1:-$repo/build/gpu-results}"
python="${FP_PYTHON:-python3}"
packed="$repo/.gpu"
[ -d "$packed/build" ] || { echo "tests/gpu/run.sh: run tests/gpu/pack.sh first" >&2; exit 2; }
mkdir -p "$results"

# The programs name files by the paths of the folder they were built in.
source_dir="$(cat "$packed/source_dir")"
if [ "$source_dir" != "$repo" ] && [ ! -e "$source_dir" ]; then
  mkdir -p "$(dirname "$source_dir")" && ln -s "$repo" "$source_dir"
fi
build="$source_dir/build"
mkdir -p "$build" && cp -r "$packed/build/." "$build/"

torch_lib="$("$python" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')"
export PATH="$packed/bin:$PATH"
export LD_LIBRARY_PATH="$packed/lib:$torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export FP_PYTHON="$python" FP_TRUTH_DIR="$build/truth"
# The build's python wrapper names a venv that is not here.
printf '#!/bin/sh\nexec "%s" "$@"\n' "$(command -v "$python")" >"$build/python"
chmod +x "$build/python"

step() { printf '==> %s\n' "$*"; }
timed() {  # timed LABEL COMMAND...: runs it, says how long it took and whether it failed
  local start=$SECONDS
  "${@:2}"
  local status=$?
  step "$1: exit $status in $((SECONDS - start)) s"
  return $status
}

step "machine"
nvidia-smi -L || true
"$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available(), torch.version.cuda)'

[ -n "${FP_GPU_SKIP_FIXTURES:-}" ] || {
# Literal expected values (// #PYTHON markers) must hold on this CPU too.
timed "truth markers" "$python" "$repo/tools/python_truth.py" check "$repo/tests"
timed "truth cache" "$python" "$repo/tools/python_truth.py" evaluate "$repo/tests" --cache-dir "$build/truth"
timed "image corpus" "$python" "$repo/tests/image/make_corpus.py" "$build/image_corpus"
timed "vision models" "$python" "$repo/tests/vision/make_models.py" "$build/vision_models"
timed "aoti packages" timeout "${FP_GPU_AOTI_SECONDS:-300}" \
  "$python" "$repo/tests/aoti/make_packages.py" "$build/aoti"
}

status=0
for program in "$build"/tests/test_*; do
  name="$(basename "$program")"
  # FP_GPU_PROGRAMS: a regex of the programs to run (all by default).
  [[ "$name" =~ ${FP_GPU_PROGRAMS:-.} ]] || continue
  GTEST_OUTPUT="xml:$results/xml/" timed "$name" "$program" --gtest_brief=1 || status=1
done

# The example op library (its CUDA case included), loaded by this torch.
extension="$build/examples/extension/libfp_segmentation_ops.so"
if [ -f "$extension" ]; then
  FP_SEGMENTATION_LIBRARY="$extension" timed "example_extension" "$python" -m pytest -q \
    -p no:cacheprovider "$repo/examples/extension/tests" \
    --junitxml="$results/xml/example_extension.xml" || status=1
fi

"$python" - "$results/xml" <<'PY'
import sys, pathlib, xml.etree.ElementTree as ET
total = failed = skipped = 0
gpu = []
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.xml")):
    for case in ET.parse(path).getroot().iter("testcase"):
        total += 1
        name = f"{path.stem}: {case.get('classname')}.{case.get('name')}"
        state = "failed" if case.find("failure") is not None else \
                "skipped" if case.find("skipped") is not None or case.get("result") == "skipped" else "passed"
        failed += state == "failed"
        skipped += state == "skipped"
        if state == "failed" or any(w in name.lower() for w in ("cuda", "gpu", "device")):
            gpu.append(f"  {state:7} {name}")
print("\n".join(gpu))
print(f"GPU run: {total} tests, {total - failed - skipped} passed, {failed} failed, {skipped} skipped")
PY
exit $status
