"""Python helpers shared by the tests' Python blocks (tools/python_truth.py
puts this folder on the path): `from truth_helpers import g, values`.

Each mirrors a C++ test helper, so that both languages draw the same inputs."""

import inspect
import sys
import types

import torch
import torch.nn.functional as F_


def g(seed):
    """A CPU generator seeded like fp::Generator(seed) (nn_test::randn/rand)."""
    return torch.Generator().manual_seed(seed)


def values(t):
    """All elements, row-major, as Python numbers (nn_test::values)."""
    return t.flatten().tolist()


def filled(module, seed=100, scale=1.0):
    """`module` with new values for every floating-point state-dict entry
    (nn_test::filled): key i gets randn(shape, generator=g(seed + i)) * scale,
    or rand(...) for running variances, which must be positive; integer
    entries keep their value. Returns the module in eval mode."""
    new = {}
    for i, (key, value) in enumerate(module.state_dict().items()):
        if not value.dtype.is_floating_point:
            new[key] = value
        elif key.endswith("running_var"):
            new[key] = torch.rand(value.shape, generator=g(seed + i))
        else:
            new[key] = torch.randn(value.shape, generator=g(seed + i)) * scale
    module.load_state_dict(new)
    return module.eval()


def run(module, x):
    """values(module(x)) without autograd."""
    with torch.no_grad():
        return values(module(x))


def message(f):
    """What `f()` raises, as text: the error message a C++ test expects."""
    try:
        f()
    except Exception as e:  # RuntimeError, IndexError, ValueError, TypeError: whatever torch raises
        return str(e)
    raise AssertionError("expected an error, but the call succeeded")


def outcome(f):
    """What `f()` raises, as text, or "" when it succeeds: for calls that a
    later torch release accepts (the C++ side then expects success)."""
    try:
        f()
    except Exception as e:  # whatever torch raises
        return str(e)
    return ""


def lp_pool(dims, t, norm_type, kernel_size, stride=None, ceil_mode=False):
    """F.lp_pool<dims>d(t, ...). For norm_type = ±inf it is the max pool of |t|
    (of -|t|, negated), as torch 2.13 and later compute it, and as
    fp::functional computes it on every torch: earlier releases raise |t| to
    the infinite power instead."""
    lp = getattr(F_, f"lp_pool{dims}d")
    if abs(norm_type) != float("inf") or 'float("inf")' in inspect.getsource(lp):
        return lp(t, norm_type, kernel_size, stride, ceil_mode)
    mp = getattr(F_, f"max_pool{dims}d")
    if norm_type > 0:
        return mp(t.abs(), kernel_size, stride, 0, 1, ceil_mode)
    return -mp(-t.abs(), kernel_size, stride, 0, 1, ceil_mode)


def python_torchvision():
    """torchvision's Python (models, transforms, utils) without its compiled
    ops, which the torchvision wheel beside the tests' CPU torch cannot load
    (tests/vision/make_models.py and tests/image/make_corpus.py do the same)."""
    sys.modules.setdefault("torchvision._meta_registrations",
                           types.ModuleType("torchvision._meta_registrations"))
    import torchvision
    return torchvision
