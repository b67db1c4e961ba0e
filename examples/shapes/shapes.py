"""The synthetic segmentation task of the demo's segmenters (examples/unet,
examples/segment): pictures of a few filled shapes on a textured, noisy
background, and the class of each pixel; and what their training scripts
share: the test pictures on disk and the cached, idempotent training.

Classes: 0 background, 1 disc, 2 square, 3 triangle. Pictures are [H, W, 3]
uint8, masks [H, W] uint8 (later shapes cover earlier ones).
"""

from __future__ import annotations

import argparse
import hashlib
import math
import time
from pathlib import Path
from typing import Callable

import numpy as np
import torch
from PIL import Image
from safetensors.torch import save_file

CLASSES = ["background", "disc", "square", "triangle"]
SOURCE = Path(__file__).resolve()


def background(rng: np.random.Generator, size: int) -> np.ndarray:
    """A textured background: random stripes and blobs of colour, plus noise."""
    y, x = np.mgrid[0:size, 0:size].astype(np.float64)
    base = rng.uniform(40, 215, 3)
    picture = np.empty((size, size, 3))
    for c in range(3):
        angle, freq = rng.uniform(0, math.pi), rng.uniform(0.15, 0.6)
        stripes = np.sin(freq * (x * math.cos(angle) + y * math.sin(angle)) + rng.uniform(0, 6.3))
        blobs = np.sin(x / rng.uniform(6, 14) + rng.uniform(0, 6.3)) * np.cos(y / rng.uniform(6, 14))
        picture[:, :, c] = base[c] + 22 * stripes + 18 * blobs
    return picture


def shape_mask(kind: int, size: int, cy: float, cx: float, r: float, angle: float) -> np.ndarray:
    y, x = np.mgrid[0:size, 0:size].astype(np.float64) + 0.5
    dy, dx = y - cy, x - cx
    if kind == 1:  # disc
        return dy * dy + dx * dx <= r * r
    # rotate into the shape's frame
    u = dx * math.cos(angle) + dy * math.sin(angle)
    v = -dx * math.sin(angle) + dy * math.cos(angle)
    if kind == 2:  # square of half-side r
        return (np.abs(u) <= r * 0.85) & (np.abs(v) <= r * 0.85)
    # equilateral triangle inscribed in the circle of radius r
    inside = np.ones_like(u, dtype=bool)
    for k in range(3):
        a = angle + math.pi / 2 + k * 2 * math.pi / 3
        inside &= dx * math.cos(a) + dy * math.sin(a) >= -r / 2
    return inside


def sample_objects(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One picture ([H, W, 3] uint8), its class mask ([H, W] uint8) and the
    object each pixel shows ([H, W] int64: 0 the background, k the k-th shape drawn)."""
    picture = background(rng, size)
    mask = np.zeros((size, size), dtype=np.uint8)
    objects = np.zeros((size, size), dtype=np.int64)
    for index in range(1, int(rng.integers(1, 4)) + 1):
        kind = int(rng.integers(1, 4))
        r = rng.uniform(size * 0.13, size * 0.24)
        cy, cx = rng.uniform(r, size - r, 2)
        inside = shape_mask(kind, size, cy, cx, r, rng.uniform(0, 2 * math.pi))
        colour = rng.uniform(0, 255, 3)
        picture[inside] = colour
        mask[inside] = kind
        objects[inside] = index
    picture += rng.normal(0, 8, picture.shape)
    return np.clip(picture, 0, 255).astype(np.uint8), mask, objects


def sample(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """One picture ([H, W, 3] uint8) and its class mask ([H, W] uint8)."""
    picture, mask, _ = sample_objects(rng, size)
    return picture, mask


def batch(rng: np.random.Generator, count: int, size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """`count` pictures as float [N, 3, H, W] in [0, 1] and their masks as int64 [N, H, W]."""
    pictures, masks = zip(*(sample(rng, size) for _ in range(count)))
    images = torch.from_numpy(np.stack(pictures)).permute(0, 3, 1, 2).float() / 255
    return images, torch.from_numpy(np.stack(masks)).long()


def write_test_set(out: Path, count: int, size: int) -> None:
    """OUT/image_NN.png and their class masks OUT/mask_NN.png (class index
    per pixel), from a seed of their own: the same pictures on every run."""
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2026)
    for index in range(count):
        picture, mask = sample(rng, size)
        Image.fromarray(picture).save(out / f"image_{index:02}.png")
        Image.fromarray(mask).save(out / f"mask_{index:02}.png")


def arguments(default_steps: int) -> argparse.Namespace:
    """The command line of a training script: OUT_DIR [--steps N] [--test-images K]."""
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--steps", type=int, default=default_steps)
    parser.add_argument("--test-images", type=int, default=8)
    return parser.parse_args()


def fit(model: torch.nn.Module, optimizer: torch.optim.Optimizer,
        schedule: torch.optim.lr_scheduler.LRScheduler, steps: int,
        next_batch: Callable[[], tuple[torch.Tensor, torch.Tensor]],
        scores: Callable[[torch.Tensor], torch.Tensor]) -> None:
    """`steps` steps of per-pixel cross-entropy on `next_batch()`'s pictures
    and masks, `scores(pictures)` being the model's [N, C, H, W] scores;
    prints the loss every 100 steps."""
    model.train()
    start = time.time()
    for step in range(steps):
        images, masks = next_batch()
        loss = torch.nn.functional.cross_entropy(scores(images), masks)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        if step % 100 == 0 or step == steps - 1:
            print(f"  step {step:4}  loss {loss.item():.3f}  ({time.time() - start:.0f} s)", flush=True)


def recalibrate_batch_norm(model: torch.nn.Module, run_batch: Callable[[], object], batches: int,
                           momentum: float) -> None:
    """Sets BatchNorm's running statistics to the trained network's: they lag
    behind weights that changed for a few hundred steps (in eval mode the
    network would see other features than it learnt). `run_batch()` runs
    (part of) the model on a new batch; `momentum` is the layers' own, restored."""
    norms = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None  # a plain average over the batches
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            run_batch()
    for norm in norms:
        norm.momentum = momentum


def source_key(sources: list[bytes], steps: int) -> str:
    """What trained weights depend on: this file (the data), the network's and
    the training loop's source, and the number of steps."""
    digest = hashlib.sha256(SOURCE.read_bytes())
    for source in sources:
        digest.update(source)
    return f"{digest.hexdigest()[:16]}-{steps}"


def train_once(name: str, weights: Path, key: str, train: Callable[[], torch.nn.Module]) -> None:
    """Writes `train()`'s state dict to `weights` unless the weights there were
    trained from the same `key` (kept beside them in WEIGHTS.key): a run with
    nothing changed trains nothing. The file appears whole or not at all."""
    key_file = weights.with_suffix(".key")
    if weights.exists() and key_file.exists() and key_file.read_text() == key:
        print(f"{name}: trained weights are in {weights}")
        return
    model = train()
    partial = weights.with_name(weights.name + ".tmp")
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(partial))
    partial.rename(weights)
    key_file.write_text(key)
    print(f"{name}: wrote {weights}")
