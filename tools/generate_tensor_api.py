#!/usr/bin/env python3
"""Generates the tensor types' op methods, the operators and the free
functions from one table (API below): each entry's C++ name, parameters, the
call it makes (a generated fp::aten wrapper, or one of the few helpers in
src/core/arithmetic.h for what no single ATen op does), whether it returns a
new Tensor, a view or the tensor itself, and its doc line.

    include/flash_powder/core/detail/tensor_methods.h
        detail::TensorMethods       read-only methods (new Tensors), a base of TensorBase
        detail::ViewMethods<D>      methods returning views, a base of ViewOps<D>
        detail::InPlaceMethods<D>   in-place methods and compound assignment,
                                    a base of MutableAccess<D>
    include/flash_powder/core/operators.h   fp::operator+ ... (new Tensors)
    include/flash_powder/core/functions.h   fp::cat, fp::where, ... (new Tensors)
    src/core/generated/tensor_api.cpp       their definitions

A method whose argument may be a number (`scalar=`) gets a second overload
taking an fp::Scalar, which becomes the 0-dim tensor Python would make of it
next to this tensor (detail::number). Binary operators get the three forms
(tensor op tensor, tensor op number, number op tensor).

    .venv/bin/python tools/generate_tensor_api.py          # rewrite the files
    .venv/bin/python tools/generate_tensor_api.py --check  # exit 1 if any is stale

Why this file is long: most of it is the table of the tensor API, one
entry per method; the generator itself is short.
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import re
import shutil
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
METHODS_HEADER = pathlib.Path("include/flash_powder/core/detail/tensor_methods.h")
OPERATORS_HEADER = pathlib.Path("include/flash_powder/core/operators.h")
FUNCTIONS_HEADER = pathlib.Path("include/flash_powder/core/functions.h")
SOURCE = pathlib.Path("src/core/generated/tensor_api.cpp")


@dataclasses.dataclass
class Entry:
    """One C++ function.

    kind: "method" (const, returns a new value), "view" (const, returns
    views), "in_place" (writes this tensor, returns it), "operator",
    "function".
    params: the C++ parameters with defaults, e.g. "TensorArg other".
    call: the expression computing the result; `self` is this tensor as an
    argument (a TensorArg for methods and views, the Derived& for in-place
    ones). For in-place entries, a statement.
    scalar: the parameter that may also be a number (its Scalar overload).
    """

    kind: str
    name: str
    params: str
    call: str
    doc: str = ""
    returns: str = "Tensor"
    scalar: str = ""


def M(name, params, call, doc="", returns="Tensor", scalar=""):  # noqa: N802
    return Entry("method", name, params, call, doc, returns, scalar)


def V(name, params, call, doc="", returns="TensorView"):  # noqa: N802
    return Entry("view", name, params, call, doc, returns)


def I(name, params, call, doc="", scalar=""):  # noqa: N802, E743
    return Entry("in_place", name, params, call, doc, "Derived&", scalar)


def F(name, params, call, doc=""):  # noqa: N802
    return Entry("function", name, params, call, doc)


ONE = "TensorArg other"
OPT_DTYPE = "std::optional<DType> dtype = std::nullopt"

API: list[Entry] = [
    # --- conversions: each returns a new, independent Tensor ------------------------
    M("to", "TensorOptions options, bool non_blocking = false",
      "aten::_to_copy(self, options.dtype(), options.layout(), options.device(), "
      "options.pinned_memory() ? std::optional<bool>(true) : std::nullopt, non_blocking)",
      "Converted and/or moved, always a copy. Python: `t.to(...)`. Options convert from a "
      "DType or a Device alone: `t.to(fp::DType::U8)`."),
    M("clone", "", "aten::clone(self)", "Python: `t.clone()`."),
    M("cpu", "", "aten::_to_copy(self, std::nullopt, std::nullopt, Device::cpu())",
      "Python: `t.cpu()` (a copy even when already on the CPU)."),
    M("cuda", "std::int8_t index = 0",
      "aten::_to_copy(self, std::nullopt, std::nullopt, Device::cuda(index))",
      "Python: `t.cuda(index)`."),
    M("contiguous", "", "detail::contiguous(self)",
      "A contiguous tensor with the same values: a lazy copy (copy-on-write, nothing copied "
      "yet) when this one is contiguous already, else a contiguous clone. Python: "
      "`t.contiguous()`."),
    M("reshape", "IntList shape", "Tensor(aten::reshape(self, shape))",
      "Python: `t.reshape(shape)`; one size may be -1."),
    M("flatten", "std::int64_t start_dim = 0, std::int64_t end_dim = -1",
      "Tensor(aten::flatten_using_ints(self, start_dim, end_dim))",
      "Python: `t.flatten(start_dim, end_dim)`."),
    # --- arithmetic (numbers promote like Python numbers) ------------------------------
    M("add", ONE, "detail::add(self, other)", "Python: `t + other`.", scalar="other"),
    M("sub", ONE, "detail::sub(self, other)", "Python: `t - other`.", scalar="other"),
    M("mul", ONE, "aten::mul_Tensor(self, other)", "Python: `t * other`.", scalar="other"),
    M("div", "TensorArg other, std::optional<std::string_view> rounding_mode = std::nullopt",
      "aten::div_Tensor_mode(self, other, rounding_mode)",
      "True division; `rounding_mode` \"trunc\" or \"floor\" like Python's.", scalar="other"),
    M("remainder", ONE, "aten::remainder_Tensor(self, other)",
      "Python's `%`: the result has the sign of the divisor.", scalar="other"),
    M("fmod", ONE, "aten::fmod_Tensor(self, other)",
      "C's fmod: the result has the sign of the dividend.", scalar="other"),
    M("pow", "TensorArg exponent", "aten::pow_Tensor_Tensor(self, exponent)",
      "Python: `t ** exponent`."),
    M("pow", "Scalar exponent", "detail::pow(self, exponent)",
      "Python: `t ** number` (libtorch's kernel for a number exponent)."),
] + [
    M(name, "", f"aten::{name}(self)", f"Python: `t.{name}()`.")
    for name in ("neg", "abs", "sqrt", "rsqrt", "exp", "log", "sin", "cos", "tanh", "sigmoid",
                 "floor", "ceil")
] + [
    M("round", "std::int64_t decimals = 0",
      "decimals == 0 ? aten::round(self) : aten::round_decimals(self, decimals)",
      "Half to even, like Python's `t.round(decimals=...)`."),
    # --- comparisons: bool tensors ---------------------------------------------------
] + [
    M(name, ONE, f"aten::{name}_Tensor(self, other)", f"Python: `t {symbol} other`.",
      scalar="other")
    for name, symbol in (("eq", "=="), ("ne", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"),
                         ("ge", ">="))
] + [
    M("is_equal", ONE, "aten::equal(self, other)",
      "Same sizes and values. Python: `torch.equal(t, other)`.", returns="bool"),
    M("allclose",
      "TensorArg other, double rtol = 1e-05, double atol = 1e-08, bool equal_nan = false",
      "aten::allclose(self, other, rtol, atol, equal_nan)",
      "Python: `torch.allclose(t, other, rtol, atol, equal_nan)`.", returns="bool"),
    # --- reductions ------------------------------------------------------------------
    M("sum", OPT_DTYPE, "aten::sum(self, dtype)", "Python: `t.sum(dtype=...)`."),
    M("sum", f"IntList dims, bool keepdim = false, {OPT_DTYPE}",
      "aten::sum_dim_IntList(self, dims, keepdim, dtype)", "Python: `t.sum(dims, keepdim)`."),
    M("mean", OPT_DTYPE, "aten::mean(self, dtype)", "Python: `t.mean(dtype=...)`."),
    M("mean", f"IntList dims, bool keepdim = false, {OPT_DTYPE}",
      "aten::mean_dim(self, dims, keepdim, dtype)", "Python: `t.mean(dims, keepdim)`."),
    M("prod", OPT_DTYPE, "aten::prod(self, dtype)", "Python: `t.prod(dtype=...)`."),
    M("prod", f"std::int64_t dim, bool keepdim = false, {OPT_DTYPE}",
      "aten::prod_dim_int(self, dim, keepdim, dtype)", "Python: `t.prod(dim, keepdim)`."),
    M("min", "", "aten::min(self)", "The smallest element. Python: `t.min()`."),
    M("min", "std::int64_t dim, bool keepdim = false", "aten::min_dim(self, dim, keepdim)",
      "Values and indices along `dim`. Python: `t.min(dim, keepdim)`.",
      returns="std::tuple<Tensor, Tensor>"),
    M("max", "", "aten::max(self)", "The largest element. Python: `t.max()`."),
    M("max", "std::int64_t dim, bool keepdim = false", "aten::max_dim(self, dim, keepdim)",
      "Values and indices along `dim`. Python: `t.max(dim, keepdim)`.",
      returns="std::tuple<Tensor, Tensor>"),
    M("amin", "IntList dims = {}, bool keepdim = false", "aten::amin(self, dims, keepdim)",
      "Python: `t.amin(dims, keepdim)`."),
    M("amax", "IntList dims = {}, bool keepdim = false", "aten::amax(self, dims, keepdim)",
      "Python: `t.amax(dims, keepdim)`."),
    M("argmin", "std::optional<std::int64_t> dim = std::nullopt, bool keepdim = false",
      "aten::argmin(self, dim, keepdim)", "Python: `t.argmin(dim, keepdim)`."),
    M("argmax", "std::optional<std::int64_t> dim = std::nullopt, bool keepdim = false",
      "aten::argmax(self, dim, keepdim)", "Python: `t.argmax(dim, keepdim)`."),
    M("std",
      "const std::optional<std::vector<std::int64_t>>& dims = std::nullopt, "
      "bool unbiased = true, bool keepdim = false",
      "aten::std_dim(self, dims, unbiased, keepdim)",
      "Standard deviation; `unbiased` divides by N-1. Python: `t.std(dims, unbiased, keepdim)`."),
    M("var",
      "const std::optional<std::vector<std::int64_t>>& dims = std::nullopt, "
      "bool unbiased = true, bool keepdim = false",
      "aten::var_dim(self, dims, unbiased, keepdim)",
      "Python: `t.var(dims, unbiased, keepdim)`."),
    M("topk", "std::int64_t k, std::int64_t dim = -1, bool largest = true, bool sorted = true",
      "aten::topk(self, k, dim, largest, sorted)",
      "Python: `t.topk(k, dim, largest, sorted)` -> (values, indices).",
      returns="std::tuple<Tensor, Tensor>"),
    M("sort", "std::int64_t dim = -1, bool descending = false",
      "aten::sort(self, dim, descending)", "Python: `t.sort(dim, descending)` -> (values, "
      "indices).", returns="std::tuple<Tensor, Tensor>"),
    M("cumsum", f"std::int64_t dim, {OPT_DTYPE}", "aten::cumsum(self, dim, dtype)",
      "Python: `t.cumsum(dim, dtype=...)`."),
    # --- selection and linear algebra -------------------------------------------------
    M("where", "TensorArg condition, TensorArg other", "aten::where_self(condition, self, other)",
      "This tensor where `condition` holds, else `other`. Python: `t.where(condition, other)`.",
      scalar="other"),
    M("masked_fill", "TensorArg mask, TensorArg value",
      "aten::masked_fill_Tensor(self, mask, value)", "Python: `t.masked_fill(mask, value)`.",
      scalar="value"),
    M("clamp", "std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt",
      "detail::clamp(self, min, max)",
      "Python: `t.clamp(min, max)`; either bound may be omitted (std::nullopt)."),
    M("clamp", "std::optional<TensorArg> min, std::optional<TensorArg> max",
      "detail::clamp(self, min, max)", "Python: `t.clamp(min, max)` with tensor bounds."),
    M("matmul", ONE, "aten::matmul(self, other)", "Python: `t @ other`."),
    M("mm", ONE, "aten::mm(self, other)", "Python: `t.mm(other)`."),
    M("bmm", ONE, "aten::bmm(self, other)", "Python: `t.bmm(other)`."),
    # --- views --------------------------------------------------------------------------
    V("view", "IntList shape", "aten::view(self, shape)",
      "Same data, new shape (must be compatible with the strides). Python: `t.view(shape)`."),
    V("permute", "IntList dims", "aten::permute(self, dims)", "Python: `t.permute(dims)`."),
    V("transpose", "std::int64_t dim0, std::int64_t dim1", "aten::transpose_int(self, dim0, dim1)",
      "Python: `t.transpose(dim0, dim1)`."),
    V("squeeze", "", "aten::squeeze(self)", "Without all dimensions of size 1. Python: "
      "`t.squeeze()`."),
    V("squeeze", "std::int64_t dim", "aten::squeeze_dim(self, dim)", "Python: `t.squeeze(dim)`."),
    V("unsqueeze", "std::int64_t dim", "aten::unsqueeze(self, dim)",
      "Python: `t.unsqueeze(dim)`."),
    V("narrow", "std::int64_t dim, std::int64_t start, std::int64_t length",
      "aten::narrow(self, dim, start, length)", "Python: `t.narrow(dim, start, length)`."),
    V("select", "std::int64_t dim, std::int64_t index", "aten::select_int(self, dim, index)",
      "Python: `t.select(dim, index)`."),
    V("expand", "IntList sizes", "aten::expand(self, sizes)",
      "Python: `t.expand(sizes)` (-1 keeps a size)."),
    V("chunk", "std::int64_t chunks, std::int64_t dim = 0", "aten::chunk(self, chunks, dim)",
      "Python: `t.chunk(chunks, dim)`.", returns="std::vector<TensorView>"),
    V("split", "std::int64_t size, std::int64_t dim = 0", "aten::split_Tensor(self, size, dim)",
      "Python: `t.split(size, dim)`: pieces of `size` along `dim`.",
      returns="std::vector<TensorView>"),
    V("split", "IntList sizes, std::int64_t dim", "aten::split_with_sizes(self, sizes, dim)",
      "Python: `t.split([sizes], dim)`.", returns="std::vector<TensorView>"),
    V("unbind", "std::int64_t dim = 0", "aten::unbind_int(self, dim)",
      "Python: `t.unbind(dim)`.", returns="std::vector<TensorView>"),
    # --- in place (the tensor itself is returned, as in PyTorch) ------------------------
    I("add_", ONE, "detail::add_assign(self, other)", "Python: `t.add_(other)` (`t += other`).",
      scalar="other"),
    I("sub_", ONE, "detail::sub_assign(self, other)", "Python: `t.sub_(other)` (`t -= other`).",
      scalar="other"),
    I("mul_", ONE, "aten::mul_Tensor_(self, other)", "Python: `t.mul_(other)`.", scalar="other"),
    I("div_", "TensorArg other, std::optional<std::string_view> rounding_mode = std::nullopt",
      "aten::div_Tensor_mode_(self, other, rounding_mode)", "Python: `t.div_(other, "
      "rounding_mode=...)`.", scalar="other"),
    I("remainder_", ONE, "aten::remainder_Tensor_(self, other)",
      "Python: `t.remainder_(other)`.", scalar="other"),
    I("pow_", "TensorArg exponent", "aten::pow_Tensor_(self, exponent)",
      "Python: `t.pow_(exponent)`."),
    I("pow_", "Scalar exponent", "detail::assign_in_place(self, detail::pow(self, exponent), "
      "\"pow_\")", "Python: `t.pow_(number)`."),
] + [
    I(f"{name}_", "", f"aten::{name}_(self)", f"Python: `t.{name}_()`.")
    for name in ("neg", "abs", "sqrt", "exp", "log")
] + [
    I("clamp_", "std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt",
      "detail::clamp_(self, min, max)", "Python: `t.clamp_(min, max)`."),
    I("fill_", "Scalar value", "aten::fill_Tensor_(self, value.as_tensor_beside(self.dtype()))",
      "Every element `value`. Python: `t.fill_(value)`."),
    I("fill_", "TensorArg value", "aten::fill_Tensor_(self, value)",
      "Every element the 0-dim `value`. Python: `t.fill_(value)`."),
    I("zero_", "", "aten::zero_(self)", "Python: `t.zero_()`."),
    I("copy_", "TensorArg source", "aten::copy_(self, source)",
      "This tensor's elements from `source` (broadcast, converted). Python: `t.copy_(source)`."),
    I("masked_fill_", "TensorArg mask, TensorArg value",
      "aten::masked_fill_Tensor_(self, mask, value)", "Python: `t.masked_fill_(mask, value)`.",
      scalar="value"),
    I("index_put_",
      "std::initializer_list<TensorIndex> indices, TensorArg values, bool accumulate = false",
      "detail::index_put(self, std::span<const TensorIndex>(indices.begin(), indices.size()), "
      "values, accumulate)",
      "`t[indices] = values` (or `+=` with `accumulate`); `indices` as for index()."),
    I("index_put_", "std::initializer_list<TensorIndex> indices, Scalar value",
      "detail::index_put(self, std::span<const TensorIndex>(indices.begin(), indices.size()), "
      "aten::_to_copy(detail::number(value, self), self.dtype()), false)",
      "`t[indices] = number`: the number takes the tensor's dtype, like Python's."),
]

# Compound assignment: `t op= other` is the in-place method (or, for the
# bitwise ones, the ATen op Python's `__iand__` and friends call).
COMPOUND = [("+=", "add_"), ("-=", "sub_"), ("*=", "mul_"), ("/=", "div_"), ("%=", "remainder_")]
BITWISE_COMPOUND = [("&=", "dunder_iand_Tensor"), ("|=", "dunder_ior_Tensor"),
                    ("^=", "dunder_ixor_Tensor"), ("<<=", "dunder_ilshift_Tensor"),
                    (">>=", "dunder_irshift_Tensor")]

# Binary operators: (symbol, the call with `a` and `b`, doc).
BINARY = [
    ("+", "detail::add(a, b)", "Python's `a + b`."),
    ("-", "detail::sub(a, b)", "Python's `a - b`."),
    ("*", "aten::mul_Tensor(a, b)", "Python's `a * b`."),
    ("/", "aten::div_Tensor(a, b)", "True division, like Python's `/`."),
    ("%", "aten::remainder_Tensor(a, b)", "Python's `%` (sign of the divisor)."),
    ("==", "aten::eq_Tensor(a, b)", "Element-wise; `a.is_equal(b)` for one bool."),
    ("!=", "aten::ne_Tensor(a, b)", "Element-wise."),
    ("<", "aten::lt_Tensor(a, b)", "Element-wise."),
    ("<=", "aten::le_Tensor(a, b)", "Element-wise."),
    (">", "aten::gt_Tensor(a, b)", "Element-wise."),
    (">=", "aten::ge_Tensor(a, b)", "Element-wise."),
    ("&", "aten::dunder_and_Tensor(a, b)", "Bitwise, for bool and integer tensors: "
     "Python's `__and__`."),
    ("|", "aten::dunder_or_Tensor(a, b)", "Python's `__or__`."),
    ("^", "aten::dunder_xor_Tensor(a, b)", "Python's `__xor__`."),
    ("<<", "aten::dunder_lshift_Tensor(a, b)", "Python's `__lshift__`."),
    (">>", "aten::dunder_rshift_Tensor(a, b)", "Python's `__rshift__`."),
]
UNARY = [("-", "aten::neg(a)", "Python's `-a`."),
         ("~", "aten::bitwise_not(a)", "Bitwise not, for bool and integer tensors: Python's "
          "`~a` (`__invert__`).")]

FUNCTIONS = [
    F("cat", "const TensorList& tensors, std::int64_t dim = 0", "aten::cat(tensors, dim)",
      "Joins along an existing dimension. Python: `torch.cat(tensors, dim)`."),
    F("stack", "const TensorList& tensors, std::int64_t dim = 0", "aten::stack(tensors, dim)",
      "Joins along a new dimension. Python: `torch.stack(tensors, dim)`."),
    F("hstack", "const TensorList& tensors", "aten::hstack(tensors)",
      "Python: `torch.hstack(tensors)`."),
    F("vstack", "const TensorList& tensors", "aten::vstack(tensors)",
      "Python: `torch.vstack(tensors)`."),
    F("where", "TensorArg condition, TensorArg x, TensorArg y", "aten::where_self(condition, x, y)",
      "`x` where `condition` holds, else `y`; numbers promote like Python's. Python: "
      "`torch.where(condition, x, y)`."),
    F("where", "TensorArg condition, TensorArg x, Scalar y",
      "aten::where_self(condition, x, detail::number(y, x))", ""),
    F("where", "TensorArg condition, Scalar x, TensorArg y",
      "aten::where_self(condition, detail::number(x, y), y)", ""),
    F("where", "TensorArg condition, Scalar x, Scalar y",
      "aten::where_self(condition, x.as_tensor(), y.as_tensor())",
      "Two numbers: each as torch.tensor would make it, like `torch.where(c, 1, 2.5)`."),
    F("clamp", "TensorArg t, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt",
      "detail::clamp(t, min, max)", "Python: `torch.clamp(t, min, max)`."),
    F("matmul", "TensorArg a, TensorArg b", "aten::matmul(a, b)",
      "Python: `torch.matmul(a, b)` (also `a @ b`)."),
]

# ---------------------------------------------------------------------------
# Rendering


def strip_defaults(params: str) -> str:
    """The parameter list without default arguments (for definitions)."""
    out, depth, skipping = [], 0, False
    for c in params:
        if c in "<({":
            depth += 1
        elif c in ">)}":
            depth -= 1
        if c == "=" and depth == 0:
            skipping = True
            continue
        if c == "," and depth == 0:
            skipping = False
            out.append(",")
            continue
        if not skipping:
            out.append(c)
    return re.sub(r"\s+,", ",", re.sub(r"\s+", " ", "".join(out))).strip()


def names(params: str) -> list[str]:
    """The parameter names, in order."""
    result = []
    for part in split_params(strip_defaults(params)):
        result.append(part.split()[-1].lstrip("&*"))
    return result


def split_params(params: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, c in enumerate(params):
        if c in "<({":
            depth += 1
        elif c in ">)}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(params[start:i].strip())
            start = i + 1
    if params[start:].strip():
        parts.append(params[start:].strip())
    return parts


def scalar_params(entry: Entry) -> str:
    """The parameters of the Scalar overload: `entry.scalar` as an fp::Scalar."""
    parts = split_params(entry.params)
    out = []
    for part in parts:
        if part.split()[-1] == entry.scalar or part.split("=")[0].split()[-1] == entry.scalar:
            out.append(f"Scalar {entry.scalar}")
        else:
            out.append(part)
    return ", ".join(out)


def scalar_call(entry: Entry) -> str:
    """The Scalar overload's call: the TensorArg overload with the 0-dim number."""
    args = [f"detail::number({n}, self)" if n == entry.scalar else n for n in names(entry.params)]
    return f"{entry.name}({', '.join(args)})"


