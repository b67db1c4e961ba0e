#!/usr/bin/env python3
"""Converts a torchvision model's pretrained weights to safetensors for
fp::vision::models (keys unchanged), and its class names to a text file:

    python tools/convert_torchvision_weights.py resnet50 IMAGENET1K_V2 resnet50.safetensors
    python tools/convert_torchvision_weights.py deeplabv3_resnet50 DEFAULT deeplab.safetensors

downloads the checkpoint (or takes it from torch hub's cache), writes
resnet50.safetensors and resnet50.safetensors.categories (one name a line, in
the order of the model's classes: ImageNet's for the classifiers, Pascal
VOC's, "__background__" first, for the segmentation models). Every
classification and segmentation builder of torchvision.models.list_models()
works; WEIGHTS defaults to DEFAULT. In C++:

    net.load_state_dict(fp::safetensors::MappedFile::open("resnet50.safetensors"));
    std::vector<std::string> names = fp::vision::models::read_categories("resnet50.safetensors");

torchvision's segmentation weights carry the auxiliary head where the model
has one: build fp::vision::models::segmentation's model with
`{.aux_loss = true}` (all but lraspp_mobilenet_v3_large) to load them.
"""
from __future__ import annotations

import sys
import types
from pathlib import Path


def import_torchvision_models():
    """torchvision.models without torchvision's compiled ops, which the
    torchvision wheel beside a CPU torch may not load; the models are Python."""
    sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))
    import torchvision.models as models

    return models


def weights_of(name: str, weights_name: str):
    """torchvision's weights enum member `weights_name` of builder `name`."""
    models = import_torchvision_models()
    if name not in models.list_models():
        sys.exit(f"convert_torchvision_weights: unknown model {name!r}; known: "
                 f"{', '.join(models.list_models())}")
    enum = models.get_model_weights(name)
    try:
        return enum[weights_name]
    except KeyError:
        sys.exit(f"convert_torchvision_weights: {name} has no weights {weights_name!r}; known: "
                 f"DEFAULT, {', '.join(member.name for member in enum)}")


def write(model, weights, out: str) -> None:
    """The state dict as `out` and the weights' categories as `out`.categories."""
    from safetensors.torch import save_file

    categories = weights.meta.get("categories")
    if not categories:
        sys.exit(f"convert_torchvision_weights: {weights} has no categories")
    save_file({key: value.contiguous() for key, value in model.state_dict().items()}, out)
    Path(out + ".categories").write_text("".join(f"{c}\n" for c in categories))


def main(argv: list[str]) -> None:
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    name, out = argv[0], argv[-1]
    weights_name = argv[1] if len(argv) == 3 else "DEFAULT"
    weights = weights_of(name, weights_name)
    model = import_torchvision_models().get_model(name, weights=weights)
    write(model, weights, out)


if __name__ == "__main__":
    main(sys.argv[1:])
