// The string-free routes (src/aten/string_free.h): the ops flash_powder's
// layers call with a `str` argument give, through their route, bit for bit
// what the op itself gives (or the same error), for many dtypes, shapes and
// layouts; and with the routes on, no string reaches torch_call_dispatcher
// for them. The routes run where torch leaks strings (2.10-2.13); here they
// are forced on and off, so that they are compared on every torch.
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "abi/string_free_routes.h"
#include "aten/string_free.h"
#include "ops/outcome.h"
#include "support/expect_error.h"
#include "support/string_leak.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn.functional as F
*/

namespace {

using fp::DType;
using fp::Tensor;
using ops_test::describe;
using ops_test::Outcome;
using ops_test::run;

/// Forces the routes on or off for its lifetime.
class Routes {
 public:
  explicit Routes(bool on) { fp::aten::detail::force_string_free_routes(on); }
  ~Routes() { fp::aten::detail::force_string_free_routes(std::nullopt); }
  Routes(const Routes&) = delete;
  Routes& operator=(const Routes&) = delete;
};

/// `op()` through the route and through the op itself: the same outcome.
template <class Op>
void expect_same_with_and_without_route(const Op& op, const std::string& what) {
  Outcome routed;
  Outcome direct;
  {
    const Routes on(true);
    routed = run(op);
  }
  {
    const Routes off(false);
    direct = run(op);
  }
  EXPECT_EQ(routed, direct) << what << "\n route: " << describe(routed)
                            << "\n op:    " << describe(direct);
}

/// `count` values spread over [-6, 6) with zeros of both signs, infinities
/// and NaN among them, in `dtype`.
Tensor awkward(std::int64_t count, DType dtype) {
  Tensor values = fp::linspace(-6.0, 6.0, count, DType::F64);
  if (count > 4) {
    auto data = values.data_mut<double>();
    data[0] = std::numeric_limits<double>::quiet_NaN();
    data[1] = std::numeric_limits<double>::infinity();
    data[2] = -std::numeric_limits<double>::infinity();
    data[3] = -0.0;
    data[4] = 0.0;
  }
  return values.to(dtype);
}

const std::vector<DType> floating = {DType::F32, DType::F64, DType::F16, DType::BF16};

TEST(StringFree, GeluMatchesTheOpAtEveryLength) {
  FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS();  // the op itself sends its string
  for (DType dtype : floating) {
    for (std::int64_t count = 1; count <= 300; ++count) {
      const Tensor x = awkward(count, dtype);
      expect_same_with_and_without_route(
          [&] { return fp::aten::gelu(x); },
          "gelu of " + std::to_string(count) + " " + std::string(fp::name(dtype)));
    }
  }
}

TEST(StringFree, GeluMatchesTheOpAcrossTheGrainSizeWithOneAndTwoThreads) {
  FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS();  // the op itself sends its string
  const int threads = fp::get_num_threads();
  for (int used : {1, 2}) {
    fp::set_num_threads(used);
    for (std::int64_t count : {32767, 32768, 32769, 65537, 100003}) {
      const Tensor x = awkward(count, DType::F32);
      expect_same_with_and_without_route(
          [&] { return fp::aten::gelu(x); },
          "gelu of " + std::to_string(count) + " with " + std::to_string(used) + " threads");
    }
  }
  fp::set_num_threads(threads);
}

TEST(StringFree, GeluOfOtherShapesLayoutsAndModes) {
  FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS();  // the op itself sends its string
  const Tensor x = awkward(24, DType::F32).reshape({2, 3, 4});
  const std::vector<std::pair<std::string, Tensor>> cases = {
      {"3-D", x},
      {"transposed", Tensor(x.transpose(0, 2))},
      {"0-dim", Tensor(x.i(1, 2, 3))},
      {"empty", fp::zeros({0, 3})},
      {"integers", fp::arange(6)},
  };
  // Named, not a structured binding: clang 14 cannot capture one in a lambda.
  for (const auto& entry : cases) {
    const std::string& name = entry.first;
    const Tensor& input = entry.second;
    for (const char* approximate : {"none", "tanh"}) {
      expect_same_with_and_without_route([&] { return fp::aten::gelu(input, approximate); },
                                         "gelu(" + name + ", " + approximate + ")");
    }
  }
  expect_same_with_and_without_route([&] { return fp::aten::gelu(x, "erf"); }, "bad mode");
}

TEST(StringFree, GeluEqualsPython) {
  FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS();  // the op itself sends its string
  /*
  #|PYTHON
  x = torch.linspace(-6, 6, 37)
  */
  const Tensor x = fp::linspace(-6.0, 6.0, 37);
  const Routes on(true);
  EXPECT_EQ(fp::functional::gelu(x).to_vector<float>(),
            fp_test::truth<std::vector<float>>("F.gelu(x).tolist()"));
}

/// Dividends and divisors of every sign, zeros too, in `dtype`.
std::pair<Tensor, Tensor> division_operands(DType dtype) {
  const Tensor a = (fp::arange(-12, 12).reshape({4, 6}) * 7).to(dtype);
  Tensor b = (fp::arange(0, 6) - 3).to(dtype);
  if (!fp::is_floating_point(dtype)) b = b.masked_fill(b.eq(0), 5);  // integers: no zero
  return {a, b};
}

TEST(StringFree, DivisionMatchesTheOpInEveryRoundingMode) {
  FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS();  // the op itself sends its string
  const std::vector<DType> dtypes = {DType::F32, DType::F64, DType::F16, DType::BF16,
                                     DType::I64, DType::I32, DType::I8,  DType::U8};
  for (DType dtype : dtypes) {
    const auto operands = division_operands(dtype);
    const Tensor& a = operands.first;
    const Tensor& b = operands.second;
    const Tensor fractional = a * fp::tensor(0.37f);
    for (const auto& mode :
         std::vector<std::optional<std::string>>{std::nullopt, "floor", "trunc"}) {
      const std::string what =
          std::string(fp::name(dtype)) + " rounding " + (mode ? *mode : std::string("None"));
      expect_same_with_and_without_route([&] { return fp::aten::div_Tensor_mode(a, b, mode); },
                                         what);
      expect_same_with_and_without_route(
          [&] { return fp::aten::div_Tensor_mode(fractional, b, mode); }, what + ", fractions");
      expect_same_with_and_without_route(
          [&] { return fp::aten::div_Tensor_mode(a, fp::tensor(int64_t{-4}), mode); },
          what + ", by a 0-dim int");
      expect_same_with_and_without_route(
          [&] { return fp::aten::div_Tensor_mode(a, fp::tensor(2.5), mode); },
          what + ", by a 0-dim float");
      expect_same_with_and_without_route(
          [&] {
            return fp::aten::div_Tensor_mode(Tensor(a.transpose(0, 1)), b.i(fp::slice(0, 4)), mode);
          },
          what + ", transposed");
    }
  }
}

TEST(StringFree, DivisionErrorsAreTheOpsOwn) {
  FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS();  // the op itself sends its string
  const Tensor integers = fp::arange(6);
  expect_same_with_and_without_route(
      [&] { return fp::aten::div_Tensor_mode(integers, fp::zeros({6}, DType::I64), "trunc"); },
      "integer division by zero");
  expect_same_with_and_without_route(
      [&] { return fp::aten::div_Tensor_mode(integers, integers, "round"); }, "unknown mode");
  expect_same_with_and_without_route(
      [&] {
        return fp::aten::div_Tensor_mode(fp::ones({2}, DType::Bool), fp::ones({2}, DType::Bool),
                                         "trunc");
      },
      "bool");
  expect_same_with_and_without_route(
      [&] { return fp::aten::div_Tensor_mode(fp::ones({2}), fp::ones({3}), "trunc"); }, "shapes");
}

TEST(StringFree, InPlaceDivisionMatchesTheOp) {
  FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS();  // the op itself sends its string
  for (DType dtype : {DType::F32, DType::F16, DType::I64, DType::I32}) {
    const auto operands = division_operands(dtype);
    const Tensor& a = operands.first;
    const Tensor& b = operands.second;
    for (const auto& mode :
         std::vector<std::optional<std::string>>{std::nullopt, "floor", "trunc"}) {
      const auto divided = [&] {
        Tensor target = a;
        fp::aten::div_Tensor_mode_(target, b, mode);
        return target;
      };
      expect_same_with_and_without_route(divided, std::string(fp::name(dtype)) + " in place");
    }
  }
  // Results the target cannot hold, or that broadcast beyond it: the op's errors.
  const auto into_integers = [] {
    Tensor target = fp::arange(6);
    fp::aten::div_Tensor_mode_(target, fp::tensor(2.5), "trunc");
    return target;
  };
  expect_same_with_and_without_route(into_integers, "float result into int64");
  const auto broadcast = [] {
    Tensor target = fp::ones({3});
    fp::aten::div_Tensor_mode_(target, fp::ones({2, 3}), "floor");
    return target;
  };
  expect_same_with_and_without_route(broadcast, "broadcast beyond the target");
}

TEST(StringFree, PaddingMatchesTheOpInEveryMode) {
  FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS();  // the op itself sends its string
  const Tensor x = fp::arange(2 * 3 * 4 * 5, DType::F32).reshape({2, 3, 4, 5});
  for (const char* mode : {"constant", "reflect", "replicate", "circular"}) {
    for (const std::vector<std::int64_t>& pad :
         std::vector<std::vector<std::int64_t>>{{1, 2}, {1, 0, 2, 1}, {2, 1, 0, 1, 1, 0}}) {
      expect_same_with_and_without_route(
          [&] { return fp::aten::pad(x, pad, mode); },
          std::string(mode) + " padding of " + std::to_string(pad.size()) + " numbers");
    }
  }
  expect_same_with_and_without_route(
      [&] {
        return fp::aten::pad(x, {1, 1}, "constant", 2.5);
      },
      "constant with a value");
  expect_same_with_and_without_route(
      [&] {
        return fp::aten::pad(x, {1, 1}, "reflect", 2.5);
      },
      "reflect with a value");
  expect_same_with_and_without_route(
      [&] {
        return fp::aten::pad(x, {9, 9}, "reflect");
      },
      "reflect beyond the input");
  expect_same_with_and_without_route(
      [&] {
        return fp::aten::pad(x, {1, 1}, "mirror");
      },
      "unknown mode");
}

TEST(StringFree, ConvolutionWithSameAndValidMatchesTheOp) {
  FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS();  // the op itself sends its string
  for (std::int64_t dims : {1, 2, 3}) {
    std::vector<std::int64_t> input_sizes = {2, 4};
    std::vector<std::int64_t> even_kernel = {6, 2};
    for (std::int64_t d = 0; d < dims; ++d) {
      input_sizes.push_back(7 - d);
      even_kernel.push_back(d == 0 ? 4 : 3);
    }
    const auto count = [](const std::vector<std::int64_t>& sizes) {
      std::int64_t product = 1;
      for (std::int64_t size : sizes)
        product *= size;
      return product;
    };
    const Tensor input =
        fp::arange(count(input_sizes), DType::F32).reshape(input_sizes) * fp::tensor(0.01f) -
        fp::tensor(1.f);
    const Tensor weight =
        fp::arange(count(even_kernel), DType::F32).reshape(even_kernel) * fp::tensor(0.1f);
    const Tensor bias = fp::arange(6, DType::F32);
    const auto conv = [&](const Tensor& in, const std::string& padding,
                          std::vector<std::int64_t> dilation, std::int64_t groups = 2) {
      switch (dims) {
        case 1:
          return fp::aten::conv1d_padding(in, weight, bias, {1}, padding, dilation, groups);
        case 2:
          return fp::aten::conv2d_padding(in, weight, bias, {1}, padding, dilation, groups);
        default:
          return fp::aten::conv3d_padding(in, weight, bias, {1}, padding, dilation, groups);
      }
    };
    const std::string what = std::to_string(dims) + "-d ";
    for (const char* padding : {"same", "valid"}) {
      for (std::int64_t dilation : {1, 2}) {
        expect_same_with_and_without_route(
            [&] { return conv(input, padding, {dilation}); },
            what + padding + " dilation " + std::to_string(dilation));
      }
      expect_same_with_and_without_route([&] { return conv(Tensor(input.i(0)), padding, {1}); },
                                         what + padding + " unbatched");
    }
    expect_same_with_and_without_route([&] { return conv(input, "full", {1}); },
                                       what + "unknown padding");
  }
}

TEST(StringFree, StridedSameIsRefusedInPyTorchsWords) {
  FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS();  // the op itself sends its string
  const Tensor input = fp::ones({1, 1, 5, 5});
  const Tensor weight = fp::ones({1, 1, 3, 3});
  expect_same_with_and_without_route(
      [&] { return fp::aten::conv2d_padding(input, weight, std::nullopt, {2}, "same"); },
      "strided same");
}

}  // namespace