def doc_lines(doc: str, indent: str) -> list[str]:
    return [f"{indent}/// {doc}"] if doc else []


def grouped(indent: str, declarations: list[str]) -> list[str]:
    """Overloads that share the doc line above them: a Doxygen member group
    (docs/Doxyfile distributes a group's documentation to each member)."""
    if len(declarations) == 1:
        return declarations
    return [f"{indent}///@{{", *declarations, f"{indent}///@}}"]


# The doc line of an overload that takes a number where the first takes a
# tensor. (Class templates get a line per member: Doxygen does not carry a
# member group's documentation into their instances, Tensor's and
# TensorMutView's pages.)
SCALAR_DOC = "The same with a number, which becomes the 0-dim tensor Python would make of it here."


def declarations(kind: str, indent: str) -> list[str]:
    lines = []
    for entry in API:
        if entry.kind != kind:
            continue
        lines += doc_lines(entry.doc, indent)
        lines.append(f"{indent}{entry.returns} {entry.name}({entry.params}) const;"
                     if kind != "in_place" else f"{indent}Derived& {entry.name}({entry.params});")
        if entry.scalar:
            lines += doc_lines(SCALAR_DOC, indent)
            lines.append(f"{indent}{entry.returns} {entry.name}({scalar_params(entry)}) const;"
                         if kind != "in_place" else
                         f"{indent}Derived& {entry.name}({scalar_params(entry)});")
    return lines


