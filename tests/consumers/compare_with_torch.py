"""Checks consumer.cpp's output (on stdin) against the same computation in
PyTorch, run by the Python whose torch the program loaded.

The first line names the torch the program loaded ("torch 2.13.0"); it must
be this Python's. The rest are the output's values, which must equal
PyTorch's exactly: both run the same libtorch kernels.
"""

import sys

import torch


def expected() -> torch.Tensor:
    weight = torch.arange(12.0).sin().reshape(3, 4)
    bias = torch.cos(torch.arange(3.0))
    x = torch.linspace(-1.0, 1.0, 8).reshape(2, 4)
    return torch.relu(torch.nn.functional.linear(x, weight, bias)).flatten()


def main() -> int:
    lines = sys.stdin.read().split("\n")
    loaded = lines[0].removeprefix("torch ").strip()
    ours = torch.__version__.split("+")[0]
    if loaded != ours:
        print(f"the program loaded torch {loaded}, expected {ours} ({torch.__file__})")
        return 1
    got = torch.tensor([float(line) for line in lines[1:] if line.strip()], dtype=torch.float32)
    want = expected()
    if got.shape != want.shape or not torch.equal(got, want):
        print(f"the program printed {got.tolist()}, PyTorch computes {want.tolist()}")
        return 1
    print(f"output equals PyTorch's (torch {ours}, {want.numel()} values)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
