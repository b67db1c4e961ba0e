#!/usr/bin/env python3
"""Writes torchvision classifiers with seeded random weights, and their outputs.

    make_models.py OUT_DIR [--preprocessing] NAME...

For each NAME (see MODELS) in OUT_DIR:
  NAME.safetensors   the state dict (made once; BatchNorm's affine parameters
                     and running statistics are random too, so that they matter)
  NAME.keys          the state dict's keys in PyTorch's order, one per line
  NAME.shapes        for the KEYS_ONLY networks: "key [sizes]" per line
  NAME.io-CAP.safetensors   seeded inputs of batch 1 and 2 and torchvision's
                     outputs for them in eval mode, under this CPU capability
                     (ATen's kernels differ between AVX2, AVX-512 and the default);
                     for the FLOAT64 networks also outputN_f64, the network
                     and the input in float64
  NAME.io-cuda.safetensors  the same on the GPU, where one exists (CUDA_MODELS)
Without NAMEs: every model but the LARGE ones (whose tests write theirs; in
a shallow lane, see shallow_lane(), not the NATIVE_ONLY ones either),
preprocessing-CAP.safetensors: torchvision's ImageClassification preset of
seeded images (with NAMEs too when --preprocessing is given), and native_only.list: the NATIVE_ONLY names, which the C++
tests leave out in a shallow lane. The C++ tests (tests/vision/test_models.cpp) load the weights into
fp::vision::models' networks and compare keys and outputs exactly. Also,
for BUFFER_MODELS, NAME.buffers.safetensors: the relative-position buffers
the networks compute.

Why this file is long: one table of every network the tests compare (its
constructor, options and input size, with why each case is there) and the
one writer of all their files, so that the C++ tests and this stay in step.
"""

from __future__ import annotations

import copy
import os
import sys
import types
from collections import OrderedDict
import zlib
from functools import partial
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file


def import_torchvision_models():
    """torchvision.models without torchvision's compiled ops, which the
    torchvision wheel beside the CPU torch cannot load; the models are Python."""
    sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))
    import torchvision.models as models

    # RegNet's widths are tensor arithmetic, which the meta device (write_keys) cannot read back.
    block_params = models.regnet.BlockParams
    if not hasattr(block_params, "cpu_init_params"):
        block_params.cpu_init_params = block_params.from_init_params

        def on_cpu(cls, *args, **kwargs):
            with torch.device("cpu"):
                return cls.cpu_init_params(*args, **kwargs)

        block_params.from_init_params = classmethod(on_cpu)
    return models


