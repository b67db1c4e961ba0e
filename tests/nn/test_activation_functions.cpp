// The activations with an ATen op of their own (hardsigmoid, mish, selu,
// logsigmoid, prelu, glu, softmin) and Python's compositions (softsign,
// tanhshrink) against torch.nn.functional, bit for bit in every floating
// dtype; and every activation module against torch.nn.
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
import torch.nn.functional as F
from activation_bits import bits, per_dtype, inputs, strided
from truth_helpers import g, values, filled, run, message
*/

// A named namespace: the unity build compiles this file with others.
namespace activation_functions_test {

using fp_test::truth;

namespace F = fp::functional;
using nn_test::Bits;
using nn_test::input;
using nn_test::keys;
using nn_test::per_dtype;
using nn_test::randn;
using nn_test::strided;
using nn_test::values;

TEST(ActivationFunctions, AtenOpsAndPythonCompositionsAreBitExact) {
  /*
  #|PYTHON
  x = inputs(11)
  */
  const fp::Tensor x = input(truth<std::vector<double>>("values(x)"));
  const auto same = [&](auto f, const char* name, const Bits& contiguous, const Bits& other) {
    SCOPED_TRACE(name);
    EXPECT_BITS(per_dtype(x, f), contiguous);
    EXPECT_BITS(per_dtype(strided(x), f), other);
  };
  same([](const fp::Tensor& t) { return F::hardsigmoid(t); }, "hardsigmoid",
       truth<Bits>("per_dtype(x, F.hardsigmoid)"),
       truth<Bits>("per_dtype(strided(x), F.hardsigmoid)"));
  same([](const fp::Tensor& t) { return F::mish(t); }, "mish", truth<Bits>("per_dtype(x, F.mish)"),
       truth<Bits>("per_dtype(strided(x), F.mish)"));
  same([](const fp::Tensor& t) { return F::selu(t); }, "selu", truth<Bits>("per_dtype(x, F.selu)"),
       truth<Bits>("per_dtype(strided(x), F.selu)"));
  same([](const fp::Tensor& t) { return F::logsigmoid(t); }, "logsigmoid",
       truth<Bits>("per_dtype(x, F.logsigmoid)"),
       truth<Bits>("per_dtype(strided(x), F.logsigmoid)"));
  same([](const fp::Tensor& t) { return F::softsign(t); }, "softsign",
       truth<Bits>("per_dtype(x, F.softsign)"), truth<Bits>("per_dtype(strided(x), F.softsign)"));
  same([](const fp::Tensor& t) { return F::tanhshrink(t); }, "tanhshrink",
       truth<Bits>("per_dtype(x, F.tanhshrink)"),
       truth<Bits>("per_dtype(strided(x), F.tanhshrink)"));
}

TEST(ActivationFunctions, SoftsignAndTanhshrinkOfIntegersAreFloat) {
  /*
  #|PYTHON
  i = torch.tensor([-3, -1, 0, 1, 2, 5], dtype=torch.int32)
  */
  const fp::Tensor i = fp::tensor({-3, -1, 0, 1, 2, 5});
  const fp::Tensor sign = F::softsign(i);
  EXPECT_EQ(sign.dtype(), fp::DType::F32);  // #PYTHON F.softsign(i).dtype
  EXPECT_EQ(values(sign), truth<std::vector<float>>("values(F.softsign(i))"));
  EXPECT_EQ(values(F::tanhshrink(i)), truth<std::vector<float>>("values(F.tanhshrink(i))"));
  EXPECT_TORCH_ERROR("\"hardsigmoid_cpu\" not implemented for 'Int'", F::hardsigmoid(i));
  EXPECT_TORCH_ERROR("\"mish_cpu\" not implemented for 'Int'", F::mish(i));
  EXPECT_TORCH_ERROR("not implemented for 'Int'", F::logsigmoid(i));
  EXPECT_TORCH_ERROR("not implemented for 'Int'", F::selu(i));
}

TEST(ActivationFunctions, Prelu) {
  /*
  #|PYTHON
  x = torch.randn(2, 3, 4, generator=g(12))
  w1 = torch.tensor([0.25])
  w3 = torch.randn(3, generator=g(13))
  def prelu(t, w):
      return F.prelu(t, w.to(t.dtype))
  */
  const fp::Tensor x = randn({2, 3, 4}, 12), w3 = randn({3}, 13);
  const fp::Tensor w1 = fp::tensor({0.25f});
  const auto with = [](const fp::Tensor& w) {
    return [&w](const fp::Tensor& t) { return F::prelu(t, w.to(t.dtype())); };
  };
  EXPECT_BITS(per_dtype(x, with(w1)), truth<Bits>("per_dtype(x, lambda t: prelu(t, w1))"));
  EXPECT_BITS(per_dtype(x, with(w3)), truth<Bits>("per_dtype(x, lambda t: prelu(t, w3))"));
  const fp::TensorView transposed = fp::aten::transpose_int(x, 0, 2);  // [4, 3, 2]
  EXPECT_BITS(per_dtype(transposed, with(w3)),
              truth<Bits>("per_dtype(x.transpose(0, 2), lambda t: prelu(t, w3))"));
  // A 1-D input is one channel; a 0-dim one too.
  const fp::TensorView row = x.i(0, 0);  // [4]
  EXPECT_EQ(values(F::prelu(row, w1)), truth<std::vector<float>>("values(F.prelu(x[0, 0], w1))"));
  const fp::TensorView single = x.i(0, 0, 1);
  EXPECT_EQ(values(F::prelu(single, w1)),
            truth<std::vector<float>>("values(F.prelu(x[0, 0, 1], w1))"));
  EXPECT_TORCH_ERROR_EXACT("aten::prelu",
                           truth<std::string>("message(lambda: F.prelu(x[0, 0], torch.ones(4)))"),
                           F::prelu(row, fp::ones({4})));
  EXPECT_TORCH_ERROR_EXACT("aten::prelu",
                           truth<std::string>("message(lambda: F.prelu(x, torch.ones(2)))"),
                           F::prelu(x, fp::ones({2})));
  EXPECT_TORCH_ERROR_EXACT("aten::prelu",
                           truth<std::string>("message(lambda: F.prelu(x, torch.ones(1, 3)))"),
                           F::prelu(x, fp::ones({1, 3})));
  EXPECT_TORCH_ERROR("Type promoting not supported", F::prelu(x, w1.to(fp::DType::F64)));
}

TEST(ActivationFunctions, Glu) {
  /*
  #|PYTHON
  x = torch.randn(4, 6, 2, generator=g(15))
  */
  const fp::Tensor x = randn({4, 6, 2}, 15);
  const auto along = [](std::int64_t dim) {
    return [=](const fp::Tensor& t) { return F::glu(t, {.dim = dim}); };
  };
  EXPECT_BITS(per_dtype(x, along(-1)), truth<Bits>("per_dtype(x, F.glu)"));
  EXPECT_BITS(per_dtype(x, along(0)), truth<Bits>("per_dtype(x, lambda t: F.glu(t, 0))"));
  EXPECT_BITS(per_dtype(fp::aten::transpose_int(x, 0, 1), along(1)),
              truth<Bits>("per_dtype(x.transpose(0, 1), lambda t: F.glu(t, 1))"));
  const fp::Tensor odd = randn({3}, 16);
  EXPECT_TORCH_ERROR("Halving dimension must be even, but dimension 0 is size 3", F::glu(odd));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::glu: glu does not support scalars because halving size must "
                  "be even",
                  F::glu(fp::tensor(1.f)));
}

