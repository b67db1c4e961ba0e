// Routes by which fp::dispatch computes a builtin op without sending its `str`
// arguments through torch_call_dispatcher, which leaks them on torch
// 2.10-2.13. abi knows only that a route exists for an op; core, which
// implements them (aten/string_free.h), registers them when the library loads.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "flash_powder/abi/ivalue.h"

namespace fp::abi {

/// Computes a call's results from its captured arguments, or returns nothing
/// where the arguments are not what it expects (the call then goes its usual
/// way, which reports the mistake).
using StringFreeRoute = std::optional<ReturnedValues> (*)(std::span<const Arg> args);

/// Registers `route` for builtin_schemas()[builtin_index]. Returns true, so
/// that a namespace-scope constant can register at load time.
bool set_string_free_route(std::size_t builtin_index, StringFreeRoute route) noexcept;

/// The route registered for `builtin_index`, or null.
StringFreeRoute string_free_route(std::size_t builtin_index) noexcept;

}  // namespace fp::abi
