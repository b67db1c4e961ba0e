// The random factories: rand, randn, randint and their `*_like` forms.
//
// Without a Generator they call libtorch's ops, which draw from torch's
// default generator. With an fp::Generator they sample here, on the CPU, with
// torch's kernels reproduced in random_kernels.cpp, so that the numbers equal
// Python's `torch.rand(..., generator=torch.Generator().manual_seed(s))`, and
// only then move the tensor to the requested device.
#include <cmath>
#include <cstdint>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "flash_powder/abi/dispatch.h"
#include "flash_powder/core/factory.h"
#include "random_arguments.h"
#include "random_kernels.h"

namespace fp {

using detail::check_defined;
using detail::check_real_or_complex;
using detail::checked_numel;
using detail::checked_randint_range;
using detail::IntegerRange;

namespace {

// --- options ------------------------------------------------------------------------

/// Python's pin_memory=: None unless asked for.
std::optional<bool> pin_memory(const TensorOptions& options) {
  return options.pinned_memory() ? std::optional<bool>(true) : std::nullopt;
}

void check_strided(std::string_view op, const TensorOptions& options) {
  if (options.layout() && *options.layout() != Layout::Strided) {
    throw Error(std::string(op) + ": a Generator samples strided tensors only, not layout " +
                std::string(name(*options.layout())));
  }
}

/// Samples drawn on the CPU, moved to the requested device (and pinned if asked).
Tensor placed(Tensor samples, const TensorOptions& options) {
  const Device device = options.device_or(Device::cpu());
  if (device.is_cpu() && !options.pinned_memory()) return samples;
  const DType dtype = samples.dtype();
  return dispatch<Tensor>("aten::_to_copy", "", samples, dtype, std::nullopt, device,
                          pin_memory(options));
}

/// `sample()`, with running out of memory reported as an fp::Error (as
/// libtorch's allocator does) instead of std::bad_alloc or std::length_error.
template <class Sample>
Tensor sampled_in_memory(std::string_view op, std::int64_t count, Sample&& sample) {
  try {
    return sample();
  } catch (const std::bad_alloc&) {
    throw Error(std::string(op) + ": not enough memory to sample " + std::to_string(count) +
                " elements");
  } catch (const std::length_error&) {
    throw Error(std::string(op) + ": not enough memory to sample " + std::to_string(count) +
                " elements");
  }
}

template <class T>
Tensor cpu_tensor(const std::vector<T>& values, IntList sizes, DType dtype) {
  return detail::tensor_from_bytes(values.data(), sizes, dtype);
}

template <class T>
Tensor integer_tensor(Generator& generator, IntegerRange range, IntList sizes, std::int64_t count,
                      DType dtype) {
  return cpu_tensor(detail::integer_samples<T>(generator, range, count), sizes, dtype);
}

Tensor sampled_integers(Generator& generator, IntegerRange range, IntList sizes, std::int64_t count,
                        DType dtype) {
  switch (dtype) {
    case DType::Bool:  // stored as one byte, 0 or 1
      return integer_tensor<std::uint8_t>(generator, range, sizes, count, dtype);
    case DType::U8:
      return integer_tensor<std::uint8_t>(generator, range, sizes, count, dtype);
    case DType::U16:
      return integer_tensor<std::uint16_t>(generator, range, sizes, count, dtype);
    case DType::U32:
      return integer_tensor<std::uint32_t>(generator, range, sizes, count, dtype);
    case DType::U64:
      return integer_tensor<std::uint64_t>(generator, range, sizes, count, dtype);
    case DType::I8:
      return integer_tensor<std::int8_t>(generator, range, sizes, count, dtype);
    case DType::I16:
      return integer_tensor<std::int16_t>(generator, range, sizes, count, dtype);
    case DType::I32:
      return integer_tensor<std::int32_t>(generator, range, sizes, count, dtype);
    case DType::F16:
      return integer_tensor<Half>(generator, range, sizes, count, dtype);
    case DType::BF16:
      return integer_tensor<BFloat16>(generator, range, sizes, count, dtype);
    case DType::F32:
      return integer_tensor<float>(generator, range, sizes, count, dtype);
    case DType::F64:
      return integer_tensor<double>(generator, range, sizes, count, dtype);
    default:
      return integer_tensor<std::int64_t>(generator, range, sizes, count, dtype);
  }
}

// --- floating samples into tensors ------------------------------------------------------

/// Samples `count` reals of the dtype's real part with `sample(generator, n)`
/// and stores them as `dtype`: complex tensors are their reals in pairs.
template <class Sampler>
Tensor floating_tensor(DType dtype, IntList sizes, std::int64_t count, Sampler&& sample) {
  const std::int64_t reals = is_complex(dtype) ? 2 * count : count;
  switch (detail::real_part_dtype(dtype)) {
    case DType::F16:
      return cpu_tensor(sample.template operator()<Half>(reals), sizes, dtype);
    case DType::BF16:
      return cpu_tensor(sample.template operator()<BFloat16>(reals), sizes, dtype);
    case DType::F64:
      return cpu_tensor(sample.template operator()<double>(reals), sizes, dtype);
    default:
      return cpu_tensor(sample.template operator()<float>(reals), sizes, dtype);
  }
}

/// torch.normal_ gives complex tensors unit variance: each part gets 1/sqrt(2).
double normal_stddev(DType dtype) {
  return is_complex(dtype) ? 1.0 / std::sqrt(2.0) : 1.0;
}

}  // namespace

// --- rand ---------------------------------------------------------------------------------

Tensor rand(IntList sizes, TensorOptions options) {
  const DType dtype = options.dtype_or(DType::F32);
  checked_numel("fp::rand", sizes);
  check_real_or_complex("fp::rand", dtype);
  return dispatch<Tensor>("aten::rand", "", sizes.vec(), dtype, options.layout(),
                          options.device_or(Device::cpu()), pin_memory(options));
}

Tensor rand(IntList sizes, Generator& generator, TensorOptions options) {
  const DType dtype = options.dtype_or(DType::F32);
  const std::int64_t count = checked_numel("fp::rand", sizes);
  check_real_or_complex("fp::rand", dtype);
  check_strided("fp::rand", options);
  Tensor samples = sampled_in_memory("fp::rand", count, [&] {
    return floating_tensor(dtype, sizes, count, [&]<class T>(std::int64_t reals) {
      return detail::uniform_samples<T>(generator, reals);
    });
  });
  return placed(std::move(samples), options);
}

Tensor rand_like(TensorView source, TensorOptions options) {
  check_defined("fp::rand_like", source);
  check_real_or_complex("fp::rand_like", options.dtype().value_or(source.dtype()));
  return dispatch<Tensor>("aten::rand_like", "", source, options.dtype(), options.layout(),
                          options.device(), pin_memory(options), std::nullopt);
}

// --- randn --------------------------------------------------------------------------------

Tensor randn(IntList sizes, TensorOptions options) {
  const DType dtype = options.dtype_or(DType::F32);
  checked_numel("fp::randn", sizes);
  check_real_or_complex("fp::randn", dtype);
  return dispatch<Tensor>("aten::randn", "", sizes.vec(), dtype, options.layout(),
                          options.device_or(Device::cpu()), pin_memory(options));
}

Tensor randn(IntList sizes, Generator& generator, TensorOptions options) {
  const DType dtype = options.dtype_or(DType::F32);
  const std::int64_t count = checked_numel("fp::randn", sizes);
  check_real_or_complex("fp::randn", dtype);
  check_strided("fp::randn", options);
  const double stddev = normal_stddev(dtype);
  Tensor samples = sampled_in_memory("fp::randn", count, [&] {
    return floating_tensor(dtype, sizes, count, [&]<class T>(std::int64_t reals) {
      return detail::normal_samples<T>(generator, reals, stddev);
    });
  });
  return placed(std::move(samples), options);
}

Tensor randn_like(TensorView source, TensorOptions options) {
  check_defined("fp::randn_like", source);
  check_real_or_complex("fp::randn_like", options.dtype().value_or(source.dtype()));
  return dispatch<Tensor>("aten::randn_like", "", source, options.dtype(), options.layout(),
                          options.device(), pin_memory(options), std::nullopt);
}

// --- randint ------------------------------------------------------------------------------

Tensor randint(std::int64_t high, IntList sizes, TensorOptions options) {
  return randint(0, high, sizes, options);
}

Tensor randint(std::int64_t low, std::int64_t high, IntList sizes, TensorOptions options) {
  const DType dtype = options.dtype_or(DType::I64);
  checked_numel("fp::randint", sizes);
  checked_randint_range("fp::randint", low, high, dtype);
  return dispatch<Tensor>("aten::randint", "low", low, high, sizes.vec(), dtype, options.layout(),
                          options.device_or(Device::cpu()), pin_memory(options));
}

Tensor randint(std::int64_t low, std::int64_t high, IntList sizes, Generator& generator,
               TensorOptions options) {
  const DType dtype = options.dtype_or(DType::I64);
  const std::int64_t count = checked_numel("fp::randint", sizes);
  const IntegerRange range = checked_randint_range("fp::randint", low, high, dtype);
  check_strided("fp::randint", options);
  Tensor samples = sampled_in_memory("fp::randint", count, [&] {
    return sampled_integers(generator, range, sizes, count, dtype);
  });
  return placed(std::move(samples), options);
}

Tensor randint_like(TensorView source, std::int64_t low, std::int64_t high, TensorOptions options) {
  check_defined("fp::randint_like", source);
  checked_randint_range("fp::randint_like", low, high, options.dtype().value_or(source.dtype()));
  return dispatch<Tensor>("aten::randint_like", "low_dtype", source, low, high, options.dtype(),
                          options.layout(), options.device(), pin_memory(options), std::nullopt);
}

}  // namespace fp
