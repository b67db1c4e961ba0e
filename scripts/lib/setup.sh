# Shared set-up for scripts/demo and scripts/test; sourced, not run.
# Each step checks first and does nothing when already done, so a second run
# costs a few seconds.

set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${FP_BUILD_DIR:-$REPO/build}"
VENV="$REPO/.venv"
PYTHON="$VENV/bin/python"
TORCH_VERSION="2.13.0"
# Every torch the binaries are tested with (scripts/test --torch X.Y.Z): the
# one place that lists them. One build (TORCH_VERSION's headers, targeting the
# oldest) loads into each.
SUPPORTED_TORCH_VERSIONS=(2.11.0 2.12.1 2.13.0 2.14.1 2.15.0)
# Python packages the demo, the tests and the ground-truth tool use.
# Pillow and scikit-image (its sample photos) are the image tests' ground truth;
# shapely (GEOS) the rotated boxes';
# torchvision's pure-Python utils (resize, make_grid, draw_*) too.
PYTHON_PACKAGES=("torch==$TORCH_VERSION" "numpy" "pytest" "safetensors" "pillow" "scikit-image" "shapely")
# torchvision pairs with torch 2.13; installed without dependencies so that it
# cannot replace torch. Its compiled ops do not load beside the CPU torch: the
# image tests use only its Python (v2 resize, make_grid, draw_*).
TORCHVISION_PACKAGE="torchvision==0.28.0"
APT_PACKAGES=(ninja-build ccache libgtest-dev libbenchmark-dev nlohmann-json3-dev libzip-dev pkg-config valgrind
  clang-14 clang-format clang-tidy-14 python3-venv libjpeg62-turbo-dev libturbojpeg0-dev libpng-dev zlib1g-dev libspng-dev libwebp-dev libgif-dev libavif-dev
  libjpeg-turbo-progs doxygen)
# clang's sanitizer and libFuzzer runtimes: their own package on Debian 12,
# which clang-14 only recommends (and packages are installed without
# recommends); releases without that package ship them in
# libclang-common-14-dev, a dependency of clang-14.
SANITIZER_RUNTIME_PACKAGE=libclang-rt-14-dev

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

missing_apt_packages() {
  local missing=()
  for package in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$package")
  done
  sanitizer_runtime_missing && missing+=("$SANITIZER_RUNTIME_PACKAGE")
  echo "${missing[@]:-}"
}

sanitizer_runtime_missing() {
  command -v clang++-14 >/dev/null || return 0
  [ ! -e "$(clang++-14 -print-runtime-dir)/libclang_rt.asan-x86_64.a" ]
}

