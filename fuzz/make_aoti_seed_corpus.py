#!/usr/bin/env python3
"""Writes small seed packages for the aoti package fuzzer into fuzz/corpus/aoti.

Real packages are megabytes (the model library); the seeds keep the layout
(`<root>/data/aotinductor/model/...`, metadata, proxy-executor list,
`extra/flash_powder.json`) with a tiny ELF image: the ELF header and section
table of a real library, cut down to a dynamic symbol table of two imports.
"""

import json
import struct
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parent / "corpus" / "aoti"


def tiny_elf(imports):
    """A 64-bit little-endian ELF with .dynsym and .dynstr only."""
    names = b"\0" + b"".join(name.encode() + b"\0" for name in imports)
    symbols = b"\0" * 24
    offset = 1
    for name in imports:
        symbols += struct.pack("<IBBHQQ", offset, 0x12, 0, 0, 0, 0)  # GLOBAL FUNC, undefined
        offset += len(name) + 1
    header_size, section_size = 64, 64
    dynstr_at = header_size
    dynsym_at = dynstr_at + len(names)
    sections_at = dynsym_at + len(symbols)
    ident = b"\x7fELF" + bytes([2, 1, 1]) + b"\0" * 9
    header = ident + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, sections_at, 0, header_size,
                                 0, 0, section_size, 3, 0)
    null = b"\0" * section_size
    dynstr = struct.pack("<IIQQQQIIQQ", 0, 3, 0, 0, dynstr_at, len(names), 0, 0, 1, 0)
    dynsym = struct.pack("<IIQQQQIIQQ", 0, 11, 0, 0, dynsym_at, len(symbols), 1, 1, 8, 24)
    return header + names + symbols + null + dynstr + dynsym


def write(name, entries):
    path = OUT / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for entry, data in entries.items():
            archive.writestr(entry, data)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    model = "pkg/data/aotinductor/model/abc"
    metadata = json.dumps({"AOTI_DEVICE_KEY": "cpu", "AOTI_CPU_ISA": "AVX2"})
    signature = json.dumps({"format": 1, "torch_version": "2.13.0", "inputs": [
        {"name": "x", "dtype": "float32", "device": "cpu",
         "sizes": [{"symbol": "s0", "min": 1, "max": 64}, 4]}]})
    elf = tiny_elf(["aoti_torch_get_numel", "aoti_torch_empty_strided"])
    write("plain.pt2", {f"{model}.wrapper.so": elf, f"{model}.wrapper_metadata.json": metadata,
                        "pkg/extra/flash_powder.json": signature})
    write("blob.pt2", {f"{model}.wrapper.so": elf, f"{model}.wrapper_metadata.json": metadata,
                       f"{model}.wrapper_weights.blob": b"\0" * 64})
    proxy = json.dumps({"nodes": [{"name": "buf0", "node": {"target": "torch.ops.aten.linalg_eigh.default"}}]})
    write("proxy.pt2", {f"{model}.wrapper.so": tiny_elf(["aoti_torch_proxy_executor_call_function"]),
                        f"{model}.wrapper.json": proxy})
    (OUT / "library.so").write_bytes(elf)
    (OUT / "signature.json").write_text(signature)


if __name__ == "__main__":
    main()
