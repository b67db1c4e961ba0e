#!/usr/bin/env python3
"""Trains torchvision's lraspp_mobilenet_v3_large from a seeded random
initialisation (there are no pretrained weights to start from) on the
synthetic shapes (examples/shapes) on CPU, and writes the test pictures.

    train.py OUT_DIR [--steps N] [--test-images K]

Writes OUT_DIR/segmenter.safetensors (the state dict; kept while this file
and examples/shapes/shapes.py are unchanged: OUT_DIR/segmenter.key) and
OUT_DIR/test/image_NN.png with their true class masks OUT_DIR/test/mask_NN.png,
from seeds, so every run makes the same pictures and, on the same machine,
the same network.
"""

from __future__ import annotations

import sys
import time
import types
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "shapes"))
import shapes  # noqa: E402

# torchvision's models without its compiled ops (which do not load beside this torch; the models are Python).
sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))
import torchvision.transforms.v2.functional as F  # noqa: E402
from torchvision.models.segmentation import lraspp_mobilenet_v3_large  # noqa: E402

# Small pictures and batches: a step takes a tenth of a second on one core.
# From random weights the network needs about as many pictures as 1000 steps
# see to tell the shapes apart (half as many leave it guessing).
SIZE, BATCH = 64, 8
# SemanticSegmentation's normalisation (ImageNet's), which reference.py and the C++ program apply.
MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def normalized_batch(rng: np.random.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    images, masks = shapes.batch(rng, BATCH, SIZE)
    return F.normalize(images, MEAN, STD), masks


def train(steps: int) -> torch.nn.Module:
    # One thread: the result is then the same wherever it is trained (on one kind of CPU).
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=len(shapes.CLASSES))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)
    # A peak of 1e-2: at 2e-2 the result swung with the CPU's rounding (on
    # one CPU the network missed the squares, and a detector fine-tuned from
    # its backbone learnt nothing). At 1e-2 that CPU's SSE, AVX2 and AVX-512
    # kernels reached mean IoUs of 0.27 to 0.50, and the detectors 0.43 to 0.49.
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, total_steps=steps)
    print(f"lraspp_mobilenet_v3_large: training {steps} steps on CPU ({SIZE} x {SIZE} pictures, "
          f"batches of {BATCH})", flush=True)
    start = time.time()
    shapes.fit(model, optimizer, schedule, steps, lambda: normalized_batch(rng), lambda x: model(x)["out"])
    # MobileNetV3 updates BatchNorm's statistics with momentum 0.01, too slowly to follow the weights.
    shapes.recalibrate_batch_norm(model, lambda: model(normalized_batch(rng)[0]), 20, 0.01)
    print(f"  trained in {time.time() - start:.0f} s", flush=True)
    return model.eval()


def main() -> None:
    args = shapes.arguments(default_steps=1000)
    shapes.write_test_set(args.out / "test", args.test_images, SIZE)
    key = shapes.source_key([Path(__file__).read_bytes()], args.steps)
    shapes.train_once("lraspp_mobilenet_v3_large", args.out / "segmenter.safetensors", key,
                      lambda: train(args.steps))


if __name__ == "__main__":
    main()
