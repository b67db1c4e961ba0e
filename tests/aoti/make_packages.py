#!/usr/bin/env python3
"""The aoti tests' fixture: packages and the outputs PyTorch computes for them.

    make_packages.py OUT_DIR [--stage export|refs]

The export stage runs with the build's torch (CTest passes its .venv), the
references stage with the torch under test (scripts/test --torch X.Y.Z), so
the suite also proves that a package exported by one torch runs on another.

Compiled packages are cached in OUT_DIR/packages, keyed by the torch version
and the sources that define them (this file, models.py, tools/export_aoti.py):
AOTInductor compiles each for a minute or more. Variants with one thing wrong
(for the refusal tests) are derived from them on every run, in seconds.

Reference outputs go to OUT_DIR/refs/<CPU settings>/<package>.safetensors,
computed by the PyTorch beside the tests under the lane's CPU settings:
`in.<case>.<i>` the inputs, `out.<case>.<j>` what Python's own loader
(torch._inductor.aoti_load_package) returns for the same package,
`eager.<case>.<j>` what the eager module returns; cnn_weights.safetensors
the frozen CNN's state dict (for tests/nn/test_optimize.cpp).
"""

import hashlib
import json
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tools"))

import torch  # noqa: E402
from safetensors.torch import save_file  # noqa: E402

import export_aoti  # noqa: E402
import models  # noqa: E402
from torch.export import Dim  # noqa: E402

BATCH = Dim("batch", min=1, max=64)


def mlp_inputs(batch, generator):
    return (torch.randn(batch, 4, generator=generator), torch.randn(batch, 3, generator=generator))


# name -> (module factory, example inputs, dynamic shapes, export options, cases: batch sizes)
# The MLPs keep their weights as they are (freeze=False), so that the tests can
# swap them (load_weights); the CNN is frozen, tools/export_aoti.py's default.
PACKAGES = {
    "mlp": (lambda: models.seeded(models.Mlp()), lambda g: mlp_inputs(2, g),
            {"x": {0: BATCH}, "y": {0: BATCH}}, {"freeze": False}, [1, 2, 7, 64]),
    "mlp_blob": (lambda: models.seeded(models.Mlp(), seed=1), lambda g: mlp_inputs(2, g),
                 {"x": {0: BATCH}, "y": {0: BATCH}}, {"external_weights": True, "freeze": False},
                 [3]),
    "cnn": (lambda: models.seeded(models.TinyCnn()),
            lambda g: (torch.randn(2, 3, 8, 8, generator=g),), None, {}, [2]),
    "eigh": (models.Eigh, lambda g: (torch.randn(3, 3, generator=g),), None, {}, []),
}


if torch.cuda.is_available():
    PACKAGES["mlp_cuda"] = (lambda: models.seeded(models.Mlp()).cuda(),
                            lambda g: tuple(t.cuda() for t in mlp_inputs(2, g)),
                            {"x": {0: BATCH}, "y": {0: BATCH}}, {}, [7])


# Every lane runs the same packages, the valgrind lane too, and the CPU that
# valgrind presents has no AVX-512. So on x86-64 the kernels are compiled for
# vectors of 256 bits (AVX2) at most, and the rest of the library for
# x86-64-v3 instead of -march=native, so that a machine with AVX-512 exports
# packages every lane can run. (fp::aoti refuses a package whose kernels need
# an instruction set the CPU lacks; an AVX-512 instruction elsewhere in the
# library would stop valgrind.)
INDUCTOR_CONFIGS = ({"cpp.simdlen": 256, "cpp.march": "x86-64-v3"}
                    if platform.machine() in ("x86_64", "AMD64") else {})


def cpu_settings_name() -> str:
    """The folder of this lane's references; tests/aoti/fixture.h builds the same."""
    names = ("ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS", "ONEDNN_MAX_CPU_ISA", "MKL_CBWR")
    return "-".join(os.environ.get(name, "") or "native" for name in names)


