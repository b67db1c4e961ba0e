#!/usr/bin/env python3
"""torchvision.ops' CPU kernels timed for bench/run_vision_ops.sh.

    vision_ops.py inputs DIR                 # seeded inputs and torchvision's results, DIR/inputs.safetensors
    vision_ops.py time DIR RESULT [--repetitions N] [--warmup N]

CASES: nms of 1000 and 10000 boxes (in an 800 x 1088 image, 10 to 200 pixels
a side), batched_nms of 10000 boxes in 80 categories (torchvision's
per-category strategy), roi_align and roi_pool of 1000 boxes on an FPN P2
map (256 x 200 x 272, spatial scale 1/4, 7 x 7, sampling ratio 2), and
MultiScaleRoIAlign over P2 to P5 (Faster R-CNN's box pooler). `time`
writes {case: [ms per call, ...]} as JSON. Runs in the Python with
torchvision's compiled ops (scripts/lib/setup.sh, ensure_torchvision_ops),
one thread (torchvision's kernels use one).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch
import torchvision.ops as ops
from safetensors.torch import load_file, save_file

IMAGE = (800, 1088)
LEVELS = {"0": 4, "1": 8, "2": 16, "3": 32}


def boxes_in_image(n: int, g: torch.Generator) -> torch.Tensor:
    corner = torch.rand(n, 2, generator=g) * torch.tensor([IMAGE[1] - 200.0, IMAGE[0] - 200.0])
    size = 10 + torch.rand(n, 2, generator=g) * 190
    return torch.cat([corner, corner + size], dim=1)


def make_inputs() -> dict:
    g = torch.Generator().manual_seed(0)
    t = {}
    for n in (1000, 10000):
        t[f"nms{n}.boxes"] = boxes_in_image(n, g)
        t[f"nms{n}.scores"] = torch.rand(n, generator=g)
    t["batched.idxs"] = torch.randint(0, 80, (10000,), generator=g)
    for name, stride in LEVELS.items():
        t[f"map.{name}"] = torch.randn(1, 256, IMAGE[0] // stride, IMAGE[1] // stride, generator=g)
    t["rois.boxes"] = boxes_in_image(1000, g)
    return t


def calls(t: dict) -> dict:
    """Each case as a function of no arguments."""
    maps = {name: t[f"map.{name}"] for name in LEVELS}
    boxes = [t["rois.boxes"]]
    pooler = ops.MultiScaleRoIAlign(list(LEVELS), 7, 2)
    return {
        "nms_1k": lambda: ops.nms(t["nms1000.boxes"], t["nms1000.scores"], 0.5),
        "nms_10k": lambda: ops.nms(t["nms10000.boxes"], t["nms10000.scores"], 0.5),
        "batched_nms_10k": lambda: ops.batched_nms(t["nms10000.boxes"], t["nms10000.scores"], t["batched.idxs"], 0.5),
        "roi_align_p2": lambda: ops.roi_align(maps["0"], boxes, 7, 0.25, 2),
        "roi_pool_p2": lambda: ops.roi_pool(maps["0"], boxes, 7, 0.25),
        "multiscale_roi_align": lambda: pooler(maps, boxes, [IMAGE]),
    }


def main() -> None:
    torch.set_num_threads(1)
    torch.set_grad_enabled(False)
    mode, out = sys.argv[1], Path(sys.argv[2])
    if mode == "inputs":
        t = make_inputs()
        results = {f"result.{name}": call() for name, call in calls(t).items()}
        save_file(dict(t, **results), str(out / "inputs.safetensors"))
        return
    repetitions = int(sys.argv[sys.argv.index("--repetitions") + 1]) if "--repetitions" in sys.argv else 5
    warmup = int(sys.argv[sys.argv.index("--warmup") + 1]) if "--warmup" in sys.argv else 1
    t = load_file(str(out / "inputs.safetensors"))
    times = {}
    for name, call in calls(t).items():
        for _ in range(warmup):
            call()
        samples = []
        for _ in range(repetitions):
            start = time.perf_counter()
            call()
            samples.append((time.perf_counter() - start) * 1e3)
        times[name] = samples
    Path(sys.argv[3]).write_text(json.dumps(times))


if __name__ == "__main__":
    main()
