"""Tests for tools/torch_schemas.py: which torch release has which op."""

import zipfile

import pytest

import torch_schemas as ts


def yaml(*schemas: str) -> str:
    """A native_functions.yaml with these schemas."""
    return "".join(f"- func: {s}\n  variants: function\n\n" for s in schemas)


RELEASES = {
    (2, 11, 0): yaml("flip(Tensor self, int[] dims) -> Tensor", "qr(Tensor self) -> Tensor"),
    (2, 12, 1): yaml("flip(Tensor self, int[] dims) -> Tensor", "qr(Tensor self) -> Tensor",
                     "storage_offset(Tensor self) -> int"),
    (2, 14, 1): yaml("flip(Tensor self, int[] dims) -> Tensor",
                     "storage_offset(Tensor self) -> int", "mm.out(Tensor self) -> Tensor"),
}


def test_derives_first_release_and_removal_of_each_overload():
    ops = ts.derive_ops_by_release(RELEASES)
    assert ops.releases == [(2, 11, 0), (2, 12, 1), (2, 14, 1)]
    assert ops.changes == {
        "storage_offset": ts.Availability((2, 12)),
        "qr": ts.Availability((2, 11), (2, 14)),
        "mm.out": ts.Availability((2, 14)),
    }
    assert ops.availability("flip") == ts.Availability((2, 11))


def test_an_overload_that_comes_back_is_refused():
    releases = dict(RELEASES)
    releases[(2, 15, 0)] = yaml("qr(Tensor self) -> Tensor")
    with pytest.raises(ValueError, match="qr is missing from torch 2.14.1 but back in 2.15.0"):
        ts.derive_ops_by_release(releases)


def test_the_data_file_reads_back_as_written(tmp_path):
    ops = ts.derive_ops_by_release(RELEASES)
    path = tmp_path / "ops.txt"
    path.write_text(ts.render_ops_by_release(ops))
    assert ts.read_ops_by_release(path) == ops
    assert "qr             2.11   2.14" in path.read_text()


def test_check_refuses_data_that_misses_the_installed_release():
    ops = ts.derive_ops_by_release(RELEASES)
    with pytest.raises(SystemExit, match="does not cover the installed torch 2.13.0"):
        ts.check_ops_by_release(ops, (2, 13, 0), [])
    with pytest.raises(SystemExit, match="says qr is not in torch 2.14.1"):
        ts.check_ops_by_release(ops, (2, 14, 1), ["qr(Tensor self) -> Tensor"])
    ts.check_ops_by_release(ops, (2, 12, 0), ["qr(Tensor self) -> Tensor"])


def test_reads_wheels_and_their_versions(tmp_path):
    wheel = tmp_path / "torch-2.12.1+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(ts.YAML_IN_WHEEL, RELEASES[(2, 12, 1)])
    assert ts.wheel_version(wheel) == (2, 12, 1)
    assert ts.yaml_of_release(wheel) == RELEASES[(2, 12, 1)]
    with pytest.raises(ValueError, match="not named like a torch wheel"):
        ts.wheel_version(tmp_path / "numpy-2.0.0.whl")


def test_the_committed_data_covers_the_supported_releases():
    ops = ts.read_ops_by_release()
    assert ops.oldest == (2, 11)
    assert ops.availability("_upsample_lanczos2d_aa") == ts.Availability((2, 12))
    assert ops.availability("add.Tensor") == ts.Availability((2, 11))


def test_structured_delegates_are_the_functional_forms_of_structured_kernels():
    fresh = ts.structured_delegates(ts.torch_dir())
    assert {"mul.Tensor", "exp", "argmax", "cat", "sum.dim_IntList"} <= fresh
    # Composite ops may hand an input back; out= forms write their argument.
    assert not {"atleast_1d", "contiguous", "type_as", "mul.out", "_unsafe_view"} & fresh
