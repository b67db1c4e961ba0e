"""The demo's U-Net and its synthetic segmentation task (shared by train.py
and reference.py; examples/unet/unet.h builds the same network in C++).

Classes: 0 background, 1 disc, 2 square, 3 triangle. Images are [3, H, W]
uint8 pictures of a few filled shapes on a textured, noisy background; the
mask is the class of each pixel (later shapes cover earlier ones).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

CLASSES = ["background", "disc", "square", "triangle"]


def double_conv(in_channels: int, out_channels: int) -> nn.Sequential:
    """(3x3 conv, BatchNorm, ReLU) twice: keys "0.weight", "1.running_mean", "3.weight", ..."""
    return nn.Sequential(
        nn.Conv2d(in_channels, out_channels, 3, padding=1, bias=False),
        nn.BatchNorm2d(out_channels),
        nn.ReLU(inplace=True),
        nn.Conv2d(out_channels, out_channels, 3, padding=1, bias=False),
        nn.BatchNorm2d(out_channels),
        nn.ReLU(inplace=True),
    )


class UNet(nn.Module):
    """Two levels down (max-pool), two up: the deeper with a transposed
    convolution, the other with bilinear upsampling; skips joined by cat.
    Height and width must be multiples of 4."""

    def __init__(self, width: int = 8, classes: int = len(CLASSES)):
        super().__init__()
        self.inc = double_conv(3, width)
        self.down1 = nn.Sequential(nn.MaxPool2d(2), double_conv(width, 2 * width))
        self.down2 = nn.Sequential(nn.MaxPool2d(2), double_conv(2 * width, 4 * width))
        self.up1 = nn.ConvTranspose2d(4 * width, 2 * width, 2, stride=2)
        self.conv1 = double_conv(4 * width, 2 * width)
        self.up2 = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.conv2 = double_conv(3 * width, width)
        self.outc = nn.Conv2d(width, classes, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        y = self.conv1(torch.cat([self.up1(x3), x2], dim=1))
        y = self.conv2(torch.cat([self.up2(y), x1], dim=1))
        return self.outc(y)


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


def sample(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """One picture ([H, W, 3] uint8) and its class mask ([H, W] uint8)."""
    picture = background(rng, size)
    mask = np.zeros((size, size), dtype=np.uint8)
    for _ in range(rng.integers(1, 4)):
        kind = int(rng.integers(1, 4))
        r = rng.uniform(size * 0.13, size * 0.24)
        cy, cx = rng.uniform(r, size - r, 2)
        inside = shape_mask(kind, size, cy, cx, r, rng.uniform(0, 2 * math.pi))
        colour = rng.uniform(0, 255, 3)
        picture[inside] = colour
        mask[inside] = kind
    picture += rng.normal(0, 8, picture.shape)
    return np.clip(picture, 0, 255).astype(np.uint8), mask


def batch(rng: np.random.Generator, count: int, size: int) -> tuple[torch.Tensor, torch.Tensor]:
    pictures, masks = zip(*(sample(rng, size) for _ in range(count)))
    images = torch.from_numpy(np.stack(pictures)).permute(0, 3, 1, 2).float() / 255
    return images, torch.from_numpy(np.stack(masks)).long()
