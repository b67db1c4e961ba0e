// The fp::nn layers against torch.nn: the same construction arguments give the
// same state-dict keys, and the same weights (drawn in both languages from
// seeded generators, see `filled`) give the same outputs, bit for bit.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/string_leak.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
from truth_helpers import g, values, filled, run
*/

namespace {

using fp_test::truth;

using nn_test::keys;
using nn_test::randn;
using nn_test::shape;
using nn_test::values;

/// Loads the values `filled` draws, then returns the module's output on `x`.
std::vector<float> run(fp::nn::Module& module, const fp::Tensor& x) {
  module.load_state_dict(nn_test::filled(module));
  return values(module(x));
}

TEST(Layers, Conv2d) {
  /*
  #|PYTHON
  m = filled(nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2))
  x = torch.randn(1, 4, 5, 5, generator=g(1))
  */
  fp::nn::Conv2d m(4, 6, 3, {.stride = 2, .padding = 1, .groups = 2});
  const fp::Tensor x = randn({1, 4, 5, 5}, 1);
  EXPECT_EQ(keys(m),
            (std::vector<std::string>{"weight", "bias"}));  // #PYTHON list(m.state_dict().keys())
  EXPECT_EQ(shape(m.weight), (std::vector<int64_t>{6, 2, 3, 3}));  // #PYTHON list(m.weight.shape)
  EXPECT_PYTHON(run(m, x), truth<std::vector<float>>("run(m, x)"));
}

TEST(Layers, Conv2dPaddingModes) {
  /*
  #|PYTHON
  x = torch.randn(1, 2, 4, 5, generator=g(2))
  def conv(mode, padding=(1, 2)):
      return run(filled(nn.Conv2d(2, 3, (3, 2), padding=padding, padding_mode=mode, bias=False)), x)
  */
  const fp::Tensor x = randn({1, 2, 4, 5}, 2);
  const auto conv = [&](std::string mode, fp::nn::ConvPadding<2> padding = {1, 2}) {
    fp::nn::Conv2d m(2, 3, {3, 2}, {.padding = padding, .bias = false, .padding_mode = mode});
    return run(m, x);
  };
  EXPECT_PYTHON(conv("reflect"), truth<std::vector<float>>(R"(conv("reflect"))"));
  EXPECT_PYTHON(conv("replicate"), truth<std::vector<float>>(R"(conv("replicate"))"));
  EXPECT_PYTHON(conv("circular"), truth<std::vector<float>>(R"(conv("circular"))"));
  EXPECT_PYTHON(conv("zeros", "same"), truth<std::vector<float>>(R"(conv("zeros", "same"))"));
  EXPECT_PYTHON(conv("reflect", "same"), truth<std::vector<float>>(R"(conv("reflect", "same"))"));
  EXPECT_PYTHON(conv("circular", "valid"),
                truth<std::vector<float>>(R"(conv("circular", "valid"))"));
}

TEST(Layers, Conv1dConv3d) {
  /*
  #|PYTHON
  m1 = filled(nn.Conv1d(3, 2, 3, dilation=2, padding_mode="replicate", padding=2))
  x1 = torch.randn(2, 3, 6, generator=g(3))
  m3 = filled(nn.Conv3d(2, 2, (1, 2, 2), stride=(1, 2, 1)))
  x3 = torch.randn(1, 2, 2, 4, 3, generator=g(4))
  */
  fp::nn::Conv1d m1(3, 2, 3, {.padding = 2, .dilation = 2, .padding_mode = "replicate"});
  EXPECT_PYTHON(run(m1, randn({2, 3, 6}, 3)), truth<std::vector<float>>("run(m1, x1)"));
  fp::nn::Conv3d m3(2, 2, {1, 2, 2}, {.stride = {1, 2, 1}});
  EXPECT_PYTHON(run(m3, randn({1, 2, 2, 4, 3}, 4)), truth<std::vector<float>>("run(m3, x3)"));
}

TEST(Layers, ConvTranspose) {
  /*
  #|PYTHON
  m = filled(nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, groups=2))
  x = torch.randn(1, 4, 3, 3, generator=g(5))
  with torch.no_grad():
      sized = m(x, output_size=[6, 6])
  m1 = filled(nn.ConvTranspose1d(2, 3, 2, stride=2, output_padding=1, bias=False))
  x1 = torch.randn(1, 2, 4, generator=g(6))
  */
  fp::nn::ConvTranspose2d m(4, 2, 3, {.stride = 2, .padding = 1, .groups = 2});
  const fp::Tensor x = randn({1, 4, 3, 3}, 5);
  EXPECT_EQ(keys(m),
            (std::vector<std::string>{"weight", "bias"}));  // #PYTHON list(m.state_dict().keys())
  EXPECT_EQ(shape(m.weight), (std::vector<int64_t>{4, 1, 3, 3}));  // #PYTHON list(m.weight.shape)
  EXPECT_PYTHON(run(m, x), truth<std::vector<float>>("run(m, x)"));
  const fp::Tensor sized = m.forward(x, {6, 6});
  EXPECT_EQ(shape(sized), (std::vector<int64_t>{1, 2, 6, 6}));  // #PYTHON list(sized.shape)
  EXPECT_PYTHON(values(sized), truth<std::vector<float>>("values(sized)"));
  EXPECT_EQ(values(m.forward(x, {1, 2, 6, 6})), values(sized));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "fp::nn::ConvTranspose2d: requested an output size of [9, 6], but valid sizes range from "
      "[5, 5] to [6, 6] (for an input of torch.Size([3, 3]))",
      m.forward(x, {9, 6}));
  fp::nn::ConvTranspose1d m1(2, 3, 2, {.stride = 2, .output_padding = 1, .bias = false});
  EXPECT_EQ(keys(m1),
            (std::vector<std::string>{"weight"}));  // #PYTHON list(m1.state_dict().keys())
  EXPECT_PYTHON(run(m1, randn({1, 2, 4}, 6)), truth<std::vector<float>>("run(m1, x1)"));
}

