#!/usr/bin/env python3
"""Writes the image test corpus and what Pillow decodes from it.

    make_corpus.py OUT_DIR

OUT_DIR/manifest.json lists every case: the encoded file, and a safetensors
file holding, per read mode, the [C, H, W] tensor Pillow (or, where Pillow
cannot say, the pixels the file was written from, or djpeg) gives. The C++
tests (tests/image/test_decode.cpp) decode each file in each mode and compare
exactly. Everything is generated here, at test time, from seeded pixels: no
expected pixel is written by hand.

The read modes' meaning is Pillow's: Image.open, ImageOps.exif_transpose,
then convert("L" | "LA" | "RGB" | "RGBA"); 16-bit gray becomes 8-bit as v >> 8
(Pillow would clip), as torchvision v2 does.

Besides the generated cases, images shipped by Debian packages on this
machine (found under /usr/share) are decoded the same way ("found" cases).

Why this file is long: one corpus, whose every case (JPEG, PNG, WebP, GIF,
AVIF, the files Pillow refuses) and the torchvision transforms' truth are
written and judged in one place, with the same helpers; the GIF writer lives
in gif_writer.py.
"""

from __future__ import annotations

import io
import json
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import torch
from PIL import Image, ImageOps
from safetensors.torch import save_file

sys.path.insert(0, str(Path(__file__).parent))
from gif_writer import random_gif, write_gif  # noqa: E402

MODES = ["Unchanged", "Gray", "GrayAlpha", "RGB", "RGBA"]
PIL_MODES = {"Gray": "L", "GrayAlpha": "LA", "RGB": "RGB", "RGBA": "RGBA"}


