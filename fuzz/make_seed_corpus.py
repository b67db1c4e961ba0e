#!/usr/bin/env python3
"""Writes the seed corpus of the safetensors header fuzzer into fuzz/corpus/safetensors.

Valid files come from Python's safetensors (every dtype, metadata, empty and
zero-size tensors, F4); a few hand-made ones show the fuzzer the rules it
should probe (holes, overlaps, duplicate keys, whitespace padding, escapes).
Deterministic: rerunning it rewrites the same bytes.

    .venv/bin/python fuzz/make_seed_corpus.py
"""

import json
import struct
from pathlib import Path

import torch
from safetensors.torch import save

OUT = Path(__file__).resolve().parent / "corpus" / "safetensors"


def frame(header: str, data: bytes = b"") -> bytes:
    raw = header.encode()
    return struct.pack("<Q", len(raw)) + raw + data


def python_files():
    dtypes = ["bool", "uint8", "int8", "int16", "uint16", "float16", "bfloat16", "int32",
              "uint32", "float32", "float64", "int64", "uint64", "complex64",
              "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
              "float8_e8m0fnu"]
    every = {}
    for name in dtypes:
        dtype = getattr(torch, name)
        every[name] = torch.arange(0, 6).reshape(2, 3).to(dtype)
    every["float4_e2m1fn_x2"] = torch.arange(6, dtype=torch.uint8).reshape(2, 3).view(
        torch.float4_e2m1fn_x2)
    yield "every_dtype", save(every)
    yield "metadata", save({"w": torch.ones(2, 2)}, metadata={"format": "pt"})
    yield "empty_metadata", save({"w": torch.ones(1)}, metadata={})
    yield "no_tensors", save({})
    yield "zero_size", save({"a": torch.zeros(0, 3), "b": torch.zeros(2), "c": torch.zeros(0)})
    yield "scalar", save({"s": torch.tensor(3.5)})
    yield "unicode_names", save({"é\n\"\\\u0001名": torch.ones(1, dtype=torch.int8)})


def hand_made_files():
    entry = '{"dtype":"F32","shape":[1],"data_offsets":[%d,%d]}'
    yield "leading_whitespace", frame('  \n\t{"a":' + entry % (0, 4) + '}      ', b"\0" * 4)
    yield "hole", frame('{"a":' + entry % (0, 4) + ',"b":' + entry % (8, 12) + '}', b"\0" * 12)
    yield "overlap", frame('{"a":' + entry % (0, 4) + ',"b":' + entry % (2, 6) + '}', b"\0" * 6)
    yield "duplicate_key", frame('{"a":' + entry % (0, 4) + ',"a":' + entry % (4, 8) + '}',
                                 b"\0" * 8)
    yield "unsorted_offsets", frame('{"b":' + entry % (4, 8) + ',"a":' + entry % (0, 4) + '}',
                                    b"\0" * 8)
    yield "extra_field", frame('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],'
                               '"extra":[{"x":null}]}}', b"\0" * 4)
    yield "escapes", frame(json.dumps({"\u00e9\U0001F600": {"dtype": "U8", "shape": [1],
                                                                  "data_offsets": [0, 1]}}),
                           b"\1")
    yield "big_header_length", struct.pack("<Q", 2**63) + b"{}"
    yield "overflow_shape", frame('{"a":{"dtype":"F64","shape":[4294967296,4294967296],'
                                  '"data_offsets":[0,0]}}')
    yield "metadata_not_string", frame('{"__metadata__":{"a":1}}')


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, data in [*python_files(), *hand_made_files()]:
        (OUT / f"{name}.safetensors").write_bytes(data)


if __name__ == "__main__":
    main()