# Networks whose seeded weights take tens of seconds to make and a third to
# half a gigabyte to keep: the tests compare their state-dict keys only
# (made on the meta device, in no time) and run their blocks in the
# "_shallow" networks of MODELS.
KEYS_ONLY = ("resnext101_32x8d", "resnext101_64x4d", "wide_resnet50_2", "wide_resnet101_2")
# densenet169 and densenet201 are densenet121 with more layers per block
# (seconds each in oneDNN, whose kernels are made per layer's shape): their
# keys only; their forward is densenet121's.
KEYS_ONLY += ("densenet169", "densenet201")
# convnext_small to _large are convnext_tiny with more blocks or channels:
# their keys; the class's options run in convnext_small_options.
KEYS_ONLY += ("convnext_small", "convnext_base", "convnext_large")
# efficientnet_b1 to b7 are efficientnet_b0 wider and deeper, efficientnet_v2_m
# and _l efficientnet_v2_s: their keys and shapes (which check the width and
# depth arithmetic); the classes' options run in efficientnet_small_options.
KEYS_ONLY += tuple(f"efficientnet_{v}" for v in ["b1", "b2", "b3", "b4", "b5", "b6", "b7", "v2_m", "v2_l"])
# RegNet: regnet_y_400mf and regnet_x_400mf run, and a small RegNet with
# options; the others (6 to 640 M parameters) are theirs wider and deeper:
# their keys and shapes.
# inception_v3 with its auxiliary classifier: keys and shapes (eval mode
# skips it); its forward runs in inception_v3_transform_input.
KEYS_ONLY += ("inception_v3",)
KEYS_ONLY += tuple(f"regnet_{k}_{v}" for k in "yx" for v in ["800mf", "1_6gf", "3_2gf", "8gf", "16gf", "32gf"])
KEYS_ONLY += ("regnet_y_128gf",)
# The transformers: a third of a gigabyte (ViT-B) to 2.5 GB (ViT-H) each;
# their forward runs in small networks of the same classes.
KEYS_ONLY += ("vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "vit_h_14")
KEYS_ONLY += ("swin_s", "swin_b", "swin_v2_s", "swin_v2_b")

# torchvision.models.segmentation's builders (built with weights_backbone=None;
# their forward returns {"out", "aux"}, written as outN and auxN). The
# resnet101 ones: their keys only; their blocks run in the resnet50 ones.
SEGMENTATION = ("fcn_resnet50", "fcn_resnet101", "deeplabv3_resnet50", "deeplabv3_resnet101",
                "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large")
KEYS_ONLY += ("fcn_resnet101_aux", "deeplabv3_resnet101_aux")

# name: (torchvision constructor, its keyword arguments, input height and
# width: one number for a square)
MODELS = {
    **{name: (name, {}, 32) for name in ["vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"]},
    **{name: (name, {}, 64) for name in ["resnet18", "resnet34", "resnet50", "resnet101", "resnet152"]},
    "resnet18_classes10": ("resnet18", {"num_classes": 10}, 64),
    "mobilenet_v3_small": ("mobilenet_v3_small", {}, 64),
    "mobilenet_v3_small_classes10": ("mobilenet_v3_small", {"num_classes": 10}, 64),
    "alexnet": ("alexnet", {}, 64),
    "squeezenet1_0": ("squeezenet1_0", {}, 64),
    "squeezenet1_1": ("squeezenet1_1", {}, 64),
    "squeezenet1_1_classes10": ("squeezenet1_1", {"num_classes": 10}, 64),
    "mobilenet_v2": ("mobilenet_v2", {}, 64),
    "mobilenet_v2_width075": ("mobilenet_v2", {"width_mult": 0.75, "num_classes": 10}, 64),
    "mobilenet_v3_large": ("mobilenet_v3_large", {}, 64),
    **{name: (name, {}, 32) for name in ["shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0"]},
    "shufflenet_v2_x0_5_classes10": ("shufflenet_v2_x0_5", {"num_classes": 10}, 32),
    # DenseNet at the smallest input torchvision allows (min_size 29), and
    # the class itself, small, with every keyword argument.
    **{name: (name, {}, 32) for name in ["densenet121", "densenet161"]},
    "densenet_small_options": (
        "DenseNet",
        {"growth_rate": 12, "block_config": (2, 3, 2), "num_init_features": 16, "bn_size": 2,
         "drop_rate": 0.2, "num_classes": 10, "memory_efficient": True},
        32,
    ),
    **{name: (name, {}, 32) for name in ["mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3"]},
    "mnasnet0_5_classes10": ("mnasnet0_5", {"num_classes": 10, "dropout": 0.5}, 32),
    # GoogLeNet with its auxiliary classifiers (keys only: eval mode skips
    # them), and without them but with transform_input; init_weights=True is
    # torchvision's default, said so to keep it from warning.
    "googlenet": ("googlenet", {"init_weights": True}, 32),
    "googlenet_transform_input": (
        "googlenet",
        {"init_weights": True, "aux_logits": False, "transform_input": True, "num_classes": 10},
        32,
    ),
    "resnext50_32x4d": ("resnext50_32x4d", {}, 32),
    # The other families' smallest builders; the classes themselves, small,
    # with their keyword arguments (a constructor given as a function of
    # torchvision.models).
    "convnext_tiny": ("convnext_tiny", {}, 32),
    "convnext_small_options": (
        lambda m, **kwargs: m.ConvNeXt(
            [m.convnext.CNBlockConfig(32, 64, 1), m.convnext.CNBlockConfig(64, 128, 2),
             m.convnext.CNBlockConfig(128, None, 1)], **kwargs),
        {"num_classes": 10, "stochastic_depth_prob": 0.2, "layer_scale": 0.5},
        32,
    ),
    **{f"efficientnet_{v}": (f"efficientnet_{v}", {}, 32) for v in ["b0", "v2_s"]},
    "efficientnet_small_options": (
        lambda m, **kwargs: m.EfficientNet(
            [m.efficientnet.FusedMBConvConfig(1, 3, 1, 16, 16, 1), m.efficientnet.FusedMBConvConfig(4, 3, 2, 16, 24, 1),
             m.efficientnet.MBConvConfig(4, 3, 2, 24, 32, 2, width_mult=1.1, depth_mult=1.2),
             m.efficientnet.MBConvConfig(6, 5, 1, 32, 40, 1)],
            0.3, norm_layer=partial(torch.nn.BatchNorm2d, eps=1e-3), **kwargs),
        {"stochastic_depth_prob": 0.1, "num_classes": 10, "last_channel": 64},
        32,
    ),
    **{f"regnet_{v}": (f"regnet_{v}", {}, 32) for v in ["y_400mf", "x_400mf"]},
    "inception_v3_transform_input": (
        "inception_v3",
        {"init_weights": True, "aux_logits": False, "transform_input": True, "num_classes": 10, "dropout": 0.3},
        75,
    ),
    "regnet_small_options": (
        lambda m, **kwargs: m.RegNet(
            m.regnet.BlockParams.from_init_params(
                depth=5, w_0=16, w_a=10.0, w_m=2.0, group_width=8, bottleneck_multiplier=0.75, se_ratio=0.25),
            **kwargs),
        {"num_classes": 10, "stem_width": 16},
        32,
    ),
    # The largest networks: their keys only (KEYS_ONLY), and their blocks'
    # forward through a shallow ResNet of one block per stage with the same
    # groups and width, at the smallest input every stage accepts.
    **{name: (name, {}, 32) for name in KEYS_ONLY},
    "inception_v3": ("inception_v3", {"init_weights": True}, 75),
    "resnext_32x8d_shallow": ("ResNet", {"groups": 32, "width_per_group": 8}, 32),
    "resnext_64x4d_shallow": ("ResNet", {"groups": 64, "width_per_group": 4}, 32),
    "wide_resnet_2_shallow": ("ResNet", {"width_per_group": 128}, 32),
    # ViT's blocks in a small VisionTransformer (an even number of heads:
    # MultiheadAttention's fused fast path), and one with a representation
    # layer, one head (the step-by-step path) and every keyword argument.
    "vit_small": (
        "VisionTransformer",
        {"image_size": 32, "patch_size": 8, "num_layers": 2, "num_heads": 2, "hidden_dim": 16, "mlp_dim": 32},
        32,
    ),
    "vit_small_options": (
        "VisionTransformer",
        {"image_size": 16, "patch_size": 4, "num_layers": 1, "num_heads": 1, "hidden_dim": 12, "mlp_dim": 20,
         "dropout": 0.1, "attention_dropout": 0.2, "num_classes": 10, "representation_size": 24},
        16,
    ),
    # ViT with a convolutional stem (two stride-2 Conv2dNormActivations
    # making the patches of 4) instead of the patch convolution.
    "vit_small_conv_stem": (
        lambda m, **kwargs: m.VisionTransformer(
            conv_stem_configs=[m.vision_transformer.ConvStemConfig(8, 3, 2),
                               m.vision_transformer.ConvStemConfig(6, 3, 2)], **kwargs),
        {"image_size": 16, "patch_size": 4, "num_layers": 1, "num_heads": 2, "hidden_dim": 12, "mlp_dim": 20,
         "num_classes": 10},
        16,
    ),
    # Swin-T (V1 and V2) at 32x32: the first stage's 8x8 map padded to two
    # windows a side and shifted, the others one window, unshifted. Their
    # blocks in a small network with every keyword argument, windows of 3x4
    # on a 40x40 image: each stage padded (the second and third on odd maps,
    # padded for the patch merging too) and shifted but the last.
    **{name: (name, {}, 32) for name in ["swin_t", "swin_v2_t"]},
    **{
        name: (
            constructor,
            {"patch_size": [4, 4], "embed_dim": 8, "depths": [2, 2, 2], "num_heads": [2, 2, 4],
             "window_size": [3, 4], "mlp_ratio": 2.0, "dropout": 0.1, "attention_dropout": 0.1,
             "stochastic_depth_prob": 0.1, "num_classes": 10},
            40,
        )
        for name, constructor in [("swin_small", "SwinTransformer"), ("swin_v2_small", "SwinTransformerV2")]
    },
    # MaxViT-T takes 224x224 only (every block's map a multiple of 7); its
    # blocks in a small MaxVit with every keyword argument at 32x32 (4x4
    # windows and grids, then 2x2).
    "maxvit_t": ("maxvit_t", {}, 224),
    "maxvit_small_options": (
        "MaxVit",
        {"input_size": (32, 32), "stem_channels": 8, "partition_size": 2, "block_channels": [8, 16],
         "block_layers": [1, 2], "head_dim": 4, "stochastic_depth_prob": 0.1, "squeeze_ratio": 0.5,
         "expansion_ratio": 2, "mlp_ratio": 2, "mlp_dropout": 0.1, "attention_dropout": 0.1, "num_classes": 10},
        32,
    ),
    # Segmentation, at a small input of odd, unequal sides (the upsampling
    # back to it is bilinear): with and without the auxiliary head, and
    # another num_classes.
    "fcn_resnet50_aux": ("fcn_resnet50", {"aux_loss": True}, (37, 50)),
    "fcn_resnet101_aux": ("fcn_resnet101", {"aux_loss": True}, (37, 50)),
    "deeplabv3_resnet50": ("deeplabv3_resnet50", {}, (37, 50)),
    "deeplabv3_resnet101_aux": ("deeplabv3_resnet101", {"aux_loss": True}, (37, 50)),
    "deeplabv3_mobilenet_v3_large_aux": ("deeplabv3_mobilenet_v3_large", {"aux_loss": True}, (37, 50)),
    "lraspp_mobilenet_v3_large": ("lraspp_mobilenet_v3_large", {}, (37, 50)),
    "lraspp_mobilenet_v3_large_classes5": ("lraspp_mobilenet_v3_large", {"num_classes": 5}, (37, 50)),
    # The backbones' dilation options in the classifiers, in other patterns.
    "mobilenet_v3_small_dilated": ("mobilenet_v3_small", {"dilated": True}, 32),
    "resnet_dilated_shallow": ("ResNet", {"replace_stride_with_dilation": [True, False, True]}, 32),
}

# Full-size networks whose every block a smaller case of the same class runs
# (its "_options", "_small" or "_classes10" network, or a sibling): the
# native lane compares them all; the lanes that force a CPU capability or run
# under sanitizers, whose point is other kernels, not other networks, leave
# them out (half their time).
NATIVE_ONLY = ("resnet34", "resnet50", "mobilenet_v2", "mobilenet_v3_large",
               "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0",
               "densenet121", "densenet161", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3",
               "convnext_tiny", "efficientnet_b0", "efficientnet_v2_s", "regnet_y_400mf",
               "regnet_x_400mf", "swin_t", "swin_v2_t", "maxvit_t", "fcn_resnet50_aux")


assert set(NATIVE_ONLY) <= set(MODELS), set(NATIVE_ONLY) - set(MODELS)


def shallow_lane() -> bool:
    """A lane that forces a CPU capability (scripts/test --cpu, valgrind) or
    runs under sanitizers (FP_TEST_SHALLOW_MODELS), as test_models.cpp's
    every_depth() tells it."""
    return bool(os.environ.get("ATEN_CPU_CAPABILITY")) or bool(os.environ.get("FP_TEST_SHALLOW_MODELS"))


# Networks whose weights are too large to keep (a quarter to half a
# gigabyte each): their tests write them and remove them after.
LARGE = ("vgg", "alexnet")


def seed_of(name: str) -> int:
    return zlib.crc32(name.encode())


def build(name: str) -> torch.nn.Module:
    constructor, kwargs, _ = MODELS[name]
    models = import_torchvision_models()
    if callable(constructor):
        return constructor(models, **kwargs).eval()
    if constructor == "ResNet":  # one Bottleneck per stage
        return models.ResNet(models.resnet.Bottleneck, [1, 1, 1, 1], **kwargs).eval()
    if constructor == "DenseNet":
        return models.DenseNet(**kwargs).eval()
    if constructor == "VisionTransformer":
        return models.VisionTransformer(**kwargs).eval()
    if constructor == "MaxVit":
        return models.MaxVit(**kwargs).eval()
    if constructor == "SwinTransformer":
        return models.SwinTransformer(**kwargs).eval()
    if constructor == "SwinTransformerV2":
        swin = models.swin_transformer
        return models.SwinTransformer(block=swin.SwinTransformerBlockV2, downsample_layer=swin.PatchMergingV2,
                                      **kwargs).eval()
    if constructor in SEGMENTATION:
        return getattr(models.segmentation, constructor)(weights=None, weights_backbone=None, **kwargs).eval()
    return getattr(models, constructor)(weights=None, **kwargs).eval()


def randomize_batch_norms(model: torch.nn.Module) -> None:
    """BatchNorm's and LayerNorm's parameters and statistics, and ConvNeXt's
    layer_scale (1e-6 would hide its blocks)."""
    for module in model.modules():
        if isinstance(module, torch.nn.LayerNorm):
            with torch.no_grad():
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0, 0.1)
        if isinstance(getattr(module, "layer_scale", None), torch.nn.Parameter):
            with torch.no_grad():
                module.layer_scale.uniform_(0.5, 1.5)
        if isinstance(module, torch.nn.BatchNorm2d):
            with torch.no_grad():
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0, 0.1)
                module.running_mean.normal_(0, 0.1)
                module.running_var.uniform_(0.5, 1.5)


