#!/usr/bin/env python3
"""Fine-tunes torchvision's fasterrcnn_mobilenet_v3_large_320_fpn to find the
synthetic shapes (examples/shapes) on CPU, starting its backbone from the
segment demo's trained lraspp_mobilenet_v3_large (the same MobileNetV3-Large
features: no pretrained weights are reachable, and from random weights the
detector needs four times the steps to tell the shapes apart), and writes
the test pictures with their true boxes.

    train.py OUT_DIR --backbone-from SEGMENTER_WEIGHTS [--steps N] [--test-images K]

Runs under the Python with torchvision's compiled ops (nms, roi_align:
scripts/lib/setup.sh, ensure_torchvision_ops). Writes
OUT_DIR/detector.safetensors (the state dict; kept while this file,
detector.py, examples/shapes/shapes.py and the segmenter's weights are
unchanged: OUT_DIR/detector.key) and OUT_DIR/test/image_NN.png with their
true boxes and classes in OUT_DIR/test/boxes.safetensors, from seeds: every
run makes the same pictures and, on the same machine, the same network.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from PIL import Image

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "shapes"))
import shapes  # noqa: E402
import detector  # noqa: E402

BATCH = 4
# From the segmenter's backbone, about a minute on one core.
STEPS = 200
# MobileNetV3-Large's feature blocks from this one on are fine-tuned (of 0 to 16).
FIRST_TRAINED_BLOCK = 13


def objects_of(rng: np.random.Generator) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """A picture as float [3, H, W] in [0, 1] and its target: the boxes and classes of its shapes."""
    picture, mask, objects = shapes.sample_objects(rng, detector.SIZE)
    boxes, labels = detector.true_boxes(mask, objects)
    image = torch.from_numpy(picture).permute(2, 0, 1).float() / 255
    return image, {"boxes": boxes, "labels": labels}


def start_from_segmenter(model: torch.nn.Module, segmenter: Path) -> None:
    """The detector's backbone (`backbone.body`: MobileNetV3-Large's features)
    given the segmenter's (`backbone`: the same layers, dilated in its last
    blocks, which changes no weight)."""
    trained = load_file(str(segmenter))
    body = model.backbone.body
    weights = {key: trained[f"backbone.{key}"] for key in body.state_dict()}
    body.load_state_dict(weights)
    # Its first blocks stay as the segmenter trained them: the steps then cost
    # a third less (no gradient flows through them) and the heads learn as
    # fast.
    for name, parameter in body.named_parameters():
        if int(name.split(".")[0]) < FIRST_TRAINED_BLOCK:
            parameter.requires_grad_(False)


def train(steps: int, segmenter: Path) -> torch.nn.Module:
    # One thread: the result is then the same wherever it is trained (on one
    # kind of CPU), and a busy machine does not stall it (two threads
    # waiting on each other ran several times slower beside other work).
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = detector.model(training=True)
    start_from_segmenter(model, segmenter)
    # torchvision's detection recipe (SGD with momentum; its learning rate
    # for this batch size, doubled at the top of the one-cycle schedule).
    trained = [parameter for parameter in model.parameters() if parameter.requires_grad]
    optimizer = torch.optim.SGD(trained, lr=0.01, momentum=0.9, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.02, total_steps=steps)
    print(f"fasterrcnn_mobilenet_v3_large_320_fpn: fine-tuning {steps} steps on CPU "
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
    backbone = argparse.ArgumentParser(add_help=False)
    backbone.add_argument("--backbone-from", type=Path, required=True)
    known, sys.argv[1:] = backbone.parse_known_args()
    segmenter = known.backbone_from
    if not segmenter.is_file():
        sys.exit(f"train.py: no segmenter weights at {segmenter} (examples/segment/run.sh trains them)")
    args = shapes.arguments(default_steps=STEPS)
    write_test_set(args.out / "test", args.test_images)
    sources = [Path(__file__).read_bytes(), (HERE / "detector.py").read_bytes(),
               hashlib.sha256(segmenter.read_bytes()).digest()]
    key = shapes.source_key(sources, args.steps)
    shapes.train_once("fasterrcnn_mobilenet_v3_large_320_fpn", args.out / "detector.safetensors", key,
                      lambda: train(args.steps, segmenter))


if __name__ == "__main__":
    main()
