#!/usr/bin/env python3
"""Generates fp::aten::*: a typed C++ function for every ATen op overload the
stable ABI can carry.

Reads the op schemas from the `native_functions.yaml` every torch wheel ships
(`torchgen/packaged/ATen/native/`, the same file tools/generate_schemas.py
reads), and the torch releases that have each op from
tools/data/aten_ops_by_release.txt, and writes

    include/flash_powder/aten/aten.h        declarations, each with its schema
    src/aten/generated/aten_<k>.cpp         definitions, split to build in parallel
    docs/ops.md                            the counts, the ops not every supported
                                           torch has, and every excluded overload
    include/flash_powder/abi/schema_types.h  the plain types' table
                                           (tools/schema_types.py) for the C++ side

The output is committed, so building needs no Python; regenerate it when
moving the build baseline to a new torch or after rederiving the data file
(tools/generate_schemas.py --wheels DIR):

    .venv/bin/python tools/generate_ops.py          # rewrite the files
    .venv/bin/python tools/generate_ops.py --check  # exit 1 if any is stale

Mapping rules (documented for users in docs/ops.md):

* `aten::<name>` (default overload) becomes `fp::aten::<name>`, any other
  overload `fp::aten::<name>_<overload>`; `__and__` becomes `dunder_and`; a
  C++ keyword gets a trailing `_`. A non-default overload whose name collides
  with another function is left out.
* Tensor -> fp::TensorArg, Tensor? -> std::optional<fp::TensorArg>,
  Tensor(a!) -> fp::MutableTensor, Tensor[] -> fp::TensorList, ... (see
  param_type() below and include/flash_powder/core/arguments.h).
* Schema defaults become C++ default arguments (only on the trailing run of
  arguments that all have one). Keyword-only arguments stay positional.
* `Scalar?` arguments are left out of the C++ signature and passed as None:
  the stable ABI of torch 2.13 cannot carry a Scalar. Overloads with a
  non-optional Scalar, and other types the ABI cannot carry, are excluded.
* Returns: Tensor -> fp::Tensor (a lazy clone if libtorch handed back an input),
  `Tensor(a)` (a view or maybe-view of input `a`) -> fp::TensorView borrowing
  from that input, mutated inputs (`-> Tensor(a!)`) -> nothing.

Why this file is long: one generator, whose parts (schema parsing, the type
mapping, the routes, the three outputs and their docs) all describe one
wrapper.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import pathlib
import re
import shutil
import subprocess
import sys

import schema_types
import torch_schemas as ts
from torch_schemas import REPO, cpp_string

HEADER = pathlib.Path("include/flash_powder/aten/aten.h")
SOURCE_DIR = pathlib.Path("src/aten/generated")
DOC = pathlib.Path("docs/ops.md")
SOURCE_FILES = 8

CPP_KEYWORDS = set("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class co_await co_return co_yield compl concept const consteval constexpr constinit
const_cast continue decltype default delete do double dynamic_cast else enum explicit export
extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq
nullptr operator or or_eq private protected public register reinterpret_cast requires return
short signed sizeof static static_assert static_cast struct switch template this thread_local
throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while
xor xor_eq
""".split())

# Ops that are useless without their `Scalar?` arguments (which can only be None
# here); the `.Tensor` overloads do the same with tensor bounds.
USELESS_WITHOUT_SCALARS = {"clamp", "clamp_", "clamp.out", "clip", "clip_", "clip.out"}

# Ops that make a written argument share memory with another tensor: after
# them, writing one tensor would change another, which fp::Tensor promises away.
MAKE_ALIASES = {"set_.source_Tensor", "set_.source_Tensor_storage_offset", "set_data"}

# View ops that can set a tensor's lazy conjugation or negation bit (`conj` of
# a complex tensor, `_neg_view`, and the ops built on them): their results are
# resolved (op::resolved_view_result), since flash_powder never hands out a
# tensor whose memory holds values other than it reads as.
SETS_LAZY_BITS = {"conj", "_conj", "_neg_view", "adjoint", "mH", "matrix_H"}

# Arguments ops write without their schema saying so: the running statistics
# of batch norm in training mode. Their wrappers take fp::MutableTensor.
UNANNOTATED_WRITES = {
    op: ("running_mean", "running_var")
    for op in ("batch_norm", "_batch_norm_impl_index", "cudnn_batch_norm", "cudnn_batch_norm.out",
               "instance_norm", "miopen_batch_norm", "native_batch_norm", "native_batch_norm.out",
               "batch_norm_gather_stats", "batch_norm_gather_stats_with_counts",
               "batch_norm_update_stats")
}

# ---------------------------------------------------------------------------
# Schemas


@dataclasses.dataclass
class Type:
    """A schema type: `base` with `?`/`[N]` wrappers, e.g. `Tensor(a!)[]`."""

    kind: str  # "base", "optional", "list"
    name: str = ""  # for "base": Tensor, int, SymInt, ...
    elem: Type | None = None
    fixed: int | None = None  # `int[2]` -> 2
    alias: str = ""  # the annotation anywhere in the type, e.g. "a!", "a -> *"
    text: str = ""

    @property
    def base(self) -> Type:
        return self if self.kind == "base" else self.elem.base

    @property
    def mutable(self) -> bool:
        return "!" in self.alias

    @property
    def alias_set(self) -> str:
        """The alias letter(s), e.g. "a" for `Tensor(a!)` and `Tensor(a -> *)`."""
        return self.alias.split("->")[0].replace("!", "").strip()


@dataclasses.dataclass
class Argument:
    type: Type
    name: str
    default: str | None = None
    kwarg_only: bool = False


@dataclasses.dataclass
class Schema:
    text: str
    name: str
    overload: str
    arguments: list[Argument]
    returns: list[Argument]
    # The torch releases that have it (tools/data/aten_ops_by_release.txt).
    availability: ts.Availability | None = None
    # The functional form of a structured kernel (`structured_delegate:` in
    # native_functions.yaml): its results are always newly allocated, so they
    # need no check for handing an input back.
    fresh_results: bool = False
    # Its position in the builtin table (src/abi/generated/aten_schemas.cpp,
    # sorted by key as tools/generate_schemas.py writes it): how a wrapper
    # finds its schema, with no lookup by name.
    index: int = -1

    @property
    def key(self) -> str:
        return self.name + ("." + self.overload if self.overload else "")


