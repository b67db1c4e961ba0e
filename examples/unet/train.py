#!/usr/bin/env python3
"""Trains the demo's U-Net (unet.py) on CPU and writes the test pictures.

    train.py OUT_DIR [--steps N]

Writes OUT_DIR/unet.safetensors (the state dict; kept while unet.py, the
training loop and the data, examples/shapes/shapes.py, are unchanged:
OUT_DIR/unet.key) and OUT_DIR/test/image_NN.png with their true class masks
OUT_DIR/test/mask_NN.png (class index per pixel), from a seed, so every run
makes the same pictures and, on the same machine, the same network.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "shapes")]
import shapes  # noqa: E402
import unet  # noqa: E402

TEST_SIZE, TRAIN_SIZE = 48, 48


def train(steps: int) -> torch.nn.Module:
    # One thread: the network is small, so more threads mostly wait on each
    # other (and on a busy machine much more than that); one also makes the
    # result the same wherever it is trained.
    print(f"U-Net: training {steps} steps on CPU", flush=True)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = unet.UNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, total_steps=steps)
    shapes.fit(model, optimizer, schedule, steps, lambda: shapes.batch(rng, 8, TRAIN_SIZE), model)
    return model.eval()


def main() -> None:
    args = shapes.arguments(default_steps=1500)
    shapes.write_test_set(args.out / "test", args.test_images, TEST_SIZE)
    # What the weights depend on: the network, the data (shapes.py), the training loop.
    key = shapes.source_key([(HERE / "unet.py").read_bytes(), inspect.getsource(train).encode()], args.steps)
    shapes.train_once("U-Net", args.out / "unet.safetensors", key, lambda: train(args.steps))


if __name__ == "__main__":
    main()
