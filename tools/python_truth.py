#!/usr/bin/env python3
"""python_truth: take the expected values in C++ tests from Python PyTorch.

C++ tests compare flash_powder against PyTorch.  Instead of pasting numbers by
hand, a test states how Python computes them, and the values reach the test
in one of two ways:

* markers (below) write values that cannot differ between machines (shapes,
  dtypes, integers, messages) into the C++ source, and ``check`` fails when
  one is stale;
* ``truth<T>("expression")`` calls (tests/support/truth.h) read values that
  depend on libtorch's kernels at run time: ``evaluate`` computes them with
  the torch and CPU settings of the run into a cache the tests read.

Format
------
A *Python block* is a C comment whose first non-blank line is ``#|PYTHON``.
The rest of the comment is Python code (common indentation is removed).
A *marker* is a line comment ``// #PYTHON <expression>`` after a statement::

    TEST(Functional, Conv2d) {
      /*
      #|PYTHON
      d = torch.arange(1.0, 17.0).reshape([1, 4, 4])
      w = torch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
      r = torch.nn.functional.conv2d(d, w)
      */
      auto r = fp::functional::conv2d(d, w);
      EXPECT_EQ(r.sizes(), (std::vector<int64_t>{1, 1, 3, 3}));  // #PYTHON list(r.shape)
      const std::vector<float> expected = {37.0, 47.0};  // #PYTHON r.flatten()[:2].tolist()
      EXPECT_EQ(r.dtype(), fp::DType::F32);  // #PYTHON r.dtype
    }

Running ``python_truth.py update tests/functional/test_conv.cpp`` evaluates
each marker's expression and writes the value into its statement:

* a call such as ``EXPECT_EQ(a, b);`` gets its *last argument* replaced
  (``EXPECT_EQ(a, b) << "message";`` works too);
* a declaration ``const T x = init;`` / ``T x{init};`` gets its initialiser
  replaced;
* if the replaced text contains a brace group ``{...}``, only the inside of
  the outermost brace group changes, so write ``(std::vector<int64_t>{})``
  once and the type and the comma-protecting parentheses stay yours.

The marker goes on the statement's last line (after the ``;``) or alone on
the line directly below it.

Scoping: every TEST / TEST_F / TEST_P / TYPED_TEST body gets a fresh Python
namespace with ``torch`` and ``math`` imported and ``torch.manual_seed(0)``
called.  Blocks and markers of one test run in source order in that
namespace.  A block outside any test that starts with ``#|PYTHON_GLOBAL``
runs first in every test's namespace of that file (shared helpers).

Values are rendered as C++: bool -> ``true``; int -> ``42`` (``ULL`` above
INT64_MAX); float -> shortest round-trip repr (``0.1``, ``1e-05``), inf/nan
via ``std::numeric_limits<double>``; complex -> ``std::complex<double>(re, im)``;
str -> escaped string literal; torch.dtype -> ``fp::DType::F32``;
torch.device -> ``fp::Device::parse("cpu")``; list/tuple/torch.Size ->
``{a, b}`` (nested lists nest braces); torch.Tensor -> its ``tolist()``.

Commands
--------
``extract FILE...``            print each test's Python program
``execute FILE...``            print ``file:line: expr = value`` per marker
``substitute FILE [-o OUT]``   write the substituted file to OUT or stdout
``update FILE...``             substitute in place (then clang-format if the
                               project has a .clang-format)
``check PATH...``              fail (exit 1) if any value is stale
``evaluate PATH... --cache-dir DIR``
                               compute every ``truth<T>("expr")`` value into
                               DIR/truth-<torch>-<cpu settings>.json (nothing
                               to do when that file is current)

``--test-case GLOB`` limits any command to tests whose ``Suite.Name`` or
``Name`` matches.  Python errors are reported as ``file.cpp:line:`` of the
failing Python line and exit with status 2.

Values already in the file are compared token by token (whitespace,
comments and a trailing comma are ignored), so ``update`` only rewrites stale
values and keeps hand formatting.  A suffix carried by every old literal
(``2584u``, ``0.5f``) is kept on the new literals of the same kind.  ``check`` on a directory searches *.cpp,
*.cc, *.h and *.hpp files that use the markers, skipping hidden directories.

clang-format: its comment reflow would break long Python lines, so
``update`` verifies the Python is unchanged after formatting and otherwise
restores the unformatted file with an error.  Use ``ReflowComments: false``
in .clang-format (or keep Python lines within the column limit).

Run-time truth: a call ``truth<T>("expr")`` (or ``truth<T>(R"(expr)")``) in a
test body is a step like a marker, run in source order with the blocks; its
value goes into the cache under the test's ``Suite.Name`` and the expression.
The cache file is named by ``torch.__version__`` (without a local part) and
ATEN_CPU_CAPABILITY, MKL_ENABLE_INSTRUCTIONS, ONEDNN_MAX_CPU_ISA and MKL_CBWR
(``auto`` when unset), which the C++ side reads from its own process. Python modules
in a ``support/`` folder of the test file's directories are importable.

Limitations: ``*/`` cannot appear in a Python block (it ends the comment);
markers must be inside a test; ``print`` output from blocks goes to stderr.

Why this file is long: one tool (extracting the Python blocks, running
them per torch and CPU setting, the cache, the checks), each part small.
"""

from __future__ import annotations

import argparse
import bisect
import builtins
import contextlib
import fnmatch
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence, Union

with warnings.catch_warnings():
    # torch warns on import when NumPy is absent; NumPy is optional here.
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
    import torch


class TruthError(Exception):
    """A problem in a C++ test file, reported as ``file:line: message``."""

    def __init__(self, path: str, line: int, message: str, details: str = ""):
        self.path, self.line, self.message = path, line, message
        text = f"{path}:{line}: {message}"
        super().__init__(text + ("\n" + details.rstrip() if details else ""))


# --------------------------------------------------------------------------
# Rendering Python values as C++ source
# --------------------------------------------------------------------------

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
UINT64_MAX = 2**64 - 1

_DTYPE_NAMES = {
    "bool": "Bool", "uint8": "U8", "uint16": "U16", "uint32": "U32",
    "uint64": "U64", "int8": "I8", "int16": "I16", "int32": "I32",
    "int64": "I64", "float16": "F16", "bfloat16": "BF16", "float32": "F32",
    "float64": "F64", "complex32": "C32", "complex64": "C64",
    "complex128": "C128", "float8_e4m3fn": "F8_E4M3FN",
    "float8_e5m2": "F8_E5M2", "float8_e4m3fnuz": "F8_E4M3FNUZ",
    "float8_e5m2fnuz": "F8_E5M2FNUZ", "float8_e8m0fnu": "F8_E8M0FNU",
    "float4_e2m1fn_x2": "F4_E2M1FN_X2",
}
# Keyed by the dtype object so aliases (torch.float, torch.half) map too;
# dtypes missing from the installed torch are simply not mapped.
DTYPE_TO_CPP = {
    getattr(torch, name): f"fp::DType::{cpp}"
    for name, cpp in _DTYPE_NAMES.items()
    if isinstance(getattr(torch, name, None), torch.dtype)
}