def split_top_level(text: str) -> list[str]:
    """Splits at commas outside brackets, parentheses and quotes."""
    parts, depth, quote, start, i = [], 0, "", 0, 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
        i += 1
    if text[start:].strip():
        parts.append(text[start:].strip())
    return parts


TYPE_RE = re.compile(r"(\w+)(\([^)]*\))?((?:\?|\[\d*\])*)(\([^)]*\))?$")


def parse_type(text: str) -> Type:
    match = TYPE_RE.match(text)
    if not match:
        raise ValueError(f"cannot parse type {text!r}")
    base, alias1, suffixes, alias2 = match.groups()
    alias = (alias1 or alias2 or "()")[1:-1]
    result = Type("base", name=base, alias=alias, text=text)
    for suffix in re.findall(r"\?|\[\d*\]", suffixes):
        if suffix == "?":
            result = Type("optional", elem=result, alias=alias, text=text)
        else:
            fixed = int(suffix[1:-1]) if len(suffix) > 2 else None
            result = Type("list", elem=result, fixed=fixed, alias=alias, text=text)
    return result


def parse_argument(text: str, kwarg_only: bool) -> Argument:
    """`<type> <name>[=<default>]`; the type may hold spaces (`Tensor(a -> *)`)."""
    match = re.match(r"^(.*?\S)\s+(\w+)(?:=(.*))?$", text, re.S)
    if not match:
        raise ValueError(f"cannot parse argument {text!r}")
    type_text, name, default = match.groups()
    return Argument(parse_type(type_text.strip()), name, default, kwarg_only)


def parse_schema(text: str) -> Schema:
    head, rest = text.split("(", 1)
    name, _, overload = head.partition(".")
    arguments_text, returns_text = rest.rsplit(") -> ", 1)
    arguments, kwarg_only = [], False
    for part in split_top_level(arguments_text):
        if part == "*":
            kwarg_only = True
            continue
        arguments.append(parse_argument(part, kwarg_only))
    returns_text = returns_text.strip()
    if returns_text.startswith("(") and returns_text.endswith(")"):
        items = split_top_level(returns_text[1:-1])
    else:
        items = [returns_text]
    returns = []
    for item in items:
        match = re.match(r"^(.*?)(?:\s+(\w+))?$", item)
        returns.append(Argument(parse_type(match.group(1)), match.group(2) or ""))
    return Schema(text, name, overload, arguments, returns)


# ---------------------------------------------------------------------------
# C++ types and values


class Excluded(Exception):
    """An overload that gets no wrapper; args[0] is the reason (a group name)."""


# Reasons, in the order docs/ops.md lists them.
R_SCALAR = "Scalar arguments"
R_SCALAR_RETURN = "Scalar results"
R_OTHER_TYPE = "Other types the stable ABI cannot carry"
R_RETURN_ORDER = "Results of mixed types (a libtorch bug)"
R_USELESS = "Useless without their `Scalar?` arguments"
R_ALIASING = "Ops that make tensors share memory"
R_NAME = "Name collisions"

# Why each group is excluded, for docs/ops.md.
EXPLANATIONS = {
    R_SCALAR: "A non-optional `Scalar` or `Scalar[]` argument (a Python number) cannot cross "
    "the stable ABI of torch 2.13, not even as its default. Most of these ops have an "
    "overload taking a Tensor instead, and a 0-dim tensor serves where a number is meant "
    "(`mul_Tensor(x, fp::tensor(2.f))` for `mul.Scalar`). Note that `add.Tensor`, "
    "`sub.Tensor` and their relatives are here too: their `Scalar alpha=1` cannot be passed.",
    R_SCALAR_RETURN: "A `Scalar` cannot come back through the stable ABI either "
    "(`fp::Tensor::item<T>()` does what `item` does).",
    R_OTHER_TYPE: "`Storage`, `Stream`, `DeviceIndex`, `QScheme` and `SymBool` have no "
    "representation in the stable ABI.",
    R_RETURN_ORDER: "`torch_call_dispatcher` in torch 2.13 converts the results from the last "
    "to the first but takes their schema types from the first to the last, so a result tuple "
    "whose types do not read the same backwards (`(float, int)`, `(Tensor, Tensor[])`) fails "
    "inside libtorch (\"INTERNAL ASSERT FAILED ... expected double\"). Tuples of Tensors only "
    "are not affected.",
    R_USELESS: "`clamp` and `clip` with both bounds None always fail; `clamp.Tensor`, "
    "`clamp_min.Tensor` and `clamp_max.Tensor` take tensor bounds.",
    R_ALIASING: "After `set_(self, source)` or `set_data(self, new_data)` writing one tensor "
    "would change another, which `fp::Tensor`'s value semantics rule out.",
    R_NAME: "A non-default overload whose mangled name is another function's name.",
}

# The plain types, from the one table the C++ side reads too
# (tools/schema_types.py -> include/flash_powder/abi/schema_types.h).
SCALARS = {t.name: t.cpp_parameter for t in schema_types.PLAIN_TYPES}


@dataclasses.dataclass
class Param:
    """One C++ parameter (or an argument always passed as None: `dropped`)."""

    arg: Argument
    cpp: str = ""  # the declared type
    cpp_name: str = ""
    default: str | None = None  # C++ default, if the schema has one
    dropped: bool = False  # a `Scalar?`, always None
    tensor_input: str = ""  # "", "in" (read), "mut" (written): what the borrow check sees
    converter: str = ""  # the expression making its abi::Arg
    unannotated_write: bool = False  # written, though the schema does not say so


def unsupported(type_: Type) -> str | None:
    """The base type name the stable ABI cannot carry, if any."""
    name = type_.base.name
    return None if name in SCALARS or name == "Tensor" else name


def param_type(type_: Type) -> tuple[str, str]:
    """(C++ type, tensor role) for an argument of this schema type."""
    if type_.kind == "base":
        if type_.name == "Tensor":
            return ("MutableTensor", "mut") if type_.mutable else ("TensorArg", "in")
        return SCALARS[type_.name], ""
    if type_.kind == "optional":
        inner = type_.elem
        if inner.kind == "list":
            element = inner.elem
            if element.kind == "base" and element.name in INTS:
                return "OptionalIntList", ""
            if element.kind == "base" and element.name == "float":
                return "OptionalArrayRef<double>", ""
            raise Excluded(R_OTHER_TYPE, type_.text)
        cpp, role = param_type(inner)
        return f"std::optional<{cpp}>", role
    # lists
    element = type_.elem
    if element.kind == "base" and element.name == "Tensor":
        if type_.mutable:
            return "const MutableTensorList&", "mut"
        return "const TensorList&", "in"
    if element.kind == "optional" and element.elem.kind == "base" and element.elem.name == "Tensor":
        return "const OptionalTensorList&", "in"
    if element.kind == "base" and element.name in INTS:
        return "IntList", ""
    if element.kind == "base" and element.name == "float":
        return "ArrayRef<double>", ""
    if element.kind == "base" and element.name == "bool" and type_.fixed:
        return f"std::array<bool, {type_.fixed}>", ""
    raise Excluded(R_OTHER_TYPE, type_.text)


