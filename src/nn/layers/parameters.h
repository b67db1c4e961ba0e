// The layers' parameters: where they live, their initial values, and absent
// ones. Internal.
#pragma once

#include <optional>

#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/core/array_ref.h"
#include "flash_powder/core/options.h"
#include "flash_powder/core/tensor.h"

namespace fp::nn::detail {

/// A layer's `device=` and `dtype=`: float32 by default, on the
/// DefaultDevice in force, else on the CPU.
TensorOptions layer_options(std::optional<DType> dtype, std::optional<Device> device);

/// Whether a layer made with `options` skips drawing its initial values:
/// inside a SkipInit, or on the meta device (which holds no values).
bool skips_init(const TensorOptions& options);

/// Uniform on [-bound, bound), like `torch.nn.init.uniform_`. Initial values
/// are deterministic: every layer draws from one fp::Generator seeded with
/// torch's default seed (fp::nn::manual_seed), in the order layers are made.
/// (Weights are normally loaded; these only need to be sensible.) An empty
/// tensor where skips_init(options).
Tensor uniform_init(IntList sizes, double bound, const TensorOptions& options);
/// Standard normal, like `torch.nn.init.normal_`, from the same generator.
Tensor normal_init(IntList sizes, const TensorOptions& options);

/// Uniform on [0, 1) from the same generator, with `options`' dtype (float32
/// when absent) and device: what Python's `torch.rand(sizes, dtype=...)`
/// draws from torch's global generator, for ops that sample at run time
/// (fractional max pooling).
Tensor shared_rand(IntList sizes, const TensorOptions& options);

/// Restarts the shared generator (fp::nn::manual_seed).
void reseed_init_generator(std::uint64_t seed);

/// std::nullopt for an undefined tensor (an absent bias), else a view.
std::optional<TensorView> optional_view(const Tensor& tensor);

}  // namespace fp::nn::detail