_STRING_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def cpp_string_literal(text: str) -> str:
    """A C++ string literal for `text`; printable UTF-8 passes through."""
    pieces = []
    for char in text:
        if char in _STRING_ESCAPES:
            pieces.append(_STRING_ESCAPES[char])
        elif char.isprintable():
            pieces.append(char)
        else:
            # Octal, not hex: a hex escape would swallow following hex digits.
            raw = char.encode("utf-8", "surrogatepass")
            pieces.extend(f"\\{byte:03o}" for byte in raw)
    return '"' + "".join(pieces) + '"'


def render_int(value: int, where: str) -> str:
    if INT64_MIN < value <= INT64_MAX:
        return str(value)
    if value == INT64_MIN:
        # `-9223372036854775808` is unary minus applied to an out-of-range literal.
        return "(-9223372036854775807LL - 1)"
    if INT64_MAX < value <= UINT64_MAX:
        return f"{value}ULL"
    raise RenderError(f"integer {value} does not fit in 64 bits", where)


def render_float(value: float) -> str:
    if math.isnan(value):
        return "std::numeric_limits<double>::quiet_NaN()"
    if math.isinf(value):
        sign = "-" if value < 0 else ""
        return sign + "std::numeric_limits<double>::infinity()"
    return repr(value)  # shortest round-trip; always has '.' or 'e'


class RenderError(Exception):
    def __init__(self, message: str, where: str = ""):
        super().__init__(message)
        self.where = where


def _as_plain_python(value):
    """Tensors and NumPy values become Python lists/scalars."""
    if isinstance(value, torch.Tensor):
        return value.tolist()
    is_numpy = type(value).__module__.split(".")[0] == "numpy"
    if is_numpy and hasattr(value, "tolist"):
        return value.tolist()
    return value


def _is_sequence(value) -> bool:
    return isinstance(value, (list, tuple))  # torch.Size is a tuple


def render_scalar(value, where: str = "") -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return render_int(value, where)
    if isinstance(value, float):
        return render_float(value)
    if isinstance(value, complex):
        real, imag = render_float(value.real), render_float(value.imag)
        return f"std::complex<double>({real}, {imag})"
    if isinstance(value, str):
        return cpp_string_literal(value)
    if isinstance(value, torch.dtype):
        if value not in DTYPE_TO_CPP:
            raise RenderError(f"no fp::DType for {value}", where)
        return DTYPE_TO_CPP[value]
    if isinstance(value, torch.device):
        return f"fp::Device::parse({cpp_string_literal(str(value))})"
    type_name = f"{type(value).__module__}.{type(value).__qualname__}"
    raise RenderError(f"cannot render a value of type {type_name} as C++", where)


def render_elements(value, where: str = "") -> str:
    """The text that goes inside an existing brace group."""
    value = _as_plain_python(value)
    if _is_sequence(value):
        return ", ".join(render(item, where) for item in value)
    return render_scalar(value, where)


def render(value, where: str = "") -> str:
    """A standalone C++ expression for `value`; sequences get braces."""
    value = _as_plain_python(value)
    if _is_sequence(value):
        return "{" + render_elements(value, where) + "}"
    return render_scalar(value, where)


# --------------------------------------------------------------------------
# C++ tokenizer: just enough to see comments, literals and brackets.
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class Token:
    kind: str  # ident, number, string, char, punct, comment, preproc
    text: str
    start: int
    end: int


_IDENT = re.compile(r"(?:[^\W\d]|\$)[\w$]*")
# pp-number: exponent signs first so `1e+5` stays one token; `'` separators.
_NUMBER = re.compile(r"\.?\d(?:[eEpP][+-]|'?[\w.])*")
_STRING_PREFIXES = {"u8", "u", "U", "L", "R", "u8R", "uR", "UR", "LR"}
# `>>` is deliberately absent: it must close two template argument lists.
_PUNCTUATORS = sorted(
    ["...", "<=>", "<<=", ">>=", "->*", "::", "->", "++", "--", "<<", "<=",
     ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=",
     "^=", ".*", "##"],
    key=len, reverse=True)


class LineIndex:
    """Maps string offsets to 1-based line numbers."""

    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)


class Tokenizer:
    def __init__(self, path: str, text: str):
        self.path, self.text = path, text
        self.lines = LineIndex(text)

    def error(self, offset: int, message: str) -> TruthError:
        return TruthError(self.path, self.lines.line_of(offset), message)

    def tokens(self) -> list[Token]:
        text, pos, result = self.text, 0, []
        at_line_start = True  # only whitespace/comments since the newline
        while pos < len(text):
            char = text[pos]
            if char == "\n":
                at_line_start, pos = True, pos + 1
            elif char in " \t\r\f\v":
                pos += 1
            elif char == "\\" and text.startswith(("\n", "\r\n"), pos + 1):
                pos += 2  # line splice; the newline itself is skipped next
            elif text.startswith("//", pos):
                pos = self._emit(result, "comment", pos, self._line_end(pos))
            elif text.startswith("/*", pos):
                pos = self._emit(result, "comment", pos, self._block_comment_end(pos))
            elif char == "#" and at_line_start:
                pos = self._emit(result, "preproc", pos, self._line_end(pos))
            else:
                at_line_start = False
                pos = self._code_token(result, pos)
        return result

    def _emit(self, out: list[Token], kind: str, start: int, end: int) -> int:
        out.append(Token(kind, self.text[start:end], start, end))
        return end

    def _code_token(self, out: list[Token], pos: int) -> int:
        text = self.text
        ident = _IDENT.match(text, pos)
        if ident:
            quote = text[ident.end()] if ident.end() < len(text) else ""
            if quote and quote in "\"'" and ident.group() in _STRING_PREFIXES:
                return self._literal(out, pos, ident.end(), ident.group())
            return self._emit(out, "ident", pos, ident.end())
        number = _NUMBER.match(text, pos)
        if number:
            return self._emit(out, "number", pos, number.end())
        if text[pos] in "\"'":
            return self._literal(out, pos, pos, "")
        for punct in _PUNCTUATORS:
            if text.startswith(punct, pos):
                return self._emit(out, "punct", pos, pos + len(punct))
        return self._emit(out, "punct", pos, pos + 1)

    def _literal(self, out: list[Token], start: int, quote_pos: int, prefix: str) -> int:
        quote = self.text[quote_pos]
        if quote == '"' and prefix.endswith("R"):
            end = self._raw_string_end(quote_pos)
        else:
            end = self._quoted_end(quote_pos)
        return self._emit(out, "string" if quote == '"' else "char", start, end)

    def _line_end(self, pos: int) -> int:
        """End of a line comment or directive, following line splices."""
        while True:
            newline = self.text.find("\n", pos)
            if newline == -1:
                return len(self.text)
            content_end = newline - 1 if self.text[newline - 1] == "\r" else newline
            if self.text[content_end - 1] != "\\":
                return content_end
            pos = newline + 1

    def _block_comment_end(self, pos: int) -> int:
        end = self.text.find("*/", pos + 2)
        if end == -1:
            raise self.error(pos, "unterminated /* comment")
        return end + 2

    def _quoted_end(self, pos: int) -> int:
        quote, text, i = self.text[pos], self.text, pos + 1
        while i < len(text):
            if text[i] == "\\":
                i += 2
            elif text[i] == quote:
                return i + 1
            elif text[i] == "\n":
                break
            else:
                i += 1
        raise self.error(pos, f"unterminated {quote} literal")

    def _raw_string_end(self, pos: int) -> int:
        open_paren = self.text.find("(", pos)
        delimiter = self.text[pos + 1:open_paren]
        closing = ")" + delimiter + '"'
        end = self.text.find(closing, open_paren)
        if open_paren == -1 or end == -1:
            raise self.error(pos, "unterminated raw string literal")
        return end + len(closing)


