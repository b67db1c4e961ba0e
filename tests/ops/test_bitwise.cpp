// Bitwise operators on bool and integer tensors: every dtype pair, numbers on
// either side, shifts, in-place forms and libtorch's refusals, as in Python.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "support/expect_error.h"
#include "support/truth.h"

namespace {

using fp_test::truth;

using fp::DType;
using fp::Tensor;

const std::vector<DType> kIntegerDTypes = {DType::Bool, DType::U8,  DType::I8,
                                           DType::I16,  DType::I32, DType::I64};
// Shifts are not defined for bool in PyTorch.
const std::vector<DType> kShiftDTypes = {DType::U8, DType::I8, DType::I16, DType::I32, DType::I64};

Tensor bits_left(DType dtype) {
  return fp::tensor({0.0, 1.0, 5.0, 6.0}, dtype);
}
Tensor bits_right(DType dtype) {
  return fp::tensor({3.0, 1.0, 2.0, 0.0}, dtype);
}

/*
#|PYTHON_GLOBAL
import operator
INTEGER_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
SHIFT_DTYPES = INTEGER_DTYPES[1:]
def left(d): return torch.tensor([0.0, 1.0, 5.0, 6.0]).to(d)
def right(d): return torch.tensor([3.0, 1.0, 2.0, 0.0]).to(d)
def table(op, dtypes):
    return [op(left(a), right(b)) for a in dtypes for b in dtypes]
def dtypes_of(results): return [r.dtype for r in results]
def values_of(results): return [r.long().tolist() for r in results]
*/

struct Expected {
  std::vector<DType> dtypes;
  std::vector<std::vector<std::int64_t>> values;
};

using Values = std::vector<std::vector<std::int64_t>>;

void check_table(const std::function<Tensor(const Tensor&, const Tensor&)>& op,
                 const std::vector<DType>& dtypes, const Expected& want, const char* name) {
  std::size_t k = 0;
  for (DType a : dtypes) {
    for (DType b : dtypes) {
      const Tensor result = op(bits_left(a), bits_right(b));
      const std::string what =
          std::string(name) + " " + std::string(fp::name(a)) + " " + std::string(fp::name(b));
      ASSERT_LT(k, want.dtypes.size()) << what;
      EXPECT_EQ(result.dtype(), want.dtypes[k]) << what;
      EXPECT_EQ(result.to_vector<std::int64_t>(), want.values[k]) << what;
      ++k;
    }
  }
  EXPECT_EQ(k, want.dtypes.size());
}

TEST(Bitwise, AndOrXorEveryDTypePair) {
  /*
  #|PYTHON
  ands = table(operator.and_, INTEGER_DTYPES)
  ors = table(operator.or_, INTEGER_DTYPES)
  xors = table(operator.xor, INTEGER_DTYPES)
  */
  check_table(std::bit_and<>(), kIntegerDTypes,
              {truth<std::vector<DType>>("dtypes_of(ands)"), truth<Values>("values_of(ands)")},
              "&");
  check_table(std::bit_or<>(), kIntegerDTypes,
              {truth<std::vector<DType>>("dtypes_of(ors)"), truth<Values>("values_of(ors)")}, "|");
  check_table(std::bit_xor<>(), kIntegerDTypes,
              {truth<std::vector<DType>>("dtypes_of(xors)"), truth<Values>("values_of(xors)")},
              "^");
}

TEST(Bitwise, ShiftsEveryDTypePair) {
  /*
  #|PYTHON
  lefts = table(operator.lshift, SHIFT_DTYPES)
  rights = table(operator.rshift, SHIFT_DTYPES)
  */
  check_table([](const Tensor& a, const Tensor& b) { return a << b; }, kShiftDTypes,
              {truth<std::vector<DType>>("dtypes_of(lefts)"), truth<Values>("values_of(lefts)")},
              "<<");
  check_table([](const Tensor& a, const Tensor& b) { return a >> b; }, kShiftDTypes,
              {truth<std::vector<DType>>("dtypes_of(rights)"), truth<Values>("values_of(rights)")},
              ">>");
}

TEST(Bitwise, InvertEveryDType) {
  /*
  #|PYTHON
  inverted = [~left(d) for d in INTEGER_DTYPES]
  */
  const Expected want = {truth<std::vector<DType>>("dtypes_of(inverted)"),
                         truth<Values>("values_of(inverted)")};
  ASSERT_EQ(want.dtypes.size(), kIntegerDTypes.size());
  for (std::size_t k = 0; k < kIntegerDTypes.size(); ++k) {
    const Tensor result = ~bits_left(kIntegerDTypes[k]);
    EXPECT_EQ(result.dtype(), want.dtypes[k]) << fp::name(kIntegerDTypes[k]);
    EXPECT_EQ(result.to_vector<std::int64_t>(), want.values[k]) << fp::name(kIntegerDTypes[k]);
  }
}

TEST(Bitwise, NumbersOnEitherSide) {
  /*
  #|PYTHON
  t = left(torch.int16)
  mask = left(torch.bool)
  results = [t & 3, 3 & t, t | 8, 8 | t, t ^ -1, -1 ^ t, t << 2, 1 << t, t >> 1, 300 >> t,
             mask & True, False | mask, mask ^ True]
  */
  const Tensor t = bits_left(DType::I16);
  const Tensor mask = bits_left(DType::Bool);
  const std::vector<Tensor> results = {t & 3,       3 & t,        t | 8,      8 | t,  t ^ -1,
                                       -1 ^ t,      t << 2,       1 << t,     t >> 1, 300 >> t,
                                       mask & true, false | mask, mask ^ true};
  const Expected want = {truth<std::vector<DType>>("dtypes_of(results)"),
                         truth<Values>("values_of(results)")};
  ASSERT_EQ(want.dtypes.size(), results.size());
  for (std::size_t k = 0; k < results.size(); ++k) {
    EXPECT_EQ(results[k].dtype(), want.dtypes[k]) << "#" << k;
    EXPECT_EQ(results[k].to_vector<std::int64_t>(), want.values[k]) << "#" << k;
  }
}

TEST(Bitwise, InPlaceWritesTheTensorItself) {
  /*
  #|PYTHON
  t = left(torch.int32)
  t &= 6
  t |= right(torch.int32)
  t ^= 1
  t <<= 3
  t >>= right(torch.int32)
  mask = left(torch.bool)
  mask &= right(torch.bool)
  mask |= False
  mask ^= True
  parent = left(torch.int64)
  parent[1:3] <<= 4
  */
  Tensor t = bits_left(DType::I32);
  t &= 6;
  t |= bits_right(DType::I32);
  t ^= 1;
  t <<= 3;
  t >>= bits_right(DType::I32);
  EXPECT_EQ(t.dtype(), DType::I32);
  EXPECT_EQ(t.to_vector<std::int64_t>(), truth<std::vector<std::int64_t>>("t.tolist()"));
  Tensor mask = bits_left(DType::Bool);
  mask &= bits_right(DType::Bool);
  mask |= false;
  mask ^= true;
  EXPECT_EQ(mask.to_vector<bool>(), truth<std::vector<bool>>("mask.tolist()"));
  // On a mutable view, the writes reach the parent.
  Tensor parent = bits_left(DType::I64);
  {
    fp::TensorMutView row = parent.i_mut(fp::slice(1, 3));
    row <<= 4;
  }
  EXPECT_EQ(parent.to_vector<std::int64_t>(), truth<std::vector<std::int64_t>>("parent.tolist()"));
}

TEST(BitwiseErrors, PyTorchsMessages) {
  /*
  #|PYTHON
  from truth_helpers import message
  float_and = message(lambda: torch.ones(2) & torch.ones(2))
  float_invert = message(lambda: torch.bitwise_not(torch.ones(2)))  # Python's ~ refuses first
  bool_shift = message(lambda: left(torch.bool).__ilshift__(1))
  shape = message(lambda: torch.ones(2, 3, dtype=torch.int32) | torch.ones(4, dtype=torch.int32))
  */
  EXPECT_TORCH_ERROR(truth<std::string>("float_and"), fp::ones({2}) & fp::ones({2}));
  EXPECT_TORCH_ERROR(truth<std::string>("float_invert"), ~fp::ones({2}));
  EXPECT_TORCH_ERROR(truth<std::string>("shape"),
                     fp::ones({2, 3}, DType::I32) | fp::ones({4}, DType::I32));
  Tensor mask = bits_left(DType::Bool);
  EXPECT_TORCH_ERROR(truth<std::string>("bool_shift"), mask <<= 1);
  const Tensor undefined;
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "the tensor handle is null", undefined & 1);
}

#if FP_BORROW_CHECK
TEST(BitwiseErrors, BorrowRulesApply) {
  Tensor t = bits_left(DType::I64);
  const fp::TensorView view = t;
  EXPECT_FP_ERROR(fp::ErrorCode::Borrow, "fp::BorrowError", t &= 1);
  EXPECT_FP_ERROR(fp::ErrorCode::Borrow, "fp::BorrowError", t <<= bits_right(DType::I64));
  EXPECT_NO_THROW(t.i(0) | view);  // reading is fine
}
#endif

}  // namespace
