// fp::functional interpolate (every mode and option, every dtype the CPU
// kernels take, contiguous and channels-last), upsample_nearest,
// upsample_bilinear, channel_shuffle, fold and unfold, and the layers
// PixelUnshuffle, ChannelShuffle, UpsamplingNearest2d, UpsamplingBilinear2d,
// Fold and Unfold, against torch.nn.
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>

#include <string>
#include <vector>

#include "nn/helpers.h"
#include "nn/summary.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import warnings
import torch.nn as nn
import torch.nn.functional as F
from truth_helpers import g, message, values
warnings.simplefilter("ignore")  # upsample_nearest and upsample_bilinear are deprecated
def summary(t):
    return [[float(s) for s in t.shape], [float(s) for s in t.stride()], values(t)]
def attempt(f):
    """summary(f()), or [] where PyTorch's kernel refuses (a dtype it lacks)."""
    try:
        return summary(f())
    except RuntimeError:
        return []
def channels_last(t):
    """The same values laid out channels-last (the channel dimension innermost)."""
    order = [0] + list(range(2, t.dim())) + [1]
    back = [0, t.dim() - 1] + list(range(1, t.dim() - 1))
    return t.permute(order).contiguous().permute(back)
*/

namespace {

using fp_test::truth;

namespace F = fp::functional;
using nn_test::randn;
using nn_test::Summary;

/// Python's channels_last above: the channel dimension innermost in memory.
fp::Tensor channels_last(const fp::Tensor& t) {
  std::vector<std::int64_t> order{0}, back{0, t.dim() - 1};
  for (std::int64_t d = 2; d < t.dim(); ++d)
    order.push_back(d);
  order.push_back(1);
  for (std::int64_t d = 1; d < t.dim() - 1; ++d)
    back.push_back(d);
  return fp::Tensor(t.permute(order).contiguous().permute(back));
}

/// The summary of `f()`, or {} where it throws fp::Error (Python's attempt()).
template <class Function>
Summary attempt(Function&& f) {
  try {
    return nn_test::summary(f());
  } catch (const fp::Error&) {
    return {};
  }
}

struct Resize {
  int rank;
  F::InterpolateOptions options;
};

TEST(FunctionalInterpolate, EveryModeDtypeAndLayout) {
  /*
  #|PYTHON
  inputs = {3: torch.randn(2, 3, 5, generator=g(1)), 4: torch.randn(2, 3, 4, 5, generator=g(2)),
            5: torch.randn(1, 2, 3, 4, 3, generator=g(3))}
  cases = [
      (3, dict(size=7)), (3, dict(scale_factor=1.7, mode="nearest-exact")),
      (3, dict(size=7, mode="linear")), (3, dict(size=7, mode="linear", align_corners=True)),
      (3, dict(scale_factor=0.6, mode="linear", recompute_scale_factor=True)),
      (3, dict(size=3, mode="area")),
      (4, dict(size=(5, 7))), (4, dict(scale_factor=(1.5, 2.0), mode="nearest-exact")),
      (4, dict(size=(5, 6), mode="bilinear")),
      (4, dict(size=(3, 7), mode="bilinear", align_corners=True)),
      (4, dict(size=(5, 6), mode="bicubic")),
      (4, dict(scale_factor=1.3, mode="bicubic", align_corners=True, recompute_scale_factor=True)),
      (4, dict(size=(2, 3), mode="bilinear", antialias=True)),
      (4, dict(size=(2, 3), mode="bicubic", align_corners=True, antialias=True)),
      (4, dict(scale_factor=0.5, mode="area")),
      (5, dict(size=(2, 5, 4))), (5, dict(size=(2, 5, 4), mode="nearest-exact")),
      (5, dict(size=(2, 5, 4), mode="trilinear")),
      (5, dict(scale_factor=1.5, mode="trilinear", align_corners=True)),
      (5, dict(size=(2, 2, 2), mode="area")),
  ]
  def typed(t, dtype):
      return (t.abs() * 40.0).to(dtype) if dtype == torch.uint8 else t.to(dtype)
  results = [attempt(lambda: F.interpolate(layout(typed(inputs[rank], dtype)), **kw))
             for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.uint8)
             for layout in (lambda t: t, channels_last)
             for rank, kw in cases]
  */
  const fp::Tensor inputs[] = {randn({2, 3, 5}, 1), randn({2, 3, 4, 5}, 2),
                               randn({1, 2, 3, 4, 3}, 3)};
  const std::vector<Resize> cases = {
      {3, {.size = 7}},
      {3, {.scale_factor = 1.7, .mode = "nearest-exact"}},
      {3, {.size = 7, .mode = "linear"}},
      {3, {.size = 7, .mode = "linear", .align_corners = true}},
      {3, {.scale_factor = 0.6, .mode = "linear", .recompute_scale_factor = true}},
      {3, {.size = 3, .mode = "area"}},
      {4, {.size = {5, 7}}},
      {4, {.scale_factor = {1.5, 2.0}, .mode = "nearest-exact"}},
      {4, {.size = {5, 6}, .mode = "bilinear"}},
      {4, {.size = {3, 7}, .mode = "bilinear", .align_corners = true}},
      {4, {.size = {5, 6}, .mode = "bicubic"}},
      {4,
       {.scale_factor = 1.3,
        .mode = "bicubic",
        .align_corners = true,
        .recompute_scale_factor = true}},
      {4, {.size = {2, 3}, .mode = "bilinear", .antialias = true}},
      {4, {.size = {2, 3}, .mode = "bicubic", .align_corners = true, .antialias = true}},
      {4, {.scale_factor = 0.5, .mode = "area"}},
      {5, {.size = {2, 5, 4}}},
      {5, {.size = {2, 5, 4}, .mode = "nearest-exact"}},
      {5, {.size = {2, 5, 4}, .mode = "trilinear"}},
      {5, {.scale_factor = 1.5, .mode = "trilinear", .align_corners = true}},
      {5, {.size = {2, 2, 2}, .mode = "area"}},
  };
  const auto typed = [](const fp::Tensor& t, fp::DType dtype) {
    return dtype == fp::DType::U8 ? (fp::aten::abs(t) * 40.0).to(dtype) : t.to(dtype);
  };
  const auto results = truth<std::vector<Summary>>("results");
  std::size_t i = 0;
  for (const fp::DType dtype :
       {fp::DType::F32, fp::DType::F64, fp::DType::F16, fp::DType::BF16, fp::DType::U8}) {
    for (const bool strided : {false, true}) {
      for (const Resize& c : cases) {
        SCOPED_TRACE("case " + std::to_string(i));
        const fp::Tensor typed_input = typed(inputs[c.rank - 3], dtype);
        const fp::Tensor input = strided ? channels_last(typed_input) : typed_input;
        EXPECT_EQ(attempt([&] { return F::interpolate(input, c.options); }), results.at(i));
        ++i;
      }
    }
  }
  EXPECT_EQ(i, results.size());
}

TEST(FunctionalInterpolate, FewerThanThreeDimensionsAfterTheSizeChecks) {
  /*
  #|PYTHON
  x = torch.randn(4, 5)
  def message(**kw):
      try:
          F.interpolate(x, **kw)
      except (ValueError, NotImplementedError) as e:
          return str(e)
  */
  const fp::Tensor x = randn({4, 5}, 1);
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::BadArgument,
      "fp::functional::interpolate: " + truth<std::string>("message(size=[2, 3])"),
      F::interpolate(x, {.size = {2, 3}}));
  // The remaining messages name the lanczos mode of torch 2.12 on, as flash_powder's do.
  if (!truth<bool>(R"(hasattr(torch.ops.aten, "_upsample_lanczos2d_aa"))")) return;
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::functional::interpolate: " + truth<std::string>("message(size=2)"),
                        F::interpolate(x, {.size = 2}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::functional::interpolate: " +
                            truth<std::string>(R"(message(scale_factor=2.0, mode="bilinear"))"),
                        F::interpolate(x, {.scale_factor = 2.0, .mode = "bilinear"}));
}

