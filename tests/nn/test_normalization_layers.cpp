// InstanceNorm1d/2d/3d, BatchNorm3d, RMSNorm, LocalResponseNorm and
// CrossMapLRN2d against torch.nn in eval mode: the same state-dict keys and,
// with the same values loaded, the same outputs bit for bit, batched and
// unbatched.
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nn/activation_bits.h"
#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
from activation_bits import bits
from truth_helpers import g, values, filled, run, message
def without_bias(m):
    m.bias = None  # PyTorch 2.12's bias=False, spelled for every supported torch
    return m
def keys(m):
    return list(m.state_dict().keys())
def ran(m, x):
    with torch.no_grad():
        return bits(m(x))
*/

// A named namespace: the unity build compiles this file with others.
namespace normalization_layers_test {

using fp_test::truth;

using nn_test::bits;
using nn_test::keys;
using nn_test::randn;
using Keys = std::vector<std::string>;
using V = std::vector<std::int64_t>;

/// Loads the values Python's `filled(module)` draws, then returns the bits
/// of the module's output on `x`.
V ran(fp::nn::Module& module, const fp::TensorView& x) {
  module.load_state_dict(nn_test::filled(module));
  return bits(module(x));
}

TEST(InstanceNormLayers, StateDictKeysAsPyTorch) {
  using fp::nn::InstanceNorm2d;
  EXPECT_EQ(keys(InstanceNorm2d(3)), truth<Keys>("keys(nn.InstanceNorm2d(3))"));
  EXPECT_EQ(keys(InstanceNorm2d(3, {.affine = true})),
            truth<Keys>("keys(nn.InstanceNorm2d(3, affine=True))"));
  EXPECT_EQ(keys(InstanceNorm2d(3, {.track_running_stats = true})),
            truth<Keys>("keys(nn.InstanceNorm2d(3, track_running_stats=True))"));
  EXPECT_EQ(keys(InstanceNorm2d(3, {.affine = true, .track_running_stats = true, .bias = false})),
            truth<Keys>("keys(without_bias(nn.InstanceNorm2d(3, affine=True, "
                        "track_running_stats=True)))"));
  EXPECT_EQ(keys(fp::nn::BatchNorm3d(4, {.bias = false})),
            truth<Keys>("keys(without_bias(nn.BatchNorm3d(4)))"));
  EXPECT_EQ(keys(fp::nn::RMSNorm({2, 3})), truth<Keys>("keys(nn.RMSNorm([2, 3]))"));
  EXPECT_EQ(keys(fp::nn::RMSNorm(3, {.elementwise_affine = false})),
            truth<Keys>("keys(nn.RMSNorm(3, elementwise_affine=False))"));
  EXPECT_EQ(keys(fp::nn::LocalResponseNorm(3)), truth<Keys>("keys(nn.LocalResponseNorm(3))"));
  EXPECT_EQ(keys(fp::nn::CrossMapLRN2d(3)), truth<Keys>("keys(nn.CrossMapLRN2d(3))"));
}

TEST(InstanceNormLayers, EvalModeAsPyTorch) {
  /*
  #|PYTHON
  plain = nn.InstanceNorm1d(3).eval()
  affine = filled(nn.InstanceNorm2d(3, affine=True, eps=1e-3))
  tracked = filled(nn.InstanceNorm3d(3, affine=True, track_running_stats=True))
  tracked_only = filled(nn.InstanceNorm2d(3, track_running_stats=True, momentum=None))
  x1 = torch.randn(2, 3, 5, generator=g(1))
  x2 = torch.randn(2, 3, 4, 5, generator=g(2)) * 2
  x3 = torch.randn(2, 3, 2, 3, 2, generator=g(3))
  */
  const fp::Tensor x1 = randn({2, 3, 5}, 1), x2 = randn({2, 3, 4, 5}, 2) * fp::tensor(2.f);
  const fp::Tensor x3 = randn({2, 3, 2, 3, 2}, 3);
  fp::nn::InstanceNorm1d plain(3);
  EXPECT_EQ(ran(plain, x1), truth<V>("ran(plain, x1)"));
  EXPECT_EQ(ran(plain, x1.i(0)), truth<V>("ran(plain, x1[0])"));  // unbatched [C, L]
  EXPECT_EQ(ran(plain, fp::aten::transpose_int(x1, 0, 2).contiguous().i(fp::all, fp::all, 0)),
            truth<V>("ran(plain, x1.transpose(0, 2).contiguous()[:, :, 0])"));
  fp::nn::InstanceNorm2d affine(3, {.eps = 1e-3, .affine = true});
  EXPECT_EQ(ran(affine, x2), truth<V>("ran(affine, x2)"));
  EXPECT_EQ(ran(affine, x2.i(1)), truth<V>("ran(affine, x2[1])"));
  EXPECT_EQ(ran(affine, fp::aten::transpose_int(x2, 2, 3)),
            truth<V>("ran(affine, x2.transpose(2, 3))"));
  // Tracked statistics: eval mode normalises with the running ones.
  fp::nn::InstanceNorm3d tracked(3, {.affine = true, .track_running_stats = true});
  EXPECT_EQ(ran(tracked, x3), truth<V>("ran(tracked, x3)"));
  EXPECT_EQ(ran(tracked, x3.i(0)), truth<V>("ran(tracked, x3[0])"));
  fp::nn::InstanceNorm2d tracked_only(3, {.momentum = std::nullopt, .track_running_stats = true});
  EXPECT_EQ(ran(tracked_only, x2), truth<V>("ran(tracked_only, x2)"));
}

TEST(InstanceNormLayers, BadInput) {
  /*
  #|PYTHON
  wrong = message(lambda: nn.InstanceNorm2d(3, affine=True)(torch.zeros(2, 4, 3, 3)))
  rank = message(lambda: nn.InstanceNorm2d(3)(torch.zeros(2, 3)))
  */
  const fp::nn::InstanceNorm2d affine(3, {.affine = true});
  const fp::Tensor four_channels = fp::zeros({2, 4, 3, 3}), flat = fp::zeros({2, 3});
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::nn::InstanceNorm2d: " + truth<std::string>("wrong"),
                        affine(four_channels));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::nn::InstanceNorm2d: " + truth<std::string>("rank"), affine(flat));
  // Without affine parameters PyTorch only warns about the channel count.
  const fp::Tensor x = randn({2, 4, 3, 3}, 4);
  EXPECT_EQ(fp::nn::InstanceNorm2d(3)(x).sizes()[1], 4);
}

