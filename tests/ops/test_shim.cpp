// fp::aten::shim (aten/shim.h): the ATen overloads with a Scalar argument,
// through their backends' C shims, the numbers as Python floats: against
// torch.ops.aten, bit for bit, and refused for tensors on other devices.
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/aten/shim.h>
#include <flash_powder/flash_powder.h>

#include <string>
#include <vector>

#include "support/expect_error.h"
#include "support/truth.h"

namespace {

using fp::Tensor;
using fp_test::truth;

/// (arange(12) - 5) / 4 as float32 [3, 4], as `m` in the Python blocks.
Tensor matrix() {
  return fp::aten::_to_copy((fp::arange(12) - 5).reshape({3, 4}), fp::DType::F32) / 4.0;
}

std::vector<float> values(const Tensor& t) {
  return t.to_vector<float>();
}

TEST(ShimOps, MatchPyTorch) {
  /*
  #|PYTHON
  from truth_helpers import values
  m = ((torch.arange(12) - 5).reshape(3, 4).float()) / 4
  i = torch.arange(6).reshape(2, 3)
  v = torch.arange(4).float() / 8
  A = torch.ops.aten
  */
  const Tensor m = matrix();
  const Tensor i = fp::arange(6).reshape({2, 3});
  const Tensor v = fp::aten::_to_copy(fp::arange(4), fp::DType::F32) / 8.0;
  const Tensor mt = Tensor(m.transpose(0, 1).to_owned());
  EXPECT_EQ(values(fp::aten::shim::add_Tensor(m, m, 0.3)),
            truth<std::vector<float>>("values(A.add.Tensor(m, m, alpha=0.3))"));
  EXPECT_EQ(values(fp::aten::shim::add_Tensor(m, m)), truth<std::vector<float>>("values(m + m)"));
  EXPECT_EQ(values(fp::aten::shim::add_Scalar(m, 0.1, 3.0)),
            truth<std::vector<float>>("values(A.add.Scalar(m, 0.1, 3.0))"));
  EXPECT_EQ(values(fp::aten::shim::mul_Scalar(m, 0.1)),
            truth<std::vector<float>>("values(A.mul.Scalar(m, 0.1))"));
  // A number is a Python float: an integer tensor gives a float result.
  const Tensor scaled = fp::aten::shim::mul_Scalar(i, 2.0);
  EXPECT_EQ(scaled.dtype(), truth<fp::DType>("A.mul.Scalar(i, 2.0).dtype"));
  EXPECT_EQ(values(scaled), truth<std::vector<float>>("values(A.mul.Scalar(i, 2.0))"));
  EXPECT_EQ(values(fp::aten::shim::pow_Tensor_Scalar(fp::aten::abs(m), 2.5)),
            truth<std::vector<float>>("values(A.pow.Tensor_Scalar(m.abs(), 2.5))"));
  EXPECT_EQ(values(fp::aten::shim::pow_Tensor_Scalar(m, 3.0)),
            truth<std::vector<float>>("values(A.pow.Tensor_Scalar(m, 3.0))"));
  EXPECT_EQ(values(fp::aten::shim::pow_Scalar(1.5, m)),
            truth<std::vector<float>>("values(A.pow.Scalar(1.5, m))"));
  EXPECT_EQ(values(fp::aten::shim::addmv(fp::aten::select_int(m, 1, 0), m, v, 0.5, 2.0)),
            truth<std::vector<float>>("values(A.addmv(m[:, 0], m, v, beta=0.5, alpha=2))"));
  const Tensor batch = m.reshape({1, 3, 4});
  const Tensor batch_t = mt.reshape({1, 4, 3});
  EXPECT_EQ(values(fp::aten::shim::addbmm(fp::ones({3, 3}), batch, batch_t, 0.25, 1.5)),
            truth<std::vector<float>>("values(A.addbmm(torch.ones(3, 3), m.reshape(1, 3, 4), "
                                      "m.t().reshape(1, 4, 3), beta=0.25, alpha=1.5))"));
  EXPECT_EQ(values(fp::aten::shim::_addmm_activation(fp::ones({3}), m, mt, 1.0, 1.0, true)),
            truth<std::vector<float>>(
                "values(A._addmm_activation(torch.ones(3), m, m.t(), use_gelu=True))"));
  EXPECT_EQ(values(fp::aten::shim::histc(m, 5, -1.0, 1.0)),
            truth<std::vector<float>>("values(A.histc(m, 5, -1.0, 1.0))"));

  Tensor filled = fp::zeros({2, 2});
  fp::aten::shim::fill_Scalar_(filled, 0.7);
  EXPECT_EQ(values(filled), truth<std::vector<float>>("values(torch.zeros(2, 2).fill_(0.7))"));
  Tensor out = fp::zeros({3, 3});
  fp::aten::shim::addmm_out(fp::ones({3}), m, mt, 0.5, 2.0, out);
  EXPECT_EQ(values(out),
            truth<std::vector<float>>("values(A.addmm(torch.ones(3), m, m.t(), beta=0.5, "
                                      "alpha=2))"));
  Tensor batched = fp::zeros({1, 3, 3});
  fp::aten::shim::baddbmm_out(fp::ones({1, 3, 3}), batch, batch_t, 2.0, 0.5, batched);
  EXPECT_EQ(values(batched),
            truth<std::vector<float>>("values(A.baddbmm(torch.ones(1, 3, 3), m.reshape(1, 3, "
                                      "4), m.t().reshape(1, 4, 3), beta=2, alpha=0.5))"));
  Tensor scattered = fp::zeros({3, 4});
  fp::aten::shim::scatter_value_out(m, 1, fp::zeros({3, 1}, fp::DType::I64), 9.5, scattered);
  EXPECT_EQ(values(scattered),
            truth<std::vector<float>>(
                "values(A.scatter.value(m, 1, torch.zeros(3, 1, dtype=torch.long), 9.5))"));
}

TEST(ShimOps, OtherDevicesAreRefused) {
  const Tensor meta = fp::aten::_to_copy(matrix(), std::nullopt, std::nullopt, fp::Device::meta());
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::Unsupported,
      "aten::mul.Scalar: flash_powder calls it on strided CPU or CUDA tensors only (its Scalar "
      "argument crosses libtorch's stable ABI only to a backend's kernel); got a tensor on meta "
      "with layout strided",
      (void)fp::aten::shim::mul_Scalar(meta, 2.0));
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported,
                  "aten::add.Tensor: flash_powder calls it on strided CPU or CUDA tensors only",
                  (void)fp::aten::shim::add_Tensor(matrix(), meta));
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported, "got an undefined tensor",
                  (void)fp::aten::shim::add_Scalar(Tensor(), 1.0));
  Tensor out = fp::zeros({3, 3});
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported,
                  "aten::addmm.out: flash_powder calls it on strided CPU or CUDA tensors only",
                  fp::aten::shim::addmm_out(meta, meta, meta, 1.0, 1.0, out));
}

