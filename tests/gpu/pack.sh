#!/usr/bin/env bash
# Packs what tests/gpu/run.sh needs on a machine with a GPU and a CUDA torch
# but none of this project's build dependencies: the built test programs and
# libraries (debug info stripped, at their paths under build/) and the Debian
# codec libraries they link, into .gpu/ at the repository root.
#
#   tests/gpu/pack.sh [BUILD]     BUILD defaults to build/
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:-$repo/build}" && pwd)"
out="$repo/.gpu"
rm -rf "$out"
mkdir -p "$out/build" "$out/lib"

copy_stripped() {  # copy_stripped FILE: to .gpu/build/<its path under BUILD>
  local relative="${1#"$build"/}"
  mkdir -p "$out/build/$(dirname "$relative")"
  strip --strip-debug -o "$out/build/$relative" "$1"
}

# Not the ThreadSanitizer build: its runtime is GCC's, which that machine may lack.
for program in "$build"/tests/test_*; do
  [[ "$program" == *_tsan ]] && continue
  [ -f "$program" ] && [ -x "$program" ] && copy_stripped "$program"
done
# The libraries, and the example op library the extension's pytest loads.
while IFS= read -r library; do copy_stripped "$library"; done \
  < <(find "$build/src" "$build/examples" -name '*.so' -type f)

# The codec and archive libraries: Debian's sonames, which another distribution may lack.
for program in "$out"/build/tests/test_*; do ldd "$program" 2>/dev/null || true; done |
  awk '/=> \/(usr\/)?lib/ {print $3}' | sort -u |
  grep -E '/lib(jpeg|turbojpeg|png16|spng|webp|sharpyuv|zip|bz2)\.so' |
  while IFS= read -r library; do cp -L "$library" "$out/lib/"; done

du -sh "$out"
# The corpus generator's JPEG tools (Debian's libjpeg-turbo-progs).
mkdir -p "$out/bin"
for tool in cjpeg djpeg; do
  command -v "$tool" >/dev/null && cp -L "$(command -v "$tool")" "$out/bin/"
done

# The source folder the build was configured in: the programs name it.
sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" >"$out/source_dir"
