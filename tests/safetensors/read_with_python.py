#!/usr/bin/env python3
"""Reads a safetensors file with Python's safetensors and prints it as JSON.

    read_with_python.py FILE

Prints {"keys": [...], "metadata": {...} or null, "tensors": {name: {"dtype",
"shape", "bytes" (hex of the raw values), "values" (float64 as '%.17g', for
real dtypes)}}}. test_interop.cpp compares it with what C++ wrote.
"""

import json
import math
import sys

import torch
from safetensors import safe_open


def describe(tensor):
    flat = tensor.contiguous().flatten()
    entry = {
        "dtype": str(tensor.dtype).removeprefix("torch."),
        "shape": list(tensor.shape),
        "bytes": flat.view(torch.uint8).numpy().tobytes().hex(),
    }
    if not tensor.dtype.is_complex and tensor.dtype != torch.float4_e2m1fn_x2:
        entry["values"] = ["nan" if math.isnan(v) else "%.17g" % v
                           for v in flat.to(torch.float64).tolist()]
    return entry


def main():
    with safe_open(sys.argv[1], framework="pt") as f:
        report = {
            "keys": list(f.keys()),
            "metadata": f.metadata(),
            "tensors": {name: describe(f.get_tensor(name)) for name in f.keys()},
        }
    print(json.dumps(report, sort_keys=True))


if __name__ == "__main__":
    main()
