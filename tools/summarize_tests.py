#!/usr/bin/env python3
"""Prints one line counting every test case scripts/test ran.

CTest runs whole programs; GoogleTest and pytest inside them write JUnit XML
with the individual cases. This reads CTest's own JUnit report and, for each
CTest test that left a detailed report named `<test>.xml` beside it, counts
that report's cases instead of the program as one.

    tools/summarize_tests.py build/test-results
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


def main() -> int:
    results = pathlib.Path(sys.argv[1])
    ctest_report = results / "ctest.xml"
    if not ctest_report.exists():
        print(f"summary: no CTest report in {results}; did CTest run?")
        return 1
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
    for name in failed_names:
        print(f"FAILED: {name}")
    print(f"summary: {counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['skipped']} skipped")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
