"""fp_segmentation's ops against their plain-PyTorch reference, bit for bit;
their refusals; torch.library.opcheck (schema, fake kernels, autograd
registration, AOT dispatch) and torch.compile on every op; torch.export. Run by
CTest (example_extension) with the op library of the build, under every
supported torch, and by consumers.wheel with the package built against the
installed flash_powder wheel."""

from __future__ import annotations

import re
import zlib

import pytest
import torch

import fp_segmentation
from fp_segmentation import reference

TORCH = tuple(int(part) for part in re.match(r"(\d+)\.(\d+)", torch.__version__).groups())


def random_image(dtype, height, width, generator, layout):
    """[3, H, W] of `dtype`, contiguous or not, as `layout` says."""
    if layout == "transposed":  # H and W swapped in memory
        image = random_image(dtype, width, height, generator, "contiguous")
        return image.transpose(1, 2)
    if layout == "strided":  # every other row and column of a larger image
        image = random_image(dtype, 2 * height, 2 * width + 1, generator, "contiguous")
        return image[:, ::2, 1::2]
    if dtype == torch.uint8:
        return torch.randint(0, 256, (3, height, width), generator=generator, dtype=dtype)
    return torch.rand((3, height, width), generator=generator, dtype=dtype)


def random_logits(shape, dtype, generator, layout="contiguous"):
    if layout == "transposed":
        swapped = shape[:-2] + (shape[-1], shape[-2])
        return random_logits(swapped, dtype, generator).transpose(-1, -2)
    return (torch.randn(shape, generator=generator, dtype=torch.float64) * 3).to(dtype)


LAYOUTS = ["contiguous", "transposed", "strided"]
SIZES = [(1, 1), (7, 5), (32, 48)]


