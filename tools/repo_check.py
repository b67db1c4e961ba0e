"""The command line every repository check in tools/ shares: `check REPO`
prints each problem on stderr and exits 1 when there is one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable


def run(check: Callable[[Path], list[str]], description: str,
        failed: Callable[[int], str], passed: str, argv=None) -> int:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("repo", type=Path)
    args = parser.parse_args(argv)
    problems = check(args.repo)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(failed(len(problems)), file=sys.stderr)
        return 1
    print(passed)
    return 0
