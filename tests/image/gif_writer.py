"""A GIF writer for what Pillow's cannot write: a file with exactly the
structure asked for (disposal methods, transparency, local and global colour
tables, offsets, interlacing), which Pillow's writer would optimise away; and
random small GIFs that combine all of it. make_corpus.py writes its GIF cases
with it. The LZW data codes every index as a literal: valid data any decoder
reads, the structure being what the tests are about.
"""

from __future__ import annotations

import struct

import numpy as np


def gif_lzw_literal(indices, min_code_size):
    """LZW data that codes every index as a literal (a clear code often enough that
    the code width never grows): valid GIF image data any decoder reads."""
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    width = min_code_size + 1
    room = (1 << width) - (1 << min_code_size) - 2
    codes = [clear]
    for n, index in enumerate(indices):
        if n and n % room == 0:
            codes.append(clear)
        codes.append(int(index))
    codes.append(end)
    bits, nbits, out = 0, 0, bytearray()
    for code in codes:
        bits |= code << nbits
        nbits += width
        while nbits >= 8:
            out.append(bits & 255); bits >>= 8; nbits -= 8
    if nbits:
        out.append(bits & 255)
    return bytes(out)

def gif_sub_blocks(data):
    out = bytearray()
    for i in range(0, len(data), 255):
        part = data[i:i + 255]
        out += bytes([len(part)]) + part
    return bytes(out + b"\0")

def gif_color_table(colors):
    bits = max(1, int(np.ceil(np.log2(max(len(colors), 2)))))
    table = np.zeros((1 << bits, 3), np.uint8)
    table[:len(colors)] = colors
    return bits, table.tobytes()

def write_gif(width: int, height: int, frames: list[dict], global_colors=None, background: int = 0,
              loop: bool = True) -> bytes:
    """A GIF with exactly the structure asked for (Pillow's writer optimises it
    away): frames are dicts of indices [h, w], left, top, colors (a local table
    or None), transparency (None or an index), disposal, interlace, code_size."""
    flags = 0
    table = b""
    if global_colors is not None:
        bits, table = gif_color_table(global_colors)
        flags = 0x80 | (7 << 4) | (bits - 1)
    out = bytearray(b"GIF89a" + struct.pack("<HHBBB", width, height, flags, background, 0) + table)
    if loop and len(frames) > 1:
        out += b"!\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    for f in frames:
        if f.get("transparency") is not None or f.get("disposal", 0):
            packed = (f.get("disposal", 0) << 2) | (1 if f.get("transparency") is not None else 0)
            out += b"!\xf9\x04" + struct.pack("<BHB", packed, 10, f.get("transparency") or 0) + b"\0"
        h, w = f["indices"].shape
        lflags = 0x40 if f.get("interlace") else 0
        ltable = b""
        if f.get("colors") is not None:
            lbits, ltable = gif_color_table(f["colors"])
            lflags |= 0x80 | (lbits - 1)
        out += b"," + struct.pack("<HHHHB", f.get("left", 0), f.get("top", 0), w, h, lflags) + ltable
        rows = f["indices"]
        if f.get("interlace"):
            rows = np.concatenate([rows[s::d] for s, d in ((0, 8), (4, 8), (2, 4), (1, 2))])
        code_size = max(2, int(f.get("code_size", 8)))
        out += bytes([code_size]) + gif_sub_blocks(gif_lzw_literal(rows.reshape(-1), code_size))
    return bytes(out + b";")

def random_gif(seed: int, gray: bool | str = True) -> bytes:
    """A small random GIF: 1-5 frames at random offsets, local and global colour
    tables, transparency, every disposal method, interlacing, indices past the
    table. gray=False: a colour global table; "only": gray (identity) tables only."""
    rng = np.random.default_rng(seed)
    W, H = int(rng.integers(1, 24)), int(rng.integers(1, 24))
    ncolors = int(rng.choice([2, 3, 4, 16, 200, 256]))
    kind = rng.integers(0, 4)
    if not gray:
        kind = 0
    if gray == 'only':
        kind = 1
    global_colors = None
    if kind == 0:
        global_colors = rng.integers(0, 256, (ncolors, 3), dtype=np.uint8)
    elif kind == 1:
        global_colors = np.repeat(np.arange(ncolors, dtype=np.uint8)[:, None], 3, 1)  # identity: Pillow's "L"
    elif kind == 2:
        global_colors = rng.integers(0, 256, (ncolors, 3), dtype=np.uint8)
    frames = []
    for i in range(int(rng.integers(1, 6))):
        w, h = int(rng.integers(1, W + 1)), int(rng.integers(1, H + 1))
        left, top = int(rng.integers(0, W - w + 1)), int(rng.integers(0, H - h + 1))
        colors = None
        if gray != 'only' and (global_colors is None or rng.random() < 0.3):
            colors = rng.integers(0, 256, (int(rng.choice([2, 4, 16, 256])), 3), dtype=np.uint8)
            if gray and rng.random() < 0.2:
                colors = np.repeat(np.arange(len(colors), dtype=np.uint8)[:, None], 3, 1)
        table = len(colors) if colors is not None else len(global_colors)
        hi = 1 << max(1, int(np.ceil(np.log2(max(table, 2)))))
        if rng.random() < 0.2:
            hi = 256
        indices = rng.integers(0, hi, (h, w), dtype=np.uint8)
        trns = int(rng.integers(0, hi)) if rng.random() < 0.5 else None
        if trns is not None:
            indices[rng.random((h, w)) < 0.4] = trns
        frames.append(dict(indices=indices, left=left, top=top, colors=colors, transparency=trns,
                           disposal=int(rng.choice([0, 1, 2, 3, 0, 2])), interlace=bool(rng.random() < 0.3), code_size=8))
    return write_gif(W, H, frames, global_colors, background=int(rng.integers(0, 256)) if rng.random() < 0.5 else 0)
