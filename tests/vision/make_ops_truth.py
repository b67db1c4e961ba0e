#!/usr/bin/env python3
"""Writes seeded inputs and torchvision.ops' results for tests/vision/test_ops_*.cpp.

    make_ops_truth.py boxes OUT_DIR     # run by the Python beside the tests
    make_ops_truth.py kernels OUT_DIR   # run by the Python with torchvision's compiled ops

boxes: torchvision's box functions (pure Python over ATen ops) into
OUT_DIR/boxes-CAP.safetensors, computed by the torch the C++ tests load, under
the lane's CPU capability CAP (atan and friends differ between ATen's kernel
builds). kernels: torchvision's compiled CPU kernels (nms, batched_nms,
roi_align, roi_pool, ps_roi_align, ps_roi_pool) into
OUT_DIR/kernels-CAP.safetensors; these run beside a CUDA build of torch
(scripts/lib/setup.sh, ensure_torchvision_ops), since the torchvision that
pairs with the CPU torch cannot load its compiled ops. The kernels are scalar
C++ except for the sort of the scores in nms, which is libtorch's.

The C++ tests walk the same grids (GRIDS below, repeated there) and read the
keys they build; a key missing here fails there.
"""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import torch
from safetensors.torch import save_file

DTYPES = {"f16": torch.float16, "f32": torch.float32, "f64": torch.float64, "i64": torch.int64}
FORMATS = ("xyxy", "xywh", "cxcywh")
NMS_SIZES = (0, 1, 50, 1000, 3000)
NMS_THRESHOLDS = ("0", "0.3", "0.5", "0.7", "1")
BATCHED_SIZES = (0, 300, 1500)  # 1500 boxes = 6000 coordinates: torchvision's per-category strategy
ROI_SIZES = ((7, 7), (3, 5), (1, 1))
PS_SIZES = ((3, 3), (2, 3), (1, 1))
SCALES = ("1", "0.5")
RATIOS = (-1, 0, 2)


def capability() -> str:
    return torch.backends.cpu.get_cpu_capability()


def import_torchvision_ops(compiled: bool):
    if not compiled:
        # torchvision's Python without its compiled ops (they do not load beside the CPU torch).
        sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))
    import torchvision.ops as ops

    return ops


def grid_boxes(n: int, generator: torch.Generator, low: float = -2.0, high: float = 30.0) -> torch.Tensor:
    """Corners on a grid of quarters, so that coordinates, areas and scores tie;
    some boxes are repeated, some have no width or height, some are inverted."""
    corners = torch.randint(int(low * 4), int(high * 4), (n, 2), generator=generator).double() / 4
    sizes = torch.randint(0, 40, (n, 2), generator=generator).double() / 4
    boxes = torch.cat([corners, corners + sizes], dim=1)
    if n >= 8:
        boxes[1] = boxes[0]
        boxes[3, 2] = boxes[3, 0]  # no width
        boxes[5, 2:] = boxes[5, :2] - 1  # inverted
    return boxes