def compound_declarations(indent: str) -> list[str]:
    lines = []
    for symbols, doc in ((COMPOUND, "`t {0} other`: the in-place method of `{1}` (`+=` is add_())."),
                         (BITWISE_COMPOUND, "`t {0} other`, bitwise, for bool and integer tensors "
                                            "(Python's in-place `{1}`).")):
        for symbol, _ in symbols:
            lines += doc_lines(doc.format(symbol, symbol[:-1]), indent)
            lines.append(f"{indent}Derived& operator{symbol}(TensorArg other);")
            lines += doc_lines(SCALAR_DOC, indent)
            lines.append(f"{indent}Derived& operator{symbol}(Scalar other);")
    return lines


def special_members(indent: str, name: str) -> list[str]:
    """The protected special members of a base: only the tensor types use them."""
    doc = f"{indent}/// Only the tensor types, which derive from this base, make, copy and destroy it."
    return [doc, f"{indent}{name}() = default;", doc, f"{indent}~{name}() = default;",
            doc, f"{indent}{name}(const {name}&) = default;",
            doc, f"{indent}{name}& operator=(const {name}&) = default;"]


GENERATED = ("// Generated by tools/generate_tensor_api.py from its table; do not edit.\n"
             "// Regenerate after changing the table.\n")


def render_methods_header() -> str:
    lines = [
        GENERATED.rstrip("\n"),
        "//",
        "// The op methods of the tensor types (core/tensor.h): bases of detail::TensorBase,",
        "// detail::ViewOps and detail::MutableAccess. Each calls a generated fp::aten",
        "// wrapper (or a helper of src/core/arithmetic.h); numbers become the 0-dim tensors",
        "// Python would make of them next to this tensor (core/scalar.h).",
        "#pragma once",
        "",
        "#include <cstdint>",
        "#include <initializer_list>",
        "#include <optional>",
        "#include <string_view>",
        "#include <tuple>",
        "#include <vector>",
        "",
        "#include \"flash_powder/core/array_ref.h\"",
        "#include \"flash_powder/core/index.h\"",
        "#include \"flash_powder/core/options.h\"",
        "#include \"flash_powder/core/scalar.h\"",
        "#include \"flash_powder/core/tensor_arg.h\"",
        "",
        "namespace fp {",
        "",
        "class Tensor;",
        "class TensorView;",
        "",
        "namespace detail {",
        "",
        "/// The operations all three tensor types have that read the tensor and",
        "/// return new values (never views).",
        "class TensorMethods {",
        " public:",
    ]
    lines += declarations("method", "  ")
    lines += [
        "",
        " protected:",
        *special_members("  ", "TensorMethods"),
        "",
        " private:",
        "  /// This tensor as a read-only op argument.",
        "  TensorArg self_arg() const;",
        "};",
        "",
        "/// The operations that return views (TensorView) of a tensor: each view keeps its",
        "/// own handle and registers with the borrow checker as a view of this tensor.",
        "template <class Derived>",
        "class ViewMethods {",
        " public:",
    ]
    lines += declarations("view", "  ")
    lines += [
        "",
        " protected:",
        *special_members("  ", "ViewMethods"),
        "};",
        "",
        "/// The operations that write the tensor, shared by Tensor and TensorMutView;",
        "/// each returns the tensor itself, like PyTorch's, after the borrow check.",
        "template <class Derived>",
        "class InPlaceMethods {",
        " public:",
    ]
    lines += declarations("in_place", "  ")
    lines += compound_declarations("  ")
    lines += [
        "",
        " protected:",
        *special_members("  ", "InPlaceMethods"),
        "};",
        "",
        "}  // namespace detail",
        "}  // namespace fp",
        "",
    ]
    return "\n".join(lines)


