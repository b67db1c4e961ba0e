// The activation layers oneDNN can apply as a convolution or linear layer
// writes its output (the post-ops frozen Inductor models fuse for float32,
// torch/_inductor/fx_passes/mkldnn_fusion.py), with their post-op.
#pragma once

#include <memory>
#include <optional>

#include "flash_powder/aten/mkldnn.h"
#include "flash_powder/nn/module.h"

namespace fp::nn::detail {

/// An activation layer as a fused post-op, with a copy of the layer for
/// inputs the fused kernel does not take.
struct FusedActivation {
  aten::mkldnn::PostOp post;
  std::unique_ptr<Module> eager;
};

/// `module` as a post-op, or nullopt when it is no activation oneDNN fuses
/// (ReLU, ReLU6, LeakyReLU, GELU, SiLU, Sigmoid, Tanh, Hardswish).
std::optional<FusedActivation> fused_activation(const ModuleBase& module);

/// Whether `module` is one of those activations.
bool is_fusable_activation(const ModuleBase& module);

}  // namespace fp::nn::detail
