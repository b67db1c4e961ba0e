#!/usr/bin/env python3
"""The segment demo's PyTorch side: the trained lraspp_mobilenet_v3_large on
the test pictures.

    reference.py OUT_DIR

Reads OUT_DIR/segmenter.safetensors and OUT_DIR/test/image_NN.png the way the
C++ program does (decoded RGB, torchvision's SemanticSegmentation preset
without resizing: scaled to [0, 1], normalised), runs the network in eval
mode under torch.no_grad() and writes its "out" logits to
OUT_DIR/reference.safetensors, for fp_segment to compare with its own.
"""

import sys
import types
from pathlib import Path

import torch
from PIL import Image
from safetensors.torch import load_file, save_file

sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))
import torchvision.transforms.v2.functional as F  # noqa: E402
from torchvision.models.segmentation import lraspp_mobilenet_v3_large  # noqa: E402
from torchvision.transforms._presets import SemanticSegmentation  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "shapes"))
import shapes  # noqa: E402


def main() -> None:
    out = Path(sys.argv[1])
    model = lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=len(shapes.CLASSES))
    model.load_state_dict(load_file(str(out / "segmenter.safetensors")))
    model.eval()
    preset = SemanticSegmentation(resize_size=None)
    paths = sorted((out / "test").glob("image_*.png"))
    images = torch.stack([preset(F.pil_to_tensor(Image.open(p).convert("RGB"))) for p in paths])
    with torch.no_grad():
        logits = model(images)["out"]
    save_file({"logits": logits.contiguous()}, str(out / "reference.safetensors"))
    print(f"PyTorch: lraspp_mobilenet_v3_large logits for {len(paths)} test pictures in "
          f"{out / 'reference.safetensors'}")


if __name__ == "__main__":
    main()
