"""How much of torch.nn flash_powder covers, checked so that it cannot drift.

Reads the public names of `torch.nn` (its Module classes) and of
`torch.nn.functional` (its functions) from the PyTorch it runs under, and
fails for any name that is neither declared by flash_powder's headers nor on
the reasoned exclusion list below. A name counts as declared only when a
compiler agrees: the check compiles one translation unit that includes the
umbrella header and names each of them (`using fp::nn::LSTM;`), so a name
found by text alone, or one the umbrella does not reach, fails.

`docs/nn.md` is generated from the same table (each name, its flash_powder
spelling, its header, its notes) and checked to be up to date when the
PyTorch beside is the one it was generated from (another torch lists other
names; the coverage is checked with every torch).

    python tools/nn_coverage.py check REPO --cxx COMPILER [--include DIR ...]
    python tools/nn_coverage.py write REPO     # regenerates docs/nn.md
"""

from __future__ import annotations

import argparse
import inspect
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

# --- what is left out, and why ------------------------------------------------------

LOSS_FUNCTIONS = {
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "kl_div",
    "linear_cross_entropy", "nll_loss",
}
LOSS_REASON = "a training loss (flash_powder runs inference)"

EXCLUDED_MODULES = {
    "AdaptiveLogSoftmaxWithLoss": "a training head whose forward returns a loss",
    "Container": "deprecated by PyTorch since 1.0 (use Sequential, ModuleList or ModuleDict)",
    "DataParallel": "a multi-GPU training wrapper",
    "SyncBatchNorm": "synchronises batch statistics across processes in training; "
                     "in eval it is BatchNorm1d/2d/3d, which load its state dict",
    "RNNCellBase": "Python's base class of RNNCell, LSTMCell and GRUCell; use those",
}
LAZY_REASON = ("infers its input size at the first call, for training code; in C++ give the "
               "size to the non-lazy module, whose state dict is the same")

EXCLUDED_FUNCTIONS = {
    "assert_int_or_pair": "an argument-checking helper of PyTorch's Python code",
    "boolean_dispatch": "a helper that builds PyTorch's `*_with_indices` overloads; "
                        "flash_powder spells them as separate functions",
    "handle_torch_function": "Python's __torch_function__ protocol",
    "has_torch_function": "Python's __torch_function__ protocol",
    "has_torch_function_unary": "Python's __torch_function__ protocol",
    "has_torch_function_variadic": "Python's __torch_function__ protocol",
    "grouped_mm": "a float8/bfloat16 grouped matmul for mixture-of-experts training on recent "
                  "NVIDIA GPUs; fp::dispatch reaches aten::_grouped_mm",
    "scaled_mm": "a float8/MX block-scaled matmul for recent NVIDIA GPUs; "
                 "fp::dispatch reaches aten::_scaled_mm",
    "scaled_grouped_mm": "a float8 block-scaled grouped matmul for recent NVIDIA GPUs; "
                         "fp::dispatch reaches aten::_scaled_grouped_mm",
    "scaled_addmm": "a float8 block-scaled matmul-add for recent NVIDIA GPUs (torch 2.15); "
                    "fp::dispatch reaches its ATen op",
    "scaled_addmm_": "the in-place form of scaled_addmm (torch 2.15)",
}

# Names flash_powder spells differently from `fp::nn::<Name>` / `fp::functional::<name>`.
SPELLING = {
    "RNNBase": "fp::nn::detail::RNNBase",
}

# What a user must know about a name beyond "equal to PyTorch's bit for bit".
NOTES = {
    "elu": "at most 1 ulp apart in the elements libtorch computes in its scalar remainder loop",
    "ELU": "as functional::elu",
    "normalize": "float32 with p other than 0, 1, 2, inf, -inf: up to 2 ulp (negative p: 4 ulp, "
                 "float64 6 ulp) in some elements; the other dtypes and p bit-exact",
    "lp_pool1d": "norm_type 0 throws fp::Error (Python's ZeroDivisionError); CPU and CUDA only",
    "lp_pool2d": "as lp_pool1d",
    "lp_pool3d": "as lp_pool1d",
    "fractional_max_pool2d": "returns values; fractional_max_pool2d_with_indices also the indices; "
                             "samples given, from an fp::Generator or from the generator "
                             "fp::nn::manual_seed seeds (drawn on the CPU for CUDA inputs)",
    "fractional_max_pool3d": "as fractional_max_pool2d",
    "FractionalMaxPool2d": "samples drawn as functional::fractional_max_pool2d; fixed ones in "
                           "the `_random_samples` option",
    "FractionalMaxPool3d": "as FractionalMaxPool2d",
    "rrelu": "training = true draws from an fp::Generator; refused for float16, as in PyTorch",
    "RReLU": "as functional::rrelu",
    "dropout": "training = true (Python's default) draws the mask as Python's from the same seed "
               "(CPU); training = false is the identity",
    "gumbel_softmax": "draws from an fp::Generator as Python's from the same seed (CPU)",
    "MultiheadAttention": "PyTorch's fast path where Python takes it; on devices other than "
                          "CPU and CUDA, mask + q k^T may round differently",
    "multi_head_attention_forward": "as MultiheadAttention's slow path",
}