TEST(Layers, ConvConstructorsCheckLikePython) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::Conv2d: in_channels must be divisible by groups",
                  fp::nn::Conv2d(3, 4, 3, {.groups = 2}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::Conv2d: out_channels must be divisible by groups",
                  fp::nn::Conv2d(4, 3, 3, {.groups = 2}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::Conv2d: padding='same' is not supported for strided convolutions",
                  fp::nn::Conv2d(4, 4, 3, {.stride = 2, .padding = "same"}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "fp::nn::Conv1d: padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, "
      "but got padding_mode='mirror'",
      fp::nn::Conv1d(4, 4, 3, {.padding_mode = "mirror"}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::ConvTranspose2d: Only \"zeros\" padding mode is supported for "
                  "ConvTranspose2d",
                  fp::nn::ConvTranspose2d(4, 4, 3, {.padding_mode = "reflect"}));
}

TEST(Layers, WrongChannelCountSaysSo) {
  /*
  #|PYTHON
  x = torch.randn(1, 4, 5, 5)
  try:
      nn.Conv2d(3, 8, 3)(x)
  except RuntimeError as e:
      message = str(e)
  */
  const fp::nn::Conv2d conv(3, 8, 3);
  const fp::Tensor x = randn({1, 4, 5, 5}, 1);
  const std::string message =
      "Given groups=1, weight of size [8, 3, 3, 3], expected input[1, 4, 5, 5] to have 3 channels, "
      "but got 4 channels instead";  // #PYTHON message
  EXPECT_TORCH_ERROR("aten::conv2d: " + message, conv(x));
  const fp::nn::Linear linear(4, 2);
  EXPECT_TORCH_ERROR("mat1 and mat2 shapes cannot be multiplied (20x5 and 4x2)", linear(x));
}

TEST(Layers, LinearAndIdentity) {
  /*
  #|PYTHON
  m = filled(nn.Linear(5, 3))
  nb = filled(nn.Linear(5, 2, bias=False))
  x = torch.randn(2, 4, 5, generator=g(7))
  */
  fp::nn::Linear m(5, 3);
  fp::nn::Linear nb(5, 2, {.bias = false});
  const fp::Tensor x = randn({2, 4, 5}, 7);
  EXPECT_EQ(keys(nb),
            (std::vector<std::string>{"weight"}));  // #PYTHON list(nb.state_dict().keys())
  EXPECT_PYTHON(run(m, x), truth<std::vector<float>>("run(m, x)"));
  EXPECT_PYTHON(run(nb, x), truth<std::vector<float>>("run(nb, x)"));
  const fp::nn::Identity identity;
  EXPECT_EQ(values(identity(x)), values(x));
  EXPECT_TRUE(keys(identity).empty());
}

TEST(Layers, Activations) {
  /*
  #|PYTHON
  x = torch.randn(2, 3, 4, generator=g(8)) * 3
  */
  const fp::Tensor x =
      fp::dispatch<fp::Tensor>("aten::mul", "Tensor", randn({2, 3, 4}, 8), fp::tensor(3.f));
  EXPECT_PYTHON(values(fp::nn::ReLU()(x)), truth<std::vector<float>>("run(nn.ReLU(), x)"));
  EXPECT_PYTHON(values(fp::nn::ReLU6()(x)), truth<std::vector<float>>("run(nn.ReLU6(), x)"));
  EXPECT_PYTHON(values(fp::nn::LeakyReLU(0.2)(x)),
                truth<std::vector<float>>("run(nn.LeakyReLU(0.2), x)"));
  const std::vector<float> elu = truth<std::vector<float>>("run(nn.ELU(0.5), x)");
  EXPECT_CLOSE(fp::nn::ELU(0.5)(x), 1.2e-7, elu);
  EXPECT_PYTHON(values(fp::nn::GELU()(x)), truth<std::vector<float>>("run(nn.GELU(), x)"));
  EXPECT_PYTHON(values(fp::nn::SiLU()(x)), truth<std::vector<float>>("run(nn.SiLU(), x)"));
  EXPECT_PYTHON(values(fp::nn::Sigmoid()(x)), truth<std::vector<float>>("run(nn.Sigmoid(), x)"));
  EXPECT_PYTHON(values(fp::nn::Tanh()(x)), truth<std::vector<float>>("run(nn.Tanh(), x)"));
  EXPECT_PYTHON(values(fp::nn::Hardswish()(x)),
                truth<std::vector<float>>("run(nn.Hardswish(), x)"));
  EXPECT_PYTHON(values(fp::nn::Softmax(1)(x)), truth<std::vector<float>>("run(nn.Softmax(1), x)"));
  EXPECT_PYTHON(values(fp::nn::LogSoftmax(-1)(x)),
                truth<std::vector<float>>("run(nn.LogSoftmax(-1), x)"));
}

TEST(Layers, SoftmaxWithoutDimUsesPyTorchsLegacyChoice) {
  /*
  #|PYTHON
  import warnings
  warnings.simplefilter("ignore")  # PyTorch warns about the implicit dim
  x3 = torch.randn(2, 3, 4, generator=g(9))
  x4 = torch.randn(2, 3, 2, 2, generator=g(10))
  */
  const fp::nn::Softmax softmax;
  const fp::Tensor x3 = randn({2, 3, 4}, 9), x4 = randn({2, 3, 2, 2}, 10);
  EXPECT_PYTHON(values(softmax(x3)), truth<std::vector<float>>("run(nn.Softmax(), x3)"));
  EXPECT_PYTHON(values(softmax(x4)), truth<std::vector<float>>("run(nn.Softmax(), x4)"));
}

TEST(Layers, Pooling) {
  /*
  #|PYTHON
  x = torch.randn(1, 2, 5, 6, generator=g(11))
  x1 = torch.randn(2, 2, 7, generator=g(12))
  with torch.no_grad():
      v, i = nn.MaxPool2d(3, stride=2, padding=1, return_indices=True)(x)
  */
  const fp::Tensor x = randn({1, 2, 5, 6}, 11), x1 = randn({2, 2, 7}, 12);
  EXPECT_PYTHON(values(fp::nn::MaxPool2d(2)(x)),
                truth<std::vector<float>>("run(nn.MaxPool2d(2), x)"));
  EXPECT_PYTHON(
      values(fp::nn::MaxPool2d(3, {.stride = 1, .dilation = 2, .ceil_mode = true})(x)),
      truth<std::vector<float>>("run(nn.MaxPool2d(3, stride=1, dilation=2, ceil_mode=True), x)"));
  const fp::nn::MaxPool2d with_indices(3, {.stride = 2, .padding = 1, .return_indices = true});
  auto [v, i] = with_indices.forward_with_indices(x);
  EXPECT_PYTHON(values(v), truth<std::vector<float>>("values(v)"));
  EXPECT_EQ(i.to_vector<int64_t>(), truth<std::vector<int64_t>>("values(i)"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::MaxPool2d: made with return_indices = true, it returns values and "
                  "indices: call forward_with_indices(input)",
                  with_indices(x));
  EXPECT_PYTHON(values(fp::nn::MaxPool1d(2, {.stride = 1})(x1)),
                truth<std::vector<float>>("run(nn.MaxPool1d(2, stride=1), x1)"));
  EXPECT_PYTHON(
      values(fp::nn::AvgPool2d(2, {.stride = 1, .padding = 1, .count_include_pad = false})(x)),
      truth<std::vector<float>>(
          "run(nn.AvgPool2d(2, stride=1, padding=1, count_include_pad=False), x)"));
  EXPECT_PYTHON(values(fp::nn::AdaptiveAvgPool2d({3, std::nullopt})(x)),
                truth<std::vector<float>>("run(nn.AdaptiveAvgPool2d((3, None)), x)"));
  EXPECT_PYTHON(values(fp::nn::AdaptiveAvgPool1d(3)(x1)),
                truth<std::vector<float>>("run(nn.AdaptiveAvgPool1d(3), x1)"));
  EXPECT_PYTHON(values(fp::nn::AdaptiveMaxPool2d({2, 4})(x)),
                truth<std::vector<float>>("run(nn.AdaptiveMaxPool2d((2, 4)), x)"));
}

TEST(Layers, BatchNormInEvalMode) {
  /*
  #|PYTHON
  m2 = filled(nn.BatchNorm2d(3))
  x2 = torch.randn(2, 3, 2, 3, generator=g(13))
  m1 = filled(nn.BatchNorm1d(4, eps=1e-3, affine=False))
  x1 = torch.randn(3, 4, generator=g(14))
  x13 = torch.randn(2, 4, 3, generator=g(15))
  untracked = filled(nn.BatchNorm2d(3, track_running_stats=False))
  */
  fp::nn::BatchNorm2d m2(3);
  EXPECT_EQ(keys(m2), (std::vector<std::string>{
                          "weight", "bias", "running_mean", "running_var",
                          "num_batches_tracked"}));  // #PYTHON list(m2.state_dict().keys())
  EXPECT_PYTHON(run(m2, randn({2, 3, 2, 3}, 13)), truth<std::vector<float>>("run(m2, x2)"));
  fp::nn::BatchNorm1d m1(4, {.eps = 1e-3, .affine = false});
  EXPECT_EQ(keys(m1), (std::vector<std::string>{
                          "running_mean", "running_var",
                          "num_batches_tracked"}));  // #PYTHON list(m1.state_dict().keys())
  EXPECT_PYTHON(run(m1, randn({3, 4}, 14)), truth<std::vector<float>>("run(m1, x1)"));
  EXPECT_PYTHON(run(m1, randn({2, 4, 3}, 15)), truth<std::vector<float>>("run(m1, x13)"));
  fp::nn::BatchNorm2d untracked(3, {.track_running_stats = false});
  EXPECT_EQ(
      keys(untracked),
      (std::vector<std::string>{"weight", "bias"}));  // #PYTHON list(untracked.state_dict().keys())
  EXPECT_PYTHON(run(untracked, randn({2, 3, 2, 3}, 13)),
                truth<std::vector<float>>("run(untracked, x2)"));
}

TEST(Layers, BatchNormBadInput) {
  const fp::nn::BatchNorm2d norm(3);
  const fp::Tensor three_d = randn({2, 3, 4}, 1), wrong_channels = randn({2, 5, 2, 2}, 2);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::BatchNorm2d: expected 4D input (got 3D input)", norm(three_d));
  EXPECT_TORCH_ERROR("running_mean should contain 5 elements not 3", norm(wrong_channels));
  const fp::nn::BatchNorm1d norm1(3);
  const fp::Tensor four_d = randn({2, 3, 4, 4}, 1);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::BatchNorm1d: expected 2D or 3D input (got 4D input)", norm1(four_d));
}

TEST(Layers, LayerNormGroupNorm) {
  /*
  #|PYTHON
  ln = filled(nn.LayerNorm([3, 4]))
  nb = filled(nn.LayerNorm(4, bias=False, eps=0.1))
  gn = filled(nn.GroupNorm(2, 6))
  x = torch.randn(2, 6, 3, 4, generator=g(16))
  */
  fp::nn::LayerNorm ln({3, 4});
  fp::nn::LayerNorm nb(4, {.eps = 0.1, .bias = false});
  fp::nn::GroupNorm gn(2, 6);
  const fp::Tensor x = randn({2, 6, 3, 4}, 16);
  EXPECT_EQ(keys(nb),
            (std::vector<std::string>{"weight"}));  // #PYTHON list(nb.state_dict().keys())
  EXPECT_PYTHON(run(ln, x), truth<std::vector<float>>("run(ln, x)"));
  EXPECT_PYTHON(run(nb, x), truth<std::vector<float>>("run(nb, x)"));
  EXPECT_PYTHON(run(gn, x), truth<std::vector<float>>("run(gn, x)"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::GroupNorm: num_channels must be divisible by num_groups",
                  fp::nn::GroupNorm(4, 6));
  const fp::Tensor wrong = randn({2, 5, 3}, 1);
  EXPECT_TORCH_ERROR(
      "Given normalized_shape=[3, 4], expected input with shape [*, 3, 4], but got "
      "input of size[2, 5, 3]",
      ln(wrong));
}

TEST(Layers, DropoutFlattenUpsamplePixelShuffle) {
  /*
  #|PYTHON
  x = torch.randn(1, 4, 2, 3, generator=g(17))
  */
  const fp::Tensor x = randn({1, 4, 2, 3}, 17);
  EXPECT_EQ(values(fp::nn::Dropout(0.3)(x)), values(x));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::Dropout: dropout probability has to be between 0 and 1, but got -0.5",
                  fp::nn::Dropout(-0.5));
  EXPECT_EQ(shape(fp::nn::Flatten()(x)),
            (std::vector<int64_t>{1, 24}));  // #PYTHON list(nn.Flatten()(x).shape)
  EXPECT_EQ(shape(fp::nn::Flatten(0, 2)(x)),
            (std::vector<int64_t>{8, 3}));  // #PYTHON list(nn.Flatten(0, 2)(x).shape)
  EXPECT_PYTHON(
      values(fp::nn::Upsample({.scale_factor = 2.0, .mode = "bilinear"})(x)),
      truth<std::vector<float>>(R"(run(nn.Upsample(scale_factor=2, mode="bilinear"), x))"));
  EXPECT_PYTHON(values(fp::nn::Upsample({.size = {3, 4}, .mode = "nearest"})(x)),
                truth<std::vector<float>>("run(nn.Upsample(size=(3, 4)), x)"));
  EXPECT_TORCH_ERROR("Dimension out of range", fp::nn::Flatten(1, 7)(x));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::interpolate: either size or scale_factor should be defined",
                  fp::nn::Upsample({.mode = "bilinear"})(x));
  EXPECT_PYTHON(values(fp::nn::PixelShuffle(2)(x)),
                truth<std::vector<float>>("run(nn.PixelShuffle(2), x)"));
}

TEST(Layers, Embedding) {
  /*
  #|PYTHON
  m = filled(nn.Embedding(6, 3, padding_idx=-2))
  i = torch.tensor([[1, 4, 4], [0, 5, 2]])
  fresh = nn.Embedding(6, 3, padding_idx=4)
  */
  fp::nn::Embedding m(6, 3, {.padding_idx = -2});
  EXPECT_EQ(m.padding_idx, 4);                               // #PYTHON m.padding_idx
  EXPECT_EQ(keys(m), (std::vector<std::string>{"weight"}));  // #PYTHON list(m.state_dict().keys())
  const fp::Tensor i =
      fp::tensor({{int64_t{1}, int64_t{4}, int64_t{4}}, {int64_t{0}, int64_t{5}, int64_t{2}}});
  EXPECT_PYTHON(run(m, i), truth<std::vector<float>>("run(m, i)"));
  const fp::nn::Embedding fresh(6, 3, {.padding_idx = 4});
  const fp::Tensor row = fp::dispatch<fp::Tensor>("aten::select", "int", fresh.weight, 0, 4);
  EXPECT_PYTHON(values(row), truth<std::vector<float>>("values(fresh.weight[4])"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::Embedding: Padding_idx must be within num_embeddings",
                  fp::nn::Embedding(6, 3, {.padding_idx = 6}));
  const fp::Tensor fractional = fp::tensor({0.5f});
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::embedding", m(fractional));
}

}  // namespace
