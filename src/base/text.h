// How flash_powder's messages spell values: as Python prints them, so that a
// message that quotes PyTorch's reads the same, and text from a file or a
// user made safe to show. One place for every layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace fp::detail {

/// Python's repr of a float: the shortest text that reads back, always with
/// a point or an exponent ("0.5", "2.0", "1e-05", "inf", "nan").
std::string python_float(double value);
/// Python's repr of a list: "[2, 3]", "[0.5, 2.0]".
std::string list_text(std::span<const std::int64_t> values);
std::string list_text(std::span<const double> values);
/// Python's `str(tensor.shape)`: "torch.Size([2, 3])".
std::string torch_size(std::span<const std::int64_t> sizes);
/// Python's `str(tuple(sizes))`: "(2, 3)", "(5,)", "()".
std::string tuple_text(std::span<const std::int64_t> sizes);

/// `text` in double quotes, `"` and `\` escaped with a backslash, control
/// bytes as \xNN, cut after `limit` bytes with "... (N bytes)" appended.
std::string quoted(std::string_view text, std::size_t limit = 200);

/// A C++ type's name as the compiler spells it ("fp::nn::Linear") from its
/// mangled name (typeid(T).name()); the mangled name where it cannot.
std::string demangled(const char* mangled);

}  // namespace fp::detail
