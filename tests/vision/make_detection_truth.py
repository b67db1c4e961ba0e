#!/usr/bin/env python3
"""Writes torchvision's detection models with seeded random weights, and their detections.

    make_detection_truth.py OUT_DIR

Run by the Python with torchvision's compiled ops (scripts/lib/setup.sh,
ensure_torchvision_ops: torch 2.14.1 and torchvision 0.29.2), since the
models call torchvision::nms and torchvision::roi_align. A model's numbers
depend on libtorch's convolution and matrix kernels, so the C++ test that
compares with them (tests/vision/test_detection.cpp) runs with that same
torch loaded (tests/vision/with_torchvision_ops_torch.sh).

For each NAME of MODELS (a builder's name, or BUILDER.VARIANT: the builder
with other options), in OUT_DIR:
  NAME.safetensors        the state dict (made once; BatchNorm's parameters and
                          statistics random too, so that they matter, and the
                          class scores spread by the family's function,
                          spread_for: spread_scores for the R-CNNs,
                          spread_dense_scores for RetinaNet and FCOS,
                          spread_ssd_scores for the SSDs)
  NAME-CAP.safetensors    the builder's options ("option.KEY", 0-dim), two
                          seeded images of different sizes ("image0", "image1")
                          and torchvision's detections of the pair ("boxesI",
                          "labelsI", "scoresI", Mask R-CNN's "masksI", Keypoint
                          R-CNN's "keypointsI" and "keypoints_scoresI"),
                          under this CPU capability CAP
and list_models.txt, torchvision's detection builders
(torchvision.models.list_models(module=torchvision.models.detection)), one a line.
The options keep the tests small (reduced sizes, few proposals) and the
random networks' detections many (few classes, low score thresholds);
each image must get at least MIN_DETECTIONS (or box_detections_per_img,
detections_per_img),
or this script fails.
"""

from __future__ import annotations

import os
import sys
import zlib
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

MIN_DETECTIONS = 5