# The families whose parameters torchvision starts at zero (ViT's head and
# class token, LayerNorm's and Linear's biases) get random values instead,
# so that they matter too.
RANDOMIZE_ZEROS = ("VisionTransformer", "SwinTransformer", "swin_", "MaxVit", "maxvit")


def randomize_zeros(model: torch.nn.Module) -> None:
    with torch.no_grad():
        for parameter in model.parameters():
            if not parameter.any():
                parameter.normal_(0, 0.1)


def write_weights(name: str, out: Path) -> torch.nn.Module:
    torch.manual_seed(seed_of(name))
    model = build(name)
    randomize_batch_norms(model)
    constructor = MODELS[name][0]
    if (isinstance(constructor, str) and constructor.startswith(RANDOMIZE_ZEROS)) or name.startswith("vit_"):
        randomize_zeros(model)
    state = model.state_dict()
    save_file({k: v.contiguous() for k, v in state.items()}, str(out / f"{name}.safetensors.tmp"))
    (out / f"{name}.keys.tmp").write_text("".join(f"{key}\n" for key in state))
    (out / f"{name}.keys.tmp").rename(out / f"{name}.keys")
    (out / f"{name}.safetensors.tmp").rename(out / f"{name}.safetensors")
    return model


def write_keys(name: str, out: Path) -> None:
    """The state dict's keys and shapes of a network built on the meta device."""
    with torch.device("meta"):
        model = build(name)
    state = model.state_dict()
    (out / f"{name}.shapes").write_text("".join(f"{key} {list(v.shape)}\n" for key, v in state.items()))
    (out / f"{name}.keys.tmp").write_text("".join(f"{key}\n" for key in state))
    (out / f"{name}.keys.tmp").rename(out / f"{name}.keys")


