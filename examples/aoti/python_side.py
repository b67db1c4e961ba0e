#!/usr/bin/env python3
"""Runs a package the way Python users do and writes what C++ must match.

    python_side.py PACKAGE OUT.safetensors [BATCH]

Writes `input` (a seeded batch of images), `output` (what
torch._inductor.aoti_load_package's model returns) and `eager` (the eager
module from classifier.py) for fp_aoti_example to compare against.
"""

import sys
from pathlib import Path

import torch
from safetensors.torch import save_file

sys.path.insert(0, str(Path(__file__).resolve().parent))
import classifier  # noqa: E402


def main():
    package, out = sys.argv[1], sys.argv[2]
    batch = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    image = torch.rand(batch, 3, 32, 32, generator=torch.Generator().manual_seed(7))
    with torch.no_grad():
        output = torch._inductor.aoti_load_package(package)(image)
        eager = classifier.make_model()(image)
    save_file({"input": image, "output": output.contiguous(), "eager": eager.contiguous()}, out)
    print(f"python: class per image {output.argmax(1).tolist()}")


if __name__ == "__main__":
    main()
