// What the transformers (ViT, Swin) share: torchvision.ops.MLP as they use
// it, and their own parameters and buffers placed where the layers put theirs.
#pragma once

#include <cstdint>

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
