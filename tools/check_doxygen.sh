#!/usr/bin/env bash
# CTest doxygen: builds the API reference (docs/Doxyfile) with every warning
# an error, undocumented public declarations included, and prints the
# warnings, their count and the time it took.
#
#   tools/check_doxygen.sh [OUTPUT]                   # the public headers; OUTPUT: build/docs
#   tools/check_doxygen.sh --expect-warnings OUTPUT HEADER...
#                                                     # the canary: these headers must fail
set -uo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
expect_warnings=0
if [ "${1:-}" = "--expect-warnings" ]; then expect_warnings=1; shift; fi
out="${1:-$repo/build/docs}"
shift || true
command -v doxygen >/dev/null || {
  echo "check_doxygen: doxygen is not installed (scripts/lib/setup.sh installs it: apt-get install doxygen)" >&2
  exit 1
}
mkdir -p "$out"
log="$out/warnings.txt"
rm -f "$log"
overrides=("OUTPUT_DIRECTORY = $out" "WARN_LOGFILE = $log" "WARN_AS_ERROR = FAIL_ON_WARNINGS")
if [ $# -gt 0 ]; then
  overrides+=("INPUT = docs/namespaces.dox $*" "USE_MDFILE_AS_MAINPAGE =")
fi
cd "$repo"
start=$(date +%s%N)
{ cat docs/Doxyfile; printf '%s\n' "${overrides[@]}"; } | doxygen - >"$out/doxygen.out" 2>&1
status=$?
milliseconds=$(( ($(date +%s%N) - start) / 1000000 ))
seconds="$((milliseconds / 1000)).$(printf %03d $((milliseconds % 1000)))"
count=$(grep -cE ": (warning|error): " "$log" 2>/dev/null || true)
if [ "$expect_warnings" = 1 ]; then
  if [ "$status" -ne 0 ] && [ "${count:-0}" -gt 0 ]; then
    echo "check_doxygen: the canary fails as it should ($count warnings)"
    exit 0
  fi
  echo "check_doxygen: the canary passed, so the check cannot fail" >&2
  exit 1
fi
if [ "$status" -ne 0 ] || [ "${count:-0}" -gt 0 ]; then
  cat "$log" >&2 2>/dev/null || cat "$out/doxygen.out" >&2
  echo "check_doxygen: ${count:-0} warnings (doxygen exit $status) in $seconds s; document each declaration or, for the library's own machinery, add it to EXCLUDE_SYMBOLS in docs/Doxyfile with the reason" >&2
  exit 1
fi
echo "check_doxygen: no warnings, $seconds s; the reference is $out/html/index.html"