# Networks whose computed buffers (relative position indices and coordinate
# tables) the C++ tests compare with their own.
BUFFER_MODELS = ("swin_t", "swin_v2_t", "maxvit_t")


def write_buffers(name: str, out: Path) -> None:
    """The relative-position buffers of the network, which its constructor
    computes (no weights: they are not random)."""
    model = build(name)
    buffers = {key: value.contiguous() for key, value in model.state_dict().items()
               if "relative_position_index" in key or "relative_coords_table" in key}
    save_file(buffers, str(out / f"{name}.buffers.safetensors.tmp"))
    Path(str(out / f"{name}.buffers.safetensors.tmp")).rename(out / f"{name}.buffers.safetensors")


def write_outputs(name: str, out: Path, model: torch.nn.Module | None = None) -> None:
    """model: the network just written, or None to read it back; built on the
    meta device then, so that torchvision does not initialise weights that the
    file replaces (seconds for VGG), and given fresh memory to copy them into
    (the file's tensors themselves may be less aligned than an allocation,
    and MKL's and oneDNN's kernels then round differently). The file has no
    module versions, which a state dict carries (MNASNet refuses one
    without); they are the network's own."""
    if model is None:
        with torch.device("meta"):
            model = build(name)
        model = model.to_empty(device="cpu")
        state = OrderedDict(load_file(str(out / f"{name}.safetensors")))
        state._metadata = model.state_dict()._metadata
        model.load_state_dict(state)
    size = MODELS[name][2]
    height, width = (size, size) if isinstance(size, int) else size
    generator = torch.Generator().manual_seed(seed_of(name) + 1)
    tensors = {}
    wide = copy.deepcopy(model).double() if name in FLOAT64 else None
    with torch.no_grad():
        for batch in (1, 2):
            x = torch.randn(batch, 3, height, width, generator=generator)
            tensors[f"input{batch}"] = x
            if wide is not None:
                tensors[f"output{batch}_f64"] = wide(x.double())
            output = model(x)
            if isinstance(output, dict):  # segmentation: {"out": ..., "aux": ...}
                tensors.update({f"{key}{batch}": value for key, value in output.items()})
            else:
                tensors[f"output{batch}"] = output
    capability = torch.backends.cpu.get_cpu_capability()
    target = out / f"{name}.io-{capability}.safetensors"
    save_file(tensors, str(target) + ".tmp", metadata={"torch": torch.__version__})
    Path(str(target) + ".tmp").rename(target)
    if torch.cuda.is_available() and name in CUDA_MODELS:
        write_cuda_outputs(model, tensors, out / f"{name}.io-cuda.safetensors")