ensure_apt_packages() {
  command -v dpkg-query >/dev/null || { say "not a Debian/Ubuntu system: install ${APT_PACKAGES[*]} yourself"; return; }
  local missing
  missing="$(missing_apt_packages)"
  [ -z "$missing" ] && return
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
      sudo="sudo"
    else
      echo "flash_powder needs these Debian packages; install them and run again:" >&2
      echo "  sudo apt-get install -y $missing" >&2
      exit 1
    fi
  fi
  say "installing Debian packages: $missing"
  $sudo apt-get update -qq
  if [[ " $missing " == *" $SANITIZER_RUNTIME_PACKAGE "* ]] &&
    ! apt-cache show "$SANITIZER_RUNTIME_PACKAGE" >/dev/null 2>&1; then
    missing="${missing/$SANITIZER_RUNTIME_PACKAGE/}"  # this release has it in libclang-common-14-dev
    [ -z "${missing// /}" ] && return
  fi
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

ensure_venv() {
  local stamp="$VENV/.fp-packages"
  local wanted="${PYTHON_PACKAGES[*]} $TORCHVISION_PACKAGE"
  if [ -x "$PYTHON" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
    return
  fi
  if [ ! -x "$PYTHON" ]; then
    say "creating $VENV"
    python3 -m venv "$VENV"
  fi
  say "installing Python packages: $wanted"
  "$PYTHON" -m pip install -q --disable-pip-version-check "${PYTHON_PACKAGES[@]}"
  "$PYTHON" -m pip install -q --disable-pip-version-check --no-deps "$TORCHVISION_PACKAGE"
  echo "$wanted" >"$stamp"
}

# Configures $BUILD once (CMake arguments: "$@"); later builds reconfigure
# themselves when a CMakeLists.txt changes.
ensure_configured() {
  local generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    say "configuring $BUILD"
    # -g1 (line tables and function names, no variables): what valgrind's and
    # the sanitizers' reports and a backtrace need, and a quarter less
    # compile time than -g, most of it in the generated ops.
    # A unity build (CMake compiles each target's sources in batches of 8,
    # one translation unit per batch) halves the CPU time of a cold build:
    # most of it is spent parsing the same headers again in every source.
    cmake -S "$REPO" -B "$BUILD" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_UNITY_BUILD=ON \
      -DFP_BORROW_CHECK=ON -DFP_TORCH_DIR="$(torch_dir_of "$PYTHON")" "$@" >/dev/null
  fi
}

# Builds the given targets, or everything when none is given.
build_targets() {
  local targets=()
  [ $# -gt 0 ] && targets=(--target "$@")
  cmake --build "$BUILD" --parallel "$(nproc)" "${targets[@]}"
}

ensure_build() {
  ensure_configured "$@"
  say "building"
  build_targets
}

# The torch/ folder a Python imports (without importing torch, which takes seconds).
torch_dir_of() {
  "$1" -c 'import importlib.util as u; print(u.find_spec("torch").submodule_search_locations[0])'
}

# The sanitizer lane's build (scripts/test --lane sanitize): clang-14, every
# warning an error, AddressSanitizer + LeakSanitizer + UndefinedBehaviorSanitizer,
# the borrow checker and the handle count. -O1 with line tables only: the
# sanitizers' usual trade between build time, run time and readable reports
# (assertions stay on). The benchmarks are not built: they assert nothing.
# The expected values, AOTInductor packages and image corpus are the CPU
# lanes' (same torch, same native CPU settings), so they are computed once.
SANITIZE_BUILD="${FP_SANITIZE_BUILD_DIR:-$REPO/build-sanitize}"
ensure_sanitize_build() {
  if [ ! -f "$SANITIZE_BUILD/CMakeCache.txt" ]; then
    say "configuring $SANITIZE_BUILD (clang-14, sanitizers)"
    CXX=clang++-14 cmake -S "$REPO" -B "$SANITIZE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DFP_SANITIZE=ON -DFP_WERROR=ON \
      -DCMAKE_UNITY_BUILD=ON \
      -DFP_BORROW_CHECK=ON -DFP_BUILD_BENCH=OFF -DFP_TEST_DATA_DIR="$BUILD" >/dev/null
  fi
  say "building $SANITIZE_BUILD"
  cmake --build "$SANITIZE_BUILD" --parallel "$(nproc)"
}

# The sanitizer lane's options (tools/sanitizers/environment says why).
sanitizer_environment() {
  sed -n -e "s|@HERE@|$REPO/tools/sanitizers|" -e '/^[A-Z_]*=/p' "$REPO/tools/sanitizers/environment" |
    tr '\n' ' '
}

# A venv with torch X.Y.Z under the build folder, for scripts/test --torch.
# The index's wheels of these releases are CUDA builds: each is installed
# without its dependencies, plus the pure-Python ones `import torch` needs.
# The CUDA libraries they link to (libtorch_cpu.so: the runtime and CUPTI;
# Python's torch._C: cuBLAS, cuDNN, NCCL, ...) are installed once, for all of
# them, under build/torch/cuda13 (CUDA 13 keeps its ABI within the major
# version; nothing runs on a GPU here, the libraries only have to load).
CUDA_LIBRARY_PACKAGES=("cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,nvtx]==13.2.2"
  "nvidia-cudnn-cu13==9.26.0.51" "nvidia-cusparselt-cu13==0.8.1" "nvidia-nccl-cu13==2.30.7"
  "nvidia-nvshmem-cu13==3.7.2")

torch_venv() {
  echo "$BUILD/torch/$1"
}

ensure_cuda_libraries() {
  local target="$BUILD/torch/cuda13"
  local stamp="$target/.fp-packages"
  local wanted="${CUDA_LIBRARY_PACKAGES[*]}"
  [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ] && return
  say "installing the CUDA 13 libraries the torch wheels link to (about 3 GB) into $target"
  rm -rf "$target"
  python3 -m pip install -q --disable-pip-version-check --target "$target" "${CUDA_LIBRARY_PACKAGES[@]}"
  echo "$wanted" >"$stamp"
}

# What `import torch` needs beside a --no-deps torch, and what the tests' Python uses.
TORCH_VENV_PACKAGES=(filelock typing-extensions sympy networkx jinja2 fsspec numpy pytest safetensors pillow scikit-image shapely)

ensure_torch_venv() {
  local version="$1"
  local venv
  venv="$(torch_venv "$version")"
  ensure_cuda_libraries
  local stamp="$venv/.fp-torch"
  # The stamp names everything installed, so a venv made before a package was
  # added gets it on the next run.
  local wanted="$version ${TORCH_VENV_PACKAGES[*]} $TORCHVISION_PACKAGE"
  if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
    return
  fi
  say "creating $venv with torch $version"
  python3 -m venv "$venv"
  # A constraints file on some machines caps torch; this one version is wanted.
  PIP_CONSTRAINT=/dev/null "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    --no-deps "torch==$version"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${TORCH_VENV_PACKAGES[@]}"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps "$TORCHVISION_PACKAGE"
  echo "$wanted" >"$stamp"
}

# The folders whose libraries a process must load to run torch X.Y.Z.
torch_library_path() {
  local site
  site="$("$(torch_venv "$1")/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  local path="$site/torch/lib"
  for lib in "$BUILD"/torch/cuda13/nvidia/*/lib; do path="$path:$lib"; done
  echo "$path"
}

# torchvision's compiled ops (nms, roi_align, roi_pool, ps_roi_*): the
# ground truth of fp::vision::ops' kernels. They do not load beside the CPU
# torch of .venv; this torchvision loads beside the torch of torch_venv
# TORCHVISION_OPS_TORCH. It is installed into a folder of its own, put on
# PYTHONPATH by the wrapper "python" written there (which also sets the
# library path that torch needs), so the --torch venv stays as it is.
TORCHVISION_OPS_TORCH="2.14.1"
TORCHVISION_OPS_PACKAGE="torchvision==0.29.2"

torchvision_ops_dir() {
  echo "$BUILD/torch/torchvision-ops"
}

ensure_torchvision_ops() {
  ensure_torch_venv "$TORCHVISION_OPS_TORCH"
  local target
  target="$(torchvision_ops_dir)"
  local stamp="$target/.fp-packages"
  local wanted="$TORCHVISION_OPS_TORCH $TORCHVISION_OPS_PACKAGE"
  [ -x "$target/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ] && return
  say "installing $TORCHVISION_OPS_PACKAGE (its compiled ops, the truth of fp::vision::ops) into $target"
  rm -rf "$target"
  local python
  python="$(torch_venv "$TORCHVISION_OPS_TORCH")/bin/python"
  PIP_CONSTRAINT=/dev/null "$python" -m pip install -q --disable-pip-version-check --no-deps \
    --target "$target/site" "$TORCHVISION_OPS_PACKAGE"
  cat >"$target/python" <<WRAPPER
#!/bin/sh
# Python with torch $TORCHVISION_OPS_TORCH and $TORCHVISION_OPS_PACKAGE (scripts/lib/setup.sh).
export PYTHONPATH="$target/site\${PYTHONPATH:+:\$PYTHONPATH}"
export LD_LIBRARY_PATH="$(torch_library_path "$TORCHVISION_OPS_TORCH")\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "$python" "\$@"
WRAPPER
  chmod +x "$target/python"
  "$target/python" -c "import torch, torchvision; torch.ops.torchvision.nms" ||
    { echo "torchvision's compiled ops do not load in $target" >&2; return 1; }
  echo "$wanted" >"$stamp"
}

setup_all() {
  ensure_apt_packages
  ensure_venv
  ensure_build "$@"
}