def tokenize(text: str, path: str = "<text>") -> list[Token]:
    return Tokenizer(path, text).tokens()


# --------------------------------------------------------------------------
# Source model
# --------------------------------------------------------------------------

@dataclass
class PythonBlock:
    line: int  # C++ line of the block's first code line
    code: str
    is_global: bool
    offset: int = 0  # where it starts in the file: steps run in this order


@dataclass
class Target:
    """The span of C++ text a marker's value is written into."""
    start: int
    end: int
    braced: bool  # the span is the inside of a brace group


@dataclass
class Marker:
    line: int
    expression: str
    target: Target
    offset: int = 0


@dataclass
class Truth:
    """A `truth<T>("expression")` call: a value the test reads at run time
    from the cache `evaluate` writes, computed by the PyTorch beside it."""
    line: int
    expression: str
    offset: int = 0


@dataclass
class TestCase:
    suite: str
    name: str
    line: int
    body_start: int
    body_end: int
    steps: list[Union[PythonBlock, Marker, Truth]] = field(default_factory=list)

    @property
    def full_name(self) -> str:
        return f"{self.suite}.{self.name}"

    def matches(self, patterns: Sequence[str] | None) -> bool:
        if not patterns:
            return True
        return any(fnmatch.fnmatchcase(self.full_name, p) or
                   fnmatch.fnmatchcase(self.name, p) for p in patterns)


@dataclass
class SourceFile:
    path: str
    text: str
    global_blocks: list[PythonBlock]
    tests: list[TestCase]

    def markers(self, patterns=None) -> list[Marker]:
        return [step for test in self.tests if test.matches(patterns)
                for step in test.steps if isinstance(step, Marker)]

    def truths(self, patterns=None) -> list[Truth]:
        return [step for test in self.tests if test.matches(patterns)
                for step in test.steps if isinstance(step, Truth)]


TEST_MACROS = {"TEST", "TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P"}
_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {v: k for k, v in _OPENERS.items()}
# Tokens that may end the type right before a declared name.
_TYPE_ENDERS = {">", "*", "&", "&&"}
_NOT_TYPES = {"return", "throw", "co_return", "co_yield", "case", "goto",
              "else", "do", "delete", "new"}
_NOT_CALLS = {"return", "if", "while", "for", "switch", "sizeof", "throw",
              "co_return", "co_yield", "co_await", "delete", "new", "catch",
              "alignof", "decltype", "typeid", "static_assert"}
# Keywords after which a `{` opens a block, not a braced initialiser.
_BLOCK_KEYWORDS = {"else", "do", "try", "const", "noexcept", "override",
                   "final", "namespace"}


