#!/usr/bin/env python3
"""Fails when a source includes a header of a layer it may not use.

flash_powder is built in layers (docs/architecture.md); arrows point down
only. Each layer is one or more folders (FOLDERS) under include/flash_powder/
(its public headers) and src/ (its sources and private headers), and may
include the headers of the layers listed for it below, and of theirs, down to
base. Private headers are included as "<folder>/<name>.h" (src/ is on the
library's own include path, never installed) under the same rule, or with a
plain name from their own folder; a "../" include that leaves the folder is
refused. The build runs this check before compiling the library (CMake
target fp_layers), so a wrong-way include fails the build:

    tools/check_layers.py REPO            # check the tree
    tools/check_layers.py REPO --files F... --as-layer abi --expect-violation
                                          # the canary: these must be refused
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

# The layer table (docs/architecture.md): a layer and the layers it uses
# directly; what those use is allowed too.
USES = {
    "base": [],
    "abi": ["base"],
    "core": ["abi"],
    "nn": ["core"],
    "safetensors": ["core"],
    "image": ["core"],
    "vision": ["nn", "image"],
    "aoti": ["core"],
    "library": ["core"],
}
# The folders of each layer whose name differs from its own: a folder per
# namespace (fp::aten in aten/, fp::functional in functional/).
FOLDERS = {"aten": "core", "functional": "nn"}


def layer_of_folder(folder: str) -> str | None:
    if folder in USES:
        return folder
    return FOLDERS.get(folder)
# Headers that belong to no layer folder: the generated build configuration is
# vocabulary; the umbrella header includes everything and nothing includes it.
LOOSE_HEADERS = {"flash_powder/config.h": "base", "flash_powder/flash_powder.h": "umbrella"}

_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def allowed(layer: str) -> set[str]:
    """The layer itself and everything below it."""
    found, pending = {layer}, list(USES.get(layer, []))
    while pending:
        below = pending.pop()
        if below not in found:
            found.add(below)
            pending.extend(USES[below])
    return found


def layer_of_header(include: str) -> str | None:
    if include in LOOSE_HEADERS:
        return LOOSE_HEADERS[include]
    parts = include.split("/")
    if len(parts) >= 3 and parts[0] == "flash_powder":
        return layer_of_folder(parts[1])
    return None


def layer_of_private_header(include: str) -> str | None:
    """The layer of a private header included as "<folder>/<name>.h"."""
    parts = include.split("/")
    return layer_of_folder(parts[0]) if len(parts) >= 2 else None


def layer_of_file(path: Path, repo: Path) -> str | None:
    relative = path.resolve().relative_to(repo.resolve()).parts
    if len(relative) >= 3 and relative[:2] == ("include", "flash_powder"):
        return layer_of_folder(relative[2])
    if len(relative) >= 2 and relative[0] == "src":
        return layer_of_folder(relative[1])
    return None


def violations(path: Path, repo: Path, layer: str | None = None) -> list[str]:
    layer = layer or layer_of_file(path, repo)
    if layer is None:
        return []
    problems = []
    text = path.read_text(encoding="utf-8", errors="replace")
    for match in _INCLUDE.finditer(text):
        include = match.group(1)
        line = text.count("\n", 0, match.start()) + 1
        where = f"{path}:{line}"
        if include.startswith("flash_powder/"):
            target = layer_of_header(include)
            if target == "umbrella":
                problems.append(f"{where}: {layer} includes the umbrella header {include}")
            elif target is not None and target not in allowed(layer):
                problems.append(f"{where}: layer {layer} may not include {include} "
                                f"(layer {target}); {layer} uses {', '.join(sorted(allowed(layer) - {layer})) or 'nothing'}")
        elif include.startswith("../"):
            resolved = (path.parent / include).resolve()
            if resolved.is_relative_to(repo.resolve()) and layer_of_file(resolved, repo):
                problems.append(f"{where}: {include} reaches into another folder; include a "
                                "private header as \"<folder>/<name>.h\"")
        elif "/" in include:
            target = layer_of_private_header(include)
            if target is not None and target not in allowed(layer):
                problems.append(f"{where}: layer {layer} may not include {include} "
                                f"(a private header of layer {target}); {layer} uses "
                                f"{', '.join(sorted(allowed(layer) - {layer})) or 'nothing'}")
    return problems


def sources(repo: Path) -> list[Path]:
    roots = [repo / "include" / "flash_powder", repo / "src"]
    return sorted(p for root in roots for p in root.rglob("*")
                  if p.suffix in {".h", ".hpp", ".cpp", ".cc"} and p.is_file())


# --- the link-level check: which layer's objects define what another's use ---

def _symbols(obj: Path, *flags: str) -> set[str]:
    out = subprocess.run(["nm", "-g", *flags, str(obj)], check=True, capture_output=True,
                         text=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def link_violations(objects: dict[str, list[Path]]) -> list[str]:
    """A layer's object that uses a symbol only layers it may not use define.

    The include check cannot see a hand-written declaration (`namespace fp::aten
    { Tensor relu(TensorArg); }` in core); the linker would resolve it inside
    libflash_powder.so. This looks at what each object leaves undefined."""
    defined_by: dict[str, set[str]] = {}
    for layer, files in objects.items():
        for obj in files:
            for symbol in _symbols(obj, "--defined-only"):
                defined_by.setdefault(symbol, set()).add(layer)
    problems = []
    for layer, files in objects.items():
        for obj in files:
            for symbol in sorted(_symbols(obj, "--undefined-only")):
                owners = defined_by.get(symbol, set())
                if owners and not owners & allowed(layer):
                    name = subprocess.run(["c++filt", symbol], capture_output=True,
                                          text=True).stdout.strip()
                    problems.append(f"{obj.name}: layer {layer} uses {name}, defined in layer "
                                    f"{', '.join(sorted(owners))}; {layer} uses "
                                    f"{', '.join(sorted(allowed(layer) - {layer})) or 'nothing'}")
    return problems


def parse_objects(specs: list[str]) -> dict[str, list[Path]]:
    objects: dict[str, list[Path]] = {}
    for spec in specs:
        layer, _, files = spec.partition("=")
        if layer not in USES:
            raise SystemExit(f"check_layers: unknown layer {layer!r} in --objects")
        objects.setdefault(layer, []).extend(Path(f) for f in files.split(",") if f)
    return objects


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--files", nargs="+", type=Path, default=None,
                        help="check these files only")
    parser.add_argument("--as-layer", help="with --files: the layer the files belong to")
    parser.add_argument("--stamp", type=Path, help="touch this file when the check passes")
    parser.add_argument("--expect-violation", action="store_true",
                        help="succeed only if the files break the layering (the check's own test)")
    parser.add_argument("--objects", nargs="+", metavar="LAYER=OBJ,OBJ...",
                        help="check what each layer's object files use, not includes")
    args = parser.parse_args(argv)
    if args.objects:
        problems = link_violations(parse_objects(args.objects))
        for problem in problems:
            print(("refused as it must be: " if args.expect_violation else "") + problem,
                  file=sys.stdout if args.expect_violation else sys.stderr)
        if args.expect_violation:
            return 0 if problems else 1
        if problems:
            print(f"check_layers: {len(problems)} use(s) of symbols against the layering",
                  file=sys.stderr)
            return 1
        count = sum(len(files) for files in parse_objects(args.objects).values())
        print(f"check_layers: the {count} objects of {len(args.objects)} layers use only "
              "the layers below them")
        return 0
    files = args.files if args.files is not None else sources(args.repo)
    problems = [p for f in files for p in violations(f, args.repo, args.as_layer)]
    if args.expect_violation:
        for problem in problems:
            print(f"refused as it must be: {problem}")
        missed = [f for f in files if not violations(f, args.repo, args.as_layer)]
        for path in missed:
            print(f"check_layers: {path} breaks the layering but was not refused", file=sys.stderr)
        return 1 if missed or not files else 0
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"check_layers: {len(problems)} include(s) against the layering "
              "(docs/architecture.md)", file=sys.stderr)
        return 1
    if args.stamp:
        args.stamp.parent.mkdir(parents=True, exist_ok=True)
        args.stamp.write_text("ok\n")
    print(f"check_layers: {len(files)} files keep to the layering")
    return 0


if __name__ == "__main__":
    sys.exit(main())
