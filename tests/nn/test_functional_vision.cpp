// fp::functional pad, interpolate (every mode, with and without
// align_corners and antialias) and pixel_shuffle against torch.nn.functional.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn.functional as F
from truth_helpers import g, values
*/

namespace {

using fp_test::truth;

namespace F = fp::functional;
using nn_test::randn;
using nn_test::shape;
using nn_test::values;

std::vector<float> resized(fp::TensorView x, const F::InterpolateOptions& options) {
  return values(F::interpolate(x, options));
}

/// interpolate throws fp::Error with Python's `message`.
void refuses(fp::TensorView x, const F::InterpolateOptions& options, const std::string& message) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::functional::interpolate: " + message,
                  F::interpolate(x, options));
}

TEST(FunctionalPad, AllModes) {
  /*
  #|PYTHON
  x = torch.randn(1, 2, 3, 4, generator=g(1))
  */
  const fp::Tensor x = randn({1, 2, 3, 4}, 1);
  EXPECT_PYTHON(values(F::pad(x, {1, 2})), truth<std::vector<float>>("values(F.pad(x, (1, 2)))"));
  EXPECT_PYTHON(values(F::pad(x, {1, 0, 0, 2}, {.value = 3.5})),
                truth<std::vector<float>>("values(F.pad(x, (1, 0, 0, 2), value=3.5))"));
  EXPECT_PYTHON(values(F::pad(x, {2, 1, 1, 2}, {.mode = "reflect"})),
                truth<std::vector<float>>(R"(values(F.pad(x, (2, 1, 1, 2), mode="reflect")))"));
  EXPECT_PYTHON(values(F::pad(x, {2, 1, 1, 2}, {.mode = "replicate"})),
                truth<std::vector<float>>(R"(values(F.pad(x, (2, 1, 1, 2), mode="replicate")))"));
  EXPECT_PYTHON(values(F::pad(x, {2, 1, 1, 2}, {.mode = "circular"})),
                truth<std::vector<float>>(R"(values(F.pad(x, (2, 1, 1, 2), mode="circular")))"));
  const fp::Tensor cut = F::pad(x, {-1, -1});
  EXPECT_EQ(shape(cut),
            (std::vector<int64_t>{1, 2, 3, 2}));  // #PYTHON list(F.pad(x, (-1, -1)).shape)
}

TEST(FunctionalPad, BadInput) {
  const fp::Tensor x = randn({1, 2, 3, 4}, 1);
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::pad", F::pad(x, {1, 2, 3}));
  EXPECT_TORCH_ERROR("Unrecognised padding mode mirror", F::pad(x, {1, 1}, {.mode = "mirror"}));
  EXPECT_TORCH_ERROR("Padding size should be less than the corresponding input dimension",
                     F::pad(x, {4, 4, 1, 1}, {.mode = "reflect"}));
}

TEST(FunctionalInterpolate, Nearest) {
  /*
  #|PYTHON
  x3 = torch.randn(1, 2, 5, generator=g(2))
  x4 = torch.randn(1, 1, 3, 4, generator=g(3))
  x5 = torch.randn(1, 1, 2, 3, 2, generator=g(4))
  */
  const fp::Tensor x3 = randn({1, 2, 5}, 2), x4 = randn({1, 1, 3, 4}, 3),
                   x5 = randn({1, 1, 2, 3, 2}, 4);
  EXPECT_PYTHON(resized(x3, {.size = 8}),
                truth<std::vector<float>>("values(F.interpolate(x3, size=8))"));
  EXPECT_PYTHON(resized(x4, {.scale_factor = 1.7}),
                truth<std::vector<float>>("values(F.interpolate(x4, scale_factor=1.7))"));
  EXPECT_PYTHON(resized(x4, {.size = {2, 7}}),
                truth<std::vector<float>>("values(F.interpolate(x4, size=(2, 7)))"));
  EXPECT_PYTHON(
      resized(x5, {.scale_factor = {2.0, 0.5, 1.5}}),
      truth<std::vector<float>>("values(F.interpolate(x5, scale_factor=(2.0, 0.5, 1.5)))"));
  EXPECT_EQ(resized(x4, {.scale_factor = 1.7, .mode = "nearest-exact"}),
            truth<std::vector<float>>(
                R"(values(F.interpolate(x4, scale_factor=1.7, mode="nearest-exact")))"));
  EXPECT_PYTHON(
      resized(x3, {.size = 3, .mode = "nearest-exact"}),
      truth<std::vector<float>>(R"(values(F.interpolate(x3, size=3, mode="nearest-exact")))"));
  EXPECT_PYTHON(resized(x5, {.size = {3, 2, 3}, .mode = "nearest-exact"}),
                truth<std::vector<float>>(
                    R"(values(F.interpolate(x5, size=(3, 2, 3), mode="nearest-exact")))"));
}

