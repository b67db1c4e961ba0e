// The text of nn's error messages: values as Python prints them, for messages
// that quote Python's, and the "fp::nn::<layer>: " prefix of the layers'.
#pragma once

#include <string>

#include "flash_powder/core/array_ref.h"

namespace fp::nn::detail {

/// Python's repr of a float: the shortest text that reads back, always with
/// a point or an exponent ("0.5", "2.0", "1e-05").
std::string python_float(double value);
/// Python's repr of a list of ints: "[2, 3]".
std::string list_text(IntList values);
/// Python's `str(tensor.shape)`: "torch.Size([2, 3])".
std::string torch_size(IntList sizes);

/// Throws fp::Error("fp::nn::<layer>: <message>").
[[noreturn]] void fail(const std::string& layer, const std::string& message);

}  // namespace fp::nn::detail