TEST(ActivationFunctions, Softmin) {
  /*
  #|PYTHON
  x = torch.randn(2, 5, 3, generator=g(17)) * 3
  */
  const fp::Tensor x = randn({2, 5, 3}, 17) * fp::tensor(3.f);
  const auto along = [](std::int64_t dim) {
    return [=](const fp::Tensor& t) { return F::softmin(t, dim); };
  };
  EXPECT_BITS(per_dtype(x, along(-1)), truth<Bits>("per_dtype(x, lambda t: F.softmin(t, -1))"));
  EXPECT_BITS(per_dtype(x, along(1)), truth<Bits>("per_dtype(x, lambda t: F.softmin(t, 1))"));
  EXPECT_BITS(per_dtype(fp::aten::transpose_int(x, 0, 2), along(0)),
              truth<Bits>("per_dtype(x.transpose(0, 2), lambda t: F.softmin(t, 0))"));
  const fp::Tensor wide = F::softmin(x, 0, {.dtype = fp::DType::F64});
  EXPECT_EQ(wide.dtype(), fp::DType::F64);  // #PYTHON F.softmin(x, 0, dtype=torch.float64).dtype
  EXPECT_EQ(wide.to_vector<double>(),
            truth<std::vector<double>>("values(F.softmin(x, 0, dtype=torch.float64))"));
  EXPECT_TORCH_ERROR("Dimension out of range", F::softmin(x, 3));
}

