#!/usr/bin/env python3
"""The Python side of the op-overhead benchmark (bench/run_ops_overhead.sh),
and the report that puts the three sides next to each other.

    ops_overhead.py run OUT.json [--checkpoint FILE] [--repetitions N] [--min-time S]
    ops_overhead.py report --fp A.json... --libtorch B.json... --python C.json...
                           [--fp-borrow D.json...] [--markdown] [--clock cpu|real]
    ops_overhead.py instructions --iterations N --fp A.callgrind [--libtorch B.callgrind]
                                 [--fp-borrow C.callgrind] [--markdown]

Timing is the same as Google Benchmark's on the C++ sides: per case, the
number of calls is raised until one batch takes at least `--min-time`
seconds of CPU time; then `--repetitions` batches of that many calls are
timed, each giving one time per call, on the process's CPU clock and on the
wall clock. The report shows the median of all batches of a case (over every
JSON file given for a side) and their range, by default on the CPU clock:
on a shared machine, time spent waiting for a core does not count there.
With more than one intra-op thread, CPU time adds up the threads; use
`--clock real` then.

`instructions` reads callgrind profiles of the C++ programs run with a fixed
iteration count (run_ops_overhead.sh --callgrind) and prints instructions per
call of each case: unlike times, they do not depend on the machine's load.
"""

import argparse
import json
import os
import re
import subprocess
import statistics
import sys
import time
import itertools

import torch
import torch.nn.functional as F

# Case names shared with ops_overhead.cpp and ops_overhead_libtorch.cpp, in
# table order. (case, flash_powder code, what the three sides do.)
CASES = [
    ("add", "a + b", "a + b (float32 [4])"),
    ("mul", "a * b", "a * b"),
    ("mul_typed", "fp::aten::mul_Tensor(a, b)", "typed: at::mul / torch.mul"),
    ("mul_by_name", 'fp::dispatch<Tensor>("aten::mul", "Tensor", a, b)',
     "by name: Dispatcher::findSchemaOrThrow + callBoxed / torch.ops.aten.mul.Tensor"),
    ("mul_number", "a * 2.5", "a * 2.5"),
    ("sum", "a.sum()", "a.sum()"),
    ("index_view", "m.i(0)", "m[0] of a [2, 2] tensor: a view"),
    ("transpose", "m.transpose(0, 1)", "m.transpose(0, 1): a view"),
    ("shallow_copy", "TensorView v = a", "another reference (libtorch: refcount)"),
    ("copy", "Tensor c = a", "independent copy: at::_lazy_clone / torch._lazy_clone"),
    ("clone", "a.clone()", "a.clone()"),
    ("item", "s.item<float>()", "s.item() of a 0-dim float32"),
    ("sizes", "a.sizes()[0]", "a.sizes()[0] / a.shape[0]"),
    ("sub", "a - b", "a - b"),
    ("div", "a / b", "a / b"),
    ("relu", "functional::relu(a)", "relu(a)"),
    ("exp", "a.exp()", "a.exp()"),
    ("argmax", "a.argmax()", "a.argmax()"),
    ("masked_fill", "a.masked_fill(mask, 0.5)", "a.masked_fill(a > 0, 0.5)"),
    ("where", "fp::where(mask, a, b)", "where(a > 0, a, b)"),
    ("cat", "fp::cat({a, b})", "cat([a, b])"),
    ("narrow", "m.narrow(0, 0, 1)", "m.narrow(0, 0, 1): a view"),
    ("unsqueeze", "a.unsqueeze(0)", "a.unsqueeze(0): a view"),
    ("reshape", "m.reshape({4})", "m.reshape(4) of a contiguous [2, 2] (libtorch: a view)"),
    ("contiguous", "t.contiguous()", "t.contiguous() of m.transpose(0, 1): a copy"),
    ("matmul_512", "fp::matmul(x, y)", "[512, 512] @ [512, 512]"),
    ("conv2d_224", "functional::conv2d(x, w, b, {.padding = 1})",
     "[1, 3, 224, 224] * 64 3x3 filters, padding 1"),
    ("network_forward", "net(input)", "examples/network's classifier on [4, 3, 32, 32]"),
]

