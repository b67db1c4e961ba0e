// One call of a model container: handles in, tensors out.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/core/tensor_arg.h"
#include "model_interface.h"

namespace fp::aoti::detail {

/// Runs the container on `inputs` (already checked). The model reads inputs
/// as contiguous (the layout they were exported with), so others are copied
/// first. Outputs that share memory with an input are copied, so that every
/// returned Tensor is independent, as fp::Tensor promises.
std::vector<Tensor> run_model(const ModelInterface& api, ContainerHandle container,
                              std::span<const TensorArg> inputs, std::size_t num_outputs,
                              const std::string& source);

}  // namespace fp::aoti::detail