def python_string(literal: str) -> str:
    """The value of a quoted schema string default, e.g. `'"\\'\\\\'`."""
    quote, body, out, i = literal[0], literal[1:-1], [], 0
    assert literal[-1] == quote, literal
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            i += 1
        out.append(body[i])
        i += 1
    return "".join(out)


DTYPE_DEFAULTS = {"long": "DType::I64", "int": "DType::I32", "float": "DType::F32",
                  "double": "DType::F64", "half": "DType::F16", "bool": "DType::Bool"}
MEMORY_FORMATS = {"contiguous_format": "MemoryFormat::Contiguous",
                  "preserve_format": "MemoryFormat::Preserve",
                  "channels_last": "MemoryFormat::ChannelsLast",
                  "channels_last_3d": "MemoryFormat::ChannelsLast3d"}


def scalar_default(type_: Type, text: str) -> str:
    name = type_.name
    if name in INTS:
        named = {"Mean": "1", "Sum": "2"}  # at::Reduction
        return named[text] if text in named else str(int(text))
    if name == "float":
        if text in ("inf", "-inf"):
            return ("-" if text[0] == "-" else "") + "std::numeric_limits<double>::infinity()"
        value = float(text)
        return repr(value) if "." in repr(value) or "e" in repr(value) else repr(value) + ".0"
    if name == "bool":
        return {"True": "true", "False": "false"}[text]
    if name == "str":
        return cpp_string(python_string(text))
    if name == "ScalarType":
        return DTYPE_DEFAULTS[text]
    if name == "MemoryFormat":
        return MEMORY_FORMATS[text]
    if name == "Layout" and text == "strided":
        return "Layout::Strided"
    raise ValueError(f"no C++ default for {type_.text}={text}")


def cpp_default(type_: Type, text: str) -> str:
    if text == "None":
        if type_.kind != "optional":
            raise ValueError(f"None default for non-optional {type_.text}")
        return "std::nullopt"
    if type_.kind == "optional":
        return cpp_default(type_.elem, text)
    if type_.kind == "base":
        return scalar_default(type_, text)
    element = type_.elem
    if text.startswith("["):
        items = [item.strip() for item in text[1:-1].split(",") if item.strip()]
        return "{" + ", ".join(scalar_default(element, item) for item in items) + "}"
    # `int[2] stride=1`: a single value fills the list, as in Python.
    value = scalar_default(element, text)
    if element.name == "bool":
        return "{" + ", ".join([value] * (type_.fixed or 1)) + "}"
    return value


# ---------------------------------------------------------------------------
# Overloads -> wrappers


@dataclasses.dataclass
class Return:
    arg: Argument
    cpp: str
    take: str  # the expression that converts this result


@dataclasses.dataclass
class Wrapper:
    schema: Schema
    cpp_name: str
    params: list[Param]
    returns: list[Return]  # kept returns (mutated inputs are dropped)
    dropped_returns: list[Argument]

    @property
    def result_type(self) -> str:
        if not self.returns:
            return "void"
        if len(self.returns) == 1:
            return self.returns[0].cpp
        return "std::tuple<" + ", ".join(r.cpp for r in self.returns) + ">"

    @property
    def qualified(self) -> str:
        return "aten::" + self.schema.key


def mangle(schema: Schema) -> str:
    """The C++ name: `<name>_<overload>`, with an in-place op's trailing `_`
    after the overload (`fill_.Scalar` -> `fill_Scalar_`), so that no name
    holds `__` (reserved in C++)."""
    name = schema.name
    if name.startswith("__") and name.endswith("__"):
        name = "dunder_" + name[2:-2]
    if schema.overload:
        in_place = name.endswith("_")
        name = name.rstrip("_") + "_" + schema.overload + ("_" if in_place else "")
    if name in CPP_KEYWORDS:
        name += "_"
    if "__" in name:
        raise ValueError(f"generate_ops: {schema.key} mangles to the reserved name {name}")
    return name


# Names the generated definitions use for themselves.
LOCAL_NAMES = {"op", "op_schema", "op_call", "abi", "fp", "std"}


def param_name(name: str) -> str:
    return name + "_" if name in CPP_KEYWORDS or name in LOCAL_NAMES else name


INTS = schema_types.INTS
# (C++ type, abi's result getter) of each plain type a wrapper can return.
RETURN_SCALARS = {t.name: (t.value, t.result) for t in schema_types.PLAIN_TYPES if t.result}


