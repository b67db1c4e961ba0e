#!/usr/bin/env python3
"""The peers of bench/image_codecs.cpp: torchvision.io, Pillow and OpenCV.

    image_codecs.py create DIR     a 1080p photo as photo.jpg (q90), photo.png, photo.webp, photo.gif
                                   (256 colours), photo.avif, and animation.gif / animation.webp
                                   (8 frames, 640x360)
    image_codecs.py run DIR        prints "library case seconds" (fastest of the repeats)
    image_codecs.py report CPP PY  the ratios flash_powder / each peer

Every library runs on one thread. A library that is not installed or cannot
load (torchvision's codecs need the torch they were built for) is skipped
with a line saying so.
"""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

import numpy as np


def photo(height: int = 1080, width: int = 1920) -> np.ndarray:
    rng = np.random.default_rng(1080)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    planes = []
    for c in range(3):
        wave = 127.5 + 80 * np.sin(x / (37 + 11 * c)) * np.cos(y / (53 + 7 * c))
        wave += 25 * np.sin((x + y) / (5 + c))
        wave += rng.normal(0, 4, size=(height, width))
        planes.append(wave)
    return np.clip(np.stack(planes, -1), 0, 255).astype(np.uint8)


def create(out: Path) -> None:
    from PIL import Image

    out.mkdir(parents=True, exist_ok=True)
    image = Image.fromarray(photo())
    image.save(out / "photo.jpg", quality=90)
    image.save(out / "photo.png")
    image.save(out / "photo.webp", quality=80)
    image.quantize(colors=256).save(out / "photo.gif")
    image.save(out / "photo.avif", quality=80)
    frames = [Image.fromarray(np.roll(photo(360, 640), 40 * k, axis=1)) for k in range(8)]
    paletted = [frame.quantize(colors=256) for frame in frames]
    paletted[0].save(out / "animation.gif", save_all=True, append_images=paletted[1:], duration=40, loop=0)
    frames[0].save(out / "animation.webp", save_all=True, append_images=frames[1:], duration=40, quality=80)


def best(body, repeats: int = 30) -> float:  # the fastest of many: machines are shared
    body()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        body()
        times.append(time.perf_counter() - start)
    return min(times)


def run_torchvision(d: Path, emit) -> None:
    import torch
    import torchvision.io as tio
    from torchvision.transforms.v2 import functional as F

    torch.set_num_threads(1)
    jpeg, png, webp = (tio.read_file(str(d / f"photo.{e}")) for e in ("jpg", "png", "webp"))
    pixels = tio.decode_png(png)
    emit("decode_jpeg", best(lambda: tio.decode_jpeg(jpeg)))
    emit("decode_jpeg_chw", best(lambda: tio.decode_jpeg(jpeg).contiguous()))
    emit("decode_png", best(lambda: tio.decode_png(png)))
    emit("decode_webp", best(lambda: tio.decode_webp(webp)))
    gif, animation = (tio.read_file(str(d / name)) for name in ("photo.gif", "animation.gif"))
    emit("decode_gif", best(lambda: tio.decode_gif(gif)))
    emit("decode_gif_animated", best(lambda: tio.decode_gif(animation)))
    avif = tio.read_file(str(d / "photo.avif"))
    emit("decode_avif", best(lambda: tio.decode_avif(avif)))
    emit("encode_jpeg", best(lambda: tio.encode_jpeg(pixels, quality=75)))
    # decode_png's channels-last view is what libjpeg wants; a contiguous
    # [C, H, W] image (what every flash_powder decode returns) is copied first.
    chw = pixels.contiguous()
    emit("encode_jpeg_chw", best(lambda: tio.encode_jpeg(chw, quality=75)))
    emit("encode_png", best(lambda: tio.encode_png(pixels, compression_level=6), 5))
    emit("resize_bilinear", best(lambda: F.resize(pixels, [540, 960], antialias=True)))
    # decode_png's result is channels-last, which ATen's uint8 kernel prefers;
    # flash_powder's is contiguous [C, H, W]: the same input, for a fair case.
    emit("resize_bilinear_chw", best(lambda: F.resize(chw, [540, 960], antialias=True)))
    emit("size_encode_png", tio.encode_png(pixels, compression_level=6).numel())


def frames_of(data: bytes):
    """Pillow's every frame as RGB arrays: seek(i), then convert (what decode_gif returns)."""
    from PIL import Image

    def decode():
        image = Image.open(io.BytesIO(data))
        out = []
        for index in range(getattr(image, "n_frames", 1)):
            image.seek(index)
            out.append(np.asarray(image.convert("RGB")))
        return out

    return decode