TEST(FunctionalVision, UpsampleNearestAndBilinear) {
  /*
  #|PYTHON
  x = torch.randn(2, 2, 3, 4, generator=g(4))
  x5 = torch.randn(1, 1, 2, 3, 2, generator=g(5))
  */
  const fp::Tensor x = randn({2, 2, 3, 4}, 4), x5 = randn({1, 1, 2, 3, 2}, 5);
  EXPECT_SAME(F::upsample_nearest(x, {.size = {5, 7}}),
              truth<Summary>("summary(F.upsample_nearest(x, size=(5, 7)))"));
  EXPECT_SAME(F::upsample_nearest(x5, {.scale_factor = 2.0}),
              truth<Summary>("summary(F.upsample_nearest(x5, scale_factor=2))"));
  EXPECT_SAME(F::upsample_bilinear(x, {.size = 6}),
              truth<Summary>("summary(F.upsample_bilinear(x, size=6))"));
  EXPECT_SAME(
      F::upsample_bilinear(channels_last(x), {.scale_factor = {2.0, 1.5}}),
      truth<Summary>("summary(F.upsample_bilinear(channels_last(x), scale_factor=(2, 1.5)))"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "either size or scale_factor should be defined",
                  F::upsample_bilinear(x, {}));
}

TEST(VisionLayers, UpsamplingNearest2dAndBilinear2d) {
  /*
  #|PYTHON
  x = torch.randn(1, 2, 3, 3, generator=g(6))
  nearest = nn.UpsamplingNearest2d(scale_factor=2)(x)
  bilinear = nn.UpsamplingBilinear2d(size=(4, 5))(x)
  bilinear64 = nn.UpsamplingBilinear2d(scale_factor=1.5)(x.double())
  */
  const fp::Tensor x = randn({1, 2, 3, 3}, 6);
  const fp::nn::UpsamplingNearest2d nearest({.scale_factor = 2.0});
  const fp::nn::UpsamplingBilinear2d bilinear({.size = {4, 5}});
  const fp::nn::UpsamplingBilinear2d bilinear64({.scale_factor = 1.5});
  EXPECT_SAME(nearest(x), truth<Summary>("summary(nearest)"));
  EXPECT_SAME(bilinear(x), truth<Summary>("summary(bilinear)"));
  EXPECT_SAME(bilinear64(x.to(fp::DType::F64)), truth<Summary>("summary(bilinear64)"));
  EXPECT_TRUE(nn_test::keys(bilinear).empty());
  const fp::nn::UpsamplingNearest2d both({.size = 4, .scale_factor = 2.0});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::interpolate: only one of size or scale_factor should be defined",
                  both(x));
}

