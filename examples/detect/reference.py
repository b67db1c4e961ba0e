#!/usr/bin/env python3
"""The detect demo's PyTorch side: the trained fasterrcnn_mobilenet_v3_large_320_fpn
on the test pictures.

    reference.py OUT_DIR

Runs under the Python with torchvision's compiled ops. Reads
OUT_DIR/detector.safetensors and OUT_DIR/test/image_NN.png the way the C++
program does (decoded RGB, scaled to [0, 1] floats), runs the network in
eval mode under torch.no_grad() and writes each picture's detections
(boxes_NN, labels_NN, scores_NN) to OUT_DIR/reference.safetensors, for
fp_detect to compare with its own.
"""

import sys
from pathlib import Path

import torch
from PIL import Image
from safetensors.torch import load_file, save_file

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "shapes"))
import torchvision.transforms.v2.functional as F  # noqa: E402

import detector  # noqa: E402


def main() -> None:
    out = Path(sys.argv[1])
    model = detector.model()
    model.load_state_dict(load_file(str(out / "detector.safetensors")))
    model.eval()
    paths = sorted((out / "test").glob("image_*.png"))
    images = [F.to_dtype(F.pil_to_tensor(Image.open(p).convert("RGB")), torch.float32, scale=True) for p in paths]
    with torch.no_grad():
        found = model(images)
    detections = {}
    for path, one in zip(paths, found):
        number = path.stem.removeprefix("image_")
        for key in ("boxes", "labels", "scores"):
            detections[f"{key}_{number}"] = one[key].contiguous()
    save_file(detections, str(out / "reference.safetensors"))
    print(f"PyTorch: fasterrcnn_mobilenet_v3_large_320_fpn's detections on {len(paths)} test pictures in "
          f"{out / 'reference.safetensors'}")


if __name__ == "__main__":
    main()
