#include "messages.h"

#include "flash_powder/base/quoted.h"

namespace fp::safetensors::detail {

std::string message_prefix(std::string_view source) {
  return "fp::safetensors: " + std::string(source) + ": ";
}

std::string in_quotes(std::string_view text) {
  return fp::detail::quoted(text);
}

std::string shape_text(std::span<const std::int64_t> shape) {
  std::string out = "[";
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (d > 0) out += ", ";
    out += std::to_string(shape[d]);
  }
  return out + "]";
}

}  // namespace fp::safetensors::detail