# Networks compared in float64 too (`model.double()`), one of each kind of
# block: convolutions with BatchNorm, the MobileNet blocks (hardswish,
# squeeze-excitation), LayerNorm with layer scale, windowed attention. Not
# the _classes10 ones, which valgrind runs: it would take twice as long.
FLOAT64 = ("resnet18", "mobilenet_v3_small", "convnext_small_options", "swin_small")
assert set(FLOAT64) <= set(MODELS) - set(NATIVE_ONLY), set(FLOAT64)


# The networks the CUDA tests run (one of each family; VGG's weights are too
# large to keep).
CUDA_MODELS = ("resnet18", "resnet50", "mobilenet_v3_small")


def write_cuda_outputs(model: torch.nn.Module, tensors: dict, target: Path) -> None:
    """The same inputs through the same network on the GPU (cuDNN's results
    differ from the CPU's; the C++ test compares with a tolerance)."""
    model = model.cuda()
    cuda = {}
    with torch.no_grad():
        for batch in (1, 2):
            cuda[f"input{batch}"] = tensors[f"input{batch}"]
            cuda[f"output{batch}"] = model(tensors[f"input{batch}"].cuda()).cpu()
    save_file(cuda, str(target) + ".tmp", metadata={"torch": torch.__version__})
    Path(str(target) + ".tmp").rename(target)


