// Checking a call's inputs against the package's signature before it runs.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "flash_powder/aoti/spec.h"
#include "flash_powder/core/tensor_arg.h"

namespace fp::aoti::detail {

/// Throws fp::Error naming the input (index and name) when `inputs` do not
/// match `signature`: count, defined, dtype, device type (and `device`'s
/// index when it has one), rank, static sizes, dynamic sizes within their
/// range, and dimensions sharing a symbol equal across inputs.
void check_inputs(const Signature& signature, std::span<const TensorArg> inputs, Device device,
                  const std::string& source);

/// Throws fp::Error when `inputs` do not number `count` (all packages).
void check_input_count(std::size_t count, std::span<const TensorArg> inputs,
                       const std::string& source);

}  // namespace fp::aoti::detail