def make_wrapper(schema: Schema) -> Wrapper:
    # --- arguments
    for argument in schema.arguments:
        base = argument.type.base.name
        if base == "Scalar" and not (argument.type.kind == "optional"
                                     and argument.type.elem.kind == "base"):
            raise Excluded(R_SCALAR, argument.type.text)
    for result in schema.returns:
        if result.type.base.name == "Scalar":
            raise Excluded(R_SCALAR_RETURN, result.type.text)
    for argument in schema.arguments:
        name = unsupported(argument.type)
        if name is not None and name != "Scalar":
            raise Excluded(R_OTHER_TYPE, name)
    for result in schema.returns:
        name = unsupported(result.type)
        if name is not None:
            raise Excluded(R_OTHER_TYPE, "returns " + name)
    # libtorch pops the results from the back but takes their types from the
    # front, so only tuples that read the same both ways come back intact.
    kinds = [re.sub(r"\(.*?\)", "", r.type.text).replace("SymInt", "int") for r in schema.returns]
    if kinds != kinds[::-1]:
        raise Excluded(R_RETURN_ORDER, "-> (" + ", ".join(kinds) + ")")
    if schema.key in USELESS_WITHOUT_SCALARS:
        raise Excluded(R_USELESS, "")
    if schema.key in MAKE_ALIASES:
        raise Excluded(R_ALIASING, "")
    unannotated_writes = UNANNOTATED_WRITES.get(schema.key, ())
    for name in unannotated_writes:
        argument = next(a for a in schema.arguments if a.name == name)
        argument.type = parse_type(argument.type.text.replace("Tensor", f"Tensor({name}!)"))

    params = []
    for argument in schema.arguments:
        param = Param(argument, cpp_name=param_name(argument.name),
                      unannotated_write=argument.name in unannotated_writes)
        if argument.type.base.name == "Scalar":
            param.dropped = True
            params.append(param)
            continue
        param.cpp, param.tensor_input = param_type(argument.type)
        if argument.default is not None:
            param.default = cpp_default(argument.type, argument.default)
        fixed = argument.type.fixed if argument.type.kind == "list" else (
            argument.type.elem.fixed if argument.type.kind == "optional"
            and argument.type.elem.kind == "list" else None)
        if "IntList" in param.cpp and fixed and fixed > 1:
            param.converter = f"int_list({param.cpp_name}, {fixed})"
        elif param.cpp.startswith("std::array<bool"):
            param.converter = f"bool_list({param.cpp_name})"
        else:
            param.converter = f"arg({param.cpp_name})"
        params.append(param)
    # C++ defaults only on the trailing run of arguments that all have one.
    required_seen = False
    for param in reversed(params):
        if param.dropped:
            continue
        if param.default is None:
            required_seen = True
        elif required_seen:
            param.default = None

    # --- returns
    by_alias = {}
    for param in params:
        alias = param.arg.type.alias_set
        if alias and not param.dropped:
            by_alias[alias] = param
    returns, dropped = [], []
    inputs = "{" + ", ".join(p.cpp_name for p in params if p.tensor_input) + "}"
    for index, result in enumerate(schema.returns):
        type_ = result.type
        alias = type_.alias_set
        source = by_alias.get(alias) if alias else None
        if alias and source is None:
            raise Excluded(R_OTHER_TYPE, f"return aliases unknown {alias}")
        if type_.mutable or (source is not None and source.tensor_input == "mut"):
            if type_.kind == "base" and type_.name == "Tensor" or type_.kind == "list":
                dropped.append(result)
                continue
            raise Excluded(R_OTHER_TYPE, type_.text)
        origin = cpp_string(f"aten::{schema.key}")
        view_of = f"{source.cpp_name}, {origin}" if source is not None else ""
        if type_.kind == "base" and type_.name == "Tensor":
            if source is not None:
                if source.cpp != "TensorArg":
                    raise Excluded(R_OTHER_TYPE, f"view of {source.arg.type.text}")
                take = "resolved_view_result" if schema.key in SETS_LAZY_BITS else "view_result"
                returns.append(Return(result, "TensorView",
                                      f"op::{take}(op_call, {index}, {view_of})"))
            elif schema.fresh_results:
                returns.append(Return(result, "Tensor", f"op::fresh_tensor_result(op_call, {index})"))
            else:
                returns.append(Return(result, "Tensor",
                                      f"op::tensor_result(op_call, {index}, {inputs})"))
        elif type_.kind == "list" and type_.elem.kind == "base" and type_.elem.name == "Tensor":
            if source is not None:
                if source.cpp != "TensorArg":
                    raise Excluded(R_OTHER_TYPE, f"views of {source.arg.type.text}")
                returns.append(Return(result, "std::vector<TensorView>",
                                      f"op::views_result(op_call, {index}, {view_of})"))
            else:
                returns.append(Return(result, "std::vector<Tensor>",
                                      f"op::tensors_result(op_call, {index}, {inputs})"))
        elif type_.kind == "base" and type_.name in RETURN_SCALARS:
            cpp, kind = RETURN_SCALARS[type_.name]
            returns.append(Return(result, cpp, f"op::{kind}_result(op_call, {index})"))
        elif type_.kind == "list" and type_.elem.kind == "base" and type_.elem.name in INTS:
            returns.append(Return(result, "std::vector<std::int64_t>",
                                  f"op::ints_result(op_call, {index})"))
        else:
            raise Excluded(R_OTHER_TYPE, "returns " + type_.text)
    return Wrapper(schema, mangle(schema), params, returns, dropped)


def build(schemas: list[Schema]) -> tuple[list[Wrapper], dict[str, list[tuple[Schema, str]]]]:
    wrappers, excluded = [], collections.defaultdict(list)
    for schema in schemas:
        try:
            wrappers.append(make_wrapper(schema))
        except Excluded as why:
            excluded[why.args[0]].append((schema, why.args[1] if len(why.args) > 1 else ""))
    # Name collisions: a default overload keeps its plain name; any other
    # overload mangled onto a taken name is left out.
    by_name = collections.defaultdict(list)
    for wrapper in wrappers:
        by_name[wrapper.cpp_name].append(wrapper)
    kept = []
    for wrapper in wrappers:
        rivals = by_name[wrapper.cpp_name]
        if len(rivals) == 1 or not wrapper.schema.overload:
            kept.append(wrapper)
        else:
            other = next(w for w in rivals if w is not wrapper)
            excluded[R_NAME].append((wrapper.schema, f"`{wrapper.cpp_name}` is also aten::"
                                     f"{other.schema.key}"))
    kept.sort(key=lambda w: w.cpp_name)
    return kept, excluded


# ---------------------------------------------------------------------------
# Rendering: one line per statement, then clang-format with the project's style.


def clang_format(text: str, path: pathlib.Path) -> str:
    """`text` formatted as the project formats `path`; unchanged without clang-format."""
    tool = shutil.which("clang-format")
    if tool is None:
        print(f"generate_ops: clang-format not found; {path} is left unformatted", file=sys.stderr)
        return text
    result = subprocess.run([tool, f"--assume-filename={REPO / path}", "--style=file"],
                            input=text, capture_output=True, text=True, cwd=REPO, check=True)
    return result.stdout


def same_code(a: str, b: str) -> bool:
    """Equal but for whitespace: formatting may differ between clang-format versions."""
    return re.sub(r"\s+", "", a) == re.sub(r"\s+", "", b)


def one_line(head: str, items: list[str], tail: str) -> str:
    return head + "(" + ", ".join(items) + ")" + tail


def declaration_params(wrapper: Wrapper, with_defaults: bool) -> list[str]:
    items = []
    for param in wrapper.params:
        if param.dropped:
            continue
        item = f"{param.cpp} {param.cpp_name}"
        if with_defaults and param.default is not None:
            item += f" = {param.default}"
        items.append(item)
    return items


