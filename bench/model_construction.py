#!/usr/bin/env python3
"""The Python side of bench/run_model_construction.sh, and the report.

    model_construction.py run RUNS          # prints JSON: case -> median ms
    model_construction.py report CPP PY     # the table and the ratios
"""

import json
import statistics
import sys
import time

import torch
import torch.nn as nn


def median_ms(runs, build):
    build()  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        build()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def run(runs):
    cases = {
        "embedding_init": lambda: nn.Embedding(30522, 384),
        "linear_init": lambda: nn.Linear(384, 1536),
        "embedding_skip_init": lambda: nn.utils.skip_init(nn.Embedding, 30522, 384),
        "embedding_meta": lambda: nn.Embedding(30522, 384, device="meta"),
    }
    print(json.dumps({name: median_ms(runs, build) for name, build in cases.items()}))


def report(cpp_path, py_path):
    cpp = json.load(open(cpp_path))
    py = json.load(open(py_path))
    print(f"| case | flash_powder ms | PyTorch ms | PyTorch / flash_powder |")
    print(f"|---|---:|---:|---:|")
    for name in cpp:
        print(f"| {name} | {cpp[name]:.3f} | {py[name]:.3f} | {py[name] / cpp[name]:.2f} |")


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(int(sys.argv[2]))
    else:
        report(sys.argv[2], sys.argv[3])
