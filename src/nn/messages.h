// The text of nn's error messages: values as Python prints them, for messages
// that quote Python's, and the "fp::nn::<layer>: " prefix of the layers'.
#pragma once

#include <string>

#include "base/text.h"
#include "flash_powder/core/array_ref.h"

namespace fp::nn::detail {

// How values read in messages: one spelling for every layer (base/text.h).
using fp::detail::demangled;
using fp::detail::list_text;
using fp::detail::python_float;
using fp::detail::torch_size;
using fp::detail::tuple_text;

/// Throws fp::Error("fp::nn::<layer>: <message>").
[[noreturn]] void fail(const std::string& layer, const std::string& message);

}  // namespace fp::nn::detail
