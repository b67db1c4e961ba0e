"""The ops of fp_segmentation in plain PyTorch: what they compute, op for op
(the tests compare bit for bit, the benchmark compares speed)."""

from __future__ import annotations

import torch

# torchvision's palette (draw_segmentation_masks): class k gets (k * these) % 255.
_PALETTE_WEIGHTS = (2**25 - 1, 2**15 - 1, 2**21 - 1)


def default_palette(classes: int) -> torch.Tensor:
    weights = torch.tensor(_PALETTE_WEIGHTS)
    return (torch.arange(classes).reshape(classes, 1) * weights).remainder(255).to(torch.uint8)


def overlay(image, probs, palette=None, alpha=0.5):
    classes, height, width = probs.shape
    colours = default_palette(classes) if palette is None else palette
    flat = probs.reshape(classes, height * width)
    colour = colours.to(probs.device, probs.dtype).transpose(0, 1).matmul(flat)
    colour = colour.reshape(3, height, width)
    blended = image.to(probs.dtype) * (1.0 - alpha) + colour * alpha
    if image.dtype == torch.uint8:
        return blended.round().clamp(0, 255).to(torch.uint8)
    return blended.to(image.dtype)


def mask_low_confidence_(labels, confidence, threshold, ignore_index=255):
    labels.masked_fill_(confidence < threshold, ignore_index)


def label_map(logits, threshold=0.5, ignore_index=255):
    probs = torch.nn.functional.softmax(logits, -3)
    confidence, labels = probs.max(-3)
    mask_low_confidence_(labels, confidence, threshold, ignore_index)
    return labels, confidence
