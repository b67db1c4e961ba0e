"""python -m flash_powder --cmake-dir | --include-dir | --libs | --cflags | --version

Prints where the installed flash_powder's files are, for build systems (like
``python -m pybind11 --cmakedir``); several options print one line each, in
the order given.
"""

from __future__ import annotations

import argparse
import sys

import flash_powder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m flash_powder", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    answers = {
        "--cmake-dir": ("the folder of flash_powderConfig.cmake (a CMAKE_PREFIX_PATH entry)",
                        flash_powder.get_cmake_dir),
        "--include-dir": ("the include folder (it holds flash_powder/flash_powder.h)", flash_powder.get_include),
        "--library-dir": ("the folder of the libflash_powder*.so libraries", flash_powder.get_library_dir),
        "--cflags": ("compiler flags, as pkg-config --cflags flash_powder", flash_powder.get_cflags),
        "--libs": ("linker flags (flash_powder's libraries and the torch beside them), "
                   "as pkg-config --libs flash_powder", flash_powder.get_libs),
        "--version": ("the version of flash_powder", lambda: flash_powder.__version__),
    }
    for option, (meaning, _) in answers.items():
        parser.add_argument(option, dest="wanted", action="append_const", const=option, help=meaning)
    wanted = parser.parse_args(argv).wanted
    if not wanted:
        parser.print_help(sys.stderr)
        return 2
    for option in wanted:
        print(answers[option][1]())
    return 0


if __name__ == "__main__":
    sys.exit(main())