@pytest.mark.parametrize("image_dtype", [torch.uint8, torch.float32, torch.float64])
@pytest.mark.parametrize("probs_dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("size", SIZES)
def test_overlay_equals_reference(image_dtype, probs_dtype, layout, size):
    seed = zlib.crc32(repr((image_dtype, probs_dtype, layout, size)).encode())
    generator = torch.Generator().manual_seed(seed)
    image = random_image(image_dtype, *size, generator, layout)
    probs = random_logits((5,) + size, probs_dtype, generator, layout).softmax(0)
    for palette in (None, torch.randint(0, 256, (5, 3), generator=generator, dtype=torch.uint8)):
        for alpha in (0.0, 0.35, 1.0):
            got = fp_segmentation.overlay(image, probs, palette, alpha)
            want = reference.overlay(image, probs, palette, alpha)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert torch.equal(got, want), (palette is None, alpha)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
@pytest.mark.parametrize("shape", [(4, 1, 1), (6, 9, 13), (2, 3, 16, 20)])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_label_map_equals_reference(dtype, shape, layout):
    generator = torch.Generator().manual_seed(len(shape) * 1000 + shape[-1])
    logits = random_logits(shape, dtype, generator, layout)
    for threshold, ignore_index in ((0.0, 255), (0.5, 255), (0.7, -1)):
        labels, confidence = fp_segmentation.label_map(logits, threshold, ignore_index)
        want_labels, want_confidence = reference.label_map(logits, threshold, ignore_index)
        assert labels.dtype == torch.int64 and confidence.dtype == dtype
        assert torch.equal(labels, want_labels)
        assert torch.equal(confidence, want_confidence)


@pytest.mark.parametrize("label_dtype", [torch.int64, torch.int32, torch.uint8])
def test_mask_low_confidence_writes_its_argument_in_place(label_dtype):
    generator = torch.Generator().manual_seed(7)
    parent = torch.randint(0, 20, (12, 10), generator=generator, dtype=label_dtype)
    expected_parent = parent.clone()
    labels = parent[::2, 1::3]  # a non-contiguous view: writes must reach the parent
    confidence = torch.rand(labels.shape, generator=generator, dtype=torch.float32)
    fp_segmentation.mask_low_confidence_(labels, confidence, 0.4, 99)
    reference.mask_low_confidence_(expected_parent[::2, 1::3], confidence, 0.4, 99)
    assert torch.equal(parent, expected_parent)
    assert (parent == 99).any()


def test_the_ops_are_torch_ops():
    logits = torch.randn(3, 4, 5)
    labels, confidence = torch.ops.fp_segmentation.label_map(logits)
    assert torch.equal(labels, reference.label_map(logits)[0])
    assert torch.equal(confidence, reference.label_map(logits)[1])


BAD_INPUTS = [
    (lambda: fp_segmentation.overlay(torch.zeros(2, 3), torch.rand(4, 2, 3)),
     "overlay: image must be [3, H, W], got [2, 3]"),
    (lambda: fp_segmentation.overlay(torch.zeros(3, 4, 5), torch.rand(2, 4, 6)),
     "overlay: probs [2, 4, 6] and image [3, 4, 5] differ in height or width"),
    (lambda: fp_segmentation.overlay(torch.zeros(3, 4, 5), torch.ones(2, 4, 5, dtype=torch.int64)),
     "overlay: probs must be floating point, got int64"),
    (lambda: fp_segmentation.overlay(torch.zeros(3, 4, 5), torch.rand(2, 4, 5), torch.zeros(3, 3)),
     "overlay: palette must be [K, 3] with K = 2 classes, got [3, 3]"),
    (lambda: fp_segmentation.overlay(torch.zeros(3, 4, 5), torch.rand(2, 4, 5), None, 1.5),
     "overlay: alpha must be in [0, 1], got 1.5"),
    (lambda: fp_segmentation.label_map(torch.randn(4, 5)),
     "label_map: logits must be [K, H, W] or [B, K, H, W], got [4, 5]"),
    (lambda: fp_segmentation.label_map(torch.ones(2, 4, 5, dtype=torch.int32)),
     "label_map: logits must be floating point, got int32"),
    (lambda: fp_segmentation.mask_low_confidence_(torch.zeros(4, 5), torch.rand(4, 5), 0.5),
     "mask_low_confidence_: labels must be an integer tensor, got float32"),
    (lambda: fp_segmentation.mask_low_confidence_(torch.zeros(4, 5, dtype=torch.int64), torch.rand(5, 4), 0.5),
     "mask_low_confidence_: labels [4, 5] and confidence [5, 4] differ in shape"),
]


@pytest.mark.parametrize("call,message", BAD_INPUTS)
def test_bad_input_raises_runtime_error_with_the_kernels_message(call, message):
    with pytest.raises(RuntimeError) as raised:
        call()
    assert message in str(raised.value)


def test_a_failing_kernel_releases_its_tensors():
    image = torch.zeros(3, 4, 5)
    probs = torch.rand(2, 4, 6)
    palette = torch.zeros(2, 3, dtype=torch.uint8)
    before = [t._use_count() for t in (image, probs, palette)]
    for _ in range(20):
        with pytest.raises(RuntimeError, match="differ in height or width"):
            fp_segmentation.overlay(image, probs, palette)
    assert [t._use_count() for t in (image, probs, palette)] == before


def test_wrong_argument_types_are_refused_by_torch():
    with pytest.raises((RuntimeError, TypeError)):
        torch.ops.fp_segmentation.label_map(torch.randn(3, 4, 5), "high")


def post_process(image, logits):
    probs = logits.softmax(0)
    labels, confidence = torch.ops.fp_segmentation.label_map(logits, 0.3, 255)
    torch.ops.fp_segmentation.mask_low_confidence_(labels, confidence, 0.6, 254)
    return torch.ops.fp_segmentation.overlay(image, probs, None, 0.4), labels + 0


def example_inputs():
    generator = torch.Generator().manual_seed(3)
    image = torch.randint(0, 256, (3, 16, 24), generator=generator, dtype=torch.uint8)
    return image, torch.randn(4, 16, 24, generator=generator)


def test_torch_compile_fullgraph():
    image, logits = example_inputs()
    compiled = torch.compile(post_process, fullgraph=True)
    got = compiled(image, logits)
    want = post_process(image, logits)
    assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])


