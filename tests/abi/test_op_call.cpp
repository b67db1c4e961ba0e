// fp::abi::OpCall, the route of every dispatched op: typed arguments boxed as
// they come, results taken one by one, and whatever is still owned freed on
// every path (the valgrind lane runs these too, and fails on a leak).
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include "abi/op_call.h"
#include "abi/testing.h"

#include <array>
#include <vector>

#include "support/expect_error.h"
#include "support/truth.h"

namespace {

using fp::Tensor;
using fp::abi::BoxedValue;
using fp::abi::Lending;
using fp::abi::OpCall;
using fp_test::truth;

const fp::abi::Schema& max_dim() {
  return fp::abi::find_schema("aten::max", "dim");
}

Tensor maxima_input() {
  return fp::tensor({{1.f, 7.f, 3.f}, {9.f, 2.f, 9.f}});
}

TEST(OpCall, BoxesTypedArgumentsAndHandsOutTheResults) {
  /*
  #|PYTHON
  m = torch.tensor([[1., 7., 3.], [9., 2., 9.]])
  values, indices = torch.ops.aten.max.dim(m, 1, True)
  */
  const Tensor m = maxima_input();
  std::array<BoxedValue, 3> stack{};
  std::array<Lending, 3> lendings{};
  OpCall call(max_dim(), stack, lendings);
  call.tensor(m.raw(), {});
  call.integer(1);
  call.boolean(true);
  call.run();
  ASSERT_EQ(static_cast<int64_t>(call.result_count()),
            truth<int64_t>("len(torch.ops.aten.max.dim(m, 1, True))"));
  const Tensor values(call.take_tensor(0));
  const Tensor indices(call.take_tensor(1));
  EXPECT_EQ(values.to_vector<float>(), truth<std::vector<float>>("values.flatten().tolist()"));
  EXPECT_EQ(indices.to_vector<int64_t>(),
            truth<std::vector<int64_t>>("indices.flatten().tolist()"));
  EXPECT_EQ(values.dim(), truth<int64_t>("values.dim()"));
}

TEST(OpCall, FillsOmittedDefaultsAndGrowsPastTheCallersRoom) {
  // Room for one value, while max.dim needs three: the call keeps its own.
  /*
  #|PYTHON
  m = torch.tensor([[1., 7., 3.], [9., 2., 9.]])
  values, indices = torch.ops.aten.max.dim(m, 0)
  */
  const Tensor m = maxima_input();
  std::array<BoxedValue, 1> stack{};
  std::array<Lending, 1> lendings{};
  OpCall call(max_dim(), stack, lendings);
  call.tensor(m.raw(), {});
  call.integer(0);  // keepdim left out: its default, False
  call.run();
  EXPECT_EQ(Tensor(call.take_tensor(1)).to_vector<int64_t>(),
            truth<std::vector<int64_t>>("indices.tolist()"));
  // values is never taken: the call frees it.
}

TEST(OpCall, ResultsOfEveryKindComeOutOfTake) {
  const Tensor m = maxima_input();
  std::array<BoxedValue, 2> stack{};
  std::array<Lending, 2> lendings{};
  OpCall call(fp::abi::find_schema("aten::size", "int"), stack, lendings);
  call.tensor(m.raw(), {});
  call.integer(1);
  call.run();
  const fp::abi::Returned size = call.take(0);
  EXPECT_EQ(std::get<int64_t>(size.value), truth<int64_t>("torch.zeros(2, 3).size(1)"));
}

TEST(OpCallErrors, TakingAResultOfAnotherKindOrBeyondTheLast) {
  const Tensor m = maxima_input();
  std::array<BoxedValue, 2> stack{};
  std::array<Lending, 2> lendings{};
  OpCall size(fp::abi::find_schema("aten::size", "int"), stack, lendings);
  size.tensor(m.raw(), {});
  size.integer(0);
  size.run();
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "aten::size.int: returned int as result 0, expected Tensor; the schema is size.int(Tensor "
      "self, int dim) -> int",
      size.take_tensor(0));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "aten::size.int: returned 1 values, expected 2",
                  size.take(1));
}

TEST(OpCallErrors, ArgumentsThatDoNotFitAreRefusedAsTheyCome) {
  const Tensor m = maxima_input();
  std::array<BoxedValue, 3> stack{};
  std::array<Lending, 3> lendings{};
  OpCall call(max_dim(), stack, lendings);
  call.tensor(m.raw(), {});  // boxed, and freed when the call is abandoned
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "aten::max.dim: argument 1 'dim' expects int, got Tensor; the schema is max.dim(Tensor "
      "self, int dim, bool keepdim=False)",
      call.tensor(m.raw(), {}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "aten::max.dim: argument 1 'dim' expects int, got float", call.real(1.5));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "aten::max.dim: argument 1 'dim' expects int, got None", call.none());
  call.integer(1);
  call.boolean(false);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "aten::max.dim: takes at most 3 arguments, got more",
                  call.integer(2));
}

TEST(OpCallErrors, MissingArgumentsAreRefusedAtRun) {
  const Tensor m = maxima_input();
  std::array<BoxedValue, 3> stack{};
  std::array<Lending, 3> lendings{};
  OpCall call(max_dim(), stack, lendings);
  call.tensor(m.raw(), {});
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "aten::max.dim: missing argument 1 'dim' (int); 2 arguments have no default, got 1",
      call.run());
}

TEST(OpCallErrors, AnOpTheLoadedTorchLacksIsRefusedBeforeLibtorchSeesIt) {
  // aten::_upsample_lanczos2d_aa arrived in torch 2.12: pretending 2.11 is
  // loaded, the call is refused with its arguments boxed, which it frees.
  const auto& lanczos = fp::abi::find_schema("aten::_upsample_lanczos2d_aa", "");
  if (lanczos.availability.since.minor < 12) GTEST_SKIP() << "not a 2.12 op in these schemas";
  fp::abi::testing::pretend_loaded_torch(fp::TorchVersion{2, 11, 0});
  const Tensor image = fp::zeros({1, 1, 4, 4});
  std::array<BoxedValue, 5> stack{};
  std::array<Lending, 5> lendings{};
  OpCall call(lanczos, stack, lendings);
  call.tensor(image.raw(), {});
  call.value(fp::abi::Arg{std::vector<int64_t>{2, 2}});
  call.boolean(false);
  EXPECT_FP_ERROR(fp::ErrorCode::UnsupportedByTorch,
                  "aten::_upsample_lanczos2d_aa needs torch 2.12 or later; this process loaded "
                  "torch 2.11.0",
                  call.run());
  fp::abi::testing::pretend_loaded_torch(std::nullopt);
}

TEST(OpCallErrors, AWriteNeedsATensorLentForWriting) {
  Tensor target = fp::zeros({2, 3});
  std::array<BoxedValue, 2> stack{};
  std::array<Lending, 2> lendings{};
  OpCall call(fp::abi::find_schema("aten::fill_", "Tensor"), stack, lendings);
  ASSERT_TRUE(call.checks_lendings());
  call.tensor(target.raw(), {});  // not lent for writing
  call.tensor(maxima_input().raw(), {});
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "aten::fill_.Tensor: argument 0 'self' is written to (Tensor(a!)); pass a non-const "
      "fp::Tensor or an fp::TensorMutView",
      call.run());
}

}  // namespace