def photo(height: int, width: int, channels: int = 3, seed: int = 0) -> np.ndarray:
    """A photo-like uint8 image: smooth gradients, edges and a little noise."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    planes = []
    for c in range(channels):
        phase = rng.uniform(0, 6.28)
        wave = 127.5 + 90 * np.sin(x / (7 + 5 * c) + phase) * np.cos(y / (11 + 3 * c) - phase)
        wave += 30 * ((x // 17 + y // 23 + c) % 2)
        wave += rng.normal(0, 6, size=(height, width))
        planes.append(wave)
    return np.clip(np.stack(planes, axis=-1), 0, 255).astype(np.uint8)


def chw(array: np.ndarray) -> torch.Tensor:
    if array.ndim == 2:
        array = array[:, :, None]
    return torch.from_numpy(np.ascontiguousarray(array.transpose(2, 0, 1)))


def png_bit_depth(path: Path) -> int:
    head = path.read_bytes()[:32]
    return head[24] if head.startswith(b"\x89PNG") else 8


def pillow_modes(path: Path, unchanged: np.ndarray | None = None) -> dict[str, torch.Tensor]:
    """Every read mode of `path` as Pillow decodes it (EXIF orientation applied).

    Pillow reads 16-bit colour PNGs only as 8-bit: for those (the generated ones
    carry their written pixels instead) Unchanged has no reference and is left out.
    """
    image = ImageOps.exif_transpose(Image.open(path))
    if image.mode in ("I;16", "I;16B", "I"):
        sixteen = np.array(image).astype(np.uint16)
        if unchanged is None:
            unchanged = sixteen
        image = Image.fromarray((sixteen >> 8).astype(np.uint8), "L")
    out = {}
    for mode, pil_mode in PIL_MODES.items():
        out[mode] = chw(np.array(image.convert(pil_mode)))
    if unchanged is None:
        native = {"1": "L", "L": "L", "LA": "LA", "RGB": "RGB", "RGBA": "RGBA", "CMYK": "RGB"}
        if image.mode == "P":
            native_mode = "RGBA" if "transparency" in image.info else "RGB"
        else:
            native_mode = native[image.mode]
        unchanged = np.array(image.convert(native_mode))
        if png_bit_depth(path) == 16 and image.mode != "I;16":
            unchanged = None
    if unchanged is not None:
        out["Unchanged"] = chw(unchanged)
    # apply_exif_orientation = false: the pixels as stored.
    stored = Image.open(path)
    if stored.mode not in ("I;16", "I;16B", "I"):
        out["RGB_as_stored"] = chw(np.array(stored.convert("RGB")))
    return out


def pillow_frames(path: Path) -> dict[str, torch.Tensor]:
    """Every read mode of a GIF, animated WebP or AVIF sequence as Pillow gives it frame by frame
    (seek(i), ImageOps.exif_transpose, convert): [C, H, W] for one frame, [N, C, H, W] for more.
    Unchanged is RGB for a GIF (torchvision.io.decode_gif's channels), the file's
    RGB or RGBA for a WebP or AVIF."""
    image = Image.open(path)
    unchanged = "RGBA" if image.format in ("WEBP", "AVIF") and image.mode == "RGBA" else "RGB"
    out = {}
    for mode, pil_mode in {**PIL_MODES, "Unchanged": unchanged}.items():
        frames = []
        for index in range(getattr(image, "n_frames", 1)):
            image.seek(index)
            frames.append(chw(np.array(ImageOps.exif_transpose(image).convert(pil_mode))))
        out[mode] = frames[0] if len(frames) == 1 else torch.stack(frames)
    return out


# --- a PNG writer for what Pillow cannot write: 16-bit colour, 2/4-bit gray, Adam7 ----------

ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def pack_rows(array: np.ndarray, bits: int) -> bytes:
    rows = []
    for row in array.reshape(array.shape[0], -1):
        if bits == 16:
            data = row.astype(">u2").tobytes()
        elif bits == 8:
            data = row.astype(np.uint8).tobytes()
        else:
            data = np.packbits(np.unpackbits(row.astype(np.uint8)[:, None], axis=1)[:, 8 - bits :]).tobytes()
        rows.append(b"\0" + data)
    return b"".join(rows)


def write_png(path: Path, array: np.ndarray, bits: int = 8, interlace: bool = False, extra: bytes = b"",
              tail: bytes = b"") -> None:
    height, width = array.shape[:2]
    channels = 1 if array.ndim == 2 else array.shape[2]
    ihdr = struct.pack(">IIBBBBB", width, height, bits, COLOR_TYPES[channels], 0, 0, int(interlace))
    if interlace:
        raw = b"".join(pack_rows(array[y0::dy, x0::dx], bits) for x0, y0, dx, dy in ADAM7 if array[y0::dy, x0::dx].size)
    else:
        raw = pack_rows(array, bits)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra + chunk(b"IDAT", zlib.compress(raw, 6)) + tail + chunk(b"IEND", b"")
    path.write_bytes(png)


# --- the cases --------------------------------------------------------------------------


class Corpus:
    def __init__(self, out: Path):
        self.out = out
        self.cases: list[dict] = []
        self.refused: list[dict] = []

    def add(self, name: str, path: Path, modes: dict[str, torch.Tensor], kind: str = "generated") -> None:
        reference = self.out / f"{name}.expected.safetensors"
        save_file({mode: tensor.contiguous() for mode, tensor in modes.items()}, str(reference))
        self.cases.append({"name": name, "file": str(path), "expected": str(reference), "kind": kind})

    def pillow_case(self, name: str, path: Path, unchanged: np.ndarray | None = None, kind: str = "generated") -> None:
        self.add(name, path, pillow_modes(path, unchanged), kind)

    def refused_case(self, name: str, path: Path) -> None:
        """A file Pillow refuses (reading every frame raises): flash_powder must throw fp::Error."""
        try:
            pillow_frames(path)
        except Exception as error:
            self.refused.append({"name": name, "file": str(path), "pillow": f"{type(error).__name__}: {error}"})
            return
        raise RuntimeError(f"{path}: Pillow reads it; not a refused case")


def exif_with_orientation(value: int) -> bytes:
    exif = Image.Exif()
    exif[0x0112] = value
    return exif.tobytes()


def xmp_with_orientation(value: int, element: bool = False) -> str:
    """An XMP packet with tiff:Orientation as an attribute (ImageMagick) or an element (exiftool)."""
    tiff = 'xmlns:tiff="http://ns.adobe.com/tiff/1.0/"'
    if element:
        description = f"<rdf:Description {tiff}><tiff:Orientation>{value}</tiff:Orientation></rdf:Description>"
    else:
        description = f'<rdf:Description {tiff} tiff:Orientation="{value}"/>'
    return ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            + description + "</rdf:RDF></x:xmpmeta>")


def raw_profile_exif(value: int) -> str:
    """ImageMagick's PNG text "Raw profile type exif": a hex dump of the EXIF block."""
    exif = exif_with_orientation(value)
    digits = exif.hex()
    return f"\nexif\n{len(exif):8}\n" + "\n".join(digits[i : i + 72] for i in range(0, len(digits), 72)) + "\n"


def itxt(keyword: str, text: str, compressed: bool = False) -> bytes:
    data = zlib.compress(text.encode()) if compressed else text.encode()
    return chunk(b"iTXt", keyword.encode() + b"\0" + bytes([int(compressed), 0]) + b"\0\0" + data)


def jpeg_cases(corpus: Corpus) -> None:
    out = corpus.out
    rgb = photo(97, 131, seed=1)
    big = photo(777, 1001, seed=2)
    for name, options in {
        "q75_420": {"quality": 75, "subsampling": 2},
        "q75_422": {"quality": 75, "subsampling": 1},
        "q75_444": {"quality": 75, "subsampling": 0},
        "q50": {"quality": 50},
        "progressive": {"quality": 80, "progressive": True},
        "restart": {"quality": 85, "restart_marker_blocks": 1},
    }.items():
        path = out / f"jpeg_{name}.jpg"
        Image.fromarray(rgb).save(path, "JPEG", **options)
        corpus.pillow_case(f"jpeg_{name}", path)
    path = out / "jpeg_1001x777.jpg"
    Image.fromarray(big).save(path, "JPEG", quality=90)
    corpus.pillow_case("jpeg_1001x777", path)
    path = out / "jpeg_gray.jpg"
    Image.fromarray(rgb[:, :, 1]).save(path, "JPEG", quality=75)
    corpus.pillow_case("jpeg_gray", path)
    path = out / "jpeg_cmyk.jpg"
    Image.fromarray(photo(61, 83, channels=4, seed=3), "CMYK").save(path, "JPEG", quality=90)
    corpus.pillow_case("jpeg_cmyk", path)
    path = out / "jpeg_ycck.jpg"
    path.write_bytes(turbojpeg_ycck(photo(61, 83, channels=4, seed=10)))
    corpus.pillow_case("jpeg_ycck", path)
    for orientation in range(1, 9):
        path = out / f"jpeg_exif_{orientation}.jpg"
        Image.fromarray(photo(37, 53, seed=orientation)).save(path, "JPEG", exif=exif_with_orientation(orientation))
        corpus.pillow_case(f"jpeg_exif_{orientation}", path)
    for orientation, element in ((6, False), (7, True)):
        path = out / f"jpeg_xmp_{orientation}.jpg"
        xmp = xmp_with_orientation(orientation, element).encode()
        Image.fromarray(photo(37, 53, seed=orientation)).save(path, "JPEG", xmp=xmp)
        corpus.pillow_case(f"jpeg_xmp_{orientation}", path)
    cjpeg_cases(corpus, rgb)


def turbojpeg_ycck(cmyk: np.ndarray) -> bytes:
    """A YCCK JPEG, which Pillow cannot write: TurboJPEG compresses CMYK as YCCK."""
    import ctypes
    import ctypes.util

    lib = ctypes.CDLL(ctypes.util.find_library("turbojpeg") or "libturbojpeg.so.0")
    lib.tjInitCompress.restype = ctypes.c_void_p
    handle = ctypes.c_void_p(lib.tjInitCompress())
    data = np.ascontiguousarray(cmyk)
    out, size = ctypes.POINTER(ctypes.c_ubyte)(), ctypes.c_ulong(0)
    tjpf_cmyk, tjsamp_420 = 11, 2
    status = lib.tjCompress2(handle, data.ctypes.data_as(ctypes.c_void_p), data.shape[1], 0, data.shape[0],
                             tjpf_cmyk, ctypes.byref(out), ctypes.byref(size), tjsamp_420, 90, 0)
    if status != 0:
        raise RuntimeError("tjCompress2 failed")
    encoded = ctypes.string_at(out, size.value)
    lib.tjFree(out)
    lib.tjDestroy(handle)
    return encoded


def cjpeg_cases(corpus: Corpus, rgb: np.ndarray) -> None:
    """What Pillow cannot write: 4:4:0, 4:1:1, RGB colour space, arithmetic coding."""
    if shutil.which("cjpeg") is None:
        print("make_corpus.py: cjpeg missing (apt-get install libjpeg-turbo-progs)", file=sys.stderr)
        sys.exit(1)
    ppm = corpus.out / "source.ppm"
    Image.fromarray(rgb).save(ppm)
    for name, flags in {
        "440": ["-sample", "1x2"],
        "411": ["-sample", "4x1"],
        "rgb_colorspace": ["-rgb"],
        "arithmetic": ["-arithmetic"],
    }.items():
        path = corpus.out / f"jpeg_{name}.jpg"
        subprocess.run(["cjpeg", "-quality", "80", *flags, "-outfile", str(path), str(ppm)], check=True)
        if name == "arithmetic":
            # Pillow's libjpeg has no arithmetic decoder; djpeg is the reference.
            decoded = subprocess.run(["djpeg", "-pnm", str(path)], check=True, capture_output=True).stdout
            copy = corpus.out / f"djpeg_{name}.png"
            Image.open(io.BytesIO(decoded)).save(copy)
            corpus.add(f"jpeg_{name}", path, pillow_modes(copy))
        else:
            corpus.pillow_case(f"jpeg_{name}", path)


def png_cases(corpus: Corpus) -> None:
    out = corpus.out
    rgba = photo(53, 71, channels=4, seed=4)
    for mode, array in {"L": rgba[:, :, 0], "LA": rgba[:, :, :2], "RGB": rgba[:, :, :3], "RGBA": rgba}.items():
        path = out / f"png_{mode}.png"
        Image.fromarray(array, mode).save(path)
        corpus.pillow_case(f"png_{mode}", path)
    path = out / "png_1001x777.png"
    Image.fromarray(photo(777, 1001, seed=5)).save(path)
    corpus.pillow_case("png_1001x777", path)
    path = out / "png_1bit.png"
    Image.fromarray(rgba[:, :, 0] > 128).save(path)
    corpus.pillow_case("png_1bit", path)
    for bits in (2, 4):
        levels = (rgba[:, :, 0] >> (8 - bits)).astype(np.uint8)
        path = out / f"png_gray{bits}.png"
        write_png(path, levels, bits=bits)
        corpus.pillow_case(f"png_gray{bits}", path)
    palette = Image.fromarray(rgba[:, :, :3]).quantize(colors=37)
    path = out / "png_palette.png"
    palette.save(path)
    corpus.pillow_case("png_palette", path)
    path = out / "png_palette_trns.png"
    palette.save(path, transparency=bytes(range(0, 255, 7)))
    corpus.pillow_case("png_palette_trns", path)
    path = out / "png_gray_trns.png"
    Image.fromarray(rgba[:, :, 0]).save(path, transparency=int(rgba[0, 0, 0]))
    corpus.pillow_case("png_gray_trns", path)
    path = out / "png_rgb_trns.png"
    Image.fromarray(rgba[:, :, :3]).save(path, transparency=tuple(int(v) for v in rgba[0, 0, :3]))
    corpus.pillow_case("png_rgb_trns", path)
    path = out / "png_adam7.png"
    write_png(path, rgba[:, :, :3], interlace=True)
    corpus.pillow_case("png_adam7", path)
    for orientation in (3, 6, 8):
        path = out / f"png_exif_{orientation}.png"
        Image.fromarray(photo(29, 41, seed=orientation)).save(path, exif=exif_with_orientation(orientation))
        corpus.pillow_case(f"png_exif_{orientation}", path)
    # Orientation where ImageMagick and exiftool put it: XMP (attribute, element,
    # compressed iTXt), the legacy text chunk, an eXIf after the image data, and
    # an eXIf saying 1 beside an XMP saying 6 (the EXIF wins, as in Pillow).
    after_idat = chunk(b"eXIf", exif_with_orientation(5)[6:])
    for name, orientation, extra in [
        ("xmp_attribute", 6, itxt("XML:com.adobe.xmp", xmp_with_orientation(6))),
        ("xmp_element", 8, itxt("XML:com.adobe.xmp", xmp_with_orientation(8, element=True))),
        ("xmp_compressed", 5, itxt("XML:com.adobe.xmp", xmp_with_orientation(5), compressed=True)),
        ("raw_profile_text", 3, chunk(b"tEXt", b"Raw profile type exif\0" + raw_profile_exif(3).encode())),
        ("raw_profile_ztxt", 7, chunk(b"zTXt", b"Raw profile type exif\0\0" + zlib.compress(raw_profile_exif(7).encode()))),
        ("exif_1_beside_xmp_6", 1, chunk(b"eXIf", exif_with_orientation(1)[6:]) + itxt("XML:com.adobe.xmp", xmp_with_orientation(6))),
    ]:
        for channels in (3, 2):  # RGB takes libpng's path, gray+alpha libspng's
            path = out / f"png_{name}_{channels}.png"
            write_png(path, photo(29, 41, seed=orientation)[:, :, :channels], extra=extra)
            corpus.pillow_case(f"png_{name}_{channels}", path)
    for channels in (3, 2):
        path = out / f"png_exif_after_idat_{channels}.png"
        write_png(path, photo(29, 41, seed=5)[:, :, :channels], tail=after_idat)
        corpus.pillow_case(f"png_exif_after_idat_{channels}", path)
    sixteen_cases(corpus)


def sixteen_cases(corpus: Corpus) -> None:
    """16-bit PNGs, every colour type, gray and RGB with and without tRNS.

    Unchanged is the uint16 pixels written. The other modes take v >> 8, then
    Pillow's 8-bit convert, with a tRNS key applied where the 16-bit samples
    match it exactly (PNG's rule, libpng's and so torchvision's). Pillow itself
    agrees for gray+alpha, RGB and RGBA without tRNS; it clips 16-bit gray to
    0..255 instead of shifting, and never matches a 16-bit tRNS key against its
    8-bit samples (docs/guide/image.md has the table).
    """
    rng = np.random.default_rng(16)
    for channels, name in {1: "gray16", 2: "ga16", 3: "rgb16", 4: "rgba16"}.items():
        array = rng.integers(0, 65536, size=(23, 31, channels), dtype=np.uint16)
        array[3, :5] = array[0, 0]  # pixels equal to the tRNS key below
        array[4, :7] = [100, 200, 250, 9][:channels]  # below 256: shifted to 0, Pillow's gray clip keeps them
        for trns in (False, True) if channels in (1, 3) else (False,):
            pixels = array[:, :, 0] if channels == 1 else array
            path = corpus.out / f"png_{name}{'_trns' if trns else ''}.png"
            key = array[0, 0] if trns else None
            extra = chunk(b"tRNS", struct.pack(">" + "H" * channels, *key)) if trns else b""
            write_png(path, pixels, bits=16, extra=extra)
            eight = (array >> 8).astype(np.uint8)
            if trns:
                alpha = np.where((array == key).all(axis=2), 0, 255).astype(np.uint8)
                eight = np.dstack([eight, alpha])
            pil_mode = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}[eight.shape[2]]
            image = Image.fromarray(eight[:, :, 0] if eight.shape[2] == 1 else eight, pil_mode)
            modes = {mode: chw(np.array(image.convert(pil))) for mode, pil in PIL_MODES.items()}
            modes["Unchanged"] = chw(pixels.astype(np.uint16)).to(torch.uint16)
            corpus.add(f"png_{name}{'_trns' if trns else ''}", path, modes)


