"""The ops generate_ops.py lists in ALWAYS_FRESH return a newly allocated
tensor on every input: called from PyTorch on inputs where a composite could
hand `self` back (already contiguous, already non-negative, a mask of all
False, a 0-dim tensor, an empty one, one element, other dtypes), the result
never shares storage with an argument. The fp::aten wrappers of these ops skip
their check for a handed-back input, so a wrong entry would let an fp::Tensor
alias another."""

import pytest
import torch

import generate_ops


def tensors():
    """Inputs of many kinds, named for messages."""
    base = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4) - 11
    yield "contiguous", base
    yield "non-negative", base.abs()
    yield "transposed", base.transpose(0, 2)
    yield "offset row", base[1]
    yield "stepped", base[:, :, ::2]
    yield "0-dim", torch.tensor(2.5)
    yield "one element", torch.tensor([3.0])
    yield "empty", torch.zeros(0, 3)
    yield "float64", base.double()
    yield "int64", base.long()
    yield "bool", base > 0


def calls(x):
    """Arguments for each listed op: (op key, positional args, keyword args)."""
    float_x = x if x.is_floating_point() else x.float()
    last = -1 if x.dim() > 0 else 0
    yield "sum", (x,), {}
    yield "sum", (x,), {"dtype": torch.float64}
    yield "mean", (float_x,), {}
    yield "mean", (float_x,), {"dtype": torch.float32}
    yield "prod", (x,), {}
    yield "clone", (x,), {}
    yield "clone", (x,), {"memory_format": torch.contiguous_format}
    yield "clone", (x,), {"memory_format": torch.preserve_format}
    if x.dtype != torch.bool:
        yield "relu", (x,), {}
    yield "where.self", (x > 0 if x.dtype != torch.bool else x, x, x), {}
    yield "where.self", (torch.ones_like(x, dtype=torch.bool), x, torch.zeros((), dtype=x.dtype)), {}
    yield "masked_fill.Tensor", (x, torch.zeros_like(x, dtype=torch.bool),
                                 torch.zeros((), dtype=x.dtype)), {}
    yield "masked_fill.Tensor", (x, torch.ones_like(x, dtype=torch.bool),
                                 torch.ones((), dtype=x.dtype)), {}
    yield "softmax.int", (float_x, last), {}
    yield "softmax.int", (float_x, last, torch.float32), {}
    yield "log_softmax.int", (float_x, last), {}
    yield "log_softmax.int", (float_x, last, float_x.dtype), {}


def aten_op(key: str):
    name, _, overload = key.partition(".")
    return getattr(getattr(torch.ops.aten, name), overload or "default")


def shares_storage(out: torch.Tensor, argument) -> bool:
    if not isinstance(argument, torch.Tensor):
        return False
    if out.untyped_storage()._cdata == argument.untyped_storage()._cdata:
        return True
    pointer = out.untyped_storage().data_ptr()
    return pointer != 0 and pointer == argument.untyped_storage().data_ptr()


def test_every_listed_op_returns_new_storage_on_every_input():
    called = set()
    for name, x in tensors():
        for key, args, kwargs in calls(x):
            out = aten_op(key)(*args, **kwargs)
            called.add(key)
            for argument in args:
                assert not shares_storage(out, argument), f"{key} of {name} returned an input"
    assert called == set(generate_ops.ALWAYS_FRESH), "every listed op is called"


def test_the_check_tells_an_op_that_hands_self_back():
    x = torch.ones(3)
    assert shares_storage(torch.ops.aten.contiguous.default(x), x)
    assert shares_storage(torch.ops.aten.type_as.default(x, x), x)
    assert not shares_storage(torch.ops.aten.clone.default(x), x)


@pytest.mark.parametrize("key", ["contiguous", "type_as", "reshape", "expand_as", "to.dtype",
                                 "flatten.using_ints", "view_as"])
def test_ops_that_may_return_self_are_not_listed(key):
    assert key not in generate_ops.ALWAYS_FRESH
