"""Tests for tools/export_aoti.py that need no AOTInductor compile (the
compiled path is tested end to end by tests/aoti and examples/aoti)."""

import argparse
import json

import pytest
import torch

import export_aoti


class TwoInputs(torch.nn.Module):
    def forward(self, x, y):
        return x + y.sum(), x.mean()


def exported(dynamic=True):
    batch = torch.export.Dim("batch", min=1, max=64)
    shapes = {"x": {0: batch}, "y": None} if dynamic else None
    return torch.export.export(TwoInputs(), (torch.randn(2, 4), torch.randn(3, dtype=torch.float64)),
                               dynamic_shapes=shapes)


def test_signature_records_dtypes_devices_and_dynamic_ranges():
    sig = export_aoti.signature(exported())
    assert sig["format"] == export_aoti.SIGNATURE_FORMAT
    assert sig["torch_version"] == torch.__version__
    x, y = sig["inputs"]
    assert (x["name"], x["dtype"], x["device"]) == ("x", "float32", "cpu")
    assert x["sizes"][1] == 4
    assert x["sizes"][0]["min"] == 1 and x["sizes"][0]["max"] == 64
    assert x["sizes"][0]["symbol"]
    assert (y["dtype"], y["sizes"]) == ("float64", [3])


def test_static_export_has_only_counts():
    x, _ = export_aoti.signature(exported(dynamic=False))["inputs"]
    assert x["sizes"] == [2, 4]


def test_add_signature_keeps_entries_and_adds_the_file(tmp_path):
    from torch.export.pt2_archive._package import PT2ArchiveReader, PT2ArchiveWriter
    source, target = tmp_path / "a.pt2", tmp_path / "b.pt2"
    with PT2ArchiveWriter(str(source)) as writer:
        writer.write_bytes("data/aotinductor/model/x.wrapper.so", b"\x7fELF...")
    export_aoti.add_signature(source, {"format": 1, "inputs": []}, target)
    reader = PT2ArchiveReader(str(target))
    assert reader.read_bytes("data/aotinductor/model/x.wrapper.so") == b"\x7fELF..."
    assert json.loads(reader.read_string(export_aoti.SIGNATURE_PATH)) == {"format": 1, "inputs": []}


def test_parse_example_and_refusals():
    generator = torch.Generator().manual_seed(0)
    tensor = export_aoti.parse_example("float32[2,3,8,8]", generator)
    assert tensor.shape == (2, 3, 8, 8) and tensor.dtype == torch.float32
    assert export_aoti.parse_example("int64[4]", generator).dtype == torch.int64
    for bad in ("float32", "floaty[2]", "float32[2,x]"):
        with pytest.raises(argparse.ArgumentTypeError):
            export_aoti.parse_example(bad, generator)


def test_parse_dynamic_shares_dims_by_name():
    shapes = export_aoti.parse_dynamic(["0:0:batch:1:64", "1:0:batch:1:64"], 2)
    assert shapes[0][0] is shapes[1][0]
    assert export_aoti.parse_dynamic([], 2) is None
    with pytest.raises(SystemExit, match="there are 2 inputs"):
        export_aoti.parse_dynamic(["5:0:batch:1:4"], 2)
    with pytest.raises(SystemExit, match="INPUT:DIM:NAME:MIN:MAX"):
        export_aoti.parse_dynamic(["0:batch"], 2)


def _fake_compile(monkeypatch):
    """Stands in for AOTInductor's compile: records the configs and grad mode."""
    seen = {}

    def compile_and_package(exported, package_path, inductor_configs):
        seen.update(configs=dict(inductor_configs), grad=torch.is_grad_enabled())
        with open(package_path, "wb"):
            pass

    monkeypatch.setattr(torch._inductor, "aoti_compile_and_package", compile_and_package)
    monkeypatch.setattr(export_aoti, "add_signature",
                        lambda package, sig, output: open(output, "wb").close())
    return seen


def test_cpu_models_are_frozen_by_default_and_compiled_without_grad(tmp_path, monkeypatch):
    seen = _fake_compile(monkeypatch)
    inputs = (torch.randn(2, 4), torch.randn(3, dtype=torch.float64))
    export_aoti.export_aoti(TwoInputs(), inputs, tmp_path / "frozen.pt2")
    # Inductor freezes only what it compiles with grad mode off.
    assert seen == {"configs": {"freezing": True}, "grad": False}
    export_aoti.export_aoti(TwoInputs(), inputs, tmp_path / "plain.pt2", freeze=False)
    assert seen["configs"] == {"freezing": False}
    export_aoti.export_aoti(TwoInputs(), inputs, tmp_path / "explicit.pt2",
                            inductor_configs={"freezing": False})
    assert seen["configs"] == {"freezing": False}


def test_only_cpu_models_freeze_by_default():
    assert export_aoti.freezes_by_default((torch.randn(2), 3))
    assert not export_aoti.freezes_by_default((torch.randn(2), torch.empty(2, device="meta")))


@pytest.mark.parametrize("flags, expected", [([], None), (["--freeze"], True),
                                             (["--no-freeze"], False)])
def test_command_line_freeze_flags(tmp_path, monkeypatch, flags, expected):
    model = tmp_path / "model.py"
    model.write_text("import torch\n\ndef make_model():\n    return torch.nn.Linear(4, 2)\n")
    calls = []
    monkeypatch.setattr(export_aoti, "export_aoti",
                        lambda module, examples, output, **kwargs: calls.append(kwargs))
    export_aoti.main([str(model), "-o", str(tmp_path / "m.pt2"), "--example-input", "float32[2,4]",
                      *flags])
    assert calls[0]["freeze"] is expected


def test_freeze_and_no_freeze_exclude_each_other(tmp_path):
    with pytest.raises(SystemExit):
        export_aoti.main(["m.py", "-o", str(tmp_path / "m.pt2"), "--example-input", "float32[2]",
                          "--freeze", "--no-freeze"])