def webp_cases(corpus: Corpus) -> None:
    out = corpus.out
    rgba = photo(45, 67, channels=4, seed=6)
    for name, array, options in [
        ("lossy", rgba[:, :, :3], {"quality": 80}),
        ("lossy_alpha", rgba, {"quality": 80}),
        ("lossless", rgba[:, :, :3], {"lossless": True}),
        ("lossless_alpha", rgba, {"lossless": True}),
    ]:
        path = out / f"webp_{name}.webp"
        Image.fromarray(array).save(path, "WEBP", **options)
        corpus.pillow_case(f"webp_{name}", path)
    for orientation in range(1, 9):
        path = out / f"webp_exif_{orientation}.webp"
        Image.fromarray(photo(29, 41, seed=orientation)).save(path, "WEBP", lossless=True,
                                                              exif=exif_with_orientation(orientation))
        corpus.pillow_case(f"webp_exif_{orientation}", path)
    for orientation, element in ((6, False), (8, True)):
        path = out / f"webp_xmp_{orientation}.webp"
        xmp = xmp_with_orientation(orientation, element).encode()
        Image.fromarray(photo(29, 41, seed=orientation)).save(path, "WEBP", lossless=True, xmp=xmp)
        corpus.pillow_case(f"webp_xmp_{orientation}", path)
    # Animations: libwebp composes the frames (blending, disposal) as Pillow reads them.
    frames = [Image.fromarray(np.roll(rgba, 5 * k, axis=0)) for k in range(3)]
    for name, mode, options in [("alpha_lossless", "RGBA", {"lossless": True}), ("alpha_lossy", "RGBA", {"quality": 70}),
                                ("lossy", "RGB", {"quality": 70}), ("lossless", "RGB", {"lossless": True})]:
        path = out / f"webp_animated_{name}.webp"
        converted = [frame.convert(mode) for frame in frames]
        converted[0].save(path, "WEBP", save_all=True, append_images=converted[1:], duration=[40, 80, 40], loop=0,
                          **options)
        corpus.add(f"webp_animated_{name}", path, pillow_frames(path))
    path = out / "webp_animated_exif_6.webp"
    converted[0].save(path, "WEBP", save_all=True, append_images=converted[1:], lossless=True,
                      exif=exif_with_orientation(6))
    corpus.add("webp_animated_exif_6", path, pillow_frames(path))