def render_operators_header() -> str:
    lines = [
        GENERATED.rstrip("\n"),
        "//",
        "// Arithmetic, comparison and bitwise operators on tensors, like Python's.",
        "//",
        "//     fp::Tensor p = m * fp::tensor(100.f) + 1.0;   // numbers promote like Python numbers",
        "//     fp::Tensor mask = m > 0.5;                   // comparisons give bool tensors",
        "//     m += 1;                                      // in place, on Tensor and TensorMutView",
        "//",
        "// Each binary operator takes two tensors (any of Tensor, TensorView,",
        "// TensorMutView, temporaries included) or a tensor and a number, and returns",
        "// a new Tensor.",
        "#pragma once",
        "",
        "#include \"flash_powder/core/scalar.h\"",
        "#include \"flash_powder/core/tensor.h\"",
        "",
        "namespace fp {",
        "",
    ]
    for symbol, _, doc in BINARY:
        lines += doc_lines(doc, "")
        lines += grouped("", [f"Tensor operator{symbol}(TensorArg a, TensorArg b);",
                              f"Tensor operator{symbol}(TensorArg a, Scalar b);",
                              f"Tensor operator{symbol}(Scalar a, TensorArg b);"])
    for symbol, _, doc in UNARY:
        lines += doc_lines(doc, "")
        lines.append(f"Tensor operator{symbol}(TensorArg a);")
    lines += ["", "}  // namespace fp", ""]
    return "\n".join(lines)