TEST(FunctionalInterpolate, RecomputeScaleFactor) {
  /*
  #|PYTHON
  x = torch.randn(1, 1, 3, 5, generator=g(5))
  def both(**kw):
      return values(F.interpolate(x, scale_factor=1.3, recompute_scale_factor=True, **kw))
  */
  const fp::Tensor x = randn({1, 1, 3, 5}, 5);
  EXPECT_PYTHON(resized(x, {.scale_factor = 1.3, .recompute_scale_factor = true}),
                truth<std::vector<float>>("both()"));
  EXPECT_PYTHON(
      resized(x, {.scale_factor = 1.3, .mode = "bilinear", .recompute_scale_factor = true}),
      truth<std::vector<float>>(R"(both(mode="bilinear"))"));
  EXPECT_PYTHON(
      resized(x, {.scale_factor = 1.3, .mode = "bilinear", .recompute_scale_factor = false}),
      truth<std::vector<float>>(
          R"(values(F.interpolate(x, scale_factor=1.3, mode="bilinear", recompute_scale_factor=False)))"));
}

TEST(FunctionalInterpolate, Linear) {
  /*
  #|PYTHON
  x = torch.randn(1, 2, 4, generator=g(6))
  def run(**kw):
      return values(F.interpolate(x, mode="linear", **kw))
  */
  const fp::Tensor x = randn({1, 2, 4}, 6);
  EXPECT_PYTHON(resized(x, {.size = 7, .mode = "linear"}),
                truth<std::vector<float>>("run(size=7)"));
  EXPECT_PYTHON(resized(x, {.size = 7, .mode = "linear", .align_corners = true}),
                truth<std::vector<float>>("run(size=7, align_corners=True)"));
  EXPECT_PYTHON(resized(x, {.scale_factor = 0.6, .mode = "linear", .align_corners = false}),
                truth<std::vector<float>>("run(scale_factor=0.6, align_corners=False)"));
}

TEST(FunctionalInterpolate, Bilinear) {
  /*
  #|PYTHON
  x = torch.randn(1, 1, 3, 4, generator=g(7))
  big = torch.randn(1, 1, 7, 9, generator=g(8))
  def run(t, **kw):
      return values(F.interpolate(t, mode="bilinear", **kw))
  */
  const fp::Tensor x = randn({1, 1, 3, 4}, 7), big = randn({1, 1, 7, 9}, 8);
  EXPECT_PYTHON(resized(x, {.size = {5, 6}, .mode = "bilinear"}),
                truth<std::vector<float>>("run(x, size=(5, 6))"));
  EXPECT_PYTHON(resized(x, {.size = {5, 6}, .mode = "bilinear", .align_corners = true}),
                truth<std::vector<float>>("run(x, size=(5, 6), align_corners=True)"));
  EXPECT_PYTHON(resized(x, {.scale_factor = {1.5, 2.0}, .mode = "bilinear"}),
                truth<std::vector<float>>("run(x, scale_factor=(1.5, 2.0))"));
  EXPECT_PYTHON(resized(big, {.size = {3, 4}, .mode = "bilinear", .antialias = true}),
                truth<std::vector<float>>("run(big, size=(3, 4), antialias=True)"));
  EXPECT_PYTHON(
      resized(big, {.size = {3, 4}, .mode = "bilinear", .align_corners = true, .antialias = true}),
      truth<std::vector<float>>("run(big, size=(3, 4), align_corners=True, antialias=True)"));
  EXPECT_PYTHON(resized(big, {.size = {3, 4}, .mode = "bilinear"}),
                truth<std::vector<float>>("run(big, size=(3, 4))"));
}