class CodeView:
    """Bracket-aware queries over the code tokens (comments left out)."""

    def __init__(self, path: str, text: str, tokens: list[Token]):
        self.path, self.text = path, text
        self.lines = LineIndex(text)
        self.code = [t for t in tokens if t.kind not in ("comment", "preproc")]
        self.starts = [t.start for t in self.code]
        self.partner = self._match_brackets()
        self._angle_cache: dict[int, int | None] = {}

    def error(self, offset: int, message: str) -> TruthError:
        return TruthError(self.path, self.lines.line_of(offset), message)

    def _match_brackets(self) -> dict[int, int]:
        partner, stack = {}, []
        for index, token in enumerate(self.code):
            if token.kind != "punct":
                continue
            if token.text in _OPENERS:
                stack.append(index)
            elif token.text in _CLOSERS:
                # Mismatches (e.g. from #if branches) are left unmatched.
                if stack and self.code[stack[-1]].text == _CLOSERS[token.text]:
                    opener = stack.pop()
                    partner[opener], partner[index] = index, opener
        return partner

    def text_of(self, lo: int, hi: int) -> str:
        return self.text[self.code[lo].start:self.code[hi - 1].end] if hi > lo else ""

    def is_punct(self, index: int, *texts: str) -> bool:
        return (0 <= index < len(self.code) and self.code[index].kind == "punct"
                and self.code[index].text in texts)

    def is_ident(self, index: int) -> bool:
        return 0 <= index < len(self.code) and self.code[index].kind == "ident"

    # -- groups -----------------------------------------------------------

    def angle_end(self, index: int) -> int | None:
        """Closing `>` if the `<` at `index` opens a template argument list.

        Heuristic: `<` directly after an identifier, with a matching `>`
        before the next `;` or unbalanced closing bracket.
        """
        if index not in self._angle_cache:
            self._angle_cache[index] = self._find_angle_end(index)
        return self._angle_cache[index]

    def _find_angle_end(self, index: int) -> int | None:
        if not self.is_ident(index - 1):
            return None
        j = index + 1
        while j < len(self.code):
            if self.is_punct(j, ">"):
                return j
            if self.is_punct(j, ";", ")", "]", "}", "&&", "||"):
                return None
            j = (self.group_end(j) or j) + 1
        return None

    def group_end(self, index: int) -> int | None:
        """Index of the closer matching the opener at `index`, if any."""
        if self.is_punct(index, "<"):
            return self.angle_end(index)
        if self.is_punct(index, *_OPENERS):
            return self.partner.get(index)
        return None

    def split_top_level(self, lo: int, hi: int, separator: str = ",") -> list[tuple[int, int]]:
        parts, part_start, j = [], lo, lo
        while j < hi:
            if self.is_punct(j, separator):
                parts.append((part_start, j))
                part_start = j + 1
            end = self.group_end(j)
            j = (end if end is not None and end < hi else j) + 1
        parts.append((part_start, hi))
        return parts

    def find_top_level(self, lo: int, hi: int, text: str) -> int | None:
        parts = self.split_top_level(lo, hi, text)
        return parts[0][1] if len(parts) > 1 else None

    def outermost_brace_groups(self, lo: int, hi: int) -> list[tuple[int, int]]:
        groups, j = [], lo
        while j < hi:
            if self.is_punct(j, "{") and self.partner.get(j, hi) < hi:
                groups.append((j, self.partner[j]))
                j = self.partner[j]
            j += 1
        return groups

    # -- statements -------------------------------------------------------

    def statement_start(self, semicolon: int) -> int:
        """First token of the statement that ends at `semicolon`."""
        j = semicolon - 1
        while j >= 0:
            if self.is_punct(j, ";", "{", "(", "["):
                break  # previous statement, or an enclosing block/bracket
            if self.is_punct(j, ")", "]") and j in self.partner:
                j = self.partner[j]
            elif self.is_punct(j, "}") and j in self.partner:
                if not self.is_initializer_brace(self.partner[j]):
                    break  # end of a previous block statement
                j = self.partner[j]
            j -= 1
        return j + 1

    def is_initializer_brace(self, brace: int) -> bool:
        """Whether the `{` at `brace` is part of an expression (braced
        initialiser or lambda body) rather than a block's opening."""
        before = brace - 1
        if before < 0:
            return False
        token = self.code[before]
        if token.kind == "punct":
            if token.text == ")":
                return self.closes_lambda_parameters(before)
            return token.text not in (";", "{", "}", ":")
        if token.kind == "ident":
            if token.text == "mutable":
                return True
            if token.text in ("const", "noexcept") and self.is_punct(before - 1, ")"):
                return self.closes_lambda_parameters(before - 1)
            if token.text in _BLOCK_KEYWORDS:
                return False
            return not (self.is_ident(before - 1) and self.code[before - 1].text == "namespace")
        return token.kind != "string"  # extern "C" {

    def closes_lambda_parameters(self, close_paren: int) -> bool:
        open_paren = self.partner.get(close_paren)
        return open_paren is not None and self.is_punct(open_paren - 1, "]")

    def skip_statement_prefixes(self, lo: int, hi: int) -> int:
        """Skip labels and control heads, so that the marker of
        `if (c) EXPECT_EQ(a, b);` applies to the EXPECT_EQ."""
        while lo < hi:
            word = self.code[lo].text if self.is_ident(lo) else None
            if word == "case":
                colon = self.find_top_level(lo, hi, ":")
                if colon is None:
                    return lo
                lo = colon + 1
            elif word and self.is_punct(lo + 1, ":"):
                lo += 2  # `label:`, `default:`, `public:`
            elif word in ("else", "do", "constexpr"):
                lo += 1
            elif word in ("if", "for", "while", "switch") and self.is_punct(lo + 1, "("):
                lo = self.partner.get(lo + 1, hi) + 1
            elif word == "if" and self.is_ident(lo + 1):  # `if constexpr (...)`
                lo += 1
            else:
                return lo
        return lo

    def call_last_argument(self, lo: int, hi: int) -> tuple[int, int] | None:
        """`NAME(a, ..., z)` (optionally `<< ...`): the range of `z`."""
        paren = self._after_name_chain(lo, hi)
        if paren is None or not self.is_punct(paren, "("):
            return None
        close = self.partner.get(paren)
        if close is None or close >= hi:
            return None
        if close + 1 != hi and not self.is_punct(close + 1, "<<"):
            return None
        start, end = self.split_top_level(paren + 1, close)[-1]
        if start == end:
            raise self.error(self.code[paren].start, "the call has no last argument to replace")
        return start, end

    def _after_name_chain(self, lo: int, hi: int) -> int | None:
        """Index after `a::b.c->d` starting at lo, or None."""
        j = lo + 1 if self.is_punct(lo, "::") else lo
        if not self.is_ident(j) or self.code[j].text in _NOT_CALLS:
            return None
        j += 1
        while j + 1 < hi and self.is_punct(j, "::", ".", "->") and self.is_ident(j + 1):
            j += 2
        return j

    def declaration_initializer(self, lo: int, hi: int) -> tuple[int, int] | None:
        equals = self.find_top_level(lo, hi, "=")
        if equals is not None:
            if equals + 1 < hi and self.is_declarator(lo, equals):
                return equals + 1, hi
            return None
        if self.is_punct(hi - 1, "}") and hi - 1 in self.partner:
            brace = self.partner[hi - 1]
            if brace > lo and self.is_declarator(lo, brace):
                return brace, hi
        return None

    def is_declarator(self, lo: int, hi: int) -> bool:
        """Whether code[lo:hi] looks like `Type name` (or `Type name[N]`)."""
        name = hi - 1
        if self.is_punct(name, "]") and name in self.partner:
            bracket = self.partner[name]
            if self.is_ident(bracket - 1) and self.code[bracket - 1].text == "auto":
                return True  # structured binding
            if self.is_punct(bracket - 1, "&", "&&"):
                return True
            name = bracket - 1
        if name <= lo or not self.is_ident(name):
            return False
        before = self.code[name - 1]
        if before.kind == "ident":
            return before.text not in _NOT_TYPES
        return before.kind == "punct" and before.text in _TYPE_ENDERS

    def statement_target(self, semicolon: int, where: int) -> tuple[int, int]:
        """Token range [lo, hi) of the expression a marker replaces;
        errors are reported at offset `where` (the marker)."""
        lo = self.skip_statement_prefixes(self.statement_start(semicolon), semicolon)
        if lo >= semicolon:
            raise self.error(where, "no statement before the #PYTHON marker")
        found = (self.call_last_argument(lo, semicolon)
                 or self.declaration_initializer(lo, semicolon))
        if found is None:
            raise self.error(where, "a #PYTHON marker must follow a call "
                             "`NAME(..., value);` or a declaration `T x = value;`")
        return found

    def target_span(self, lo: int, hi: int) -> Target:
        groups = self.outermost_brace_groups(lo, hi)
        if len(groups) > 1:
            raise self.error(self.code[lo].start, "the replaced expression has "
                             "several brace groups; cannot tell which to fill")
        if groups:
            brace, close = groups[0]
            return Target(self.code[brace].end, self.code[close].start, braced=True)
        return Target(self.code[lo].start, self.code[hi - 1].end, braced=False)

    # -- tests ------------------------------------------------------------

    def find_tests(self) -> list[TestCase]:
        tests = []
        for index, token in enumerate(self.code):
            if token.kind == "ident" and token.text in TEST_MACROS:
                test = self._test_at(index)
                if test:
                    tests.append(test)
        return tests

    def _test_at(self, index: int) -> TestCase | None:
        if not self.is_punct(index + 1, "(") or self.is_punct(index - 1, ".", "::", "->"):
            return None
        close = self.partner.get(index + 1)
        if close is None or not self.is_punct(close + 1, "{") or close + 1 not in self.partner:
            return None
        args = self.split_top_level(index + 2, close)
        if len(args) < 2:
            return None
        body_end = self.partner[close + 1]
        return TestCase(self.text_of(*args[0]), self.text_of(*args[1]),
                        self.lines.line_of(self.code[index].start),
                        self.code[close + 1].start, self.code[body_end].end)

    def previous_code_token(self, offset: int) -> int:
        return bisect.bisect_left(self.starts, offset) - 1


