#!/usr/bin/env python3
"""The Python side of run_aoti.sh: one forward of the same model five ways.

    aoti_forward.py input PACKAGE INPUT.safetensors      write the input batch
    aoti_forward.py run FROZEN UNFROZEN INPUT.safetensors OUT.json
    aoti_forward.py report CPP_FROZEN.json CPP_UNFROZEN.json PY.json

Cases: Python's AOTI loader on the same packages, frozen and unfrozen
(`py_aoti_loader frozen`, `py_aoti_loader unfrozen`), the eager module
(`py_eager`) and the torch.compile'd module (`py_compile`), each timed
like Google Benchmark does the C++ side: repeated calls for at least
--seconds, reporting the mean per call, best of --repeats.
"""

import json
import sys
import time
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "examples" / "aoti"))
import classifier  # noqa: E402


def timed(call, seconds=2.0, repeats=3):
    for _ in range(10):
        call()
    best = float("inf")
    for _ in range(repeats):
        count, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            call()
            count += 1
        best = min(best, elapsed / count)
    return best


def run(frozen_package, unfrozen_package, input_path, out):
    torch.set_num_threads(1)
    image = load_file(input_path)["input"]
    frozen = torch._inductor.aoti_load_package(frozen_package)
    unfrozen = torch._inductor.aoti_load_package(unfrozen_package)
    eager = classifier.make_model()
    compiled = torch.compile(eager)
    results = {}
    with torch.no_grad():
        compiled(image)  # compiles here, not in the timing
        for name, call in (("py_aoti_loader frozen", lambda: frozen(image)),
                           ("py_aoti_loader unfrozen", lambda: unfrozen(image)),
                           ("py_eager", lambda: eager(image)),
                           ("py_compile", lambda: compiled(image))):
            results[name] = timed(call)
            print(f"{name}: {results[name] * 1e6:.1f} us")
    Path(out).write_text(json.dumps(results))


def cpp_seconds(cpp_json):
    """The best of the C++ side's repetitions, in seconds (as in Python)."""
    cpp = json.loads(Path(cpp_json).read_text())
    runs = [b for b in cpp["benchmarks"]
            if b["name"] == "fp_aoti_forward" and b.get("run_type", "iteration") == "iteration"]
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[runs[0]["time_unit"]]
    return min(b["real_time"] for b in runs) * unit


def report(cpp_frozen_json, cpp_unfrozen_json, py_json):
    py = json.loads(Path(py_json).read_text())
    fp_time = cpp_seconds(cpp_frozen_json)
    unfrozen = cpp_seconds(cpp_unfrozen_json)
    print("| case | us per forward | time / flash_powder's on the frozen package |")
    print("|---|---:|---:|")
    print(f"| fp_aoti_forward frozen (C++) | {fp_time * 1e6:.1f} | 1.00 |")
    print(f"| fp_aoti_forward unfrozen (C++) | {unfrozen * 1e6:.1f} | {unfrozen / fp_time:.2f} |")
    for name, seconds in py.items():
        print(f"| {name} | {seconds * 1e6:.1f} | {seconds / fp_time:.2f} |")


def main():
    command = sys.argv[1]
    if command == "input":
        image = torch.rand(1, 3, 32, 32, generator=torch.Generator().manual_seed(7))
        save_file({"input": image}, sys.argv[3])
    elif command == "run":
        run(*sys.argv[2:6])
    elif command == "report":
        report(*sys.argv[2:5])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