TEST(FunctionalInterpolate, Bicubic) {
  /*
  #|PYTHON
  x = torch.randn(1, 1, 3, 4, generator=g(9))
  big = torch.randn(1, 1, 7, 9, generator=g(10))
  def run(t, **kw):
      return values(F.interpolate(t, mode="bicubic", **kw))
  */
  const fp::Tensor x = randn({1, 1, 3, 4}, 9), big = randn({1, 1, 7, 9}, 10);
  EXPECT_PYTHON(resized(x, {.size = {5, 6}, .mode = "bicubic"}),
                truth<std::vector<float>>("run(x, size=(5, 6))"));
  EXPECT_PYTHON(resized(x, {.size = {5, 6}, .mode = "bicubic", .align_corners = true}),
                truth<std::vector<float>>("run(x, size=(5, 6), align_corners=True)"));
  EXPECT_PYTHON(resized(big, {.scale_factor = 0.4, .mode = "bicubic", .antialias = true}),
                truth<std::vector<float>>("run(big, scale_factor=0.4, antialias=True)"));
  EXPECT_PYTHON(
      resized(big, {.size = {3, 4}, .mode = "bicubic", .align_corners = true, .antialias = true}),
      truth<std::vector<float>>("run(big, size=(3, 4), align_corners=True, antialias=True)"));
}

TEST(FunctionalInterpolate, TrilinearAreaLanczos) {
  /*
  #|PYTHON
  x5 = torch.randn(1, 1, 2, 3, 2, generator=g(11))
  x4 = torch.randn(1, 2, 5, 7, generator=g(12))
  x3 = torch.randn(1, 1, 9, generator=g(13))
  */
  const fp::Tensor x5 = randn({1, 1, 2, 3, 2}, 11), x4 = randn({1, 2, 5, 7}, 12),
                   x3 = randn({1, 1, 9}, 13);
  EXPECT_PYTHON(
      resized(x5, {.size = {3, 4, 3}, .mode = "trilinear"}),
      truth<std::vector<float>>(R"(values(F.interpolate(x5, size=(3, 4, 3), mode="trilinear")))"));
  EXPECT_PYTHON(
      resized(x5, {.size = {3, 4, 3}, .mode = "trilinear", .align_corners = true}),
      truth<std::vector<float>>(
          R"(values(F.interpolate(x5, size=(3, 4, 3), mode="trilinear", align_corners=True)))"));
  EXPECT_PYTHON(
      resized(x4, {.size = {2, 3}, .mode = "area"}),
      truth<std::vector<float>>(R"(values(F.interpolate(x4, size=(2, 3), mode="area")))"));
  EXPECT_PYTHON(
      resized(x4, {.scale_factor = 0.7, .mode = "area"}),
      truth<std::vector<float>>(R"(values(F.interpolate(x4, scale_factor=0.7, mode="area")))"));
  EXPECT_PYTHON(resized(x3, {.size = 4, .mode = "area"}),
                truth<std::vector<float>>(R"(values(F.interpolate(x3, size=4, mode="area")))"));
}

TEST(FunctionalInterpolate, LanczosFromTorch212) {
  /*
  #|PYTHON
  x4 = torch.randn(1, 2, 5, 7, generator=g(12))
  has_lanczos = hasattr(torch.ops.aten, "_upsample_lanczos2d_aa")
  lanczos = values(F.interpolate(x4, size=(3, 4), mode="lanczos", antialias=True)) if has_lanczos else []
  */
  const fp::Tensor x4 = randn({1, 2, 5, 7}, 12);
  const auto lanczos = [&] {
    return resized(x4, {.size = {3, 4}, .mode = "lanczos", .antialias = true});
  };
  EXPECT_EQ((fp::torch_version() >= fp::TorchVersion{2, 12, 0}), truth<bool>("has_lanczos"));
  if (fp::torch_version() < fp::TorchVersion{2, 12, 0}) {
    EXPECT_FP_ERROR_EXACT(
        fp::ErrorCode::UnsupportedByTorch,
        "aten::_upsample_lanczos2d_aa.vec needs torch 2.12 or later; this process "
        "loaded torch " +
            fp::torch_version().str(),
        lanczos());
    return;
  }
  EXPECT_PYTHON(lanczos(), truth<std::vector<float>>("lanczos"));
}

TEST(FunctionalInterpolate, UpsampleIsInterpolate) {
  /*
  #|PYTHON
  import warnings
  warnings.simplefilter("ignore")  # upsample is deprecated in favour of interpolate
  x = torch.randn(1, 1, 2, 3, generator=g(14))
  */
  const fp::Tensor x = randn({1, 1, 2, 3}, 14);
  EXPECT_PYTHON(
      values(F::upsample(x, {.scale_factor = 2.0, .mode = "bilinear", .align_corners = true})),
      truth<std::vector<float>>(
          R"(values(F.upsample(x, scale_factor=2.0, mode="bilinear", align_corners=True)))"));
}

