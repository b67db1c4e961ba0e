// fp::functional::pad (every mode, negative pads, dtypes, what PyTorch
// refuses) and the fifteen padding layers against torch.nn.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
import torch.nn.functional as F
from truth_helpers import g, values
*/

// A named namespace: the unity build compiles this file together with others.
namespace padding_test {

using fp_test::truth;

namespace F = fp::functional;
using nn_test::keys;
using nn_test::randn;
using nn_test::shape;
using nn_test::values;

using Pads = std::vector<std::vector<int64_t>>;
using Floats = std::vector<std::vector<float>>;
using Doubles = std::vector<std::vector<double>>;

/// F::pad(x, p, {.mode = mode}) for each p, as floats.
Floats padded(const fp::TensorView& x, const Pads& pads, const char* mode) {
  Floats out;
  for (const auto& p : pads)
    out.push_back(values(F::pad(x, p, {.mode = mode})));
  return out;
}

TEST(Padding, EveryModeWithNegativePads) {
  /*
  #|PYTHON
  x = torch.randn(2, 3, 4, 5, generator=g(1))
  pads = [(2, 1), (2, 1, 1, 0), (-1, 2, 1, -2), (0, -2, -1, 3), (-2, -2, 0, 0)]
  def padded(x, mode, pads=pads):
      return [values(F.pad(x, p, mode)) for p in pads]
  */
  const fp::Tensor x = randn({2, 3, 4, 5}, 1);
  const Pads pads = {{2, 1}, {2, 1, 1, 0}, {-1, 2, 1, -2}, {0, -2, -1, 3}, {-2, -2, 0, 0}};
  const Pads two_dims(pads.begin() + 1, pads.end());
  EXPECT_PYTHON(padded(x, pads, "constant"), truth<Floats>(R"(padded(x, "constant"))"));
  // The other modes pad 1 dimension of 2-D/3-D inputs, 2 of 3-D/4-D, 3 of 4-D/5-D.
  EXPECT_PYTHON(padded(x, two_dims, "reflect"), truth<Floats>(R"(padded(x, "reflect", pads[1:]))"));
  EXPECT_PYTHON(padded(x, two_dims, "replicate"),
                truth<Floats>(R"(padded(x, "replicate", pads[1:]))"));
  EXPECT_PYTHON(padded(x, two_dims, "circular"),
                truth<Floats>(R"(padded(x, "circular", pads[1:]))"));
  const fp::Tensor cut = F::pad(x, {-1, 2, 1, -2}, {.mode = "circular"});
  EXPECT_EQ(shape(cut),
            (std::vector<int64_t>{2, 3, 3,
                                  6}));  // #PYTHON list(F.pad(x, (-1, 2, 1, -2), "circular").shape)
}

TEST(Padding, EveryRank) {
  /*
  #|PYTHON
  x1 = torch.randn(3, 6, generator=g(2))
  x3 = torch.randn(3, 4, 5, generator=g(3))
  x5 = torch.randn(1, 2, 3, 4, 5, generator=g(4))
  x6 = torch.randn(1, 2, 1, 3, 2, 2, generator=g(5))
  def each_mode(x, p):
      return [values(F.pad(x, p, m)) for m in ("reflect", "replicate", "circular")]
  */
  const fp::Tensor x1 = randn({3, 6}, 2), x3 = randn({3, 4, 5}, 3), x5 = randn({1, 2, 3, 4, 5}, 4),
                   x6 = randn({1, 2, 1, 3, 2, 2}, 5);
  const auto each_mode = [](const fp::Tensor& x, const std::vector<int64_t>& p) {
    Floats out;
    for (const char* mode : {"reflect", "replicate", "circular"})
      out.push_back(values(F::pad(x, p, {.mode = mode})));
    return out;
  };
  // Unbatched 1-d, batched 1-d, unbatched 2-d, batched and unbatched 3-d.
  EXPECT_PYTHON(each_mode(x1, {3, -1}), truth<Floats>("each_mode(x1, (3, -1))"));
  EXPECT_PYTHON(each_mode(x3, {2, 4}), truth<Floats>("each_mode(x3, (2, 4))"));
  EXPECT_PYTHON(each_mode(x3, {1, 2, 3, 0}), truth<Floats>("each_mode(x3, (1, 2, 3, 0))"));
  EXPECT_PYTHON(each_mode(x5, {1, 2, 0, 3, 2, -1}),
                truth<Floats>("each_mode(x5, (1, 2, 0, 3, 2, -1))"));
  EXPECT_PYTHON(each_mode(x3.reshape({1, 3, 4, 5}), {1, 0, 2, 3, 1, 1}),
                truth<Floats>("each_mode(x3.reshape(1, 3, 4, 5), (1, 0, 2, 3, 1, 1))"));
  // "constant" pads any number of dimensions of any rank.
  EXPECT_PYTHON(
      values(F::pad(x6, {1, 0, 0, 1, 2, 1, 0, 1, 1, 1}, {.value = -2.5})),
      truth<std::vector<float>>("values(F.pad(x6, (1, 0, 0, 1, 2, 1, 0, 1, 1, 1), value=-2.5))"));
}

TEST(Padding, DtypesAndStrides) {
  /*
  #|PYTHON
  x = torch.randn(2, 4, 5, generator=g(6))
  modes = ("constant", "reflect", "replicate", "circular")
  def each_mode(x, p=(2, -1, 1, 3)):
      return [values(F.pad(x, p, m)) for m in modes]
  */
  const fp::Tensor x = randn({2, 4, 5}, 6);
  const auto each_mode = [](const fp::TensorView& x, auto element) {
    std::vector<std::vector<decltype(element)>> out;
    for (const char* mode : {"constant", "reflect", "replicate", "circular"}) {
      out.push_back(F::pad(x, {2, -1, 1, 3}, {.mode = mode}).to_vector<decltype(element)>());
    }
    return out;
  };
  EXPECT_PYTHON(each_mode(x.to(fp::DType::F64), 0.0), truth<Doubles>("each_mode(x.double())"));
  EXPECT_PYTHON(each_mode(x.to(fp::DType::F16), 0.f), truth<Floats>("each_mode(x.half())"));
  EXPECT_PYTHON(each_mode(x.to(fp::DType::BF16), 0.f), truth<Floats>("each_mode(x.bfloat16())"));
  EXPECT_PYTHON(each_mode((x * fp::tensor(10.f)).to(fp::DType::I64), int64_t{0}),
                (truth<std::vector<std::vector<int64_t>>>("each_mode((x * 10).long())")));
  EXPECT_PYTHON(each_mode(x.transpose(1, 2), 0.f), truth<Floats>("each_mode(x.transpose(1, 2))"));
  // Bool: constant and circular only (below); the fill value converts as in Python.
  const fp::Tensor positive = F::pad((x > 0.f), {1, 1}, {.value = 1.0});
  EXPECT_EQ(positive.dtype(), fp::DType::Bool);
  EXPECT_EQ(positive.to_vector<bool>(),
            truth<std::vector<bool>>("values(F.pad(x > 0, (1, 1), value=1.0))"));
  EXPECT_EQ(F::pad((x > 0.f), {1, 1}, {.mode = "circular"}).to_vector<bool>(),
            truth<std::vector<bool>>(R"(values(F.pad(x > 0, (1, 1), "circular")))"));
  EXPECT_EQ(F::pad(x.to(fp::DType::I32), {1, 1}, {.value = 1.5}).to_vector<int32_t>(),
            truth<std::vector<int32_t>>("values(F.pad(x.int(), (1, 1), value=1.5))"));
}

TEST(Padding, RefusesWhatPyTorchRefuses) {
  /*
  #|PYTHON
  x = torch.randn(3, 4, 5, generator=g(7))
  */
  const fp::Tensor x = randn({3, 4, 5}, 7);
  const fp::Tensor x4 = randn({2, 3, 4, 5}, 7);
  EXPECT_TORCH_ERROR("Padding length must be divisible by 2", F::pad(x, {1, 2, 3}));
  EXPECT_TORCH_ERROR("Unrecognised padding mode mirror", F::pad(x, {1, 1}, {.mode = "mirror"}));
  EXPECT_TORCH_ERROR(R"(Padding mode "reflect" doesn't take in value argument)",
                     F::pad(x, {1, 1}, {.mode = "reflect", .value = 1.0}));
  // A value of 0 is accepted there, as in Python.
  EXPECT_EQ(shape(F::pad(x, {1, 1}, {.mode = "reflect", .value = 0.0})),
            (std::vector<int64_t>{
                3, 4, 7}));  // #PYTHON list(F.pad(x, (1, 1), "reflect", value=0.0).shape)
  EXPECT_TORCH_ERROR(
      "Padding size should be less than the corresponding input dimension, but got: padding (5, "
      "0) at dimension 2 of input [3, 4, 5]",
      F::pad(x, {5, 0}, {.mode = "reflect"}));
  EXPECT_TORCH_ERROR("Padding size 2 is not supported for 4D input tensor",
                     F::pad(x4, {1, 1}, {.mode = "replicate"}));
  EXPECT_TORCH_ERROR("Padding size 8 is not supported for 4D input tensor",
                     F::pad(x4, {1, 1, 1, 1, 1, 1, 1, 1}, {.mode = "circular"}));
  EXPECT_TORCH_ERROR("input (W: 5) is too small. Calculated output W: 0",
                     F::pad(x, {-3, -2}, {.mode = "replicate"}));
  EXPECT_TORCH_ERROR("Padding value causes wrapping around more than once",
                     F::pad(x, {6, 0}, {.mode = "circular"}));
  EXPECT_TORCH_ERROR("narrow(): length must be non-negative", F::pad(x, {-6, 0}));
  EXPECT_TORCH_ERROR(R"("reflection_pad1d" not implemented for 'Bool')",
                     F::pad((x > 0.f), {1, 1}, {.mode = "reflect"}));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::pad", F::pad(x, {1}));
}

// --- the layers -----------------------------------------------------------------------

TEST(PaddingLayers, OneDimension) {
  /*
  #|PYTHON
  x = torch.randn(2, 3, 5, generator=g(8))
  def each(pad):
      layers = [nn.ZeroPad1d(pad), nn.ConstantPad1d(pad, 1.5), nn.ReflectionPad1d(pad),
                nn.ReplicationPad1d(pad), nn.CircularPad1d(pad)]
      return [values(m(x)) for m in layers] + [values(m(x[0])) for m in layers]
  */
  const fp::Tensor x = randn({2, 3, 5}, 8);
  const auto each = [&](const fp::nn::ExpandingArray<2>& pad) {
    const fp::nn::ZeroPad1d zero(pad);
    const fp::nn::ConstantPad1d constant(pad, 1.5);
    const fp::nn::ReflectionPad1d reflection(pad);
    const fp::nn::ReplicationPad1d replication(pad);
    const fp::nn::CircularPad1d circular(pad);
    const std::vector<const fp::nn::Module*> layers = {&zero, &constant, &reflection, &replication,
                                                       &circular};
    Floats out;
    for (const auto* m : layers)
      out.push_back(values((*m)(x)));
    for (const auto* m : layers)
      out.push_back(values((*m)(x.i(0))));
    return out;
  };
  EXPECT_PYTHON(each(2), truth<Floats>("each(2)"));
  EXPECT_PYTHON(each({3, -1}), truth<Floats>("each((3, -1))"));
}

TEST(PaddingLayers, TwoDimensions) {
  /*
  #|PYTHON
  x = torch.randn(2, 2, 4, 5, generator=g(9))
  def each(pad):
      layers = [nn.ZeroPad2d(pad), nn.ConstantPad2d(pad, -0.5), nn.ReflectionPad2d(pad),
                nn.ReplicationPad2d(pad), nn.CircularPad2d(pad)]
      return [values(m(x)) for m in layers] + [values(m(x[1])) for m in layers]
  */
  const fp::Tensor x = randn({2, 2, 4, 5}, 9);
  const auto each = [&](const fp::nn::ExpandingArray<4>& pad) {
    const fp::nn::ZeroPad2d zero(pad);
    const fp::nn::ConstantPad2d constant(pad, -0.5);
    const fp::nn::ReflectionPad2d reflection(pad);
    const fp::nn::ReplicationPad2d replication(pad);
    const fp::nn::CircularPad2d circular(pad);
    const std::vector<const fp::nn::Module*> layers = {&zero, &constant, &reflection, &replication,
                                                       &circular};
    Floats out;
    for (const auto* m : layers)
      out.push_back(values((*m)(x)));
    for (const auto* m : layers)
      out.push_back(values((*m)(x.i(1))));
    return out;
  };
  EXPECT_PYTHON(each(1), truth<Floats>("each(1)"));
  EXPECT_PYTHON(each({2, 0, -1, 3}), truth<Floats>("each((2, 0, -1, 3))"));
}

TEST(PaddingLayers, ThreeDimensions) {
  /*
  #|PYTHON
  x = torch.randn(2, 2, 3, 4, 3, generator=g(10)).transpose(2, 4)
  def each(pad):
      layers = [nn.ZeroPad3d(pad), nn.ConstantPad3d(pad, 2.0), nn.ReflectionPad3d(pad),
                nn.ReplicationPad3d(pad), nn.CircularPad3d(pad)]
      return [values(m(x)) for m in layers] + [values(m(x[0])) for m in layers]
  */
  const fp::Tensor drawn = randn({2, 2, 3, 4, 3}, 10);
  const fp::TensorView x = drawn.transpose(2, 4);  // not contiguous
  const auto each = [&](const fp::nn::ExpandingArray<6>& pad) {
    const fp::nn::ZeroPad3d zero(pad);
    const fp::nn::ConstantPad3d constant(pad, 2.0);
    const fp::nn::ReflectionPad3d reflection(pad);
    const fp::nn::ReplicationPad3d replication(pad);
    const fp::nn::CircularPad3d circular(pad);
    const std::vector<const fp::nn::Module*> layers = {&zero, &constant, &reflection, &replication,
                                                       &circular};
    Floats out;
    for (const auto* m : layers)
      out.push_back(values((*m)(x)));
    for (const auto* m : layers)
      out.push_back(values((*m)(x.i(0))));
    return out;
  };
  EXPECT_PYTHON(each(1), truth<Floats>("each(1)"));
  EXPECT_PYTHON(each({2, 1, 0, -1, 1, 2}), truth<Floats>("each((2, 1, 0, -1, 1, 2))"));
}

TEST(PaddingLayers, NamesStateAndDtypes) {
  /*
  #|PYTHON
  x = torch.randn(1, 2, 3, generator=g(11)).double()
  m = nn.ReflectionPad1d((2, 1))
  */
  const fp::nn::ReflectionPad1d m({2, 1});
  EXPECT_EQ(m.type_name(), "ReflectionPad1d");  // #PYTHON type(m).__name__
  EXPECT_EQ(fp::nn::CircularPad3d(1).type_name(),
            "CircularPad3d");  // #PYTHON nn.CircularPad3d(1).__class__.__name__
  EXPECT_EQ(fp::nn::ZeroPad2d(1).type_name(),
            "ZeroPad2d");                            // #PYTHON nn.ZeroPad2d(1).__class__.__name__
  EXPECT_EQ(keys(m), (std::vector<std::string>{}));  // #PYTHON list(m.state_dict().keys())
  EXPECT_EQ((std::array<int64_t, 2>{m.padding[0], m.padding[1]}),
            (std::array<int64_t, 2>{2, 1}));            // #PYTHON list(m.padding)
  EXPECT_EQ(fp::nn::ConstantPad2d(1, 3.5).value, 3.5);  // #PYTHON nn.ConstantPad2d(1, 3.5).value
  const fp::Tensor x = randn({1, 2, 3}, 11).to(fp::DType::F64);
  EXPECT_PYTHON(m(x).to_vector<double>(), truth<std::vector<double>>("values(m(x))"));
  EXPECT_PYTHON(fp::nn::ZeroPad1d(1)(x).to_vector<double>(),
                truth<std::vector<double>>("values(nn.ZeroPad1d(1)(x))"));
}

TEST(PaddingLayers, BadInput) {
  const fp::Tensor x = randn({2, 3, 4, 5}, 12);
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::nn::CircularPad2d: expected 3D or 4D input (got 2D input)",
                        fp::nn::CircularPad2d(1)(x.i(0).i(0)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected 2D or 3D input (got 4D input)",
                  fp::nn::CircularPad1d(1)(x));
  EXPECT_TORCH_ERROR("Padding size should be less than the corresponding input dimension",
                     fp::nn::ReflectionPad2d(4)(x));
  EXPECT_TORCH_ERROR("Padding size 4 is not supported for 2D input tensor",
                     fp::nn::ReplicationPad2d(1)(x.i(0).i(0)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "a list of 4 values, got a list of 3",
                  fp::nn::ReflectionPad2d(fp::nn::ExpandingArray<4>({1, 2, 3})));
}

}  // namespace padding_test
