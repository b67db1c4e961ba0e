#!/usr/bin/env python3
"""The optimize tests' fixture: frozen AOTInductor packages of a few models and
the outputs Python computes with them (tests/nn/test_optimize.cpp compares
fp::nn::optimize_for_inference's outputs with these).

    make_optimize_refs.py OUT_DIR [--stage export|refs]

The export stage (the build's torch) writes, for each case of CASES, the
model's seeded weights (OUT_DIR/weights/<case>.safetensors: BatchNorm's
statistics and affine parameters random too, so that folding them matters)
and a package compiled with freezing (tools/export_aoti.py's default, so
Inductor folds BatchNorm, pre-packs the weights and calls oneDNN's fused
kernels), cached by torch version and the sources that define them: a minute
or more each on a small machine.

The references stage (the torch under test, the lane's CPU settings) writes
OUT_DIR/refs/<CPU settings>/<case>.safetensors: `input`, `frozen` (what
Python's loader returns for the package) and `eager` (the eager module under
torch.no_grad()).
"""

from __future__ import annotations

import hashlib
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "tools"))

import torch  # noqa: E402
from safetensors.torch import load_file, save_file  # noqa: E402
from torch import nn  # noqa: E402

import export_aoti  # noqa: E402


class FusedNet(nn.Module):
    """The hand-written module of the tests: Sequential conv-bn-relu blocks, a
    residual block of named layers (conv-bn-relu, then conv-bn + shortcut +
    relu, which Inductor runs as one convolution adding in place), a strided
    conv with bias, BatchNorm and SiLU, and a linear head."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16),
                                  nn.ReLU())
        self.conv1 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.down = nn.Sequential(nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32),
                                  nn.SiLU())
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(32 * 8 * 8, 10), nn.ReLU(),
                                  nn.Linear(10, 10))

    def forward(self, x):
        x = self.stem(x)
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        x = self.relu(y + x)
        return self.head(self.down(x))


def seeded(factory, seed: int) -> nn.Module:
    """`factory()` with PyTorch's initialisation from a seeded generator, and
    BatchNorm statistics and affine parameters that matter."""
    torch.manual_seed(seed)
    model = factory()
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.weight.uniform_(0.5, 1.5, generator=generator)
                module.bias.normal_(0, 0.1, generator=generator)
                module.running_mean.normal_(0, 0.1, generator=generator)
                module.running_var.uniform_(0.5, 1.5, generator=generator)
    return model.eval()


def fused_net():
    return seeded(FusedNet, 1)


# case -> (model factory, input sizes). One tiny model: Inductor compiles it
# for about a minute on a small machine, and the suite's time is counted
# (fp::vision's models and the U-Net are checked against eager PyTorch,
# tests/vision/test_models.cpp and test_optimize.cpp).
CASES = {
    "fused_net": (fused_net, (2, 3, 16, 16)),
}

# As tests/aoti/make_packages.py: Inductor's own kernels for vectors of 256
# bits at most, so that every lane (valgrind's CPU has no AVX-512) runs them.
INDUCTOR_CONFIGS = ({"cpp.simdlen": 256, "cpp.march": "x86-64-v3"}
                    if platform.machine() in ("x86_64", "AMD64") else {})


def cpu_settings_name() -> str:
    """The lane's folder; tests/nn/test_optimize.cpp builds the same name."""
    names = ("ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS", "ONEDNN_MAX_CPU_ISA", "MKL_CBWR")
    return "-".join(os.environ.get(name, "") or "native" for name in names)


def source_key(case: str) -> str:
    digest = hashlib.sha256(torch.__version__.encode())
    for path in (Path(__file__), REPO / "tools" / "export_aoti.py"):
        digest.update(path.read_bytes())
    digest.update(repr((case, CASES[case][1], INDUCTOR_CONFIGS)).encode())
    return digest.hexdigest()[:16]


def example(case: str) -> torch.Tensor:
    generator = torch.Generator().manual_seed(len(case))
    return torch.randn(CASES[case][1], generator=generator)


def ensure_package(case: str, out: Path) -> None:
    package = out / "packages" / f"{case}.pt2"
    weights = out / "weights" / f"{case}.safetensors"
    stamp = package.with_suffix(".key")
    key = source_key(case)
    if package.exists() and weights.exists() and stamp.exists() and stamp.read_text() == key:
        return
    start = time.monotonic()
    model = CASES[case][0]()
    weights.parent.mkdir(parents=True, exist_ok=True)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(weights))
    export_aoti.export_aoti(model, (example(case),), package, inductor_configs=INDUCTOR_CONFIGS)
    stamp.write_text(key)
    print(f"compiled {case} frozen in {time.monotonic() - start:.0f} s")


def write_references(case: str, out: Path, refs: Path) -> None:
    model = CASES[case][0]()
    model.load_state_dict(load_file(str(out / "weights" / f"{case}.safetensors")))
    loaded = torch._inductor.aoti_load_package(str(out / "packages" / f"{case}.pt2"))
    x = example(case)
    with torch.no_grad():
        frozen = loaded(x)
        eager = model(x)
    refs.mkdir(parents=True, exist_ok=True)
    save_file({"input": x, "frozen": frozen.contiguous(), "eager": eager.contiguous()},
              str(refs / f"{case}.safetensors"))


def main() -> int:
    import argparse
    import fcntl
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--stage", choices=["export", "refs", "all"], default="all")
    args = parser.parse_args()
    (args.out / "packages").mkdir(parents=True, exist_ok=True)
    lock = open(args.out / "packages" / ".lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    if args.stage in ("export", "all"):
        for case in CASES:
            ensure_package(case, args.out)
        print(f"frozen packages ready in {args.out / 'packages'} (torch {torch.__version__})")
    if args.stage in ("refs", "all"):
        refs = args.out / "refs" / cpu_settings_name()
        for case in CASES:
            write_references(case, args.out, refs)
        print(f"frozen references by torch {torch.__version__} in {refs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