# The bare stable-C-ABI version of a case (ops_overhead.cpp's cabi_* cases).
FLOOR = {
    "add": "cabi_add",
    "mul": "cabi_mul",
    "mul_typed": "cabi_mul",
    "mul_by_name": "cabi_mul",
    "mul_number": "cabi_mul_number",
    "sum": "cabi_sum",
    "index_view": "cabi_index_view",
    "transpose": "cabi_transpose",
    "shallow_copy": "cabi_shallow_copy",
    "copy": "cabi_copy",
    "clone": "cabi_clone",
    "item": "cabi_item",
    "sizes": "cabi_sizes",
    "div": "cabi_div",
    "relu": "cabi_relu",
    "exp": "cabi_exp",
    "argmax": "cabi_argmax",
    "masked_fill": "cabi_masked_fill",
    "where": "cabi_where",
    "reshape": "cabi_reshape",
    "contiguous": "cabi_contiguous",
}


def tiny(seed, shape=(4,)):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed))


def network():
    """examples/network/make_checkpoint.py's classifier."""
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1),
        torch.nn.BatchNorm2d(16),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(32, 10),
    )


def statements(checkpoint):
    """({case: Python statement}, the names the statements use)."""
    a, b = tiny(1), tiny(2)
    m = tiny(1, (2, 2))
    s = torch.tensor(2.5)
    generator = torch.Generator().manual_seed(0)
    x, y = torch.randn(512, 512, generator=generator), torch.randn(512, 512, generator=generator)
    image = torch.randn(1, 3, 224, 224, generator=generator)
    weight = torch.randn(64, 3, 3, 3, generator=generator)
    bias = torch.randn(64, generator=generator)
    names = {"torch": torch, "F": F, "a": a, "b": b, "m": m, "s": s, "x": x, "y": y,
             "image": image, "weight": weight, "bias": bias, "mask": a > 0,
             "t": m.transpose(0, 1)}
    cases = {
        "add": "a + b",
        "mul": "a * b",
        "mul_typed": "torch.mul(a, b)",
        # By name: the attribute lookups are part of the call, as fp looks the op up.
        "mul_by_name": "torch.ops.aten.mul.Tensor(a, b)",
        "mul_number": "a * 2.5",
        "sum": "a.sum()",
        "index_view": "m[0]",
        "transpose": "m.transpose(0, 1)",
        "copy": "torch._lazy_clone(a)",
        "clone": "a.clone()",
        "item": "s.item()",
        "sizes": "a.shape[0]",
        "sub": "a - b",
        "div": "a / b",
        "relu": "torch.relu(a)",
        "exp": "a.exp()",
        "argmax": "a.argmax()",
        "masked_fill": "a.masked_fill(mask, 0.5)",
        "where": "torch.where(mask, a, b)",
        "cat": "torch.cat([a, b])",
        "narrow": "m.narrow(0, 0, 1)",
        "unsqueeze": "a.unsqueeze(0)",
        "reshape": "m.reshape(4)",
        "contiguous": "t.contiguous()",
        "matmul_512": "torch.matmul(x, y)",
        "conv2d_224": "F.conv2d(image, weight, bias, padding=1)",
    }
    if checkpoint:
        from safetensors.torch import load_file

        tensors = load_file(checkpoint)
        net = network().eval()
        net.load_state_dict({k[4:]: v for k, v in tensors.items() if k.startswith("net.")})
        net.requires_grad_(False)
        with torch.no_grad():
            difference = (net(tensors["input"]) - tensors["expected"]).abs().max().item()
        if difference > 1e-5:
            sys.exit(f"ops_overhead.py: the network's output differs from the checkpoint's by {difference}")
        names.update(net=net, input=tensors["input"])
        cases["network_forward"] = "net(input)"
    return cases, names