def render_functions_header() -> str:
    lines = [
        GENERATED.rstrip("\n"),
        "//",
        "// Free functions over several tensors, like torch.cat and torch.where.",
        "#pragma once",
        "",
        "#include <cstdint>",
        "#include <optional>",
        "",
        "#include \"flash_powder/core/arguments.h\"",
        "#include \"flash_powder/core/scalar.h\"",
        "#include \"flash_powder/core/tensor.h\"",
        "",
        "namespace fp {",
        "",
    ]
    # An entry without a doc line is an overload of the one above it.
    runs: list[list] = []
    for entry in FUNCTIONS:
        if entry.doc or not runs or runs[-1][0].name != entry.name:
            runs.append([entry])
        else:
            runs[-1].append(entry)
    for run in runs:
        lines += doc_lines(run[0].doc, "")
        lines += grouped("", [f"Tensor {entry.name}({entry.params});" for entry in run])
    lines += ["", "}  // namespace fp", ""]
    return "\n".join(lines)


def render_source() -> str:
    lines = [
        GENERATED.rstrip("\n"),
        "//",
        "// The definitions of include/flash_powder/core/detail/tensor_methods.h,",
        "// core/operators.h and core/functions.h.",
        "#include <span>",
        "",
        "#include \"core/arithmetic.h\"",
        "#include \"flash_powder/aten/aten.h\"",
        "#include \"flash_powder/core/functions.h\"",
        "#include \"flash_powder/core/operators.h\"",
        "#include \"flash_powder/core/tensor.h\"",
        "",
        "namespace fp {",
        "namespace detail {",
        "",
    ]
    for entry in API:
        params = strip_defaults(entry.params)
        if entry.kind == "method":
            for this_params, call in ((params, entry.call),
                                      (strip_defaults(scalar_params(entry)), scalar_call(entry))
                                      if entry.scalar else (None, None)):
                if this_params is None:
                    continue
                lines += [f"{entry.returns} TensorMethods::{entry.name}({this_params}) const {{",
                          "  const TensorArg self = self_arg();",
                          f"  return {call};", "}", ""]
        elif entry.kind == "view":
            lines += ["template <class Derived>",
                      f"{entry.returns} ViewMethods<Derived>::{entry.name}({params}) const {{",
                      "  const TensorArg self(static_cast<const Derived&>(*this));",
                      f"  return {entry.call};", "}", ""]
        elif entry.kind == "in_place":
            for this_params, call in ((params, entry.call + ";"),
                                      (strip_defaults(scalar_params(entry)),
                                       f"return {scalar_call(entry)};")
                                      if entry.scalar else (None, None)):
                if this_params is None:
                    continue
                body = [f"  {call}"] if call.startswith("return") else [f"  {call}",
                                                                        "  return self;"]
                lines += ["template <class Derived>",
                          f"Derived& InPlaceMethods<Derived>::{entry.name}({this_params}) {{",
                          "  Derived& self = static_cast<Derived&>(*this);"] + body + ["}", ""]
    for symbol, method in COMPOUND:
        for param in ("TensorArg other", "Scalar other"):
            lines += ["template <class Derived>",
                      f"Derived& InPlaceMethods<Derived>::operator{symbol}({param}) {{",
                      f"  return {method}(other);", "}", ""]
    for symbol, op in BITWISE_COMPOUND:
        lines += ["template <class Derived>",
                  f"Derived& InPlaceMethods<Derived>::operator{symbol}(TensorArg other) {{",
                  "  Derived& self = static_cast<Derived&>(*this);",
                  f"  aten::{op}(self, other);", "  return self;", "}", "",
                  "template <class Derived>",
                  f"Derived& InPlaceMethods<Derived>::operator{symbol}(Scalar other) {{",
                  "  Derived& self = static_cast<Derived&>(*this);",
                  f"  return *this {symbol} detail::number(other, self);", "}", ""]
    lines += [
        "template class ViewMethods<TensorView>;",
        "template class ViewMethods<TensorMutView>;",
        "template class ViewMethods<Tensor>;",
        "template class InPlaceMethods<Tensor>;",
        "template class InPlaceMethods<TensorMutView>;",
        "",
        "}  // namespace detail",
        "",
    ]
    for symbol, call, _ in BINARY:
        lines += [f"Tensor operator{symbol}(TensorArg a, TensorArg b) {{", f"  return {call};", "}",
                  "",
                  f"Tensor operator{symbol}(TensorArg a, Scalar number) {{",
                  "  const Tensor b = detail::number(number, a);", f"  return {call};", "}", "",
                  f"Tensor operator{symbol}(Scalar number, TensorArg b) {{",
                  "  const Tensor a = detail::number(number, b);", f"  return {call};", "}", ""]
    for symbol, call, _ in UNARY:
        lines += [f"Tensor operator{symbol}(TensorArg a) {{", f"  return {call};", "}", ""]
    for entry in FUNCTIONS:
        lines += [f"Tensor {entry.name}({strip_defaults(entry.params)}) {{",
                  f"  return {entry.call};", "}", ""]
    lines += ["}  // namespace fp", ""]
    return "\n".join(lines)