def release_notes(availability: ts.Availability, oldest: ts.Version) -> list[str]:
    """What a wrapper's comment says about the torch releases that lack its op."""
    notes = []
    if availability.since > oldest:
        notes.append(f"Needs torch {ts.version_text(availability.since)} or later.")
    if availability.removed_in:
        notes.append(f"Not in torch {ts.version_text(availability.removed_in)} and later.")
    return notes


def doc_comment(wrapper: Wrapper, oldest: ts.Version) -> list[str]:
    schema = wrapper.schema
    lines = [f"/// `aten::{schema.text}`"]
    notes = []
    mutated = [p.cpp_name for p in wrapper.params if p.tensor_input == "mut"]
    if mutated:
        notes.append("Writes to " + ", ".join(f"`{m}`" for m in mutated) + ".")
    for result in wrapper.returns:
        if result.cpp in ("TensorView", "std::vector<TensorView>"):
            source = result.take.split(", ")[2]
            what = "a view" if result.cpp == "TensorView" else "views"
            notes.append(f"Returns {what} of `{source}` (borrow-checked).")
            break
    dropped = [p.arg.name for p in wrapper.params if p.dropped]
    if dropped:
        notes.append("Passes " + ", ".join(f"`{d}`" for d in dropped) +
                     " as None (a Scalar cannot cross the stable ABI).")
    notes += release_notes(schema.availability, oldest)
    if notes:
        lines.append("/// " + " ".join(notes))
    return lines


def render_header(wrappers: list[Wrapper], version: str, callable_: int, total: int,
                  oldest: ts.Version) -> str:
    lines = [
        f"// Generated by tools/generate_ops.py from the native_functions.yaml of torch {version}.",
        "// Do not edit; regenerate instead.",
        "//",
        "// fp::aten::<op>[_<overload>]: a typed function for each ATen op overload that",
        f"// libtorch's stable ABI can carry ({callable_} of {total}; docs/ops.md lists the others",
        "// and the mapping rules). Each calls libtorch's dispatcher with PyTorch's defaults",
        "// for omitted trailing arguments. Tensor inputs are fp::TensorArg (a Tensor,",
        "// TensorView or TensorMutView); tensors an op writes are fp::MutableTensor",
        "// (a non-const Tensor or a TensorMutView), checked by the borrow checker before",
        "// the op runs. Results are new Tensors, except where the schema says an op returns",
        "// (or may return) a view of an input: those are TensorViews borrowing from it.",
        "// Failures throw fp::Error with libtorch's message.",
        "#pragma once",
        "",
        "#include <array>",
        "#include <cstdint>",
    ] + (["#include <limits>"] if any("numeric_limits" in (p.default or "")
                                      for w in wrappers for p in w.params) else []) + [
        "#include <optional>",
        "#include <string_view>",
        "#include <tuple>",
        "#include <vector>",
        "",
        "#include \"flash_powder/core/arguments.h\"",
        "",
        "namespace fp::aten {",
        "",
    ]
    for wrapper in wrappers:
        lines += doc_comment(wrapper, oldest)
        lines.append(one_line(f"{wrapper.result_type} {wrapper.cpp_name}",
                              declaration_params(wrapper, True), ";"))
    lines += ["", "}  // namespace fp::aten", ""]
    return "\n".join(lines)


# Ops that can skip libtorch's dispatcher (src/aten/direct_routes.h): the
# route's call, which returns an empty handle when the op must take the
# dispatcher route after all (another device, invalid arguments, ...).
# Views computed by flash_powder: the result is a view of `self`.
DIRECT_VIEWS = {
    "transpose.int": "direct_transpose(self, dim0, dim1)",
    "t": "direct_t(self)",
    "select.int": "direct_select(self, dim, index)",
    "slice.Tensor": "direct_slice(self, dim, start, end, step)",
    "narrow": "direct_narrow(self, dim, start, length)",
    "unsqueeze": "direct_unsqueeze(self, dim)",
    "squeeze.dim": "direct_squeeze_dim(self, dim)",
    "permute": "direct_permute(self, dims)",
    "reshape": "direct_reshape(self, shape)",
    "view": "direct_reshape(self, size)",
}
# Ops that are not structured kernels but whose every implementation (CPU,
# CUDA, the composite ones) returns a newly allocated tensor, never an input:
# their results skip the check for a handed-back input. Ops that may return
# `self` (`contiguous`, `type_as`, `to`, `reshape`, `expand_as`, ...) must not
# be here. tools/tests/test_fresh_results.py calls each from Python on inputs
# where a composite could hand `self` back and checks that none does; the value
# says what makes the result new.
ALWAYS_FRESH = {
    "sum": "at::sum(self, {}, false, dtype): the structured sum.dim_IntList",
    "mean": "at::mean(self, {}, false, dtype): the structured mean.dim",
    "prod": "the CPU/CUDA kernels allocate with at::empty",
    "clone": "at::empty_like / empty_strided, then copy_",
    "relu": "at::clamp_min(self, 0): structured",
    "where.self": "at::empty, then where_out",
    "masked_fill.Tensor": "self.clone(Contiguous), then masked_fill_",
    "softmax.int": "at::_softmax (after an optional dtype conversion): structured",
    "log_softmax.int": "at::_log_softmax (after an optional dtype conversion): structured",
}
# Ops whose result is a new TensorImpl that shares the input's storage
# copy-on-write (so the alias check, which compares data pointers, would
# wrongly copy it): their results are taken as fresh.
COPY_ON_WRITE = {"_lazy_clone"}
# libtorch's CPU kernels through their C shims (aoti_torch_cpu_<op>): a new tensor.
DIRECT_KERNELS = {
    "mul.Tensor": "cpu_mul_Tensor(self, other)",
    "abs": "cpu_abs(self)",
    "cat": "cpu_cat(tensors, dim)",
    "clone": "cpu_clone(self, memory_format)",
    "conv2d": "cpu_conv2d(input, weight, bias, stride, padding, dilation, groups)",
}


# The ops flash_powder's own layers and methods call with a `str` argument,
# computed without the string crossing torch_call_dispatcher, which leaks it on
# torch 2.10-2.13 (src/aten/string_free.h; docs/architecture.md lists them).
# A route returns an empty handle (false) where it does not apply.
STRING_FREE = {
    "gelu": "string_free_gelu(self, approximate)",
    "div.Tensor_mode": "string_free_div(self, other, rounding_mode)",
    "pad": "string_free_pad(self, pad, mode, value)",
    "conv1d.padding": "string_free_conv(1, input, weight, bias, stride, padding, dilation, groups)",
    "conv2d.padding": "string_free_conv(2, input, weight, bias, stride, padding, dilation, groups)",
    "conv3d.padding": "string_free_conv(3, input, weight, bias, stride, padding, dilation, groups)",
}
STRING_FREE_IN_PLACE = {
    "div_.Tensor_mode": "string_free_div_(self, other, rounding_mode)",
}


