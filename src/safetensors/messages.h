// Pieces of the error messages of the safetensors library.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace fp::safetensors::detail {

/// "fp::safetensors: <source>: ", the start of every message.
std::string message_prefix(std::string_view source);
/// `text` in double quotes, control characters escaped, cut after 200 bytes:
/// names come from hostile files and must not flood or garble a message.
std::string in_quotes(std::string_view text);
/// "[2, 3]".
std::string shape_text(std::span<const std::int64_t> shape);

}  // namespace fp::safetensors::detail