_BLOCK_HEADER = re.compile(r"#\|PYTHON(_GLOBAL)?")
_MARKER = re.compile(r"//\s*#PYTHON(?:\s+(.*?))?\s*$", re.DOTALL)


def parse_python_block(comment: Token, first_line: int) -> PythonBlock | None:
    """A PythonBlock if the /* comment */ starts with #|PYTHON[_GLOBAL]."""
    lines = comment.text[2:-2].split("\n")
    header_index = next((i for i, l in enumerate(lines) if l.strip()), None)
    if header_index is None:
        return None
    header = lines[header_index].strip()
    starred = header.startswith("*")
    match = _BLOCK_HEADER.fullmatch(header.lstrip("*").strip())
    if not match:
        return None
    code_lines = [line.rstrip("\r") for line in lines[header_index + 1:]]
    if starred:  # ` * code` continuation style
        code_lines = [re.sub(r"^\s*\* ?", "", line) for line in code_lines]
    code = textwrap.dedent("\n".join(code_lines))
    return PythonBlock(first_line + header_index + 1, code, bool(match.group(1)))


def parse_marker_expression(comment: Token) -> str | None:
    """The expression of a `// #PYTHON expr` comment, else None."""
    if not comment.text.startswith("//"):
        return None
    match = _MARKER.match(comment.text)
    if not match:
        return None
    return (match.group(1) or "").strip()


TRUTH_FUNCTION = "truth"

_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'",
                   "?": "?", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def decode_cpp_string_literal(literal: str, path: str = "<text>", line: int = 0) -> str:
    """The characters of a plain or raw narrow C++ string literal."""
    if literal.startswith("R\""):
        open_paren = literal.index("(")
        return literal[open_paren + 1:-(open_paren - 1) - 1]
    if not literal.startswith('"'):
        raise TruthError(path, line, f"{TRUTH_FUNCTION}(...) takes a plain string literal, "
                         f"not {literal[:3]}...")
    body, out, i = literal[1:-1], [], 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        escape = body[i + 1]
        if escape in "01234567" and escape != "0" or (escape == "0" and body[i + 2:i + 3].isdigit()):
            digits = re.match(r"[0-7]{1,3}", body[i + 1:]).group()
            out.append(chr(int(digits, 8)))
            i += 1 + len(digits)
        elif escape in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[escape])
            i += 2
        else:
            raise TruthError(path, line, f"unsupported escape \\{escape} in a "
                             f"{TRUTH_FUNCTION}(...) expression")
    return "".join(out)


class SourceParser:
    def __init__(self, path: str, text: str):
        self.path, self.text = path, text
        self.tokens = tokenize(text, path)
        self.view = CodeView(path, text, self.tokens)
        self.lines = self.view.lines

    def error(self, offset: int, message: str) -> TruthError:
        return TruthError(self.path, self.lines.line_of(offset), message)

    def parse(self) -> SourceFile:
        tests = self.view.find_tests()
        source = SourceFile(self.path, self.text, [], tests)
        for token in self.tokens:
            if token.kind == "comment":
                self._add_comment(source, token)
        self._add_truths(source)
        for test in tests:
            test.steps.sort(key=lambda step: step.offset)
        self._check_overlaps(source)
        return source

    def _add_truths(self, source: SourceFile) -> None:
        view = self.view
        for index, token in enumerate(view.code):
            if token.kind != "ident" or token.text != TRUTH_FUNCTION:
                continue
            if view.is_punct(index - 1, ".", "->"):
                continue  # a member named truth, not ours
            expression = self._truth_argument(index)
            if expression is None:
                continue  # the declaration, or a call without a literal
            test = self._test_containing(source.tests, token.start)
            if test is None:
                raise self.error(token.start, f"{TRUTH_FUNCTION}(...) outside of a TEST body")
            if not expression.strip():
                raise self.error(token.start, f"empty {TRUTH_FUNCTION}(\"\") expression")
            test.steps.append(Truth(self.lines.line_of(token.start), expression, token.start))

    def _truth_argument(self, index: int) -> str | None:
        """The decoded string of `truth<...>("literal" "literal")`, else None."""
        view = self.view
        j = index + 1
        if view.is_punct(j, "<"):
            close = view.angle_end(j)
            if close is None:
                return None
            j = close + 1
        if not view.is_punct(j, "("):
            return None
        close = view.partner.get(j)
        if close is None:
            return None
        literals = view.code[j + 1:close]
        if not literals or any(t.kind != "string" for t in literals):
            if any(t.kind == "string" for t in literals):
                raise self.error(view.code[j].start, f"{TRUTH_FUNCTION}(...) takes one "
                                 "string literal: the Python expression")
            return None
        return "".join(decode_cpp_string_literal(t.text, self.path, self.lines.line_of(t.start))
                       for t in literals)

    def _test_containing(self, tests: list[TestCase], offset: int) -> TestCase | None:
        return next((t for t in tests if t.body_start < offset < t.body_end), None)

    def _add_comment(self, source: SourceFile, comment: Token) -> None:
        test = self._test_containing(source.tests, comment.start)
        line = self.lines.line_of(comment.start)
        if comment.text.startswith("/*"):
            block = parse_python_block(comment, line)
            if block:
                self._add_block(source, test, block, comment)
            return
        expression = parse_marker_expression(comment)
        if expression is None:
            return
        if not expression:
            raise self.error(comment.start, "empty #PYTHON marker")
        if test is None:
            raise self.error(comment.start, "#PYTHON marker outside of a TEST body")
        test.steps.append(Marker(line, expression, self._marker_target(comment), comment.start))

    def _add_block(self, source, test, block: PythonBlock, comment: Token) -> None:
        if block.is_global and test is not None:
            raise self.error(comment.start, "#|PYTHON_GLOBAL block inside a TEST; use #|PYTHON")
        if not block.is_global and test is None:
            raise self.error(comment.start, "#|PYTHON block outside of a TEST; "
                             "use #|PYTHON_GLOBAL for shared code")
        block.offset = comment.start
        (source.global_blocks if block.is_global else test.steps).append(block)

    def _marker_target(self, comment: Token) -> Target:
        view = self.view
        semicolon = view.previous_code_token(comment.start)
        if semicolon < 0 or not view.is_punct(semicolon, ";"):
            raise self.error(comment.start, "#PYTHON marker does not follow a statement ending in `;`")
        marker_line = self.lines.line_of(comment.start)
        statement_line = self.lines.line_of(view.code[semicolon].start)
        if marker_line - statement_line > 1:
            raise self.error(comment.start, "#PYTHON marker must be on the statement's "
                             "last line or the line directly after it")
        return view.target_span(*view.statement_target(semicolon, comment.start))

    def _check_overlaps(self, source: SourceFile) -> None:
        markers = sorted(source.markers(), key=lambda m: m.target.start)
        for first, second in zip(markers, markers[1:]):
            if second.target.start < first.target.end or second.target == first.target:
                raise TruthError(self.path, second.line,
                                 f"marker replaces the same text as the marker on line {first.line}")