def opcheck_cases():
    """Each op with arguments that exercise it: defaults and given ones."""
    generator = torch.Generator().manual_seed(5)
    image = random_image(torch.uint8, 6, 10, generator, "transposed")
    float_image = random_image(torch.float32, 6, 10, generator, "contiguous")
    logits = random_logits((4, 6, 10), torch.float32, generator)
    batch = random_logits((2, 3, 5, 7), torch.float64, generator, "transposed")
    palette = torch.rand((4, 3), generator=generator)
    labels, confidence = reference.label_map(logits, 0.3)
    ops = torch.ops.fp_segmentation
    return {
        "overlay": (ops.overlay.default, (image, logits.softmax(0)), {}),
        "overlay_palette": (ops.overlay.default, (float_image, logits.softmax(0), palette, 0.25), {}),
        "label_map": (ops.label_map.default, (logits,), {}),
        "label_map_batch": (ops.label_map.default, (batch, 0.6, 7), {}),
        "mask_low_confidence_": (ops.mask_low_confidence_.default, (labels, confidence, 0.6), {"ignore_index": 9}),
    }


@pytest.mark.parametrize("case", list(opcheck_cases()))
def test_opcheck(case):
    op, args, kwargs = opcheck_cases()[case]
    torch.library.opcheck(op, args, kwargs)


@pytest.mark.parametrize("case", list(opcheck_cases()))
def test_each_op_under_torch_compile_fullgraph(case):
    op, args, kwargs = opcheck_cases()[case]
    want_args = [arg.clone() if isinstance(arg, torch.Tensor) else arg for arg in args]
    want = op(*want_args, **kwargs)
    got_args = [arg.clone() if isinstance(arg, torch.Tensor) else arg for arg in args]
    got = torch.compile(lambda *a: op(*a, **kwargs), fullgraph=True)(*got_args)
    # The outputs, and the arguments an in-place op writes.
    got_tensors = [value for value in torch.utils._pytree.tree_leaves((got, got_args)) if isinstance(value, torch.Tensor)]
    want_tensors = [value for value in torch.utils._pytree.tree_leaves((want, want_args)) if isinstance(value, torch.Tensor)]
    assert len(got_tensors) == len(want_tensors)
    assert all(torch.equal(g, w) for g, w in zip(got_tensors, want_tensors))


class PostProcess(torch.nn.Module):
    def forward(self, image, logits):
        return post_process(image, logits)


def test_torch_export():
    image, logits = example_inputs()
    exported = torch.export.export(PostProcess(), (image, logits))
    targets = {str(node.target) for node in exported.graph.nodes if node.op == "call_function"}
    assert any("fp_segmentation.overlay" in target for target in targets), targets
    got = exported.module()(image, logits)
    want = post_process(image, logits)
    assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here")
def test_the_ops_run_on_cuda_tensors():
    generator = torch.Generator().manual_seed(11)
    image = random_image(torch.uint8, 33, 47, generator, "transposed").cuda()
    logits = random_logits((6, 33, 47), torch.float32, generator).cuda()
    probs = logits.softmax(0)
    got = fp_segmentation.overlay(image, probs, None, 0.3)
    assert got.is_cuda
    assert torch.equal(got, reference.overlay(image, probs, None, 0.3))
    labels, confidence = fp_segmentation.label_map(logits, 0.4)
    want_labels, want_confidence = reference.label_map(logits, 0.4)
    assert labels.is_cuda and torch.equal(labels, want_labels)
    assert torch.equal(confidence, want_confidence)
