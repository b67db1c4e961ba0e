"""Tests for tools/convert_torchvision_weights.py, offline: the weights'
metadata is torchvision's, the model the one its builder makes without them."""

import pytest
from safetensors.torch import load_file

import convert_torchvision_weights as convert


@pytest.mark.parametrize("name", ["squeezenet1_1", "lraspp_mobilenet_v3_large"])
def test_writes_the_state_dict_and_the_categories(tmp_path, name):
    models = convert.import_torchvision_models()
    weights = convert.weights_of(name, "DEFAULT")
    backbone = {"weights_backbone": None} if name in models.list_models(module=models.segmentation) else {}
    model = models.get_model(name, weights=None, num_classes=len(weights.meta["categories"]), **backbone)
    out = str(tmp_path / f"{name}.safetensors")
    convert.write(model, weights, out)
    assert sorted(load_file(out)) == sorted(model.state_dict())  # the file sorts its keys
    lines = (tmp_path / f"{name}.safetensors.categories").read_text().splitlines()
    assert lines == list(weights.meta["categories"])
    assert len(lines) == (21 if name.startswith("lraspp") else 1000)


def test_every_builder_has_weights_with_categories():
    models = convert.import_torchvision_models()
    names = models.list_models(module=models) + models.list_models(module=models.segmentation)
    assert len(names) == 86
    for name in names:
        assert convert.weights_of(name, "DEFAULT").meta["categories"], name


def test_unknown_names_are_refused_with_the_known_ones():
    with pytest.raises(SystemExit, match="unknown model 'resnet51'; known: alexnet"):
        convert.weights_of("resnet51", "DEFAULT")
    with pytest.raises(SystemExit, match="resnet50 has no weights 'V3'; known: DEFAULT, IMAGENET1K_V1"):
        convert.weights_of("resnet50", "V3")