def parse_source(path: str, text: str) -> SourceFile:
    return SourceParser(path, text).parse()


def read_source(path: str) -> SourceFile:
    return parse_source(path, read_text(path))


def read_text(path: str) -> str:
    # newline="" keeps CRLF; surrogateescape round-trips any stray bytes.
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        return f.read()


# --------------------------------------------------------------------------
# Running the Python
# --------------------------------------------------------------------------

def fresh_namespace() -> dict:
    """A clean namespace; global torch state that blocks may touch is reset
    so that one test cannot change another's results."""
    torch.set_default_dtype(torch.float32)
    torch.set_printoptions(profile="default")
    torch.set_grad_enabled(True)
    torch.manual_seed(0)
    return {"__name__": "__python_truth__", "__builtins__": builtins,
            "torch": torch, "math": math}


def _compile_at(path: str, source: str, line: int, mode: str):
    # Leading newlines make the code object's line numbers the C++ lines,
    # so tracebacks point into the .cpp file directly.
    return compile("\n" * (line - 1) + source, path, mode)


def python_error(path: str, exc: BaseException, test: TestCase, fallback_line: int) -> TruthError:
    if isinstance(exc, SyntaxError) and exc.filename == path:
        return TruthError(path, exc.lineno or fallback_line,
                          f"SyntaxError: {exc.msg} (in {test.full_name})")
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != path:
        tb = tb.tb_next  # drop this tool's own frames
    frames = [f for f in traceback.extract_tb(tb) if f.filename == path]
    line = frames[-1].lineno if frames else fallback_line
    details = "".join(traceback.format_exception(type(exc), exc, tb))
    return TruthError(path, line, f"{type(exc).__name__}: {exc} (in {test.full_name})", details)


@dataclass
class Evaluation:
    marker: Marker
    value: object
    test: TestCase


def _run_step(path: str, step, namespace: dict, test: TestCase) -> object:
    try:
        with contextlib.redirect_stdout(sys.stderr):  # keep stdout for our output
            if isinstance(step, PythonBlock):
                exec(_compile_at(path, step.code, step.line, "exec"), namespace)
                return None
            return eval(_compile_at(path, step.expression, step.line, "eval"), namespace)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit from user code is an error too
        raise python_error(path, exc, test, step.line) from None


def run_test(source: SourceFile, test: TestCase) -> list[Evaluation]:
    """Runs the test's Python; an Evaluation for each marker and truth."""
    namespace = fresh_namespace()
    results = []
    with python_path_for(source.path):
        for step in [*source.global_blocks, *test.steps]:
            value = _run_step(source.path, step, namespace, test)
            if isinstance(step, (Marker, Truth)):
                results.append(Evaluation(step, value, test))
    return results


def evaluate_all(source: SourceFile, patterns=None) -> list[Evaluation]:
    results = []
    for test in source.tests:
        if test.steps and test.matches(patterns):
            results.extend(run_test(source, test))
    return results


def evaluate(source: SourceFile, patterns=None) -> list[Evaluation]:
    """The markers' evaluations (the values written into the source)."""
    return [e for e in evaluate_all(source, patterns) if isinstance(e.marker, Marker)]


SUPPORT_DIRECTORY = "support"


@contextlib.contextmanager
def python_path_for(path: str):
    """Python modules beside the test file, or in a `support/` folder of one
    of its directories, are importable from its blocks (shared helpers)."""
    directory = Path(path).resolve().parent
    extra = [str(directory)] + [str(d / SUPPORT_DIRECTORY) for d in [directory, *directory.parents]
                                if (d / SUPPORT_DIRECTORY).is_dir()]
    saved = list(sys.path)
    sys.path[:0] = extra
    try:
        yield
    finally:
        sys.path[:] = saved


# --------------------------------------------------------------------------
# Substitution
# --------------------------------------------------------------------------

def render_for_target(evaluation: Evaluation, path: str, braced: bool | None = None) -> str:
    """The marker's value as C++ text for its target (elements only when
    the target is the inside of a brace group)."""
    marker = evaluation.marker
    braced = marker.target.braced if braced is None else braced
    try:
        return render_elements(evaluation.value) if braced else render(evaluation.value)
    except RenderError as exc:
        raise TruthError(path, marker.line, f"{exc} (marker `{marker.expression}`)") from None


def _joined_string_literals(tokens: list[str]) -> list[str]:
    """Adjacent plain string literals as one ("a" "b" -> "ab"): clang-format
    splits long literals that way, which changes nothing in the value."""
    joined: list[str] = []
    for token in tokens:
        plain = token.startswith('"') and token.endswith('"') and len(token) >= 2
        previous_plain = joined and joined[-1].startswith('"') and joined[-1].endswith('"')
        if plain and previous_plain:
            joined[-1] = joined[-1][:-1] + token[1:]
        else:
            joined.append(token)
    return joined


def _comparable_tokens(text: str, braced: bool) -> list[str]:
    tokens = [t.text for t in tokenize(text) if t.kind != "comment"]
    if braced and tokens and tokens[-1] == ",":
        tokens.pop()  # a trailing comma is only formatting
    return _joined_string_literals(tokens)


def is_up_to_date(current: str, rendered: str, braced: bool) -> bool:
    """Compare ignoring whitespace, comments and a trailing comma."""
    return _comparable_tokens(current, braced) == _comparable_tokens(rendered, braced)


_INT_LITERAL = re.compile(r"(0[xX][0-9a-fA-F']+|0[bB][01']+|\d[\d']*)([uUlLzZ]*)")
_FLOAT_LITERAL = re.compile(r"(\d[\d']*\.?[\d']*(?:[eE][+-]?\d+)?|\.\d[\d']*(?:[eE][+-]?\d+)?)([fFlL]?)")


def literal_kind_and_suffix(literal: str) -> tuple[str, str] | None:
    """("int" | "float", suffix) of a numeric literal, e.g. ("int", "u")."""
    match = _INT_LITERAL.fullmatch(literal)
    if match:
        return "int", match.group(2)
    match = _FLOAT_LITERAL.fullmatch(literal)
    if match and any(c in match.group(1) for c in ".eE"):
        return "float", match.group(2)
    return None


def uniform_literal_suffixes(text: str) -> dict[str, str]:
    """Per literal kind, the suffix every such literal in `text` carries."""
    suffixes: dict[str, set[str]] = {}
    for token in tokenize(text):
        parsed = literal_kind_and_suffix(token.text) if token.kind == "number" else None
        if parsed:
            suffixes.setdefault(parsed[0], set()).add(parsed[1])
    return {kind: found.pop() for kind, found in suffixes.items()
            if len(found) == 1 and "" not in found}


