// fp::functional grid_sample (every mode, padding mode and align_corners,
// 4-D and 5-D, several dtypes, strided inputs) and affine_grid (2-D and 3-D)
// against torch.nn.functional.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <string>
#include <vector>

#include "nn/helpers.h"
#include "nn/summary.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn.functional as F
from truth_helpers import g, message, outcome, values
def summary(t):
    return [[float(s) for s in t.shape], [float(s) for s in t.stride()], values(t)]
def locations(sizes, seed):
    """Sampling locations in [-1.3, 1.3): some outside the input, for the padding modes."""
    return torch.rand(sizes, generator=g(seed)) * 2.6 - 1.3
*/

namespace {

using fp_test::truth;

namespace F = fp::functional;
using nn_test::randn;
using nn_test::Summary;

/// Python's locations above.
fp::Tensor locations(fp::IntList sizes, std::uint64_t seed) {
  return nn_test::rand(sizes, seed) * 2.6 - 1.3;
}

const char* const kModes[] = {"bilinear", "nearest", "bicubic"};
const char* const kPaddingModes[] = {"zeros", "border", "reflection"};

TEST(FunctionalGridSample, FourDimensionsEveryOption) {
  /*
  #|PYTHON
  x = torch.randn(2, 3, 4, 5, generator=g(1))
  grid = locations((2, 3, 6, 2), 2)
  results = [summary(F.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=corners))
             for mode in ("bilinear", "nearest", "bicubic")
             for padding in ("zeros", "border", "reflection")
             for corners in (False, True)]
  */
  const fp::Tensor x = randn({2, 3, 4, 5}, 1), grid = locations({2, 3, 6, 2}, 2);
  const auto results = truth<std::vector<Summary>>("results");
  std::size_t i = 0;
  for (const char* mode : kModes) {
    for (const char* padding : kPaddingModes) {
      for (const bool corners : {false, true}) {
        SCOPED_TRACE(std::string(mode) + " " + padding + (corners ? " aligned" : ""));
        const fp::Tensor sampled = F::grid_sample(
            x, grid, {.mode = mode, .padding_mode = padding, .align_corners = corners});
        EXPECT_EQ(nn_test::summary(sampled), results.at(i++));
      }
    }
  }
}

TEST(FunctionalGridSample, FiveDimensions) {
  /*
  #|PYTHON
  x = torch.randn(1, 2, 3, 4, 3, generator=g(3))
  grid = locations((1, 2, 3, 2, 3), 4)
  results = [summary(F.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=corners))
             for mode in ("bilinear", "nearest")
             for padding in ("zeros", "border", "reflection")
             for corners in (False, True)]
  */
  const fp::Tensor x = randn({1, 2, 3, 4, 3}, 3), grid = locations({1, 2, 3, 2, 3}, 4);
  const auto results = truth<std::vector<Summary>>("results");
  std::size_t i = 0;
  for (const char* mode : {"bilinear", "nearest"}) {
    for (const char* padding : kPaddingModes) {
      for (const bool corners : {false, true}) {
        SCOPED_TRACE(std::string(mode) + " " + padding + (corners ? " aligned" : ""));
        const fp::Tensor sampled = F::grid_sample(
            x, grid, {.mode = mode, .padding_mode = padding, .align_corners = corners});
        EXPECT_EQ(nn_test::summary(sampled), results.at(i++));
      }
    }
  }
  // Bicubic 5-D sampling: an error before torch 2.15, which accepts it.
  const auto bicubic = truth<std::string>(
      R"(outcome(lambda: F.grid_sample(x, grid, mode="bicubic", align_corners=False)))");
  if (bicubic.empty()) {
    EXPECT_NO_THROW(F::grid_sample(x, grid, {.mode = "bicubic"}));
  } else {
    EXPECT_TORCH_ERROR(bicubic, F::grid_sample(x, grid, {.mode = "bicubic"}));
  }
}

TEST(FunctionalGridSample, DtypesAndStridedInputs) {
  /*
  #|PYTHON
  x = torch.randn(1, 3, 4, 4, generator=g(5))
  grid = locations((1, 5, 3, 2), 6)
  x_last = x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
  grid_t = grid.transpose(1, 2).contiguous().transpose(1, 2)
  double = F.grid_sample(x.double(), grid.double(), mode="bicubic", align_corners=False)
  half = F.grid_sample(x.half(), grid.half(), padding_mode="border", align_corners=True)
  bf16 = F.grid_sample(x.bfloat16(), grid.bfloat16(), mode="nearest", align_corners=False)
  strided = F.grid_sample(x_last, grid_t, padding_mode="reflection", align_corners=False)
  */
  const fp::Tensor x = randn({1, 3, 4, 4}, 5), grid = locations({1, 5, 3, 2}, 6);
  const fp::Tensor x_last(x.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}));
  const fp::Tensor grid_t(grid.transpose(1, 2).contiguous().transpose(1, 2));
  const auto as = [](const fp::Tensor& t, fp::DType dtype) { return t.to(dtype); };
  EXPECT_SAME(F::grid_sample(as(x, fp::DType::F64), as(grid, fp::DType::F64), {.mode = "bicubic"}),
              truth<Summary>("summary(double)"));
  EXPECT_SAME(F::grid_sample(as(x, fp::DType::F16), as(grid, fp::DType::F16),
                             {.padding_mode = "border", .align_corners = true}),
              truth<Summary>("summary(half)"));
  EXPECT_SAME(
      F::grid_sample(as(x, fp::DType::BF16), as(grid, fp::DType::BF16), {.mode = "nearest"}),
      truth<Summary>("summary(bf16)"));
  EXPECT_SAME(F::grid_sample(x_last, grid_t, {.padding_mode = "reflection"}),
              truth<Summary>("summary(strided)"));
}

