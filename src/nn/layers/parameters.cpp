#include "parameters.h"

#include <mutex>

#include "flash_powder/aten/aten.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/generator.h"
#include "flash_powder/nn/init.h"

namespace fp::nn::detail {
namespace {

/// The generator of all initial values, and its lock (fp::Generator is not thread-safe).
struct InitGenerator {
  std::mutex mutex;
  Generator generator;
};

InitGenerator& init_generator() {
  static InitGenerator shared;
  return shared;
}

Tensor uniform_unit(IntList sizes) {
  auto& [mutex, generator] = init_generator();
  const std::lock_guard lock(mutex);
  return rand(sizes, generator);
}

Tensor standard_normal(IntList sizes) {
  auto& [mutex, generator] = init_generator();
  const std::lock_guard lock(mutex);
  return randn(sizes, generator);
}

/// `samples` (float32 on the CPU) as `options` ask; no copy when they match.
Tensor placed(Tensor samples, const TensorOptions& options) {
  const bool as_drawn = options.dtype_or(DType::F32) == DType::F32 &&
                        options.device_or(Device::cpu()).is_cpu() && !options.pinned_memory();
  if (as_drawn) return samples;
  return samples.to(options);
}

}  // namespace

TensorOptions layer_options(std::optional<DType> dtype, std::optional<Device> device) {
  return TensorOptions(dtype.value_or(DType::F32),
                       device.value_or(DefaultDevice::current().value_or(Device::cpu())));
}

bool skips_init(const TensorOptions& options) {
  return SkipInit::active() || options.device_or(Device::cpu()) == Device::meta();
}

Tensor uniform_init(IntList sizes, double bound, const TensorOptions& options) {
  if (skips_init(options)) return empty(sizes, options);
  const Tensor unit = uniform_unit(sizes);
  const Tensor low = tensor(static_cast<float>(-bound));
  const Tensor high = tensor(static_cast<float>(bound));
  return placed(aten::lerp_Tensor(low, high, unit), options);
}

Tensor normal_init(IntList sizes, const TensorOptions& options) {
  if (skips_init(options)) return empty(sizes, options);
  return placed(standard_normal(sizes), options);
}

Tensor shared_rand(IntList sizes, const TensorOptions& options) {
  auto& [mutex, generator] = init_generator();
  const std::lock_guard lock(mutex);
  return rand(sizes, generator, options);
}

void reseed_init_generator(std::uint64_t seed) {
  auto& [mutex, generator] = init_generator();
  const std::lock_guard lock(mutex);
  generator.manual_seed(seed);
}

std::optional<TensorView> optional_view(const Tensor& tensor) {
  if (!tensor.is_defined()) return std::nullopt;
  return TensorView(tensor);
}

}  // namespace fp::nn::detail