def keep_literal_suffixes(old: str, new: str) -> str:
    """Carry a suffix the author put on every literal (`2584u`, `0.5f`) over
    to the new literals of the same kind; the suffix is usually there to pick
    a type (e.g. to compare with size_t without a sign-compare warning)."""
    suffixes = uniform_literal_suffixes(old)
    if not suffixes:
        return new
    tokens = tokenize(new)
    for index in reversed(range(len(tokens))):
        token = tokens[index]
        parsed = literal_kind_and_suffix(token.text) if token.kind == "number" else None
        if not parsed or parsed[1] or parsed[0] not in suffixes:
            continue
        suffix = suffixes[parsed[0]]
        negated = index > 0 and tokens[index - 1].text == "-"
        if negated and "u" in suffix.lower():
            continue  # an unsigned literal cannot hold a negative value
        new = new[:token.end] + suffix + new[token.end:]
    return new


@dataclass
class Replacement:
    evaluation: Evaluation
    old: str
    new: str


def stale_replacements(source: SourceFile, evaluations: Iterable[Evaluation]) -> list[Replacement]:
    stale = []
    for evaluation in evaluations:
        target = evaluation.marker.target
        old = source.text[target.start:target.end]
        new = keep_literal_suffixes(old, render_for_target(evaluation, source.path))
        if not is_up_to_date(old, new, target.braced):
            stale.append(Replacement(evaluation, old, new))
    return stale


def apply_replacements(text: str, replacements: list[Replacement]) -> str:
    # Back to front so earlier offsets stay valid.
    ordered = sorted(replacements, key=lambda r: r.evaluation.marker.target.start, reverse=True)
    for replacement in ordered:
        target = replacement.evaluation.marker.target
        text = text[:target.start] + replacement.new + text[target.end:]
    return text


def substitute(source: SourceFile, patterns=None) -> str:
    return apply_replacements(source.text, stale_replacements(source, evaluate(source, patterns)))


def atomic_write(path: str, text: str) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".python_truth.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if os.path.exists(path):
            shutil.copymode(path, temporary)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def find_clang_format_config(path: str) -> Path | None:
    for directory in Path(path).resolve().parents:
        for name in (".clang-format", "_clang-format"):
            if (directory / name).is_file():
                return directory / name
    return None


def python_fingerprint(source: SourceFile) -> list[tuple[int, str]]:
    """(line, code) of every block and marker, to detect edits to them."""
    steps = [*source.global_blocks, *(s for t in source.tests for s in t.steps)]
    return [(s.line, s.code if isinstance(s, PythonBlock) else s.expression)
            for s in steps]


def clang_format_preserving_python(path: str, substituted: SourceFile) -> None:
    """Run clang-format on `path` if the project configures it.

    clang-format may break long comment lines, which would corrupt Python
    code; in that case the unformatted file is restored and an error raised.
    """
    executable = shutil.which("clang-format")
    if not executable or not find_clang_format_config(path):
        return
    subprocess.run([executable, "-i", path], check=True)
    before = python_fingerprint(substituted)
    try:
        after = python_fingerprint(read_source(path))
    except TruthError:
        after = []
    if [code for _, code in before] != [code for _, code in after]:
        atomic_write(path, substituted.text)
        changed = next((line for (line, old), (_, new) in zip(before, after) if old != new),
                       before[-1][0] if before else 1)
        raise TruthError(path, changed, "clang-format changed Python code in a comment "
                         "(file left unformatted); set `ReflowComments: false` in "
                         ".clang-format or keep Python lines within the column limit")


# --------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------

def extract_program(source: SourceFile, test: TestCase) -> str:
    """The Python program that runs for `test`, markers as print() calls."""
    out = [f"# {source.path}: {test.full_name} (line {test.line})",
           "import math", "import torch", "torch.manual_seed(0)"]
    for step in [*source.global_blocks, *test.steps]:
        if isinstance(step, PythonBlock):
            kind = "PYTHON_GLOBAL" if step.is_global else "PYTHON"
            out += ["", f"# {source.path}:{step.line} ({kind})", step.code.strip("\n")]
        else:
            out.append(f"print(repr({step.expression}))  # {source.path}:{step.line}")
    return "\n".join(out) + "\n"


def command_extract(args) -> int:
    for path in args.files:
        source = read_source(path)
        for test in source.tests:
            if test.steps and test.matches(args.test_case):
                print(extract_program(source, test))
    return 0


def command_execute(args) -> int:
    for path in args.files:
        source = read_source(path)
        for evaluation in evaluate(source, args.test_case):
            marker = evaluation.marker
            rendered = render_for_target(evaluation, path, braced=False)
            print(f"{path}:{marker.line}: {marker.expression} = {rendered}")
    return 0


def command_substitute(args) -> int:
    result = substitute(read_source(args.file), args.test_case)
    if args.output:
        atomic_write(args.output, result)
    else:
        sys.stdout.write(result)
    return 0


def command_update(args) -> int:
    for path in args.files:
        source = read_source(path)
        replacements = stale_replacements(source, evaluate(source, args.test_case))
        if not replacements:
            continue  # leave the file (and its mtime) alone
        substituted = parse_source(path, apply_replacements(source.text, replacements))
        atomic_write(path, substituted.text)
        clang_format_preserving_python(path, substituted)
        print(f"python_truth: updated {len(replacements)} values in {path}")
    return 0


SOURCE_SUFFIXES = {".cpp", ".cc", ".h", ".hpp"}
_ANY_PYTHON = re.compile(r"#\|?PYTHON|\btruth\s*[<(]")


def collect_sources(paths: Sequence[str]) -> list[str]:
    """Files as given, plus C++ files under directories that use the tool."""
    found = []
    for path in paths:
        if os.path.isdir(path):
            found.extend(c for c in _source_files_under(path)
                         if _ANY_PYTHON.search(read_text(c)))
        elif os.path.isfile(path):
            found.append(path)
        else:
            raise FileNotFoundError(f"no such file or directory: {path}")
    return found


def _source_files_under(directory: str) -> list[str]:
    files = []
    for root, dirs, names in os.walk(directory):
        # Hidden directories (.git, .venv) hold no tests but many headers.
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        files.extend(os.path.join(root, n) for n in sorted(names)
                     if os.path.splitext(n)[1] in SOURCE_SUFFIXES)
    return files


def format_stale(replacement: Replacement, path: str) -> str:
    marker = replacement.evaluation.marker
    old = " ".join(replacement.old.split())
    return (f"{path}:{marker.line}: stale value in {replacement.evaluation.test.full_name}: "
            f"{marker.expression}\n  - {old}\n  + {replacement.new}")


