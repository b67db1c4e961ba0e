"""Segmentation post-processing ops for PyTorch, written in C++ with flash_powder.

The ops live in a shared library that uses only libtorch's stable ABI: one
build loads into every torch from 2.11 on. Importing this package loads it
(``torch.ops.load_library``) and registers the fake kernels that
``torch.compile(fullgraph=True)`` and ``torch.export`` need::

    import fp_segmentation
    labels, confidence = fp_segmentation.label_map(logits, threshold=0.6)
    shown = fp_segmentation.overlay(image, logits.softmax(0), alpha=0.4)

The same ops are ``torch.ops.fp_segmentation.*``.
"""

from __future__ import annotations

import os
from pathlib import Path

import torch

__all__ = ["overlay", "label_map", "mask_low_confidence_", "library_path"]

_LIBRARY_NAME = "libfp_segmentation_ops.so"


def library_path() -> Path:
    """The op library this package loads: ``$FP_SEGMENTATION_LIBRARY`` when
    set (a build tree), else the one installed beside this file."""
    configured = os.environ.get("FP_SEGMENTATION_LIBRARY")
    return Path(configured) if configured else Path(__file__).with_name(_LIBRARY_NAME)


torch.ops.load_library(str(library_path()))
_ops = torch.ops.fp_segmentation


def _overlay_fake(image, probs, palette=None, alpha=0.5):
    return image.new_empty(image.shape)


def _label_map_fake(logits, threshold=0.5, ignore_index=255):
    shape = logits.shape[:-3] + logits.shape[-2:]
    return logits.new_empty(shape, dtype=torch.int64), logits.new_empty(shape)


def _mask_low_confidence_fake(labels, confidence, threshold, ignore_index=255):
    return None


_FAKES = {
    "fp_segmentation::overlay": _overlay_fake,
    "fp_segmentation::label_map": _label_map_fake,
    "fp_segmentation::mask_low_confidence_": _mask_low_confidence_fake,
}


# Registered from this module, fp_segmentation, which the op library names as
# the home of its fake kernels (m.set_python_module) where torch can be told,
# 2.13 and later; torch checks the name then. Releases before do not require
# the name (PyTorch's REQUIRES_SET_PYTHON_MODULE is off): the same call works.
for _name, _fake in _FAKES.items():
    torch.library.register_fake(_name, _fake)


def overlay(
    image: torch.Tensor,
    probs: torch.Tensor,
    palette: torch.Tensor | None = None,
    alpha: float = 0.5,
) -> torch.Tensor:
    """Blends each pixel's expected class colour onto an image.

    Args:
        image: ``[3, H, W]``, uint8 or floating point.
        probs: ``[K, H, W]`` class probabilities (floating point), e.g.
            ``logits.softmax(0)``.
        palette: ``[K, 3]`` colours of the K classes; by default torchvision's
            palette (``draw_segmentation_masks``).
        alpha: weight of the colours, in [0, 1].

    Returns:
        A new ``[3, H, W]`` image of ``image``'s dtype:
        ``image * (1 - alpha) + (palette.T @ probs) * alpha``, computed in
        ``probs``' dtype (uint8 images rounded and clamped to [0, 255]).
    """
    return _ops.overlay(image, probs, palette, alpha)


def label_map(
    logits: torch.Tensor, threshold: float = 0.5, ignore_index: int = 255
) -> tuple[torch.Tensor, torch.Tensor]:
    """The most likely class of each pixel and its probability.

    Args:
        logits: ``[K, H, W]`` or ``[B, K, H, W]`` class scores.
        threshold: pixels whose probability (softmax over the classes) is
            below this get ``ignore_index``.
        ignore_index: the label of those pixels.

    Returns:
        ``(labels, confidence)``: int64 labels and their probabilities,
        shaped like ``logits`` without the class dimension.
    """
    return _ops.label_map(logits, threshold, ignore_index)


def mask_low_confidence_(
    labels: torch.Tensor,
    confidence: torch.Tensor,
    threshold: float,
    ignore_index: int = 255,
) -> None:
    """In place: sets ``labels`` to ``ignore_index`` where ``confidence < threshold``.

    Args:
        labels: integer labels; written.
        confidence: floating point, the same shape as ``labels``.
    """
    _ops.mask_low_confidence_(labels, confidence, threshold, ignore_index)