def clang_format(text: str, path: pathlib.Path) -> str:
    tool = shutil.which("clang-format")
    if tool is None:
        return text
    return subprocess.run([tool, f"--assume-filename={REPO / path}", "--style=file"], input=text,
                          capture_output=True, text=True, cwd=REPO, check=True).stdout


def same_code(a: str, b: str) -> bool:
    return re.sub(r"\s+", "", a) == re.sub(r"\s+", "", b)


def generate() -> dict[pathlib.Path, str]:
    return {METHODS_HEADER: render_methods_header(), OPERATORS_HEADER: render_operators_header(),
            FUNCTIONS_HEADER: render_functions_header(), SOURCE: render_source()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a file is stale")
    args = parser.parse_args()
    files = generate()
    if args.check:
        stale = [p for p, text in files.items()
                 if not (REPO / p).exists() or not same_code((REPO / p).read_text(),
                                                             clang_format(text, p))]
        for path in stale:
            print(f"generate_tensor_api: {path} is stale; rerun without --check")
        return 1 if stale else 0
    for path, text in files.items():
        text = clang_format(text, path)
        target = REPO / path
        if target.exists() and target.read_text() == text:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    print(f"generate_tensor_api: {len(API) + len(FUNCTIONS)} entries, "
          f"{len(BINARY) + len(UNARY)} operators")
    return 0


if __name__ == "__main__":
    sys.exit(main())
