#!/usr/bin/env python3
"""Exports a torch.nn.Module as an AOTInductor package flash_powder can run.

torch.export + torch._inductor.aoti_compile_and_package, plus the signature
flash_powder checks inputs against (extra/flash_powder.json: each input's
name, dtype, device and sizes, dynamic ones as a shape symbol with its range
from the exported program's range_constraints). Python's own loader
(torch._inductor.aoti_load_package) reads the result unchanged.

    python tools/export_aoti.py my_model.py -o model.pt2 \\
        --example-input float32[2,3,32,32] --dynamic 0:0:batch:1:64

my_model.py defines `make_model()` (or name it with --factory) returning the
module. --dynamic INPUT:DIM:NAME:MIN:MAX makes a dimension dynamic; dims
with the same NAME must be equal. From Python:

    from export_aoti import export_aoti
    export_aoti(module, (x,), "model.pt2", dynamic_shapes={"x": {0: Dim("batch", min=1, max=64)}})

CPU models are frozen by default (`torch._inductor.config.freezing = True`,
compiled under torch.no_grad(), as freezing requires): the weights become
constants of the compiled code, so Inductor folds BatchNorm into the
convolutions before it, pre-packs convolution and linear weights into
oneDNN's layout and calls oneDNN's fused kernels (convolution + ReLU, +
residual add, ...). On the CPU that is much faster: resnet18 ran in 0.59x
eager PyTorch's time frozen and 1.11x unfrozen (bench/README.md). The price:
a frozen package's constants are the folded, packed weights, not the state
dict's, so `fp::aoti::Package::load_weights` cannot swap them (it says so),
and the outputs differ from eager PyTorch's by rounding (the folded weights).
--no-freeze (freeze=False) exports the weights as they are, for packages
whose weights are swapped after export. GPU models are not frozen unless
asked (--freeze).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
import tempfile
from pathlib import Path

import torch

SIGNATURE_PATH = "extra/flash_powder.json"
SIGNATURE_FORMAT = 1


def _bound(value):
    """A range end as JSON: an int, or None for unbounded (int_oo)."""
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if abs(number) < 2**62 else None


def _dim(size, ranges) -> int | dict:
    if isinstance(size, int):
        return size
    expr = size.node.expr
    if expr.is_number:
        return int(expr)
    from torch.utils._sympy.value_ranges import bound_sympy
    bounds = ranges.get(expr) or bound_sympy(expr, ranges)
    return {"symbol": str(expr), "min": _bound(bounds.lower) or 0, "max": _bound(bounds.upper)}


def signature(exported: torch.export.ExportedProgram) -> dict:
    """The flattened tensor inputs of `exported` as extra/flash_powder.json holds them."""
    from torch.export.graph_signature import InputKind, TensorArgument
    placeholders = {node.name: node for node in exported.graph.nodes if node.op == "placeholder"}
    inputs = []
    for spec in exported.graph_signature.input_specs:
        if spec.kind != InputKind.USER_INPUT:
            continue
        if not isinstance(spec.arg, TensorArgument):
            raise ValueError(f"input {spec.arg} is not a tensor; flash_powder passes tensors only "
                             "(make it a constant of the module)")
        value = placeholders[spec.arg.name].meta["val"]
        inputs.append({
            "name": spec.arg.name,
            "dtype": str(value.dtype).removeprefix("torch."),
            "device": str(value.device),
            "sizes": [_dim(size, exported.range_constraints) for size in value.shape],
        })
    return {"format": SIGNATURE_FORMAT, "torch_version": torch.__version__, "inputs": inputs}


def add_signature(package: str | os.PathLike, sig: dict, output: str | os.PathLike) -> None:
    """Copies `package` to `output` with the signature added (torch's own archive
    writer, so entries stay stored and 64-byte aligned)."""
    from torch.export.pt2_archive._package import PT2ArchiveReader, PT2ArchiveWriter
    reader = PT2ArchiveReader(os.fspath(package))
    with PT2ArchiveWriter(os.fspath(output)) as writer:
        for name in reader.get_file_names():
            if not writer.has_record(name) and name != SIGNATURE_PATH:
                writer.write_bytes(name, reader.read_bytes(name))
        writer.write_string(SIGNATURE_PATH, json.dumps(sig))


def freezes_by_default(example_inputs) -> bool:
    """Whether export_aoti freezes when not told: when no example input is on a GPU."""
    return not any(isinstance(t, torch.Tensor) and t.device.type != "cpu" for t in example_inputs)


def export_aoti(module: torch.nn.Module, example_inputs: tuple, path: str | os.PathLike, *,
                dynamic_shapes=None, external_weights: bool = False,
                inductor_configs: dict | None = None, freeze: bool | None = None) -> str:
    """Exports `module` (in eval mode) and writes a package flash_powder runs.

    external_weights: keep the weights out of the model library, in a
    `*.wrapper_weights.blob` beside it (the only external format flash_powder,
    like C++ libtorch, can read).
    freeze: compile with `torch._inductor.config.freezing` (see the top of
    this file); None freezes CPU models and leaves GPU models unfrozen. An
    explicit "freezing" in inductor_configs wins."""
    module = module.eval()
    with torch.no_grad():
        exported = torch.export.export(module, tuple(example_inputs), dynamic_shapes=dynamic_shapes)
    configs = dict(inductor_configs or {})
    if freeze is None:
        freeze = freezes_by_default(example_inputs)
    configs.setdefault("freezing", freeze)
    if external_weights:
        configs.update({"aot_inductor.package_constants_in_so": False,
                        "aot_inductor.package_constants_on_disk_format": "binary_blob"})
    if any(t.is_cuda for t in example_inputs if isinstance(t, torch.Tensor)):
        # flash_powder leaves no files behind, so GPU kernels live in the library.
        configs.setdefault("aot_inductor.embed_kernel_binary", True)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        plain = Path(scratch) / path.name
        # Inductor freezes only what it compiles with grad mode off.
        with torch.no_grad():
            torch._inductor.aoti_compile_and_package(exported, package_path=str(plain),
                                                     inductor_configs=configs)
        partial = path.with_name(path.name + ".partial")
        add_signature(plain, signature(exported), partial)
        os.replace(partial, path)  # never a half-written package under the real name
    return str(path)


_TENSOR = re.compile(r"^(\w+)\[([\d,\s]*)\](?:@(\S+))?$")


def parse_example(text: str, generator: torch.Generator) -> torch.Tensor:
    """"float32[2,3,32,32]" or "int64[4]@cuda:0" -> a seeded random tensor."""
    match = _TENSOR.match(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r}: expected DTYPE[SIZES], e.g. float32[1,3,224,224]")
    dtype = getattr(torch, match.group(1), None)
    if not isinstance(dtype, torch.dtype):
        raise argparse.ArgumentTypeError(f"{match.group(1)!r} is not a torch dtype")
    sizes = [int(s) for s in match.group(2).split(",") if s.strip()]
    device = match.group(3) or "cpu"
    if dtype.is_floating_point:
        return torch.randn(sizes, dtype=dtype, generator=generator).to(device)
    return torch.randint(0, 10, sizes, generator=generator).to(dtype=dtype, device=device)


def parse_dynamic(items: list[str], count: int):
    """["0:0:batch:1:64", ...] -> dynamic_shapes for torch.export (a tuple per input)."""
    if not items:
        return None
    dims: dict[str, torch.export.Dim] = {}
    shapes: list[dict] = [{} for _ in range(count)]
    for item in items:
        try:
            index, dim, name, low, high = item.split(":")
            index, dim, low, high = int(index), int(dim), int(low), int(high)
        except ValueError:
            raise SystemExit(f"--dynamic {item!r}: expected INPUT:DIM:NAME:MIN:MAX")
        if not 0 <= index < count:
            raise SystemExit(f"--dynamic {item!r}: there are {count} inputs")
        dims.setdefault(name, torch.export.Dim(name, min=low, max=high))
        shapes[index][dim] = dims[name]
    return tuple(shape or None for shape in shapes)


def load_factory(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path}: cannot import it")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    spec.loader.exec_module(module)
    if not hasattr(module, name):
        raise SystemExit(f"{path}: defines no {name}() returning the module (choose with --factory)")
    return getattr(module, name)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", type=Path, help="a Python file defining the factory")
    parser.add_argument("-o", "--output", required=True, type=Path, help="the .pt2 to write")
    parser.add_argument("--factory", default="make_model", help="function returning the module")
    parser.add_argument("--example-input", action="append", required=True,
                        help="DTYPE[SIZES][@DEVICE], once per input, in order")
    parser.add_argument("--dynamic", action="append", default=[],
                        help="INPUT:DIM:NAME:MIN:MAX, a dynamic dimension")
    parser.add_argument("--external-weights", action="store_true",
                        help="weights in a blob beside the library, not inside it")
    parser.add_argument("--seed", type=int, default=0, help="seed of the example inputs")
    freezing = parser.add_mutually_exclusive_group()
    freezing.add_argument("--freeze", dest="freeze", action="store_true", default=None,
                          help="fold and pre-pack the weights (the default for CPU models)")
    freezing.add_argument("--no-freeze", dest="freeze", action="store_false",
                          help="keep the weights as they are (swappable with load_weights)")
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    generator = torch.Generator().manual_seed(args.seed)
    module = load_factory(args.model, args.factory)()
    examples = tuple(parse_example(text, generator) for text in args.example_input)
    export_aoti(module, examples, args.output, external_weights=args.external_weights,
                dynamic_shapes=parse_dynamic(args.dynamic, len(examples)), freeze=args.freeze)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
