#!/usr/bin/env python3
"""torchvision's fasterrcnn_mobilenet_v3_large_320_fpn timed for
bench/run_vision_detection.sh, end to end and stage by stage.

    vision_detection.py inputs DIR                # seeded weights and images
    vision_detection.py truth DIR --threads N     # torchvision's detections on N threads
    vision_detection.py time DIR RESULT --threads N [--repetitions N] [--warmup N]

The model is the builder's with its inference defaults (91 classes, images
resized to 320 on the shorter side, 150 proposals per image), with seeded
weights made as tests/vision/make_detection_truth.py makes them (BatchNorm
random, class scores spread so that the random network detects, as a
trained one does: its post-processing has boxes to sort and suppress). The
images are two seeded pictures of COCO's typical sizes (480 x 640 and 427 x
640). CASES: end_to_end (model(images)) and its stages as GeneralizedRCNN
runs them: transform, backbone, rpn, roi_heads, postprocess (each on the
previous stages' outputs). `truth` writes DIR/detections-N.safetensors
(libtorch's kernels may split their sums by thread count, so the
detections, which flash_powder must equal bit for bit, are per count);
`time` writes {case: {"wall": [ms per call, ...], "cpu": [...]}} as JSON
(cpu: the process's CPU time, all threads; on a busy machine it moves less
than the wall clock). Runs in the Python with torchvision's compiled ops
(scripts/lib/setup.sh, ensure_torchvision_ops), eval mode, torch.no_grad().
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "vision"))
import make_detection_truth as truth  # noqa: E402

NAME = "fasterrcnn_mobilenet_v3_large_320_fpn"
IMAGE_SIZES = ((3, 480, 640), (3, 427, 640))


def build() -> torch.nn.Module:
    from torchvision.models.detection import fasterrcnn_mobilenet_v3_large_320_fpn

    return fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None).eval()


def make_inputs(out: Path) -> None:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = build()
    truth.randomize_batch_norms(model)
    g = torch.Generator().manual_seed(1)
    images = [torch.rand(size, generator=g) for size in IMAGE_SIZES]
    truth.spread_scores(model, images)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(out / "weights.safetensors"))
    save_file({f"image{i}": image for i, image in enumerate(images)}, str(out / "inputs.safetensors"))


def loaded(out: Path) -> tuple[torch.nn.Module, list]:
    model = build()
    model.load_state_dict(load_file(str(out / "weights.safetensors")))
    t = load_file(str(out / "inputs.safetensors"))
    return model, [t[f"image{i}"] for i in range(len(IMAGE_SIZES))]


def write_truth(out: Path, threads: int) -> None:
    model, images = loaded(out)
    found = model(images)
    t = {f"{key}{i}": one[key].contiguous() for i, one in enumerate(found) for key in ("boxes", "labels", "scores")}
    save_file(t, str(out / f"detections-{threads}.safetensors"))
    print(f"{NAME}: {', '.join(str(len(one['boxes'])) for one in found)} detections ({threads} threads)",
          file=sys.stderr)


def calls(model: torch.nn.Module, images: list) -> dict:
    """Each case as a function of no arguments; a stage's inputs are computed once, here."""
    batch, _ = model.transform(images)
    features = model.backbone(batch.tensors)
    proposals, _ = model.rpn(batch, features)
    detections, _ = model.roi_heads(features, proposals, batch.image_sizes)
    original = [tuple(image.shape[-2:]) for image in images]
    return {
        "end_to_end": lambda: model(images),
        "transform": lambda: model.transform(images),
        "backbone": lambda: model.backbone(batch.tensors),
        "rpn": lambda: model.rpn(batch, features),
        "roi_heads": lambda: model.roi_heads(features, proposals, batch.image_sizes),
        "postprocess": lambda: model.transform.postprocess([dict(d) for d in detections], batch.image_sizes,
                                                           original),
    }


def option(name: str, fallback: int) -> int:
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else fallback


def main() -> None:
    torch.set_grad_enabled(False)
    mode, out = sys.argv[1], Path(sys.argv[2])
    if mode == "inputs":
        make_inputs(out)
        return
    threads = option("--threads", 1)
    torch.set_num_threads(threads)
    if mode == "truth":
        write_truth(out, threads)
        return
    repetitions, warmup = option("--repetitions", 5), option("--warmup", 1)
    model, images = loaded(out)
    times = {}
    for name, call in calls(model, images).items():
        for _ in range(warmup):
            call()
        wall, cpu = [], []
        for _ in range(repetitions):
            start, start_cpu = time.perf_counter(), time.process_time()
            call()
            cpu.append((time.process_time() - start_cpu) * 1e3)
            wall.append((time.perf_counter() - start) * 1e3)
        times[name] = {"wall": wall, "cpu": cpu}
    Path(sys.argv[3]).write_text(json.dumps(times))


if __name__ == "__main__":
    main()
