#!/usr/bin/env python3
"""Fails when a built library or program references a libtorch C++ symbol.

flash_powder talks to libtorch through its stable C ABI only. Any `at::`,
`c10::` or `torch::` symbol among a binary's undefined dynamic symbols would
tie it to one torch release, so this lists them and exits 1.

    tools/check_abi_symbols.py build/src build/tests     # every ELF file below
    tools/check_abi_symbols.py --expect-violation lib.so # exit 0 only if one is found
"""

import argparse
import pathlib
import re
import subprocess
import sys

CPP_SYMBOL = re.compile(r"\b(at|c10|torch)::")


def elf_files(paths):
    for path in map(pathlib.Path, paths):
        candidates = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for candidate in candidates:
            if "CMakeFiles" in candidate.parts:
                continue
            with open(candidate, "rb") as handle:
                if handle.read(4) == b"\x7fELF":
                    yield candidate


def cpp_symbols(binary: pathlib.Path):
    output = subprocess.run(["nm", "-DC", "--undefined-only", str(binary)],
                            capture_output=True, text=True, check=True).stdout
    return [line.split(None, 1)[-1] for line in output.splitlines() if CPP_SYMBOL.search(line)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="ELF files, or folders to search for them")
    parser.add_argument("--expect-violation", action="store_true",
                        help="succeed only if a libtorch C++ symbol is found (checks the checker)")
    args = parser.parse_args()

    binaries = list(elf_files(args.paths))
    if not binaries:
        print("check_abi_symbols: no ELF files found in", " ".join(args.paths))
        return 1
    violations = {binary: symbols for binary in binaries if (symbols := cpp_symbols(binary))}
    for binary, symbols in violations.items():
        print(f"{binary}: references libtorch C++ symbols:")
        for symbol in symbols:
            print(f"    {symbol}")
    print(f"check_abi_symbols: {len(binaries)} binaries, {len(violations)} with C++ symbols")
    if args.expect_violation:
        return 0 if violations else 1
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
