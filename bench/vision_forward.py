#!/usr/bin/env python3
"""The Python sides of the forward benchmark (bench/run_vision.sh): the
vision models and the sequence models (an LSTM and a TransformerEncoder), their
weights and inputs, and the report that puts every side next to each other.

    vision_forward.py weights DIR [CASE...]
    vision_forward.py export MODEL WEIGHTS INPUT PACKAGE
    vision_forward.py script MODEL WEIGHTS FILE
    vision_forward.py run eager|compile|compile_frozen MODEL WEIGHTS INPUT OUTPUT RESULT
                      [--warmup N] [--repetitions N] [--channels-last]
    vision_forward.py run py_aoti MODEL PACKAGE INPUT OUTPUT RESULT [--warmup N] [--repetitions N]
    vision_forward.py failed SIDE MODEL INPUT RESULT --threads N --reason TEXT [--channels-last]
    vision_forward.py report RESULT.json... [--markdown] [--clock cpu|real]

`weights` writes, once, the models of the CASEs (default: all of CASES
below, e.g. `lstm-b16`) with seeded random weights as DIR/MODEL.safetensors,
and their seeded inputs DIR/MODEL-bN.safetensors (`input`). Every side loads
these. The models: torchvision's vgg11, resnet18, resnet50,
mobilenet_v3_small, convnext_tiny, efficientnet_b0, vit_b_16, swin_t,
deeplabv3_resnet50 and lraspp_mobilenet_v3_large (the segmentation models'
output is their "out") and examples/unet's U-Net
(BatchNorm's and LayerNorm's affine parameters and running statistics random
too, and ViT's and Swin's zero-initialised parameters, so that they matter),
input [N, 3, H, W]; `lstm`, nn.LSTM(256, 256, num_layers=2,
bidirectional=True), input [100, N, 256] (sequence first: the batch is dim 1)
and output the output tensor only (not h_n, c_n); `encoder`, a 6-layer
nn.TransformerEncoder of TransformerEncoderLayer(d_model=512, nhead=8,
dim_feedforward=2048, dropout=0.0, batch_first=True), input [N, 128, 512], no
mask (LayerNorm's parameters and every bias random too). PyTorch's keys
(`weight_ih_l0_reverse`, `layers.0.self_attn.in_proj_weight`, ...) are
torch::nn's too, so all three sides load the same file.

`export` writes the model with WEIGHTS, in eval mode, as an AOTInductor
package for INPUT's shape (tools/export_aoti.py: torch.export, then
torch._inductor.aoti_compile_and_package, plus the signature flash_powder
checks), compiled with `cpp.dynamic_threads` so that one package follows
OMP_NUM_THREADS at run time instead of the thread count it was compiled
with. PACKAGE.key records what it was made from (torch's version, the
sources of the model and of the export, the weights file's size and time);
while it matches, the package is kept.

`script` writes the model with WEIGHTS, in eval mode, through
torch.jit.script as a TorchScript FILE, the libtorch side of the models
torchvision has no C++ port of (bench_vision_forward_torchscript, side
`libtorch_ts`).

`run` times one forward the way bench_vision_forward (flash_powder) and
bench_vision_forward_libtorch do (vision_timing.h): `--warmup` untimed calls
(for torch.compile the first one compiles, and is timed apart; `compile_frozen`
is torch.compile with `torch._inductor.config.freezing`, which folds
BatchNorm and pre-packs the weights for oneDNN as the frozen AOTInductor
package does), then
`--repetitions` timed ones, under torch.inference_mode(), on the wall clock
and the process's CPU clock; `py_aoti` runs the package `export` wrote
through torch._inductor.aoti_load_package (load_ms includes loading it, as
bench_vision_aoti's does). It writes the last output to OUTPUT and the
times and the peak RSS (getrusage) to RESULT. `failed` writes a RESULT for a
side that did not run (torch.compile past its time limit, say).

`report` prints one row per model, threads and memory format: the median
time of each side (over all repetitions of all RESULT files of that side),
the ratios flash_powder / libtorch C++ (its TorchScript side where the
model has no torch::nn port) and flash_powder / Python eager (with
the optimised side also fp optimised / libtorch C++ and, with the frozen
package, fp optimised / fp::aoti; with the AOTInductor sides also fp::aoti / Python's AOTI loader and fp::aoti /
flash_powder), each side's peak RSS, and how far each side's output is from
eager PyTorch's (and fp::aoti's from Python AOTI's).
By default times are CPU time with one thread (time spent waiting for a core
on a busy machine does not count) and wall-clock time otherwise (CPU time
would add up the threads).

Why this file is long: the weights, the exports, the TorchScript files, the
Python sides and the report of one benchmark share its CASES and its result
files, so they stay together.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import signal
import statistics
import sys
import time
import types
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "vision"))
# the vision tests' seeded BatchNorm and LayerNorm parameters and statistics
from make_models import randomize_batch_norms, randomize_zeros  # noqa: E402

# (model, batch); the input's shape per model in input_shape(). New cases go
# at the end: a model's weights are seeded by its place in this list.
CASES = [("vgg11", 1), ("vgg11", 8), ("resnet50", 1), ("unet", 1), ("lstm", 1), ("lstm", 16),
         ("encoder", 8), ("resnet18", 1), ("resnet18", 8), ("resnet50", 8),
         ("mobilenet_v3_small", 1), ("mobilenet_v3_small", 8), ("unet", 8),
         ("convnext_tiny", 1), ("efficientnet_b0", 1), ("vit_b_16", 1), ("swin_t", 1),
         ("deeplabv3_resnet50", 1), ("lraspp_mobilenet_v3_large", 1)]
# The table's order of models.
MODEL_ORDER = ["resnet18", "resnet50", "vgg11", "mobilenet_v3_small", "unet", "convnext_tiny",
               "efficientnet_b0", "vit_b_16", "swin_t", "deeplabv3_resnet50",
               "lraspp_mobilenet_v3_large", "lstm", "encoder"]
SEQUENCE_MODELS = {"lstm", "encoder"}
# torchvision's segmentation models: built with weights_backbone=None (their
# default would download ImageNet weights) and without the auxiliary head;
# they return {"out": ...}, of which the benchmark times and compares "out".
SEGMENTATION_MODELS = {"deeplabv3_resnet50", "lraspp_mobilenet_v3_large"}
# The families whose parameters torchvision starts at zero (ViT's head and
# class token, Linear's biases) get random values, as the vision tests' do.
RANDOMIZE_ZEROS = {"vit_b_16", "swin_t"}
SIDES = ["fp", "fp_opt", "libtorch", "libtorch_ts", "eager", "compile", "compile_frozen",
         "fp_aoti", "py_aoti"]
SIDE_NAMES = {"fp": "flash_powder", "fp_opt": "fp optimised", "libtorch": "libtorch C++",
              "libtorch_ts": "libtorch TorchScript",
              "eager": "Python eager", "compile": "torch.compile",
              "compile_frozen": "torch.compile frozen", "fp_aoti": "fp::aoti",
              "py_aoti": "Python AOTI"}
SHORT_NAMES = {**SIDE_NAMES, "libtorch": "libtorch", "libtorch_ts": "TorchScript",
               "eager": "Python"}  # the RSS column's header
SEED = 16


def input_shape(model: str, batch: int) -> list[int]:
    if model == "lstm":
        return [100, batch, 256]  # [time, batch, feature]
    if model == "encoder":
        return [batch, 128, 512]  # batch_first
    # DeepLabV3 at torchvision's 520x520 takes seconds per forward (output
    # stride 8); 256x256 keeps a round of the benchmark short. LR-ASPP is
    # light enough for 520x520.
    side = {"unet": 256, "deeplabv3_resnet50": 256, "lraspp_mobilenet_v3_large": 520}.get(model, 224)
    return [batch, 3, side, side]


def batch_of(model: str, x: torch.Tensor) -> int:
    """The batch size of an input (the LSTM's input is sequence first)."""
    return x.shape[1 if model == "lstm" else 0]


def make_model(name: str) -> torch.nn.Module:
    if name == "lstm":
        return torch.nn.LSTM(256, 256, num_layers=2, bidirectional=True)
    if name == "encoder":
        layer = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048,
                                                 dropout=0.0, batch_first=True)
        return torch.nn.TransformerEncoder(layer, num_layers=6)
    if name == "unet":
        sys.path.insert(0, str(REPO / "examples" / "unet"))
        from unet import UNet

        return UNet()
    # torchvision's models are Python; its compiled ops (which the wheel beside
    # a CPU torch cannot load) are not needed.
    sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))
    import torchvision.models as models

    if name in SEGMENTATION_MODELS:
        import torchvision.models.segmentation as segmentation

        return getattr(segmentation, name)(weights=None, weights_backbone=None)
    return getattr(models, name)(weights=None)


