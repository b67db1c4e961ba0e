"""Builds and runs a project that uses flash_powder, one of the ways
docs/guide/cmake.md describes, and checks its output against PyTorch (CTest tests consumers.*).

    check_consumer.py <way> --repo R --build B --work W ...

Ways:
  install           cmake --install the build into W/prefix (the fixture of the next three)
  find_package      find_package(flash_powder) from W/prefix, torch from -DFP_TORCH_DIR
  other_torch       the same with another torch's environment activated (one of
                    the build/torch/X.Y.Z venvs of scripts/test --torch, or $FP_PYTHON's),
                    then configured again from a shell without it: the torch is kept
  no_torch          the same with no torch anywhere: CMake must fail saying what to do
  pkg_config        a compiler command line from `pkg-config --cflags --libs flash_powder`
  add_subdirectory  flash_powder's sources added with add_subdirectory, torch from
                    the activated environment; nothing written into the project's cache
                    but the torch found, which a re-run without that environment keeps
  fetch_content     FetchContent from a git repository (a snapshot of this checkout,
                    uncommitted changes included), torch from a Torch_DIR hint

Only the Python standard library is used here; the comparison with PyTorch
runs in the Python of the torch the program loaded (compare_with_torch.py).
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SKIP = 77  # CTest's SKIP_RETURN_CODE for these tests
# Environment variables through which a torch can be found; each way sets its own.
TORCH_ENVIRONMENT = ("FP_TORCH_DIR", "Torch_DIR", "Torch_ROOT", "TORCH_ROOT", "VIRTUAL_ENV", "CONDA_PREFIX")
OTHER_TORCH_VERSIONS = ("2.11.0", "2.12.1", "2.14.1", "2.15.0")


class Failure(Exception):
    pass


def run(command: list[str], env: dict[str, str] | None = None, expect_failure: bool = False, **kwargs):
    """Runs a command, echoing it and its output; raises Failure when its exit
    status is not the expected one."""
    print("$ " + " ".join(str(part) for part in command), flush=True)
    start = time.monotonic()
    result = subprocess.run(command, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kwargs)
    print(result.stdout, end="")
    print(f"  ({time.monotonic() - start:.1f} s, exit status {result.returncode})", flush=True)
    if (result.returncode != 0) != expect_failure:
        raise Failure(f"{command[0]} exited with status {result.returncode}")
    return result.stdout


def clean_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in TORCH_ENVIRONMENT}
    env.update(extra or {})
    return env


def activated(python: Path, env: dict[str, str]) -> dict[str, str]:
    """env as after `source <venv>/bin/activate` of python's environment."""
    env = dict(env)
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
    if (python.parent.parent / "pyvenv.cfg").exists():
        env["VIRTUAL_ENV"] = str(python.parent.parent)
    return env


