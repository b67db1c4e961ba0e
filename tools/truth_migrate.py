#!/usr/bin/env python3
"""Turns `// #PYTHON expr` markers into run-time `truth<T>("expr")` calls.

A marker writes its value into the source, which is right for values that
cannot differ between machines (shapes, dtypes, integer results, messages).
Values that depend on libtorch's kernels, and long arrays, belong in the
run-time cache instead (tests/support/truth.h). This rewrites the markers that
`--select` picks:

    tools/truth_migrate.py tests/nn/test_layers.cpp                 # kernel-dependent ones
    tools/truth_migrate.py --select all --test-case 'Suite.*' FILE  # every marker there

`kernel` (the default) picks markers whose value holds a non-integral float or
has more than LONG elements; `stale FILE` picks those that `python_truth.py
check` lists in FILE (its output, e.g. from another CPU lane); `all` picks all.

`(std::vector<float>{...})` becomes `truth<std::vector<float>>("expr")`, a
declaration keeps its type (`const std::vector<float> e = truth<...>(...)`),
and a bare number becomes `truth<double>` / `truth<std::int64_t>`.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import python_truth as pt  # noqa: E402

LONG = 16


def flatten(value):
    value = pt._as_plain_python(value)
    if pt._is_sequence(value):
        for item in value:
            yield from flatten(item)
    else:
        yield value


def is_kernel_dependent(value) -> bool:
    items = list(flatten(value))
    if len(items) > LONG:
        return True
    return any(isinstance(v, (float, complex)) and not isinstance(v, bool) for v in items)


def scalar_type(value) -> str:
    value = pt._as_plain_python(value)
    if pt._is_sequence(value):
        inner = [scalar_type(v) for v in value] or ["double"]
        return f"std::vector<{inner[0]}>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "std::int64_t"
    if isinstance(value, float):
        return "double"
    if isinstance(value, complex):
        return "std::complex<double>"
    if isinstance(value, str):
        return "std::string"
    if isinstance(value, pt.torch.dtype):
        return "fp::DType"
    raise ValueError(f"no C++ type for {type(value)}")


def string_literal(expression: str) -> str:
    if '"' in expression or "\\" in expression:
        return f'R"({expression})"'
    return f'"{expression}"'


_QUALIFIERS = {"const", "static", "constexpr", "inline"}


def replacement_for(view: pt.CodeView, marker, value) -> tuple[int, int, str]:
    """(start, end, text): the source span that becomes the truth call."""
    code = view.code
    semicolon = view.previous_code_token(marker.offset)
    lo, hi = view.statement_target(semicolon, marker.offset)
    call = f"truth<{{}}>({string_literal(marker.expression)})"
    statement_lo = view.skip_statement_prefixes(view.statement_start(semicolon), semicolon)
    is_declaration = view.call_last_argument(statement_lo, semicolon) is None
    if is_declaration:
        # `T name = init` (lo after `=`) or `T name{init}` (lo at `{`).
        equals = lo - 1 if view.is_punct(lo - 1, "=") else None
        name = (equals if equals is not None else lo) - 1
        type_tokens = [t.text for t in code[statement_lo:name] if t.text not in _QUALIFIERS]
        declared = view.text_of(statement_lo, name)
        declared = " ".join(w for w in declared.split() if w not in _QUALIFIERS)
        cpp_type = scalar_type(value) if type_tokens in (["auto"], []) else declared
        start = code[lo].start if equals is not None else code[lo].start
        prefix = "" if equals is not None else " = "
        # constexpr cannot hold a run-time value.
        fix_constexpr = [t for t in code[statement_lo:name] if t.text == "constexpr"]
        edits = [(t.start, t.end, "const") for t in fix_constexpr]
        return start, code[hi - 1].end, prefix + call.format(cpp_type), edits
    text = view.text_of(lo, hi)
    inner = text
    while inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1].strip()
    brace = inner.find("{")
    if brace > 0 and inner.endswith("}") and re.fullmatch(r"[\w:<>, ]+", inner[:brace].strip()):
        cpp_type = inner[:brace].strip()
    else:
        cpp_type = scalar_type(value)
    return code[lo].start, code[hi - 1].end, call.format(cpp_type), []


def stale_expressions(report: str, path: str) -> set[tuple[str, str]]:
    found = set()
    pattern = re.compile(r"^(.*?):(\d+): stale value in (\S+): (.*)$")
    for line in Path(report).read_text().splitlines():
        match = pattern.match(line)
        if match and Path(match.group(1)).resolve() == Path(path).resolve():
            found.add((match.group(3), match.group(4)))
    return found


def migrate(path: str, select: str, stale_report: str | None, patterns) -> int:
    source = pt.read_source(path)
    view = pt.CodeView(path, source.text, pt.tokenize(source.text, path))
    stale = stale_expressions(stale_report, path) if stale_report else set()
    edits = []
    for evaluation in pt.evaluate(source, patterns):
        marker = evaluation.marker
        chosen = (select == "all"
                  or (select == "kernel" and is_kernel_dependent(evaluation.value))
                  or (select == "stale" and (evaluation.test.full_name, marker.expression) in stale))
        if not chosen:
            continue
        start, end, text, extra = replacement_for(view, marker, evaluation.value)
        edits.append((start, end, text))
        edits.extend(extra)
        # The marker comment goes; its line too when nothing else is on it.
        comment_start = marker.offset
        comment_end = source.text.index("\n", comment_start)
        line_start = source.text.rindex("\n", 0, comment_start) + 1
        if source.text[line_start:comment_start].strip() == "":
            edits.append((line_start, comment_end + 1, ""))
        else:
            while comment_start > 0 and source.text[comment_start - 1] in " \t":
                comment_start -= 1
            edits.append((comment_start, comment_end, ""))
    if not edits:
        return 0
    text = source.text
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    if "support/truth.h" not in text:
        include = re.search(r'^#include "[^"]*"\n', text, re.M) or re.search(
            r"^#include <[^>]*>\n(?!#include)", text, re.M)
        text = text[:include.end()] + '#include "support/truth.h"\n' + text[include.end():]
    if "using fp_test::truth;" not in text:
        anchor = re.search(r"^namespace \{\n", text, re.M)
        if anchor:
            text = text[:anchor.end()] + "\nusing fp_test::truth;\n" + text[anchor.end():]
        else:
            include = text.index('#include "support/truth.h"\n') + len('#include "support/truth.h"\n')
            text = text[:include] + "\nusing fp_test::truth;\n" + text[include:]
    pt.atomic_write(path, text)
    print(f"{path}: {len([e for e in edits if e[2]])} values now come from truth<T>()")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--select", default="kernel", choices=["kernel", "stale", "all"])
    parser.add_argument("--stale-report", help="python_truth.py check output (for --select stale)")
    parser.add_argument("--test-case", action="append", metavar="GLOB")
    args = parser.parse_args()
    for path in args.files:
        migrate(path, args.select, args.stale_report, args.test_case)
    return 0


if __name__ == "__main__":
    sys.exit(main())
