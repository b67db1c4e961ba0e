"""Tests for tools/nn_coverage.py: which torch.nn names count as covered."""

import shutil
from pathlib import Path

import pytest

import nn_coverage as nc

REPO = Path(__file__).resolve().parents[2]


def test_losses_lazy_modules_and_listed_names_are_left_out_with_a_reason():
    table = nc.rows(["CrossEntropyLoss", "LazyLinear", "DataParallel", "LSTM"],
                    ["mse_loss", "cross_entropy", "has_torch_function", "relu"])
    left_out = {row.torch_name: row.note for row in table if row.spelling is None}
    assert set(left_out) == {"CrossEntropyLoss", "LazyLinear", "DataParallel", "mse_loss",
                             "cross_entropy", "has_torch_function"}
    assert all(left_out.values())
    spelled = {row.torch_name: row.spelling for row in table if row.spelling}
    assert spelled == {"LSTM": "fp::nn::LSTM", "relu": "fp::functional::relu"}


def test_a_spelling_of_its_own_replaces_the_namespace_default():
    (row,) = nc.rows(["RNNBase"], [])
    assert row.spelling == "fp::nn::detail::RNNBase"


def test_functions_exclude_classes_and_typing_names():
    import typing

    assert nc.is_public_function(len)
    assert not nc.is_public_function(int)
    assert not nc.is_public_function(typing.Optional)


@pytest.mark.skipif(shutil.which("c++") is None, reason="needs a C++ compiler")
def test_the_compiler_names_what_flash_powder_lacks():
    table = nc.rows(["LSTM", "NoSuchLayer"], ["relu", "no_such_function"])
    complaints = nc.compile_names(table, "c++", [str(REPO / "include"), *generated_includes()])
    assert set(complaints.splitlines()) == {"fp::nn::NoSuchLayer",
                                            "fp::functional::no_such_function"}


def generated_includes() -> list[str]:
    """The build's generated headers (flash_powder/config.h), where a build has them."""
    return [str(path) for path in REPO.glob("build*/generated") if path.is_dir()][:1]