TEST(BatchNorm3dLayer, EvalModeAsPyTorch) {
  /*
  #|PYTHON
  m = filled(nn.BatchNorm3d(3))
  x = torch.randn(2, 3, 2, 3, 2, generator=g(5))
  rank = message(lambda: m(torch.zeros(2, 3, 4, 4)))
  */
  fp::nn::BatchNorm3d m(3);
  EXPECT_EQ(keys(m), truth<Keys>("keys(m)"));
  const fp::Tensor x = randn({2, 3, 2, 3, 2}, 5);
  EXPECT_EQ(ran(m, x), truth<V>("ran(m, x)"));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::nn::BatchNorm3d: " + truth<std::string>("rank"),
                        m(fp::zeros({2, 3, 4, 4})));
}

TEST(RMSNormLayer, AsPyTorch) {
  /*
  #|PYTHON
  last = filled(nn.RMSNorm(5))
  two = filled(nn.RMSNorm([4, 5], eps=0.1))
  plain = nn.RMSNorm(5, elementwise_affine=False)
  x = torch.randn(3, 4, 5, generator=g(6)) * 2
  */
  fp::nn::RMSNorm last(5), two({4, 5}, {.eps = 0.1}), plain(5, {.elementwise_affine = false});
  const fp::Tensor x = randn({3, 4, 5}, 6) * fp::tensor(2.f);
  EXPECT_EQ(ran(last, x), truth<V>("ran(last, x)"));
  EXPECT_EQ(ran(two, x), truth<V>("ran(two, x)"));
  EXPECT_EQ(bits(plain(x)), truth<V>("ran(plain, x)"));
  const fp::nn::RMSNorm doubles(3, {.dtype = fp::DType::F64});
  EXPECT_EQ(doubles.weight.dtype(), fp::DType::F64);
}

TEST(LocalResponseNormLayers, AsPyTorch) {
  /*
  #|PYTHON
  x = torch.randn(2, 7, 3, 4, generator=g(7)) * 3
  def cross(size, *args):
      return ran(nn.CrossMapLRN2d(size, *args), x)
  */
  const fp::Tensor x = randn({2, 7, 3, 4}, 7) * fp::tensor(3.f);
  EXPECT_EQ(bits(fp::nn::LocalResponseNorm(3)(x)), truth<V>("ran(nn.LocalResponseNorm(3), x)"));
  EXPECT_EQ(bits(fp::nn::LocalResponseNorm(2, {.alpha = 0.1, .beta = 0.5, .k = 2.0})(x)),
            truth<V>("ran(nn.LocalResponseNorm(2, 0.1, 0.5, 2.), x)"));
  // CrossMapLRN2d's running window, for odd and even sizes, and wider than
  // the channels.
  EXPECT_EQ(bits(fp::nn::CrossMapLRN2d(3)(x)), truth<V>("cross(3)"));
  EXPECT_EQ(bits(fp::nn::CrossMapLRN2d(4, {.alpha = 0.01, .beta = 0.5, .k = 2.0})(x)),
            truth<V>("cross(4, 0.01, 0.5, 2.)"));
  EXPECT_EQ(bits(fp::nn::CrossMapLRN2d(1)(x)), truth<V>("cross(1)"));
  EXPECT_EQ(bits(fp::nn::CrossMapLRN2d(9, {.beta = 1.0})(x)), truth<V>("cross(9, 1e-4, 1.)"));
  const fp::Tensor doubles = x.to(fp::DType::F64);
  EXPECT_EQ(bits(fp::nn::CrossMapLRN2d(5)(doubles)),
            truth<V>("ran(nn.CrossMapLRN2d(5), x.double())"));
  EXPECT_EQ(bits(fp::nn::CrossMapLRN2d(3)(fp::aten::transpose_int(x, 2, 3))),
            truth<V>("ran(nn.CrossMapLRN2d(3), x.transpose(2, 3))"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::CrossMapLRN2d: Expected input to be 4D, got 3D instead.",
                  fp::nn::CrossMapLRN2d(3)(x.i(0)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::nn::CrossMapLRN2d: size must be positive, got 0",
                  fp::nn::CrossMapLRN2d(0));
}

}  // namespace normalization_layers_test
