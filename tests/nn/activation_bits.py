"""The Python side of activation_bits.h: bit patterns of elementwise results
in every floating dtype, and inputs that hold each activation's boundaries."""

import torch

from truth_helpers import g

DTYPES = [torch.float32, torch.float64, torch.bfloat16, torch.float16]
INTS = {torch.float32: torch.int32, torch.float64: torch.int64,
        torch.bfloat16: torch.int16, torch.float16: torch.int16}
CANONICAL_NAN = {torch.float32: 0x7FC00000, torch.float64: 0x7FF8000000000000,
                 torch.bfloat16: 0x7FC0, torch.float16: 0x7E00}
inf, nan = float("inf"), float("nan")

# 0 and -0, the boundaries of hardtanh (+-1), hardsigmoid (+-3), relu6 (6),
# softplus (20), the shrinks (0.5, 1.3), tiny and infinite values, and NaN.
SPECIAL = torch.tensor([0., -0., 0.5, -0.5, 1., -1., 3., -3., 6., -6., 20., -20., 19.99, 20.01,
                        0.1, -0.1, 1.3, -1.3, 1e-30, -1e-30, inf, -inf, nan], dtype=torch.float64)


def bits(t):
    """The elements' bit patterns, row-major, each NaN as the dtype's canonical one."""
    t = t.contiguous().flatten()
    nans = t.isnan().tolist()
    return [CANONICAL_NAN[t.dtype] if n else v
            for v, n in zip(t.view(INTS[t.dtype]).tolist(), nans)]


def per_dtype(x, f, dtypes=DTYPES):
    """bits(f(x)) for x converted to each dtype."""
    return [bits(f(x.to(d))) for d in dtypes]


def inputs(seed):
    """float64: SPECIAL, 160 values of randn * 4, SPECIAL again (206 elements:
    libtorch's vectorised loops and their scalar remainders both see each)."""
    return torch.cat([SPECIAL, torch.randn(160, generator=g(seed)).double() * 4, SPECIAL])


def strided(x):
    """x[2:] as a transposed [3, 68] view: not contiguous."""
    return x[2:].reshape(-1, 3).t()