MODULE_FOLDERS = ("include/flash_powder/nn",)
FUNCTION_FOLDERS = ("include/flash_powder/functional", "include/flash_powder/nn")
DOC = "docs/nn.md"


# --- the names PyTorch has ----------------------------------------------------------

def torch_names() -> tuple[str, list[str], list[str]]:
    """(torch version, torch.nn's public Module classes, torch.nn.functional's functions)."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    modules = sorted(name for name in dir(nn) if not name.startswith("_")
                     and inspect.isclass(getattr(nn, name))
                     and issubclass(getattr(nn, name), nn.Module))
    functions = sorted(name for name in dir(F) if not name.startswith("_")
                       and is_public_function(getattr(F, name)))
    return torch.__version__.split("+")[0], modules, functions


def is_public_function(value) -> bool:
    """A function of torch.nn.functional, not a class, module or typing name it imports."""
    if inspect.isclass(value) or inspect.ismodule(value) or not callable(value):
        return False
    return getattr(value, "__module__", "") not in ("typing", "collections.abc")


@dataclass
class Row:
    torch_name: str
    kind: str  # "module" or "function"
    spelling: str | None  # None: excluded
    note: str


def exclusion(name: str, kind: str) -> str | None:
    if kind == "module":
        if name.endswith("Loss") or name == "NLLLoss2d":
            return LOSS_REASON
        if name.startswith("Lazy"):
            return LAZY_REASON
        return EXCLUDED_MODULES.get(name)
    if name.endswith("_loss") or name in LOSS_FUNCTIONS:
        return LOSS_REASON
    return EXCLUDED_FUNCTIONS.get(name)


def rows(modules: list[str], functions: list[str]) -> list[Row]:
    table = []
    for kind, names, namespace in (("module", modules, "fp::nn::"),
                                   ("function", functions, "fp::functional::")):
        for name in names:
            reason = exclusion(name, kind)
            if reason is not None:
                table.append(Row(name, kind, None, reason))
            else:
                table.append(Row(name, kind, SPELLING.get(name, namespace + name),
                                 NOTES.get(name, "")))
    return table


# --- what flash_powder declares -----------------------------------------------------

def headers(repo: Path, folders: tuple[str, ...]) -> list[Path]:
    return sorted(path for folder in folders for path in (repo / folder).rglob("*.h"))


def declaring_header(repo: Path, row: Row) -> str:
    """The public header that declares `row`'s spelling, relative to include/; "" if none."""
    name = row.spelling.rsplit("::", 1)[1]
    if row.kind == "module":
        pattern = re.compile(rf"^\s*(?:class|struct|using)\s+{re.escape(name)}\b", re.M)
        folders = MODULE_FOLDERS
    else:
        pattern = re.compile(rf"^[\w:<>,\s]*?\b{re.escape(name)}\(", re.M)
        folders = FUNCTION_FOLDERS
    for path in headers(repo, folders):
        if pattern.search(path.read_text()):
            return str(path.relative_to(repo / "include"))
    return ""


def compile_names(table: list[Row], cxx: str, includes: list[str]) -> str:
    """The compiler's complaints about the names it cannot find; "" when it finds them all."""
    lines = ["#include <flash_powder/flash_powder.h>", "namespace coverage {"]
    lines += [f"using {row.spelling};" for row in table if row.spelling]
    lines += ["}  // namespace coverage", ""]
    with tempfile.NamedTemporaryFile("w", suffix=".cpp", delete=False) as source:
        source.write("\n".join(lines))
    limit = "-ferror-limit=0" if "clang" in Path(cxx).name else "-fmax-errors=0"
    command = [cxx, "-std=c++20", "-fsyntax-only", limit, source.name]
    command += [f"-I{include}" for include in includes]
    result = subprocess.run(command, capture_output=True, text=True)
    Path(source.name).unlink()
    if result.returncode == 0:
        return ""
    # g++: 'X' has not been declared in 'fp::nn'; clang: no member named 'X' in namespace 'fp::nn'.
    missing = re.findall(r"error: (?:['‘](\w+)['’] has not been declared in|"
                         r"no member named ['‘](\w+)['’] in namespace) ['‘]([\w:]+)['’]",
                         result.stderr)
    if not missing:
        return result.stderr
    return "\n".join(f"{space}::{gcc or clang}" for gcc, clang, space in missing)


