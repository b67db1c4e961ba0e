"""flash_powder's C++ libraries, headers, CMake package and pkg-config file,
installed by ``pip install flash-powder`` beside the torch package they use.

There is nothing to call from Python: this module says where the files are,
for build systems (as ``torch.utils.cmake_prefix_path`` and
``pybind11.get_cmake_dir()`` do)::

    cmake -S . -B build -DCMAKE_PREFIX_PATH="$(python -m flash_powder --cmake-dir)"
    c++ -std=c++20 main.cpp $(python -m flash_powder --cflags --libs)

find_package(flash_powder) then links the torch installed in the same
site-packages; the libraries find it there at run time too.
"""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

__all__ = ["cmake_prefix_path", "get_cmake_dir", "get_include", "get_library_dir", "get_libs", "get_cflags"]

_ROOT = Path(__file__).resolve().parent

try:
    __version__ = importlib.metadata.version("flash-powder")
except importlib.metadata.PackageNotFoundError:  # imported from a source tree
    __version__ = "unknown"

#: A CMAKE_PREFIX_PATH entry under which find_package(flash_powder) finds the package.
cmake_prefix_path = str(_ROOT)


def get_cmake_dir() -> str:
    """The folder of flash_powderConfig.cmake: a CMAKE_PREFIX_PATH entry or flash_powder_DIR."""
    return str(_ROOT / "lib" / "cmake" / "flash_powder")


def get_include() -> str:
    """The folder to add to the include path: it holds flash_powder/flash_powder.h."""
    return str(_ROOT / "include")


def get_library_dir() -> str:
    """The folder of the libflash_powder*.so libraries."""
    return str(_ROOT / "lib")


def _pkg_config_field(field: str) -> str:
    """A field of the installed flash_powder.pc with its variables expanded,
    as ``pkg-config`` prints it (one source for both)."""
    pc_file = _ROOT / "lib" / "pkgconfig" / "flash_powder.pc"
    variables = {"pcfiledir": str(pc_file.parent)}
    value = ""
    for line in pc_file.read_text().splitlines():
        assignment = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", line)
        field_line = re.match(rf"^{field}:\s*(.*)$", line)
        if assignment:
            variables[assignment.group(1)] = _expand(assignment.group(2), variables)
        elif field_line:
            value = _expand(field_line.group(1), variables)
    return " ".join(_normalised(part) for part in value.split())


def _expand(text: str, variables: dict[str, str]) -> str:
    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", lambda m: variables.get(m.group(1), ""), text)


def _normalised(flag: str) -> str:
    """A flag with its path made absolute and free of "..", as a user would type it."""
    for prefix in ("-I", "-L", "-Wl,-rpath,"):
        if flag.startswith(prefix) and flag[len(prefix):].startswith("/"):
            return prefix + str(Path(flag[len(prefix):]).resolve())
    return flag


def get_cflags() -> str:
    """The compiler flags (``pkg-config --cflags flash_powder``); compile with -std=c++20."""
    return _pkg_config_field("Cflags")


def get_libs() -> str:
    """The linker flags (``pkg-config --libs flash_powder``): flash_powder's libraries
    and the torch installed beside them, each with an RPATH."""
    return _pkg_config_field("Libs")