TEST(ActivationLayers, EachAppliesItsFunction) {
  /*
  #|PYTHON
  x = torch.randn(2, 4, 3, generator=g(18)) * 3
  */
  const fp::Tensor x = randn({2, 4, 3}, 18) * fp::tensor(3.f);
  const auto same = [&](const fp::nn::Module& module, const std::vector<float>& expected) {
    SCOPED_TRACE(module.type_name());
    EXPECT_EQ(values(module(x)), expected);
  };
  same(fp::nn::Hardsigmoid(), truth<std::vector<float>>("run(nn.Hardsigmoid(), x)"));
  same(fp::nn::Mish(), truth<std::vector<float>>("run(nn.Mish(), x)"));
  same(fp::nn::SELU(), truth<std::vector<float>>("run(nn.SELU(), x)"));
  same(fp::nn::LogSigmoid(), truth<std::vector<float>>("run(nn.LogSigmoid(), x)"));
  same(fp::nn::Softsign(), truth<std::vector<float>>("run(nn.Softsign(), x)"));
  same(fp::nn::Tanhshrink(), truth<std::vector<float>>("run(nn.Tanhshrink(), x)"));
  same(fp::nn::Softshrink(0.3), truth<std::vector<float>>("run(nn.Softshrink(0.3), x)"));
  same(fp::nn::Hardshrink(0.3), truth<std::vector<float>>("run(nn.Hardshrink(0.3), x)"));
  same(fp::nn::Hardtanh(-2.0, 2.5), truth<std::vector<float>>("run(nn.Hardtanh(-2., 2.5), x)"));
  same(fp::nn::Threshold(0.1, 20.0), truth<std::vector<float>>("run(nn.Threshold(0.1, 20.), x)"));
  same(fp::nn::RReLU(0.1, 0.3), truth<std::vector<float>>("run(nn.RReLU(0.1, 0.3).eval(), x)"));
  same(fp::nn::RReLU(), truth<std::vector<float>>("run(nn.RReLU().eval(), x)"));
  same(fp::nn::GLU(1), truth<std::vector<float>>("run(nn.GLU(1), x)"));
  same(fp::nn::Softmin(1), truth<std::vector<float>>("run(nn.Softmin(1), x)"));
  // Within 2 ulp of Python's (fp::functional::celu and softplus say why).
  EXPECT_CLOSE(fp::nn::CELU(0.5)(x), 5e-7, truth<std::vector<float>>("run(nn.CELU(0.5), x)"));
  EXPECT_CLOSE(fp::nn::Softplus(2.0, 5.0)(x), 2e-6,
               truth<std::vector<float>>("run(nn.Softplus(2., 5.), x)"));
}

TEST(ActivationLayers, SoftminAndSoftmax2dPickTheirDimensionsAsPyTorch) {
  /*
  #|PYTHON
  import warnings
  warnings.simplefilter("ignore")  # PyTorch warns about the implicit dim
  x3 = torch.randn(3, 2, 2, generator=g(19))
  x4 = torch.randn(2, 3, 2, 2, generator=g(20))
  */
  const fp::Tensor x3 = randn({3, 2, 2}, 19), x4 = randn({2, 3, 2, 2}, 20);
  const fp::nn::Softmin softmin;
  EXPECT_EQ(values(softmin(x3)), truth<std::vector<float>>("run(nn.Softmin(), x3)"));
  EXPECT_EQ(values(softmin(x4)), truth<std::vector<float>>("run(nn.Softmin(), x4)"));
  const fp::nn::Softmax2d softmax2d;
  EXPECT_EQ(values(softmax2d(x3)), truth<std::vector<float>>("run(nn.Softmax2d(), x3)"));
  EXPECT_EQ(values(softmax2d(x4)), truth<std::vector<float>>("run(nn.Softmax2d(), x4)"));
  const fp::Tensor flat = randn({3, 4}, 21);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::Softmax2d: expected input to be 3D or 4D, got 2D instead",
                  softmax2d(flat));
}

TEST(ActivationLayers, PReLU) {
  /*
  #|PYTHON
  one = nn.PReLU()
  per_channel = filled(nn.PReLU(3, init=0.1))
  x = torch.randn(2, 3, 4, generator=g(22))
  */
  const fp::nn::PReLU one;
  EXPECT_EQ(keys(one),
            (std::vector<std::string>{"weight"}));  // #PYTHON list(one.state_dict().keys())
  EXPECT_EQ(values(one.weight), truth<std::vector<float>>("values(one.weight)"));
  fp::nn::PReLU per_channel(3, 0.1);
  EXPECT_EQ(nn_test::shape(per_channel.weight),
            truth<std::vector<std::int64_t>>("list(nn.PReLU(3, init=0.1).weight.shape)"));
  EXPECT_EQ(values(per_channel.weight),
            truth<std::vector<float>>("values(nn.PReLU(3, init=0.1).weight)"));
  const fp::Tensor x = randn({2, 3, 4}, 22);
  per_channel.load_state_dict(nn_test::filled(per_channel));
  EXPECT_EQ(values(per_channel(x)), truth<std::vector<float>>("run(per_channel, x)"));
  const fp::nn::PReLU doubles(2, 0.25, {.dtype = fp::DType::F64});
  EXPECT_EQ(doubles.weight.dtype(), fp::DType::F64);
  const fp::Tensor wrong = randn({2, 5}, 23);
  EXPECT_TORCH_ERROR("Mismatch of parameter numbers and input channel size", per_channel(wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::PReLU: num_parameters must not be negative, got -1", fp::nn::PReLU(-1));
}

TEST(ActivationLayers, HardtanhChecksItsBoundsAsPyTorch) {
  /*
  #|PYTHON
  bad = message(lambda: nn.Hardtanh(1., 1.))
  */
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::Hardtanh: max_val (1.0) must be greater than min_val (1.0)",
                  fp::nn::Hardtanh(1.0, 1.0));
  EXPECT_EQ(std::string("max_val (1.0) must be greater than min_val (1.0)"),
            truth<std::string>("bad"));
}

}  // namespace activation_functions_test