def direct_route(wrapper: Wrapper) -> list[str]:
    """The lines that try the op's route around the dispatcher, if it has one."""
    key = wrapper.schema.key
    origin = cpp_string(wrapper.qualified)
    if key in STRING_FREE_IN_PLACE:
        return [f"  if (op::{STRING_FREE_IN_PLACE[key]}) return;"]
    if key in STRING_FREE:
        result = "Tensor(std::move(direct))"
        call = STRING_FREE[key]
    elif key in DIRECT_VIEWS:
        result = f"op::direct_view(std::move(direct), self, {origin})"
        call = DIRECT_VIEWS[key]
    elif key in DIRECT_KERNELS:
        result = "Tensor(std::move(direct))"
        call = DIRECT_KERNELS[key]
    else:
        return []
    return [f"  if (abi::TensorHandle direct = op::{call}) return {result};"]


def dispatch_route_registration(wrapper: Wrapper) -> list[str]:
    """Registers the string-free route of fp::dispatch's calls of the op."""
    if wrapper.schema.key not in STRING_FREE:
        return []
    name = wrapper.cpp_name
    return [
        "namespace {",
        f"[[maybe_unused]] const bool {name}_dispatch_route = abi::set_string_free_route(",
        f"    {wrapper.schema.index}, &op::dispatched_{name});",
        "}  // namespace",
    ]


def render_definition(wrapper: Wrapper) -> list[str]:
    schema = wrapper.schema
    lines = [one_line(f"{wrapper.result_type} {wrapper.cpp_name}",
                      declaration_params(wrapper, False), " {")]
    lines += direct_route(wrapper)
    # The schema by its position in the builtin table (the comment names it).
    lines.append(f"  // aten::{schema.key}")
    lines.append(f"  static const abi::Schema& op_schema = abi::builtin_schema({schema.index});")
    origin = cpp_string(wrapper.qualified)
    inputs = [p.cpp_name for p in wrapper.params if p.tensor_input == "in"]
    # abi::call checks the tensors its schema says are written; written lists
    # and the writes the schema does not declare are checked here.
    for param in wrapper.params:
        if param.cpp == "const MutableTensorList&" or param.unannotated_write:
            lines.append(one_line("  op::check_mutation",
                                  [param.cpp_name, origin, "{" + ", ".join(inputs) + "}"], ";"))
    converters = [p.converter if not p.dropped else "none()" for p in wrapper.params]
    lines.append(f"  op::FixedCall<{len(wrapper.params)}> op_call(op_schema);")
    lines.append("  op_call" + "".join("." + c for c in converters) + ".run();")
    if wrapper.returns:
        takes = [ret.take for ret in wrapper.returns]
        if len(takes) == 1:
            lines.append(f"  return {takes[0]};")
        else:
            lines.append("  return {" + ", ".join(takes) + "};")
    lines.append("}")
    return lines


def render_sources(wrappers: list[Wrapper], version: str) -> list[str]:
    # Split by op name, so that one file holds all overloads of an op.
    total = len(wrappers)
    chunks, start = [], 0
    for k in range(SOURCE_FILES):
        end = total * (k + 1) // SOURCE_FILES
        while 0 < end < total and wrappers[end].schema.name == wrappers[end - 1].schema.name:
            end += 1
        chunks.append(wrappers[start:end])
        start = end
    texts = []
    for k, chunk in enumerate(chunks):
        lines = [
            f"// Generated by tools/generate_ops.py from the native_functions.yaml of torch "
            f"{version}.",
            f"// Do not edit; regenerate instead. Part {k + 1} of {SOURCE_FILES} of the "
            "definitions of",
            "// include/flash_powder/aten/aten.h.",
            "#include \"flash_powder/aten/aten.h\"",
            "",
            "#include \"abi/string_free_routes.h\"",
            "#include \"aten/call.h\"",
            "#include \"aten/direct_routes.h\"",
            "#include \"aten/string_free.h\"",
            "#include \"flash_powder/abi/schema.h\"",
            "",
            "namespace fp::aten {",
            "",
            "namespace op = detail;",
            "",
        ]
        for wrapper in chunk:
            lines += render_definition(wrapper)
            lines += dispatch_route_registration(wrapper)
            lines.append("")
        lines += ["}  // namespace fp::aten", ""]
        texts.append("\n".join(lines))
    return texts


def render_releases(schemas: list[Schema], wrappers: list[Wrapper],
                    ops: ts.OpsByRelease) -> list[str]:
    """The section on the overloads that not every supported torch has."""
    functions = {w.schema.key: w.cpp_name for w in wrappers}
    releases = ", ".join(ts.version_text(r) for r in ops.releases)
    lines = [
        "## Ops by torch release",
        "",
        f"The same binaries run with every torch from {ts.version_text(ops.oldest)} on, but not "
        "every release has every op. Calling an overload that the loaded torch lacks (through "
        "`fp::aten::*`, `fp::dispatch` or `fp::abi::call`) throws `fp::Error` before anything "
        "reaches libtorch, e.g. `aten::_upsample_lanczos2d_aa needs torch 2.12 or later; this "
        "process loaded torch 2.11.0`. The overloads below are the ones that torch "
        f"{releases} do not all have (from `tools/data/aten_ops_by_release.txt`); every other "
        "overload is in all of them. `fp::abi::find_schema(op, overload).availability` tells "
        "the same at run time.",
        "",
        "| overload | `fp::aten::` | first release | removed in |",
        "|---|---|---|---|",
    ]
    for schema in sorted(schemas, key=lambda s: s.key):
        availability = schema.availability
        if availability.since == ops.oldest and availability.removed_in is None:
            continue
        function = f"`{functions[schema.key]}`" if schema.key in functions else "(excluded)"
        removed = ts.version_text(availability.removed_in) if availability.removed_in else ""
        lines.append(f"| `{schema.key}` | {function} | {ts.version_text(availability.since)} | "
                     f"{removed} |")
    lines.append("")
    lines += tensor_property_note(ops, functions)
    return lines


