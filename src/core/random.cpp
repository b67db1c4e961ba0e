// The random factories: rand, randn, randint and their `*_like` forms.
//
// Without a Generator they call libtorch's ops, which draw from torch's
// default generator. With an fp::Generator they sample here, on the CPU, with
// torch's kernels mirrored in core/mirrored/random_kernels.cpp, so that the
// numbers equal Python's
// `torch.rand(..., generator=torch.Generator().manual_seed(s))`, and only then
// move the tensor to the requested device.
#include <cmath>
#include <cstdint>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/mirrored/random_kernels.h"
#include "flash_powder/abi/tensor_handle.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "random_arguments.h"

namespace fp {

using detail::check_defined;
using detail::check_real_or_complex;
using detail::checked_numel;
using detail::checked_randint_range;
using detail::IntegerRange;

namespace {

// --- options ------------------------------------------------------------------------

/// Python's pin_memory=: None unless asked for.
std::optional<bool> pin_memory_option(const TensorOptions& options) {
  return options.pinned_memory() ? std::optional<bool>(true) : std::nullopt;
}

void check_strided(std::string_view op, const TensorOptions& options) {
  if (options.layout() && *options.layout() != Layout::Strided) {
    throw Error(ErrorCode::BadArgument,
                std::string(op) + ": a Generator samples strided tensors only, not layout " +
                    std::string(name(*options.layout())));
  }
}

/// Samples drawn on the CPU, moved to the requested device (and pinned if asked).
Tensor placed(Tensor samples, const TensorOptions& options) {
  const Device device = options.device_or(Device::cpu());
  if (device.is_cpu() && !options.pinned_memory()) return samples;
  const DType dtype = samples.dtype();
  return aten::_to_copy(samples, dtype, std::nullopt, device, pin_memory_option(options));
}

/// `sample()`, with a failed allocation of the samples' tensor (the only
/// thing in it that can fail) reported with the op and the element count.
template <class Sample>
Tensor sampled_in_memory(std::string_view op, std::int64_t count, Sample&& sample) {
  const auto out_of_memory = [&](std::string_view reason) {
    return Error(ErrorCode::OutOfMemory, std::string(op) + ": not enough memory to sample " +
                                             std::to_string(count) + " elements (" +
                                             std::string(reason) + ")");
  };
  try {
    return sample();
  } catch (const std::bad_alloc& error) {
    throw out_of_memory(error.what());
  } catch (const Error& error) {
    if (error.code() != ErrorCode::TorchError) throw;
    throw out_of_memory(error.what());
  }
}

/// A new contiguous CPU tensor whose elements `fill(T* data)` writes, as T.
template <class T, class Fill>
Tensor cpu_tensor(IntList sizes, DType dtype, Fill&& fill) {
  abi::TensorHandle handle =
      abi::empty_strided(sizes, detail::contiguous_strides(sizes), dtype, Device::cpu());
  fill(static_cast<T*>(abi::mutable_data_ptr(handle.get())));
  return Tensor(std::move(handle));
}

template <class T>
Tensor integer_tensor(Generator& generator, IntegerRange range, IntList sizes, std::int64_t count,
                      DType dtype) {
  return cpu_tensor<T>(sizes, dtype,
                       [&](T* data) { mirrored::fill_integers<T>(generator, range, data, count); });
}

Tensor sampled_integers(Generator& generator, IntegerRange range, IntList sizes, std::int64_t count,
                        DType dtype) {
  switch (dtype) {
    case DType::Bool:  // stored as one byte, 0 or 1
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

/// A tensor of `dtype` whose `count` elements `sample(T* data, reals)` writes
/// as reals of the dtype's real part: complex tensors are their reals in pairs.
template <class Sampler>
Tensor floating_tensor(DType dtype, IntList sizes, std::int64_t count, Sampler&& sample) {
  const std::int64_t reals = is_complex(dtype) ? 2 * count : count;
  const auto filled = [&]<class T>() {
    return cpu_tensor<T>(sizes, dtype, [&](T* data) { sample(data, reals); });
  };
  switch (detail::real_part_dtype(dtype)) {
    case DType::F16:
      return filled.template operator()<Half>();
    case DType::BF16:
      return filled.template operator()<BFloat16>();
    case DType::F64:
      return filled.template operator()<double>();
    default:
      return filled.template operator()<float>();
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
  return aten::rand(sizes, dtype, options.layout(), options.device_or(Device::cpu()),
                    pin_memory_option(options));
}

Tensor rand(IntList sizes, Generator& generator, TensorOptions options) {
  const DType dtype = options.dtype_or(DType::F32);
  const std::int64_t count = checked_numel("fp::rand", sizes);
  check_real_or_complex("fp::rand", dtype);
  check_strided("fp::rand", options);
  Tensor samples = sampled_in_memory("fp::rand", count, [&] {
    return floating_tensor(dtype, sizes, count, [&]<class T>(T* data, std::int64_t reals) {
      mirrored::fill_uniform<T>(generator, data, reals);
    });
  });
  return placed(std::move(samples), options);
}

Tensor rand_like(TensorView source, TensorOptions options) {
  check_defined("fp::rand_like", source);
  check_real_or_complex("fp::rand_like", options.dtype().value_or(source.dtype()));
  return aten::rand_like(source, options.dtype(), options.layout(), options.device(),
                         pin_memory_option(options), std::nullopt);
}

// --- randn --------------------------------------------------------------------------------

Tensor randn(IntList sizes, TensorOptions options) {
  const DType dtype = options.dtype_or(DType::F32);
  checked_numel("fp::randn", sizes);
  check_real_or_complex("fp::randn", dtype);
  return aten::randn(sizes, dtype, options.layout(), options.device_or(Device::cpu()),
                     pin_memory_option(options));
}

Tensor randn(IntList sizes, Generator& generator, TensorOptions options) {
  const DType dtype = options.dtype_or(DType::F32);
  const std::int64_t count = checked_numel("fp::randn", sizes);
  check_real_or_complex("fp::randn", dtype);
  check_strided("fp::randn", options);
  const double stddev = normal_stddev(dtype);
  Tensor samples = sampled_in_memory("fp::randn", count, [&] {
    return floating_tensor(dtype, sizes, count, [&]<class T>(T* data, std::int64_t reals) {
      mirrored::fill_normal<T>(generator, data, reals, stddev);
    });
  });
  return placed(std::move(samples), options);
}

Tensor randn_like(TensorView source, TensorOptions options) {
  check_defined("fp::randn_like", source);
  check_real_or_complex("fp::randn_like", options.dtype().value_or(source.dtype()));
  return aten::randn_like(source, options.dtype(), options.layout(), options.device(),
                          pin_memory_option(options), std::nullopt);
}

// --- exponential --------------------------------------------------------------------------

Tensor exponential(IntList sizes, Generator& generator, double lambd, TensorOptions options) {
  const DType dtype = options.dtype_or(DType::F32);
  const std::int64_t count = checked_numel("fp::exponential", sizes);
  if (!is_floating_point(dtype) || is_complex(dtype)) {
    throw Error(ErrorCode::BadArgument,
                "fp::exponential: Exponential distribution is a continuous probability "
                "distribution. dtype must be a floating point but you specified " +
                    std::string(scalar_type_name(dtype)));
  }
  if (!(lambd > 0.0)) {
    std::ostringstream text;  // as libtorch's message prints the number
    text << "fp::exponential: exponential_ expects lambda > 0.0, but found lambda=" << lambd;
    throw Error(ErrorCode::BadArgument, text.str());
  }
  check_strided("fp::exponential", options);
  Tensor samples = sampled_in_memory("fp::exponential", count, [&] {
    return floating_tensor(dtype, sizes, count, [&]<class T>(T* data, std::int64_t reals) {
      mirrored::fill_exponential<T>(generator, data, reals, lambd);
    });
  });
  return placed(std::move(samples), options);
}

// --- randint ------------------------------------------------------------------------------

Tensor randint(std::int64_t high, IntList sizes, TensorOptions options) {
  return randint(0, high, sizes, options);
}

Tensor randint(std::int64_t low, std::int64_t high, IntList sizes, TensorOptions options) {
  const DType dtype = options.dtype_or(DType::I64);
  checked_numel("fp::randint", sizes);
  checked_randint_range("fp::randint", low, high, dtype);
  return aten::randint_low(low, high, sizes, dtype, options.layout(),
                           options.device_or(Device::cpu()), pin_memory_option(options));
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
  return aten::randint_like_low_dtype(source, low, high, options.dtype(), options.layout(),
                                      options.device(), pin_memory_option(options), std::nullopt);
}

}  // namespace fp