def command_check(args) -> int:
    files = collect_sources(args.paths)
    checked = stale_count = errors = 0
    for path in files:
        try:
            source = read_source(path)
            evaluations = evaluate(source, args.test_case)
            stale = stale_replacements(source, evaluations)
        except TruthError as error:
            print(f"python_truth: error: {error}", file=sys.stderr)
            errors += 1
            continue
        checked += len(evaluations)
        stale_count += len(stale)
        for replacement in stale:
            print(format_stale(replacement, path))
    print(f"python_truth: {checked} values in {len(files)} files checked, "
          f"{stale_count} stale" + (f", {errors} files with errors" if errors else ""))
    if errors:
        return 2
    return 1 if stale_count else 0


# --------------------------------------------------------------------------
# The run-time truth cache
# --------------------------------------------------------------------------

# The settings that pick libtorch's CPU kernels. A cache holds values computed
# under one combination; its file name says which, so that the C++ side (see
# tests/support/truth.cpp) finds the file that matches its own process.
CPU_SETTINGS = ("ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS", "ONEDNN_MAX_CPU_ISA", "MKL_CBWR")
CACHE_FORMAT = 1


def torch_release() -> str:
    """`2.13.0` for `2.13.0+cpu`: what the C++ side reads from libtorch."""
    return torch.__version__.split("+")[0]


def cpu_settings() -> dict[str, str]:
    return {name: os.environ.get(name, "") for name in CPU_SETTINGS}


def cache_file_name(release: str, settings: dict[str, str]) -> str:
    """truth-<torch>-<capability>-<mkl>-<onednn>-<mkl cbwr>.json; unset is `auto`."""
    parts = [release] + [settings.get(name) or "auto" for name in CPU_SETTINGS]
    return "truth-" + "-".join(re.sub(r"[^A-Za-z0-9_.]", "_", p) for p in parts) + ".json"


def to_json(value, where: str = ""):
    """A Python value as JSON the C++ side converts (tests/support/truth.h):
    non-finite floats as "nan"/"inf"/"-inf", complex as {"complex": [re, im]},
    dtypes as {"dtype": "float32"}, devices as {"device": "cuda:0"}."""
    value = _as_plain_python(value)
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        render_int(value, where)  # range check
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return value if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, complex):
        return {"complex": [to_json(value.real), to_json(value.imag)]}
    if isinstance(value, torch.dtype):
        return {"dtype": str(value).removeprefix("torch.")}
    if isinstance(value, torch.device):
        return {"device": str(value)}
    if _is_sequence(value):
        return [to_json(item, where) for item in value]
    type_name = f"{type(value).__module__}.{type(value).__qualname__}"
    raise RenderError(f"cannot pass a value of type {type_name} to C++", where)


def inputs_digest(files: Sequence[str], settings: dict[str, str]) -> str:
    """What a cache depends on: this tool, the test sources and the Python
    modules they import from support folders, torch, and the CPU settings."""
    digest = hashlib.sha256()
    support = {str(p) for f in files for d in Path(f).resolve().parents
               if (d / SUPPORT_DIRECTORY).is_dir() for p in (d / SUPPORT_DIRECTORY).glob("*.py")}
    for path in [__file__, *files, *sorted(support)]:
        digest.update(path.encode() + b"\0" + Path(path).read_bytes() + b"\0")
    digest.update(repr((torch.__version__, torch.__file__, sorted(settings.items()))).encode())
    return digest.hexdigest()


def build_cache(files: Sequence[str], patterns=None) -> tuple[dict, int]:
    tests: dict[str, dict] = {}
    count = 0
    for path in files:
        source = read_source(path)
        for test in source.tests:
            if not test.matches(patterns) or not any(isinstance(s, Truth) for s in test.steps):
                continue
            if test.full_name in tests:
                raise TruthError(path, test.line, f"{test.full_name} also has truth values in "
                                 f"{tests[test.full_name]['file']}; test names must be unique")
            values: dict[str, object] = {}
            for evaluation in run_test(source, test):
                step = evaluation.marker
                if not isinstance(step, Truth):
                    continue
                try:
                    value = to_json(evaluation.value)
                except RenderError as exc:
                    raise TruthError(path, step.line, f"{exc} (truth `{step.expression}`)") from None
                if step.expression in values and values[step.expression] != value:
                    raise TruthError(path, step.line, f"truth(\"{step.expression}\") has two "
                                     f"values in {test.full_name}; use distinct expressions")
                values[step.expression] = value
                count += 1
            tests[test.full_name] = {"file": path, "line": test.line, "values": values}
    return tests, count


def command_evaluate(args) -> int:
    files = collect_sources(args.paths)
    settings = cpu_settings()
    path = Path(args.cache_dir) / cache_file_name(torch_release(), settings)
    digest = inputs_digest(files, settings)
    with contextlib.suppress(OSError, ValueError):
        if json.loads(path.read_text()).get("inputs") == digest and not args.test_case:
            print(f"python_truth: {path} is up to date")
            return 0
    tests, count = build_cache(files, args.test_case)
    cache = {"format": CACHE_FORMAT, "inputs": digest, "torch": torch_release(),
             "torch_file": torch.__file__, "settings": settings,
             "cpu_capability": torch.backends.cpu.get_cpu_capability(), "tests": tests}
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(str(path), json.dumps(cache, indent=0, allow_nan=False) + "\n")
    print(f"python_truth: {count} values of {len(tests)} tests in {len(files)} files "
          f"(torch {torch_release()}, CPU capability {cache['cpu_capability']}) -> {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--test-case", action="append", metavar="GLOB",
                        help="only tests whose Suite.Name or Name matches (repeatable)")
    parser = argparse.ArgumentParser(
        prog="python_truth", description=__doc__.split("\n")[0],
        epilog="See the module docstring of tools/python_truth.py for the format.")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, help_text in [("extract", "print each test's Python program"),
                            ("execute", "print every marker's value"),
                            ("update", "substitute values in place")]:
        sub = commands.add_parser(name, parents=[common], help=help_text)
        sub.add_argument("files", nargs="+", metavar="FILE")
    sub = commands.add_parser("substitute", parents=[common],
                              help="write the substituted file to OUT or stdout")
    sub.add_argument("file", metavar="FILE")
    sub.add_argument("-o", "--output", metavar="OUT")
    sub = commands.add_parser("check", parents=[common],
                              help="exit 1 if any value is stale")
    sub.add_argument("paths", nargs="+", metavar="PATH")
    sub = commands.add_parser("evaluate", parents=[common],
                              help="compute every truth(...) value into the run-time cache")
    sub.add_argument("paths", nargs="+", metavar="PATH")
    sub.add_argument("--cache-dir", required=True, metavar="DIR",
                     help="where truth-<torch>-<cpu settings>.json goes")
    return parser


COMMANDS = {"extract": command_extract, "execute": command_execute,
            "substitute": command_substitute, "update": command_update,
            "check": command_check, "evaluate": command_evaluate}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (TruthError, OSError, subprocess.CalledProcessError) as error:
        print(f"python_truth: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
