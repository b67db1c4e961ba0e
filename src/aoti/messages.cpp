#include "messages.h"

#include <cstdio>

namespace fp::aoti::detail {

std::string message_prefix(std::string_view source) {
  return "fp::aoti: " + std::string(source) + ": ";
}

std::string in_quotes(std::string_view text) {
  constexpr std::size_t kMax = 200;
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size() && i < kMax; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > kMax) out += "...";
  return out + "\"";
}

}  // namespace fp::aoti::detail
