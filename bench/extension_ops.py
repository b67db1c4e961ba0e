#!/usr/bin/env python3
"""fp_segmentation's ops (C++ with flash_powder, examples/extension) against
their plain-PyTorch definitions (fp_segmentation/reference.py), eager and
under torch.compile, in one process; prints times and ratios.

    bench/run_extension.sh          # builds the op library, runs this

Each case runs in rounds that alternate the two sides; the best round counts,
so that a burst of load from elsewhere does not land on one side only.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "extension"))
import fp_segmentation  # noqa: E402
from fp_segmentation import reference  # noqa: E402

SIZE = 512
CLASSES = 21  # Pascal VOC


def inputs():
    generator = torch.Generator().manual_seed(0)
    image = torch.randint(0, 256, (3, SIZE, SIZE), generator=generator, dtype=torch.uint8)
    logits = torch.randn(CLASSES, SIZE, SIZE, generator=generator)
    probs = logits.softmax(0)
    labels, confidence = reference.label_map(logits)
    return image, logits, probs, labels, confidence


def cases():
    image, logits, probs, labels, confidence = inputs()
    return {
        "overlay": (
            lambda op: (lambda: op(image, probs, None, 0.4)),
            fp_segmentation.overlay, reference.overlay),
        "label_map": (
            lambda op: (lambda: op(logits, 0.5, 255)),
            fp_segmentation.label_map, reference.label_map),
        "mask_low_confidence_": (
            lambda op: (lambda: op(labels, confidence, 0.3, 255)),
            fp_segmentation.mask_low_confidence_, reference.mask_low_confidence_),
    }


def seconds_per_call(call, budget: float) -> float:
    call()  # warm up (and compile)
    count, start = 0, time.perf_counter()
    while True:
        call()
        count += 1
        elapsed = time.perf_counter() - start
        if elapsed >= budget and count >= 3:
            return elapsed / count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--budget", type=float, default=0.5, help="seconds per side per round")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, 1 thread, {CLASSES} classes at {SIZE}x{SIZE}")
    print(f"{'op':24} {'mode':9} {'flash_powder ms':>16} {'PyTorch ms':>11} {'ratio':>7}")
    for name, (bind, ours, theirs) in cases().items():
        for mode in ("eager", "compiled"):
            wrap = (lambda f: torch.compile(f, fullgraph=True)) if mode == "compiled" else (lambda f: f)
            calls = {"fp": bind(wrap(ours)), "py": bind(wrap(theirs))}
            best = {"fp": [], "py": []}
            for _ in range(args.rounds):
                for side, call in calls.items():
                    best[side].append(seconds_per_call(call, args.budget))
            fp_ms, py_ms = (min(best[side]) * 1e3 for side in ("fp", "py"))
            spread = statistics.pstdev(best["fp"]) / statistics.mean(best["fp"])
            print(f"{name:24} {mode:9} {fp_ms:16.3f} {py_ms:11.3f} {fp_ms / py_ms:7.2f}"
                  f"   (fp rounds vary {spread:.0%})")
    print("ratio: flash_powder's time / PyTorch's (below 1: the custom op is faster)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
