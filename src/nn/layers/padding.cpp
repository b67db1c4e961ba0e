#include "flash_powder/nn/layers/padding.h"

#include <cstdint>

#include "flash_powder/functional/vision.h"
#include "nn/messages.h"

namespace fp::nn::detail {
namespace {

struct ModeNames {
  const char* layer;       // the layer's name without "<N>d"
  const char* functional;  // fp::functional::pad's mode
};

ModeNames names(PadMode mode) {
  switch (mode) {
    case PadMode::Zero:
      return {"ZeroPad", "constant"};
    case PadMode::Constant:
      return {"ConstantPad", "constant"};
    case PadMode::Reflection:
      return {"ReflectionPad", "reflect"};
    case PadMode::Replication:
      return {"ReplicationPad", "replicate"};
    case PadMode::Circular:
      return {"CircularPad", "circular"};
  }
  return {"Pad", "constant"};
}

}  // namespace

std::string pad_layer_name(PadMode mode, std::size_t dims) {
  return names(mode).layer + std::to_string(dims) + "d";
}

Tensor pad_forward(const std::string& name, TensorView input, std::span<const std::int64_t> padding,
                   PadMode mode, double value) {
  // Only CircularPad checks the rank itself in Python; the other modes leave it to F.pad.
  const auto dims = static_cast<std::int64_t>(padding.size() / 2);
  if (mode == PadMode::Circular && input.dim() != dims + 1 && input.dim() != dims + 2) {
    fail(name, "expected " + std::to_string(dims + 1) + "D or " + std::to_string(dims + 2) +
                   "D input (got " + std::to_string(input.dim()) + "D input)");
  }
  const bool constant = mode == PadMode::Zero || mode == PadMode::Constant;
  return functional::pad(input, padding,
                         {.mode = names(mode).functional,
                          .value = constant ? std::optional<double>(value) : std::nullopt});
}

}  // namespace fp::nn::detail
