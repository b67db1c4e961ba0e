#!/usr/bin/env python3
"""Checks three rules of the sources that a compiler does not:

* namespaces match folders: a file under include/flash_powder/<folder>/ or
  src/<folder>/ opens only `fp::<folder>` (and namespaces inside it), or,
  in the folders of the vocabulary and the tensor layer (TOP_LEVEL), the
  top-level `fp` and `fp::detail`, and in their subfolders `fp::<subfolder>`
  (src/core/mirrored/ opens fp::mirrored);
* no reserved identifier: no name with a double underscore, none that
  starts with an underscore and a capital letter (C++ [lex.name]), outside
  the compiler's and libtorch's own names;
* no hand-written file over LONG lines without the reason in its first
  comment (a line saying "Why this file is long: ...").

    tools/check_source_rules.py REPO    # exit 1 and list what breaks a rule
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import repo_check

LONG = 500
LONG_REASON = "Why this file is long:"

# Folders whose files may open the top-level fp namespace (and fp::detail):
# the vocabulary, the ABI's user-facing entry points (fp::dispatch,
# fp::torch_version, ...) and the tensor types with their methods.
TOP_LEVEL = {"base", "abi", "core", "aten"}
# Folders whose namespace is named otherwise.
NAMESPACE_OF_FOLDER = {}
# Namespaces a folder opens besides its own, and why.
ALSO_OPENS = {
    ("core", "fp::abi"): "specialises fp::abi's traits for the tensor types (tensor_traits.h)",
}

# Generated files (their generators keep their own rules).
GENERATED = re.compile(r"(^|/)generated/|include/flash_powder/aten/aten\.h$|"
                       r"core/detail/tensor_methods\.h$|core/operators\.h$|core/functions\.h$")

# Reserved-looking names that are the compiler's, the standard library's or
# libtorch's C API's (which flash_powder calls, not names).
ALLOWED_RESERVED = re.compile(
    r"^(__FILE__|__LINE__|__VA_ARGS__|__func__|__has_feature|__has_include|__GNUC__|"
    r"__clang__|__x86_64__|__aarch64__|__cplusplus|__SANITIZE_ADDRESS__|__SANITIZE_THREAD__|"
    r"__attribute__|__builtin_\w+|__cxa_\w+|__cpuid\w*|__m\d+\w*|__BYTE_ORDER__|"
    r"__ORDER_LITTLE_ENDIAN__|__ORDER_BIG_ENDIAN__|__linux__|__GLIBC__|__restrict__|"
    r"__thread|__PRETTY_FUNCTION__|__COUNTER__|_GNU_SOURCE|_POSIX_C_SOURCE|"
    r"__VA_OPT__|__get_cpuid\w*|__i386__|__GLIBC_MINOR__|_FORTIFY_SOURCE|_SC_\w+|_CMP_\w+|"
    r"aoti_torch_\w+|torch_\w+|_mm\w*|__v\d+\w*|_MM_\w+)$")

NAMESPACE = re.compile(r"^\s*namespace\s+([A-Za-z_][\w:]*)\s*\{", re.M)
IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")


def folder_of(relative: tuple[str, ...]) -> str | None:
    if len(relative) >= 3 and relative[:2] == ("include", "flash_powder"):
        return relative[2]
    if len(relative) >= 2 and relative[0] == "src":
        return relative[1]
    return None


def subfolder_of(relative: tuple[str, ...]) -> str | None:
    """The folder below the layer's folder, for a file there: "mirrored" for
    src/core/mirrored/arange.cpp."""
    start = 3 if relative[:2] == ("include", "flash_powder") else 2
    return relative[start] if len(relative) > start + 1 else None


def without_comments_and_strings(text: str) -> str:
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'R"\((?:.|\n)*?\)"', '""', text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


def namespace_problems(path: str, folder: str, text: str, subfolder: str | None = None) -> list[str]:
    expected = NAMESPACE_OF_FOLDER.get(folder, folder)
    problems = []
    for match in NAMESPACE.finditer(text):
        name = match.group(1)
        if (folder, name) in ALSO_OPENS:
            continue
        if folder in TOP_LEVEL and subfolder is not None and name.startswith(f"fp::{subfolder}"):
            continue
        if name == "fp":
            ok = folder in TOP_LEVEL
        elif name in ("detail", "fp::detail"):
            ok = True  # inside an enclosing fp::<folder> namespace, or the top level's
        else:
            parts = name.split("::")
            ok = (parts[0] == "fp" and len(parts) > 1 and
                  (parts[1] == expected or (folder in TOP_LEVEL and parts[1] == "detail"))) or \
                 (parts[0] != "fp" and not name.startswith("fp"))  # nested, or another library's
        if not ok:
            line = text.count("\n", 0, match.start()) + 1
            problems.append(f"{path}:{line}: namespace {name} in folder {folder}/ "
                            f"(expected fp::{expected})")
    return problems


def reserved_problems(path: str, text: str) -> list[str]:
    problems = []
    code = without_comments_and_strings(text)
    for number, line in enumerate(code.splitlines(), 1):
        for name in IDENTIFIER.findall(line):
            reserved = "__" in name or re.match(r"^_[A-Z]", name)
            if reserved and not ALLOWED_RESERVED.match(name):
                problems.append(f"{path}:{number}: reserved identifier {name}")
    return problems


def length_problem(path: str, text: str) -> list[str]:
    lines = text.count("\n")
    if lines <= LONG:
        return []
    first_comment = re.match(r"(\s*(//[^\n]*\n|#[^\n]*\n|\"\"\"(?:.|\n)*?\"\"\"\n))+", text)
    if first_comment and LONG_REASON in first_comment.group(0):
        return []
    return [f"{path}: {lines} lines, over {LONG}, without \"{LONG_REASON} ...\" in its "
            "first comment"]


def sources(repo: Path) -> list[Path]:
    roots = ["include", "src", "tools", "tests", "bench", "examples", "fuzz"]
    suffixes = {".h", ".cpp", ".py"}
    found = []
    for root in roots:
        for path in sorted((repo / root).rglob("*")):
            if path.suffix in suffixes and path.is_file() and "__pycache__" not in path.parts:
                found.append(path)
    return found


def check(repo: Path) -> list[str]:
    problems = []
    for path in sources(repo):
        relative = path.relative_to(repo)
        name = relative.as_posix()
        if GENERATED.search(name):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        problems += length_problem(name, text)
        if path.suffix == ".py":
            continue
        problems += reserved_problems(name, text)
        folder = folder_of(relative.parts)
        if folder is not None:
            problems += namespace_problems(name, folder, text, subfolder_of(relative.parts))
    return problems


def main(argv=None) -> int:
    return repo_check.run(
        check, __doc__.splitlines()[0], lambda count: f"check_source_rules: {count} problem(s)",
        "check_source_rules: namespaces match folders, no reserved names, long files say why",
        argv)


if __name__ == "__main__":
    sys.exit(main())