# Builder name -> keyword arguments (each an int or a float; the C++ test reads them back).
# backbone_frozen=1 and backbone_norm_eps: the backbone as torchvision's
# builders make it when given weights (FrozenBatchNorm2d) and its COCO
# checkpoints run (overwrite_eps), not builder keywords.
BACKBONE_KEYS = ("backbone_frozen", "backbone_norm_eps")
# norm_frozen=1 with norm_eps: the builder's norm_layer=partial(FrozenBatchNorm2d, eps=norm_eps).
NORM_KEYS = ("norm_frozen", "norm_eps")
MODELS = {
    "fasterrcnn_mobilenet_v3_large_320_fpn": dict(
        num_classes=5, rpn_post_nms_top_n_test=20, box_score_thresh=0.2, box_detections_per_img=25
    ),
    "fasterrcnn_mobilenet_v3_large_fpn": dict(
        backbone_frozen=1,
        backbone_norm_eps=1e-5,
        num_classes=4,
        min_size=224,
        max_size=320,
        rpn_pre_nms_top_n_test=300,
        rpn_post_nms_top_n_test=40,
        rpn_score_thresh=0.3,
        box_score_thresh=0.25,
    ),
    "fasterrcnn_resnet50_fpn": dict(
        num_classes=5,
        min_size=224,
        max_size=320,
        rpn_pre_nms_top_n_test=200,
        rpn_post_nms_top_n_test=40,
        rpn_nms_thresh=0.6,
        box_score_thresh=0.1,
        box_nms_thresh=0.4,
    ),
    "fasterrcnn_resnet50_fpn_v2": dict(
        num_classes=3, min_size=192, max_size=256, rpn_post_nms_top_n_test=50, box_score_thresh=0.05, box_nms_thresh=0.8
    ),
    "maskrcnn_resnet50_fpn": dict(
        backbone_frozen=1,
        backbone_norm_eps=0.0,
        num_classes=4,
        min_size=160,
        max_size=224,
        rpn_pre_nms_top_n_test=150,
        rpn_post_nms_top_n_test=30,
        box_score_thresh=0.2,
        box_detections_per_img=12,
    ),
    "maskrcnn_resnet50_fpn_v2": dict(
        num_classes=3,
        min_size=160,
        max_size=224,
        rpn_post_nms_top_n_test=50,
        box_score_thresh=0.05,
        box_nms_thresh=0.8,
        box_detections_per_img=12,
    ),
    "keypointrcnn_resnet50_fpn": dict(
        backbone_frozen=1,
        backbone_norm_eps=0.0,
        num_classes=3,
        num_keypoints=5,
        min_size=160,
        max_size=224,
        rpn_pre_nms_top_n_test=150,
        rpn_post_nms_top_n_test=30,
        box_score_thresh=0.05,
        box_detections_per_img=2,
    ),
    "retinanet_resnet50_fpn": dict(
        backbone_frozen=1,
        backbone_norm_eps=0.0,
        num_classes=4,
        min_size=160,
        max_size=224,
        score_thresh=0.05,
        topk_candidates=100,
        detections_per_img=40,
    ),
    "retinanet_resnet50_fpn_v2": dict(
        num_classes=3, min_size=160, max_size=224, score_thresh=0.1, nms_thresh=0.4, topk_candidates=80
    ),
    "fcos_resnet50_fpn": dict(
        num_classes=4, min_size=160, max_size=224, score_thresh=0.3, topk_candidates=100, detections_per_img=30
    ),
    "ssd300_vgg16": dict(num_classes=4, score_thresh=0.3, topk_candidates=40, detections_per_img=20),
    "ssdlite320_mobilenet_v3_large": dict(
        num_classes=5, score_thresh=0.25, nms_thresh=0.5, topk_candidates=30, detections_per_img=25
    ),
    # A variant (BUILDER.VARIANT): the keywords that reshape SSDlite, a
    # narrower MobileNetV3 and norm_layer=partial(FrozenBatchNorm2d, eps=1e-4).
    "ssdlite320_mobilenet_v3_large.narrow_frozen": dict(
        num_classes=4, width_mult=0.75, norm_frozen=1, norm_eps=1e-4, score_thresh=0.25, topk_candidates=30
    ),
}
IMAGE_SIZES = ((3, 200, 260), (3, 170, 130))


def capability() -> str:
    return torch.backends.cpu.get_cpu_capability()


def builder_of(name: str) -> str:
    """The torchvision builder of MODELS' `name` (BUILDER or BUILDER.VARIANT)."""
    return name.split(".")[0]


def build(name: str) -> torch.nn.Module:
    import functools

    import torchvision.models.detection as detection
    from torchvision.ops import FrozenBatchNorm2d

    kwargs = {k: v for k, v in MODELS[name].items() if k not in BACKBONE_KEYS + NORM_KEYS}
    if MODELS[name].get("norm_frozen"):
        kwargs["norm_layer"] = functools.partial(FrozenBatchNorm2d, eps=MODELS[name]["norm_eps"])
    return getattr(detection, builder_of(name))(weights=None, weights_backbone=None, **kwargs).eval()


def freeze_backbone(model: torch.nn.Module, eps: float) -> None:
    """The backbone's BatchNorm2d layers replaced by FrozenBatchNorm2d with their
    values and `eps`: resnet50(norm_layer=FrozenBatchNorm2d) then overwrite_eps."""
    from torchvision.ops import FrozenBatchNorm2d

    for parent in list(model.backbone.body.modules()):
        for child_name, child in list(parent.named_children()):
            if isinstance(child, torch.nn.BatchNorm2d):
                frozen = FrozenBatchNorm2d(child.num_features, eps=eps)
                for key in ("weight", "bias", "running_mean", "running_var"):
                    getattr(frozen, key).copy_(getattr(child, key))
                setattr(parent, child_name, frozen)


def randomize_batch_norms(model: torch.nn.Module) -> None:
    from torchvision.ops import FrozenBatchNorm2d

    for module in model.modules():
        if isinstance(module, (torch.nn.BatchNorm2d, FrozenBatchNorm2d)):
            module.weight.uniform_(0.5, 1.5)
            module.bias.normal_(0, 0.1)
            module.running_mean.normal_(0, 0.1)
            module.running_var.uniform_(0.5, 1.5)


