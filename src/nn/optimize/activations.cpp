#include "activations.h"

#include <typeinfo>
#include <utility>

#include "flash_powder/nn/layers/activation.h"

namespace fp::nn::detail {
namespace {

/// `module` as a Layer, if it is one exactly: a class derived from a layer
/// may compute something else.
template <class Layer>
const Layer* exact_layer(const ModuleBase& module) {
  return typeid(module) == typeid(Layer) ? static_cast<const Layer*>(&module) : nullptr;
}

template <class Layer>
std::optional<FusedActivation> activation_as(const ModuleBase& module, aten::mkldnn::PostOp post) {
  const Layer* layer = exact_layer<Layer>(module);
  if (layer == nullptr) return std::nullopt;
  return FusedActivation{std::move(post), std::make_unique<Layer>(*layer)};
}

}  // namespace

std::optional<FusedActivation> fused_activation(const ModuleBase& module) {
  // Inductor's patterns match the decomposed ops: ReLU6 is hardtanh(0, 6).
  if (auto found = activation_as<ReLU>(module, {.attr = "relu"})) return found;
  if (auto found = activation_as<ReLU6>(module, {.attr = "hardtanh", .scalars = {0.0, 6.0}}))
    return found;
  if (const auto* leaky = exact_layer<LeakyReLU>(module))
    return activation_as<LeakyReLU>(module,
                                    {.attr = "leaky_relu", .scalars = {leaky->negative_slope}});
  if (const auto* gelu = exact_layer<GELU>(module)) {
    if (gelu->approximate != "none" && gelu->approximate != "tanh") return std::nullopt;
    return activation_as<GELU>(module, {.attr = "gelu", .algorithm = gelu->approximate});
  }
  if (auto found = activation_as<SiLU>(module, {.attr = "swish"})) return found;
  if (auto found = activation_as<Sigmoid>(module, {.attr = "sigmoid"})) return found;
  if (auto found = activation_as<Tanh>(module, {.attr = "tanh"})) return found;
  return activation_as<Hardswish>(module, {.attr = "hardswish"});
}

bool is_fusable_activation(const ModuleBase& module) {
  return fused_activation(module).has_value();
}

}  // namespace fp::nn::detail
