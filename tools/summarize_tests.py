#!/usr/bin/env python3
"""Prints the lines counting every test case scripts/test ran.

CTest runs whole programs; GoogleTest and pytest inside them write JUnit XML
with the individual cases. This reads CTest's own JUnit report and, for each
CTest test that left a detailed report named `<test>.xml` beside it, counts
that report's cases instead of the program as one. Given several folders
(one per lane: test-results, test-results-default, ...) it prints a line per
lane, then the total.

    tools/summarize_tests.py build/test-results [build/test-results-default ...]
"""

import pathlib
import sys
import xml.etree.ElementTree as ElementTree


def cases(report: pathlib.Path, qualified: bool = True):
    """(name, outcome) for every <testcase> in a JUnit report."""
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        name = case.get("name", "")
        if qualified and case.get("classname"):
            name = f"{case.get('classname')}.{name}"
        if case.find("failure") is not None or case.find("error") is not None:
            yield name, "failed"
        elif case.find("skipped") is not None or case.get("result") == "skipped" \
                or case.get("status") == "notrun":
            yield name, "skipped"
        else:
            yield name, "passed"


def lane_name(results: pathlib.Path) -> str:
    prefix = "test-results-"
    return results.name[len(prefix):] if results.name.startswith(prefix) else "native"


def count(results: pathlib.Path):
    """({passed, failed, skipped}, failed names), or None without a report."""
    ctest_report = results / "ctest.xml"
    if not ctest_report.exists():
        return None
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    failed_names = []
    for test, outcome in cases(ctest_report, qualified=False):
        detail = results / f"{test}.xml"
        if outcome != "failed" and detail.exists():
            for name, case_outcome in cases(detail):
                counts[case_outcome] += 1
                if case_outcome == "failed":
                    failed_names.append(name)
        else:
            counts[outcome] += 1
            if outcome == "failed":
                failed_names.append(test)
    return counts, failed_names


def line(counts) -> str:
    return f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped"


def main() -> int:
    folders = [pathlib.Path(arg) for arg in sys.argv[1:]]
    total = {"passed": 0, "failed": 0, "skipped": 0}
    for results in folders:
        counted = count(results)
        if counted is None:
            print(f"summary: no CTest report in {results}; did CTest run?")
            return 1
        counts, failed_names = counted
        for name in failed_names:
            print(f"FAILED ({lane_name(results)}): {name}")
        if len(folders) > 1:
            print(f"{lane_name(results)}: {line(counts)}")
        total = {k: total[k] + counts[k] for k in total}
    print(f"summary: {line(total)}")
    return 1 if total["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
