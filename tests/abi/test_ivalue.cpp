// Capturing C++ values as dispatcher arguments, and converting results.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <array>

#include "support/expect_error.h"

namespace {

using fp::abi::Arg;
using fp::abi::to_arg;

template <class T>
const T& held(const Arg& arg) {
  return std::get<T>(arg.value);
}

TEST(Arg, NumbersKeepTheirKind) {
  EXPECT_EQ(held<int64_t>(to_arg(3)), 3);
  EXPECT_EQ(held<int64_t>(to_arg(uint8_t{200})), 200);
  EXPECT_EQ(held<int64_t>(to_arg(int64_t{-5})), -5);
  EXPECT_EQ(held<double>(to_arg(2.5f)), 2.5);
  EXPECT_EQ(held<bool>(to_arg(true)), true);
  EXPECT_EQ(to_arg(3).type_name(), "int");
  EXPECT_EQ(to_arg(3.0).type_name(), "float");
  EXPECT_EQ(to_arg(false).type_name(), "bool");
}

TEST(Arg, EnumsStringsAndNone) {
  EXPECT_EQ(held<fp::DType>(to_arg(fp::DType::BF16)), fp::DType::BF16);
  EXPECT_EQ(held<fp::Device>(to_arg(fp::Device::cuda(1))), fp::Device::cuda(1));
  EXPECT_EQ(held<fp::Layout>(to_arg(fp::Layout::Strided)), fp::Layout::Strided);
  EXPECT_EQ(held<fp::MemoryFormat>(to_arg(fp::MemoryFormat::ChannelsLast)),
            fp::MemoryFormat::ChannelsLast);
  EXPECT_EQ(held<std::string>(to_arg("floor")), "floor");
  EXPECT_EQ(held<std::string>(to_arg(std::string_view("trunc"))), "trunc");
  EXPECT_EQ(to_arg(std::nullopt).type_name(), "None");
  EXPECT_EQ(to_arg(std::optional<int>()).type_name(), "None");
  EXPECT_EQ(held<int64_t>(to_arg(std::optional<int>(4))), 4);
  EXPECT_EQ(to_arg(fp::DType::F32).type_name(), "ScalarType");
  EXPECT_EQ(to_arg(fp::Device::cpu()).type_name(), "Device");
  EXPECT_EQ(to_arg("x").type_name(), "str");
}

TEST(Arg, SequencesBecomeLists) {
  EXPECT_EQ(held<std::vector<int64_t>>(to_arg(std::vector<int>{1, -2})),
            (std::vector<int64_t>{1, -2}));
  EXPECT_EQ(held<std::vector<int64_t>>(to_arg(std::array<int64_t, 2>{3, 4})),
            (std::vector<int64_t>{3, 4}));
  const std::vector<int64_t> values{5, 6, 7};
  EXPECT_EQ(held<std::vector<int64_t>>(to_arg(std::span<const int64_t>(values))), values);
  EXPECT_EQ(held<std::vector<double>>(to_arg(std::vector<float>{0.5f})),
            (std::vector<double>{0.5}));
  EXPECT_EQ(held<std::vector<bool>>(to_arg(std::vector<bool>{true, false})),
            (std::vector<bool>{true, false}));
  EXPECT_EQ(to_arg(std::vector<int>{}).type_name(), "int[]");
  EXPECT_EQ(to_arg(std::vector<double>{}).type_name(), "float[]");
  EXPECT_EQ(to_arg(std::vector<bool>{}).type_name(), "bool[]");
}

TEST(Arg, TensorsAreBorrowed) {
  const fp::Tensor a = fp::tensor({1.f});
  const fp::Tensor b = fp::tensor({2.f});
  EXPECT_EQ(held<fp::abi::RawTensor>(to_arg(a)), a.raw());
  // Args borrow: the views must outlive the Arg, as they do in fp::dispatch.
  const std::vector<fp::TensorView> views{a, b};
  const auto list = held<std::vector<fp::abi::RawTensor>>(to_arg(views));
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(fp::abi::numel(list[1]), 1);
  const std::vector<std::optional<fp::TensorView>> optional{std::nullopt, fp::TensorView(a)};
  const auto with_none = held<std::vector<fp::abi::RawTensor>>(to_arg(optional));
  EXPECT_EQ(with_none[0], nullptr);
  EXPECT_NE(with_none[1], nullptr);
  EXPECT_EQ(to_arg(a).type_name(), "Tensor");
  EXPECT_EQ(to_arg(std::vector<fp::Tensor>{}).type_name(), "Tensor[]");
}

TEST(ArgErrors, UnsignedValuesBeyondInt64) {
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::BadArgument,
      "fp::dispatch: the integer 18446744073709551615 does not fit the int64 every torch int "
      "argument is",
      to_arg(~uint64_t{0}));
  EXPECT_EQ(held<int64_t>(to_arg(uint64_t{1} << 62)), int64_t{1} << 62);
}

template <class... Values>
fp::abi::Results results_of(Values... values) {
  fp::abi::Results results{{}, "aten::example", "example(...) -> ..."};
  (results.values.push_back(fp::abi::Returned{std::move(values)}), ...);
  return results;
}

TEST(Returned, ScalarsConvert) {
  EXPECT_EQ(fp::abi::ReturnTraits<int>::take(results_of(int64_t{7})), 7);
  EXPECT_EQ(fp::abi::ReturnTraits<double>::take(results_of(int64_t{7})), 7.0);
  EXPECT_EQ(fp::abi::ReturnTraits<double>::take(results_of(0.25)), 0.25);
  EXPECT_EQ(fp::abi::ReturnTraits<bool>::take(results_of(true)), true);
  EXPECT_EQ(fp::abi::ReturnTraits<fp::DType>::take(results_of(fp::DType::I8)), fp::DType::I8);
  EXPECT_EQ(fp::abi::Returned{std::vector<int64_t>{}}.type_name(), "int[]");
}

TEST(ReturnedErrors, MismatchesNameTheOpAndSchema) {
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::BadArgument,
      "aten::example: returns float where the caller asked for int; the schema is example(...) "
      "-> ...",
      fp::abi::ReturnTraits<int64_t>::take(results_of(0.5)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "returns 0 values where the caller asked for one value",
                  fp::abi::ReturnTraits<int64_t>::take(results_of()));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "returns int where the caller asked for a Tensor",
                  fp::abi::ReturnTraits<fp::Tensor>::take(results_of(int64_t{1})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "returns bool where the caller asked for bool[]",
                  (fp::abi::ReturnTraits<std::tuple<std::vector<bool>>>::take(results_of(true))));
}

}  // namespace

namespace {

TEST(Generator, NoneGeneratorUsesTheDefault) {
  const fp::Tensor noise = fp::dispatch<fp::Tensor>("aten::randn", "generator",
                                                    std::vector<int64_t>{2, 3}, std::nullopt);
  EXPECT_EQ(noise.numel(), 6);
  EXPECT_EQ(noise.dtype(), fp::DType::F32);
}

TEST(GeneratorErrors, NullGeneratorHandles) {
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "GeneratorHandle::share: the generator handle is null",
                        fp::abi::GeneratorHandle().share());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "aten::randn.generator: argument 1 'generator' got a null generator handle",
                  fp::dispatch<fp::Tensor>("aten::randn", "generator", std::vector<int64_t>{2},
                                           fp::abi::RawGenerator{nullptr}));
}

}  // namespace
