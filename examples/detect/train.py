#!/usr/bin/env python3
"""Trains torchvision's fasterrcnn_mobilenet_v3_large_320_fpn from a seeded
random initialisation (no pretrained weights) to find the synthetic shapes
(examples/shapes) on CPU, and writes the test pictures with their true boxes.
1000 steps of 4 pictures take about four minutes on one core: the network
learns where the shapes are sooner than which shape each is (its right
detections score from about 0.3; examples/detect/main.cpp).

    train.py OUT_DIR [--steps N] [--test-images K]

Runs under the Python with torchvision's compiled ops (nms, roi_align:
scripts/lib/setup.sh, ensure_torchvision_ops). Writes
OUT_DIR/detector.safetensors (the state dict; kept while this file,
detector.py and examples/shapes/shapes.py are unchanged:
OUT_DIR/detector.key) and OUT_DIR/test/image_NN.png with their true boxes and
classes in OUT_DIR/test/boxes.safetensors, from seeds: every run makes the
same pictures and, on the same machine, the same network.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import save_file
from PIL import Image

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "shapes"))
import shapes  # noqa: E402
import detector  # noqa: E402

BATCH = 4


def objects_of(rng: np.random.Generator) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """A picture as float [3, H, W] in [0, 1] and its target: the boxes and classes of its shapes."""
    picture, mask, objects = shapes.sample_objects(rng, detector.SIZE)
    boxes, labels = detector.true_boxes(mask, objects)
    image = torch.from_numpy(picture).permute(2, 0, 1).float() / 255
    return image, {"boxes": boxes, "labels": labels}


def train(steps: int) -> torch.nn.Module:
    # One thread: the result is then the same wherever it is trained (on one
    # kind of CPU), and a busy machine does not stall it (two threads
    # waiting on each other ran several times slower beside other work).
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = detector.model(training=True)
    # torchvision's detection recipe (SGD with momentum; its learning rate
    # for this batch size, doubled at the top of the one-cycle schedule).
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.02, total_steps=steps)
    print(f"fasterrcnn_mobilenet_v3_large_320_fpn: training {steps} steps on CPU "
          f"({detector.SIZE} x {detector.SIZE} pictures, batches of {BATCH})", flush=True)
    model.train()
    start = time.time()
    for step in range(steps):
        images, targets = zip(*(objects_of(rng) for _ in range(BATCH)))
        losses = model(list(images), list(targets))
        loss = sum(losses.values())
        optimizer.zero_grad()
        loss.backward()
        # From random weights the first steps' gradients are large: clipped, they do not blow up the heads.
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
        schedule.step()
        if step % 50 == 0 or step == steps - 1:
            parts = "  ".join(f"{k[5:]} {v.item():.3f}" for k, v in losses.items())
            print(f"  step {step:4}  loss {loss.item():.3f} ({parts})  ({time.time() - start:.0f} s)", flush=True)
    # The backbone alone sees the pictures, as it does inside the detector
    # (after the transform's normalisation); its BatchNorm2d has momentum 0.1.
    shapes.recalibrate_batch_norm(
        model, lambda: model.backbone(model.transform([objects_of(rng)[0] for _ in range(BATCH)])[0].tensors),
        10, 0.1)
    print(f"  trained in {time.time() - start:.0f} s", flush=True)
    return model.eval()


def write_test_set(out: Path, count: int) -> None:
    """OUT/image_NN.png and their true boxes and classes (OUT/boxes.safetensors:
    boxes_NN float [K, 4], labels_NN int64 [K]), from a seed of their own."""
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2026)
    truth = {}
    for index in range(count):
        picture, mask, objects = shapes.sample_objects(rng, detector.SIZE)
        Image.fromarray(picture).save(out / f"image_{index:02}.png")
        truth[f"boxes_{index:02}"], truth[f"labels_{index:02}"] = detector.true_boxes(mask, objects)
    save_file(truth, str(out / "boxes.safetensors"))


def main() -> None:
    args = shapes.arguments(default_steps=1000)
    write_test_set(args.out / "test", args.test_images)
    key = shapes.source_key([Path(__file__).read_bytes(), (HERE / "detector.py").read_bytes()], args.steps)
    shapes.train_once("fasterrcnn_mobilenet_v3_large_320_fpn", args.out / "detector.safetensors", key,
                      lambda: train(args.steps))


if __name__ == "__main__":
    main()