def source_key(name: str) -> str:
    """What a compiled package depends on: torch, the model and export code, its options."""
    _, examples, dynamic, options, _ = PACKAGES[name]
    digest = hashlib.sha256(torch.__version__.encode())
    for path in (HERE / "models.py", REPO / "tools" / "export_aoti.py"):
        digest.update(path.read_bytes())
    shapes = [tuple(t.shape) for t in examples(torch.Generator().manual_seed(0))]
    digest.update(repr((name, shapes, dynamic, sorted(options.items()), INDUCTOR_CONFIGS)).encode())
    return digest.hexdigest()[:16]


def ensure_package(name: str, out: Path) -> Path:
    factory, examples, dynamic, options, _ = PACKAGES[name]
    path = out / "packages" / f"{name}.pt2"
    stamp = path.with_suffix(".key")
    key = source_key(name)
    if path.exists() and stamp.exists() and stamp.read_text() == key:
        return path
    start = time.monotonic()
    export_aoti.export_aoti(factory(), examples(torch.Generator().manual_seed(0)), path,
                            dynamic_shapes=dynamic, inductor_configs=INDUCTOR_CONFIGS, **options)
    stamp.write_text(key)
    print(f"compiled {name} in {time.monotonic() - start:.0f} s")
    return path


def rewrite(source: Path, target: Path, change) -> None:
    """Copies a package entry by entry; change(name, data) -> new data, or None to drop."""
    from torch.export.pt2_archive._package import PT2ArchiveReader, PT2ArchiveWriter
    reader = PT2ArchiveReader(str(source))
    partial = target.with_name(target.name + ".partial")
    with PT2ArchiveWriter(str(partial)) as writer:
        for entry in reader.get_file_names():
            data = change(entry, reader.read_bytes(entry))
            if data is not None and not writer.has_record(entry):
                writer.write_bytes(entry, data)
    os.replace(partial, target)


def derive_variants(packages: Path) -> None:
    """Packages with one thing wrong, each refused by the C++ side."""
    mlp = packages / "mlp.pt2"

    def no_signature(name, data):
        return None if name == export_aoti.SIGNATURE_PATH else data

    def foreign_isa(name, data):
        if not name.endswith("_metadata.json"):
            return data
        metadata = json.loads(data)
        # An instruction set this machine cannot have (another architecture's).
        metadata["AOTI_CPU_ISA"] = "NEON" if os.uname().machine == "x86_64" else "AVX512"
        return json.dumps(metadata).encode()

    # Imports every model library has, in order of preference; which ones a
    # library has depends on the torch that exported it.
    common_imports = (b"aoti_torch_get_numel", b"aoti_torch_delete_tensor_object",
                      b"aoti_torch_get_data_ptr", b"aoti_torch_get_sizes")

    def missing_symbol(name, data):
        if not name.endswith(".so"):
            return data
        # Renames one import in the dynamic string table (same length, so the
        # ELF stays valid) to a C function no torch defines; the C++ test reads
        # the new name from mlp_missing_symbol.symbol.
        for old in common_imports:
            if b"\0" + old + b"\0" in data:
                new = old[:-1] + b"X"
                (packages / "mlp_missing_symbol.symbol").write_bytes(new)
                return data.replace(b"\0" + old + b"\0", b"\0" + new + b"\0")
        raise AssertionError(f"the model library imports none of {common_imports}")

    def cuda_device(name, data):
        if not name.endswith("_metadata.json"):
            return data
        metadata = json.loads(data)
        metadata["AOTI_DEVICE_KEY"] = "cuda"
        return json.dumps(metadata).encode()

    rewrite(mlp, packages / "mlp_no_signature.pt2", no_signature)
    rewrite(mlp, packages / "mlp_foreign_isa.pt2", foreign_isa)
    rewrite(mlp, packages / "mlp_missing_symbol.pt2", missing_symbol)
    rewrite(mlp, packages / "mlp_cuda_metadata.pt2", cuda_device)
    rewrite(packages / "mlp_blob.pt2", packages / "mlp_blob_missing.pt2",
            lambda name, data: None if name.endswith(".blob") else data)


