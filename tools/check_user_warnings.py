#!/usr/bin/env python3
"""User code in the documented style must compile warning-free under -Wextra.

GCC (12, 13) warns -Wmissing-field-initializers for a designated
initialiser such as `{.eps = 1e-12}` when the struct has a member without a
default member initialiser, even though C++ value-initialises it. The
library's own build turns that warning off; a user's build does not. So:

 1. every member of every `struct ...Options` in the public headers must
    have a default member initialiser (`= value` or `{}`), and
 2. the given user-style sources must compile with -Wall -Wextra -Werror,
 3. the compiler must refuse a canary (a struct with a member lacking a
    default), or the sources' check proves nothing (then a note says so).

    check_user_warnings.py --compiler g++ --include include --include build/generated SOURCES...
"""

import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

FLAGS = ["-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Werror"]
CANARY = """
#include <optional>
struct CanaryOptions { double eps = 1e-5; std::optional<int> dim; };
CanaryOptions canary() { return {.eps = 1e-12}; }
"""


def members_without_default(header):
    """(line number, struct, member) of option-struct members with no default."""
    found = []
    struct, indent = None, ""
    for number, line in enumerate(header.read_text().splitlines(), 1):
        opening = re.match(r"^(\s*)struct (\w+Options) \{", line)
        if opening:
            indent, struct = opening.group(1), opening.group(2)
            continue
        if struct is None:
            continue
        if line.startswith(indent + "};"):
            struct = None
            continue
        text = line.strip()
        if not text or text.startswith("//"):
            continue
        declaration = text.endswith(";") and "(" not in text
        if declaration and "=" not in text and "{" not in text:
            found.append((number, struct, text))
    return found


def compile_ok(compiler, includes, source):
    command = [compiler, *FLAGS, *(f"-I{path}" for path in includes), str(source)]
    result = subprocess.run(command, capture_output=True, text=True)
    return result.returncode == 0, result.stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compiler", required=True)
    parser.add_argument("--include", action="append", default=[])
    parser.add_argument("sources", nargs="+")
    args = parser.parse_args()

    problems = []
    for header in sorted(pathlib.Path(args.include[0]).rglob("*.h")):
        for number, struct, member in members_without_default(header):
            problems.append(f"{header}:{number}: {struct}: `{member}` has no default member "
                            "initialiser (add `{}`): a user's designated initialiser warns")
    for source in args.sources:
        ok, errors = compile_ok(args.compiler, args.include, source)
        if not ok:
            problems.append(f"{source} does not compile warning-free:\n{errors}")
    with tempfile.TemporaryDirectory() as folder:
        canary = pathlib.Path(folder) / "canary.cpp"
        canary.write_text(CANARY)
        ok, _ = compile_ok(args.compiler, [], canary)
        if ok:  # this compiler does not warn there: nothing for users to hit either
            print("note: this compiler accepts the canary (a member without default) "
                  "warning-free; only the header scan applies", file=sys.stderr)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