class Consumer:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.work = Path(args.work)
        self.prefix = self.work / "prefix"

    def shared_compiler_cache(self) -> dict[str, str]:
        """add_subdirectory and fetch_content each compile flash_powder's library
        from the same files at the same paths relative to their build folders:
        with ccache (when the build uses it) hashing paths relative to the work
        folder, the second build takes the first one's objects."""
        return {"CCACHE_BASEDIR": str(self.work.resolve()), "CCACHE_NOHASHDIR": "true"}

    def configure(self, project: str, folder: str, options: list[str], env: dict[str, str], expect_failure=False):
        build = self.work / folder
        command = [self.args.cmake, "-S", str(HERE / project), "-B", str(build),
                   f"-DCMAKE_CXX_COMPILER={self.args.cxx}"]
        if shutil.which("ninja"):
            command += ["-G", "Ninja"]
        if self.args.launcher:
            command.append(f"-DCMAKE_CXX_COMPILER_LAUNCHER={self.args.launcher}")
        if expect_failure:
            shutil.rmtree(build, ignore_errors=True)
        return run(command + options, env=env, expect_failure=expect_failure)

    def build(self, folder: str, env: dict[str, str], target: str | None = None):
        command = [self.args.cmake, "--build", str(self.work / folder)]
        if target:
            command += ["--target", target]
        run(command, env=env)

    def check_output(self, program: Path, python: str, env: dict[str, str]):
        output = run([str(program)], env=env)
        run([python, str(HERE / "compare_with_torch.py")], env=env, input=output)

    # --- the ways -------------------------------------------------------------

    def install(self):
        run([self.args.cmake, "--install", self.args.build, "--prefix", str(self.prefix)])
        libraries = sorted(self.prefix.glob("lib*/libflash_powder*.so"))
        if not libraries:
            raise Failure(f"no libflash_powder*.so installed under {self.prefix}")
        for library in libraries:
            runpath = dynamic_entries(library, "RUNPATH")
            if runpath != ["$ORIGIN"]:
                raise Failure(f"{library} has RUNPATH {runpath}; an installed library must name no torch, only $ORIGIN")
        for header in ("flash_powder/flash_powder.h", "flash_powder/config.h"):
            if not (self.prefix / "include" / header).exists():
                raise Failure(f"{header} was not installed")

    def find_package(self):
        env = clean_environment()
        self.configure("find_package", "find_package",
                       [f"-DCMAKE_PREFIX_PATH={self.prefix}", f"-DFP_TORCH_DIR={self.args.torch_dir}"], env)
        self.build("find_package", env)
        program = self.work / "find_package" / "consumer"
        needed = dynamic_entries(program, "NEEDED")
        if "libtorch_cpu.so" not in needed:
            raise Failure(f"{program} does not record libtorch_cpu.so as needed ({needed}): "
                          "its RUNPATH would not choose the torch")
        self.check_output(program, self.args.python, env)

    def other_torch(self):
        python, library_path = self.other_python()
        if python is None:
            print("no torch other than the build's is installed: run `scripts/test --torch 2.11.0` once to "
                  "create build/torch/2.11.0, then this test uses it")
            return SKIP
        env = activated(python, clean_environment())
        env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, library_path + [os.environ.get("LD_LIBRARY_PATH", "")]))
        torch_dir = torch_folder(python, env)
        output = self.configure("find_package", "find_package_other_torch", [f"-DCMAKE_PREFIX_PATH={self.prefix}"], env)
        picked = re.search(r"flash_powder: torch \S+ at (.*), from the active virtual environment", output)
        if not picked or Path(picked.group(1)).resolve() != torch_dir:
            raise Failure(f"configuring did not pick the torch of the activated environment, {torch_dir}")
        self.build("find_package_other_torch", env)
        self.check_output(self.work / "find_package_other_torch" / "consumer", str(python), env)
        self.configure_again("find_package_other_torch", torch_dir)

    def configure_again(self, folder: str, torch_dir: Path):
        """CMake run again in the build folder from a shell with no Python: the
        torch found at the first configure is kept, not lost."""
        env = clean_environment({"PATH": str(tools_without_python(self.work / "no_python_tools"))})
        output = run([self.args.cmake, str(self.work / folder)], env=env)
        picked = re.search(r"flash_powder: torch \S+ at (.*), from the earlier configure", output)
        if not picked or Path(picked.group(1)).resolve() != torch_dir:
            raise Failure(f"configuring {folder} again without a Python did not keep the torch {torch_dir}")

    def no_torch(self):
        env = clean_environment({"PATH": str(tools_without_python(self.work / "no_torch_tools"))})
        output = self.configure("find_package", "no_torch", [f"-DCMAKE_PREFIX_PATH={self.prefix}"], env,
                                expect_failure=True)
        # CMake rewraps the message; compare with whitespace runs made single spaces.
        output = " ".join(output.split())
        for needed in ("found none", "-DFP_TORCH_DIR=<torch folder>", "print(os.path.dirname(torch.__file__))",
                       "activate the virtual environment", "Looked at:", "python3 on PATH: there is none"):
            if needed not in output:
                raise Failure(f"CMake's message without a torch lacks '{needed}'")

    def pkg_config(self):
        env = clean_environment()
        env["PKG_CONFIG_PATH"] = os.pathsep.join(str(path) for path in self.prefix.glob("lib*/pkgconfig"))
        flags = run(["pkg-config", "--cflags", "--libs", "flash_powder"], env=env).split()
        program = self.work / "pkg_config" / "consumer"
        program.parent.mkdir(parents=True, exist_ok=True)
        compiler = ([self.args.launcher] if self.args.launcher else []) + [self.args.cxx]
        run(compiler + ["-std=c++20", str(HERE / "consumer.cpp"), "-o", str(program)] + flags, env=env)
        self.check_output(program, self.args.python, env)

    def add_subdirectory(self):
        # The checkout's files where FetchContent puts them (fetch_content below):
        # the two builds then compile the same relative paths, which ccache shares.
        source, _ = snapshot(Path(self.args.repo), self.work / "add_subdirectory" / "_deps" / "flash_powder-src")
        env = activated(Path(self.args.build_python), clean_environment(self.shared_compiler_cache()))
        self.configure("add_subdirectory", "add_subdirectory", [f"-DFLASH_POWDER_SOURCE_DIR={source}"], env)
        check_cache_untouched(self.work / "add_subdirectory" / "CMakeCache.txt")
        self.build("add_subdirectory", env)
        self.check_output(self.work / "add_subdirectory" / "consumer", self.args.python, env)
        self.configure_again("add_subdirectory", Path(self.args.torch_dir).resolve())

    def fetch_content(self):
        repository, commit = snapshot(Path(self.args.repo), self.work / "fetch_content_repository")
        env = clean_environment({"Torch_DIR": f"{self.args.torch_dir}/share/cmake/Torch", **self.shared_compiler_cache()})
        self.configure("fetch_content", "fetch_content",
                       [f"-DFLASH_POWDER_GIT_REPOSITORY=file://{repository}", f"-DFLASH_POWDER_GIT_TAG={commit}"],
                       env)
        self.build("fetch_content", env, target="consumer")
        self.check_output(self.work / "fetch_content" / "consumer", self.args.python, env)

    def other_python(self) -> tuple[Path | None, list[str]]:
        """A Python with a torch other than the build's, and the folders its
        libraries need (the CUDA libraries of scripts/test's torch venvs)."""
        library_path = sorted(glob.glob(f"{self.args.torch_venvs}/cuda13/nvidia/*/lib"))
        candidates = []
        if os.environ.get("FP_PYTHON"):
            candidates.append(Path(os.environ["FP_PYTHON"]))
        candidates += [Path(self.args.torch_venvs) / version / "bin" / "python" for version in OTHER_TORCH_VERSIONS]
        for python in candidates:
            if not python.exists():
                continue
            folder = torch_folder(python, clean_environment())
            if folder is not None and folder != Path(self.args.torch_dir).resolve():
                return python, library_path
        return None, []