def save_atomically(tensors: dict, path: Path) -> None:
    temporary = path.with_name(path.name + ".tmp")
    save_file({k: v.contiguous() for k, v in tensors.items()}, str(temporary))
    temporary.rename(path)


def randomize_norms_and_biases(model: torch.nn.Module) -> None:
    """LayerNorm's weights and biases and the biases PyTorch starts at zero
    (attention's), seeded random, so that they matter in the comparison."""
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if ".norm" in name and name.endswith(".weight"):
                parameter.copy_(1 + 0.1 * torch.randn_like(parameter))
            elif name.endswith("bias"):
                parameter.copy_(0.05 * torch.randn_like(parameter))


def write_weights(directory: Path, cases: list[str]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    wanted = [(m, b) for m, b in CASES if not cases or f"{m}-b{b}" in cases]
    unknown = set(cases) - {f"{m}-b{b}" for m, b in CASES}
    if unknown:
        raise SystemExit(f"unknown case(s) {sorted(unknown)}; known: "
                         + " ".join(f"{m}-b{b}" for m, b in CASES))
    models = list(dict.fromkeys(m for m, _ in CASES))  # the seed follows the model, not the selection
    for name in dict.fromkeys(m for m, _ in wanted):
        path = directory / f"{name}.safetensors"
        if not path.exists():
            torch.manual_seed(SEED + models.index(name))
            model = make_model(name)
            if name in SEQUENCE_MODELS:
                randomize_norms_and_biases(model)
            else:
                randomize_batch_norms(model)
            if name in RANDOMIZE_ZEROS:
                randomize_zeros(model)
            save_atomically(model.state_dict(), path)
    for model, batch in wanted:
        path = directory / f"{model}-b{batch}.safetensors"
        if not path.exists():
            generator = torch.Generator().manual_seed(SEED + batch)
            save_atomically({"input": torch.randn(input_shape(model, batch), generator=generator)},
                            path)


# One package for every thread count: OpenMP's team size is read at run time
# (`#pragma omp parallel` without num_threads(N) of the exporting process).
EXPORT_CONFIGS = {"cpp.dynamic_threads": True}


def package_key(model: str, weights: Path, shape: list[int]) -> str:
    """What an exported package depends on, so that a change re-exports it:
    torch, the model's code (torchvision's version or unet.py), the export
    script and options, the weights file and the input's shape."""
    sources = [REPO / "tools" / "export_aoti.py"]
    if model == "unet":
        sources.append(REPO / "examples" / "unet" / "unet.py")
    digest = hashlib.sha256(repr(EXPORT_CONFIGS).encode())
    for source in sources:
        digest.update(source.read_bytes())
    torchvision = ""
    if model != "unet":
        from importlib.metadata import version

        torchvision = f" torchvision {version('torchvision')}"
    stat = weights.stat()
    return (f"torch {torch.__version__}{torchvision} sources {digest.hexdigest()[:16]} "
            f"weights {stat.st_size} {stat.st_mtime_ns} input {shape}")


def export(args) -> None:
    package, weights = Path(args.package), Path(args.weights)
    key_path = package.with_name(package.name + ".key")
    x = load_file(args.input)["input"]
    key = package_key(args.model, weights, list(x.shape))
    if package.exists() and key_path.exists() and key_path.read_text().strip() == key:
        print(f"{package.name}: cached")
        return
    # Past FP_BENCH_COMPILE_TIMEOUT, `timeout` sends SIGTERM: leave through the
    # context managers, so that no temporary folder or half package stays.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    sys.path.insert(0, str(REPO / "tools"))
    from export_aoti import export_aoti

    model = make_model(args.model)
    model.load_state_dict(load_file(str(weights)))
    start = time.perf_counter()
    key_path.unlink(missing_ok=True)
    export_aoti(model.eval(), (x,), package, inductor_configs=EXPORT_CONFIGS)
    temporary = key_path.with_name(key_path.name + ".tmp")
    temporary.write_text(key + "\n")
    os.replace(temporary, key_path)
    print(f"{package.name}: exported in {time.perf_counter() - start:.0f} s")


def script(args) -> None:
    """The model with WEIGHTS, in eval mode, through torch.jit.script, saved
    as a TorchScript file for bench_vision_forward_torchscript (what a
    libtorch user does with a torchvision model: torchvision has no C++
    models). Kept while FILE.key matches torch, torchvision and the weights."""
    path, weights = Path(args.file), Path(args.weights)
    key_path = path.with_name(path.name + ".key")
    from importlib.metadata import version

    stat = weights.stat()
    key = (f"torch {torch.__version__} torchvision {version('torchvision')} "
           f"weights {stat.st_size} {stat.st_mtime_ns}")
    if path.exists() and key_path.exists() and key_path.read_text().strip() == key:
        print(f"{path.name}: cached")
        return
    model = make_model(args.model)
    model.load_state_dict(load_file(str(weights)))
    key_path.unlink(missing_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    torch.jit.script(model.eval()).save(str(temporary))
    os.replace(temporary, path)
    key_path.write_text(key + "\n")
    print(f"{path.name}: scripted")


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(args) -> None:
    start = time.perf_counter()
    if args.side == "py_aoti":
        if args.channels_last:
            raise SystemExit("the AOTInductor package is exported for contiguous input only")
        model = torch._inductor.aoti_load_package(args.weights)
    else:
        model = make_model(args.model)
        model.load_state_dict(load_file(args.weights))
        model.eval()
    x = load_file(args.input)["input"]
    if args.channels_last:
        if args.model in SEQUENCE_MODELS:
            raise SystemExit("--channels-last: the vision models only")
        model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    load_ms = (time.perf_counter() - start) * 1e3
    result = {"side": args.side, "model": args.model, "batch": batch_of(args.model, x),
              "threads": torch.get_num_threads(), "channels_last": args.channels_last,
              "load_ms": load_ms, "output": args.output}
    compiling = args.side in ("compile", "compile_frozen")
    if args.side == "compile_frozen":
        torch._inductor.config.freezing = True
    forward = torch.compile(model) if compiling else model
    with torch.inference_mode():
        warmup = args.warmup
        if compiling:
            start = time.perf_counter()
            forward(x)
            result["compile_s"] = time.perf_counter() - start
            warmup = max(warmup - 1, 0)
        for _ in range(warmup):
            forward(x)
        wall, cpu = [], []
        for _ in range(args.repetitions):
            wall_start, cpu_start = time.perf_counter(), time.process_time()
            output = forward(x)
            cpu.append((time.process_time() - cpu_start) * 1e3)
            wall.append((time.perf_counter() - wall_start) * 1e3)
    if args.model == "lstm":
        output = output[0]  # (output, (h_n, c_n)): the output only
    if args.model in SEGMENTATION_MODELS:
        output = output["out"]
    save_atomically({"output": output}, Path(args.output))
    result.update(wall_ms=wall, cpu_ms=cpu, peak_rss_mib=peak_rss_mib())
    Path(args.result).write_text(json.dumps(result) + "\n")


def failed(args) -> None:
    batch = batch_of(args.model, load_file(args.input)["input"])
    result = {"side": args.side, "model": args.model, "batch": batch, "threads": args.threads,
              "channels_last": args.channels_last, "error": args.reason}
    Path(args.result).write_text(json.dumps(result) + "\n")


# --- the report --------------------------------------------------------------


def format_ms(ms: float) -> str:
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.1f}" if ms >= 10 else f"{ms:.2f}"


def difference(output: str, reference: str) -> str:
    a, b = load_file(output)["output"], load_file(reference)["output"]
    if a.shape != b.shape:
        return f"shape {list(a.shape)} vs {list(b.shape)}"
    if torch.equal(a, b):
        return "0 (identical)"
    return f"{(a - b).abs().max().item():.2g}"


def cores_used(runs: list[dict] | None) -> float | None:
    """How many cores a side kept busy: on a busy machine, fewer than its threads."""
    ok = [r for r in runs or [] if "error" not in r]
    if not ok:
        return None
    return statistics.median(c / w for r in ok for c, w in zip(r["cpu_ms"], r["wall_ms"]))


def report(paths: list[str], markdown: bool, clock: str | None) -> None:
    results = [json.loads(Path(p).read_text()) for p in paths]
    groups: dict[tuple, dict[str, list[dict]]] = {}
    for r in results:
        key = (r["model"], r["batch"], r["channels_last"], r["threads"])
        groups.setdefault(key, {}).setdefault(r["side"], []).append(r)
    sides = [s for s in SIDES if any(s in g for g in groups.values())]
    keys = sorted(groups, key=lambda k: (MODEL_ORDER.index(k[0]), k[1], k[2], k[3]))
    formats = {k[2] for k in keys}

    def median(runs: list[dict], threads: int) -> float | None:
        ok = [r for r in runs if "error" not in r]
        if not ok:
            return None
        use = clock or ("cpu" if threads == 1 else "real")
        return statistics.median(t for r in ok for t in r["cpu_ms" if use == "cpu" else "wall_ms"])

    def cell(runs: list[dict] | None, threads: int) -> str:
        if not runs:
            return "—"
        value = median(runs, threads)
        return format_ms(value) if value is not None else runs[-1]["error"]

    def ratio(a, b) -> str:
        return f"{a / b:.2f}" if a is not None and b is not None else "—"

    def rss(runs: list[dict] | None) -> str:
        ok = [r for r in runs or [] if "error" not in r]
        return f"{max(r['peak_rss_mib'] for r in ok):.0f}" if ok else "—"

    header = ["model", "threads"] + (["format"] if len(formats) > 1 else [])
    header += [f"{SIDE_NAMES[s]} ms" for s in sides] + ["fp / libtorch", "fp / eager"]
    optimised = "fp_opt" in sides
    aoti = "fp_aoti" in sides
    if optimised:
        header += ["fp optimised / libtorch"] + (["fp optimised / fp::aoti"] if aoti else [])
    if aoti:
        header += ["fp::aoti / Python AOTI", "fp::aoti / flash_powder"]
    header += ["RSS MiB " + " / ".join(SHORT_NAMES[s] for s in sides)]
    rows, notes = [], []
    for key in keys:
        model, batch, channels_last, threads = key
        g = groups[key]
        row = [f"{model} b{batch}", str(threads)]
        if len(formats) > 1:
            row.append("channels_last" if channels_last else "contiguous")
        row += [cell(g.get(s), threads) for s in sides]
        fp = median(g["fp"], threads) if "fp" in g else None
        # libtorch's side: the torch::nn port, or the TorchScript module
        # for the models that have none.
        libtorch_runs = g.get("libtorch") or g.get("libtorch_ts")
        libtorch = median(libtorch_runs, threads) if libtorch_runs else None
        row.append(ratio(fp, libtorch))
        row.append(ratio(fp, median(g["eager"], threads) if "eager" in g else None))
        fp_opt = median(g["fp_opt"], threads) if "fp_opt" in g else None
        if optimised:
            row.append(ratio(fp_opt, libtorch))
            if aoti:
                row.append(ratio(fp_opt, median(g["fp_aoti"], threads) if "fp_aoti" in g else None))
        if aoti:
            fp_aoti = median(g["fp_aoti"], threads) if "fp_aoti" in g else None
            row.append(ratio(fp_aoti, median(g["py_aoti"], threads) if "py_aoti" in g else None))
            row.append(ratio(fp_aoti, fp))
        row.append(" / ".join(rss(g.get(s)) for s in sides))
        rows.append(row)
        reference = [r for r in g.get("eager", []) if "error" not in r]
        deltas = []
        for s in sides:
            ok = [r for r in g.get(s, []) if "error" not in r]
            if s != "eager" and ok and reference:
                deltas.append(f"{SIDE_NAMES[s]} {difference(ok[-1]['output'], reference[-1]['output'])}")
        # The same compiled library on both AOTInductor sides: expected identical.
        fp_aoti_ok = [r for r in g.get("fp_aoti", []) if "error" not in r]
        py_aoti_ok = [r for r in g.get("py_aoti", []) if "error" not in r]
        if fp_aoti_ok and py_aoti_ok:
            deltas.append("fp::aoti vs Python AOTI "
                          + difference(fp_aoti_ok[-1]["output"], py_aoti_ok[-1]["output"]))
        deltas = [", ".join(deltas)] if deltas else []
        if threads > 1:
            deltas.append("cores used (CPU time / wall time) " + ", ".join(
                f"{SIDE_NAMES[s]} {cores_used(g[s]):.1f}" for s in sides if cores_used(g.get(s))))
        extra = "".join(
            f"; {SIDE_NAMES[side]}'s first call {max(compiled):.0f} s"
            for side in ("compile", "compile_frozen")
            if (compiled := [r["compile_s"] for r in g.get(side, []) if "compile_s" in r]))
        fmt = ", channels_last" if channels_last else ""
        notes.append(f"{model} b{batch}, {threads} thread(s){fmt}: max |Δ| vs eager: "
                     + ("; ".join(deltas) or "—") + extra)
    print_table(header, rows, markdown)
    print()
    clocks = {"cpu": "CPU time", "real": "wall-clock time"}
    print("Median ms per forward; " + (clocks[clock] if clock else
          "CPU time with 1 thread, wall-clock time with more") + ".")
    for note in notes:
        print(("- " if markdown else "  ") + note)
    if len(formats) > 1:
        print()
        print_channels_last(groups, keys, sides, markdown, median)


def print_channels_last(groups, keys, sides, markdown, median) -> None:
    """Time in channels_last over time in contiguous format, per side."""
    header = ["model", "threads"] + [SIDE_NAMES[s] for s in sides]
    rows = []
    for model, batch, channels_last, threads in keys:
        if channels_last or (model, batch, True, threads) not in groups:
            continue
        plain, last = groups[(model, batch, False, threads)], groups[(model, batch, True, threads)]
        row = [f"{model} b{batch}", str(threads)]
        for s in sides:
            a = median(last[s], threads) if s in last else None
            b = median(plain[s], threads) if s in plain else None
            row.append(f"{a / b:.2f}" if a is not None and b is not None else "—")
        rows.append(row)
    print("channels_last time / contiguous time (< 1: channels_last pays):")
    print_table(header, rows, markdown)


def print_table(header, rows, markdown):
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
        for row in [header] + rows:
            print("  ".join(str(cell).ljust(width) if i == 0 else str(cell).rjust(width)
                            for i, (cell, width) in enumerate(zip(row, widths))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    weights_parser = commands.add_parser("weights")
    weights_parser.add_argument("directory", type=Path)
    weights_parser.add_argument("cases", nargs="*")
    script_parser = commands.add_parser("script")
    for name in ["model", "weights", "file"]:
        script_parser.add_argument(name)
    export_parser = commands.add_parser("export")
    for name in ["model", "weights", "input", "package"]:
        export_parser.add_argument(name)
    run_parser = commands.add_parser("run")
    run_parser.add_argument("side", choices=["eager", "compile", "compile_frozen", "py_aoti"])
    for name in ["model", "weights", "input", "output", "result"]:
        run_parser.add_argument(name)
    run_parser.add_argument("--warmup", type=int, default=1)
    run_parser.add_argument("--repetitions", type=int, default=5)
    run_parser.add_argument("--channels-last", action="store_true")
    failed_parser = commands.add_parser("failed")
    for name in ["side", "model", "input", "result"]:
        failed_parser.add_argument(name)
    failed_parser.add_argument("--threads", type=int, required=True)
    failed_parser.add_argument("--reason", required=True)
    failed_parser.add_argument("--channels-last", action="store_true")
    report_parser = commands.add_parser("report")
    report_parser.add_argument("results", nargs="+")
    report_parser.add_argument("--markdown", action="store_true")
    report_parser.add_argument("--clock", choices=["cpu", "real"])
    args = parser.parse_args()
    if args.command == "weights":
        write_weights(args.directory, args.cases)
    elif args.command == "export":
        export(args)
    elif args.command == "script":
        script(args)
    elif args.command == "run":
        run(args)
    elif args.command == "failed":
        failed(args)
    else:
        report(args.results, args.markdown, args.clock)


if __name__ == "__main__":
    main()
