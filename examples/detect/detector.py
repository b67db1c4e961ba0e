"""What the detect demo's training (train.py) and its PyTorch side
(reference.py) share: the network, built the same way in both, and the true
boxes of the shapes.

The network is torchvision's fasterrcnn_mobilenet_v3_large_320_fpn for the
shapes' classes, at the pictures' own size (min_size = max_size = SIZE: the
transform does not enlarge them to 320), with its inference settings
otherwise; the C++ program builds the same (examples/detect/main.cpp).
"""

from __future__ import annotations

import numpy as np
import torch
from torchvision.models.detection import fasterrcnn_mobilenet_v3_large_320_fpn

import shapes

# Pictures of 160 x 160: small enough for a training step (4 pictures) in
# about a quarter of a second on one core, large enough for the anchors (32
# to 512 pixels) to fit the shapes (21 to 38 pixels in radius).
SIZE = 160
# Shapes showing fewer pixels than this (covered by later ones) are not asked
# for: the smallest whole shape, a triangle of radius 21, has about 570.
MIN_PIXELS = 100


def model(training: bool = False) -> torch.nn.Module:
    """The detector, seeded by the caller's torch.manual_seed. Training
    samples fewer proposals and regions than torchvision's defaults (its
    box head's cost grows with them); those settings do not act in eval mode."""
    extra = {"rpn_pre_nms_top_n_train": 300, "rpn_post_nms_top_n_train": 150,
             "box_batch_size_per_image": 16, "box_positive_fraction": 0.5} if training else {}
    return fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None,
                                                 num_classes=len(shapes.CLASSES), min_size=SIZE,
                                                 max_size=SIZE, **extra)


def true_boxes(mask: np.ndarray, objects: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """The boxes (float [K, 4], x1 y1 x2 y2 around the pixels each shape
    still shows) and classes (int64 [K]) of a picture's shapes."""
    boxes, labels = [], []
    for index in range(1, int(objects.max()) + 1):
        ys, xs = np.nonzero(objects == index)
        if len(xs) < MIN_PIXELS:
            continue
        kind = int(mask[ys[0], xs[0]])
        boxes.append([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1])
        labels.append(kind)
    return (torch.tensor(boxes, dtype=torch.float32).reshape(-1, 4),
            torch.tensor(labels, dtype=torch.int64))
