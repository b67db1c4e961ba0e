#!/usr/bin/env python3
"""The demo's PyTorch side: the trained U-Net on the test pictures.

    reference.py OUT_DIR

Reads OUT_DIR/unet.safetensors and OUT_DIR/test/image_NN.png the way the C++
program does (decoded RGB, scaled to [0, 1] like torchvision's
to_dtype(scale=True)), runs the network in eval mode and writes the logits to
OUT_DIR/reference.safetensors, for fp_unet to compare with its own.
"""

import sys
import types
from pathlib import Path

import torch
from PIL import Image
from safetensors.torch import load_file, save_file

sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))
import torchvision.transforms.v2.functional as F  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import unet  # noqa: E402


def main() -> None:
    out = Path(sys.argv[1])
    model = unet.UNet().eval()
    model.load_state_dict(load_file(str(out / "unet.safetensors")))
    paths = sorted((out / "test").glob("image_*.png"))
    images = torch.stack([F.pil_to_tensor(Image.open(p).convert("RGB")) for p in paths])
    with torch.no_grad():
        logits = model(F.to_dtype(images, torch.float32, scale=True))
    save_file({"logits": logits.contiguous()}, str(out / "reference.safetensors"))
    print(f"PyTorch: U-Net logits for {len(paths)} test pictures in {out / 'reference.safetensors'}")


if __name__ == "__main__":
    main()
