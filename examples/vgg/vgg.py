#!/usr/bin/env python3
"""The VGG example's Python side: torchvision's vgg11 on one image.

    vgg.py WEIGHTS IMAGE OUT.safetensors

Makes WEIGHTS (torchvision's vgg11 with seeded random weights; nothing can be
downloaded here) unless it exists: a converted pretrained checkpoint
(tools/convert_torchvision_weights.py vgg11 IMAGENET1K_V1 WEIGHTS) is used as
it is. Makes IMAGE (a seeded picture) unless it exists. Then reads IMAGE,
preprocesses it with weights.transforms() (ImageClassification(crop_size=224)),
runs vgg11, prints the top-5 classes and writes the preprocessed input and the
logits to OUT for the C++ program to compare with its own.
"""

import sys
import types
from pathlib import Path

import numpy as np
import torch
from PIL import Image
from safetensors.torch import load_file, save_file

# torchvision's models and transforms are Python; its compiled ops (which
# the wheel beside a CPU torch cannot load) are not needed.
sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))
import torchvision.models as models  # noqa: E402
import torchvision.transforms.functional as F  # noqa: E402
from torchvision.transforms._presets import ImageClassification  # noqa: E402


def make_weights(path: Path) -> None:
    torch.manual_seed(11)
    model = models.vgg11(weights=None)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(path))


def make_image(path: Path) -> None:
    rng = np.random.default_rng(11)
    y, x = np.mgrid[0:300, 0:400].astype(np.float64)
    planes = [127 + 100 * np.sin(x / (9 + 4 * c) + c) * np.cos(y / (13 + 2 * c)) for c in range(3)]
    pixels = np.stack(planes, -1) + rng.normal(0, 8, (300, 400, 3))
    Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(path)


def main() -> None:
    weights, image_path, out = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    if not weights.exists():
        make_weights(weights)
    if not image_path.exists():
        make_image(image_path)
    model = models.vgg11(weights=None).eval()
    model.load_state_dict(load_file(str(weights)))
    image = F.pil_to_tensor(Image.open(image_path).convert("RGB"))
    batch = ImageClassification(crop_size=224)(image).unsqueeze(0)
    with torch.no_grad():
        logits = model(batch)
    scores, classes = logits.softmax(1).topk(5)
    print("python: top-5 classes " + ", ".join(f"{c} ({s:.4f})" for c, s in zip(classes[0].tolist(), scores[0].tolist())))
    save_file({"input": batch.contiguous(), "logits": logits.contiguous()}, out)


if __name__ == "__main__":
    main()
