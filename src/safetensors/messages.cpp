#include "messages.h"

#include <cstdio>

namespace fp::safetensors::detail {

std::string message_prefix(std::string_view source) {
  return "fp::safetensors: " + std::string(source) + ": ";
}

std::string in_quotes(std::string_view text) {
  constexpr std::size_t limit = 200;
  std::string out = "\"";
  for (const char c : text.substr(0, limit)) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7F) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  out += '"';
  if (text.size() > limit) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
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
