// torch.nn.Linear, Bilinear and Identity.
// https://pytorch.org/docs/stable/nn.html#linear-layers
#pragma once

#include <cstdint>
#include <optional>

#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/module.h"

namespace fp::nn {

/// The keyword arguments of torch.nn.Linear, with PyTorch's defaults.
struct LinearOptions {
  /// Whether the layer has a `bias`.
  bool bias = true;
  /// Where the parameters live (the CPU, or the DefaultDevice, when absent).
  std::optional<Device> device{};
  /// float32 when absent.
  std::optional<DType> dtype{};
};

/// y = x W^T + b. Parameters `weight` [out_features, in_features] and `bias`
/// [out_features] (undefined with `.bias = false`).
/// https://pytorch.org/docs/stable/generated/torch.nn.Linear.html
class Linear : public Module {
 public:
  /// A layer from `in_features` to `out_features`, drawing PyTorch's initial values.
  Linear(std::int64_t in_features, std::int64_t out_features, const LinearOptions& options = {});

  void visit(Visitor& visitor) override;
  Tensor forward(TensorView input) const override;

  /// The size of each input's last dimension.
  std::int64_t in_features;
  /// The size of each output's last dimension.
  std::int64_t out_features;
  /// [out_features, in_features].
  Tensor weight;
  /// [out_features] (undefined with `.bias = false`).
  Tensor bias;
};

/// y = x1^T A x2 + b. Parameters `weight` [out_features, in1_features,
/// in2_features] and `bias` [out_features] (undefined with `.bias = false`).
/// Takes LinearOptions (bias, device, dtype), Python's keywords.
/// https://pytorch.org/docs/stable/generated/torch.nn.Bilinear.html
class Bilinear : public ModuleBase {
 public:
  /// Throws fp::Error unless in1_features > 0, like Python.
  Bilinear(std::int64_t in1_features, std::int64_t in2_features, std::int64_t out_features,
           const LinearOptions& options = {});

  void visit(Visitor& visitor) override;
  /// input1 [*, in1_features], input2 [*, in2_features] -> [*, out_features].
  Tensor forward(TensorView input1, TensorView input2) const;
  FP_MODULE_CALL()

  std::int64_t in1_features;
  std::int64_t in2_features;
  std::int64_t out_features;
  Tensor weight;
  Tensor bias;
};

/// Returns (a copy of) its input. https://pytorch.org/docs/stable/generated/torch.nn.Identity.html
class Identity : public Module {
 public:
  Tensor forward(TensorView input) const override;
};

}  // namespace fp::nn
