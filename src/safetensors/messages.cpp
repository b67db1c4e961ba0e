#include "messages.h"

#include "base/text.h"

namespace fp::safetensors::detail {

std::string message_prefix(std::string_view source) {
  return "fp::safetensors: " + std::string(source) + ": ";
}

std::string in_quotes(std::string_view text) {
  return fp::detail::quoted(text);
}

std::string shape_text(std::span<const std::int64_t> shape) {
  return fp::detail::list_text(shape);
}

}  // namespace fp::safetensors::detail
