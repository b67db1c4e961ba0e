#!/usr/bin/env python3
"""The Python side of the safetensors loading benchmark (bench/run_safetensors.sh).

    safetensors_load.py create FILE.safetensors FILE.pt   # the weights, ~500 MB
    safetensors_load.py run FILE.safetensors FILE.pt OUT.json
    safetensors_load.py report CPP.json PY.json           # the table and ratios

Times are per load, from the page cache, each case repeated for at least
two seconds (as the C++ side, Google Benchmark with MinTime(2)).
"""

import json
import os
import statistics
import sys
import time

import torch
from safetensors.torch import load_file, save_file

LAYERS = 96
WIDTH, HEIGHT = 1280, 1024  # 5 MiB of float32 per weight: 96 layers ~ 504 MB


def create(st_path, pt_path):
    generator = torch.Generator().manual_seed(0)
    weights = {}
    for i in range(LAYERS):
        weights[f"layers.{i}.weight"] = torch.randn(HEIGHT, WIDTH, generator=generator)
        weights[f"layers.{i}.bias"] = torch.randn(HEIGHT, generator=generator)
    save_file(weights, st_path)
    torch.save(weights, pt_path)


def timed(function, min_seconds=2.0, min_runs=3):
    """Mean seconds per call over at least `min_seconds` and `min_runs` calls."""
    function()  # warm-up: page cache, allocator, lazy imports
    times = []
    start = time.perf_counter()
    while len(times) < min_runs or time.perf_counter() - start < min_seconds:
        begin = time.perf_counter()
        function()
        times.append(time.perf_counter() - begin)
    return statistics.mean(times)


def preallocated_like(st_path):
    model = {name: torch.empty_like(t) for name, t in load_file(st_path).items()}
    for t in model.values():
        t.zero_()  # the pages exist, as in a model built before loading
    return model


def run(st_path, pt_path, out_path):
    model = preallocated_like(st_path)

    def load_into_model():
        loaded = load_file(st_path)
        with torch.no_grad():
            for name, tensor in loaded.items():
                model[name].copy_(tensor)

    results = {
        "py_load_file": timed(lambda: load_file(st_path)),
        "py_load_file_into_preallocated": timed(load_into_model),
        "py_load_file_clone": timed(lambda: {k: v.clone() for k, v in load_file(st_path).items()}),
        "torch_load": timed(lambda: torch.load(pt_path, weights_only=True)),
        "torch_load_mmap": timed(lambda: torch.load(pt_path, weights_only=True, mmap=True)),
    }
    with open(out_path, "w") as f:
        json.dump({name: seconds * 1e3 for name, seconds in results.items()}, f, indent=1)


def cpp_times(path):
    with open(path) as f:
        report = json.load(f)
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    # Names read "memcpy/min_time:2.000/real_time": the case is the first part.
    return {b["name"].split("/")[0]: b["real_time"] * scale[b["time_unit"]]
            for b in report["benchmarks"] if b.get("run_type", "iteration") == "iteration"}


COMPARISONS = [
    # (flash_powder case, Python case, what is compared)
    ("fp_mmap_views", "py_load_file",
     "mmap + a view of every tensor (no data read) vs load_file (also mmap-backed, lazy)"),
    ("fp_mmap_into_preallocated", "py_load_file_into_preallocated",
     "into preallocated tensors (= load_state_dict) from the mapping, both sides"),
    ("fp_load_owned", "py_load_file_clone",
     "owned tensors: fp::safetensors::load vs load_file + clone() of each"),
    ("fp_load_owned", "torch_load", "owned tensors: fp::safetensors::load vs torch.load (.pt)"),
    ("fp_mmap_views", "torch_load_mmap", "lazy vs lazy: mmap views vs torch.load(mmap=True)"),
    ("fp_mmap_to_cpu", "torch_load", "MappedFile::to(cpu) vs torch.load (.pt)"),
]


def report(cpp_path, py_path, file_size):
    times = cpp_times(cpp_path)
    with open(py_path) as f:
        times.update(json.load(f))
    memcpy = times["memcpy"]
    print(f"file: {file_size / 1e6:.0f} MB, warm page cache\n")
    print(f"{'case':34} {'ms':>9} {'GB/s':>7} {'x memcpy time':>14}")
    for name, ms in times.items():
        print(f"{name:34} {ms:9.2f} {file_size / ms / 1e6:7.2f} {ms / memcpy:14.2f}")
    print("\nratios (Python time / flash_powder time; > 1: flash_powder is faster)")
    for fp_case, py_case, what in COMPARISONS:
        print(f"  {times[py_case] / times[fp_case]:8.2f}  {fp_case} vs {py_case}: {what}")


def main():
    command, *args = sys.argv[1:]
    if command == "create":
        create(*args)
    elif command == "run":
        run(*args)
    elif command == "report":
        cpp_path, py_path, st_path = args
        report(cpp_path, py_path, os.path.getsize(st_path))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