TEST(FunctionalVision, ChannelShuffle) {
  /*
  #|PYTHON
  x = torch.randn(2, 6, 2, 3, generator=g(7))
  x3 = torch.randn(6, 4, 2, generator=g(8)).double()
  */
  const fp::Tensor x = randn({2, 6, 2, 3}, 7);
  const fp::Tensor x3 = randn({6, 4, 2}, 8).to(fp::DType::F64);
  EXPECT_SAME(F::channel_shuffle(x, 3), truth<Summary>("summary(F.channel_shuffle(x, 3))"));
  EXPECT_SAME(F::channel_shuffle(channels_last(x), 2),
              truth<Summary>("summary(F.channel_shuffle(channels_last(x), 2))"));
  EXPECT_SAME(F::native_channel_shuffle(x, 2),
              truth<Summary>("summary(F.native_channel_shuffle(x, 2))"));
  EXPECT_SAME(F::channel_shuffle(x3, 2), truth<Summary>("summary(F.channel_shuffle(x3, 2))"));
  const fp::nn::ChannelShuffle shuffle(3);
  EXPECT_SAME(shuffle(x), truth<Summary>("summary(nn.ChannelShuffle(3)(x))"));
  EXPECT_TORCH_ERROR(truth<std::string>("message(lambda: F.channel_shuffle(x, 4))"),
                     F::channel_shuffle(x, 4));
  EXPECT_TORCH_ERROR(truth<std::string>("message(lambda: F.channel_shuffle(x, 0))"),
                     F::channel_shuffle(x, 0));
  /*
  #|PYTHON
  flat = torch.randn(6, 2)
  */
  const fp::Tensor flat = randn({6, 2}, 9);
  EXPECT_TORCH_ERROR(truth<std::string>("message(lambda: F.channel_shuffle(flat, 2))"),
                     F::channel_shuffle(flat, 2));
}

TEST(VisionLayers, PixelUnshuffle) {
  /*
  #|PYTHON
  x = torch.randn(2, 1, 4, 6, generator=g(10))
  x3 = torch.randn(2, 4, 2, generator=g(11))
  */
  const fp::Tensor x = randn({2, 1, 4, 6}, 10), x3 = randn({2, 4, 2}, 11);
  const fp::nn::PixelUnshuffle unshuffle(2);
  EXPECT_SAME(unshuffle(x), truth<Summary>("summary(nn.PixelUnshuffle(2)(x))"));
  EXPECT_SAME(unshuffle(x3), truth<Summary>("summary(nn.PixelUnshuffle(2)(x3))"));
  EXPECT_SAME(unshuffle(channels_last(x)),
              truth<Summary>("summary(nn.PixelUnshuffle(2)(channels_last(x)))"));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::pixel_unshuffle", fp::nn::PixelUnshuffle(4)(x));
}

