#!/usr/bin/env python3
"""Converts a torchvision classifier's pretrained weights to safetensors for
fp::vision::models (keys unchanged), and its class names to a text file:

    python tools/convert_torchvision_weights.py resnet50 IMAGENET1K_V2 resnet50.safetensors

downloads the checkpoint (or takes it from torch hub's cache), writes
resnet50.safetensors and resnet50.safetensors.categories (one name a line).
In C++: `net.load_state_dict(fp::safetensors::MappedFile::open("resnet50.safetensors"))`.
"""
import sys
from pathlib import Path

import torchvision
from safetensors.torch import save_file

name, weights_name, out = sys.argv[1:4]
weights = torchvision.models.get_model_weights(name)[weights_name]
model = torchvision.models.get_model(name, weights=weights)
save_file({key: value.contiguous() for key, value in model.state_dict().items()}, out)
Path(out + ".categories").write_text("".join(f"{c}\n" for c in weights.meta["categories"]))