# Tensor properties that older torch releases have as TorchScript operators
# only, and the fp::Tensor methods that read them on every release.
TENSOR_PROPERTIES = {"dim": "dim()", "numel": "numel()", "storage_offset": "storage_offset()",
                     "is_contiguous": "is_contiguous()", "get_device": "device()"}


def tensor_property_note(ops: ts.OpsByRelease, functions: dict[str, str]) -> list[str]:
    newer = [key for key in TENSOR_PROPERTIES if ops.availability(key).since > ops.oldest]
    if not newer:
        return []
    since = max(ops.availability(key).since for key in newer)
    symbolic = [f"`fp::aten::{functions['sym_' + k]}`" for k in newer
                if "sym_" + k in functions and ops.availability("sym_" + k).since == ops.oldest]
    return [
        f"Before torch {ts.version_text(since)}, " + ", ".join(f"`aten::{k}`" for k in newer) +
        " are TorchScript operators only: Python's `torch.ops.aten` finds them, libtorch's "
        "dispatcher does not. The `fp::Tensor` methods " +
        ", ".join(f"`{TENSOR_PROPERTIES[k]}`" for k in newer) +
        " read the same through C shims with every torch" +
        (", and so do " + " and ".join(symbolic) if symbolic else "") + ".",
        "",
    ]


def render_doc(wrappers: list[Wrapper], excluded: dict, version: str, schemas: list[Schema],
               ops: ts.OpsByRelease) -> str:
    total = len(schemas)
    callable_ = len(wrappers)
    n_excluded = sum(len(v) for v in excluded.values())
    views = sum(1 for w in wrappers if any("View" in r.cpp for r in w.returns))
    mutating = sum(1 for w in wrappers if any(p.tensor_input == "mut" for p in w.params))
    dropped = sum(1 for w in wrappers if any(p.dropped for p in w.params))
    lines = [
        "# Generated ATen ops: `fp::aten::*`",
        "",
        f"<!-- Generated by tools/generate_ops.py from torch {version}; do not edit. -->",
        "",
        f"**{callable_} of {total} ATen op overloads are callable** as typed C++ functions "
        f"in `#include <flash_powder/aten/aten.h>`; {n_excluded} are excluded (listed below). "
        f"{views} return views, {mutating} write to an argument, {dropped} pass a `Scalar?` "
        "argument as None.",
        "",
        "```cpp",
        "#include <flash_powder/aten/aten.h>",
        "",
        "fp::Tensor m = fp::tensor({{5.f, 3.f}, {1.f, 2.f}});",
        "fp::Tensor y = fp::aten::flip(m, {0});                // aten::flip",
        "auto [values, indices] = fp::aten::max_dim(m, 1);     // aten::max.dim, keepdim=False",
        "fp::aten::abs_(m);                                    // in place (m is not const)",
        "fp::TensorView t = fp::aten::transpose_int(m, 0, 1);  // a view of m",
        "// fp::aten::abs_(m) would now throw fp::BorrowError: t would change under it",
        "```",
        "",
        "## Mapping rules",
        "",
        "* **Names.** `aten::<name>` (the default overload) is `fp::aten::<name>`; any other "
        "overload `aten::<name>.<overload>` is `fp::aten::<name>_<overload>` (`max.dim` -> "
        "`max_dim`); an in-place op's trailing `_` moves after the overload, so that no name "
        "holds `__`, which C++ reserves (`fill_.Tensor` -> `fill_Tensor_`). Python's dunder ops "
        "drop the underscores for a `dunder_` prefix (`__and__.Tensor` -> `dunder_and_Tensor`). "
        "A name "
        "that is a C++ keyword gets a trailing `_`. Where a non-default overload's name "
        "collides with another function, that overload is left out.",
        "* **Arguments** keep the schema's order, keyword-only ones included (they become "
        "positional). Schema defaults become C++ default arguments on the trailing run of "
        "arguments that all have one (an argument with a default before one without must be "
        "passed).",
        "* **Argument types** (`include/flash_powder/core/arguments.h`):",
        "",
        "  | schema | C++ |",
        "  |---|---|",
        "  | `Tensor` | `fp::TensorArg`: a `const Tensor&` (temporaries too), `TensorView` or "
        "`TensorMutView` |",
        "  | `Tensor?` | `std::optional<fp::TensorArg>` (`std::nullopt` is None) |",
        "  | `Tensor(a!)` (written by the op) | `fp::MutableTensor`: a non-const `Tensor&` or a "
        "`TensorMutView` |",
        "  | `Tensor[]`, `Tensor?[]`, `Tensor(a!)[]` | `fp::TensorList`, `fp::OptionalTensorList`, "
        "`fp::MutableTensorList` (braced lists, vectors, spans) |",
        "  | `int`, `SymInt` | `std::int64_t` |",
        "  | `int[]`, `int[N]`, `SymInt[]` | `fp::IntList` (a braced list, a vector or one value; "
        "one value fills an `int[N]`, as in Python) |",
        "  | `int[]?` | `fp::OptionalIntList` |",
        "  | `float`, `float[]`, `float[]?` | `double`, `fp::ArrayRef<double>`, "
        "`fp::OptionalArrayRef<double>` |",
        "  | `bool`, `bool[N]` | `bool`, `std::array<bool, N>` |",
        "  | `str` | `std::string_view` |",
        "  | `ScalarType`, `Layout`, `Device`, `MemoryFormat` | `fp::DType`, `fp::Layout`, "
        "`fp::Device`, `fp::MemoryFormat` |",
        "  | `Generator?` | `std::optional<fp::abi::RawGenerator>` |",
        "  | `T?` (other) | `std::optional<T>` |",
        "  | `Scalar?` | left out of the signature, always None (the stable ABI cannot carry a "
        "Scalar) |",
        "",
        "  Defaults translate as: `None` -> `std::nullopt`, `True` -> `true`, `[0, 1]` -> "
        "`{0, 1}`, `'linear'` -> `\"linear\"`, `Mean` -> `1`, `long` -> `fp::DType::I64`, "
        "`contiguous_format` -> `fp::MemoryFormat::Contiguous`, `int[2] stride=1` -> `1`.",
        "* **Returns.** `Tensor` -> `fp::Tensor`, tuples -> `std::tuple`, `Tensor[]` -> "
        "`std::vector<fp::Tensor>`, `int` -> `std::int64_t`, `float` -> `double`, `bool`, "
        "`ScalarType` -> `fp::DType`, `()` -> `void`. A returned Tensor is never an alias of "
        "an input: where a composite op hands back one of its inputs (`atleast_1d`, "
        "`type_as`, ...), the result is a lazy copy-on-write clone.",
        "* **Views.** A return annotated `Tensor(a)` (a view such as `transpose`, `select`, "
        "`expand`, `unbind`, or a maybe-view such as `reshape`, `contiguous`) is a "
        "`fp::TensorView` (or `std::vector<fp::TensorView>`) that borrows from the same owner "
        "as input `a`: with the borrow checker on, mutating that owner while the view lives "
        "throws `fp::BorrowError`.",
        "* **Writes.** An op that writes to an argument (`abs_`, the `out=` variants, the "
        "`_foreach_*_` ops) checks the borrow rules first: no view of the written tensor may be "
        "alive, except the op's own arguments, as in `mul_Tensor_(t, t)`; a TensorMutView's "
        "parent cannot be written at all while the view lives. A temporary TensorMutView may "
        "be written (`abs_(t.i_mut(0))`: the write reaches `t`); a temporary or const Tensor "
        "may not (the change would be lost, or break const). Returns that are the written "
        "arguments (`-> Tensor(a!)`) are dropped: the caller already has them.",
        "* **Writes the schema does not declare.** Batch norm in training mode updates "
        "`running_mean` and `running_var`, though its schema does not mark them `(a!)`; in "
        + ", ".join(f"`{w.schema.key}`" for w in wrappers if w.schema.key in UNANNOTATED_WRITES) +
        " they are `std::optional<fp::MutableTensor>`. (Inference code can pass const "
        "statistics to `_native_batch_norm_legit_no_training`.)",
        "",
        "## Known libtorch issues",
        "",
        "* torch 2.10-2.13 leak one `std::string` (32 bytes) per plain `str` argument "
        "(`gelu`'s `approximate`, `meshgrid.indexing`, ...) in `torch_call_dispatcher`; "
        "fixed in 2.14. Optional strings (`str?`) are affected the same way.",
        "* torch 2.13's `torch_call_dispatcher` reads the types of tuple results in reverse "
        "order (see the excluded group below); tuples of Tensors only are fine.",
        "",
    ]
    lines += render_releases(schemas, wrappers, ops)
    lines += [
        "## Excluded overloads",
        "",
    ]
    order = list(EXPLANATIONS)
    lines.append("| reason | overloads |")
    lines.append("|---|---:|")
    for reason in order:
        if excluded.get(reason):
            lines.append(f"| {reason} | {len(excluded[reason])} |")
    lines.append(f"| **all excluded** | **{n_excluded}** |")
    lines.append("")
    for reason in order:
        entries = excluded.get(reason)
        if not entries:
            continue
        lines.append(f"### {reason} ({len(entries)})")
        lines.append("")
        lines.append(EXPLANATIONS[reason])
        lines.append("")
        if reason == R_SCALAR:
            names = sorted(s.key for s, _ in entries)
            lines.append(", ".join(f"`{n}`" for n in names))
        else:
            for schema, detail in sorted(entries, key=lambda e: e[0].key):
                suffix = f" ({detail})" if detail else ""
                lines.append(f"* `{schema.key}`{suffix}")
        lines.append("")
    return "\n".join(lines)