def avif_cases(corpus: Corpus) -> None:
    """AVIFs Pillow writes (libaom underneath): chroma subsamplings, alpha, gray,
    EXIF orientation (Pillow stores it as irot/imir boxes), XMP, a sequence."""
    from PIL import features

    if not features.check("avif"):
        print("make_corpus.py: this Pillow cannot read AVIF (Pillow 11.3+ can)", file=sys.stderr)
        sys.exit(1)
    out = corpus.out
    rgba = photo(45, 67, channels=4, seed=13)
    rgb = Image.fromarray(rgba[:, :, :3])
    saves = {
        "420": (rgb, {"quality": 80}),
        "422": (rgb, {"quality": 80, "subsampling": "4:2:2"}),
        "444": (rgb, {"quality": 80, "subsampling": "4:4:4"}),
        "alpha": (Image.fromarray(rgba), {"quality": 80}),
        "gray": (Image.fromarray(rgba[:, :, 0]), {"quality": 80}),
        "xmp_6": (rgb, {"quality": 80, "xmp": xmp_with_orientation(6).encode()}),
    }
    for orientation in range(1, 9):
        saves[f"exif_{orientation}"] = (rgb, {"quality": 80, "exif": exif_with_orientation(orientation)})
    for name, (image, options) in saves.items():
        path = out / f"avif_{name}.avif"
        image.save(path, **options)
        corpus.pillow_case(f"avif_{name}", path)
    frames = [Image.fromarray(np.roll(rgba[:, :, :3], 5 * k, axis=0)) for k in range(3)]
    path = out / "avif_sequence.avif"
    frames[0].save(path, save_all=True, append_images=frames[1:], quality=80)
    corpus.add("avif_sequence", path, pillow_frames(path))


