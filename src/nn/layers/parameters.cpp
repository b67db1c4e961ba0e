#include "parameters.h"

#include <mutex>

#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/generator.h"
#include "flash_powder/ops/aten.h"

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

}  // namespace

TensorOptions layer_options(std::optional<DType> dtype, std::optional<Device> device) {
  return TensorOptions(dtype.value_or(DType::F32), device.value_or(Device::cpu()));
}

Tensor uniform_init(IntList sizes, double bound, const TensorOptions& options) {
  const Tensor unit = uniform_unit(sizes);
  const Tensor low = tensor(static_cast<float>(-bound));
  const Tensor high = tensor(static_cast<float>(bound));
  return aten::lerp_Tensor(low, high, unit).to(options);
}

Tensor normal_init(IntList sizes, const TensorOptions& options) {
  return standard_normal(sizes).to(options);
}

std::optional<TensorView> optional_view(const Tensor& tensor) {
  if (!tensor.is_defined()) return std::nullopt;
  return TensorView(tensor);
}

}  // namespace fp::nn::detail
