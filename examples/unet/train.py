#!/usr/bin/env python3
"""Trains the demo's U-Net (unet.py) on CPU and writes the test pictures.

    train.py OUT_DIR [--steps N]

Writes OUT_DIR/unet.safetensors (the state dict; kept while unet.py and this
file are unchanged: OUT_DIR/unet.key) and OUT_DIR/test/image_NN.png with
their true class masks OUT_DIR/test/mask_NN.png (class index per pixel),
from a seed, so every run makes the same pictures and, on the same machine,
the same network.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import sys
import time
from pathlib import Path

import numpy as np
import torch
from PIL import Image
from safetensors.torch import save_file

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import unet  # noqa: E402

TEST_IMAGES, TEST_SIZE, TRAIN_SIZE = 8, 48, 48


def source_key(steps: int) -> str:
    """What the trained weights depend on: the network, the data, the training loop."""
    digest = hashlib.sha256((HERE / "unet.py").read_bytes() + inspect.getsource(train).encode())
    return f"{digest.hexdigest()[:16]}-{steps}"


def write_test_set(out: Path, count: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2026)
    for index in range(count):
        picture, mask = unet.sample(rng, TEST_SIZE)
        Image.fromarray(picture).save(out / f"image_{index:02}.png")
        Image.fromarray(mask).save(out / f"mask_{index:02}.png")


def train(steps: int) -> torch.nn.Module:
    # One thread: the network is small, so more threads mostly wait on each
    # other (and on a busy machine much more than that); one also makes the
    # result the same wherever it is trained.
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = unet.UNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, total_steps=steps)
    start = time.time()
    for step in range(steps):
        images, masks = unet.batch(rng, 8, TRAIN_SIZE)
        loss = torch.nn.functional.cross_entropy(model(images), masks)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        if step % 100 == 0 or step == steps - 1:
            print(f"  step {step:4}  loss {loss.item():.3f}  ({time.time() - start:.0f} s)", flush=True)
    return model.eval()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--test-images", type=int, default=TEST_IMAGES)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    write_test_set(args.out / "test", args.test_images)
    weights, key_file = args.out / "unet.safetensors", args.out / "unet.key"
    key = source_key(args.steps)
    if weights.exists() and key_file.exists() and key_file.read_text() == key:
        print(f"U-Net: trained weights are in {weights}")
        return
    print(f"U-Net: training {args.steps} steps on CPU")
    model = train(args.steps)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(weights) + ".tmp")
    Path(str(weights) + ".tmp").rename(weights)
    key_file.write_text(key)
    print(f"U-Net: wrote {weights}")


if __name__ == "__main__":
    main()