def spread_scores(model: torch.nn.Module, images: list) -> None:
    """The class scores' weights scaled so that, on these images' proposals,
    the logits vary by about 1 from proposal to proposal, and the bias
    centring them (random weights give near-constant probabilities, or 1.0
    and near-zeros)."""
    batch, _ = model.transform(images)
    features = model.backbone(batch.tensors)
    proposals, _ = model.rpn(batch, features)
    heads = model.roi_heads
    x = heads.box_head(heads.box_roi_pool(features, proposals, batch.image_sizes))
    weight = heads.box_predictor.cls_score.weight
    weight.div_(((x - x.mean(0)) @ weight.t()).std())
    heads.box_predictor.cls_score.bias.copy_(-(x.mean(0) @ weight.t()))


def spread_ssd_scores(model: torch.nn.Module, images: list) -> None:
    """spread_scores for the SSD family: each map's last class convolution
    (SSDHead's, or the last of SSDLiteHead's prediction block) scaled so
    that, on these images, its logits at a position vary by about 1 from
    channel to channel (from class to class), with no bias."""
    batch, _ = model.transform(images)
    features = list(model.backbone(batch.tensors).values())
    for block, x in zip(model.head.classification_head.module_list, features):
        conv = block
        if isinstance(block, torch.nn.Sequential):
            conv = block[-1]
            x = block[:-1](x)
        logits = torch.nn.functional.conv2d(x, conv.weight, None, conv.stride, conv.padding)
        conv.weight.div_((logits - logits.mean(1, keepdim=True)).std())
        conv.bias.zero_()


def retarget_outputs(body: torch.nn.Module, last: torch.nn.Conv2d, features: list, std: float, mean: float) -> None:
    """`last`'s weight scaled and bias set so that its outputs on `features`
    (each through `body` first) have about this std and mean."""
    outs = torch.cat([(last(body(f)) - last.bias.view(1, -1, 1, 1)).flatten() for f in features])
    scale = std / outs.std().item()
    last.weight.mul_(scale)
    last.bias.fill_(mean - outs.mean().item() * scale)


def spread_dense_scores(model: torch.nn.Module, images: list) -> None:
    """RetinaNet's and FCOS's heads on these images' features: GroupNorm's
    parameters random (else 1 and 0), the class logits varying by about 1
    around a few percent's probability, the box outputs spread (random heads
    give near-constant scores of 0.01 and boxes equal to their anchors)."""
    for module in model.modules():
        if isinstance(module, torch.nn.GroupNorm):
            module.weight.uniform_(0.5, 1.5)
            module.bias.normal_(0, 0.1)
    batch, _ = model.transform(images)
    features = list(model.backbone(batch.tensors).values())
    cls_head, reg_head = model.head.classification_head, model.head.regression_head
    if hasattr(reg_head, "bbox_ctrness"):  # FCOS: distances after a ReLU, centre-ness logits
        retarget_outputs(cls_head.conv, cls_head.cls_logits, features, std=1.0, mean=-2.0)
        retarget_outputs(reg_head.conv, reg_head.bbox_reg, features, std=0.5, mean=0.5)
        retarget_outputs(reg_head.conv, reg_head.bbox_ctrness, features, std=1.0, mean=0.0)
    else:
        retarget_outputs(cls_head.conv, cls_head.cls_logits, features, std=1.0, mean=-4.0)
        retarget_outputs(reg_head.conv, reg_head.bbox_reg, features, std=0.3, mean=0.0)


def spread_for(name: str):
    """The score-spreading function of `name`'s family."""
    if name.startswith(("retinanet", "fcos")):
        return spread_dense_scores
    if name.startswith("ssd"):
        return spread_ssd_scores
    return spread_scores


