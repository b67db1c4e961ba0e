// What the layers share: initial values and small helpers. Internal.
#pragma once

#include <optional>
#include <string>

#include "flash_powder/core/array_ref.h"
#include "flash_powder/core/device.h"
#include "flash_powder/core/dtype.h"
#include "flash_powder/core/options.h"
#include "flash_powder/core/tensor.h"

namespace fp::nn::detail {

/// A layer's `device=` and `dtype=`: float32 on the CPU by default.
TensorOptions layer_options(std::optional<DType> dtype, std::optional<Device> device);

/// Uniform on [-bound, bound), like `torch.nn.init.uniform_`. Initial values
/// are deterministic: every layer draws from one fp::Generator seeded with
/// torch's default seed, in the order layers are made. (Weights are normally
/// loaded; these only need to be sensible.)
Tensor uniform_init(IntList sizes, double bound, const TensorOptions& options);
/// Standard normal, like `torch.nn.init.normal_`, from the same generator.
Tensor normal_init(IntList sizes, const TensorOptions& options);

/// std::nullopt for an undefined tensor (an absent bias), else a view.
std::optional<TensorView> optional_view(const Tensor& tensor);

/// F.linear as torch.nn layers compute it. PyTorch's parameters require grad,
/// and then matmul folds an input of 3 or more dimensions into a matrix even
/// when that takes a copy (a non-contiguous input, e.g. batch_first attention);
/// F.linear on plain tensors would not, and rounds differently. So a
/// non-contiguous input is made contiguous first, which is what the fold does.
Tensor layer_linear(TensorView input, TensorView weight, std::optional<TensorView> bias);

/// Throws fp::Error("fp::nn::<layer>: <message>").
[[noreturn]] void fail(const std::string& layer, const std::string& message);

}  // namespace fp::nn::detail