def run_pillow(d: Path, emit) -> None:
    from PIL import Image

    data = {e: (d / f"photo.{e}").read_bytes() for e in ("jpg", "png", "webp")}
    image = Image.open(io.BytesIO(data["png"])).convert("RGB")
    image.load()

    def decode(kind):
        return lambda: np.asarray(Image.open(io.BytesIO(data[kind])).convert("RGB"))

    def encode(**options):
        return lambda: image.save(io.BytesIO(), **options)

    emit("decode_jpeg", best(decode("jpg")))
    emit("decode_png", best(decode("png")))
    emit("decode_webp", best(decode("webp")))
    for case, name in (("decode_gif", "photo.gif"), ("decode_gif_animated", "animation.gif"),
                       ("decode_webp_animated", "animation.webp"), ("decode_avif", "photo.avif")):
        emit(case, best(frames_of((d / name).read_bytes())))
    emit("encode_jpeg", best(encode(format="JPEG", quality=75)))
    emit("encode_png", best(encode(format="PNG", compress_level=6), 5))
    emit("resize_bilinear", best(lambda: image.resize((960, 540), Image.BILINEAR)))


def run_opencv(d: Path, emit) -> None:
    import cv2

    cv2.setNumThreads(1)
    data = {e: np.frombuffer((d / f"photo.{e}").read_bytes(), np.uint8) for e in ("jpg", "png", "webp")}
    pixels = cv2.imdecode(data["png"], cv2.IMREAD_COLOR)
    emit("decode_jpeg", best(lambda: cv2.imdecode(data["jpg"], cv2.IMREAD_COLOR)))
    emit("decode_png", best(lambda: cv2.imdecode(data["png"], cv2.IMREAD_COLOR)))
    emit("decode_webp", best(lambda: cv2.imdecode(data["webp"], cv2.IMREAD_COLOR)))
    emit("encode_jpeg", best(lambda: cv2.imencode(".jpg", pixels, [cv2.IMWRITE_JPEG_QUALITY, 75])))
    emit("encode_png", best(lambda: cv2.imencode(".png", pixels, [cv2.IMWRITE_PNG_COMPRESSION, 6]), 5))
    emit("resize_bilinear", best(lambda: cv2.resize(pixels, (960, 540), interpolation=cv2.INTER_AREA)))


def run(d: Path) -> None:
    for name, runner in (("torchvision", run_torchvision), ("pillow", run_pillow), ("opencv", run_opencv)):
        try:
            runner(d, lambda case, value, name=name: print(f"{name} {case} {value:.6f}", flush=True))
        except Exception as error:  # not installed, or its codecs cannot load here
            print(f"# {name} skipped: {type(error).__name__}: {error}", flush=True)


def report(cpp: Path, py: Path) -> None:
    ours = {}
    for line in cpp.read_text().splitlines():
        case, value = line.split()
        ours[case] = min(float(value), ours.get(case, float("inf")))  # the best round
    peers: dict[str, dict[str, float]] = {}
    skipped: set[str] = set()
    for line in py.read_text().splitlines():
        if line.startswith("#"):
            if line not in skipped:
                print(line)
                skipped.add(line)
            continue
        library, case, value = line.split()
        mine = peers.setdefault(library, {})
        mine[case] = min(float(value), mine.get(case, float("inf")))
    cases = [c for c in ours if not c.startswith("size_")]
    libraries = list(peers)
    print(f"{'case':<18}{'flash_powder ms':>16}" + "".join(f"{'÷ ' + lib:>16}" for lib in libraries))
    for case in cases:
        row = f"{case:<18}{ours[case] * 1e3:>16.2f}"
        for lib in libraries:
            theirs = peers[lib].get(case if case != "encode_png_fast" else "encode_png")
            row += f"{ours[case] / theirs:>16.2f}" if theirs else f"{'-':>16}"
        print(row)
    tv_png = peers.get("torchvision", {}).get("size_encode_png")
    print(f"PNG bytes: level 6 {int(ours['size_encode_png'])}, fast {int(ours['size_encode_png_fast'])}"
          + (f", torchvision level 6 {int(tv_png)}" if tv_png else ""))
    print("(encode_png_fast is set against each peer's level-6 PNG encode)")


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "create":
        create(Path(sys.argv[2]))
    elif command == "run":
        run(Path(sys.argv[2]))
    else:
        report(Path(sys.argv[2]), Path(sys.argv[3]))
