#include "messages.h"

#include "base/text.h"

namespace fp::aoti::detail {

std::string message_prefix(std::string_view source) {
  return "fp::aoti: " + std::string(source) + ": ";
}

std::string in_quotes(std::string_view text) {
  return fp::detail::quoted(text);
}

}  // namespace fp::aoti::detail
