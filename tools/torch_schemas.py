"""Where the generators get the ATen schemas from, and which torch has which op.

tools/generate_schemas.py and tools/generate_ops.py both read

* the installed torch: its version and the op schemas of the
  `native_functions.yaml` every wheel ships under `torchgen/packaged/ATen/native/`;
* tools/data/aten_ops_by_release.txt: for the op overloads that not every
  supported torch release has, the first release with each and, where one
  dropped it again, the first release without it. It is derived from the
  `native_functions.yaml` of each release (see `derive_ops_by_release`) and
  committed, so that the generators give the same output where only one torch
  is installed.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import pathlib
import re
import sys
import zipfile

REPO = pathlib.Path(__file__).resolve().parent.parent
OPS_BY_RELEASE = REPO / "tools" / "data" / "aten_ops_by_release.txt"
YAML_IN_WHEEL = "torchgen/packaged/ATen/native/native_functions.yaml"

Version = tuple[int, ...]  # (major, minor) or (major, minor, patch)


def program() -> str:
    """The running generator's name, for its messages."""
    return pathlib.Path(sys.argv[0]).stem


def torch_dir() -> pathlib.Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"{program()}: torch is not installed for {sys.executable}")
    return pathlib.Path(spec.submodule_search_locations[0])


def torch_version(torch: pathlib.Path) -> tuple[int, int, int]:
    header = (torch / "include" / "torch" / "headeronly" / "version.h").read_text()
    parts = [re.search(rf"#define TORCH_VERSION_{part} (\d+)", header).group(1)
             for part in ("MAJOR", "MINOR", "PATCH")]
    return tuple(int(p) for p in parts)


def installed_yaml(torch: pathlib.Path) -> pathlib.Path:
    yaml = torch.parent / YAML_IN_WHEEL
    if not yaml.exists():
        sys.exit(f"{program()}: {yaml} is missing from this torch installation")
    return yaml


def schemas_in(yaml_text: str) -> list[str]:
    """The schemas of a native_functions.yaml, in its order."""
    # Every entry's schema sits on one `- func:` line; no YAML parser needed.
    return [m.group(1).strip() for m in re.finditer(r"^- func: (.*)$", yaml_text, re.M)]


def read_schemas(torch: pathlib.Path) -> list[str]:
    """The schemas of the installed torch, in native_functions.yaml's order."""
    return schemas_in(installed_yaml(torch).read_text())


def structured_delegates(torch: pathlib.Path) -> set[str]:
    """The keys ("mul.Tensor") of the ops native_functions.yaml gives a
    `structured_delegate:`: functional forms of structured kernels, whose
    results are always newly allocated tensors."""
    keys = set()
    entries = re.split(r"^- func: ", installed_yaml(torch).read_text(), flags=re.M)[1:]
    for entry in entries:
        if re.search(r"^  structured_delegate:", entry, re.M):
            keys.add(schema_key(entry.split("\n", 1)[0].strip()))
    return keys


def schema_key(schema: str) -> str:
    """The name part of a schema: "max.dim" of "max.dim(Tensor self, ...) -> ..."."""
    return schema.split("(", 1)[0]


def cpp_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def version_text(version: Version) -> str:
    return ".".join(str(part) for part in version)


def parse_version(text: str) -> Version:
    if not re.fullmatch(r"\d+(\.\d+){1,2}", text):
        raise ValueError(f"not a torch version: {text!r}")
    return tuple(int(part) for part in text.split("."))


# ---------------------------------------------------------------------------
# Ops by release


@dataclasses.dataclass(frozen=True)
class Availability:
    """The torch releases that have an op overload: `since` up to, not
    including, `removed_in`. Releases are (major, minor): patch releases add
    and remove no ops."""

    since: Version
    removed_in: Version | None = None


@dataclasses.dataclass
class OpsByRelease:
    """The releases examined (full versions, oldest first) and the overloads
    that some of them lack. Any other overload is in all of them."""

    releases: list[Version]
    changes: dict[str, Availability]

    @property
    def oldest(self) -> Version:
        return self.releases[0][:2]

    def availability(self, key: str) -> Availability:
        return self.changes.get(key, Availability(self.oldest))

    def covers(self, version: Version) -> bool:
        return any(release[:2] == version[:2] for release in self.releases)


