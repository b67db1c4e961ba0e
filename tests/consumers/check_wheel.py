"""The wheel of `pip install flash-powder`, end to end (CTest test consumers.wheel).

    check_wheel.py --repo R --build B --work W ... (the options of check_consumer.py)

1. Packs the wheel from the suite's own build (scripts/wheel --from-build B):
   the same pyproject.toml, scikit-build-core, install rules and wheel layout
   as a release wheel, without compiling the libraries a second time.
2. Checks its contents: flash_powder's libraries, headers, CMake package and
   pkg-config file; no libtorch (nor any library but flash_powder's); each
   library's RUNPATH relative to site-packages; no path of this machine in the
   CMake and pkg-config files; the version and the torch requirement in its
   metadata.
3. Installs it into a venv that has torch and what `import torch` needs, and
   nothing else: the torch of $FP_PYTHON (2.13.0, or X.Y.Z with
   scripts/test --torch X.Y.Z), made once under W/wheel/venv-<version>; the
   wheel and the extension are reinstalled into it on every run.
4. Builds tests/consumers/consumer.cpp against the installed wheel with
   CMake, given only -DCMAKE_PREFIX_PATH=$(python -m flash_powder --cmake-dir)
   and a PATH without any Python (the torch must be the one beside the
   wheel), configures it again (it remembers the torch), then with the flags
   of `python -m flash_powder --cflags --libs`; runs both and compares with
   PyTorch.
5. Builds the example op library (examples/extension) with a plain
   `pip install` of a copy of its folder, against the installed wheel, and
   runs its tests with the installed package.

Measured on a shared 2-core machine (torch 2.13.0): 26 s with the venv made
and the caches warm; 65 s from nothing (the venv made, ccache off, a cold
Inductor cache). With scripts/test --torch X.Y.Z the venv of that release's
CUDA wheel takes one to three minutes more, once.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from check_consumer import (HERE, Failure, activated, clean_environment, dynamic_entries, run,
                            tools_without_python)

WHEEL_RUNPATH = ["$ORIGIN", "$ORIGIN/../../torch/lib"]
# What a torch venv of scripts/test needs beside the CUDA wheels of other
# releases: their CUDA libraries, installed once under build/torch/cuda13.
CUDA_LIBRARIES = "cuda13/nvidia/*/lib"


class WheelCheck:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.repo = Path(args.repo).resolve()
        self.build = Path(args.build).resolve()
        self.work = Path(args.work).resolve() / "wheel"
        self.timings: dict[str, float] = {}

    def timed(self, what: str, step, *arguments):
        start = time.monotonic()
        result = step(*arguments)
        self.timings[what] = time.monotonic() - start
        return result

    # --- 1 and 2: the wheel ---------------------------------------------------

    def pack(self) -> Path:
        dist = self.work / "dist"
        shutil.rmtree(dist, ignore_errors=True)
        run([str(self.repo / "scripts" / "wheel"), "--from-build", str(self.build), "--out", str(dist)])
        wheels = sorted(dist.glob("flash_powder-*.whl"))
        if len(wheels) != 1:
            raise Failure(f"scripts/wheel left {len(wheels)} wheels in {dist}, expected one")
        return wheels[0]

    def check_contents(self, wheel: Path):
        unpacked = self.work / "unpacked"
        shutil.rmtree(unpacked, ignore_errors=True)
        with zipfile.ZipFile(wheel) as archive:
            names = archive.namelist()
            archive.extractall(unpacked)
        package = unpacked / "flash_powder"
        for needed in ("__init__.py", "__main__.py", "include/flash_powder/flash_powder.h",
                       "include/flash_powder/config.h", "lib/cmake/flash_powder/flash_powderConfig.cmake",
                       "lib/cmake/flash_powder/flash_powderConfigVersion.cmake", "lib/pkgconfig/flash_powder.pc"):
            if not (package / needed).is_file():
                raise Failure(f"the wheel has no flash_powder/{needed}")
        libraries = [name for name in names if re.search(r"\.so(\.|$)", name)]
        foreign = [name for name in libraries if not re.fullmatch(r"flash_powder/lib/libflash_powder\w*\.so", name)]
        if foreign:
            raise Failure(f"the wheel bundles libraries that are not flash_powder's: {foreign}")
        pc_text = (package / "lib/pkgconfig/flash_powder.pc").read_text()
        linked = set(re.findall(r"-l(flash_powder\w*)", pc_text))
        shipped = {Path(name).name.removeprefix("lib").removesuffix(".so") for name in libraries}
        if not linked or linked != shipped:
            raise Failure(f"the wheel's libraries {sorted(shipped)} are not the ones flash_powder.pc links "
                          f"{sorted(linked)}")
        for name in libraries:
            library = unpacked / name
            runpath = dynamic_entries(library, "RUNPATH")
            if runpath != WHEEL_RUNPATH:
                raise Failure(f"{name} has RUNPATH {runpath}, expected {WHEEL_RUNPATH} (relative to site-packages)")
            absolute = [entry for entry in dynamic_entries(library, "NEEDED") if "/" in entry]
            if absolute:
                raise Failure(f"{name} needs libraries by path: {absolute}")
        self.check_no_machine_paths(package)
        self.check_metadata(unpacked, wheel)
        print(f"the wheel holds {len(names)} files, {len(libraries)} libraries (flash_powder's only), "
              f"RUNPATH {':'.join(WHEEL_RUNPATH)}")

    def check_no_machine_paths(self, package: Path):
        """The CMake and pkg-config files name no folder of the machine that built them."""
        machine = {str(self.repo), str(self.build), str(Path(self.args.torch_dir).resolve()),
                   str(Path(self.args.build_python).parent.parent), os.path.expanduser("~")}
        machine |= {os.path.realpath(path) for path in machine}
        for text_file in [*package.glob("lib/cmake/flash_powder/*.cmake"), *package.glob("lib/pkgconfig/*.pc")]:
            text = text_file.read_text()
            found = sorted(path for path in machine if path and path != "/" and path in text)
            if found:
                raise Failure(f"{text_file.relative_to(package)} names folders of the build machine: {found}")

    def project_version(self) -> str:
        return re.search(r"project\(flash_powder VERSION ([0-9.]+)", (self.repo / "CMakeLists.txt").read_text()).group(1)

    def check_metadata(self, unpacked: Path, wheel: Path):
        project_version = self.project_version()
        (info,) = unpacked.glob("flash_powder-*.dist-info")
        metadata = (info / "METADATA").read_text()
        fields = re.findall(r"^([A-Za-z-]+): (.*)$", metadata.split("\n\n")[0], re.MULTILINE)
        values: dict[str, list[str]] = {}
        for key, value in fields:
            values.setdefault(key, []).append(value.strip())
        expected = {"Name": ["flash-powder"], "Version": [project_version], "Requires-Dist": ["torch>=2.11"]}
        for key, want in expected.items():
            if values.get(key) != want:
                raise Failure(f"the wheel's METADATA has {key}: {values.get(key)}, expected {want}")
        if not wheel.name.startswith(f"flash_powder-{project_version}-"):
            raise Failure(f"{wheel.name} does not carry the version {project_version}")
        config_version = (unpacked / "flash_powder/lib/cmake/flash_powder/flash_powderConfigVersion.cmake").read_text()
        if f'set(PACKAGE_VERSION "{project_version}")' not in config_version:
            raise Failure(f"flash_powderConfigVersion.cmake does not say version {project_version}")
        tags = re.findall(r"^Tag: (.*)$", (info / "WHEEL").read_text(), re.MULTILINE)
        if tags != ["py3-none-linux_x86_64"]:
            raise Failure(f"the wheel is tagged {tags}, expected py3-none-linux_x86_64 (no Python ABI, this glibc)")

    # --- 3: the venv ----------------------------------------------------------

    def torch_version(self) -> str:
        return run([self.args.python, "-c", "import importlib.metadata as m; print(m.version('torch'))"],
                   env=clean_environment()).strip().split("+")[0]

    def venv(self, version: str) -> Path:
        """A venv with torch `version` and what `import torch` needs (and pytest,
        for the extension's tests), made once: the torch wheel comes from pip's
        cache or the package index, without its CUDA dependencies."""
        venv = self.work / f"venv-{version}"
        python = venv / "bin" / "python"
        stamp = venv / ".fp-torch"
        if python.exists() and stamp.exists() and stamp.read_text() == version:
            return python
        shutil.rmtree(venv, ignore_errors=True)
        run([sys.executable, "-m", "venv", str(venv)])
        # The environment's constraints file may cap torch below this version.
        env = clean_environment({"PIP_CONSTRAINT": "/dev/null", "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
        run([str(python), "-m", "pip", "install", "-q", "--no-deps", f"torch=={version}"], env=env)
        needs = run([str(python), "-c", "import importlib.metadata as m, json; print(json.dumps(m.requires('torch')))"],
                    env=env)
        pure = [need for need in json.loads(needs) if not re.match(r"(nvidia|triton|cuda)", need, re.IGNORECASE)]
        run([str(python), "-m", "pip", "install", "-q", *pure, "pytest"], env=env)
        stamp.write_text(version)
        return python

    def install(self, python: Path, wheel: Path):
        # --no-deps: the venv's torch satisfies torch>=2.11 (checked in the
        # metadata above); nothing may resolve another torch.
        run([str(python), "-m", "pip", "uninstall", "-q", "-y", "flash-powder", "fp-segmentation"])
        run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)])

    def with_cuda_libraries(self, env: dict[str, str]) -> dict[str, str]:
        """env with the CUDA libraries another release's torch wheel loads, where installed."""
        cuda = sorted(str(path) for path in Path(self.args.torch_venvs).glob(CUDA_LIBRARIES))
        if cuda:
            env["LD_LIBRARY_PATH"] = os.pathsep.join(cuda + [os.environ.get("LD_LIBRARY_PATH", "")]).rstrip(os.pathsep)
        return env

    def runtime_environment(self) -> dict[str, str]:
        """No Python on PATH and no torch hints: only the wheel can lead to a torch."""
        tools = tools_without_python(self.work / "tools")
        return self.with_cuda_libraries(clean_environment({"PATH": str(tools)}))

    # --- 4: a program -------------------------------------------------------------

    def consumers(self, python: Path):
        env = self.runtime_environment()
        ask = lambda *options: run([str(python), "-m", "flash_powder", *options], env=env).split("\n")  # noqa: E731
        cmake_dir, version = ask("--cmake-dir", "--version")[:2]
        if version != self.project_version():
            raise Failure(f"python -m flash_powder --version says {version}, expected {self.project_version()}")
        site_torch = Path(run([str(python), "-c", "import importlib.util as u; "
                               "print(u.find_spec('torch').submodule_search_locations[0])"], env=env).strip())
        build = self.work / "find_package"
        shutil.rmtree(build, ignore_errors=True)
        configure = [self.args.cmake, "-S", str(HERE / "find_package"), "-B", str(build),
                     f"-DCMAKE_CXX_COMPILER={self.args.cxx}", f"-DCMAKE_PREFIX_PATH={cmake_dir}"]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        if self.args.launcher:
            configure.append(f"-DCMAKE_CXX_COMPILER_LAUNCHER={self.args.launcher}")
        output = run(configure, env=env)
        picked = re.search(r"flash_powder: torch \S+ at (.*), from the torch package beside flash_powder's", output)
        if not picked or Path(picked.group(1)).resolve() != site_torch.resolve():
            raise Failure(f"find_package(flash_powder) did not pick the torch beside the wheel, {site_torch}")
        again = run([self.args.cmake, str(build)], env=env)
        if "flash_powder: torch" not in again:
            raise Failure("configuring a second time did not find the torch again")
        run([self.args.cmake, "--build", str(build)], env=env)
        self.check_output(build / "consumer", python, env)

        program = self.work / "flags" / "consumer"
        program.parent.mkdir(parents=True, exist_ok=True)
        cflags, libs = ask("--cflags", "--libs")[:2]
        compiler = ([self.args.launcher] if self.args.launcher else []) + [self.args.cxx]
        run(compiler + ["-std=c++20", str(HERE / "consumer.cpp"), "-o", str(program), *cflags.split(), *libs.split()],
            env=env)
        self.check_output(program, python, env)

    def check_output(self, program: Path, python: Path, env: dict[str, str]):
        output = run([str(program)], env=env)
        run([str(python), str(HERE / "compare_with_torch.py")], env=env, input=output)

    # --- 5: the extension ---------------------------------------------------------

    def extension(self, python: Path):
        # A copy: the package is built from its own folder, with no
        # flash_powder source tree above it.
        source = self.work / "fp_segmentation_source"
        shutil.rmtree(source, ignore_errors=True)
        shutil.copytree(self.repo / "examples" / "extension", source,
                        ignore=shutil.ignore_patterns("__pycache__", "build"))
        # The venv activated (torch.compile's Inductor runs this machine's compiler and tools).
        env = self.with_cuda_libraries(activated(python, clean_environment()))
        env["CXX"] = self.args.cxx
        if self.args.launcher:
            env["CMAKE_CXX_COMPILER_LAUNCHER"] = self.args.launcher
        # CMake, Ninja and the compiler are this machine's; pip's isolated build
        # environment gets scikit-build-core from the package index.
        run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(source)], env=env)
        library = run([str(python), "-c", "import fp_segmentation; print(fp_segmentation.library_path())"],
                      env=env, cwd=self.work).strip()
        if not library.startswith(str(self.work / f"venv-")):
            raise Failure(f"the installed fp_segmentation loaded {library}, not its own library")
        run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(source / "tests"), "-k", "not cuda"],
            env=env, cwd=self.work)

    def main(self) -> int:
        wheel = self.timed("pack", self.pack)
        self.timed("contents", self.check_contents, wheel)
        version = self.torch_version()
        python = self.timed("venv", self.venv, version)
        self.timed("install", self.install, python, wheel)
        self.timed("consumers", self.consumers, python)
        self.timed("extension", self.extension, python)
        print(f"consumers.wheel with torch {version}: " +
              ", ".join(f"{what} {seconds:.0f} s" for what, seconds in self.timings.items()))
        return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for option in ("--repo", "--build", "--work", "--cmake", "--cxx", "--python", "--build-python", "--torch-dir",
                   "--torch-venvs"):
        parser.add_argument(option, required=True)
    parser.add_argument("--launcher", default="")
    args = parser.parse_args()
    try:
        return WheelCheck(args).main()
    except Failure as failure:
        print(f"check_wheel.py: {failure}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
