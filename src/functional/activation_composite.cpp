// The activations whose libtorch kernel takes a Python number (a Scalar),
// which the stable ABI cannot carry: each composes ATen ops that round as
// that kernel does (functional/activation.h says how close each comes).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "flash_powder/abi/runtime.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/functional/activation.h"
#include "nn/messages.h"
#include "python_number.h"

namespace fp::functional {

using detail::python_number;

namespace {

[[noreturn]] void fail(const char* function, const std::string& message) {
  throw Error(ErrorCode::BadArgument, std::string("fp::functional::") + function + ": " + message);
}

/// The composites below would quietly promote integer tensors to float;
/// Python's kernels refuse them.
void require_floating_point(const TensorView& input, const char* function) {
  if (!is_floating_point(input.dtype())) {
    fail(function, "expected a floating-point input, got " + std::string(name(input.dtype())));
  }
}

bool is_reduced_float(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16;
}

/// The input in the type libtorch's kernels compute in: float32 for
/// float16/bfloat16 (each result is rounded once at the end), else itself.
Tensor in_math_type(const TensorView& input) {
  return is_reduced_float(input.dtype()) ? input.to(DType::F32) : Tensor(input);
}

/// A number as a 0-dim tensor of `dtype`: the value libtorch's kernel gets
/// from `scalar.to<scalar_t>()`.
Tensor number_of(double value, DType dtype) {
  return python_number(value).to(dtype);
}

/// The range of an integer dtype as doubles [lowest, end): every integer
/// in it converts exactly (64-bit dtypes: as far as int64 reaches).
std::pair<double, double> integer_range(DType dtype) {
  const auto range = [](auto limits) {
    return std::pair<double, double>{static_cast<double>(limits.lowest()),
                                     static_cast<double>(limits.max()) + 1.0};
  };
  constexpr double int64_end = 9223372036854775808.0;  // 2^63
  switch (dtype) {
    case DType::U8:
      return range(std::numeric_limits<std::uint8_t>());
    case DType::U16:
      return range(std::numeric_limits<std::uint16_t>());
    case DType::U32:
      return range(std::numeric_limits<std::uint32_t>());
    case DType::U64:
      return {0.0, int64_end};
    case DType::I8:
      return range(std::numeric_limits<std::int8_t>());
    case DType::I16:
      return range(std::numeric_limits<std::int16_t>());
    case DType::I32:
      return range(std::numeric_limits<std::int32_t>());
    default:
      return {-int64_end, int64_end};
  }
}

/// A number as libtorch's checked conversion gives it to an integer kernel:
/// truncated towards zero; one outside the dtype's range throws.
std::int64_t integer_number(double value, DType dtype, const char* function, const char* what) {
  const double truncated = std::trunc(value);
  const auto [lowest, end] = integer_range(dtype);
  if (!(truncated >= lowest && truncated < end)) {
    fail(function, std::string(what) + " " + nn::detail::python_float(value) +
                       " cannot be converted to " + std::string(name(dtype)) + " without overflow");
  }
  return static_cast<std::int64_t>(truncated);
}

Tensor integer_threshold(const TensorView& input, double threshold, double value) {
  const DType dtype = input.dtype();
  const std::int64_t limit = integer_number(threshold, dtype, "threshold", "threshold");
  const std::int64_t replacement = integer_number(value, dtype, "threshold", "value");
  return where(input.le(Scalar(limit)), fp::tensor(replacement).to(dtype), input);
}

/// hardtanh's bounds for an integer input: libtorch's `toLong()`.
std::pair<std::int64_t, std::int64_t> integer_bounds(DType dtype, const HardtanhOptions& options) {
  const auto bound = [&](double value) {
    return integer_number(value, DType::I64, "hardtanh", "bound");
  };
  const std::int64_t low = bound(options.min_val), high = bound(options.max_val);
  if (dtype == DType::U8 && (low < 0 || high < 0)) {
    fail("hardtanh", "cannot do hardtanh on an unsigned type with negative limits");
  }
  return {low, high};
}

/// softshrink's lambd where the kernel subtracts it: from torch 2.14 on,
/// float16/bfloat16 kernels round it to the input's dtype first.
Tensor shrink_amount(double lambd, DType dtype) {
  static const bool rounded_to_dtype = torch_version() >= TorchVersion{2, 14, 0};
  if (is_reduced_float(dtype) && rounded_to_dtype) return number_of(lambd, dtype).to(DType::F64);
  return python_number(lambd);
}

/// The largest finite value of a floating dtype (softshrink's lambd bound).
double largest_finite(DType dtype) {
  switch (dtype) {
    case DType::F16:
      return 65504.0;
    case DType::BF16:
      return 3.3895313892515355e38;
    case DType::F32:
      return std::numeric_limits<float>::max();
    default:
      return std::numeric_limits<double>::max();
  }
}

/// rrelu's training mode, libtorch's `_rrelu_with_noise_train`: every element
/// x <= 0, in row-major order, becomes x * r with r drawn as
/// `uniform_real_distribution<double>(lower, upper)` (the bounds rounded to
/// the math type first) and rounded to the math type.
Tensor rrelu_training(const TensorView& input, const RreluOptions& options) {
  const DType dtype = input.dtype();
  if (!input.device().is_cpu()) {
    throw Error(ErrorCode::Unsupported,
                "fp::functional::rrelu: training = true draws on the CPU only (Python draws "
                "from the device's own generator), got a tensor on " +
                    input.device().str());
  }
  if (dtype == DType::F16) {
    fail("rrelu", "training = true: not implemented for float16, as in PyTorch");
  }
  const DType math = dtype == DType::F64 ? DType::F64 : DType::F32;
  const double lower = number_of(options.lower, math).item<double>();
  const double upper = number_of(options.upper, math).item<double>();
  const Tensor negative = input.le(python_number(0.0));
  const std::int64_t count = negative.sum().item<std::int64_t>();
  // 53-bit uniforms in [0, 1), one 64-bit draw each, as the distribution takes them.
  const Tensor unit = options.generator ? fp::rand({count}, *options.generator, DType::F64)
                                        : aten::rand({count}, DType::F64);
  const Tensor slopes = (unit * python_number(upper - lower) + python_number(lower)).to(math);
  const Tensor scaled = (aten::masked_select(input, negative).to(math) * slopes).to(dtype);
  return aten::masked_scatter(input, negative, scaled);
}

}  // namespace

Tensor leaky_relu(const TensorView& input, const LeakyReluOptions& options) {
  require_floating_point(input, "leaky_relu");
  // libtorch's kernel: x > 0 ? x : x * slope, with the slope rounded to the
  // dtype's math type, which is what mul does with a 0-dim double tensor.
  const Tensor positive = input.gt(python_number(0.0));
  const Tensor scaled = input * python_number(options.negative_slope);
  return where(positive, input, scaled);
}

Tensor elu(const TensorView& input, const EluOptions& options) {
  require_floating_point(input, "elu");
  if (is_reduced_float(input.dtype())) {
    // libtorch computes float16/bfloat16 in float32 and rounds once at the end.
    const Tensor result = elu(input.to(DType::F32), options);
    return result.to(input.dtype());
  }
  // libtorch's vectorised kernel: x >= 0 ? x * scale : expm1(x * input_scale) * alpha * scale,
  // with scale = input_scale = 1 for F.elu.
  const Tensor non_negative = input.ge(python_number(0.0));
  const Tensor negative = aten::expm1(input) * python_number(options.alpha);
  return where(non_negative, input, negative);
}

Tensor celu(const TensorView& input, const CeluOptions& options) {
  require_floating_point(input, "celu");
  if (options.alpha == 0.0) fail("celu", "alpha cannot be 0 for CELU");
  // libtorch: elu(x, alpha, scale = 1, input_scale = 1 / alpha), whose kernel
  // is x > 0 ? x : expm1(x * input_scale) * alpha, in float32 for half types.
  const Tensor x = in_math_type(input);
  const Tensor negative =
      aten::expm1(x * python_number(1.0 / options.alpha)) * python_number(options.alpha);
  return where(x.gt(python_number(0.0)), x, negative).to(input.dtype());
}

Tensor threshold(const TensorView& input, double threshold, double value) {
  const DType dtype = input.dtype();
  if (dtype == DType::Bool) fail("threshold", "not implemented for bool, as in PyTorch");
  if (!is_floating_point(dtype)) return integer_threshold(input, threshold, value);
  // libtorch compares in the math type (float32 for half types) and writes
  // the value rounded to the input's dtype.
  const Tensor replaced = in_math_type(input).le(python_number(threshold));
  return where(replaced, number_of(value, dtype), input);
}

Tensor hardtanh(const TensorView& input, const HardtanhOptions& options) {
  if (options.min_val > options.max_val) {
    fail("hardtanh", "min_val cannot be greater than max_val");
  }
  const DType dtype = input.dtype();
  if (dtype == DType::Bool) fail("hardtanh", "Bool inputs not supported for hardtanh");
  if (is_integral(dtype)) {
    const auto [low, high] = integer_bounds(dtype, options);
    return clamp(input, Scalar(low), Scalar(high));
  }
  return clamp(input, Scalar(options.min_val), Scalar(options.max_val));
}

Tensor softplus(const TensorView& input, const SoftplusOptions& options) {
  require_floating_point(input, "softplus");
  // libtorch: x * beta > threshold ? x : log1p(exp(x * beta)) / beta.
  const Tensor x = in_math_type(input);
  const Tensor beta = python_number(options.beta);
  const Tensor scaled = x * beta;
  const Tensor smooth = aten::log1p(aten::exp(scaled)) / beta;
  return where(scaled.gt(python_number(options.threshold)), x, smooth).to(input.dtype());
}

Tensor softshrink(const TensorView& input, const ShrinkOptions& options) {
  require_floating_point(input, "softshrink");
  const DType dtype = input.dtype();
  if (!(options.lambd >= 0.0 && options.lambd <= largest_finite(dtype))) {
    fail("softshrink", "lambd must be in range [0, " +
                           nn::detail::python_float(largest_finite(dtype)) + "] for input dtype " +
                           std::string(name(dtype)) + ", but found " +
                           nn::detail::python_float(options.lambd));
  }
  // libtorch: x > lambd ? x - lambd : (x < -lambd ? x + lambd : 0), NaN kept,
  // in float32 for half types.
  const Tensor x = in_math_type(input);
  const Tensor amount = shrink_amount(options.lambd, dtype);
  const Tensor shrunk = where(x.gt(python_number(0.0)), x - amount, x + amount);
  const Tensor inside = x.abs().le(python_number(options.lambd));
  return where(inside, fp::zeros({}, x.dtype()), shrunk).to(dtype);
}

Tensor hardshrink(const TensorView& input, const ShrinkOptions& options) {
  require_floating_point(input, "hardshrink");
  // libtorch: -lambd <= x <= lambd ? 0 : x, with lambd in the input's dtype.
  const DType dtype = input.dtype();
  const Tensor inside =
      input.ge(number_of(-options.lambd, dtype)) & input.le(number_of(options.lambd, dtype));
  return where(inside, fp::zeros({}, dtype), input);
}

Tensor rrelu(const TensorView& input, const RreluOptions& options) {
  if (options.lower > options.upper) {
    fail("rrelu", "Lower bound should be less than or equal to the upper bound");
  }
  require_floating_point(input, "rrelu");
  if (options.training) return rrelu_training(input, options);
  // libtorch's eval mode: leaky_relu with the mean slope, computed in double.
  return leaky_relu(input, {.negative_slope = (options.lower + options.upper) / 2});
}

}  // namespace fp::functional
