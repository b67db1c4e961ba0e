#!/usr/bin/env python3
"""Checks that the documentation cannot drift from the code it shows.

* Every ```cpp, ```cmake and ```python block of README.md, CONTRIBUTING.md
  and docs/guide/*.md appears, character for character up to white space,
  in a file the test suite builds and runs (WITNESSES): the C++ in a test
  program of tests/docs/, the CMake in a project tests/consumers/ builds,
  the Python in a `#|PYTHON` block beside the C++ (which the ground-truth
  fixture runs) or in an example. White space is left out of the comparison
  so that clang-format may lay the test's copy out as it likes.
* A block that only shows what does not compile, or what a program prints,
  says so with `<!-- not compiled: <reason> -->` on the line above it.
* Every tests/*/test_*.cpp is a source of a test program
  (tests/CMakeLists.txt names it), so a snippet cannot hide in a file that
  is never built.
* Relative links of those pages point at files that exist.
* README.md stays a page read in five minutes: at most README_LINES lines,
  opening with the two commands (the demo, then the test command), and
  .ci/run runs that test command.

    tools/check_docs.py REPO    # exit 1 and list each block or link that drifted
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import repo_check

README_LINES = 200

# The pages whose examples must be compiled and run.
PAGES = ("README.md", "CONTRIBUTING.md", "docs/guide/*.md")

# The code languages checked, and where their blocks must be found (with why
# those files are run by the suite).
WITNESSES = {
    # the test programs' sources (every tests/*/test_*.cpp is in one:
    # check_test_sources), the docs' among them, and the examples' programs
    # (built, and run by CTest example_*)
    "cpp": ("tests/*/test_*.cpp", "tests/docs/*.h", "examples/*/*.cpp", "examples/*/*/*.cpp"),
    # the projects CTest consumers.* configures and builds
    "cmake": ("tests/consumers/*/CMakeLists.txt",),
    # #|PYTHON blocks (run by the truth_cache fixture) and the examples' Python
    # (run by CTest example_*)
    "python": ("tests/docs/*.cpp", "examples/*/*.py", "examples/*/*/*.py", "examples/*/*/*/*.py"),
}

NOT_COMPILED = re.compile(r"<!--\s*not compiled:\s*\S.*-->")
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


@dataclass
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    language: str
    text: str
    not_compiled: bool


def squeezed(text: str) -> str:
    """`text` without any white space: what two layouts of one code share."""
    return re.sub(r"\s+", "", text)


def blocks(page: Path) -> list[Block]:
    """The fenced code blocks of a Markdown page."""
    found = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        language = opening.group(2).lower()
        start = i
        i += 1
        body = []
        while i < len(lines) and not FENCE.match(lines[i]):
            body.append(lines[i])
            i += 1
        previous = lines[start - 1] if start > 0 else ""
        found.append(Block(page, start + 1, language, "\n".join(body),
                           bool(NOT_COMPILED.search(previous))))
        i += 1  # the closing fence
    return found


def pages(repo: Path) -> list[Path]:
    found = []
    for pattern in PAGES:
        found.extend(sorted(repo.glob(pattern)))
    return found


def witness_texts(repo: Path, language: str) -> dict[Path, str]:
    texts = {}
    for pattern in WITNESSES[language]:
        for path in sorted(repo.glob(pattern)):
            texts[path] = squeezed(path.read_text(encoding="utf-8"))
    return texts


def check_blocks(repo: Path, page_list: list[Path]) -> list[str]:
    problems = []
    witnesses = {language: witness_texts(repo, language) for language in WITNESSES}
    for page in page_list:
        for block in blocks(page):
            where = f"{page.relative_to(repo)}:{block.line}"
            if block.not_compiled or block.language not in WITNESSES:
                continue
            wanted = squeezed(block.text)
            if not wanted:
                problems.append(f"{where}: empty ```{block.language} block")
                continue
            if not any(wanted in text for text in witnesses[block.language].values()):
                places = ", ".join(WITNESSES[block.language])
                problems.append(
                    f"{where}: this ```{block.language} block is in no file the tests run "
                    f"({places}); copy it there (white space may differ), or mark a block that "
                    f"must not compile with <!-- not compiled: reason -->")
    return problems


def check_test_sources(repo: Path) -> list[str]:
    """Every tests/*/test_*.cpp is named in tests/CMakeLists.txt."""
    tests = repo / "tests"
    cmake = (tests / "CMakeLists.txt").read_text(encoding="utf-8")
    problems = []
    for source in sorted(tests.glob("*/test_*.cpp")):
        name = source.relative_to(tests).as_posix()
        if not re.search(rf"(^|[\s\"/]){re.escape(name)}($|[\s\")])", cmake, re.MULTILINE):
            problems.append(f"tests/{name}: no test program is built from it "
                            f"(add it to a program in tests/CMakeLists.txt)")
    return problems


def check_links(repo: Path, page_list: list[Path]) -> list[str]:
    problems = []
    for page in page_list:
        in_code = False
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if FENCE.match(line):
                in_code = not in_code
                continue
            if in_code:
                continue
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue  # a URL or an anchor on the same page
                path = target.split("#", 1)[0]
                if not (page.parent / path).exists():
                    problems.append(f"{page.relative_to(repo)}:{number}: the link to {target} "
                                    f"leads nowhere")
    return problems


def check_readme(repo: Path) -> list[str]:
    readme = repo / "README.md"
    lines = readme.read_text(encoding="utf-8").splitlines()
    problems = []
    if len(lines) > README_LINES:
        problems.append(f"README.md: {len(lines)} lines; keep it to {README_LINES} "
                        f"(move the rest into docs/guide/ or CONTRIBUTING.md)")
    first = next((block for block in blocks(readme)), None)
    commands = [line.split("#", 1)[0].strip() for line in (first.text if first else "").splitlines()]
    commands = [command for command in commands if command]
    if first is None or first.line > 5 or len(commands) != 2:
        problems.append("README.md: must open with one code block of two commands, the demo "
                        "and the test command")
        return problems
    ci = (repo / ".ci" / "run").read_text(encoding="utf-8")
    test_command = commands[1]
    if test_command not in ci:
        problems.append(f"README.md: .ci/run does not run the README's test command "
                        f"({test_command})")
    return problems


def check(repo: Path) -> list[str]:
    page_list = pages(repo)
    return (check_readme(repo) + check_blocks(repo, page_list) + check_test_sources(repo) +
            check_links(repo, page_list))


def main(argv=None) -> int:
    return repo_check.run(
        check, "The docs' examples are compiled and run by the tests; their links lead somewhere.",
        lambda count: f"check_docs: {count} problems",
        "check_docs: every example of the docs is in a test the suite runs", argv)


if __name__ == "__main__":
    sys.exit(main())
