#!/usr/bin/env python3
"""Proves that misuses of the tensor types do not compile.

Each snippet in tests/compile_fail/ is compiled twice: as written, where it
must compile (so the harness and includes are right), and with
-DFP_SHOULD_FAIL, which swaps in one misuse that must be a compile error.

    tools/check_compile_fail.py --compiler c++ --include include --include build/generated \\
        tests/compile_fail/*.cpp
"""

import argparse
import subprocess
import sys


def compiles(compiler: str, includes: list[str], source: str, defines: list[str]) -> tuple[bool, str]:
    command = [compiler, "-std=c++20", "-fsyntax-only", *(f"-I{i}" for i in includes),
               *(f"-D{d}" for d in defines), source]
    result = subprocess.run(command, capture_output=True, text=True)
    return result.returncode == 0, result.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compiler", required=True)
    parser.add_argument("--include", action="append", default=[])
    parser.add_argument("sources", nargs="+")
    args = parser.parse_args()

    failures = 0
    for source in args.sources:
        ok, errors = compiles(args.compiler, args.include, source, [])
        if not ok:
            print(f"FAIL {source}: the valid variant does not compile:\n{errors}")
            failures += 1
            continue
        ok, _ = compiles(args.compiler, args.include, source, ["FP_SHOULD_FAIL"])
        if ok:
            print(f"FAIL {source}: the misuse compiles")
            failures += 1
        else:
            print(f"ok   {source}: the misuse is a compile error")
    print(f"check_compile_fail: {len(args.sources) - failures} of {len(args.sources)} snippets behave")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