def gif_cases(corpus: Corpus) -> None:
    """GIFs Pillow writes, GIFs with every disposal/transparency/table combination,
    and malformed ones Pillow refuses."""
    out = corpus.out
    rgb = photo(37, 53, seed=11)
    paletted = [Image.fromarray(np.roll(rgb, 7 * k, axis=1)).quantize(colors=61) for k in range(4)]
    path = out / "gif_pillow.gif"
    paletted[0].save(path)
    corpus.add("gif_pillow", path, pillow_frames(path))
    path = out / "gif_pillow_transparent.gif"
    paletted[0].save(path, transparency=5)
    corpus.add("gif_pillow_transparent", path, pillow_frames(path))
    path = out / "gif_pillow_gray.gif"
    Image.fromarray(rgb[:, :, 1]).save(path)
    corpus.add("gif_pillow_gray", path, pillow_frames(path))
    path = out / "gif_pillow_animated.gif"
    paletted[0].save(path, save_all=True, append_images=paletted[1:], disposal=[0, 1, 2, 3], transparency=5,
                     duration=40, loop=0)
    corpus.add("gif_pillow_animated", path, pillow_frames(path))
    # Written here: literal LZW codes, the structure exactly as asked.
    for seed in range(24):
        path = out / f"gif_random_{seed}.gif"
        path.write_bytes(random_gif(seed, gray=False if seed < 20 else "only"))
        corpus.add(f"gif_random_{seed}", path, pillow_frames(path))
    rng = np.random.default_rng(12)
    colors = rng.integers(0, 256, (16, 3), dtype=np.uint8)
    indices = rng.integers(0, 16, (7, 9), dtype=np.uint8)
    whole = write_gif(9, 7, [dict(indices=indices)], colors)
    path = out / "gif_interlaced.gif"
    path.write_bytes(write_gif(9, 7, [dict(indices=indices, interlace=True)], colors))
    corpus.add("gif_interlaced", path, pillow_frames(path))
    path = out / "gif_no_trailer.gif"
    path.write_bytes(whole[:-1])
    corpus.add("gif_no_trailer", path, pillow_frames(path))
    path = out / "gif_zero_screen.gif"
    path.write_bytes(write_gif(0, 0, [dict(indices=indices)], colors))
    corpus.add("gif_zero_screen", path, pillow_frames(path))
    # A frame wholly outside the screen, disposed "to previous": Pillow grows
    # its canvas for it, flash_powder clips it away (test_hostile.cpp).
    outside = [dict(indices=indices), dict(indices=indices, left=20, disposal=3), dict(indices=indices[::-1].copy())]
    (out / "gif_frame_outside_screen.gif").write_bytes(write_gif(9, 7, outside, colors))
    data_start = whole.index(b",") + 10  # the LZW minimum code size byte of the (only) frame
    animated = random_gif(5, gray=False)
    malformed = {
        "truncated_header": whole[:20],
        "truncated_data": whole[:-12],
        "truncated_animation": animated[: len(animated) * 2 // 3],
        "zero_size_frame": write_gif(9, 7, [dict(indices=np.zeros((0, 0), np.uint8))], colors),
        "zero_width_frame": write_gif(9, 7, [dict(indices=np.zeros((118, 0), np.uint8))], colors),  # found by fuzzing
        "huge_screen": write_gif(65535, 65535, [dict(indices=indices)], colors),
        "bad_lzw_code": whole[: data_start + 2] + b"\x00\xff\xff" + whole[data_start + 5 :],
        "bad_code_size": whole[:data_start] + b"\x0c" + whole[data_start + 1 :],
    }
    for name, data in malformed.items():
        path = out / f"gif_bad_{name}.gif"
        path.write_bytes(data)
        corpus.refused_case(f"gif_bad_{name}", path)


def found_paths() -> list[Path]:
    """scikit-image's sample photos, and images Debian packages put under /usr/share."""
    paths: list[Path] = []
    try:
        import skimage

        data = Path(skimage.__file__).parent / "data"
        paths += sorted(p for p in data.iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg", ".webp"))
    except ImportError:
        print("make_corpus.py: scikit-image is not installed; its sample images are not tested", file=sys.stderr)
    for pattern, most in (("*.jpg", 10), ("*.jpeg", 10), ("*.webp", 10), ("*.png", 20), ("*.gif", 10)):
        found = [p for p in sorted(Path("/usr/share").rglob(pattern)) if p.is_file() and p.stat().st_size < 4_000_000]
        paths += found[:most]
    return paths


def found_cases(corpus: Corpus) -> None:
    """Images that ship in packages: made by nobody on the team."""
    for index, path in enumerate(found_paths()):
        try:
            with Image.open(path) as probe:
                if probe.mode not in ("1", "L", "LA", "P", "RGB", "RGBA", "CMYK", "I;16"):
                    continue
                if probe.width * probe.height > 1_500_000:
                    continue  # huge ones only slow the suite
                animated = probe.format in ("GIF", "WEBP")
            modes = pillow_frames(path) if animated else pillow_modes(path)
        except Exception as error:  # Pillow cannot read it either: no reference
            print(f"make_corpus.py: skipping {path}: {error}", file=sys.stderr)
            continue
        corpus.add(f"found_{index}_{path.name}", path, modes, kind="found")


def encoder_cases(out: Path) -> None:
    """Pixels to encode (lossless PNG) and Pillow's JPEG of them at quality 75, 4:2:0."""
    for name, array in {"rgb": photo(97, 131, seed=7), "rgb_1001x777": photo(777, 1001, seed=8),
                        "gray": photo(61, 45, seed=9)[:, :, 0]}.items():
        Image.fromarray(array).save(out / f"encode_{name}.png")
        Image.fromarray(array).save(out / f"encode_{name}.pillow_q75.jpg", "JPEG", quality=75)
        Image.fromarray(array).save(out / f"encode_{name}.pillow_q90.jpg", "JPEG", quality=90)


def import_torchvision():
    """torchvision's Python without its compiled ops.

    The torchvision wheel that pairs with torch 2.13 is a CUDA build whose _C
    cannot load beside the CPU torch; only its fake-kernel registrations need
    it, and the functions used here (v2 resize, to_dtype, utils) are Python.
    """
    import types

    sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))
    import torchvision.transforms.v2.functional as F
    import torchvision.utils as utils

    return F, utils


