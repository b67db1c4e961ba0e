#include "common.h"

#include <mutex>

#include "../aten_op.h"
#include "../tensor_ops.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/generator.h"
#include "flash_powder/nn/functional/linear.h"

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

Tensor placed(const Tensor& values, const TensorOptions& options) {
  static const AtenOp to("aten::_to_copy", "");
  return to(values, options.dtype(), std::nullopt, options.device());
}

}  // namespace

TensorOptions layer_options(std::optional<DType> dtype, std::optional<Device> device) {
  return TensorOptions(dtype.value_or(DType::F32), device.value_or(Device::cpu()));
}

Tensor uniform_init(IntList sizes, double bound, const TensorOptions& options) {
  static const AtenOp lerp("aten::lerp", "Tensor");
  const Tensor unit = uniform_unit(sizes);
  const Tensor low = tensor(static_cast<float>(-bound));
  const Tensor high = tensor(static_cast<float>(bound));
  return placed(lerp(low, high, unit), options);
}

Tensor normal_init(IntList sizes, const TensorOptions& options) {
  return placed(standard_normal(sizes), options);
}

std::optional<TensorView> optional_view(const Tensor& tensor) {
  if (!tensor.is_defined()) return std::nullopt;
  return TensorView(tensor);
}

Tensor layer_linear(TensorView input, TensorView weight, std::optional<TensorView> bias) {
  if (input.dim() < 3 || input.is_contiguous()) return functional::linear(input, weight, bias);
  const Tensor folded = contiguous(input);
  return functional::linear(folded, weight, bias);
}

void fail(const std::string& layer, const std::string& message) {
  throw Error("fp::nn::" + layer + ": " + message);
}

}  // namespace fp::nn::detail
