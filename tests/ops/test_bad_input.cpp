// One bad input for every tensor method and free function: each throws
// fp::Error naming the operation (with libtorch's own explanation), never
// crashes. Messages worded exactly like PyTorch's are checked against Python
// in test_arithmetic.cpp, test_methods.cpp and test_indexing.cpp.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include "support/expect_error.h"
#include "support/string_leak.h"

namespace {

using fp::Tensor;

Tensor matrix() {
  return fp::ones({2, 3});
}
Tensor other_shape() {
  return fp::ones({4});
}

TEST(BadInput, UnknownRoundingModeIsTorchsError) {
  // The string reaches libtorch, which names what it takes.
  FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS();
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::div", matrix().div(2, "round"));
}

TEST(BadInput, ReadOnlyMethods) {
  const Tensor m = matrix();
  const Tensor wrong = other_shape();
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::_to_copy", m.to(fp::DType::F4_E2M1FN_X2));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::reshape", m.reshape({7}));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::flatten", m.flatten(5));
  EXPECT_TORCH_ERROR("add: The size of tensor a", m.add(wrong));
  EXPECT_TORCH_ERROR("sub: The size of tensor a", m.sub(wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::mul", m.mul(wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::div", m.div(wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::remainder", m.remainder(wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::fmod", m.fmod(wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::pow", m.pow(wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::neg",
                  fp::tensor(std::vector<bool>{true}).neg());
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::sqrt",
                  fp::ones({2}, fp::DType::F8_E4M3FN).sqrt());
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::round", m.round(2).to(fp::DType::I32).round(1));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::eq", m.eq(wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::lt", m.lt(wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::allclose", m.allclose(wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::sum", m.sum({5}));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::mean", fp::ones({2}, fp::DType::I64).mean());
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::prod", m.prod(5));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::min", m.min(5));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::max", fp::zeros({0}).max());
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::amax", m.amax({5}));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::argmax", m.argmax(5));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::std", m.std(std::vector<int64_t>{5}));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::var", m.var(std::vector<int64_t>{5}));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::topk", m.topk(10));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::sort", m.sort(5));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::cumsum", m.cumsum(5));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::where", m.where(wrong > 0, 0.0));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::masked_fill", m.masked_fill(wrong > 0, 1));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::clamp",
                  m.clamp(std::optional<fp::TensorArg>(wrong), std::nullopt));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::matmul", m.matmul(m));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::mm", m.mm(wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::bmm", m.bmm(m));
  if (!fp::cuda_is_available())
    EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::_to_copy", m.cuda());
}

TEST(BadInput, ViewMethods) {
  const Tensor m = matrix();
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::view", m.view({7}));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::permute", m.permute({0}));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::transpose", m.transpose(0, 5));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::squeeze", m.squeeze(5));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::unsqueeze", m.unsqueeze(9));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::narrow", m.narrow(0, 0, 9));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::select", m.select(0, 9));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::expand", m.expand({1}));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::chunk", m.chunk(0));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::split", m.split(-1));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::split_with_sizes", m.split({1, 1}, 1));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::unbind", m.unbind(5));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "index: too many indices", m.i(0, 0, 0));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "index: index 9 is out of bounds", m.index(9));
}

TEST(BadInput, InPlaceMethods) {
  Tensor m = matrix();
  const Tensor wrong = other_shape();
  EXPECT_TORCH_ERROR("add: The size of tensor a", m.add_(wrong));
  EXPECT_TORCH_ERROR("sub: The size of tensor a", m.sub_(wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::mul_", m.mul_(wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::div_", m.div_(wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::remainder_", m.remainder_(wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::pow_", m.pow_(wrong));
  Tensor flags = fp::tensor(std::vector<bool>{true, false});
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::neg_", flags.neg_());
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::abs_", flags.abs_());
  Tensor integers = fp::tensor({int64_t{4}});
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::sqrt_", integers.sqrt_());
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::exp_", integers.exp_());
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::log_", integers.log_());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "clamp_: At least one of 'min' or 'max' must not be None",
                  m.clamp_(std::nullopt, std::nullopt));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::fill_", m.fill_(fp::TensorArg(wrong)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "aten::zero_", Tensor().zero_());
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::copy_", m.copy_(wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::masked_fill_", m.masked_fill_(wrong > 0, 1));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::index_put_",
                  m.index_put_({fp::tensor({int64_t{5}})}, 1.0));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "index: too many indices", m.i_mut(0, 0, 0));
  EXPECT_TORCH_ERROR("add: The size of tensor a", m += wrong);
}

TEST(BadInput, FreeFunctionsAndOperators) {
  const Tensor m = matrix();
  const Tensor wrong = other_shape();
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::cat", fp::cat({m, wrong}));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::stack", fp::stack({m, wrong}));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::hstack", fp::hstack({m, wrong}));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::vstack", fp::vstack({m, wrong}));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::where", fp::where(wrong > 0, m, 0.0));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::where", fp::where(wrong > 0, 1, m));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::where", fp::where(wrong > 0, m, m));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "clamp: At least one of 'min' or 'max' must not be None",
                  fp::clamp(m, std::nullopt, std::nullopt));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::matmul", fp::matmul(m, m));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::mul", m * wrong);
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::div", m / wrong);
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::remainder", m % wrong);
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::neg", -fp::tensor(std::vector<bool>{true}));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::eq", (void)(m == wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::ne", (void)(m != wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::lt", (void)(m < wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::le", (void)(m <= wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::gt", (void)(m > wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::ge", (void)(m >= wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::Scalar: 18446744073709551615 does not fit int64",
                  m + ~uint64_t{0});
}

}  // namespace