namespace {

TEST(StringFree, DispatchByNameTakesTheSameRoutes) {
  FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS();  // the op itself sends its string
  for (const auto& [op, overload] :
       std::vector<std::pair<std::string, std::string>>{{"aten::gelu", ""},
                                                        {"aten::div", "Tensor_mode"},
                                                        {"aten::pad", ""},
                                                        {"aten::conv1d", "padding"},
                                                        {"aten::conv2d", "padding"},
                                                        {"aten::conv3d", "padding"}}) {
    const auto index = fp::abi::find_schema(op, overload).builtin_index();
    ASSERT_TRUE(index.has_value()) << op;
    EXPECT_NE(fp::abi::string_free_route(*index), nullptr) << op << "." << overload;
  }
  const Tensor x = fp::linspace(-3.0, 3.0, 24).reshape({1, 2, 3, 4});
  const Tensor weight = fp::ones({2, 2, 2, 2});
  const std::vector<std::pair<std::string, std::function<Tensor()>>> calls = {
      {"gelu", [&] { return fp::dispatch<Tensor>("aten::gelu", "", x); }},
      {"gelu tanh", [&] { return fp::dispatch<Tensor>("aten::gelu", "", x, "tanh"); }},
      {"div floor",
       [&] { return fp::dispatch<Tensor>("aten::div", "Tensor_mode", x, x + 7.0, "floor"); }},
      {"div trunc",
       [&] {
         return fp::dispatch<Tensor>("aten::div", "Tensor_mode", x, fp::tensor(0.7), "trunc");
       }},
      {"div none",
       [&] { return fp::dispatch<Tensor>("aten::div", "Tensor_mode", x, x, std::nullopt); }},
      {"pad",
       [&] {
         return fp::dispatch<Tensor>("aten::pad", "", x, std::vector<std::int64_t>{1, 2},
                                     "reflect");
       }},
      {"pad with value",
       [&] {
         return fp::dispatch<Tensor>("aten::pad", "", x, std::vector<std::int64_t>{1, 2},
                                     "constant", 1.5);
       }},
      {"conv2d same",
       [&] {
         return fp::dispatch<Tensor>("aten::conv2d", "padding", x, weight, std::nullopt, 1, "same");
       }},
      {"wrong type", [&] { return fp::dispatch<Tensor>("aten::gelu", "", x, 3); }},
  };
  for (const auto& [name, call] : calls) {
    expect_same_with_and_without_route(call, "fp::dispatch " + name);
  }
}

}  // namespace