def derive_ops_by_release(yaml_texts: dict[Version, str]) -> OpsByRelease:
    """Compares the native_functions.yaml of several releases."""
    releases = sorted(yaml_texts)
    present = {release: {schema_key(s) for s in schemas_in(yaml_texts[release])}
               for release in releases}
    changes = {}
    for key in sorted(set().union(*present.values())):
        having = [key in present[release] for release in releases]
        first = having.index(True)
        gone = having.index(False, first) if False in having[first:] else None
        if gone is not None and True in having[gone:]:
            back = releases[having.index(True, gone)]
            raise ValueError(f"{key} is missing from torch {version_text(releases[gone])} but "
                             f"back in {version_text(back)}; {OPS_BY_RELEASE.name} cannot say so")
        if first > 0 or gone is not None:
            changes[key] = Availability(releases[first][:2],
                                        releases[gone][:2] if gone is not None else None)
    return OpsByRelease(releases, changes)


def render_ops_by_release(data: OpsByRelease) -> str:
    width = max([len(key) for key in data.changes] + [len("overload")])
    lines = [
        "# The ATen op overloads that not every torch release listed below has: the",
        "# first release with each and, where a later one dropped it, the first",
        "# without it (\"-\" where none has). Any overload not listed is in all of them.",
        "# Derived from each release's native_functions.yaml by",
        "#     tools/generate_schemas.py --wheels DIR  (or --releases VERSION=PATH ...);",
        "# do not edit. tools/generate_schemas.py puts it into fp::dispatch's schema",
        "# table, tools/generate_ops.py into docs/ops.md.",
        "releases " + " ".join(version_text(r) for r in data.releases),
        "",
        f"# {'overload'.ljust(width - 2)} since  removed",
    ]
    for key, availability in sorted(data.changes.items()):
        removed = version_text(availability.removed_in) if availability.removed_in else "-"
        lines.append(f"{key.ljust(width)} {version_text(availability.since).ljust(6)} {removed}")
    return "\n".join(lines) + "\n"


def read_ops_by_release(path: pathlib.Path = OPS_BY_RELEASE) -> OpsByRelease:
    releases, changes = None, {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        fields = line.split("#", 1)[0].split()
        try:
            if not fields:
                continue
            if fields[0] == "releases":
                releases = [parse_version(f) for f in fields[1:]]
            elif len(fields) == 3:
                removed = None if fields[2] == "-" else parse_version(fields[2])
                changes[fields[0]] = Availability(parse_version(fields[1]), removed)
            else:
                raise ValueError("expected: overload since removed")
        except ValueError as error:
            sys.exit(f"{program()}: {path}:{number}: {error}")
    if not releases:
        sys.exit(f"{program()}: {path} has no `releases` line")
    return OpsByRelease(releases, changes)


def check_ops_by_release(data: OpsByRelease, version: Version, schemas: list[str]) -> None:
    """Exits unless `data` knows the installed torch and agrees with its schemas:
    ops added by a release the data has not seen would otherwise be dated wrongly."""
    where = OPS_BY_RELEASE.relative_to(REPO)
    if not data.covers(version):
        sys.exit(f"{program()}: {where} does not cover the installed torch "
                 f"{version_text(version)}; regenerate it with tools/generate_schemas.py "
                 "--wheels DIR (see --help)")
    for key in map(schema_key, schemas):
        availability = data.availability(key)
        removed = availability.removed_in
        if availability.since > version[:2] or (removed is not None and removed <= version[:2]):
            sys.exit(f"{program()}: {where} says {key} is not in torch {version_text(version)}, "
                     "which has it; regenerate it")


def yaml_of_release(path: pathlib.Path) -> str:
    """The native_functions.yaml text of a torch wheel, or of the yaml file itself."""
    if path.suffix == ".whl":
        with zipfile.ZipFile(path) as wheel:
            return wheel.read(YAML_IN_WHEEL).decode()
    return path.read_text()


def wheel_version(path: pathlib.Path) -> Version:
    """The release of a wheel named like torch-2.12.1-cp311-...whl (or 2.12.1+cpu)."""
    match = re.match(r"torch-(\d+\.\d+\.\d+)", path.name)
    if match is None:
        raise ValueError(f"{path.name} is not named like a torch wheel (torch-X.Y.Z-...whl)")
    return parse_version(match.group(1))