def time_case(statement, names, repetitions, min_time):
    """[(CPU seconds, wall seconds) per call] of `repetitions` batches (Google
    Benchmark's scheme: the batch size is chosen on the CPU clock)."""
    namespace = dict(names, _repeat=itertools.repeat)
    exec(f"def _loop(_n):\n    for _ in _repeat(None, _n):\n        {statement}\n", namespace)
    loop = namespace["_loop"]

    def batch(number):
        cpu, wall = time.process_time_ns(), time.perf_counter_ns()
        loop(number)
        return (time.process_time_ns() - cpu) * 1e-9, (time.perf_counter_ns() - wall) * 1e-9

    loop(3)  # warm-up
    number = 1
    while True:
        elapsed = batch(number)[0]
        if elapsed >= min_time:
            break
        # Like Google Benchmark: aim 40% past the minimum, grow at most 10x a step.
        factor = min(10.0, max(1.4 * min_time / max(elapsed, 1e-9), 2.0))
        number = max(number + 1, int(number * factor))
    return [tuple(t / number for t in batch(number)) for _ in range(repetitions)]


def run(out_path, checkpoint, repetitions, min_time):
    threads = int(os.environ.get("OMP_NUM_THREADS", "1"))
    torch.set_num_threads(threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} intra-op threads", file=sys.stderr)
    cases, names = statements(checkpoint)
    results = {}
    for name, statement in cases.items():
        if name == "network_forward":
            with torch.no_grad():
                times = time_case(statement, names, repetitions, min_time)
        else:
            times = time_case(statement, names, repetitions, min_time)
        results[name] = {"cpu": [cpu * 1e9 for cpu, _ in times],
                         "real": [wall * 1e9 for _, wall in times]}
        print(f"{name:16} {statistics.median(results[name]['cpu']):12.1f} ns", file=sys.stderr)
    with open(out_path, "w") as f:
        json.dump({"unit": "ns", "cases": results}, f, indent=1)


# --- report ---------------------------------------------------------------------


def google_benchmark_times(path, clock):
    """{case: [ns per call of each repetition]} from a Google Benchmark JSON file."""
    with open(path) as f:
        report = json.load(f)
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    times = {}
    for entry in report["benchmarks"]:
        if entry.get("run_type", "iteration") != "iteration" or entry.get("error_occurred"):
            continue
        case = entry.get("run_name", entry["name"]).split("/")[0]
        times.setdefault(case, []).append(entry[f"{clock}_time"] * scale[entry["time_unit"]])
    return times


def python_times(path, clock):
    with open(path) as f:
        return {case: clocks[clock] for case, clocks in json.load(f)["cases"].items()}


def merged(paths, reader, clock):
    times = {}
    for path in paths or []:
        for case, values in reader(path, clock).items():
            times.setdefault(case, []).extend(values)
    return times


def format_time(ns):
    if ns < 1e3:
        return f"{ns:.3g} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.3g} us"
    return f"{ns / 1e6:.3g} ms"


def summary(values):
    """(median, text "median [min-max]") or (None, "—")."""
    if not values:
        return None, "—"
    median = statistics.median(values)
    if len(values) == 1:
        return median, format_time(median)
    return median, f"{format_time(median)} [{format_time(min(values))}–{format_time(max(values))}]"


def ratio(numerator, denominator):
    if numerator is None or denominator is None or denominator == 0:
        return "—"
    return f"{numerator / denominator:.2f}"


def report(fp_paths, libtorch_paths, python_paths, borrow_paths, markdown, clock):
    fp = merged(fp_paths, google_benchmark_times, clock)
    libtorch = merged(libtorch_paths, google_benchmark_times, clock)
    python = merged(python_paths, python_times, clock)
    borrow = merged(borrow_paths, google_benchmark_times, clock)

    header = ["case", "flash_powder", "C ABI floor", "libtorch C++", "Python",
              "fp / C++", "fp / Python"]
    if borrow:
        header[2:2] = ["fp + borrow check"]
        header.append("borrow / fp")
    rows = []
    for case, _, _ in CASES:
        fp_median, fp_text = summary(fp.get(case))
        floor_median, floor_text = summary(fp.get(FLOOR.get(case, "")))
        libtorch_median, libtorch_text = summary(libtorch.get(case))
        python_median, python_text = summary(python.get(case))
        if fp_median is None and libtorch_median is None and python_median is None:
            continue
        row = [case, fp_text, floor_text, libtorch_text, python_text,
               ratio(fp_median, libtorch_median), ratio(fp_median, python_median)]
        if borrow:
            borrow_median, borrow_text = summary(borrow.get(case))
            row[2:2] = [borrow_text]
            row.append(ratio(borrow_median, fp_median))
        rows.append(row)

    print_table(header, rows, markdown)
    print()
    samples = len(fp.get("mul", []))
    print(f"{'CPU' if clock == 'cpu' else 'Wall-clock'} time per call: median of {samples} batches "
          "[fastest–slowest]; ratios of medians (> 1: flash_powder is slower).")
    print("C ABI floor: the same work in bare stable-ABI calls (ops_overhead.cpp's cabi_* cases).")
    print()
    for case, code, what in CASES:
        print(f"  {case:16} fp: {code};  {what}")


