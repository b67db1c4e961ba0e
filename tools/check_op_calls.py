#!/usr/bin/env python3
"""Fails when library code calls an op by its name.

Inside flash_powder every op is called through generated, typed code
(fp::aten::*, whose wrappers find their schema by its position in the builtin
table, and the backend shims). Calling one by a string name -- fp::dispatch,
fp::abi::call, fp::abi::find_schema, torch_call_dispatcher with a literal --
is for users and for the code that implements those entry points, listed in
ALLOWED with the reason. A name in a string is not checked by the compiler,
costs a lookup per call, and hides from tools/generate_ops.py which ops the
library uses.

    tools/check_op_calls.py REPO    # exit 1 and list the calls found
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import repo_check

# The files that implement the by-name entry points, and why they may.
ALLOWED = {
    "src/abi/dispatch.cpp": "implements fp::dispatch / fp::abi::call",
    "src/abi/schema.cpp": "implements fp::abi::find_schema",
    "src/abi/op_call.cpp": "calls torch_call_dispatcher with the schema it was given",
    "src/library/library.cpp": "binds kernels to the custom ops a user names",
}

PATTERNS = {
    "fp::dispatch": re.compile(r"\bdispatch\s*<[^>]*>\s*\(|\bdispatch\s*\(\s*\""),
    "fp::abi::call": re.compile(r"\babi::call\s*\("),
    "fp::abi::find_schema": re.compile(r"\bfind_schema\s*\("),
    "torch_call_dispatcher": re.compile(r"\b(aoti_)?torch_call_dispatcher\s*\("),
}


def calls_by_name(path: Path, text: str) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("//", 1)[0]
        for what, pattern in PATTERNS.items():
            if pattern.search(code):
                found.append(f"{path}:{number}: calls an op by name through {what}: "
                             f"{line.strip()}")
    return found


def check(repo: Path) -> list[str]:
    problems = []
    for path in sorted((repo / "src").rglob("*")):
        if path.suffix not in {".cpp", ".h"} or "generated" in path.parts:
            continue
        relative = path.relative_to(repo).as_posix()
        if relative in ALLOWED:
            continue
        problems += calls_by_name(Path(relative), path.read_text(encoding="utf-8"))
    return problems


def main(argv=None) -> int:
    return repo_check.run(
        check, __doc__.splitlines()[0],
        lambda count: f"check_op_calls: {count} op call(s) by name in src/; call the typed "
                      "fp::aten::* wrapper instead",
        "check_op_calls: src/ calls every op through typed code", argv)


if __name__ == "__main__":
    sys.exit(main())