def read_schemas(torch: pathlib.Path, ops: ts.OpsByRelease) -> list[Schema]:
    texts = ts.read_schemas(torch)
    ts.check_ops_by_release(ops, ts.torch_version(torch), texts)
    schemas = [parse_schema(text) for text in texts]
    fresh = ts.structured_delegates(torch) | ALWAYS_FRESH.keys() | COPY_ON_WRITE
    table_order = sorted(texts, key=ts.schema_key)
    positions = {ts.schema_key(text): i for i, text in enumerate(table_order)}
    for schema in schemas:
        schema.index = positions[schema.key]
        schema.availability = ops.availability(schema.key)
        schema.fresh_results = schema.key in fresh
    return schemas


def generate(torch: pathlib.Path) -> tuple[dict[pathlib.Path, str], int, int]:
    version = ts.version_text(ts.torch_version(torch))
    ops = ts.read_ops_by_release()
    schemas = read_schemas(torch, ops)
    wrappers, excluded = build(schemas)
    routed = DIRECT_VIEWS.keys() | DIRECT_KERNELS.keys() | STRING_FREE.keys() | STRING_FREE_IN_PLACE.keys()
    missing = routed - {w.schema.key for w in wrappers}
    if missing:
        sys.exit(f"generate_ops: direct routes for ops without a wrapper: {sorted(missing)}")
    files = {HEADER: render_header(wrappers, version, len(wrappers), len(schemas), ops.oldest)}
    for k, text in enumerate(render_sources(wrappers, version)):
        files[SOURCE_DIR / f"aten_{k}.cpp"] = text
    files[DOC] = render_doc(wrappers, excluded, version, schemas, ops)
    files[pathlib.Path(schema_types.HEADER)] = schema_types.render_header()
    return files, len(wrappers), len(schemas)


def is_cpp(path: pathlib.Path) -> bool:
    return path.suffix in (".h", ".cpp")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if a committed file differs from what this torch gives")
    parser.add_argument("--root", type=pathlib.Path, default=REPO,
                        help="write under this directory instead of the repository")
    args = parser.parse_args()

    files, callable_, total = generate(ts.torch_dir())
    if args.check:
        # C++ files are compared ignoring whitespace, so the check needs no
        # clang-format (and no particular version of it).
        def fresh(path: pathlib.Path, text: str) -> bool:
            target = args.root / path
            if not target.exists():
                return False
            current = target.read_text()
            return same_code(current, text) if is_cpp(path) else current == text

        stale = [p for p, text in files.items() if not fresh(p, text)]
        if stale:
            for path in stale:
                print(f"generate_ops: {path} is stale for this torch; rerun without --check")
            return 1
        print(f"generate_ops: callable {callable_} / all {total}; up to date")
        return 0
    written = 0
    for path, text in files.items():
        if is_cpp(path):
            text = clang_format(text, path)
        target = args.root / path
        if target.exists() and target.read_text() == text:
            continue  # unchanged: keep its time stamp, so nothing rebuilds
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(target.suffix + ".tmp")
        tmp.write_text(text)
        tmp.replace(target)
        written += 1
    print(f"generate_ops: callable {callable_} / all {total}; "
          f"{written} of {len(files)} files changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