def write_references(name: str, path: Path, refs: Path) -> None:
    factory, examples, _, _, cases = PACKAGES[name]
    if not cases:
        return
    loaded = torch._inductor.aoti_load_package(str(path))
    module = factory()
    tensors = {}
    generator = torch.Generator().manual_seed(1234)
    for batch in cases:
        inputs = (mlp_inputs(batch, generator) if name.startswith("mlp")
                  else examples(generator))
        if name.endswith("cuda"):
            inputs = tuple(t.cuda() for t in inputs)
        with torch.no_grad():
            outputs = loaded(*inputs)
            eager = module(*inputs)
        outputs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
        eager = eager if isinstance(eager, (tuple, list)) else (eager,)
        case = f"b{batch}"
        for prefix, values in (("in", inputs), ("out", outputs), ("eager", eager)):
            for i, tensor in enumerate(values):
                tensors[f"{prefix}.{case}.{i}"] = tensor.detach().cpu().contiguous()
    refs.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(refs / f"{name}.safetensors"))
    from torch.export.pt2_archive._package import PT2ArchiveReader
    info = {
        "num_inputs": len(inputs),
        "num_outputs": len(outputs),
        "constant_fqns": loaded.get_constant_fqns(),
        "metadata": loaded.get_metadata(),
        "in_spec": loaded.loader.get_call_spec()[0],
        "signature": json.loads(PT2ArchiveReader(str(path)).read_string(export_aoti.SIGNATURE_PATH)),
    }
    (refs / f"{name}.info.json").write_text(json.dumps(info, indent=1))
    if name == "mlp":
        write_swap_references(loaded, tensors, refs)
    if name == "cnn":
        # The frozen CNN's weights as they were before freezing folded them:
        # tests/nn/test_optimize.cpp optimises the same module in C++ and
        # compares with `out.b2.0` bit for bit.
        save_file({k: v.contiguous() for k, v in module.state_dict().items()},
                  str(refs / "cnn_weights.safetensors"))


def write_swap_references(loaded, tensors: dict, refs: Path) -> None:
    """For Package::load_weights: the package's constants taken from another
    seed's Mlp (mlp_new_weights.safetensors), and what the eager module with
    those weights returns (`swapped.<j>` for the inputs of case b7)."""
    new = models.seeded(models.Mlp(), seed=1).state_dict()
    swapped = models.seeded(models.Mlp())
    weights = {fqn: new[fqn].contiguous() for fqn in loaded.get_constant_fqns()}
    swapped.load_state_dict(weights, strict=False)
    with torch.no_grad():
        outputs = swapped(tensors["in.b7.0"], tensors["in.b7.1"])
    save_file(weights, str(refs / "mlp_new_weights.safetensors"))
    save_file({f"swapped.{j}": t.contiguous() for j, t in enumerate(outputs)},
              str(refs / "mlp_swapped.safetensors"))


def main() -> int:
    import argparse
    import fcntl
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--stage", choices=["export", "refs", "all"], default="all")
    args = parser.parse_args()
    out = args.out
    (out / "packages").mkdir(parents=True, exist_ok=True)
    # One fixture at a time (the valgrind lane's runs beside the native one's).
    lock = open(out / "packages" / ".lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    if args.stage in ("export", "all"):
        for name in PACKAGES:
            ensure_package(name, out)
        derive_variants(out / "packages")
        print(f"aoti packages ready in {out / 'packages'} (torch {torch.__version__})")
    if args.stage in ("refs", "all"):
        refs = out / "refs" / cpu_settings_name()
        for name in PACKAGES:
            write_references(name, out / "packages" / f"{name}.pt2", refs)
        print(f"aoti references by torch {torch.__version__} in {refs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