def tools_without_python(folder: Path) -> Path:
    """A folder for PATH with the tools a build needs and no Python at all."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for tool in ("ninja", "as", "ld", "ld.bfd", "ld.gold", "ccache", "uname", "pkg-config"):
        found = shutil.which(tool)
        if found:
            (folder / tool).symlink_to(found)
    return folder


def torch_folder(python: Path, env: dict[str, str]) -> Path | None:
    result = subprocess.run([str(python), "-c", "import importlib.util as u; print(u.find_spec('torch').origin)"],
                            env=env, text=True, capture_output=True)
    return Path(result.stdout.strip()).parent.resolve() if result.returncode == 0 else None


def dynamic_entries(binary: Path, tag: str) -> list[str]:
    """The values of the dynamic section's entries of one tag (NEEDED, RUNPATH)."""
    output = subprocess.run(["readelf", "-d", str(binary)], text=True, capture_output=True, check=True).stdout
    values = re.findall(rf"\({tag}\)\s+[^\[]*\[([^\]]*)\]", output)
    return [part for value in values for part in value.split(":")]


def check_cache_untouched(cache: Path):
    """flash_powder as a subproject writes nothing into the project's cache
    but its own FP_ options and the torch folder it found (FP_FOUND_TORCH_DIR,
    for the next configure): no build type, no Python, no torch setting."""
    entries = dict(re.findall(r"^([A-Za-z_][A-Za-z0-9_]*):[A-Z]+=(.*)$", cache.read_text(), re.MULTILINE))
    problems = []
    if entries.get("CMAKE_BUILD_TYPE"):
        problems.append(f"CMAKE_BUILD_TYPE={entries['CMAKE_BUILD_TYPE']}")
    for key in ("FP_TORCH_DIR", "Python3_EXECUTABLE", "FP_BUILD_PYTHON", "FP_CCACHE"):
        if key in entries:
            problems.append(f"{key}={entries[key]}")
    for option in ("FP_BUILD_TESTS", "FP_BUILD_EXAMPLES", "FP_BUILD_BENCH"):
        if entries.get(option) != "OFF":
            problems.append(f"{option}={entries.get(option)} (must default to OFF in a subproject)")
    if "FP_FOUND_TORCH_DIR" not in entries:
        problems.append("no FP_FOUND_TORCH_DIR (the torch a re-run falls back on)")
    if problems:
        raise Failure("the project's CMakeCache.txt got entries from flash_powder: " + ", ".join(problems))
    print("the project's cache holds no build type, Python or torch location of flash_powder's")