def labelled_boxes_truth(t: dict, utils, rgb: torch.Tensor, floats: torch.Tensor, boxes: torch.Tensor) -> None:
    """torchvision's draw_bounding_boxes with labels, in Pillow's built-in
    bitmap font (the font fp::image embeds): torchvision takes only a TrueType
    file for `font` and otherwise asks ImageFont.load_default(), here made to
    answer load_default_imagefont(), so that torchvision's own code places
    and draws the text."""
    from PIL import ImageFont

    labels = ["disc 0.97", "Square", "", "tri|gy_{}~", "at the edge: clipped"]
    default = utils.ImageFont.load_default
    utils.ImageFont.load_default = lambda size=None: ImageFont.load_default_imagefont()
    try:
        t["boxes_labels"] = utils.draw_bounding_boxes(rgb, boxes, labels=labels)
        t["boxes_labels_width3_fill"] = utils.draw_bounding_boxes(
            rgb, boxes, labels=labels, width=3, fill=True, colors=[(255, 0, 0), (0, 0, 255)] * 2 + [(9, 9, 9)])
        t["boxes_labels_gray"] = utils.draw_bounding_boxes(rgb[:1].contiguous(), boxes, labels=labels, width=0)
        t["boxes_labels_float"] = utils.draw_bounding_boxes(floats, boxes, labels=labels, colors=(255, 255, 0))
    finally:
        utils.ImageFont.load_default = default