TEST(FunctionalGridSample, BadInput) {
  /*
  #|PYTHON
  x = torch.randn(1, 1, 3, 3)
  grid = torch.zeros(1, 2, 2, 2)
  */
  const fp::Tensor x = randn({1, 1, 3, 3}, 1), grid = fp::zeros({1, 2, 2, 2});
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::functional::grid_sample: expected mode to be 'bilinear', 'nearest' "
                        "or 'bicubic', but got: 'linear'",
                        F::grid_sample(x, grid, {.mode = "linear"}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::functional::grid_sample: expected padding_mode to be 'zeros', "
                        "'border', or 'reflection', but got: 'circular'",
                        F::grid_sample(x, grid, {.padding_mode = "circular"}));
  const fp::Tensor wrong_grid = fp::zeros({1, 2, 2, 3});
  EXPECT_TORCH_ERROR(
      truth<std::string>(
          "message(lambda: F.grid_sample(x, torch.zeros(1, 2, 2, 3), align_corners=False))"),
      F::grid_sample(x, wrong_grid));
  const fp::Tensor other_batch = fp::zeros({2, 2, 2, 2});
  EXPECT_TORCH_ERROR(
      truth<std::string>(
          "message(lambda: F.grid_sample(x, torch.zeros(2, 2, 2, 2), align_corners=False))"),
      F::grid_sample(x, other_batch));
}

TEST(FunctionalAffineGrid, TwoAndThreeDimensions) {
  /*
  #|PYTHON
  theta = torch.randn(2, 2, 3, generator=g(7))
  theta3 = torch.randn(1, 3, 4, generator=g(8)).double()
  x = torch.randn(2, 3, 4, 5, generator=g(9))
  grid = F.affine_grid(theta, [2, 3, 4, 5], align_corners=False)
  */
  const fp::Tensor theta = randn({2, 2, 3}, 7);
  const fp::Tensor theta3 = randn({1, 3, 4}, 8).to(fp::DType::F64);
  const fp::Tensor x = randn({2, 3, 4, 5}, 9);
  const fp::Tensor grid = F::affine_grid(theta, {2, 3, 4, 5});
  EXPECT_SAME(grid, truth<Summary>("summary(grid)"));
  EXPECT_SAME(F::affine_grid(theta, {2, 1, 3, 6}, {.align_corners = true}),
              truth<Summary>("summary(F.affine_grid(theta, [2, 1, 3, 6], align_corners=True))"));
  EXPECT_SAME(
      F::affine_grid(theta3, {1, 2, 2, 3, 4}),
      truth<Summary>("summary(F.affine_grid(theta3, [1, 2, 2, 3, 4], align_corners=False))"));
  EXPECT_SAME(
      F::affine_grid(theta3, {1, 2, 2, 3, 4}, {.align_corners = true}),
      truth<Summary>("summary(F.affine_grid(theta3, [1, 2, 2, 3, 4], align_corners=True))"));
  // A unit-size dimension with align_corners: Python warns and goes on.
  EXPECT_SAME(F::affine_grid(theta, {2, 1, 1, 4}, {.align_corners = true}),
              truth<Summary>("summary(F.affine_grid(theta, [2, 1, 1, 4], align_corners=True))"));
  // A spatial transformer: the grid straight into grid_sample.
  EXPECT_SAME(F::grid_sample(x, grid),
              truth<Summary>("summary(F.grid_sample(x, grid, align_corners=False))"));
}

TEST(FunctionalAffineGrid, BadInputSaysWhatPythonSays) {
  /*
  #|PYTHON
  theta = torch.randn(2, 2, 3)
  def refusal(t, size, **kw):
      try:
          F.affine_grid(t, size, align_corners=False, **kw)
      except (ValueError, NotImplementedError) as e:
          return str(e)
  */
  const fp::Tensor theta = randn({2, 2, 3}, 1);
  const auto refuses = [](const std::string& message, auto&& call) {
    EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "fp::functional::affine_grid: " + message,
                          call());
  };
  const fp::Tensor integers = fp::zeros({2, 2, 3}, fp::DType::I64);
  refuses(truth<std::string>("refusal(torch.zeros(2, 2, 3, dtype=torch.int64), [2, 1, 3, 4])"),
          [&] {
            return F::affine_grid(integers, {2, 1, 3, 4});
          });
  refuses(truth<std::string>("refusal(theta, [2, 1, 3, 4, 5])"), [&] {
    return F::affine_grid(theta, {2, 1, 3, 4, 5});
  });
  refuses(truth<std::string>("refusal(theta, [2, 1, 3])"), [&] {
    return F::affine_grid(theta, {2, 1, 3});
  });
  refuses(truth<std::string>("refusal(theta, [2, 1, 0, 4])"), [&] {
    return F::affine_grid(theta, {2, 1, 0, 4});
  });
  const fp::Tensor flat = randn({2, 6}, 2);
  refuses(truth<std::string>("refusal(torch.zeros(2, 6), [2, 1, 3, 4])"), [&] {
    return F::affine_grid(flat, {2, 1, 3, 4});
  });
}

}  // namespace