TEST(ShimOps, BadInputGivesPyTorchsMessage) {
  /*
  #|PYTHON
  from truth_helpers import message
  m = ((torch.arange(12) - 5).reshape(3, 4).float()) / 4
  A = torch.ops.aten
  */
  const Tensor m = matrix();
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::TorchError,
      fp_test::torch_error_exact("aten::add.Tensor",
                                 truth<std::string>("message(lambda: A.add.Tensor(m, m.t()))")),
      (void)fp::aten::shim::add_Tensor(m, Tensor(m.transpose(0, 1).to_owned())));
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::TorchError,
      fp_test::torch_error_exact(
          "aten::addmv", truth<std::string>("message(lambda: A.addmv(m[:, 0], m, m[:, 0]))")),
      (void)fp::aten::shim::addmv(fp::aten::select_int(m, 1, 0), m, fp::aten::select_int(m, 1, 0)));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::TorchError,
                        fp_test::torch_error_exact(
                            "aten::histc", truth<std::string>("message(lambda: A.histc(m, -1))")),
                        (void)fp::aten::shim::histc(m, -1));
}

TEST(ShimOps, WritesKeepTheBorrowRules) {
  Tensor t = fp::zeros({2, 2});
  {
    const fp::TensorView row = t.i(0);
#if FP_BORROW_CHECK
    EXPECT_FP_ERROR(fp::ErrorCode::Borrow,
                    "fp::BorrowError: cannot call aten::fill_.Scalar on a Tensor",
                    fp::aten::shim::fill_Scalar_(t, 1.0));
    Tensor out = fp::zeros({2, 2});
    EXPECT_NO_THROW(fp::aten::shim::addmm_out(row, t, t, 1.0, 1.0, out));
#endif
  }
  fp::aten::shim::fill_Scalar_(t, 1.0);
  EXPECT_EQ(values(t), (std::vector<float>{1, 1, 1, 1}));
}

}  // namespace