def write(tensors: dict, path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    save_file({k: v.contiguous().clone() for k, v in tensors.items()}, str(tmp))
    tmp.replace(path)


def seeded_images(name: str) -> list:
    g = torch.Generator().manual_seed(zlib.crc32(f"{name} images".encode()))
    return [torch.rand(size, generator=g) for size in IMAGE_SIZES]


def model_with_weights(name: str, out: Path) -> torch.nn.Module:
    weights = out / f"{name}.safetensors"
    torch.manual_seed(zlib.crc32(name.encode()))
    model = build(name)
    if not weights.exists():
        randomize_batch_norms(model)
    if MODELS[name].get("backbone_frozen"):
        freeze_backbone(model, MODELS[name]["backbone_norm_eps"])
    if weights.exists():
        model.load_state_dict(load_file(str(weights)))
    else:
        spread_for(name)(model, seeded_images(name))
        write(dict(model.state_dict()), weights)
    return model


def write_detections(name: str, out: Path) -> None:
    target = out / f"{name}-{capability()}.safetensors"
    if target.exists():
        return
    model = model_with_weights(name, out)
    images = seeded_images(name)
    found = model(images)
    t = {f"option.{key}": torch.tensor(value, dtype=torch.float64 if isinstance(value, float) else torch.int64)
         for key, value in MODELS[name].items()}
    for i, (image, detection) in enumerate(zip(images, found)):
        most = MODELS[name].get("box_detections_per_img", MODELS[name].get("detections_per_img", MIN_DETECTIONS))
        minimum = min(MIN_DETECTIONS, most)
        if len(detection["boxes"]) < minimum:
            sys.exit(f"{name}: image {i} has {len(detection['boxes'])} detections, fewer than {minimum}")
        t[f"image{i}"] = image
        t[f"boxes{i}"] = detection["boxes"]
        t[f"labels{i}"] = detection["labels"]
        t[f"scores{i}"] = detection["scores"]
        for extra in ("masks", "keypoints", "keypoints_scores"):
            if extra in detection:
                t[f"{extra}{i}"] = detection[extra]
    write(t, target)


def write_list_models(out: Path) -> None:
    import torchvision.models as models

    target = out / "list_models.txt"
    tmp = target.with_suffix(".tmp")
    tmp.write_text("".join(f"{name}\n" for name in sorted(models.list_models(module=models.detection))))
    tmp.replace(target)


# The models a lane that forces a CPU capability (scripts/test's default,
# avx2 and avx512 lanes: ATEN_CPU_CAPABILITY set) compares: one of each head,
# backbone and postprocessing. The others are built from the same layers and
# ops, and that lane's point is other kernels, not other networks (as
# make_models.py's NATIVE_ONLY); the native lane compares all. Written to
# forced_capability.list for the C++ tests.
FORCED_CAPABILITY_MODELS = ("fasterrcnn_mobilenet_v3_large_320_fpn", "maskrcnn_resnet50_fpn",
                            "keypointrcnn_resnet50_fpn", "retinanet_resnet50_fpn_v2",
                            "fcos_resnet50_fpn", "ssdlite320_mobilenet_v3_large")
assert set(FORCED_CAPABILITY_MODELS) <= set(MODELS), set(FORCED_CAPABILITY_MODELS) - set(MODELS)


def forced_capability() -> bool:
    return bool(os.environ.get("ATEN_CPU_CAPABILITY"))


def write_forced_capability_list(out: Path) -> None:
    target = out / "forced_capability.list"
    tmp = target.with_suffix(".tmp")
    tmp.write_text("".join(f"{name}\n" for name in FORCED_CAPABILITY_MODELS))
    tmp.replace(target)


def main() -> None:
    """make_detection_truth.py OUT_DIR [--weights-only]: --weights-only (the
    sanitizer lane, which compares no detections with torchvision's) makes
    the weights that are missing and no detections."""
    out = Path(sys.argv[1])
    weights_only = sys.argv[2:] == ["--weights-only"]
    out.mkdir(parents=True, exist_ok=True)
    torch.set_grad_enabled(False)
    write_list_models(out)
    write_forced_capability_list(out)
    for name in MODELS:
        if weights_only or (forced_capability() and name not in FORCED_CAPABILITY_MODELS):
            if not (out / f"{name}.safetensors").exists():
                model_with_weights(name, out)
        else:
            write_detections(name, out)


if __name__ == "__main__":
    main()