def write(tensors: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    save_file({k: v.contiguous().clone() for k, v in tensors.items()}, str(tmp))
    tmp.replace(path)


def boxes_truth(out: Path) -> None:
    ops = import_torchvision_ops(compiled=False)
    g = torch.Generator().manual_seed(0)
    t = {}
    b1 = grid_boxes(40, g)
    b2 = grid_boxes(30, g)
    cases = {name: (b1.to(dtype), b2.to(dtype)) for name, dtype in DTYPES.items()}
    cases["empty"] = (torch.zeros(0, 4), torch.zeros(0, 4))
    cases["batched"] = (grid_boxes(30, g).reshape(3, 10, 4).float(), grid_boxes(21, g).reshape(3, 7, 4).float())
    for name, (a, b) in cases.items():
        t[f"{name}.boxes1"], t[f"{name}.boxes2"] = a, b
        for fmt in FORMATS:
            t[f"{name}.box_area.{fmt}"] = ops.box_area(a, fmt=fmt)
            t[f"{name}.box_iou.{fmt}"] = ops.box_iou(a, b, fmt=fmt)
            for out_fmt in FORMATS:
                t[f"{name}.box_convert.{fmt}.{out_fmt}"] = ops.box_convert(a, fmt, out_fmt)
        t[f"{name}.generalized_box_iou"] = ops.generalized_box_iou(a, b)
        t[f"{name}.distance_box_iou"] = ops.distance_box_iou(a, b)
        t[f"{name}.distance_box_iou.eps"] = ops.distance_box_iou(a, b, eps=0.01)
        t[f"{name}.complete_box_iou"] = ops.complete_box_iou(a, b)
        t[f"{name}.complete_box_iou.eps"] = ops.complete_box_iou(a, b, eps=0.01)
        t[f"{name}.clip_boxes_to_image"] = ops.clip_boxes_to_image(a, (7, 11))
        t[f"{name}.remove_small_boxes"] = ops.remove_small_boxes(a, 1.5)
    masks = (torch.rand(6, 13, 9, generator=g) > 0.8).to(torch.uint8)
    masks[1] = 0  # empty
    masks[2] = 0
    masks[2, 4, 5] = 7  # one pixel
    masks[3] = 0
    masks[3, 6, :] = 1  # one row
    for name, m in {"u8": masks, "bool": masks.bool(), "f32": masks.float(), "empty": masks[:0]}.items():
        t[f"masks.{name}"] = m
        t[f"masks_to_boxes.{name}"] = ops.masks_to_boxes(m)
    write(t, out / f"boxes-{capability()}.safetensors")
    layers_truth(out)


def randomize(module: torch.nn.Module, g: torch.Generator) -> None:
    """Every parameter and buffer random (variances positive), so that each matters."""
    for name, tensor in list(module.named_parameters()) + list(module.named_buffers()):
        if tensor.dtype == torch.int64:
            continue
        values = torch.rand(tensor.shape, generator=g) + 0.5 if name.endswith("running_var") else torch.randn(tensor.shape, generator=g)
        tensor.data.copy_(values)


def layers_truth(out: Path) -> None:
    """FrozenBatchNorm2d, Conv2dNormActivation and FeaturePyramidNetwork: each
    module's state into layers-CAP/NAME.safetensors, inputs and outputs into
    layers-CAP.safetensors."""
    from functools import partial

    ops = import_torchvision_ops(compiled=False)
    from torchvision.ops.feature_pyramid_network import LastLevelMaxPool, LastLevelP6P7

    g = torch.Generator().manual_seed(2)
    nn = torch.nn
    modules = {
        "frozen": ops.FrozenBatchNorm2d(8, eps=1e-3),
        "cna_batch_norm": ops.Conv2dNormActivation(
            4, 8, 3, stride=2, norm_layer=partial(nn.BatchNorm2d, eps=1e-3), activation_layer=nn.Hardswish
        ),
        "cna_frozen": ops.Conv2dNormActivation(
            4, 8, 3, dilation=2, groups=2, norm_layer=ops.FrozenBatchNorm2d, activation_layer=nn.ReLU6
        ),
        "cna_plain": ops.Conv2dNormActivation(4, 8, 1, padding=0, norm_layer=None, activation_layer=nn.SiLU),
        "fpn_pool": ops.FeaturePyramidNetwork([4, 8, 16], 8, extra_blocks=LastLevelMaxPool()),
        "fpn_p6p7": ops.FeaturePyramidNetwork(
            [4, 8, 16], 8, extra_blocks=LastLevelP6P7(16, 8), norm_layer=nn.BatchNorm2d
        ),
        "fpn_p5": ops.FeaturePyramidNetwork([4, 8, 8], 8, extra_blocks=LastLevelP6P7(8, 8)),
    }
    t = {}
    pyramid = {"0": torch.randn(2, 4, 16, 20, generator=g), "1": torch.randn(2, 8, 8, 10, generator=g)}
    for name, module in modules.items():
        randomize(module, g)
        module.eval()
        write(dict(module.state_dict()), out / f"layers-{capability()}" / f"{name}.safetensors")
        if name.startswith("fpn"):
            top = 8 if name == "fpn_p5" else 16
            x = dict(pyramid, **{"2": torch.randn(2, top, 3, 5, generator=g)})
            for key, value in x.items():
                t[f"{name}.input.{key}"] = value
            for key, value in module(x).items():
                t[f"{name}.output.{key}"] = value
        else:
            x = torch.randn(2, 8 if name == "frozen" else 4, 9, 11, generator=g)
            t[f"{name}.input"], t[f"{name}.output"] = x, module(x)
    write(t, out / f"layers-{capability()}.safetensors")


def kernels_truth(out: Path) -> None:
    target = out / f"kernels-{capability()}.safetensors"
    if target.exists() and target.stat().st_mtime > Path(__file__).stat().st_mtime:
        return  # made by this script, with the one torch and torchvision set up for it
    ops = import_torchvision_ops(compiled=True)
    g = torch.Generator().manual_seed(1)
    t = {}
    for n in NMS_SIZES:
        boxes = grid_boxes(n, g, 0.0, 100.0 if n > 100 else 20.0)
        scores = torch.randint(0, 16, (n,), generator=g).double() / 16  # many ties
        for dt in ("f32", "f64"):
            b, s = boxes.to(DTYPES[dt]), scores.to(DTYPES[dt])
            t[f"nms.{n}.{dt}.boxes"], t[f"nms.{n}.{dt}.scores"] = b, s
            for threshold in NMS_THRESHOLDS:
                t[f"nms.{n}.{dt}.t{threshold}"] = ops.nms(b, s, float(threshold))
    for n in BATCHED_SIZES:
        boxes = grid_boxes(n, g, 0.0, 40.0).float()
        scores = (torch.randint(0, 16, (n,), generator=g).double() / 16).float()
        idxs = torch.randint(0, 5, (n,), generator=g)
        t[f"batched.{n}.boxes"], t[f"batched.{n}.scores"], t[f"batched.{n}.idxs"] = boxes, scores, idxs
        t[f"batched.{n}.keep"] = ops.batched_nms(boxes, scores, idxs, 0.5)
        t[f"batched.{n}.keep_i32"] = ops.batched_nms(boxes, scores, idxs.int(), 0.5)
    rois = grid_boxes(40, g, -5.0, 30.0)
    rois = torch.cat([torch.randint(0, 2, (40, 1), generator=g).double(), rois], dim=1)
    images = torch.randn(2, 18, 17, 21, generator=g, dtype=torch.float64)
    for dt in ("f16", "f32", "f64"):  # torchvision's roi_pool and ps_roi_pool take no float16
        x, r = images.to(DTYPES[dt]), rois.to(DTYPES[dt])
        t[f"roi.{dt}.input"], t[f"roi.{dt}.rois"] = x, r
        for scale in SCALES:
            for h, w in ROI_SIZES:
                for ratio in RATIOS:
                    for aligned in (False, True):
                        key = f"roi_align.{dt}.{h}x{w}.s{scale}.r{ratio}.a{int(aligned)}"
                        t[key] = ops.roi_align(x, r, (h, w), float(scale), ratio, aligned)
                if dt != "f16":
                    t[f"roi_pool.{dt}.{h}x{w}.s{scale}"] = ops.roi_pool(x, r, (h, w), float(scale))
            for h, w in PS_SIZES:
                for ratio in RATIOS:
                    t[f"ps_roi_align.{dt}.{h}x{w}.s{scale}.r{ratio}"] = ops.ps_roi_align(x, r, (h, w), float(scale), ratio)
                if dt != "f16":
                    t[f"ps_roi_pool.{dt}.{h}x{w}.s{scale}"] = ops.ps_roi_pool(x, r, (h, w), float(scale))
    multiscale_truth(t, g)
    x = images.float()
    boxes0, boxes1 = rois[:25, 1:].float(), rois[25:, 1:].float()
    t["list.boxes0"], t["list.boxes1"] = boxes0, boxes1
    t["list.roi_align"] = ops.roi_align(x, [boxes0, boxes1], 7, 0.5, 2, True)
    t["list.roi_pool"] = ops.roi_pool(x, [boxes0, boxes1], 7, 0.5)
    t["list.ps_roi_align"] = ops.ps_roi_align(x, [boxes0, boxes1], 3, 0.5, 2)
    t["list.ps_roi_pool"] = ops.ps_roi_pool(x, [boxes0, boxes1], 3, 0.5)
    write(t, target)


def multiscale_truth(t: dict, g: torch.Generator) -> None:
    """MultiScaleRoIAlign over three maps of two images of up to 200 x 256,
    boxes from 2 to 200 pixels (every level)."""
    ops = import_torchvision_ops(compiled=True)
    maps = {
        "feat1": torch.randn(2, 6, 50, 64, generator=g),
        "feat2": torch.randn(2, 6, 25, 32, generator=g),
        "feat3": torch.randn(2, 6, 13, 16, generator=g),
    }
    for key, value in maps.items():
        t[f"multiscale.map.{key}"] = value
    boxes = []
    for image in range(2):
        corners = torch.rand(20, 2, generator=g) * torch.tensor([240.0, 190.0])
        sizes = torch.exp(torch.rand(20, 2, generator=g) * 4.6) + 1
        boxes.append(torch.cat([corners, corners + sizes], dim=1))
        t[f"multiscale.boxes{image}"] = boxes[image]
    shapes = [(200, 256), (190, 240)]
    t["multiscale.all"] = ops.MultiScaleRoIAlign(["feat1", "feat2", "feat3"], 7, 2)(maps, boxes, shapes)
    t["multiscale.two"] = ops.MultiScaleRoIAlign(["feat3", "feat1"], (3, 5), -1)(maps, boxes, shapes)
    t["multiscale.one"] = ops.MultiScaleRoIAlign(["feat2"], 4, 0)(maps, boxes, shapes)


def main() -> None:
    kind, out = sys.argv[1], Path(sys.argv[2])
    torch.set_grad_enabled(False)
    {"boxes": boxes_truth, "kernels": kernels_truth}[kind](out)


if __name__ == "__main__":
    main()