def snapshot(repo: Path, target: Path) -> tuple[Path, str]:
    """A git repository holding this checkout's files as they are now
    (committed or not, ignored files left out), and its one commit. The same
    files give the same commit, so FetchContent fetches only after a change."""
    listing = subprocess.run(["git", "-C", str(repo), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             text=True, capture_output=True, check=True).stdout
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for name in filter(None, listing.split("\0")):
        source = repo / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted, not yet committed
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            destination.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, destination)
    fixed = {"GIT_AUTHOR_NAME": "flash_powder", "GIT_AUTHOR_EMAIL": "tests@flash_powder",
             "GIT_COMMITTER_NAME": "flash_powder", "GIT_COMMITTER_EMAIL": "tests@flash_powder",
             "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z"}
    env = dict(os.environ, **fixed)
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "--no-gpg-sign", "-m", "snapshot"]):
        subprocess.run(["git", "-C", str(target), *command], env=env, check=True, capture_output=True)
    commit = subprocess.run(["git", "-C", str(target), "rev-parse", "HEAD"], text=True, capture_output=True,
                            check=True).stdout.strip()
    return target, commit


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("way", choices=["install", "find_package", "other_torch", "no_torch", "pkg_config",
                                        "add_subdirectory", "fetch_content"])
    parser.add_argument("--repo", required=True, help="the checkout of flash_powder")
    parser.add_argument("--build", required=True, help="its build folder")
    parser.add_argument("--work", required=True, help="where the projects are built")
    parser.add_argument("--cmake", required=True)
    parser.add_argument("--cxx", required=True, help="the C++ compiler")
    parser.add_argument("--launcher", default="", help="a compiler launcher (ccache)")
    parser.add_argument("--python", required=True, help="the Python with the torch the programs load")
    parser.add_argument("--build-python", required=True, help="the Python of the environment the build used")
    parser.add_argument("--torch-dir", required=True, help="the torch folder the build used")
    parser.add_argument("--torch-venvs", required=True, help="scripts/test's folder of other torch venvs")
    args = parser.parse_args()
    consumer = Consumer(args)
    try:
        return getattr(consumer, args.way)() or 0
    except Failure as failure:
        print(f"check_consumer.py {args.way}: {failure}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