# --- docs/nn.md ---------------------------------------------------------------------

INTRO = """\
# torch.nn in flash_powder

`fp::nn` has torch.nn's layers and `fp::functional` torch.nn.functional's
functions, named, parameterised and keyed as in PyTorch: Python's positional
arguments, then an options struct whose fields are Python's keyword arguments
with PyTorch's defaults.

```cpp
fp::nn::LSTM lstm(40, 128, {.num_layers = 2, .bidirectional = true});
auto [output, state] = lstm(x);                     // output, (h_n, c_n) = lstm(x)
fp::Tensor y = fp::functional::pad(x, {1, 1, 2, 2}, {.mode = "reflect"});
fp::nn::InstanceNorm2d norm(64, {.affine = true});  // keys weight, bias, as PyTorch's
```

Each computes what PyTorch computes in Python under `torch.no_grad()` in eval
mode, bit for bit, unless its row says otherwise; the tests compare with the
PyTorch beside them. Python's `return_indices=True` is spelled
`<name>_with_indices`, so that each function has one return type.

This file is generated by `tools/nn_coverage.py write .` from torch {version};
the `nn_coverage` test fails when a torch.nn name is neither here nor on the
list of names left out, with the reason.
"""


def document(repo: Path, version: str, table: list[Row]) -> str:
    parts = [INTRO.replace("{version}", version)]
    for kind, title, source in (("module", "Layers (torch.nn)", "torch.nn"),
                                ("function", "Functions (torch.nn.functional)",
                                 "torch.nn.functional")):
        parts.append(f"\n## {title}\n\n| {source} | flash_powder | header | note |\n|---|---|---|---|")
        for row in table:
            if row.kind == kind and row.spelling:
                header = declaring_header(repo, row)
                parts.append(f"| `{row.torch_name}` | `{row.spelling}` | `{header}` | {row.note} |")
    parts.append("\n## Left out\n\n| name | why |\n|---|---|")
    for row in table:
        if not row.spelling:
            prefix = "torch.nn." if row.kind == "module" else "torch.nn.functional."
            parts.append(f"| `{prefix}{row.torch_name}` | {row.note} |")
    return "\n".join(parts) + "\n"


# --- the command line ---------------------------------------------------------------

def check(repo: Path, cxx: str, includes: list[str]) -> int:
    version, modules, functions = torch_names()
    table = rows(modules, functions)
    problems = []
    complaints = compile_names(table, cxx, includes)
    if complaints:
        problems.append("flash_powder lacks these torch.nn names (implement each, or add it "
                        "with a reason to the exclusion lists of tools/nn_coverage.py):\n"
                        + complaints)
    doc_path = repo / DOC
    documented = re.search(r"from torch (\S+?);", doc_path.read_text()) if doc_path.exists() else None
    if documented is None:
        problems.append(f"{DOC} is missing or has no torch version: run tools/nn_coverage.py write .")
    elif documented.group(1) == version:
        if doc_path.read_text() != document(repo, version, table):
            problems.append(f"{DOC} is out of date: run tools/nn_coverage.py write .")
    else:
        print(f"{DOC} was generated from torch {documented.group(1)}; with torch {version} "
              "beside, only the coverage is checked")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    implemented = sum(1 for row in table if row.spelling)
    print(f"nn_coverage: torch {version}: {implemented} torch.nn names implemented, "
          f"{len(table) - implemented} left out with a reason")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("check", "write"))
    parser.add_argument("repo", type=Path)
    parser.add_argument("--cxx", default="c++")
    parser.add_argument("--include", action="append", default=[])
    args = parser.parse_args(argv)
    repo = args.repo.resolve()
    if args.command == "write":
        version, modules, functions = torch_names()
        (repo / DOC).write_text(document(repo, version, rows(modules, functions)))
        return 0
    includes = args.include or [str(repo / "include")]
    return check(repo, args.cxx, includes)


if __name__ == "__main__":
    sys.exit(main())
