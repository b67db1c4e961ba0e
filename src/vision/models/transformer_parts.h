// What the transformers (ViT, Swin) share: torchvision.ops.MLP as they use
// it, and their own parameters and buffers placed where the layers put theirs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/text.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/init.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/dropout.h"
#include "flash_powder/nn/layers/linear.h"

namespace fp::vision::models::detail {

/// `MLP(dim, [hidden, dim], activation_layer=nn.GELU, dropout=dropout)`:
/// Linear, GELU, Dropout, Linear, Dropout (keys "0" and "3"); ViT's MLPBlock
/// and Swin's block MLP.
inline nn::Sequential gelu_mlp(std::int64_t dim, std::int64_t hidden, double dropout) {
  return nn::Sequential(nn::Linear(dim, hidden), nn::GELU(), nn::Dropout(dropout),
                        nn::Linear(hidden, dim), nn::Dropout(dropout));
}

/// torchvision.ops.StochasticDepth's check of its probability, which the
/// last block gets whole: fp::Error outside [0, 1] (the identity in inference).
inline void check_stochastic_depth(std::optional<double> probability, const char* network) {
  if (!probability || (*probability >= 0.0 && *probability <= 1.0)) return;
  throw Error(ErrorCode::BadArgument, std::string("fp::vision::models::") + network +
                                          ": drop probability has to be between 0 and 1, but got " +
                                          fp::detail::python_float(*probability));
}

/// relative_position_index of Swin and MaxViT, [N * N] int64 for the N
/// tokens of a window: for tokens a, b (row-major), the row of the bias
/// table of their offset, (ha - hb + Wh - 1) (2 Ww - 1) + wa - wb + Ww - 1.
inline Tensor relative_position_index(std::array<std::int64_t, 2> window) {
  const std::int64_t tokens = window[0] * window[1];
  std::vector<std::int64_t> index;
  index.reserve(static_cast<std::size_t>(tokens * tokens));
  for (std::int64_t a = 0; a < tokens; ++a)
    for (std::int64_t b = 0; b < tokens; ++b)
      index.push_back((a / window[1] - b / window[1] + window[0] - 1) * (2 * window[1] - 1) +
                      (a % window[1] - b % window[1] + window[1] - 1));
  return tensor(std::span<const std::int64_t>(index));
}

/// `tensor` on the DefaultDevice in force (the meta device holds no
/// memory), else where it is: for a network's own parameters and buffers,
/// placed as its layers place theirs.
inline Tensor on_default_device(const Tensor& tensor) {
  if (const auto device = nn::DefaultDevice::current()) return tensor.to(*device);
  return tensor;
}

/// Zeros of `sizes` on the DefaultDevice in force, else on the CPU: a
/// parameter of the network's own (weights are loaded).
inline Tensor zero_parameter(IntList sizes) {
  TensorOptions options;
  if (const auto device = nn::DefaultDevice::current()) options = options.device(*device);
  return zeros(sizes, options);
}

}  // namespace fp::vision::models::detail
