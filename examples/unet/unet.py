"""The demo's U-Net (used by train.py and reference.py; examples/unet/unet.h
builds the same network in C++). It segments examples/shapes' synthetic
pictures: classes 0 background, 1 disc, 2 square, 3 triangle.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "shapes"))
from shapes import CLASSES  # noqa: E402


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