def callgrind_counts(path, iterations):
    """{case: instructions per call}: the inclusive cost of each benchmark
    function `(anonymous namespace)::CASE(benchmark::State&)`, whose loop ran
    `iterations` times."""
    if not path:
        return {}
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                          check=True, capture_output=True, text=True).stdout
    pattern = re.compile(r"^\s*([\d,]+) .*\(anonymous namespace\)::(\w+)\(benchmark::State&\)")
    counts = {}
    for line in text.splitlines():
        if match := pattern.match(line):
            counts[match.group(2)] = int(match.group(1).replace(",", "")) / iterations
    return counts


def instructions(fp_path, libtorch_path, borrow_path, iterations, markdown):
    fp = callgrind_counts(fp_path, iterations)
    libtorch = callgrind_counts(libtorch_path, iterations)
    borrow = callgrind_counts(borrow_path, iterations)
    header = ["case", "flash_powder", "C ABI floor", "libtorch C++", "fp / C++", "fp − floor"]
    if borrow:
        header[2:2] = ["fp + borrow check"]
    rows = []
    for case, _, _ in CASES:
        if case not in fp:
            continue
        floor = fp.get(FLOOR.get(case, ""))
        row = [case, f"{fp[case]:,.0f}", f"{floor:,.0f}" if floor else "—",
               f"{libtorch[case]:,.0f}" if case in libtorch else "—",
               ratio(fp[case], libtorch.get(case)),
               f"{fp[case] - floor:,.0f}" if floor else "—"]
        if borrow:
            row[2:2] = [f"{borrow[case]:,.0f}" if case in borrow else "—"]
        rows.append(row)
    print_table(header, rows, markdown)
    print()
    print(f"Instructions per call (callgrind, {iterations} calls per case, setup included).")
    print("fp − floor: what flash_powder adds to the bare stable-ABI calls.")


def print_table(header, rows, markdown):
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|")
        for row in rows:
            print("| " + " | ".join([f"`{row[0]}`"] + row[1:]) + " |")
    else:
        widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
        for row in [header] + rows:
            print("  ".join(str(cell).ljust(width) if i == 0 else str(cell).rjust(width)
                            for i, (cell, width) in enumerate(zip(row, widths))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run")
    run_parser.add_argument("out")
    run_parser.add_argument("--checkpoint")
    run_parser.add_argument("--repetitions", type=int, default=3)
    run_parser.add_argument("--min-time", type=float, default=0.1)
    report_parser = commands.add_parser("report")
    report_parser.add_argument("--fp", nargs="+", required=True)
    report_parser.add_argument("--libtorch", nargs="*")
    report_parser.add_argument("--python", nargs="*")
    report_parser.add_argument("--fp-borrow", nargs="*")
    report_parser.add_argument("--markdown", action="store_true")
    report_parser.add_argument("--clock", choices=["cpu", "real"], default="cpu")
    instructions_parser = commands.add_parser("instructions")
    instructions_parser.add_argument("--iterations", type=int, required=True)
    instructions_parser.add_argument("--fp", required=True)
    instructions_parser.add_argument("--libtorch")
    instructions_parser.add_argument("--fp-borrow")
    instructions_parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    if args.command == "run":
        run(args.out, args.checkpoint, args.repetitions, args.min_time)
    elif args.command == "instructions":
        instructions(args.fp, args.libtorch, args.fp_borrow, args.iterations, args.markdown)
    else:
        report(args.fp, args.libtorch, args.python, args.fp_borrow, args.markdown, args.clock)


if __name__ == "__main__":
    main()