# Models whose weights.transforms() the C++ tests apply by name.
PRESET_MODELS = ("inception_v3", "efficientnet_b3", "vit_h_14", "fcn_resnet50")


def write_preprocessing(out: Path) -> None:
    """ImageClassification (weights.transforms()) of seeded images of a few
    shapes and dtypes, and center_crop of one smaller than the crop."""
    import_torchvision_models()
    import torchvision.transforms.functional as F
    from torchvision.transforms._presets import ImageClassification

    transform = ImageClassification(crop_size=224)
    generator = torch.Generator().manual_seed(16)
    tensors = {}
    for index, shape in enumerate([(3, 300, 400), (3, 500, 180), (3, 256, 256), (2, 3, 231, 257), (3, 77, 95)]):
        image = torch.randint(0, 256, shape, dtype=torch.uint8, generator=generator)
        tensors[f"image{index}"] = image
        tensors[f"expected{index}"] = transform(image)
        tensors[f"float_expected{index}"] = transform(image.float() / 255)
    small = tensors["image4"]
    tensors["crop_small"] = F.center_crop(small, [100, 120])
    tensors["crop_odd"] = F.center_crop(small, [31, 40])
    # Builders' own presets (weights.transforms(): other sizes, bicubic, the
    # segmentation preset) of a small image and of a batch, and
    # SemanticSegmentation without resizing.
    from torchvision.transforms._presets import SemanticSegmentation

    models = import_torchvision_models()
    for name in PRESET_MODELS:
        transform = models.get_model_weights(name).DEFAULT.transforms()
        tensors[f"preset_{name}"] = transform(small)
        tensors[f"preset_{name}_batch"] = transform(tensors["image3"].float() / 255)
    tensors["segmentation_unresized"] = SemanticSegmentation(resize_size=None)(small)
    capability = torch.backends.cpu.get_cpu_capability()
    target = out / f"preprocessing-{capability}.safetensors"
    save_file({k: v.contiguous() for k, v in tensors.items()}, str(target) + ".tmp")
    Path(str(target) + ".tmp").rename(target)


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    names = [name for name in sys.argv[2:] if name != "--preprocessing"]
    if "--preprocessing" in sys.argv[2:] or not names:
        write_preprocessing(out)
    if not names:
        names = [name for name in MODELS if not name.startswith(LARGE)
                 and not (shallow_lane() and name in NATIVE_ONLY)]
        (out / "native_only.list.tmp").write_text("".join(f"{name}\n" for name in NATIVE_ONLY))
        (out / "native_only.list.tmp").rename(out / "native_only.list")
        # The shallow lanes compare no full-size network, but the tests that
        # read only keys or computed buffers run there too.
        for name in NATIVE_ONLY if shallow_lane() else ():
            if not (out / f"{name}.keys").exists():
                write_keys(name, out)
        for name in BUFFER_MODELS:
            if not (out / f"{name}.buffers.safetensors").exists():
                write_buffers(name, out)
    for name in names:
        if name not in MODELS:
            sys.exit(f"make_models.py: unknown model {name!r}; known: {', '.join(MODELS)}")
        if name in KEYS_ONLY:
            write_keys(name, out)
            continue
        model = None
        if not (out / f"{name}.safetensors").exists() or not (out / f"{name}.keys").exists():
            model = write_weights(name, out)
        write_outputs(name, out, model)


if __name__ == "__main__":
    main()