TEST(FunctionalInterpolate, InvalidCombinationsSayWhatPythonSays) {
  /*
  #|PYTHON
  x = torch.randn(1, 1, 3, 4)
  def message(**kw):
      try:
          F.interpolate(x, **kw)
      except (ValueError, NotImplementedError) as e:
          return str(e)
  */
  const fp::Tensor x = randn({1, 1, 3, 4}, 1);
  refuses(x, {.size = 2, .align_corners = true},
          "align_corners option can only be set with the interpolating modes: linear | bilinear | "
          "bicubic | trilinear");  // #PYTHON message(size=2, align_corners=True)
  refuses(
      x, {.size = 2, .scale_factor = 2.0},
      "only one of size or scale_factor should be defined");  // #PYTHON message(size=2, scale_factor=2.0)
  refuses(x, {.mode = "bilinear"},
          "either size or scale_factor should be defined");  // #PYTHON message(mode="bilinear")
  refuses(
      x, {.size = {2, 3, 4}},
      "Input and output must have the same number of spatial dimensions, but got input with "
      "spatial dimensions of [3, 4] and output size of [2, 3, 4]. Please provide input tensor in "
      "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.");  // #PYTHON message(size=[2, 3, 4])
  refuses(x, {.scale_factor = {2.0, 1.5, 1.0}},
          "Input and scale_factor must have the same number of spatial dimensions, but got input "
          "with spatial dimensions of [3, 4] and scale_factor of shape [2.0, 1.5, 1.0]. Please "
          "provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, "
          "...,sK) format.");  // #PYTHON message(scale_factor=[2.0, 1.5, 1.0])
  refuses(
      x, {.size = 2, .recompute_scale_factor = true},
      "recompute_scale_factor is not meaningful with an explicit size.");  // #PYTHON message(size=2, recompute_scale_factor=True)
  refuses(
      x, {.size = 2, .mode = "linear"},
      "Got 4D input, but linear mode needs 3D input");  // #PYTHON message(size=2, mode="linear")
  refuses(
      x, {.size = 2, .mode = "trilinear"},
      "Got 4D input, but trilinear mode needs 5D input");  // #PYTHON message(size=2, mode="trilinear")
}

TEST(FunctionalInterpolate, InvalidCombinationsNamingLanczosSayWhatPythonSays) {
  // flash_powder has the lanczos mode of torch 2.12 and its messages name it;
  // an older torch's Python knows no lanczos and words these differently.
  /*
  #|PYTHON
  x = torch.randn(1, 1, 3, 4)
  has_lanczos = hasattr(torch.ops.aten, "_upsample_lanczos2d_aa")
  def message(**kw):
      if not has_lanczos:
          return None
      try:
          F.interpolate(x, **kw)
      except (ValueError, NotImplementedError) as e:
          return str(e)
  */
  if (!truth<bool>("has_lanczos")) GTEST_SKIP() << "torch before 2.12 knows no lanczos mode";
  const fp::Tensor x = randn({1, 1, 3, 4}, 1);
  refuses(x, {.size = 2, .antialias = true}, truth<std::string>("message(size=2, antialias=True)"));
  refuses(x, {.size = 2, .mode = "cubic"}, truth<std::string>(R"(message(size=2, mode="cubic"))"));
  refuses(x, {.size = 2, .mode = "lanczos"},
          truth<std::string>(R"(message(size=2, mode="lanczos"))"));
}

TEST(FunctionalVision, PixelShuffle) {
  /*
  #|PYTHON
  x = torch.randn(1, 8, 2, 3, generator=g(15))
  */
  const fp::Tensor x = randn({1, 8, 2, 3}, 15);
  const fp::Tensor up = F::pixel_shuffle(x, 2);
  EXPECT_EQ(shape(up),
            (std::vector<int64_t>{1, 2, 4, 6}));  // #PYTHON list(F.pixel_shuffle(x, 2).shape)
  EXPECT_PYTHON(values(up), truth<std::vector<float>>("values(F.pixel_shuffle(x, 2))"));
  EXPECT_EQ(values(F::pixel_unshuffle(up, 2)), values(x));
  EXPECT_TORCH_ERROR(
      "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
      "square of upscale_factor",
      F::pixel_shuffle(x, 3));
}

}  // namespace