TEST(FunctionalFold, UnfoldAndFold) {
  /*
  #|PYTHON
  x = torch.randn(2, 3, 5, 6, generator=g(12))
  unbatched = torch.randn(2, 4, 4, generator=g(13)).double()
  cols = F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
  back = F.fold(cols, (5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
  cols2 = torch.randn(8, 9, generator=g(14))
  */
  const fp::Tensor x = randn({2, 3, 5, 6}, 12);
  const fp::Tensor unbatched = randn({2, 4, 4}, 13).to(fp::DType::F64);
  const F::FoldOptions options{.dilation = {1, 2}, .padding = 1, .stride = {2, 1}};
  const fp::Tensor cols = F::unfold(x, {2, 3}, options);
  EXPECT_SAME(cols, truth<Summary>("summary(cols)"));
  EXPECT_SAME(F::fold(cols, {5, 6}, {2, 3}, options), truth<Summary>("summary(back)"));
  EXPECT_SAME(F::unfold(channels_last(x), 2),
              truth<Summary>("summary(F.unfold(channels_last(x), 2))"));
  EXPECT_SAME(F::unfold(unbatched, 3, {.padding = 1}),
              truth<Summary>("summary(F.unfold(unbatched, 3, padding=1))"));
  const fp::Tensor cols2 = randn({8, 9}, 14);
  EXPECT_SAME(F::fold(cols2, {4, 4}, 2, {.stride = 1}),
              truth<Summary>("summary(F.fold(cols2, (4, 4), 2, stride=1))"));
  EXPECT_SAME(F::fold(cols2.to(fp::DType::F16), 4, {2, 2}),
              truth<Summary>("summary(F.fold(cols2.half(), 4, (2, 2)))"));
}

TEST(FoldLayers, FoldAndUnfoldLayers) {
  /*
  #|PYTHON
  x = torch.randn(1, 2, 4, 5, generator=g(15))
  unfold = nn.Unfold(kernel_size=(2, 2), stride=(1, 2))
  fold = nn.Fold(output_size=(4, 5), kernel_size=(2, 2), stride=(1, 2))
  cols = unfold(x)
  back = fold(cols)
  */
  const fp::Tensor x = randn({1, 2, 4, 5}, 15);
  const fp::nn::Unfold unfold({2, 2}, {.stride = {1, 2}});
  const fp::nn::Fold fold({4, 5}, 2, {.stride = {1, 2}});
  const fp::Tensor cols = unfold(x);
  EXPECT_SAME(cols, truth<Summary>("summary(cols)"));
  EXPECT_SAME(fold(cols), truth<Summary>("summary(back)"));
  EXPECT_TRUE(nn_test::keys(fold).empty());
  EXPECT_TRUE(nn_test::keys(unfold).empty());
}

TEST(FunctionalFold, BadInput) {
  /*
  #|PYTHON
  x = torch.randn(1, 2, 3, 3)
  cols = torch.randn(1, 8, 4)
  */
  const fp::Tensor x = randn({1, 2, 3, 3}, 1), cols = randn({1, 8, 4}, 2);
  EXPECT_TORCH_ERROR(truth<std::string>("message(lambda: F.unfold(x, 4))"), F::unfold(x, 4));
  EXPECT_TORCH_ERROR(truth<std::string>("message(lambda: F.unfold(x, 2, stride=0))"),
                     F::unfold(x, 2, {.stride = 0}));
  EXPECT_TORCH_ERROR(truth<std::string>("message(lambda: F.fold(cols, (3, 3), 3))"),
                     F::fold(cols, {3, 3}, 3));
  const fp::Tensor flat = randn({4}, 3);
  EXPECT_TORCH_ERROR(truth<std::string>("message(lambda: F.unfold(torch.randn(4), 2))"),
                     F::unfold(flat, 2));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "expected a single value or a list of 2 values, got a list of 3",
                  fp::nn::Unfold({1, 2, 3}));
}

}  // namespace