def transform_truth(out: Path) -> None:
    """What torchvision's resize, to_dtype, make_grid, save_image and draw_* give,
    for this CPU lane (ATen's kernels differ by capability): transforms-<CAP>.safetensors."""
    F, utils = import_torchvision()
    from torchvision.transforms import InterpolationMode as I

    rgb = chw(np.array(Image.open(out / "png_RGB.png")))  # [3, 53, 71]
    floats = F.to_dtype(rgb, torch.float32, scale=True)
    t: dict[str, torch.Tensor] = {"floatify_f32": floats, "floatify_f64": F.to_dtype(rgb, torch.float64, scale=True)}
    modes = {"nearest": I.NEAREST, "nearest_exact": I.NEAREST_EXACT, "bilinear": I.BILINEAR, "bicubic": I.BICUBIC,
             "lanczos": I.LANCZOS}
    batch = torch.stack([rgb, rgb.flip(-1)])
    for name, mode in modes.items():
        for size in ([30, 41], [100, 120]):
            for antialias in (True, False):
                if name == "lanczos" and not antialias:
                    continue
                key = f"resize_{name}_{size[0]}x{size[1]}_aa{int(antialias)}"
                try:
                    t[key] = F.resize(rgb, size, interpolation=mode, antialias=antialias)
                except (ValueError, RuntimeError, NotImplementedError):
                    # The torch under test lacks this kernel (uint8 lanczos
                    # before 2.13): no truth, and the C++ test expects fp::Error.
                    continue
                t[key + "_batch"] = F.resize(batch, size, interpolation=mode, antialias=antialias)
                if name in ("bilinear", "bicubic"):
                    t[key + "_float"] = F.resize(floats, size, interpolation=mode, antialias=antialias)
    crops = torch.stack([floats[:, y : y + 20, x : x + 30] for y, x in ((0, 0), (5, 9), (30, 40), (11, 3), (33, 0))])
    t["grid_default"] = utils.make_grid(crops)
    t["grid_options"] = utils.make_grid(crops, nrow=2, padding=3, pad_value=0.5)
    t["grid_normalize"] = utils.make_grid(crops * 3 - 1, normalize=True)
    t["grid_value_range"] = utils.make_grid(crops, normalize=True, value_range=(0.2, 0.8))
    t["grid_scale_each"] = utils.make_grid(crops * 3 - 1, normalize=True, scale_each=True)
    t["grid_gray"] = utils.make_grid(crops[:, :1], nrow=3)
    t["grid_single"] = utils.make_grid(crops[0])
    utils.save_image(crops, out / "save_image_row.png", nrow=5)
    masks = torch.stack([rgb[0] > 128, rgb[1] < 90, rgb[2] > 200])
    t["masks_default"] = utils.draw_segmentation_masks(rgb, masks)
    t["masks_colors"] = utils.draw_segmentation_masks(rgb, masks, alpha=0.5, colors=[(255, 0, 0), (0, 255, 0), (0, 0, 255)])
    t["masks_float"] = utils.draw_segmentation_masks(floats, masks, alpha=0.3, colors=(10, 200, 30))
    t["masks_single"] = utils.draw_segmentation_masks(rgb, masks[0])
    boxes = torch.tensor([[1, 2, 30, 40], [10, 5, 60, 50], [0, 0, 70, 52], [20, 20, 20, 30], [40, 45, 90, 80]])
    t["boxes_default"] = utils.draw_bounding_boxes(rgb, boxes)
    t["boxes_width3"] = utils.draw_bounding_boxes(rgb, boxes, width=3, colors=[(255, 0, 0)] * 5)
    t["boxes_fill"] = utils.draw_bounding_boxes(rgb, boxes, fill=True, colors=(0, 255, 255))
    t["boxes_gray"] = utils.draw_bounding_boxes(rgb[:1].contiguous(), boxes, width=2)
    t["boxes_float"] = utils.draw_bounding_boxes(floats, boxes, colors=(255, 255, 0))
    labelled_boxes_truth(t, utils, rgb, floats, boxes)
    capability = torch.backends.cpu.get_cpu_capability()
    save_file({k: v.contiguous() for k, v in t.items()}, str(out / f"transforms-{capability}.safetensors"))


def main() -> None:
    out = Path(sys.argv[1]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    # The corpus depends only on this script (and the packages): made once.
    # The transforms' truth depends on the CPU lane: made on every run.
    stamp = out / "corpus.stamp"
    source = Path(__file__).read_bytes()
    if stamp.exists() and stamp.read_bytes() == source and (out / "manifest.json").exists():
        transform_truth(out)
        print(f"make_corpus.py: corpus in {out} is current; transforms written")
        return
    corpus = Corpus(out)
    jpeg_cases(corpus)
    png_cases(corpus)
    webp_cases(corpus)
    gif_cases(corpus)
    avif_cases(corpus)
    found_cases(corpus)
    encoder_cases(out)
    (out / "manifest.json").write_text(json.dumps({"cases": corpus.cases, "refused": corpus.refused}, indent=1))
    transform_truth(out)
    stamp.write_bytes(source)
    print(f"make_corpus.py: {len(corpus.cases)} cases in {out}")


if __name__ == "__main__":
    main()
